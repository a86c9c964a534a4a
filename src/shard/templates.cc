// Expert templates as propagation seeds (templates.h). Three steps: parse the
// spec into strategies, bind each to a mesh axis, then read the zoo graph
// (tokens, attention ops, linears, parameters) and write the seeds:
//   value seeds    dim 0 of the latent input and of rank >= 3 activations:
//                  [cfg, dp] (cfg major); dim 1 of token activations: [ring,
//                  ulysses] (ring major, the xDiT/yunchang default), or
//                  [context];
//                  fsdp: every rank >= 2 parameter, storage only;
//   op seeds       video self/joint attention: h = [tp, ulysses], q = kv =
//                  [ring] (pinned unsharded under Ulysses alone), or q =
//                  [context] and kv unsharded (K and V all-gathered); other
//                  attention: h = [tp]; the concats that assemble a joint
//                  attention's q/k/v: heads and concat dim like the attention;
//                  tp linears: the output factor (column) or the contracted
//                  factor (row).
// A token activation is a rank-3 [B, L, *] activation computed from the latent
// whose L is the video token count (or video + text for joint attention), and
// that is not in a text stream (an op name segment starting with "txt").
// Text rows stay replicated, as every deployment keeps them (models.md §4.7).
#include "shard/templates.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "shard/templates_spec.h"
#include "shard/train_seeds.h"

