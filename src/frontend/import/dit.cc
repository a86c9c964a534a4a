// DiT facts of an imported program (dit.h).
#include "frontend/import/dit.h"

#include <algorithm>
#include <optional>

#include "pir/rules/rule.h"

namespace az::frontend {

using pir::Graph;
using pir::OpId;
using pir::OpKind;
using pir::ValueId;

namespace {

// Which values are computed from `source`.
std::vector<char> DerivedFrom(const Graph& graph, ValueId source) {
  std::vector<char> derived(static_cast<size_t>(graph.num_values()), 0);
  derived[static_cast<size_t>(source)] = 1;
  for (const pir::Op& op : graph.ops()) {
    bool any = std::any_of(op.operands.begin(), op.operands.end(),
                           [&](ValueId v) { return derived[static_cast<size_t>(v)] != 0; });
    if (!any) continue;
    for (ValueId r : op.results) derived[static_cast<size_t>(r)] = 1;
  }
  return derived;
}

// The concat (on the sequence axis) that produced an attention operand, if any.
const pir::Op* SequenceConcat(const Graph& graph, ValueId operand) {
  OpId p = graph.value(operand).producer;
  if (p == pir::kNoOp) return nullptr;
  const pir::Op& op = graph.op(p);
  if (op.kind != OpKind::kConcat || op.operands.size() < 2) return nullptr;
  auto axis = pir::NormalizeAxis(op.attrs.GetInt("axis").value_or(0), graph.type(operand).rank());
  return axis == 1 ? &op : nullptr;
}

// The video and text lengths of an attention's queries as seen from the
// stream `derived` marks: a sequence concat whose head derives from the stream
// and whose tail does not is joint (video = head, text = tail); a concat whose
// head does not derive from the stream does not count; else all video.
struct Lengths {
  int64_t video = 0, text = 0;
};
std::optional<Lengths> QueryLengths(const Graph& graph, const std::vector<char>& derived, const pir::Op& attention) {
  ValueId q = attention.operands[0];
  if (!derived[static_cast<size_t>(q)]) return std::nullopt;
  const int64_t length = graph.type(q).shape[1];
  const pir::Op* concat = SequenceConcat(graph, q);
  if (!concat) return Lengths{length, 0};
  if (!derived[static_cast<size_t>(concat->operands[0])]) return std::nullopt;
  int64_t tail = 0;
  for (size_t k = 1; k < concat->operands.size(); ++k) {
    if (derived[static_cast<size_t>(concat->operands[k])]) return Lengths{length, 0};
    tail += graph.type(concat->operands[k]).shape[1];
  }
  return Lengths{length - tail, tail};
}

}  // namespace

StatusOr<std::vector<std::string>> AnnotateDit(Graph& graph, const std::string& latent_name) {
  std::vector<std::string> notes;
  std::vector<ValueId> inputs;
  for (ValueId v = 0; v < graph.num_values(); ++v) {
    const pir::Value& value = graph.value(v);
    if (value.role == pir::ValueRole::kInput && pir::IsFloat(value.type.dtype)) inputs.push_back(v);
  }
  std::vector<OpId> attention;
  for (OpId id = 0; id < graph.num_ops(); ++id) {
    if (graph.op(id).kind == OpKind::kAttention && graph.op(id).attrs.GetString("mode").value_or("self") != "cross") {
      attention.push_back(id);
    }
  }

  ValueId latent = -1;
  std::vector<char> from_latent;
  if (!latent_name.empty()) {
    std::string known;
    for (ValueId v : inputs) {
      if (graph.value(v).name == latent_name) latent = v;
      known += (known.empty() ? "" : ", ") + graph.value(v).name;
    }
    if (latent < 0) {
      return InvalidArgument("--latent '" + latent_name + "' names no floating-point input of the program (inputs: " +
                             (known.empty() ? std::string("none") : known) + ")");
    }
    from_latent = DerivedFrom(graph, latent);
  } else {
    int64_t longest = -1;
    for (ValueId v : inputs) {
      int64_t rank = graph.type(v).rank();
      if (rank != 3 && rank != 5) continue;
      std::vector<char> derived = DerivedFrom(graph, v);
      int64_t length = 0;
      for (OpId id : attention) {
        if (auto l = QueryLengths(graph, derived, graph.op(id))) length = std::max(length, l->video);
      }
      // Ties (every stream that modulates the tokens reaches the queries too:
      // the time embedding, a modulation table) go to the larger input.
      bool better = length > longest ||
                    (length == longest && latent >= 0 && graph.type(v).NumElements() > graph.type(latent).NumElements());
      if (better) {
        longest = length;
        latent = v;
        from_latent = std::move(derived);
      }
    }
    if (latent < 0 && !inputs.empty()) {
      latent = inputs.front();
      from_latent = DerivedFrom(graph, latent);
    }
  }

  int64_t video = 0, text = 0;
  if (latent >= 0) {
    for (OpId id : attention) {
      const pir::Op& op = graph.op(id);
      auto l = QueryLengths(graph, from_latent, op);
      if (!l) continue;
      if (l->text > 0) {
        graph.mutable_op(id).attrs.Set("mode", std::string("joint"));
        graph.mutable_op(id).attrs.Set("joint_tail", l->text);
        notes.push_back("attention '" + op.name + "' is joint: " + std::to_string(l->video) + " video + " +
                        std::to_string(l->text) + " text tokens");
      }
      if (l->video > video) {
        video = l->video;
        text = l->text;
      }
    }
  }

  pir::Attributes& attrs = graph.attrs();
  if (!attrs.Has("model")) attrs.Set("model", graph.name());
  attrs.Set("graph", std::string("forward"));
  attrs.Set("cfg", std::string("none"));
  attrs.Set("video_tokens", video);
  attrs.Set("text_tokens", text);
  if (latent >= 0) {
    attrs.Set("latent_input", graph.value(latent).name);
    attrs.Set("batch", graph.type(latent).rank() > 0 ? graph.type(latent).shape[0] : int64_t{1});
    notes.push_back("latent: input '" + graph.value(latent).name + "' " + graph.type(latent).ToString() +
                    (video > 0 ? ", " + std::to_string(video) + " video tokens" : ", no self-attention over it"));
  } else {
    notes.push_back("no floating-point input: the batch and sequence templates do not apply");
  }
  return notes;
}

}  // namespace az::frontend
