// Physical quantities as distinct types.
//
// Counts (bytes, FLOPs) are exact 64-bit integers: a 720p Wan 2.1 14B forward is
// 6.5e15 FLOPs, far inside int64's 9.2e18, and tests compare them exactly.
// Rates and times are doubles. Mixing kinds does not compile except through the
// few meaningful operators below (bytes / bandwidth = seconds,
// flops / flop rate = seconds).
#pragma once

#include <cstdint>
#include <string>

namespace az {

template <typename Tag, typename Rep>
class Quantity {
 public:
  using rep = Rep;
  constexpr Quantity() = default;
  constexpr explicit Quantity(Rep value) : value_(value) {}
  constexpr Rep value() const { return value_; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(value_ + o.value_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value_ - o.value_); }
  constexpr Quantity& operator+=(Quantity o) {
    value_ += o.value_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    value_ -= o.value_;
    return *this;
  }
  constexpr Quantity operator*(Rep k) const { return Quantity(value_ * k); }
  constexpr double operator/(Quantity o) const { return static_cast<double>(value_) / static_cast<double>(o.value_); }
  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  Rep value_{};
};

struct BytesTag {};
struct FlopsTag {};
struct SecondsTag {};
struct BandwidthTag {};  // bytes per second
struct FlopRateTag {};   // FLOPs per second

using Bytes = Quantity<BytesTag, int64_t>;
using Flops = Quantity<FlopsTag, int64_t>;
using Seconds = Quantity<SecondsTag, double>;
using Bandwidth = Quantity<BandwidthTag, double>;
using FlopRate = Quantity<FlopRateTag, double>;

constexpr Seconds operator/(Bytes bytes, Bandwidth bw) { return Seconds(static_cast<double>(bytes.value()) / bw.value()); }
constexpr Seconds operator/(Flops flops, FlopRate rate) {
  return Seconds(static_cast<double>(flops.value()) / rate.value());
}

constexpr Bytes KiB(int64_t n) { return Bytes(n * 1024); }
constexpr Bytes MiB(int64_t n) { return Bytes(n * 1024 * 1024); }
constexpr Bytes GiB(int64_t n) { return Bytes(n * 1024 * 1024 * 1024); }
constexpr Bandwidth GBps(double n) { return Bandwidth(n * 1e9); }
constexpr FlopRate TFlops(double n) { return FlopRate(n * 1e12); }

// Human-readable forms: "26.6 GiB", "6.523 PFLOP", "1.25 ms", "400 GB/s".
std::string FormatBytes(Bytes b);
std::string FormatFlops(Flops f);
std::string FormatSeconds(Seconds s);
std::string FormatBandwidth(Bandwidth bw);
// 14288491584 -> "14.288 B"; 99840 -> "99.8 K".
std::string FormatCount(int64_t n);

}  // namespace az
