// The reverse-mode pass (backward.h): activity analysis, the reverse walk
// over the family rules, gradient accumulation and rematerialization.
#include "pir/grad/backward.h"

#include <map>
#include <set>

#include "pir/grad/rules.h"
#include "support/enum_names.h"

namespace az::pir {
namespace {

constexpr EnumName<RematPolicy> kRematPolicyNames[] = {
    {RematPolicy::kNone, "none"},
    {RematPolicy::kFull, "full"},
    {RematPolicy::kSelected, "selected"},
    {RematPolicy::kOffload, "offload"},
};

}  // namespace

std::string_view RematPolicyName(RematPolicy policy) { return NameOf(kRematPolicyNames, policy); }

StatusOr<RematPolicy> ParseRematPolicy(std::string_view name) {
  return ParseName(kRematPolicyNames, name, "rematerialization");
}

namespace grad {
namespace {

// The backward of each family, like rule.cc's dispatch of the forward rules.
FamilyBackward BackwardOf(OpFamily family) {
  switch (family) {
    case OpFamily::kEinsum: return {BackwardEinsum, ReadsEinsum};
    case OpFamily::kAttention: return {BackwardAttention, ReadsAttention};
    case OpFamily::kConv: return {BackwardConv, ReadsConv};
    case OpFamily::kNorm: return {BackwardNorm, ReadsNorm};
    case OpFamily::kUnary: return {BackwardUnary, ReadsUnary};
    case OpFamily::kBinary: return {BackwardBinary, ReadsBinary};
    case OpFamily::kRope: return {BackwardRope, ReadsRope};
    case OpFamily::kSoftmax: return {BackwardSoftmax, ReadsSoftmax};
    case OpFamily::kBroadcast: return {BackwardBroadcast, ReadsNothing};
    case OpFamily::kReshape: return {BackwardReshape, ReadsNothing};
    case OpFamily::kTranspose: return {BackwardTranspose, ReadsNothing};
    case OpFamily::kConcat: return {BackwardConcat, ReadsNothing};
    case OpFamily::kSlice: return {BackwardSlice, ReadsNothing};
    case OpFamily::kReduce: return {BackwardReduce, ReadsReduce};
    case OpFamily::kGather:
    case OpFamily::kResize:
    case OpFamily::kCustom:
    case OpFamily::kFull:
    case OpFamily::kAttentionGrad:
    case OpFamily::kNormGrad: return {BackwardNone, ReadsNothing};
  }
  return {BackwardNone, ReadsNothing};
}

class Pass {
 public:
  Pass(GraphBuilder& b, const BackwardOptions& options) : b_(b), segments_(options.remat) {}

  StatusOr<BackwardResult> Run(ValueId loss, const std::vector<ValueId>& wrt) {
    const Graph& g = b_.graph();
    num_ops_ = g.num_ops();
    AZ_RETURN_IF_ERROR(Check(loss, wrt));
    Analyze(loss, wrt);
    BackwardResult result;
    result.first_op = num_ops_;
    grads_.assign(static_cast<size_t>(g.num_values()), kNoValue);
    const Value& loss_value = g.value(loss);
    const std::string origin = loss_value.producer == kNoOp ? loss_value.name : g.op(loss_value.producer).name;
    grads_[static_cast<size_t>(loss)] = b_.Full(origin + ".grad.seed", loss_value.type.dtype, {}, 1.0);
    for (OpId id = num_ops_ - 1; id >= 0; --id) {
      const Op op = b_.graph().op(id);  // a copy: the graph grows below
      if (!Active(op)) continue;
      std::vector<ValueId> result_grads;
      bool any_grad = false;
      for (ValueId r : op.results) {
        result_grads.push_back(grads_[static_cast<size_t>(r)]);
        any_grad |= result_grads.back() != kNoValue;
      }
      if (!any_grad) continue;
      EnterSegment(segment_of_[static_cast<size_t>(id)]);
      std::vector<bool> needs;
      for (ValueId v : op.operands) needs.push_back(Needs(v));
      BackwardContext ctx(b_, op, std::move(result_grads), needs, [this](ValueId v) { return Primal(v); });
      AZ_ASSIGN_OR_RETURN(Grads contributions, BackwardOf(GetOpKindInfo(op.kind).family).backward(ctx));
      AZ_CHECK_MSG(contributions.size() == op.operands.size(),
                   "backward of '" + op.name + "': one gradient per operand");
      for (size_t i = 0; i < op.operands.size(); ++i) {
        if (needs[i] && contributions[i] != kNoValue) Accumulate(op, i, contributions[i]);
      }
    }
    for (ValueId w : wrt) result.grads.push_back(grads_[static_cast<size_t>(w)]);
    result.recomputed_ops = recomputed_ops_;
    result.offloaded = offloaded_;
    return result;
  }

