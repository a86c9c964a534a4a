// Per-op knowledge: shape inference, the factor sharding rule, and the cost.
//
// Factor rules follow Shardy (see ../../../docs or reference/formats.md §3.5). A
// *factor* is a sub-dimension shared by operands and results; each tensor
// dimension maps to a list of factors, major to minor, whose sizes multiply to
// the dimension's size (an empty list means size 1, e.g. a broadcast dim). Kinds:
//   pass-through      sharded alike on every tensor that has it: no communication
//   reduction         summed over: sharding it leaves partial results (all-reduce /
//                     reduce-scatter, or ring attention's LSE merge). Forward ops
//                     have it in operands only. A fused backward kernel may keep it
//                     in some results: attention_grad's dq has the query sequence
//                     its dk and dv sum over. A result that has the factor is
//                     complete along it and sharded like a pass-through dim; the
//                     results without it are partial sums over its axes (exactly
//                     what shard::ProducedResultSharding computes per result)
//   need-replication  must stay unsharded (a normalized dim, a softmax axis)
//   permutation       sharding it needs data movement (concat/slice dims, strided or
//                     irregular conv windows)
//   halo              a spatial dim an op reads through a window (a convolution's
//                     kernel rows, a replicate pad's edge rows): operand 0 and the
//                     result share it, and sharding it gives each device its block
//                     plus the rows its neighbours hold next to it (a halo exchange,
//                     compile/spmd/halo.h)
//
// Example: a linear layer  bf16[1,L,5120] x bf16[5120,5120] + bf16[5120]
//   einsum "bld,de->ble":  ([b, l, d], [d, e], [e]) -> ([b, l, e])
//                          {b=1, l=L, d=5120, e=5120} reduction={d}
// Sharding e over a mesh axis is Megatron column parallelism; sharding d makes
// the result a partial sum over that axis (row parallelism).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pir/ir/graph.h"
#include "support/status.h"
#include "support/units.h"

namespace az::pir {

// kHalo: one factor for a windowed dim that operand 0 and the result share
// (pir/rules/contraction.cc, layout.cc): a convolution's spatial dim whose
// windows tile its input (stride s, input = s x output: the same-padded
// convolutions of a VAE, s = 1; a downsampler, s = 2, has a need-replication
// factor of size s minor to it in the operand), a convolution that narrows the
// dim by its kernel (no padding: it reads a pad's result), and a replicate
// pad's padded dim. Its size is the smaller extent (a pad's operand, a narrowing
// convolution's result); the larger dim exceeds it by the window's rows, which
// FactorRule::DimFits allows for a dim made of one halo factor (Shardy maps a
// pad's operand and result dim to one factor of the operand's size the same way).
// kNormalized: a dim an op normalizes over (a norm's features, a softmax's
// axis). It may be sharded: each device reduces its slice to per-row partial
// statistics, the statistics are all-reduced over the factor's axes
// (StatisticsOf), and every device finishes its own slice; operand and result
// keep the dim sharded alike. kNeedReplication: the op needs the whole dim.
enum class FactorKind { kPassThrough, kReduction, kNeedReplication, kPermutation, kNormalized, kHalo };
std::string_view FactorKindName(FactorKind kind);

// The statistics a kNormalized factor's op all-reduces when the factor is
// sharded: `rounds` all-reduces one after the other, each of `values` f32 per
// row (a row: one position of every other dim). Layer norm: one round of two
// (the sum and the sum of squares, one pass); RMS norm: one round of one (the
// sum of squares); softmax: two rounds of one (the max, then the sum of
// exponentials shifted by it). The all-reduce of a max is priced as a sum's.
struct Statistics {
  int rounds = 0;
  int values = 0;
};
Statistics StatisticsOf(OpKind kind);

struct Factor {
  std::string name;
  int64_t size = 1;
  FactorKind kind = FactorKind::kPassThrough;
};

// For each dimension of one tensor: its factor indices, major to minor.
using TensorFactors = std::vector<std::vector<int>>;

struct FactorRule {
  std::vector<Factor> factors;
  std::vector<TensorFactors> operands;
  std::vector<TensorFactors> results;

  // Shardy-style text: "([b, l, d], [d, e], [e])->([b, l, e]) {b=1, l=8, d=16, e=32} reduction={d}".
  std::string ToString() const;
  // Product of the sizes of the factors of one dimension.
  int64_t DimSize(const std::vector<int>& dim_factors) const;
  // Whether a dim of `size` may have these factors: their product is `size`,
  // or they are one halo factor no larger than `size` (kHalo above).
  bool DimFits(const std::vector<int>& dim_factors, int64_t size) const;
  // The index of the factor named `name` ("kv", "h"), or -1.
  int FindFactor(std::string_view name) const;
};

// Fluent builder used by the per-family rule functions.
class FactorRuleBuilder {
 public:
  int AddFactor(std::string name, int64_t size, FactorKind kind = FactorKind::kPassThrough);
  FactorRuleBuilder& Operand(TensorFactors dims);
  FactorRuleBuilder& Result(TensorFactors dims);
  FactorRule Build() { return std::move(rule_); }

 private:
  FactorRule rule_;
};

// The result types an op of `kind` produces from these operands and attributes.
// `declared` are the result types written in text or given to the builder; only
// `custom` takes them as its definition. Errors are plain messages; the caller
// adds the op's location.
StatusOr<std::vector<TensorType>> InferResultTypes(OpKind kind, const std::vector<TensorType>& operands,
                                                   const Attributes& attrs,
                                                   const std::vector<TensorType>& declared);

// The factor rule of an op whose operand/result types are already consistent.
StatusOr<FactorRule> BuildFactorRule(OpKind kind, const std::vector<TensorType>& operands,
                                     const std::vector<TensorType>& results, const Attributes& attrs);

// "[1,75600,5120]".
std::string ShapeString(const Shape& shape);
// Normalizes a possibly negative axis; nullopt when out of range.
std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank);
// The dim a layer / RMS norm normalizes over (attr axis, default -1: the
// last), normalized; nullopt when out of range.
std::optional<int64_t> NormAxis(const Attributes& attrs, int64_t rank);

// A parsed einsum equation "bld,de->ble": one letter string per operand and the result.
struct EinsumEquation {
  std::vector<std::string> inputs;
  std::string output;
};
StatusOr<EinsumEquation> ParseEinsumEquation(const std::string& eq);

// Convenience over a graph op.
std::vector<TensorType> OperandTypes(const Graph& graph, const Op& op);
std::vector<TensorType> ResultTypes(const Graph& graph, const Op& op);
StatusOr<FactorRule> BuildFactorRule(const Graph& graph, const Op& op);

}  // namespace az::pir
