#include "price/simulator.h"

#include <gtest/gtest.h>

#include <numeric>

#include "compile/pipeline.h"
#include "compile/spmd/spmd_compiler.h"
#include "frontend/zoo/zoo.h"
#include "price/calibration.h"

namespace az::price {
namespace {

evidence::Evidence ZooEvidence(const std::string& model, int64_t width, int64_t height, int64_t frames,
                               const std::string& mesh_text, const std::string& templ,
                               zoo::CfgMode cfg = zoo::CfgMode::kTwoPass) {
  zoo::ModelOptions options;
  options.width = width;
  options.height = height;
  options.frames = frames;
  options.cfg = cfg;
  auto config = zoo::ResolveConfig(model, options);
  EXPECT_TRUE(config.ok()) << config.status().message();
  auto graph = zoo::BuildForward(*config);
  EXPECT_TRUE(graph.ok()) << graph.status().message();
  auto mesh = shard::Mesh::Parse(mesh_text);
  EXPECT_TRUE(mesh.ok());
  compile::SpmdCompiler compiler;
  auto program = compile::CompileTemplate(compiler, *graph, *mesh, templ, compile::CompileOptions());
  EXPECT_TRUE(program.ok()) << program.status().message();
  return evidence::Extract(*program, compiler.name());
}

Simulator MakeSim(const evidence::Evidence& e, const hw::Topology& t) {
  PriceCalibration c = DefaultPriceCalibration(t);
  auto sim = Simulator::Create(e, t, c.network, c.compute);
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  return std::move(*sim);
}

// Image of a placement under the chip permutation `sigma`.
net::Placement Apply(const std::vector<int>& sigma, const net::Placement& p) {
  net::Placement out(p.size());
  for (size_t i = 0; i < p.size(); ++i) out[i] = sigma[static_cast<size_t>(p[i])];
  return out;
}

// Reflection of torus axis `axis`: c -> size - 1 - c. Dimension-order routes
// map onto routes (a line has one path per pair), so on an axis without
// wraparound this is an automorphism of the priced model.
std::vector<int> Reflect(const hw::Topology& t, size_t axis) {
  std::vector<int> sigma(static_cast<size_t>(t.num_chips()));
  for (int chip = 0; chip < t.num_chips(); ++chip) {
    std::vector<int> c = t.nodes[static_cast<size_t>(chip)].coords;
    c[axis] = t.dims[axis] - 1 - c[axis];
    int id = 0, stride = 1;
    for (size_t a = 0; a < t.dims.size(); ++a) {
      id += c[a] * stride;
      stride *= t.dims[a];
    }
    sigma[static_cast<size_t>(chip)] = id;
  }
  return sigma;
}

TEST(Simulator, OneDeviceProgramIsTheSumOfItsKernels) {
  evidence::Evidence e = ZooEvidence("wan2.1-t2v-1.3b", 416, 240, 17, "d=1", "replicated");
  ASSERT_EQ(e.num_devices, 1);
  ASSERT_TRUE(e.collectives.empty());
  auto t = hw::MakeTopology("h100:8");
  ASSERT_TRUE(t.ok());
  Simulator sim = MakeSim(e, *t);
  double sum = 0;
  for (const auto& s : e.segments) sum += sim.compute().Time(s).time.value();
  EXPECT_NEAR(sim.Latency({3}), sum, 1e-12 * sum);
  auto result = sim.Simulate({3}, true);
  ASSERT_TRUE(result.ok());
  EXPECT_NEAR(result->latency.value(), sum, 1e-12 * sum);
  EXPECT_EQ(result->kernels, static_cast<int>(e.segments.size()));
  EXPECT_EQ(result->slices.size(), e.segments.size());
  EXPECT_NEAR(result->exposed_communication.value(), 0, 1e-12);
}

TEST(Simulator, OverlapStaysBetweenTheEnginesBoundAndTheirSum) {
  auto t = hw::MakeTopology("v5e:2x4");
  ASSERT_TRUE(t.ok());
  for (const char* templ : {"ulysses=y", "ring=y", "fsdp=y,ulysses=x", "usp:ulysses=x,ring=y", "tp=y"}) {
    evidence::Evidence e = ZooEvidence("wan2.1-t2v-1.3b", 832, 480, 17, "x=2,y=4", templ);
    Simulator sim = MakeSim(e, *t);
    for (const net::Placement& p : {net::IdentityPlacement(8), net::Placement{7, 2, 4, 1, 0, 3, 6, 5}}) {
      auto r = sim.Simulate(p, false);
      ASSERT_TRUE(r.ok()) << templ;
      EXPECT_GE(r->latency, std::max(r->compute, r->communication) * (1 - 1e-12)) << templ;
      EXPECT_LE(r->latency, (r->compute + r->communication) * (1 + 1e-12)) << templ;
      EXPECT_NEAR(sim.Latency(p), r->latency.value(), 1e-12 * r->latency.value()) << templ;
      EXPECT_GT(r->collectives, 0) << templ;
    }
  }
}

TEST(Simulator, AutomorphismsKeepTheLatency) {
  auto t = hw::MakeTopology("v5e:2x4");  // no wraparound on either axis
  ASSERT_TRUE(t.ok());
  evidence::Evidence e = ZooEvidence("wan2.1-t2v-1.3b", 832, 480, 17, "x=2,y=4", "usp:ulysses=x,ring=y");
  Simulator sim = MakeSim(e, *t);
  net::Placement p = {5, 0, 7, 2, 1, 6, 3, 4};
  double base = sim.Latency(p);
  for (size_t axis = 0; axis < 2; ++axis) {
    EXPECT_DOUBLE_EQ(sim.Latency(Apply(Reflect(*t, axis), p)), base) << "axis " << axis;
  }
  // A map that is not an automorphism (a transposition of two chips) is free to
  // change it; this one does: it splits a ring neighbourhood.
  net::Placement q = p;
  std::swap(q[0], q[5]);
  EXPECT_NE(sim.Latency(q), base);
}

TEST(Simulator, AsyncCollectiveHidesBehindIndependentCompute) {
  // Hand-built evidence: kernel A, all-gather start, kernel B, done, kernel C.
  // latency = tA + max(tB, tAG) + tC exactly (one communication engine).
  evidence::Evidence e;
  e.program = "hand";
  e.compiler = "test";
  e.num_devices = 4;
  e.mesh = "x=4";
  for (const char* name : {"A", "B", "C"}) {
    e.segments.push_back({name, cir::KernelKind::kMatmul, Flops(int64_t{2} * 4096 * 4096 * 4096), MiB(96), {1, 4096, 4096, 4096}});
  }
  auto groups = cir::ParseReplicaGroups("[1,4]<=[4]", 4, false);
  ASSERT_TRUE(groups.ok());
  e.collectives.push_back({"ag", cir::CollectiveKind::kAllGather, MiB(256), *groups, {}});
  e.schedule = {{evidence::EventType::kCompute, 0}, {evidence::EventType::kStart, 0},
                {evidence::EventType::kCompute, 1}, {evidence::EventType::kDone, 0},
                {evidence::EventType::kCompute, 2}};
  e.hash = evidence::ContentHash(e);
  auto t = hw::MakeTopology("v5e:2x2");
  ASSERT_TRUE(t.ok());
  Simulator sim = MakeSim(e, *t);
  net::Placement p = net::IdentityPlacement(4);
  double k = sim.compute().Time(e.segments[0]).time.value();
  double ag = sim.ClassTime(0, p);
  EXPECT_NEAR(sim.Latency(p), k + std::max(k, ag) + k, 1e-15);
  // The same collective blocking: latency = 3 k + ag.
  e.schedule = {{evidence::EventType::kCompute, 0}, {evidence::EventType::kBlocking, 0},
                {evidence::EventType::kCompute, 1}, {evidence::EventType::kCompute, 2}};
  Simulator blocking = MakeSim(e, *t);
  EXPECT_NEAR(blocking.Latency(p), 3 * k + ag, 1e-15);
  auto r = blocking.Simulate(p, true);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->exposed_communication.value(), ag, 1e-12);
  ASSERT_EQ(r->classes.size(), 1u);
  EXPECT_NEAR(r->classes[0].exposed.value(), ag, 1e-12);
  EXPECT_FALSE(r->links.empty());
}

TEST(Simulator, HostOffloadHidesBehindEachPhaseAndShowsItsExcess) {
  // Hand-built evidence on one v5p chip: forward kernel F, then the backward:
  // a host-reload copy R of 64 MiB (remat offload) and backward kernel B. The
  // 64 MiB cross the host link out after F and back before B, each way
  //   T = 67,108,864 B / 1.6e10 B/s = 4.194304 ms  (hw::HostLinkBandwidth, v5p)
  // and each hides behind its phase's compute: the forward is F, the backward
  // R + B, so latency = tF + tR + tB + max(0, T - tF) + max(0, T - (tR + tB)).
  evidence::Evidence e;
  e.program = "offload";
  e.compiler = "test";
  e.num_devices = 1;
  e.mesh = "d=1";
  auto t = hw::MakeTopology("v5p:2x2x2");  // the program runs on its first chip
  ASSERT_TRUE(t.ok());
  // n = 1024: 2 n^3 = 2.1 GFLOP per kernel, microseconds at the chip's 459
  // TFLOP/s, so both trips show; n = 16384: 8.8 TFLOP, at least 19 ms each,
  // each phase hides its 4.2 ms of transfer.
  for (int64_t n : {int64_t{1024}, int64_t{16384}}) {
    e.segments = {{"F", cir::KernelKind::kMatmul, Flops(2 * n * n * n), Bytes(6 * n * n), {1, n, n, n}},
                  {"blocks.0.ffn.residual.host-reload", cir::KernelKind::kCopy, Flops(0), MiB(64), {}},
                  {"B", cir::KernelKind::kMatmul, Flops(2 * n * n * n), Bytes(6 * n * n), {1, n, n, n}}};
    e.schedule = {{evidence::EventType::kCompute, 0}, {evidence::EventType::kCompute, 1},
                  {evidence::EventType::kCompute, 2}};
    e.hash = evidence::ContentHash(e);
    Simulator sim = MakeSim(e, *t);
    const double f = sim.compute().Time(e.segments[0]).time.value();
    const double r = sim.compute().Time(e.segments[1]).time.value();
    const double b = sim.compute().Time(e.segments[2]).time.value();
    const double transfer = 67'108'864 / 1.6e10;
    const double exposed = std::max(0.0, transfer - f) + std::max(0.0, transfer - (r + b));
    net::Placement p = net::IdentityPlacement(1);
    EXPECT_NEAR(sim.Latency(p), f + r + b + exposed, 1e-12) << n;
    auto result = sim.Simulate(p, false);
    ASSERT_TRUE(result.ok());
    EXPECT_NEAR(result->host_transfer.value(), 4.194304e-3, 1e-12);
    EXPECT_NEAR(result->host_exposed.value(), exposed, 1e-12);
    EXPECT_NEAR(result->latency.value(), f + r + b + exposed, 1e-12);
    EXPECT_NEAR(result->exposed_communication.value(), 0, 1e-15);  // no collective
    if (n == 1024) {
      EXPECT_GT(exposed, 2 * transfer - 1e-3);  // both trips nearly whole
    } else {
      EXPECT_EQ(exposed, 0);
    }
  }
  // Without the reload the same kernels add nothing: a copy not named a host
  // reload is an ordinary kernel.
  e.segments[1].name = "copy";
  e.hash = evidence::ContentHash(e);
  Simulator plain = MakeSim(e, *t);
  net::Placement p = net::IdentityPlacement(1);
  double sum = 0;
  for (const auto& seg : e.segments) sum += plain.compute().Time(seg).time.value();
  EXPECT_NEAR(plain.Latency(p), sum, 1e-15);
}

TEST(Simulator, ClassesGroupIdenticalCollectives) {
  // Ulysses over 8 devices: 4 all-to-alls per self-attention, each the same
  // shape in every block, so classes are far fewer than collectives.
  evidence::Evidence e = ZooEvidence("wan2.1-t2v-14b", 1280, 720, 81, "sp=8", "ulysses=sp");
  auto t = hw::MakeTopology("v5e:2x4");
  ASSERT_TRUE(t.ok());
  Simulator sim = MakeSim(e, *t);
  EXPECT_GE(e.collectives.size(), 160u);  // 4 x 40 blocks
  EXPECT_LE(sim.num_classes(), 8);
  auto r = sim.Simulate(net::IdentityPlacement(8), false);
  ASSERT_TRUE(r.ok());
  int count = 0;
  for (const ClassCost& c : r->classes) count += c.count;
  EXPECT_EQ(count, static_cast<int>(e.collectives.size()));
}

TEST(Simulator, RejectsMismatchedInput) {
  evidence::Evidence e = ZooEvidence("wan2.1-t2v-1.3b", 416, 240, 17, "x=2,y=4", "ulysses=y");
  auto small = hw::MakeTopology("v5e:2x2");
  ASSERT_TRUE(small.ok());
  PriceCalibration c = DefaultPriceCalibration(*small);
  auto sim = Simulator::Create(e, *small, c.network, c.compute);
  ASSERT_FALSE(sim.ok());
  EXPECT_NE(sim.status().message().find("8 devices"), std::string::npos) << sim.status().message();

  auto t = hw::MakeTopology("v5e:4x4");
  ASSERT_TRUE(t.ok());
  Simulator on16 = MakeSim(e, *t);
  Status wrong_size = on16.CheckPlacement(net::IdentityPlacement(4));
  EXPECT_FALSE(wrong_size.ok());
  EXPECT_NE(wrong_size.message().find("maps 4 logical devices"), std::string::npos) << wrong_size.message();
  EXPECT_FALSE(on16.CheckPlacement({0, 1, 2, 3, 4, 5, 6, 6}).ok());
  EXPECT_FALSE(on16.CheckPlacement({0, 1, 2, 3, 4, 5, 6, 16}).ok());
  // 8 of 16 chips: a valid sub-slice placement.
  EXPECT_TRUE(on16.CheckPlacement({0, 1, 2, 3, 4, 5, 6, 7}).ok());

  // A chip without a sourced peak (a topology JSON may leave it out).
  hw::Topology unsourced_chip = *hw::MakeTopology("h100:8");
  unsourced_chip.chip.bf16 = FlopRate(0);
  PriceCalibration rc = DefaultPriceCalibration(unsourced_chip);
  auto unsourced = Simulator::Create(e, unsourced_chip, rc.network, rc.compute);
  ASSERT_FALSE(unsourced.ok());
  EXPECT_NE(unsourced.status().message().find("sourced"), std::string::npos);
}

TEST(Simulator, Deterministic) {
  evidence::Evidence e = ZooEvidence("wan2.1-t2v-1.3b", 832, 480, 17, "x=2,y=4", "usp:ulysses=x,ring=y");
  auto t = hw::MakeTopology("v5e:2x4");
  ASSERT_TRUE(t.ok());
  Simulator a = MakeSim(e, *t), b = MakeSim(e, *t);
  net::Placement p = {1, 3, 5, 7, 0, 2, 4, 6};
  auto ra = a.Simulate(p, true), rb = b.Simulate(p, true);
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_EQ(ra->latency, rb->latency);
  ASSERT_EQ(ra->slices.size(), rb->slices.size());
  for (size_t i = 0; i < ra->slices.size(); ++i) EXPECT_EQ(ra->slices[i].start, rb->slices[i].start);
}

}  // namespace
}  // namespace az::price
