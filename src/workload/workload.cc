// The workload's names and the defaults of WorkloadBuilder (workload.h): an
// imported program's answers.
#include "workload/workload.h"

namespace az::workload {

std::string_view CfgModeName(CfgMode mode) {
  switch (mode) {
    case CfgMode::kTwoPass: return "two-pass";
    case CfgMode::kBatch2: return "batch2";
    case CfgMode::kNone: return "none";
  }
  return "none";
}

StatusOr<CfgMode> ParseCfgMode(std::string_view name) {
  if (name == "two-pass") return CfgMode::kTwoPass;
  if (name == "batch2") return CfgMode::kBatch2;
  if (name == "none") return CfgMode::kNone;
  return InvalidArgument("unknown CFG mode '" + std::string(name) + "' (expected two-pass, batch2 or none)");
}

std::string_view StageKindName(StageKind kind) {
  switch (kind) {
    case StageKind::kTextEncoder: return "text-encoder";
    case StageKind::kImageEncoder: return "image-encoder";
    case StageKind::kVaeEncoder: return "vae-encoder";
    case StageKind::kVaeDecoder: return "vae-decoder";
  }
  return "text-encoder";
}

StatusOr<pir::Graph> WorkloadBuilder::Step(const Workload& workload) const {
  return InvalidArgument("'" + workload.model + "' is an imported program: it has a forward, not a denoising step");
}

StatusOr<pir::Graph> WorkloadBuilder::TrainStep(const Workload& workload, const TrainOptions&) const {
  return InvalidArgument("'" + workload.model + "' is an imported program: training steps are built for zoo models");
}

Status WorkloadBuilder::DeployedSequenceSplit(const Workload&, int64_t) const { return Status::Ok(); }

StatusOr<pir::Graph> WorkloadBuilder::Stage(const Workload& workload, std::string_view stage) const {
  return InvalidArgument("'" + workload.model + "' runs no stage '" + std::string(stage) +
                         "': an imported program is one graph, with no pipeline stages around it");
}

StatusOr<std::vector<DecoderTileRun>> WorkloadBuilder::StageTileRuns(const Workload& workload,
                                                                     std::string_view stage) const {
  return Stage(workload, stage).status();
}

StatusOr<pir::Graph> WorkloadBuilder::StageTile(const Workload& workload, std::string_view stage,
                                                const pir::Shape&) const {
  return Stage(workload, stage);
}

StatusOr<pir::Graph> WorkloadBuilder::StageBlend(const Workload& workload, std::string_view stage) const {
  return Stage(workload, stage);
}

}  // namespace az::workload
