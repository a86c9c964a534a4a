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

TEST(AnnotatedSeeds, Errors) {
  pir::Graph g = Annotated();
  auto other = Mesh::Parse("a=8");
  ASSERT_TRUE(other.ok());
  auto missing = AnnotatedSeeds(g, *other);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("uses axis 'x', which mesh a=8 lacks"), std::string::npos)
      << missing.status().message();
  auto resized = Mesh::Parse("x=4,y=2");
  ASSERT_TRUE(resized.ok());
  auto sized = AnnotatedSeeds(g, *resized);
  ASSERT_FALSE(sized.ok());
  EXPECT_NE(sized.status().message().find("axis 'x' has size 2 in the program's mesh @m but 4"), std::string::npos)
      << sized.status().message();
  pir::GraphBuilder b("plain");
  b.Output(b.Input("x", pir::DType::kF32, {8}));
  auto none = AnnotatedSeeds(b.Finish(), *other);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("carries none"), std::string::npos);
}

}  // namespace
}  // namespace az::shard