 private:
  Status Check(ValueId loss, const std::vector<ValueId>& wrt) const {
    const Graph& g = b_.graph();
    if (!g.IsValidValue(loss)) return InvalidArgument("the loss is not a value of the graph");
    const TensorType& t = g.type(loss);
    if (!IsFloat(t.dtype) || t.rank() != 0) {
      return InvalidArgument("the loss must be a float scalar, " + ValueLabel(g, loss) + " is " + t.ToString());
    }
    for (ValueId w : wrt) {
      if (!g.IsValidValue(w)) return InvalidArgument("a value to differentiate is not in the graph");
      if (!IsFloat(g.type(w).dtype)) return InvalidArgument(ValueLabel(g, w) + " is not a float value");
    }
    OpId previous_end = 0;
    for (const RematSegment& s : segments_) {
      if (s.begin < previous_end || s.end <= s.begin || s.end > num_ops_) {
        return InvalidArgument("remat segments must be non-empty, disjoint, increasing forward op ranges");
      }
      previous_end = s.end;
    }
    return Status::Ok();
  }

  // varied: depends on a wrt value; useful: the loss depends on it.
  void Analyze(ValueId loss, const std::vector<ValueId>& wrt) {
    const Graph& g = b_.graph();
    varied_.assign(static_cast<size_t>(g.num_values()), false);
    useful_.assign(static_cast<size_t>(g.num_values()), false);
    for (ValueId w : wrt) varied_[static_cast<size_t>(w)] = true;
    for (const Op& op : g.ops()) {
      bool varied = false;
      for (ValueId v : op.operands) varied |= varied_[static_cast<size_t>(v)];
      for (ValueId r : op.results) varied_[static_cast<size_t>(r)] = varied && IsFloat(g.type(r).dtype);
    }
    useful_[static_cast<size_t>(loss)] = true;
    for (OpId id = num_ops_ - 1; id >= 0; --id) {
      const Op& op = g.op(id);
      bool useful = false;
      for (ValueId r : op.results) useful |= useful_[static_cast<size_t>(r)];
      if (!useful) continue;
      for (ValueId v : op.operands) useful_[static_cast<size_t>(v)] = true;
    }
    segment_of_.assign(static_cast<size_t>(num_ops_), -1);
    for (size_t s = 0; s < segments_.size(); ++s) {
      for (OpId id = segments_[s].begin; id < segments_[s].end; ++id)
        segment_of_[static_cast<size_t>(id)] = static_cast<int>(s);
    }
  }

  bool Needs(ValueId v) const {
    return varied_[static_cast<size_t>(v)] && useful_[static_cast<size_t>(v)] && IsFloat(b_.type(v).dtype);
  }
  // An op runs backward when an operand needs a gradient and a result carries
  // one (a varied, useful float result always receives one from its consumers).
  bool Active(const Op& op) const {
    bool operand = false, result = false;
    for (ValueId v : op.operands) operand |= Needs(v);
    for (ValueId r : op.results) result |= Needs(r);
    return operand && result;
  }

  void Accumulate(const Op& op, size_t index, ValueId contribution) {
    const ValueId v = op.operands[index];
    const TensorType type = b_.type(v);
    AZ_CHECK_MSG(b_.type(contribution).shape == type.shape,
                 "backward of '" + op.name + "': gradient of operand " + std::to_string(index) + " is " +
                     b_.type(contribution).ToString() + ", the operand " + type.ToString());
    const std::string suffix = std::to_string(index);
    ValueId g = b_.type(contribution).dtype == type.dtype
                    ? contribution
                    : b_.Convert(op.name + ".grad.cast" + suffix, contribution, type.dtype);
    ValueId& slot = grads_[static_cast<size_t>(v)];
    slot = slot == kNoValue ? g : b_.Binary(OpKind::kAdd, op.name + ".grad.acc" + suffix, slot, g);
  }

  // ------------------------------------------------------------ remat