namespace az::shard {

namespace {
using templates::BindAxes;
using templates::Kind;
using templates::ParseSpec;
using templates::Strategy;
using templates::Trim;

// ---------------------------------------------------------------- the graph

// A name segment starting with "txt" (HunyuanVideo, Open-Sora 2.0), or one of
// Mochi's text-stream modules: "*_context" (norm1_context, ff_context, ...)
// and its attention's add_q/k/v_proj and to_add_out.
bool InTextStream(const std::string& op_name) {
  size_t start = 0;
  while (start <= op_name.size()) {
    size_t dot = op_name.find('.', start);
    std::string_view segment(op_name.data() + start, (dot == std::string::npos ? op_name.size() : dot) - start);
    if (segment.starts_with("txt") || segment.ends_with("_context") || segment == "add_q_proj" ||
        segment == "add_k_proj" || segment == "add_v_proj" || segment == "to_add_out") {
      return true;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return false;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Divisors(int64_t n) {
  std::string out;
  for (int64_t d = 1; d <= n; ++d) {
    if (n % d == 0) out += (out.empty() ? "" : ", ") + std::to_string(d);
  }
  return out;
}

struct GraphFacts {
  std::string model;
  std::string cfg;
  std::string kind;  // "forward", "step" or "train_step"
  bool train = false;  // a training step (frontend/zoo/train.cc): forward, backward, AdamW
  int64_t batch = 1, forward_batch = 1;
  int64_t video_tokens = 0, joint_tokens = 0;  // joint: 0 without joint attention
  pir::ValueId latent = -1;
  std::vector<bool> from_input, from_latent;
  std::vector<pir::OpId> video_attention;  // self/joint attention over the video tokens
  std::vector<pir::OpId> other_attention;  // cross attention, text-only self attention
  // Per op, its block part (BlockPart), "" outside one; every part found, sorted.
  std::vector<std::string> op_part;
  std::vector<std::string> parts;

  bool IsTokenActivation(const pir::Graph& graph, pir::ValueId id) const {
    const pir::Value& v = graph.value(id);
    if (v.role != pir::ValueRole::kActivation || v.type.rank() != 3 || !from_latent[static_cast<size_t>(id)]) {
      return false;
    }
    // An attention's log-sum-exp [B, L, H] (training) follows the attention's
    // layout, heads included: no token seed.
    if (graph.op(v.producer).kind == pir::OpKind::kAttention) return false;
    int64_t length = v.type.shape[1];
    if (length != video_tokens && (joint_tokens == 0 || length != joint_tokens)) return false;
    return !InTextStream(graph.op(v.producer).name);
  }
};

// The block part of an op: the name segment after a block's index ("blocks.3"
// in "blocks.3.ffn.0", "double_blocks.3" in HunyuanVideo's), when more
// segments follow it ("blocks.3.ffn.0" is in part "ffn"; "blocks.3.shift_sa",
// an op of the block itself, is in none). The zoo's builders scope every
// block's sub-modules so (frontend/zoo: GraphBuilder::Scope).
std::string BlockPart(const std::string& op_name) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (true) {
    size_t dot = op_name.find('.', start);
    segments.push_back(
        std::string_view(op_name).substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (size_t i = 0; i + 3 < segments.size(); ++i) {
    const std::string_view index = segments[i + 1];
    bool digits =
        !index.empty() && std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (segments[i].ends_with("blocks") && digits) return std::string(segments[i + 2]);
  }
  return "";
}

StatusOr<GraphFacts> ReadGraph(const pir::Graph& graph) {
  GraphFacts facts;
  auto video = graph.attrs().GetInt("video_tokens");
  if (!video) {
    return InvalidArgument("parallelism templates apply to the zoo's graphs; graph '" + graph.name() +
                           "' has no 'video_tokens' attribute");
  }
  facts.video_tokens = *video;
  facts.model = graph.attrs().GetString("model").value_or(graph.name());
  facts.cfg = graph.attrs().GetString("cfg").value_or("none");
  facts.kind = graph.attrs().GetString("graph").value_or("forward");
  facts.train = facts.kind == "train_step";
  facts.batch = graph.attrs().GetInt("batch").value_or(1);
  facts.forward_batch = facts.cfg == "batch2" ? 2 * facts.batch : facts.batch;
  // The zoo names its latent "latent"; an imported program records which input it is.
  const std::string latent = graph.attrs().GetString("latent_input").value_or("latent");
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    const pir::Value& v = graph.value(id);
    if (v.role == pir::ValueRole::kInput && v.name == latent) facts.latent = id;
  }
  if (facts.latent < 0) return InvalidArgument("graph '" + graph.name() + "' has no '" + latent + "' input");

  facts.from_input.assign(static_cast<size_t>(graph.num_values()), false);
  facts.from_latent.assign(static_cast<size_t>(graph.num_values()), false);
  for (pir::ValueId id = 0; id < graph.num_values(); ++id) {
    facts.from_input[static_cast<size_t>(id)] = graph.value(id).role == pir::ValueRole::kInput;
  }
  facts.from_latent[static_cast<size_t>(facts.latent)] = true;
  for (const pir::Op& op : graph.ops()) {
    bool input = false, latent = false;
    for (pir::ValueId v : op.operands) {
      input |= facts.from_input[static_cast<size_t>(v)];
      latent |= facts.from_latent[static_cast<size_t>(v)];
    }
    for (pir::ValueId v : op.results) {
      facts.from_input[static_cast<size_t>(v)] = input;
      facts.from_latent[static_cast<size_t>(v)] = latent;
    }
  }
  facts.op_part.reserve(static_cast<size_t>(graph.num_ops()));
  for (const pir::Op& op : graph.ops()) facts.op_part.push_back(BlockPart(op.name));
  facts.parts = BlockParts(graph);
  int64_t text = graph.attrs().GetInt("text_tokens").value_or(0);
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::Op& op = graph.op(id);
    if (op.kind == pir::OpKind::kAttention && op.attrs.GetString("mode").value_or("self") == "joint") {
      facts.joint_tokens = facts.video_tokens + text;
    }
  }
  // A training step's attention_grad ops (flash-attention backward) and
  // rematerialized attentions take their forward's layout (heads, q, kv).
  for (pir::OpId id = 0; id < graph.num_ops(); ++id) {
    const pir::Op& op = graph.op(id);
    if (op.kind != pir::OpKind::kAttention && op.kind != pir::OpKind::kAttentionGrad) continue;
    std::string mode = op.attrs.GetString("mode").value_or("self");
    pir::ValueId q = op.operands[0];
    int64_t length = graph.type(q).shape[1];
    bool video = mode != "cross" && facts.from_latent[static_cast<size_t>(q)] &&
                 (length == facts.video_tokens || (facts.joint_tokens && length == facts.joint_tokens)) &&
                 !InTextStream(op.name);
    (video ? facts.video_attention : facts.other_attention).push_back(id);
  }
  return facts;
}

// Megatron linears of the zoo's blocks, by the suffix of the op name. Fused
// q/k/v projections (HunyuanVideo's qkv and linear1) are absent: their
// (q, k, v) x heads layout puts the 3 major to the heads, so a column split
// is not a head split and cannot be expressed (sharding.h). Step-Video's
// wqkv and wkv are viewed heads x (q, k, v), heads major: a column split is a
// head split, as xDiT's TensorParallelApplicator shards them. Mochi's SwiGLU
// net.0.proj emits [hidden; gate]: its column split leaves each half on half
// the ranks, which the compiler regathers (a pessimistic TP, which no Mochi
// deployment runs).
constexpr const char* kColumnLinears[] = {".self_attn.q",  ".self_attn.k",  ".self_attn.v",      ".cross_attn.q",
                                          ".cross_attn.k", ".cross_attn.v", ".cross_attn.k_img", ".cross_attn.v_img",
                                          ".ffn.0",        "mlp.fc1",
                                          // CogVideoX, LTX-Video (diffusers names)
                                          ".attn1.to_q", ".attn1.to_k", ".attn1.to_v", ".ff.net.0.proj",
                                          ".attn2.to_q", ".attn2.to_k", ".attn2.to_v",
                                          // Step-Video
                                          ".attn1.wqkv", ".attn2.wq", ".attn2.wkv",
                                          // Mochi's text stream; Open-Sora 2.0 (unfused q/k/v; its
                                          // single blocks' v_mlp is fused, so absent)
                                          ".attn1.add_q_proj", ".attn1.add_k_proj", ".attn1.add_v_proj",
                                          ".ff_context.net.0.proj", ".q_proj", ".k_proj", ".v_proj", "_mlp.0"};
constexpr const char* kRowLinears[] = {".self_attn.o", ".cross_attn.o", ".ffn.2", "mlp.fc2", "_attn_proj", ".linear2",
                                       ".attn1.to_out.0", ".ff.net.2", ".attn2.to_out.0", ".attn1.wo", ".attn2.wo",
                                       // Mochi's text stream; Open-Sora 2.0
                                       ".attn1.to_add_out", ".ff_context.net.2", "_attn.proj", "_mlp.2"};

enum class LinearKind { kNone, kColumn, kRow };

LinearKind ClassifyLinear(const pir::Graph& graph, const pir::Op& op) {
  if (op.kind != pir::OpKind::kEinsum || op.operands.size() < 2) return LinearKind::kNone;
  const pir::Value& weight = graph.value(op.operands[1]);
  if (weight.role != pir::ValueRole::kParameter || !EndsWith(weight.name, ".weight") || weight.type.rank() != 2) {
    return LinearKind::kNone;
  }
  // The module: the op's name (the zoo, ONNX scopes), else the weight's name
  // without ".weight" (an imported program whose ops carry no module scope).
  for (const std::string& module : {op.name, weight.name.substr(0, weight.name.size() - 7)}) {
    if (module.find("blocks.") == std::string::npos) continue;
    for (const char* suffix : kColumnLinears) {
      if (EndsWith(module, suffix)) return LinearKind::kColumn;
    }
    for (const char* suffix : kRowLinears) {
      if (EndsWith(module, suffix)) return LinearKind::kRow;
    }
  }
  return LinearKind::kNone;
}

// The name of the factor on dim `dim` of tensor `tensor` (an operand, or the
// result when `result`), or "" when the dim has no single factor.
std::string FactorOn(const pir::FactorRule& rule, bool result, size_t tensor, size_t dim) {
  const pir::TensorFactors& t = result ? rule.results.at(tensor) : rule.operands.at(tensor);
  if (dim >= t.size() || t[dim].size() != 1) return "";
  return rule.factors[static_cast<size_t>(t[dim][0])].name;
}

// The factor of a linear's 2-D weight that a Megatron split shards: its
// output factor (column: the weight factor the result keeps) or its contracted
// factor (row: the reduction factor). Read from the rule, so the weight may be
// stored [in, out] (the zoo, JAX) or [out, in] (PyTorch).
std::string LinearFactor(const pir::FactorRule& rule, LinearKind kind) {
  const pir::TensorFactors& weight = rule.operands.at(1);
  for (const auto& dim : weight) {
    if (dim.size() != 1) continue;
    const pir::Factor& factor = rule.factors[static_cast<size_t>(dim[0])];
    bool reduced = factor.kind == pir::FactorKind::kReduction;
    if (reduced == (kind == LinearKind::kRow)) return factor.name;
  }
  return "";
}

// The strategies in force over one region of the graph: the whole model, or
// the block parts of a per-part tp, where tp holds its axis and the sequence
// strategy it shares the axis with does not apply (templates.h).
struct Slots {
  const Strategy *dp = nullptr, *cfg = nullptr, *ulysses = nullptr, *ring = nullptr, *context = nullptr, *tp = nullptr,
                 *fsdp = nullptr;

  const Strategy*& Of(Kind kind) {
    switch (kind) {
      case Kind::kDp: return dp;
      case Kind::kCfg: return cfg;
      case Kind::kUlysses: return ulysses;
      case Kind::kRing: return ring;
      case Kind::kContext: return context;
      case Kind::kTp: return tp;
      case Kind::kFsdp: break;
    }
    return fsdp;
  }
  bool Sequence() const { return ulysses || ring || context; }
};

// The bound strategies over one graph: checks, then value and op seeds.
class Template {
 public:
  Template(const pir::Graph& graph, const Mesh& mesh, const std::vector<Strategy>& strategies, GraphFacts facts)
      : graph_(graph), mesh_(mesh), facts_(std::move(facts)) {
    for (const Strategy& s : strategies) {
      if (s.parts.empty()) {
        outside_.Of(s.kind) = &s;
      } else {
        scoped_tp_ = &s;
      }
    }
    inside_ = outside_;
    if (!scoped_tp_) return;
    inside_.tp = scoped_tp_;
    for (const Strategy** sequence : {&inside_.ulysses, &inside_.ring, &inside_.context}) {
      if (*sequence && (*sequence)->axis == scoped_tp_->axis) *sequence = nullptr;
    }
    in_scope_.assign(static_cast<size_t>(graph_.num_ops()), false);
    for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
      const std::string& part = facts_.op_part[static_cast<size_t>(id)];
      in_scope_[static_cast<size_t>(id)] =
          std::find(scoped_tp_->parts.begin(), scoped_tp_->parts.end(), part) != scoped_tp_->parts.end();
    }
    FindTpInterior();
  }

  Status CheckApplies() const;
  void SeedBatchAndSequence(Seeds& seeds) const;
  bool SequenceProducible(pir::ValueId id, int64_t n) const;
  Status SeedFsdp(Seeds& seeds) const;
  Status SeedAttention(Seeds& seeds) const;
  Status SeedTensorParallel(Seeds& seeds) const;

 private:
  int64_t Degree(const Strategy* s) const { return s ? mesh_.axis_size(s->axis) : int64_t{1}; }
  bool InScope(pir::OpId op) const { return scoped_tp_ && op != pir::kNoOp && in_scope_[static_cast<size_t>(op)]; }
  // The strategies in force at `op`.
  const Slots& At(pir::OpId op) const { return InScope(op) ? inside_ : outside_; }
  Status CheckScope() const;
  void FindTpInterior();
  StatusOr<std::map<pir::ValueId, std::pair<int, int>>> TpWeightDims() const;
  // A training step's fsdp is ZeRO-3: data parallel over its axes that no
  // compute strategy holds (the batch split there, the weights, gradients and
  // optimizer states sharded), so "fsdp=x" alone splits the batch on x and
  // "fsdp=x+y,ring=y" on x. In a forward fsdp only stores (templates.h).
  std::vector<int> FsdpDataAxes() const {
    std::vector<int> axes;
    if (!outside_.fsdp || !facts_.train) return axes;
    for (int axis : outside_.fsdp->axes) {
      bool owned = false;
      for (const Strategy* s :
           {outside_.dp, outside_.cfg, outside_.ulysses, outside_.ring, outside_.context, outside_.tp}) {
        owned |= s && s->axis == axis;
      }
      if (!owned) axes.push_back(axis);
    }
    return axes;
  }
  int64_t Heads(pir::OpId attention) const { return graph_.type(graph_.op(attention).operands[0]).shape[2]; }

  const pir::Graph& graph_;
  const Mesh& mesh_;
  GraphFacts facts_;
  Slots outside_, inside_;
  const Strategy* scoped_tp_ = nullptr;
  std::vector<bool> in_scope_;  // per op: in a part of scoped_tp_
  // Per value: between a column-parallel linear of the parts and a
  // row-parallel one, both included (FindTpInterior).
  std::vector<bool> tp_interior_;
};

// The values a per-part tp splits on its axis other than by the sequence:
// from each column-parallel linear's result, along the ops of the parts, up to
// and including the row-parallel linear's (partial) result. They get no
// sequence seed; every other token activation of the parts keeps the stream's
// split, so the sequence is gathered at the column linears' inputs (after the
// norms, modulation and cast) and the row linears' partial sums are
// reduce-scattered straight back to it (its consumer, the gate or the
// residual, is seeded with the stream's split).
// A training step's backward is the mirror: a row linear's input gradient
// ("<op>.grad.lhs": dX = dY W^T, split on the features W's rows hold) opens
// the interior, so the stream's gradient is gathered there (the transpose of
// the forward's reduce-scatter), and a column linear's input gradient (a
// partial sum over tp) closes it, reduce-scattered back to the stream's split
// (the transpose of the forward's gather). Rematerialized linears ("<op>.remat",
// classified by their weight) open and close as their forwards do.
void Template::FindTpInterior() {
  tp_interior_.assign(static_cast<size_t>(graph_.num_values()), false);
  std::vector<bool> spreads(static_cast<size_t>(graph_.num_values()), false);
  // The parts' forward linears by name, for their backward einsums.
  std::map<std::string, LinearKind> linears;
  for (pir::OpId id = 0; facts_.train && id < graph_.num_ops(); ++id) {
    if (!InScope(id)) continue;
    const LinearKind linear = ClassifyLinear(graph_, graph_.op(id));
    if (linear != LinearKind::kNone) linears[graph_.op(id).name] = linear;
  }
  for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
    if (!InScope(id)) continue;
    const pir::Op& op = graph_.op(id);
    // opens: the result is split on tp's axis by features; closes: partial over it.
    LinearKind linear = ClassifyLinear(graph_, op);
    bool opens = linear == LinearKind::kColumn, closes = linear == LinearKind::kRow;
    if (linear == LinearKind::kNone && op.kind == pir::OpKind::kEinsum && EndsWith(op.name, ".grad.lhs")) {
      auto forward = linears.find(op.name.substr(0, op.name.size() - 9));
      if (forward != linears.end()) {
        opens = forward->second == LinearKind::kRow;
        closes = forward->second == LinearKind::kColumn;
      }
    }
    bool from_column = false;
    for (pir::ValueId v : op.operands) from_column |= spreads[static_cast<size_t>(v)];
    if (!opens && !closes && !from_column) continue;
    for (pir::ValueId v : op.results) {
      tp_interior_[static_cast<size_t>(v)] = true;
      spreads[static_cast<size_t>(v)] = !closes;
    }
  }
}

// A per-part tp: its parts present, each with a Megatron linear or an
// attention to split.
Status Template::CheckScope() const {
  if (!scoped_tp_) return Status::Ok();
  std::string known;
  for (const std::string& part : facts_.parts) known += (known.empty() ? "" : ", ") + part;
  for (const std::string& part : scoped_tp_->parts) {
    if (std::find(facts_.parts.begin(), facts_.parts.end(), part) == facts_.parts.end()) {
      return InvalidArgument("'" + scoped_tp_->text + "': " + facts_.model + "'s blocks have no part '" + part +
                             "' (their parts: " + (known.empty() ? "none" : known) + ")");
    }
  }
  return Status::Ok();
}

Status Template::CheckApplies() const {
  AZ_RETURN_IF_ERROR(CheckScope());
  const Strategy* cfg = outside_.cfg;
  const Strategy* dp = outside_.dp;
  if (cfg) {
    if (facts_.cfg == "two-pass") {
      return InvalidArgument("cfg over a two-pass " + facts_.kind +
                             ": use --cfg batch2 (the two passes become one batch-2 forward)");
    }
    if (facts_.cfg != "batch2") {
      return InvalidArgument("cfg: the model runs no CFG pass to split (cfg mode " + facts_.cfg + ")");
    }
    if (Degree(cfg) != 2) {
      return InvalidArgument("'" + cfg->text +
                             "': cfg splits the cond and uncond halves, so its axis must have size 2; '" +
                             mesh_.axis_name(cfg->axis) + "' has " + std::to_string(Degree(cfg)));
    }
  }
  const int64_t dp_batch = cfg ? facts_.batch : facts_.forward_batch;  // what dp splits
  if (dp && dp_batch % Degree(dp) != 0) {
    return InvalidArgument("'" + dp->text + "': dp over " + std::to_string(Degree(dp)) +
                           " devices needs a batch divisible by " + std::to_string(Degree(dp)) + ", the forward runs " +
                           std::to_string(dp_batch) + (cfg ? " per CFG half" : "") + " (raise --batch)");
  }
  if (const std::vector<int> data = FsdpDataAxes(); !data.empty() && facts_.batch % mesh_.AxesSize(data) != 0) {
    return InvalidArgument("'" + outside_.fsdp->text + "': a training step's fsdp splits the micro-batch over " +
                           std::to_string(mesh_.AxesSize(data)) + " devices, the step runs " +
                           std::to_string(facts_.batch) + " (raise the micro-batch)");
  }
  const Slots& all = outside_;
  if (all.context && (all.ulysses || all.ring)) {
    // MaxDiffusion splits its one context axis for ulysses_ring attention
    // (attention_flax.py: _ulysses_ring_attention); its flash attention, the
    // one that gathers K and V, runs on the context axis alone.
    return InvalidArgument("'" + all.context->text +
                           "' combines with neither ring nor ulysses: context attention gathers " +
                           "K and V over its own axis (use usp:ulysses=A,ring=B for two sequence axes)");
  }
  if (all.Sequence() && facts_.video_attention.empty()) {
    const Strategy* sequence = all.ulysses ? all.ulysses : all.ring ? all.ring : all.context;
    return InvalidArgument("'" + sequence->text +
                           "' does not apply: the graph has no self or joint attention over the video tokens");
  }
  for (pir::OpId id : facts_.video_attention) {
    const Slots& s = At(id);
    int64_t heads = Heads(id);
    if (s.ulysses && heads % Degree(s.ulysses) != 0) {
      return InvalidArgument("'" + s.ulysses->text + "': a Ulysses degree must divide the " + std::to_string(heads) +
                             " attention heads of " + facts_.model + "; valid Ulysses degrees: " + Divisors(heads) +
                             " (use ring or usp for the rest)");
    }
    if (s.tp && heads % (Degree(s.ulysses) * Degree(s.tp)) != 0) {
      return InvalidArgument("'" + s.tp->text + "': the " + std::to_string(heads) + " attention heads of " +
                             facts_.model + " do not split " + std::to_string(Degree(s.ulysses) * Degree(s.tp)) +
                             " ways" + (s.ulysses ? " (ulysses x tp)" : "") + "; valid degrees: " + Divisors(heads));
    }
  }
  for (pir::OpId id : facts_.other_attention) {
    const Slots& s = At(id);
    int64_t heads = Heads(id);
    if (s.tp && heads % Degree(s.tp) != 0) {
      return InvalidArgument("'" + s.tp->text + "': the " + std::to_string(heads) + " heads of '" + graph_.op(id).name +
                             "' do not split " + std::to_string(Degree(s.tp)) +
                             " ways; valid degrees: " + Divisors(heads));
    }
  }
  return Status::Ok();
}

// Whether the producer of token activation `id` can produce its tokens split
// `n` ways: a reshape merging [T, H, W] into the tokens (a training step's
// unpatchify gradient) splits them only if T divides (its factors fill major
// to minor); every other producer does.
bool Template::SequenceProducible(pir::ValueId id, int64_t n) const {
  const pir::Op& producer = graph_.op(graph_.value(id).producer);
  if (producer.kind != pir::OpKind::kReshape || n == 1) return true;
  auto rule = pir::BuildFactorRule(graph_, producer);
  if (!rule.ok()) return false;
  const pir::TensorFactors& result = rule->results.at(0);
  if (result.size() < 2 || result[1].empty()) return true;
  return rule->factors[static_cast<size_t>(result[1][0])].size % n == 0;
}

// Dim 0 of the latent and of batched activations: [cfg, dp]; dim 1 of token
// activations: [ring, ulysses], but for a per-part tp's interior
// (FindTpInterior): Megatron's sequence parallelism.
void Template::SeedBatchAndSequence(Seeds& seeds) const {
  std::vector<int> forward_batch_axes, step_batch_axes, sequence_axes;
  if (outside_.cfg) forward_batch_axes.push_back(outside_.cfg->axis);
  if (outside_.dp) forward_batch_axes.push_back(outside_.dp->axis);
  for (int axis : FsdpDataAxes()) forward_batch_axes.push_back(axis);
  // A batch2 step's own values (before the concat, after the split) have the per-half batch.
  if (outside_.dp && facts_.batch % Degree(outside_.dp) == 0) step_batch_axes.push_back(outside_.dp->axis);
  if (outside_.ring) sequence_axes.push_back(outside_.ring->axis);
  if (outside_.ulysses) sequence_axes.push_back(outside_.ulysses->axis);
  if (outside_.context) sequence_axes.push_back(outside_.context->axis);
  for (pir::ValueId id = 0; id < graph_.num_values(); ++id) {
    const pir::Value& v = graph_.value(id);
    bool batched = id == facts_.latent || (v.role == pir::ValueRole::kActivation && v.type.rank() >= 3 &&
                                           facts_.from_input[static_cast<size_t>(id)]);
    if (!batched) continue;
    TensorSharding s = TensorSharding::Replicated(static_cast<int>(v.type.rank()));
    int64_t batch = v.type.shape[0];
    if (batch == facts_.forward_batch) {
      s.dims[0] = forward_batch_axes;
    } else if (batch == facts_.batch) {
      s.dims[0] = step_batch_axes;
    }
    const bool interior = scoped_tp_ && tp_interior_[static_cast<size_t>(id)];
    if (facts_.IsTokenActivation(graph_, id) && !interior && SequenceProducible(id, mesh_.AxesSize(sequence_axes))) {
      s.dims[1] = sequence_axes;
    }
    if (!s.IsReplicated()) seeds.values[id] = std::move(s);
  }
}

// The weights of the Megatron linears (where a tp is in force): weight ->
// (the dim tp splits, the tp axis); in a training step, whose ZeRO-3 shards
// vectors too, also a column linear's bias (its one dim, split like the
// output features). A training step's whole-model tp keeps ZeRO-3's own
// layout; a per-part tp's weights are stored tp-major as in a forward, so
// that their gradients, which the backward produces split on tp's axis and
// whole over it (train_seeds.h), are reduced over the other axes only.
StatusOr<std::map<pir::ValueId, std::pair<int, int>>> Template::TpWeightDims() const {
  std::map<pir::ValueId, std::pair<int, int>> out;
  for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
    const Strategy* tp = At(id).tp;
    if (!tp || (facts_.train && tp != scoped_tp_)) continue;
    const pir::Op& op = graph_.op(id);
    LinearKind kind = ClassifyLinear(graph_, op);
    if (kind == LinearKind::kNone) continue;
    AZ_ASSIGN_OR_RETURN(pir::FactorRule rule, pir::BuildFactorRule(graph_, op));
    const std::string factor = LinearFactor(rule, kind);
    const pir::TensorFactors& weight = rule.operands.at(1);
    for (size_t dim = 0; dim < weight.size(); ++dim) {
      if (weight[dim].size() == 1 && rule.factors[static_cast<size_t>(weight[dim][0])].name == factor) {
        out[op.operands[1]] = {static_cast<int>(dim), tp->axis};
      }
    }
    if (facts_.train && kind == LinearKind::kColumn && op.operands.size() == 3 &&
        graph_.value(op.operands[2]).role == pir::ValueRole::kParameter && graph_.type(op.operands[2]).rank() == 1) {
      out[op.operands[2]] = {0, tp->axis};
    }
  }
  return out;
}

// Every weight of rank >= 2 on its largest dim the axes divide, else its
// largest dim (padded); ties go to the first dim; a Megatron weight on the dim
// its tp splits, tp major (TpWeightDims). Stored so, gathered for use.
// A training step shards every parameter, vectors too (ZeRO-3 shards all of
// them), and its opt_state leaves like their parameter (SeedTrainingState).
Status Template::SeedFsdp(Seeds& seeds) const {
  const Strategy* fsdp = outside_.fsdp;
  if (!fsdp) return Status::Ok();
  const int64_t n = mesh_.AxesSize(fsdp->axes);
  const int64_t min_rank = facts_.train ? 1 : 2;
  AZ_ASSIGN_OR_RETURN(const auto tp_dims, TpWeightDims());
  for (pir::ValueId id = 0; id < graph_.num_values(); ++id) {
    const pir::Value& v = graph_.value(id);
    if (v.role != pir::ValueRole::kParameter || v.type.rank() < min_rank) continue;
    const pir::Shape& shape = v.type.shape;
    if (auto tp = tp_dims.find(id); tp != tp_dims.end()) {
      // A Megatron weight: stored on [tp, the other fsdp axes] along the dim
      // tp splits, so that its use gathers only the other axes (the tp split
      // is the weight's own, as Megatron keeps it) rather than everything.
      const auto [dim, tp_axis] = tp->second;
      std::vector<int> axes{tp_axis};
      for (int axis : fsdp->axes) {
        if (axis != tp_axis) axes.push_back(axis);
      }
      if (shape[static_cast<size_t>(dim)] % mesh_.AxesSize(axes) == 0) {
        TensorSharding s = TensorSharding::Replicated(static_cast<int>(shape.size()));
        s.dims[static_cast<size_t>(dim)] = std::move(axes);
        seeds.values[id] = std::move(s);
        seeds.storage_only.insert(id);
        continue;
      }
    }
    size_t best = shape.size(), largest = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] > shape[largest]) largest = d;
      if (shape[d] % n == 0 && (best == shape.size() || shape[d] > shape[best])) best = d;
    }
    TensorSharding s = TensorSharding::Replicated(static_cast<int>(shape.size()));
    s.dims[best < shape.size() ? best : largest] = fsdp->axes;
    seeds.values[id] = std::move(s);
    seeds.storage_only.insert(id);
  }
  if (seeds.storage_only.empty()) {
    return InvalidArgument("'" + fsdp->text + "' does not apply: the graph has no weight of rank >= 2");
  }
  if (facts_.train) SeedTrainingState(graph_, seeds);
  return Status::Ok();
}

