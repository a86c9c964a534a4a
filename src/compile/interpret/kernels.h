// Kernels of the reference interpreter (interpreter.h): every op kind it runs,
// on float64 tensors, whole or one device's block. Internal to interpret/.
#pragma once

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compile/interpret/interpreter.h"

namespace az::compile::interpret {

Status Unimplemented(std::string message);
int64_t Product(const pir::Shape& shape);
// Row-major strides of `shape`.
std::vector<int64_t> Strides(const pir::Shape& shape);
// Advances a row-major multi-index; false after the last one.
bool Next(std::vector<int64_t>& index, const pir::Shape& shape);
Tensor Zeros(pir::Shape shape);
std::string OpLabel(const pir::Op& op);

// What a kernel needs beyond its operands: the result shapes (local ones when
// partitioned), whether to add an einsum bias, the operands' global shapes.
struct KernelContext {
  std::vector<pir::Shape> result_shapes;
  std::vector<pir::Shape> global_operand_shapes;
  bool add_bias = true;
};

// Flash-style attention over kv blocks: a running max, sum and output per
// query row, so blocks can arrive one at a time (ring attention).
struct AttentionState {
  int64_t rows = 0, value_dim = 0;
  std::vector<double> max, sum, out;

  AttentionState(int64_t rows_, int64_t value_dim_)
      : rows(rows_),
        value_dim(value_dim_),
        max(static_cast<size_t>(rows_), -std::numeric_limits<double>::infinity()),
        sum(static_cast<size_t>(rows_), 0.0),
        out(static_cast<size_t>(rows_ * value_dim_), 0.0) {}
};

void AttendBlock(const Tensor& q, const Tensor& k, const Tensor& v, AttentionState& state);
Tensor FinishAttention(const Tensor& q, const AttentionState& state);
Tensor Attention(const Tensor& q, const std::vector<std::pair<const Tensor*, const Tensor*>>& kv_blocks);
// A masked or grouped-query attention on whole rows (the op's attrs give the mask).
Tensor MaskedAttention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask,
                       const pir::Attributes& attrs);

// kernels_train.cc
// The output and, `with_lse`, the log-sum-exp rows [B, Lq, H] of the scaled scores.
std::vector<Tensor> AttentionResults(const Tensor& q, const std::vector<std::pair<const Tensor*, const Tensor*>>& kv_blocks,
                                     bool with_lse);
// (dq, dk, dv) from q, k, v, o, dO and the forward's log-sum-exp.
std::vector<Tensor> AttentionGrad(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& d_o,
                                  const Tensor& lse);
// dx of layer_norm_grad / rms_norm_grad.
Tensor NormGrad(pir::OpKind kind, const Tensor& x, const Tensor& dy, const Tensor* weight, double eps);
StatusOr<Tensor> Conv3d(const Tensor& x, const Tensor& w, const Tensor* bias, const pir::Attributes& attrs,
                        const pir::Shape& result_shape, bool add_bias);

// Runs one op on its operands (whole tensors or one device's blocks).
StatusOr<std::vector<Tensor>> Execute(const pir::Op& op, const std::vector<const Tensor*>& in,
                                      const KernelContext& ctx);
// Every leaf the graph reads has a tensor of its shape.
Status CheckLeaves(const pir::Graph& graph, const std::map<pir::ValueId, Tensor>& leaves);

}  // namespace az::compile::interpret
