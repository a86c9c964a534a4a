// ConstantBandOf and ConstantBandReader (constant_band.h) on small masks.
#include "frontend/import/constant_band.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace az::frontend {
namespace {

constexpr int64_t kNone = ConstantBand::kNoBandLimit;

// `planes` copies of keep(i, j) over rows x cols, as `in` / `out`.
std::vector<double> Mask(int64_t planes, int64_t rows, int64_t cols, const std::function<bool(int64_t, int64_t)>& keep,
                         double in = 1, double out = 0) {
  std::vector<double> values;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) values.push_back(keep(i, j) ? in : out);
    }
  }
  return values;
}

TEST(ConstantBand, CausalLowerTriangle) {
  auto band = ConstantBandOf(Mask(1, 8, 8, [](int64_t i, int64_t j) { return j <= i; }), {8, 8});
  ASSERT_TRUE(band);
  EXPECT_EQ(band->row_dim, 0);
  EXPECT_EQ(band->col_dim, 1);
  EXPECT_EQ(band->lo, 0);
  EXPECT_EQ(band->hi, kNone);  // reaches the last row: unbounded
  EXPECT_EQ(band->inside, 1);
  EXPECT_EQ(band->outside, 0);
}

// torch.full(-inf).triu(1): 0 on and below the diagonal (i - j >= 0), -inf above.
TEST(ConstantBand, AdditiveUpperInfinity) {
  const double inf = std::numeric_limits<double>::infinity();
  auto band = ConstantBandOf(Mask(2, 4, 4, [](int64_t i, int64_t j) { return j <= i; }, 0, -inf), {1, 2, 4, 4});
  ASSERT_TRUE(band);
  EXPECT_EQ(band->row_dim, 2);
  EXPECT_EQ(band->col_dim, 3);
  EXPECT_EQ(band->lo, 0);
  EXPECT_EQ(band->hi, kNone);
  EXPECT_EQ(band->inside, 0);
  EXPECT_EQ(band->outside, -inf);
}

// A window of 3 keys: 0 <= i - j <= 2. The strictly upper triangle (j > i,
// i - j <= -1): the value at i - j = 0 is `inside`, kept on [0, inf) as 0.
TEST(ConstantBand, WindowAndComplement) {
  auto window = ConstantBandOf(Mask(1, 8, 8, [](int64_t i, int64_t j) { return j <= i && i - j <= 2; }), {8, 8});
  ASSERT_TRUE(window);
  EXPECT_EQ(window->lo, 0);
  EXPECT_EQ(window->hi, 2);
  auto strict = ConstantBandOf(Mask(1, 8, 8, [](int64_t i, int64_t j) { return j > i; }), {8, 8});
  ASSERT_TRUE(strict);
  EXPECT_EQ(strict->inside, 0);
  EXPECT_EQ(strict->outside, 1);
  EXPECT_EQ(strict->lo, 0);
  EXPECT_EQ(strict->hi, kNone);
}

TEST(ConstantBand, NotABand) {
  // A checkerboard keeps every even i - j: no one interval.
  EXPECT_FALSE(ConstantBandOf(Mask(1, 4, 4, [](int64_t i, int64_t j) { return (i + j) % 2 == 0; }), {4, 4}));
  // Two bands apart (i - j in {-2, 2}) hold one value on no interval containing 0.
  EXPECT_FALSE(ConstantBandOf(Mask(1, 6, 6, [](int64_t i, int64_t j) { return std::abs(i - j) != 2; }), {6, 6}));
  // A third value.
  std::vector<double> three = Mask(1, 3, 3, [](int64_t i, int64_t j) { return j <= i; });
  three[8] = 2;
  EXPECT_FALSE(ConstantBandOf(three, {3, 3}));
  // NaN, a splat, rank 1, planes that differ.
  std::vector<double> nan = Mask(1, 3, 3, [](int64_t i, int64_t j) { return j <= i; });
  nan[0] = std::nan("");
  EXPECT_FALSE(ConstantBandOf(nan, {3, 3}));
  EXPECT_FALSE(ConstantBandOf(std::vector<double>(9, 1.0), {3, 3}));
  EXPECT_FALSE(ConstantBandOf({1, 0, 0}, {3}));
  std::vector<double> planes = Mask(2, 3, 3, [](int64_t i, int64_t j) { return j <= i; });
  planes[9 + 1] = 1;  // the second plane keeps (0, 1)
  EXPECT_FALSE(ConstantBandOf(planes, {2, 3, 3}));
}

TEST(ConstantBand, ReaderGivesUpEarlyAndFindsSplats) {
  ConstantBandReader weights({1024, 1024});
  EXPECT_TRUE(weights.Add(0.5));
  EXPECT_TRUE(weights.Add(-0.25));
  EXPECT_FALSE(weights.Add(0.125));  // a third value: no splat, no band
  EXPECT_FALSE(weights.Band());
  ConstantBandReader ones({2, 2});
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(ones.Add(1));
  EXPECT_EQ(ones.Splat(), 1.0);
  EXPECT_FALSE(ones.Band());
  ConstantBandReader short_read({2, 2});
  EXPECT_TRUE(short_read.Add(1));
  EXPECT_FALSE(short_read.Splat());  // not every value seen
}

}  // namespace
}  // namespace az::frontend
