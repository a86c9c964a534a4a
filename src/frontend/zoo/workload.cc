// The zoo as a frontend: a ModelConfig's workload (zoo.h: WorkloadOf) and
// frontend::ZooWorkload (frontend/models.h).
#include "frontend/models.h"
#include "frontend/zoo/family.h"
#include "frontend/zoo/stages.h"
#include "frontend/zoo/zoo.h"

namespace az::zoo {

namespace {

// The builders of one validated configuration. The workload a graph is asked
// for carries the sizes the search may have changed (batch, CFG mode, noise
// experts, depth): they override the configuration's; the rest (the VAE's
// rules, the patch) stays the model's.
class ZooBuilder final : public workload::WorkloadBuilder {
 public:
  explicit ZooBuilder(ModelConfig config) : config_(std::move(config)) {}

  int64_t DepthUnits() const override { return zoo::DepthUnits(config_); }
  TokenCounts Tokens(const workload::Workload& w) const override { return CountTokens(At(w)); }
  StatusOr<pir::Graph> Forward(const workload::Workload& w) const override { return BuildForward(At(w)); }
  StatusOr<pir::Graph> Step(const workload::Workload& w) const override { return BuildStep(At(w)); }
  StatusOr<pir::Graph> TrainStep(const workload::Workload& w, const TrainOptions& options) const override {
    return BuildTrainStep(At(w), options);
  }
  Status DeployedSequenceSplit(const workload::Workload& w, int64_t sp) const override {
    return zoo::DeployedSequenceSplit(At(w), sp);
  }
  DeployedDegrees DeployedParallelism() const override { return zoo::DeployedParallelism(config_); }
  bool BuildsPipelinePatches() const override { return FamilyOf(config_.model).builds_pipeline_patches(); }
  DeployedAttention DeployedAttentionLibrary() const override { return zoo::DeployedAttentionLibrary(config_); }
  StatusOr<DeployedRecipe> DeployedRecipeOn(const workload::Workload& w, int64_t chips, int64_t per_node,
                                            bool tpu) const override {
    return zoo::DeployedRecipeOf(At(w), {chips, per_node, tpu});
  }
  StatusOr<DeployedRecipe> DeployedTrainRecipeOn(const workload::Workload& w, int64_t chips, int64_t micro_batch,
                                                 bool tpu) const override {
    return zoo::DeployedTrainRecipeOf(At(w), {chips, chips, tpu}, micro_batch);
  }
  std::vector<StageInfo> Stages(const workload::Workload& w) const override { return StagesOf(At(w)); }
  StatusOr<pir::Graph> Stage(const workload::Workload& w, std::string_view stage) const override {
    return BuildStage(At(w), stage);
  }
  StatusOr<std::vector<DecoderTileRun>> StageTileRuns(const workload::Workload& w,
                                                      std::string_view stage) const override {
    return zoo::StageTileRuns(At(w), stage);
  }
  StatusOr<pir::Graph> StageTile(const workload::Workload& w, std::string_view stage,
                                 const pir::Shape& latent) const override {
    return BuildStageTile(At(w), stage, latent);
  }
  StatusOr<pir::Graph> StageBlend(const workload::Workload& w, std::string_view stage) const override {
    return BuildStageBlend(At(w), stage);
  }

 private:
  ModelConfig At(const workload::Workload& w) const {
    ModelConfig c = config_;
    c.width = w.width;
    c.height = w.height;
    c.frames = w.frames;
    c.steps = w.steps;
    c.batch = w.batch;
    c.cfg = w.cfg;
    c.dtype = w.dtype;
    c.experts = w.noise_experts;
    c.expert_switch_step = w.noise_switch_step;
    c.depth_units = w.depth_units;
    c.pipeline_patches = w.pipeline_patches;
    return c;
  }

  ModelConfig config_;
};

}  // namespace

workload::Workload WorkloadOf(const ModelConfig& config) {
  workload::Workload w;
  w.model = config.model;
  w.width = config.width;
  w.height = config.height;
  w.frames = config.frames;
  w.steps = config.steps;
  w.batch = config.batch;
  w.cfg = config.cfg;
  w.dtype = config.dtype;
  w.noise_experts = config.experts;
  w.noise_switch_step = config.expert_switch_step;
  w.depth_units = config.depth_units;
  w.builder = std::make_shared<const ZooBuilder>(config);
  return w;
}

}  // namespace az::zoo

namespace az::frontend {

StatusOr<workload::Workload> ZooWorkload(std::string_view model, const workload::ModelOptions& options) {
  AZ_ASSIGN_OR_RETURN(zoo::ModelConfig config, zoo::ResolveConfig(model, options));
  return zoo::WorkloadOf(config);
}

}  // namespace az::frontend
