// Shardy and GSPMD annotations -> PIR meshes and shardings.
#include "frontend/stablehlo/shardings.h"

#include <gtest/gtest.h>

namespace az::frontend::shlo {
namespace {

Trees T(const std::string& text) {
  auto trees = ParseTrees(text, "t");
  EXPECT_TRUE(trees.ok()) << trees.status().message();
  return trees.ok() ? *trees : Trees{};
}

using Axes = std::vector<std::vector<std::string>>;

TEST(StableHloShardingsTest, ShardyMeshAndShardings) {
  std::vector<std::string> notes;
  auto mesh = MeshFromTrees("mesh", T(R"(<["x"=2, "y"=4]>)"), &notes);
  ASSERT_TRUE(mesh.ok());
  EXPECT_EQ(mesh->NumDevices(), 8);
  EXPECT_EQ(mesh->axes[1], (std::pair<std::string, int64_t>{"y", 4}));

  auto s = ShardyFromTrees(T(R"(#sdy.sharding<@mesh, [{"y", "x"}, {}], replicated={"z"}>)"), &notes);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->mesh, "mesh");
  EXPECT_EQ(s->dim_axes, (Axes{{"y", "x"}, {}}));
  EXPECT_EQ(s->replicated, std::vector<std::string>{"z"});
  EXPECT_TRUE(notes.empty());

  // Open dims and priorities keep their axes.
  s = ShardyFromTrees(T(R"(<@mesh, [{"x", ?}, {?}, {"y"}p1]>)"), &notes);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dim_axes, (Axes{{"x"}, {}, {"y"}}));

  // A sub-axis is not representable: the dim is unsharded, with a note.
  s = ShardyFromTrees(T(R"(<@mesh, [{"x":(1)2}, {"y"}], unreduced={"w"}>)"), &notes);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->dim_axes, (Axes{{}, {"y"}}));
  EXPECT_EQ(notes.size(), 2u);  // the sub-axis and the unreduced axes

  auto per_value = ShardyPerValueFromTrees(T(R"(#sdy.sharding_per_value<[<@mesh, [{"x"}]>, <@mesh, []>]>)"), &notes);
  ASSERT_TRUE(per_value.ok());
  EXPECT_EQ(per_value->size(), 2u);
  EXPECT_FALSE(ShardyFromTrees(T(R"(<@mesh, "x">)"), &notes).ok());
}

TEST(StableHloShardingsTest, GspmdStrings) {
  auto r = ParseGspmd("{replicated}");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].kind, GspmdSharding::Kind::kReplicated);
  EXPECT_EQ((*ParseGspmd("{manual}"))[0].kind, GspmdSharding::Kind::kManual);
  EXPECT_EQ((*ParseGspmd("{maximal device=3}"))[0].kind, GspmdSharding::Kind::kMaximal);

  // [8,1]<=[8]: one axis of 8 devices splits dim 0.
  auto tiled = ParseGspmd("{devices=[8,1]<=[8]}");
  ASSERT_TRUE(tiled.ok());
  EXPECT_EQ((*tiled)[0].axis_sizes, (std::vector<int64_t>{8}));
  EXPECT_EQ((*tiled)[0].dim_axes, (std::vector<std::vector<int>>{{0}, {}}));

  // [2,1,4] with the last dim replicated: axes 2 and 4, only the first is used.
  auto partial = ParseGspmd("{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ((*partial)[0].axis_sizes, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ((*partial)[0].dim_axes, (std::vector<std::vector<int>>{{0}, {}}));

  // [4,2]<=[2,4]T(1,0): iota(8) as 2x4, transposed to 4x2; tile dim 0 (4)
  // walks the reshape's dim 1 (axis 1), tile dim 1 (2) its dim 0 (axis 0).
  auto transposed = ParseGspmd("{devices=[4,2]<=[2,4]T(1,0)}");
  ASSERT_TRUE(transposed.ok());
  EXPECT_EQ((*transposed)[0].axis_sizes, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ((*transposed)[0].dim_axes, (std::vector<std::vector<int>>{{1}, {0}}));

  EXPECT_TRUE((*ParseGspmd("{devices=[2,2]0,2,1,3}"))[0].explicit_device_order);
  EXPECT_FALSE((*ParseGspmd("{devices=[2,2]0,1,2,3}"))[0].explicit_device_order);
  auto tuple = ParseGspmd("{{replicated}, {devices=[2]<=[2]}}");
  ASSERT_TRUE(tuple.ok());
  EXPECT_EQ(tuple->size(), 2u);

  EXPECT_FALSE(ParseGspmd("{devices=[3]<=[8]}").ok());  // 3 tiles, 8 devices
  EXPECT_FALSE(ParseGspmd("devices=[8]").ok());
  EXPECT_FALSE(ParseGspmd("{devices=[2,2]<=[4]T(0,0)}").ok());
  EXPECT_FALSE(ParseGspmd("{replicated} trailing").ok());
  // Fuzzer finding: an unknown word running to the end of the string read past it.
  EXPECT_FALSE(ParseGspmd("{device\xff\xff[8,1]").ok());
  EXPECT_FALSE(ParseGspmd("{x").ok());
}

TEST(StableHloShardingsTest, GspmdMeshUnification) {
  GspmdMeshes meshes;
  auto a = (*ParseGspmd("{devices=[8,1]<=[8]}"))[0];
  auto b = (*ParseGspmd("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"))[0];
  meshes.Add(a);
  meshes.Add(b);
  // Boundaries {1, 8} and {1, 2, 8} nest: one mesh d0=2, d1=4.
  ASSERT_EQ(meshes.Meshes().size(), 1u);
  EXPECT_EQ(meshes.Meshes()[0].axes, (std::vector<std::pair<std::string, int64_t>>{{"d0", 2}, {"d1", 4}}));
  EXPECT_EQ(meshes.Convert(a, 2)->dim_axes, (Axes{{"d0", "d1"}, {}}));
  EXPECT_EQ(meshes.Convert(b, 2)->dim_axes, (Axes{{"d0"}, {}}));
  EXPECT_FALSE(meshes.Convert(a, 3).ok());  // two tile dims for a rank-3 value

  // 12 devices as 3x4 and as 4x3: boundaries {1,3,12} and {1,4,12} do not nest.
  GspmdMeshes split;
  split.Add((*ParseGspmd("{devices=[3,4]<=[12]}"))[0]);
  split.Add((*ParseGspmd("{devices=[4,3]<=[12]}"))[0]);
  ASSERT_EQ(split.Meshes().size(), 2u);
  EXPECT_EQ(split.Meshes()[1].name, "gspmd_1");
}

TEST(StableHloShardingsTest, ReplicaGroupsToAxes) {
  pir::Mesh mesh{"mesh", {{"x", 2}, {"y", 4}}};  // device = 4x + y
  EXPECT_EQ(*GroupAxes(mesh, {{0, 4}, {1, 5}, {2, 6}, {3, 7}}), std::vector<std::string>{"x"});
  EXPECT_EQ(*GroupAxes(mesh, {{0, 1, 2, 3}, {4, 5, 6, 7}}), std::vector<std::string>{"y"});
  EXPECT_EQ(*GroupAxes(mesh, {{0, 1, 2, 3, 4, 5, 6, 7}}), (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(GroupAxes(mesh, {{0, 1}, {2, 3, 4, 5}}).ok());
  EXPECT_FALSE(GroupAxes(mesh, {{0, 9}}).ok());
}

}  // namespace
}  // namespace az::frontend::shlo
