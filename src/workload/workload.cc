// The workload's names and the defaults of WorkloadBuilder (workload.h): an
// imported program's answers.
#include "workload/workload.h"

#include "support/enum_names.h"

namespace az::workload {
namespace {

constexpr EnumName<CfgMode> kCfgModeNames[] = {
    {CfgMode::kTwoPass, "two-pass"},
    {CfgMode::kBatch2, "batch2"},
    {CfgMode::kNone, "none"},
};

constexpr EnumName<StageKind> kStageKindNames[] = {
    {StageKind::kTextEncoder, "text-encoder"},
    {StageKind::kImageEncoder, "image-encoder"},
    {StageKind::kVaeEncoder, "vae-encoder"},
    {StageKind::kVaeDecoder, "vae-decoder"},
};

}  // namespace

std::string_view CfgModeName(CfgMode mode) { return NameOf(kCfgModeNames, mode); }

StatusOr<CfgMode> ParseCfgMode(std::string_view name) { return ParseName(kCfgModeNames, name, "CFG mode"); }

std::string_view StageKindName(StageKind kind) { return NameOf(kStageKindNames, kind); }

StatusOr<pir::Graph> WorkloadBuilder::Step(const Workload& workload) const {
  return InvalidArgument("'" + workload.model + "' is an imported program: it has a forward, not a denoising step");
}

StatusOr<pir::Graph> WorkloadBuilder::TrainStep(const Workload& workload, const TrainOptions&) const {
  return InvalidArgument("'" + workload.model + "' is an imported program: training steps are built for zoo models");
}

Status WorkloadBuilder::DeployedSequenceSplit(const Workload&, int64_t) const { return Status::Ok(); }

StatusOr<DeployedRecipe> WorkloadBuilder::DeployedRecipeOn(const Workload& workload, int64_t, int64_t, bool) const {
  return NotFound("none published: '" + workload.model + "' is an imported program, deployed by no repository");
}

StatusOr<DeployedRecipe> WorkloadBuilder::DeployedTrainRecipeOn(const Workload& workload, int64_t, int64_t,
                                                                bool) const {
  return NotFound("none published: '" + workload.model + "' is an imported program, trained by no repository");
}

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
