// libFuzzer target for the JSON and CSV readers: evidence, topologies,
// calibrations (network and compute), nccl-tests measurements, published DiT
// latencies, kernel timings and the scaling book's TPU points. The first input
// byte picks the reader (mod 8); the rest is the file.
//
// Properties checked on every input:
//   - the reader returns a value or an error: no crash, hang, or sanitizer
//     report; an error message names the file;
//   - what parses writes back and parses again to the same thing (evidence:
//     equal records; topology: the same chips and links; network calibration:
//     the same values, latencies to within 1e-9 relative).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "evidence/evidence.h"
#include "fidelity/video_fit.h"
#include "hw/topology.h"
#include "net/calibration.h"
#include "net/fit.h"
#include "net/tpu_points.h"
#include "price/calibration.h"
#include "price/compute_fit.h"
#include "support/status.h"

namespace {

void ExpectNamed(const az::Status& status, std::string_view file) {
  AZ_CHECK_MSG(status.message().find(file) != std::string::npos, status.message());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int reader = data[0] % 8;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (reader) {
    case 0: {
      auto e = az::evidence::FromJson(text, "fuzz.json");
      if (!e.ok()) {
        ExpectNamed(e.status(), "fuzz.json");
        return 0;
      }
      auto again = az::evidence::FromJson(az::evidence::ToJson(*e), "again.json");
      AZ_CHECK_MSG(again.ok(), again.status().message());
      AZ_CHECK(*again == *e);
      return 0;
    }
    case 1: {
      auto t = az::hw::LoadTopologyJson(text, "fuzz.json");
      if (!t.ok()) {
        ExpectNamed(t.status(), "fuzz.json");
        return 0;
      }
      auto again = az::hw::LoadTopologyJson(az::hw::TopologyToJson(*t), "again.json");
      AZ_CHECK_MSG(again.ok(), again.status().message());
      AZ_CHECK(again->num_chips() == t->num_chips() && again->links.size() == t->links.size());
      return 0;
    }
    case 2: {
      auto c = az::net::CalibrationFromJson(text, "fuzz.json");
      if (!c.ok()) {
        ExpectNamed(c.status(), "fuzz.json");
        return 0;
      }
      // Latencies travel in microseconds, so a round trip may move the last
      // bit of a double: compare values, not text.
      auto again = az::net::CalibrationFromJson(az::net::CalibrationToJson(*c), "again.json");
      AZ_CHECK_MSG(again.ok(), again.status().message());
      AZ_CHECK(again->name == c->name && again->link_efficiency == c->link_efficiency);
      AZ_CHECK(again->algorithms.size() == c->algorithms.size());
      auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), 1e-12); };
      for (const auto& [name, params] : c->algorithms) {
        const az::net::AlgorithmParams& other = again->algorithms.at(name);
        AZ_CHECK(near(params.base_latency.value(), other.base_latency.value()));
        AZ_CHECK(near(params.step_latency.value(), other.step_latency.value()));
        AZ_CHECK(params.efficiency == other.efficiency);
      }
      return 0;
    }
    case 3: {
      static const az::hw::Topology topology = *az::hw::MakeTopology("h100:8");
      auto c = az::price::LoadPriceCalibration(text, "fuzz.json", topology);
      if (!c.ok()) ExpectNamed(c.status(), "fuzz.json");
      return 0;
    }
    case 4: {
      auto m = az::net::ReadMeasurements(text, "fuzz.csv", az::net::CollectiveKind::kAllReduce, 8);
      if (!m.ok()) ExpectNamed(m.status(), "fuzz.csv");
      return 0;
    }
    case 5: {
      // Each row resolves a zoo configuration (no graph is built), so a row
      // costs microseconds whatever it asks for.
      auto rows = az::fidelity::ReadDitLatencies(text, "fuzz.csv");
      if (!rows.ok()) ExpectNamed(rows.status(), "fuzz.csv");
      return 0;
    }
    case 6: {
      auto rows = az::price::ReadKernelTimings(text, "fuzz.csv");
      if (!rows.ok()) ExpectNamed(rows.status(), "fuzz.csv");
      return 0;
    }
    default: {
      // Read only: pricing a point builds its slice, which a fuzzed slice
      // name could make large.
      auto points = az::net::ReadTpuPoints(text, "fuzz.csv");
      if (!points.ok()) ExpectNamed(points.status(), "fuzz.csv");
      return 0;
    }
  }
}
