#include "search/targets.h"

#include <map>

namespace az::search {

std::string_view TargetName(Target target) {
  switch (target) {
    case Target::kAny: return "any";
    case Target::kJax: return "jax";
    case Target::kMaxDiffusion: return "maxdiffusion";
    case Target::kXdit: return "xdit";
    case Target::kAnyTpu: return "any";
  }
  return "any";
}

Target ResolveTarget(Target target, bool tpu) { return target == Target::kAny && tpu ? Target::kAnyTpu : target; }

StatusOr<Target> ParseTarget(std::string_view name) {
  for (Target t : {Target::kAny, Target::kJax, Target::kMaxDiffusion, Target::kXdit}) {
    if (TargetName(t) == name) return t;
  }
  return InvalidArgument("unknown target '" + std::string(name) + "' (any, jax, maxdiffusion, xdit)");
}

std::optional<std::string> MaxDiffusionConfigFile(std::string_view model) {
  // Wan 2.2 A14B is "27b" there (its two 14B noise experts).
  static const std::map<std::string, std::string, std::less<>> files = {
      {"wan2.1-t2v-1.3b", "src/maxdiffusion/configs/base_wan_1_3b.yml"},
      {"wan2.1-t2v-14b", "src/maxdiffusion/configs/base_wan_14b.yml"},
      {"wan2.2-t2v-a14b", "src/maxdiffusion/configs/base_wan_27b.yml"},
  };
  auto it = files.find(model);
  if (it == files.end()) return std::nullopt;
  return it->second;
}

Status TargetRuns(Target target, const workload::Workload& config, bool tpu) {
  switch (target) {
    case Target::kAny:
    case Target::kAnyTpu:
    case Target::kJax: return Status::Ok();
    case Target::kMaxDiffusion:
      if (!tpu) return InvalidArgument("--target maxdiffusion plans TPU slices (MaxDiffusion's Wan configs)");
      if (!MaxDiffusionConfigFile(config.model)) {
        return InvalidArgument("--target maxdiffusion: MaxDiffusion has no text-to-video config for " + config.model +
                               " (it runs Wan 2.1 T2V 1.3B and 14B and Wan 2.2 T2V A14B)");
      }
      return Status::Ok();
    case Target::kXdit:
      if (tpu) return InvalidArgument("--target xdit plans GPUs (xDiT and the models' repositories are PyTorch/CUDA)");
      if (config.imported()) return InvalidArgument("--target xdit plans zoo models (xDiT runs their deployed code)");
      return Status::Ok();
  }
  return Status::Ok();
}

Status TargetAdmits(Target target, const workload::Workload& config, const Combo& combo) {
  // A deeper FSDP prefetch (compile/spmd/schedule.h) is a runtime setting
  // only plan_torch.py applies (FSDP2's set_modules_to_forward_prefetch).
  // XLA's latency-hiding scheduler keeps one all-gather in flight
  // (SchedulerConfig::all_gather_overlap_limit, 1 on GPUs and TPUs) and no
  // flag raises it; xDiT's command line has no prefetch setting.
  if (combo.prefetch > 1 && target == Target::kAnyTpu) {
    return InvalidArgument(combo.ToString() + ": an FSDP prefetch depth above 1 is set through plan_torch.py " +
                           "(FSDP2), and a TPU slice runs XLA, which keeps one all-gather in flight");
  }
  if (combo.prefetch > 1 && target != Target::kAny) {
    return InvalidArgument(combo.ToString() + ": an FSDP prefetch depth above 1 is set through plan_torch.py " +
                           "(FSDP2), which --target " + std::string(TargetName(target)) + " does not run");
  }
  switch (target) {
    case Target::kAny: return Status::Ok();
    case Target::kAnyTpu: {
      // What plan_jax.py or maxdiffusion.yml runs as priced.
      const Status jax = TargetAdmits(Target::kJax, config, combo);
      if (jax.ok()) return jax;
      const Status maxdiffusion = TargetAdmits(Target::kMaxDiffusion, config, combo);
      if (maxdiffusion.ok()) return maxdiffusion;
      return InvalidArgument("no TPU runtime runs " + combo.ToString() + " as priced: under JAX, " + jax.message() +
                             "; under MaxDiffusion, " + maxdiffusion.message());
    }
    case Target::kJax:
      if (combo.pipefusion > 1) {
        return InvalidArgument("PipeFusion (" + combo.ToString() + ") is xDiT's patch pipeline; JAX has none");
      }
      if (combo.ring > 1) {
        return InvalidArgument("JAX lowers a sequence-sharded K and V as an all-gather, not a ring: " +
                               combo.ToString() + " is priced as context parallelism instead");
      }
      if (combo.ulysses_chunks > 1) {
        return InvalidArgument("plan_jax.py gives shardings, and GSPMD lowers each Ulysses all-to-all whole: " +
                               combo.ToString() + "'s head chunks run under MaxDiffusion (--target maxdiffusion: "
                               "ulysses_attention_chunks)");
      }
      return Status::Ok();
    case Target::kMaxDiffusion: {
      if (combo.pipefusion > 1) {
        return InvalidArgument("PipeFusion (" + combo.ToString() + ") is xDiT's patch pipeline; MaxDiffusion has none");
      }
      // MaxDiffusion runs CFG as one batch-2 forward over its data axis.
      const int64_t rows = config.batch * (config.cfg == workload::CfgMode::kNone ? 1 : 2);
      const int64_t data = combo.dp * combo.cfg;
      if (rows % data != 0) {
        return InvalidArgument("MaxDiffusion's data axis of " + std::to_string(data) + " does not divide the " +
                               std::to_string(rows) + " rows of its forward");
      }
      if (combo.accumulate > 1) {
        // maxdiffusion/trainers/wan_trainer.py: one optimizer update per
        // micro-batch; no config key accumulates gradients.
        return InvalidArgument(combo.ToString() + ": MaxDiffusion's Wan trainer has no gradient accumulation (one " +
                               "optimizer update per batch); accumulate=" + std::to_string(combo.accumulate) +
                               " runs under --target jax or plan_torch.py");
      }
      if (combo.remat) return InvalidArgument("MaxDiffusion training plans are not written yet");
      if (combo.IsHybrid()) {
        return InvalidArgument("MaxDiffusion's config names one sharding for the whole model: " + combo.ToString() +
                               " splits some block parts by tp (per-part strategies run under --target jax)");
      }
      return Status::Ok();
    }
    case Target::kXdit:
      if (combo.ulysses_chunks > 1) {
        return InvalidArgument("xDiT's Ulysses runs one all-to-all per tensor, no head chunks: " + combo.ToString() +
                               " is MaxDiffusion's ulysses_attention_chunks");
      }
      if (!RunsAsExpert(config, combo)) {
        return InvalidArgument(combo.ToString() + " is not a configuration " + config.model +
                               "'s deployed code (xDiT or its repository) runs");
      }
      return Status::Ok();
  }
  return Status::Ok();
}

bool TargetAdmitsSeeds(Target target) {
  return target == Target::kAny || target == Target::kAnyTpu || target == Target::kJax;
}

}  // namespace az::search