  const RematSegment* Current() const {
    if (current_ < 0) return nullptr;
    const RematSegment& s = segments_[static_cast<size_t>(current_)];
    return s.policy == RematPolicy::kNone ? nullptr : &s;
  }
  bool InSegment(const RematSegment& s, ValueId v) const {
    OpId producer = b_.graph().value(v).producer;
    return producer != kNoOp && producer >= s.begin && producer < s.end;
  }
  bool Kept(const RematSegment& s, ValueId v) const {
    if (s.policy != RematPolicy::kSelected && s.policy != RematPolicy::kOffload) return false;
    switch (GetOpKindInfo(b_.graph().op(b_.graph().value(v).producer).kind).family) {
      case OpFamily::kEinsum:
      case OpFamily::kConv: return s.policy == RematPolicy::kSelected;
      case OpFamily::kAttention: return true;
      default: return false;
    }
  }
  // Offload: the segment's inputs of its last op's result type (the block's
  // hidden state) and its kept attention results go to host memory.
  void Offload(const RematSegment& s, ValueId v) {
    if (s.policy != RematPolicy::kOffload || offloaded_set_.count(v)) return;
    const Graph& g = b_.graph();
    const Op& last = g.op(s.end - 1);
    bool hidden_state = !InSegment(s, v) && g.value(v).role == ValueRole::kActivation && !last.results.empty() &&
                        g.type(v) == g.type(last.results[0]);
    if (!hidden_state && !(InSegment(s, v) && Kept(s, v))) return;
    offloaded_set_.insert(v);
    offloaded_.push_back(v);
  }

  ValueId Primal(ValueId v) const {
    const RematSegment* s = Current();
    if (s == nullptr || !InSegment(*s, v) || Kept(*s, v)) return v;
    auto it = recomputed_.find(v);
    AZ_CHECK_MSG(it != recomputed_.end(), "remat: a backward reads " + ValueLabel(b_.graph(), v) +
                                              ", which its segment neither keeps nor recomputes (a Reads() bug)");
    return it->second;
  }

  void EnterSegment(int segment) {
    if (segment == current_) return;
    current_ = segment;
    recomputed_.clear();
    const RematSegment* s = Current();
    if (s == nullptr) return;
    // What the segment's backward reads, then what that needs, back to the
    // kept values and the segment's inputs.
    std::vector<bool> need(static_cast<size_t>(b_.graph().num_values()), false);
    auto want = [&](ValueId v) {
      if (InSegment(*s, v) && !Kept(*s, v)) {
        need[static_cast<size_t>(v)] = true;
      } else {
        Offload(*s, v);
      }
    };
    for (OpId id = s->begin; id < s->end; ++id) {
      const Op& op = b_.graph().op(id);
      if (!Active(op)) continue;
      std::vector<bool> needs;
      for (ValueId v : op.operands) needs.push_back(Needs(v));
      for (ValueId v : BackwardOf(GetOpKindInfo(op.kind).family).reads(b_.graph(), op, needs)) want(v);
    }
    std::vector<bool> recompute(static_cast<size_t>(s->end - s->begin), false);
    for (OpId id = s->end - 1; id >= s->begin; --id) {
      const Op& op = b_.graph().op(id);
      bool needed = false;
      for (ValueId r : op.results) needed |= need[static_cast<size_t>(r)];
      if (!needed) continue;
      recompute[static_cast<size_t>(id - s->begin)] = true;
      for (ValueId v : op.operands) want(v);
    }
    const std::string policy(RematPolicyName(s->policy));
    for (OpId id = s->begin; id < s->end; ++id) {
      if (!recompute[static_cast<size_t>(id - s->begin)]) continue;
      const Op op = b_.graph().op(id);
      std::vector<ValueId> operands;
      for (ValueId v : op.operands) {
        auto it = recomputed_.find(v);
        operands.push_back(it == recomputed_.end() ? v : it->second);
      }
      std::vector<TensorType> types;
      for (ValueId r : op.results) types.push_back(b_.type(r));
      Attributes attrs = op.attrs;
      attrs.Set("remat", policy);
      std::vector<ValueId> copies = b_.AddOp(op.kind, op.name + ".remat", std::move(operands), std::move(attrs), types);
      for (size_t r = 0; r < copies.size(); ++r) recomputed_[op.results[r]] = copies[r];
      ++recomputed_ops_;
    }
  }

  GraphBuilder& b_;
  std::vector<RematSegment> segments_;
  OpId num_ops_ = 0;
  std::vector<bool> varied_, useful_;
  std::vector<int> segment_of_;            // forward op -> segment index, or -1
  std::vector<ValueId> grads_;             // value -> its gradient so far
  int current_ = -1;                       // the segment whose backward is being appended
  std::map<ValueId, ValueId> recomputed_;  // forward value -> its copy, in the current segment
  int recomputed_ops_ = 0;
  std::vector<ValueId> offloaded_;  // offload segments' host-kept values, first read first
  std::set<ValueId> offloaded_set_;
};

}  // namespace
}  // namespace grad

StatusOr<BackwardResult> AppendBackward(GraphBuilder& b, ValueId loss, const std::vector<ValueId>& wrt,
                                        const BackwardOptions& options) {
  return grad::Pass(b, options).Run(loss, wrt);
}

}  // namespace az::pir
