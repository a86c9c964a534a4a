// ChooseStack (planner.h): the software stack a plan is priced with.
#include "price/stack.h"
#include "search/planner.h"

namespace az::search {

StatusOr<StackChoice> ChooseStack(const workload::Workload& config, const hw::ChipSpec& chip, bool train,
                                  const std::optional<price::SoftwareStack>& pinned) {
  const price::AttentionLibrary reference = price::ReferenceAttentionLibrary(chip);
  if (pinned) {
    const std::string name = price::StackName(*pinned);
    if (train && pinned->attention != reference) {
      return InvalidArgument("--stack " + name + ": the sourced library ratios are forward-pass figures; a training "
                             "step on " + chip.name + " is priced with " +
                             std::string(price::AttentionLibraryName(reference)) + " only");
    }
    auto speedup = price::AttentionSpeedup(chip, pinned->attention);
    if (!speedup.ok()) return InvalidArgument("--stack " + name + ": " + speedup.status().message());
    return StackChoice{*pinned, "--stack; " + speedup->source};
  }
  if (chip.family == hw::ChipFamily::kTpu) {
    return StackChoice{{price::AttentionLibrary::kJaxFlash, price::ExecutionMode::kCompiled},
                       "TPU: MaxDiffusion's JAX flash kernel, the library the TPU calibration describes"};
  }
  const workload::DeployedAttention deployed = config.DeployedAttentionLibrary();
  const std::string_view wanted = price::HopperGpu(chip) ? deployed.hopper : deployed.gpu;
  AZ_ASSIGN_OR_RETURN(price::SoftwareStack stack, price::ParseSoftwareStack(wanted, "deployed attention library"));
  if (stack.attention == reference) return StackChoice{stack, std::string(deployed.source)};
  const std::string fallback = "; priced with " + std::string(price::AttentionLibraryName(reference));
  if (train) {
    return StackChoice{{reference, price::ExecutionMode::kEager},
                       std::string(deployed.source) + ", but the sourced ratios are forward-pass figures" + fallback};
  }
  auto speedup = price::AttentionSpeedup(chip, stack.attention);
  if (!speedup.ok()) {
    return StackChoice{{reference, price::ExecutionMode::kEager},
                       std::string(deployed.source) + ", but " + speedup.status().message() + fallback};
  }
  return StackChoice{stack, std::string(deployed.source) + "; " + speedup->source};
}

}  // namespace az::search
