// Internal to src/pir/grad: the per-family backward rules behind backward.h.
//
// A rule appends the backward of one op and returns, per operand, its gradient
// contribution (kNoValue for operands that need none). It reads the op's
// forward values only through Operand() / Result(), which return the
// recomputed copy under rematerialization, and it must read no forward value
// its family's Reads() does not list: Reads() decides what a remat segment
// recomputes (Primal() aborts on a value that was neither kept nor
// recomputed, so a rule and its Reads() cannot drift apart unnoticed).
// Contributions may have another dtype than the operand (the pass converts),
// but always its shape.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pir/grad/backward.h"

namespace az::pir::grad {

// An op on a gradient path that has no backward.
inline Status Unimplemented(std::string message) { return Status(StatusCode::kUnimplemented, std::move(message)); }

class BackwardContext {
 public:
  BackwardContext(GraphBuilder& builder, const Op& op, std::vector<ValueId> result_grads, std::vector<bool> needs,
                  std::function<ValueId(ValueId)> primal)
      : b(builder),
        op(op),
        result_grads_(std::move(result_grads)),
        needs_(std::move(needs)),
        primal_(std::move(primal)) {}

  GraphBuilder& b;
  const Op& op;  // the forward op (a copy: the graph grows while the rule runs)

  // The forward values as the backward reads them.
  ValueId Operand(size_t index) const { return primal_(op.operands.at(index)); }
  ValueId Result(size_t index) const { return primal_(op.results.at(index)); }
  // d loss / d result `index`, or kNoValue when none flows back.
  ValueId Grad(size_t index = 0) const { return result_grads_.at(index); }
  bool Needs(size_t operand) const { return needs_.at(operand); }
  // Types of the forward op's operands and results (the same for their copies),
  // by value: every op a rule appends may grow the graph's value table, so a
  // reference into it would dangle after the rule's next builder call.
  TensorType OperandType(size_t index) const { return b.type(op.operands.at(index)); }
  TensorType ResultType(size_t index = 0) const { return b.type(op.results.at(index)); }

  // "<op>.grad.<leaf>".
  std::string Name(const std::string& leaf) const { return op.name + ".grad." + leaf; }
  // A scalar literal of `dtype` (so that it does not promote what it meets).
  ValueId Scalar(const std::string& leaf, double value, DType dtype) { return b.Full(Name(leaf), dtype, {}, value); }
  // Sums `dy` (of the op's result shape) down to `shape` under NumPy
  // broadcasting: over the leading dims `shape` lacks and the dims where it
  // has 1. Returns dy itself when nothing is summed.
  ValueId SumToShape(const std::string& leaf, ValueId dy, const Shape& shape);

 private:
  std::vector<ValueId> result_grads_;
  std::vector<bool> needs_;
  std::function<ValueId(ValueId)> primal_;
};

using Grads = std::vector<ValueId>;  // per operand

// One family's backward and the forward values it reads, given what it needs.
struct FamilyBackward {
  StatusOr<Grads> (*backward)(BackwardContext& ctx);
  std::vector<ValueId> (*reads)(const Graph& graph, const Op& op, const std::vector<bool>& needs);
};

// contraction_grad.cc
StatusOr<Grads> BackwardEinsum(BackwardContext& ctx);
StatusOr<Grads> BackwardAttention(BackwardContext& ctx);
StatusOr<Grads> BackwardConv(BackwardContext& ctx);
std::vector<ValueId> ReadsEinsum(const Graph& graph, const Op& op, const std::vector<bool>& needs);
std::vector<ValueId> ReadsAttention(const Graph& graph, const Op& op, const std::vector<bool>& needs);
std::vector<ValueId> ReadsConv(const Graph& graph, const Op& op, const std::vector<bool>& needs);

// elementwise_grad.cc
StatusOr<Grads> BackwardNorm(BackwardContext& ctx);
StatusOr<Grads> BackwardUnary(BackwardContext& ctx);
StatusOr<Grads> BackwardBinary(BackwardContext& ctx);
StatusOr<Grads> BackwardRope(BackwardContext& ctx);
StatusOr<Grads> BackwardSoftmax(BackwardContext& ctx);
StatusOr<Grads> BackwardBroadcast(BackwardContext& ctx);
std::vector<ValueId> ReadsNorm(const Graph& graph, const Op& op, const std::vector<bool>& needs);
std::vector<ValueId> ReadsUnary(const Graph& graph, const Op& op, const std::vector<bool>& needs);
std::vector<ValueId> ReadsBinary(const Graph& graph, const Op& op, const std::vector<bool>& needs);
std::vector<ValueId> ReadsRope(const Graph& graph, const Op& op, const std::vector<bool>& needs);
std::vector<ValueId> ReadsSoftmax(const Graph& graph, const Op& op, const std::vector<bool>& needs);

// layout_grad.cc
StatusOr<Grads> BackwardReshape(BackwardContext& ctx);
StatusOr<Grads> BackwardTranspose(BackwardContext& ctx);
StatusOr<Grads> BackwardConcat(BackwardContext& ctx);
StatusOr<Grads> BackwardSlice(BackwardContext& ctx);
StatusOr<Grads> BackwardReduce(BackwardContext& ctx);
StatusOr<Grads> BackwardNone(BackwardContext& ctx);  // ops with no backward: Unimplemented
std::vector<ValueId> ReadsReduce(const Graph& graph, const Op& op, const std::vector<bool>& needs);
std::vector<ValueId> ReadsNothing(const Graph& graph, const Op& op, const std::vector<bool>& needs);

}  // namespace az::pir::grad
