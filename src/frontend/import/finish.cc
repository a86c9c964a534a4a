// FinishImport (imported.h): fold, prune, verify, read the DiT facts.
#include "frontend/import/imported.h"

#include "frontend/import/dit.h"
#include "frontend/import/fold.h"
#include "pir/verify/verifier.h"

namespace az::frontend {

namespace {

// Remaps every value the program holds after a graph rebuild.
void Remap(ImportedProgram& program, const std::vector<pir::ValueId>& map) {
  auto at = [&](pir::ValueId v) { return v >= 0 && v < static_cast<pir::ValueId>(map.size()) ? map[static_cast<size_t>(v)] : -1; };
  for (ImportedArgument& a : program.arguments) a.value = at(a.value);
  for (ImportedResult& r : program.results) r.value = at(r.value);
  for (auto* held : {&program.pinned, &program.gathered}) {
    std::map<pir::ValueId, pir::TensorSharding> remapped;
    for (auto& [v, s] : *held) {
      if (at(v) >= 0) remapped[at(v)] = s;
    }
    *held = std::move(remapped);
  }
}

}  // namespace

Status FinishImport(ImportedProgram& program, const ImportOptions& options) {
  pir::Graph& graph = program.graph;
  if (graph.num_ops() > options.max_ops) {
    return ResourceExhausted(program.file + ": the program has " + std::to_string(graph.num_ops()) +
                             " ops, over the limit of " + std::to_string(options.max_ops));
  }
  // The importer's output must already be a valid graph: fold only rewrites valid PIR.
  AZ_RETURN_IF_ERROR(pir::VerifyGraph(graph));
  std::vector<pir::ValueId> map;
  // `map` composes both rebuilds: original id -> final id.
  AZ_ASSIGN_OR_RETURN(FoldStats folded, FoldPatterns(graph, map, program.splats, program.bands));
  PruneDeadOps(graph, map);
  Remap(program, map);
  // Results carry their names into the plan's tensor list (jax.result_info,
  // the ONNX output name), unless the value already has one.
  for (const ImportedResult& r : program.results) {
    if (graph.IsValidValue(r.value) && graph.value(r.value).name.empty()) {
      graph.mutable_value(r.value).name = r.source_name;
    }
  }
  // Constraints join the annotations on the values themselves, where the
  // planner's `annotated` seeds (shard/templates.h) read them.
  for (const auto& [v, sharding] : program.pinned) {
    if (graph.IsValidValue(v) && !graph.value(v).sharding) graph.mutable_value(v).sharding = sharding;
  }
  AZ_RETURN_IF_ERROR(pir::VerifyGraph(graph));
  graph.attrs().Set("folded_attention", static_cast<int64_t>(folded.attention));
  graph.attrs().Set("folded_softmax", static_cast<int64_t>(folded.softmax));
  graph.attrs().Set("folded_norm", static_cast<int64_t>(folded.norm));
  graph.attrs().Set("format", program.format);
  program.notes.push_back("folded " + std::to_string(folded.attention) + " attention, " +
                          std::to_string(folded.softmax) + " softmax, " + std::to_string(folded.norm) + " norm, " +
                          std::to_string(folded.gelu) + " gelu, " +
                          std::to_string(folded.silu) + " silu patterns");
  // Each attention's mask and K/V heads, as planned (attention_mask.h).
  for (const pir::Op& op : graph.ops()) {
    if (op.kind != pir::OpKind::kAttention) continue;
    const int64_t heads = graph.type(op.operands[0]).shape[2], kv_heads = graph.type(op.operands[1]).shape[2];
    std::string mask = op.attrs.GetString("mask").value_or("none");
    if (auto window = op.attrs.GetInt("window")) mask += " " + std::to_string(*window);
    if (op.operands.size() == 4) {
      mask += " (" + op.attrs.GetString("mask_operand").value_or("mask") + " " + graph.type(op.operands[3]).ToString() +
              ")";
    }
    program.notes.push_back("attention '" + op.name + "': " + std::to_string(heads) + " heads, " +
                            std::to_string(kv_heads) + " K/V heads" +
                            (kv_heads < heads ? (kv_heads == 1 ? " (multi-query)" : " (grouped-query)") : "") +
                            ", mask " + mask);
  }
  AZ_ASSIGN_OR_RETURN(std::vector<std::string> notes, AnnotateDit(graph, options.latent));
  program.notes.insert(program.notes.end(), notes.begin(), notes.end());
  return Status::Ok();
}

}  // namespace az::frontend
