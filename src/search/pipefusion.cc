#include "search/pipefusion.h"

#include <algorithm>

#include "search/sources.h"

namespace az::search {

int64_t PipelineSlots(const PipelineShape& pipeline, int64_t forwards, int64_t steps) {
  const int64_t stages = std::max<int64_t>(1, pipeline.stages), patches = std::max<int64_t>(1, pipeline.patches);
  const int64_t total_steps = std::max<int64_t>(1, steps);
  const int64_t warmup = std::clamp<int64_t>(pipeline.warmup_steps, 0, total_steps);
  // Warm-up: every forward's M patches through the P stages one at a time.
  int64_t slots = warmup * forwards * stages * patches;
  const int64_t pipelined = (total_steps - warmup) * forwards * patches;
  if (pipelined == 0) return slots;
  // T(j) = max(T(j - 1) + 1, T(j - (f + 1) M) + P): entry slots of the patches.
  std::vector<int64_t> entry(static_cast<size_t>(pipelined), 0);
  for (int64_t j = 0; j < pipelined; ++j) {
    const int64_t forward = (j / patches) % forwards;
    int64_t t = j == 0 ? 0 : entry[static_cast<size_t>(j - 1)] + 1;
    const int64_t source = j - (forward + 1) * patches;
    if (source >= 0) t = std::max(t, entry[static_cast<size_t>(source)] + stages);
    entry[static_cast<size_t>(j)] = t;
  }
  return slots + entry.back() + stages;
}

double PipelineStepLatency(const PipelineShape& pipeline, int64_t forwards, int64_t steps, double slot_s) {
  const int64_t total_steps = std::max<int64_t>(1, steps);
  return static_cast<double>(PipelineSlots(pipeline, forwards, total_steps)) * slot_s /
         static_cast<double>(total_steps);
}

int64_t PipeFusionPatches(const Combo& combo) { return combo.pipefusion; }

int64_t StageUnits(const workload::Workload& config, const Combo& combo) {
  return config.DepthUnits() / std::max<int64_t>(1, combo.pipefusion);
}

Status CheckPipeFusion(const workload::Workload& config, const Combo& combo, bool train) {
  if (combo.pipefusion <= 1) return Status::Ok();
  const std::string what = "pipefusion=" + std::to_string(combo.pipefusion);
  if (train) return InvalidArgument(what + ": PipeFusion is an inference pipeline (stale K/V across denoising steps)");
  if (!config.BuildsPipelinePatches()) {
    return InvalidArgument(what + ": " + config.model +
                           " is not built as PipeFusion patches (its builder has no stale K/V inputs; Wan's has)");
  }
  const int64_t units = config.DepthUnits();
  if (units % combo.pipefusion != 0) {
    return InvalidArgument(what + " does not divide the " + std::to_string(units) + " block units of " + config.model +
                           " (every stage holds the same number of blocks)");
  }
  return Status::Ok();
}

StatusOr<Candidate> PipeFusionCandidate(const workload::Workload& config, const Combo& combo, int64_t depth_units,
                                        const PlanOptions& options) {
  AZ_RETURN_IF_ERROR(CheckPipeFusion(config, combo, options.train.has_value()));
  workload::Workload run = ConfigFor(config, combo);
  run.pipeline_patches = PipeFusionPatches(combo);
  run.depth_units = depth_units == 0 ? StageUnits(config, combo) : depth_units;
  Candidate c;
  c.step = StepOf(run);
  c.step.pipeline = {combo.pipefusion, run.pipeline_patches, kXditWarmupSteps};
  AZ_ASSIGN_OR_RETURN(c.mesh, shard::Mesh::Parse(combo.MeshText()));
  AZ_ASSIGN_OR_RETURN(pir::Graph graph, run.Forward());
  if (graph.outputs().size() < 2) {
    return InternalError(config.model + "'s PipeFusion patch has no hidden-state output to send");
  }
  c.program = std::make_shared<const pir::Graph>(std::move(graph));
  c.strategy.combo = combo;
  return c;
}

void AppendPipeFusionCombos(const workload::Workload& config, int64_t chips, int64_t heads, std::vector<Combo>& out) {
  if (heads == 0 || !config.BuildsPipelinePatches()) return;
  const int64_t units = config.DepthUnits();
  const bool has_cfg = config.cfg != workload::CfgMode::kNone;
  for (int64_t cfg : {int64_t{1}, int64_t{2}}) {
    if (cfg == 2 && (!has_cfg || chips % 2 != 0)) continue;
    for (int64_t stages : Divisors(chips / cfg)) {
      if (stages == 1 || units % stages != 0) continue;
      const int64_t rest = chips / cfg / stages;
      for (int64_t ulysses : Divisors(rest)) {
        if (heads % ulysses != 0) continue;
        Combo c;
        c.cfg = cfg;
        c.pipefusion = stages;
        c.ulysses = ulysses;
        c.ring = rest / ulysses;
        out.push_back(c);
      }
    }
  }
}

Status AppendStageSend(const shard::Mesh& mesh, cir::Program& program) {
  int axis = -1;
  for (int a = 0; a < mesh.num_axes(); ++a) {
    if (mesh.axis_name(a) == kPipeFusionAxis) axis = a;
  }
  if (axis < 0) return InternalError("AppendStageSend: mesh " + mesh.ToString() + " has no pipefusion axis");
  if (program.outputs.empty()) return InternalError("AppendStageSend: the stage program has no output");
  // Logical ids are row-major over the mesh: the next stage is `stride` ids on.
  int64_t stride = 1;
  for (int a = mesh.num_axes() - 1; a > axis; --a) stride *= mesh.axis_size(a);
  const int64_t stages = mesh.axis_size(axis);
  cir::Instruction send;
  send.kind = cir::InstrKind::kCollective;
  send.collective = cir::CollectiveKind::kCollectivePermute;
  send.name = "pipefusion-send";
  send.origin = "PipeFusion: the patch's hidden state to the next stage";
  for (int64_t id = 0; id < program.num_devices; ++id) {
    if ((id / stride) % stages == stages - 1) continue;
    send.pairs.emplace_back(static_cast<int>(id), static_cast<int>(id + stride));
  }
  const int hidden = program.outputs.front();
  cir::Buffer received = program.buffers[static_cast<size_t>(hidden)];
  received.name = "pipefusion-recv";
  received.kind = cir::BufferKind::kCommunication;
  send.collective_bytes = received.bytes();
  send.operands = {hidden};
  send.results = {program.AddBuffer(std::move(received))};
  program.AddInstruction(std::move(send));
  return cir::VerifyProgram(program);
}

}  // namespace az::search
