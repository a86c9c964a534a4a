// The collective model's default calibration (calibration.h) reads the chip's
// fitted GPU node from the catalog (hw::ChipSpec::fitted_fabric), never its
// name.
#include "net/calibration.h"

#include <gtest/gtest.h>

#include <string>

#include "hw/testing.h"

namespace az::net {
namespace {

using hw_test::Topo;

// A system whose chip is renamed gets the same figures: the fitted nodes
// (h100, h200), the EFA cluster's multi-node forms and NCCL's constants alike.
TEST(DefaultCalibration, ReadsTheCatalogNotTheName) {
  for (const char* spec : {"h100:8", "h100:2x8:efa", "h200:8", "h200:2x8", "h800:8", "b200:8", "l40s:8", "v5e:4x4"}) {
    hw::Topology t = Topo(spec), renamed = Topo(spec);
    renamed.chip.name = "renamed";
    EXPECT_EQ(CalibrationToJson(DefaultCalibration(renamed)), CalibrationToJson(DefaultCalibration(t))) << spec;
  }
}

// Which systems carry a fit: the single-node figures on every system of a
// fitted chip, the multi-node ones only where they were measured (h100).
TEST(DefaultCalibration, FittedNodesAndClusters) {
  EXPECT_EQ(DefaultCalibration(Topo("h100:8")).source,
            "fitted to nccl-tests all_reduce_perf on 8xH100 SXM (aws-samples)");
  const Calibration cluster = DefaultCalibration(Topo("h100:2x8:efa"));
  EXPECT_EQ(cluster.source,
            "fitted to nccl-tests all_reduce_perf on 8xH100 SXM (aws-samples) and 2 x 8xH100 over EFA");
  EXPECT_EQ(cluster.algorithms.count("nvls-tree"), 1u);
  EXPECT_DOUBLE_EQ(cluster.algorithms.at("ring-ll").base_latency.value(), -2.527e-6);
  const Calibration h200 = DefaultCalibration(Topo("h200:2x8"));
  EXPECT_EQ(h200.source, "fitted to nccl-tests all_reduce_perf on 8xH200 (ml-engineering)");
  EXPECT_EQ(h200.algorithms.count("tree-ll"), 0u);
  EXPECT_DOUBLE_EQ(h200.algorithms.at("nvls").efficiency, 0.7356);
  EXPECT_TRUE(DefaultCalibration(Topo("h800:8")).algorithms.empty());
}

}  // namespace
}  // namespace az::net
