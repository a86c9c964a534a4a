// AnnotatedSeeds (templates.h): a program's own shardings as seeds.
#include <gtest/gtest.h>

#include "pir/build/graph_builder.h"
#include "shard/templates.h"

namespace az::shard {
namespace {

// x [8, 16] sharded [{"x"}, {}] on the program's mesh @m = ["x"=2, "y"=4].
pir::Graph Annotated() {
  pir::GraphBuilder b("annotated");
  pir::ValueId x = b.Input("x", pir::DType::kF32, {8, 16});
  b.Output(b.Linear("proj", x, 32));
  pir::Graph g = b.Finish();
  g.AddMesh({"m", {{"x", 2}, {"y", 4}}});
  g.mutable_value(x).sharding = pir::TensorSharding{"m", {{"x"}, {}}, {}};
  return g;
}

TEST(AnnotatedSeeds, AxesAreFoundByName) {
  pir::Graph g = Annotated();
  auto mesh = Mesh::Parse("y=4,x=2");  // another order: names decide, not positions
  ASSERT_TRUE(mesh.ok());
  auto seeds = TemplateSeeds(g, *mesh, "annotated");
  ASSERT_TRUE(seeds.ok()) << seeds.status().message();
  ASSERT_EQ(seeds->values.size(), 1u);
  EXPECT_EQ(seeds->values.begin()->second.dims, (std::vector<std::vector<int>>{{1}, {}}));
}

// AnnotatedSeeds' error for `g` on the mesh `mesh`; "" when it succeeds.
std::string SeedsError(const pir::Graph& g, const char* mesh) {
  auto parsed = Mesh::Parse(mesh);
  if (!parsed.ok()) return parsed.status().message();
  auto seeds = AnnotatedSeeds(g, *parsed);
  return seeds.ok() ? "" : seeds.status().message();
}

TEST(AnnotatedSeeds, Errors) {
  pir::Graph g = Annotated();
  const std::string missing = SeedsError(g, "a=8");
  EXPECT_NE(missing.find("uses axis 'x', which mesh a=8 lacks"), std::string::npos) << missing;
  const std::string resized = SeedsError(g, "x=4,y=2");
  EXPECT_NE(resized.find("axis 'x' has size 2 in the program's mesh @m but 4"), std::string::npos) << resized;
  pir::GraphBuilder b("plain");
  b.Output(b.Input("x", pir::DType::kF32, {8}));
  const std::string none = SeedsError(b.Finish(), "a=8");
  EXPECT_NE(none.find("carries none"), std::string::npos) << none;
}

}  // namespace
}  // namespace az::shard
