#include "support/units.h"

#include <cmath>
#include <cstdio>

namespace az {

static std::string Printf(const char* fmt, double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v, unit);
  return buf;
}

std::string FormatBytes(Bytes b) {
  double v = static_cast<double>(b.value());
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  while (std::fabs(v) >= 1024.0 && i < 5) {
    v /= 1024.0;
    ++i;
  }
  return i == 0 ? Printf("%.0f %s", v, units[i]) : Printf("%.2f %s", v, units[i]);
}

std::string FormatFlops(Flops f) {
  double v = static_cast<double>(f.value());
  const char* units[] = {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"};
  int i = 0;
  while (std::fabs(v) >= 1000.0 && i < 6) {
    v /= 1000.0;
    ++i;
  }
  return Printf("%.3f %s", v, units[i]);
}

std::string FormatSeconds(Seconds s) {
  double v = s.value();
  if (std::fabs(v) >= 1.0) return Printf("%.3f %s", v, "s");
  if (std::fabs(v) >= 1e-3) return Printf("%.3f %s", v * 1e3, "ms");
  if (std::fabs(v) >= 1e-6) return Printf("%.3f %s", v * 1e6, "us");
  return Printf("%.1f %s", v * 1e9, "ns");
}

std::string FormatBandwidth(Bandwidth bw) { return Printf("%.1f %s", bw.value() / 1e9, "GB/s"); }

std::string FormatCount(int64_t n) {
  double v = static_cast<double>(n);
  if (std::llabs(n) >= 1000000000LL) return Printf("%.3f %s", v / 1e9, "B");
  if (std::llabs(n) >= 1000000LL) return Printf("%.2f %s", v / 1e6, "M");
  if (std::llabs(n) >= 1000LL) return Printf("%.1f %s", v / 1e3, "K");
  return std::to_string(n);
}

}  // namespace az