// Video attention: heads on [tp, ulysses]; under sequence parallelism q and kv
// on [ring] (pinned unsharded under Ulysses alone). Under context parallelism
// q on [context] and kv pinned unsharded: the compiler all-gathers K and V over
// the axis before the kernel, and each device attends its query shard to the
// whole sequence. That is MaxDiffusion's default (attention: flash with
// attention_sharding_uniform): pyconfig.py adds SEQUENCE_PARALLEL_AXIS_RULES
// (common_types.py: activation_self_attn_q_length -> context,
// activation_self_attn_kv_length -> None), so the shard_map of
// attention_flax.py's _tpu_flash_attention takes K and V replicated over
// context and XLA gathers them, with no ring and no log-sum-exp merge. In a
// training step the attention_grad takes the same layout, so dK and dV are
// partial sums over the query shards, reduce-scattered back to the sequence
// split (the transpose of the gather). Other attention: heads on tp.
// tp major: the column-parallel projections give each tp rank a contiguous
// group of heads (their features stay on tp through the q/k norms), and the
// Ulysses all-to-all splits that group further; the reverse order would need
// the whole q, k, v and output gathered to reorder the head axes.
// Each attention takes the strategies in force where it is (At): inside a
// per-part tp's parts, its tp and the sequence strategies on other axes.
Status Template::SeedAttention(Seeds& seeds) const {
  for (pir::OpId id : facts_.video_attention) {
    const Slots& s = At(id);
    std::vector<int> video_heads, sequence;
    if (s.tp) video_heads.push_back(s.tp->axis);
    if (s.ulysses) video_heads.push_back(s.ulysses->axis);
    if (s.ring) sequence.push_back(s.ring->axis);
    std::vector<int> query_sequence = sequence;
    if (s.context) query_sequence.push_back(s.context->axis);
    auto& factors = seeds.op_factors[id];
    if (!video_heads.empty()) factors["h"] = video_heads;
    if (!outside_.Sequence()) continue;
    factors["q"] = query_sequence;
    factors["kv"] = sequence;
    // A joint attention's q/k/v are concats of the streams along the sequence:
    // give the concat the attention's layout, so that the image rows reach it
    // by an all-to-all rather than an all-gather.
    const std::vector<pir::ValueId>& operands = graph_.op(id).operands;
    for (size_t index = 0; index < operands.size(); ++index) {
      pir::ValueId operand = operands[index];
      pir::OpId producer = graph_.value(operand).producer;
      if (producer == pir::kNoOp) continue;
      const pir::Op& concat = graph_.op(producer);
      if (concat.kind != pir::OpKind::kConcat || concat.attrs.GetInt("axis").value_or(0) != 1 ||
          graph_.type(operand).rank() != 4) {
        continue;
      }
      AZ_ASSIGN_OR_RETURN(pir::FactorRule rule, pir::BuildFactorRule(graph_, concat));
      auto& concat_factors = seeds.op_factors[producer];
      std::string sequence_factor = FactorOn(rule, true, 0, 1), heads_factor = FactorOn(rule, true, 0, 2);
      // Operand 0 is q (on the context axis too); k and v are gathered whole.
      if (!sequence_factor.empty()) concat_factors[sequence_factor] = index == 0 ? query_sequence : sequence;
      if (!heads_factor.empty() && !video_heads.empty()) concat_factors[heads_factor] = video_heads;
    }
  }
  for (pir::OpId id : facts_.other_attention) {
    if (const Strategy* tp = At(id).tp) seeds.op_factors[id]["h"] = {tp->axis};
  }
  return Status::Ok();
}

// Megatron: the output factor of column-parallel linears, the contracted
// factor of row-parallel ones (of a per-part tp, those in its parts).
Status Template::SeedTensorParallel(Seeds& seeds) const {
  const Strategy* tp = scoped_tp_ ? scoped_tp_ : outside_.tp;
  if (!tp) return Status::Ok();
  bool any = false;
  for (pir::OpId id : facts_.video_attention) any |= At(id).tp != nullptr;
  for (pir::OpId id : facts_.other_attention) any |= At(id).tp != nullptr;
  for (pir::OpId id = 0; id < graph_.num_ops(); ++id) {
    const pir::Op& op = graph_.op(id);
    if (!At(id).tp) continue;
    LinearKind kind = ClassifyLinear(graph_, op);
    if (kind == LinearKind::kNone) continue;
    AZ_ASSIGN_OR_RETURN(pir::FactorRule rule, pir::BuildFactorRule(graph_, op));
    std::string factor = LinearFactor(rule, kind);
    if (factor.empty()) continue;
    seeds.op_factors[id][factor] = {tp->axis};
    any = true;
  }
  if (facts_.train) AZ_RETURN_IF_ERROR(SeedBackwardLinears(graph_, seeds));
  if (!any) {
    return InvalidArgument("'" + tp->text + "' does not apply: " +
                           (scoped_tp_ ? std::string("its parts have") : std::string("the graph has")) +
                           " no attention and no block linears");
  }
  return Status::Ok();
}

}  // namespace

std::vector<std::string> BlockParts(const pir::Graph& graph) {
  std::vector<std::string> parts;
  for (const pir::Op& op : graph.ops()) {
    std::string part = BlockPart(op.name);
    if (!part.empty()) parts.push_back(std::move(part));
  }
  std::sort(parts.begin(), parts.end());
  parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  return parts;
}

StatusOr<Seeds> TemplateSeeds(const pir::Graph& graph, const Mesh& mesh, std::string_view spec) {
  if (Trim(spec) == "annotated") return AnnotatedSeeds(graph, mesh);
  AZ_ASSIGN_OR_RETURN(std::vector<Strategy> strategies, ParseSpec(spec));
  AZ_RETURN_IF_ERROR(BindAxes(strategies, mesh));
  AZ_ASSIGN_OR_RETURN(GraphFacts facts, ReadGraph(graph));
  Template t(graph, mesh, strategies, std::move(facts));
  AZ_RETURN_IF_ERROR(t.CheckApplies());
  Seeds seeds;
  t.SeedBatchAndSequence(seeds);
  AZ_RETURN_IF_ERROR(t.SeedFsdp(seeds));
  AZ_RETURN_IF_ERROR(t.SeedAttention(seeds));
  AZ_RETURN_IF_ERROR(t.SeedTensorParallel(seeds));
  return seeds;
}

}  // namespace az::shard
