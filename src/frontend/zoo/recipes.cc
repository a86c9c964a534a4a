// The recipes the models' own repositories deploy (zoo.h: DeployedRecipeOf),
// each with where it is written. Facts only, read from the repositories'
// READMEs and launch scripts (reference/models.md §4 records the same facts
// at its snapshots):
//
//   Wan 2.1 / 2.2 on GPUs  Wan-Video/Wan2.1 generate.py @1fea12c3 (_parse_args
//       --ulysses_size, --ring_size, --dit_fsdp; generate(): asserts
//       ulysses_size * ring_size == world_size and num_heads % ulysses_size
//       == 0; xfuser's sequence degree is the world size, no CFG degree);
//       README.md @18368dfc "Multi-GPU inference using FSDP + xDiT USP": "set
//       --ulysses_size $GPU_NUMS" with the heads divisible, Ring otherwise,
//       "Of course, you can also combine", and the command `torchrun
//       --nproc_per_node=8 generate.py --task t2v-14B ... --dit_fsdp --t5_fsdp
//       --ulysses_size 8`; Wan-Video/Wan2.1 issue #109 (maintainer): one
//       machine ulysses_size = GPUs, several ulysses_size = GPUs per machine
//       and ring_size = machines, ulysses_size dividing num_heads. Rule:
//       Ulysses over the chips when the heads divide by their count (the
//       README's command); else, on several machines whose GPU count divides
//       the heads, Ulysses over each machine and Ring over the machines
//       (issue #109); else Ring over the chips (the README's advice for the
//       1.3B's 12 heads on 8 GPUs, as the published 8-GPU runs of
//       data/measurements/dit_multi_gpu_latency.csv say: ring8).
//       Wan-Video/Wan2.2 README.md @42bf4cfa: the same flags ("FSDP +
//       DeepSpeed Ulysses"), A14B with --dit_fsdp --t5_fsdp --ulysses_size
//       8, TI2V-5B with --ulysses_size and offload, no --dit_fsdp.
//   HunyuanVideo on GPUs   Tencent-Hunyuan/HunyuanVideo README.md @fa14b001,
//       "Parallel Inference on Multiple GPUs by xDiT": `torchrun
//       --nproc_per_node=8 sample_video.py ... --ulysses-degree 8
//       --ring-degree 1`, and its table of valid ulysses x ring per size;
//       hyvideo/inference.py asserts world_size == ulysses * ring. Ulysses
//       must divide the 24 heads (the table runs 5 GPUs as ring 5): the same
//       rule as Wan's, no FSDP.
//   Step-Video-T2V on GPUs stepfun-ai/Step-Video-T2V README.md, "Multi-GPU
//       Parallel Deployment": `parallel=4 # or parallel=8`, tp_degree=2,
//       ulysses_degree=2, "make sure tp_degree x ulysses_degree = parallel",
//       `torchrun --nproc_per_node $parallel run_parallel.py --ulysses_degree
//       $ulysses_degree --tensor_parallel_degree $tp_degree`. Rule: TP 2,
//       Ulysses over the rest.
//   Wan T2V on TPUs        AI-Hypercomputer/maxdiffusion
//       src/maxdiffusion/configs/base_wan_14b.yml @101335d (base_wan_1_3b.yml
//       and base_wan_27b.yml have the same mesh): attention 'flash',
//       ici_data_parallelism 1, ici_fsdp_parallelism -1 (every chip),
//       ici_tensor_parallelism 1, logical rules activation_length -> fsdp and
//       embed -> fsdp: the sequence over every chip with K and V gathered
//       (Combo::context) and the weights' embed dimension over the same
//       chips (FSDP). The later mesh (reference/models.md §4.4, @7cfb8801:
//       ici_context_parallelism -1, activation_length and embed -> context)
//       is the same layout. CFG runs as one batch-2 forward on `data` (1).
//   Wan 2.1 T2V-14B training on TPUs  AI-Hypercomputer/maxdiffusion README.md
//       @f5f212f2 ("Wan 2.1 training", 2025-10-21): on v5p-8 (4 chips)
//       `train_wan.py configs/base_wan_14b.yml attention='flash'
//       remat_policy='HIDDEN_STATE_WITH_OFFLOAD' per_device_batch_size=0.25
//       ici_data_parallelism=1 ici_fsdp_parallelism=4
//       ici_tensor_parallelism=1` at 720x1280, 81 frames (global batch 1:
//       "0.25 * 4 (devices) = effective global batch size = 1"), and on
//       v5p-256 (128 chips) the same with ici_data_parallelism=32; "the
//       ici_fsdp_parallelism axis is used for sequence parallelism"; its
//       configs/base_wan_14b.yml of that commit maps batch -> data,
//       activation_length -> fsdp and embed -> fsdp, with attention flash
//       (K and V gathered). Rule: the fsdp axis of 4 chips carries the
//       sequence and the weights (context=4, the weights over it), the data
//       axis the rest of the chips and the batch, remat offload (the
//       planner's offload is that policy, pir/grad/backward.h). The README
//       trains at per-device batch 0.25 (one sample per data replica);
//       another batch the data axis divides runs the same mesh.
//
// Every other family: none published (CogVideoX, Mochi and LTX-Video deploy
// through xDiT or diffusers, whose grid is the expert baseline; Open-Sora's
// ColossalAI sequence-parallel plugin is not modelled).
#include <cstdio>

#include "frontend/zoo/family.h"

namespace az::zoo {

namespace {

// Ulysses over the chips when `heads` divide by their count; else Ulysses
// over each machine and Ring over the machines when the heads divide by a
// machine's chips; else Ring over the chips (ulysses * ring == chips, heads %
// ulysses == 0).
DeployedRecipe UlyssesElseRing(int64_t heads, const RecipeChips& on) {
  DeployedRecipe r;
  if (heads % on.chips == 0) {
    r.ulysses = on.chips;
  } else if (on.per_node > 1 && on.per_node < on.chips && on.chips % on.per_node == 0 && heads % on.per_node == 0) {
    r.ulysses = on.per_node;
    r.ring = on.chips / on.per_node;
  } else {
    r.ring = on.chips;
  }
  return r;
}

Status NoTpuRecipe(const ModelConfig& config) {
  return NotFound("none published for TPUs: MaxDiffusion, the JAX code that deploys DiTs on TPUs, has no config for " +
                  config.model);
}

}  // namespace

StatusOr<DeployedRecipe> DitFamily::Recipe(const ModelConfig& config, const RecipeChips&) const {
  return NotFound("none published: " + config.model +
                  "'s repository gives no multi-chip launch recipe of its own (xDiT's grid is the expert baseline)");
}

StatusOr<DeployedRecipe> WanRecipe(const ModelConfig& config, int64_t heads, const RecipeChips& on, bool dit_fsdp,
                                   const char* maxdiffusion_config) {
  if (on.tpu) {
    if (!maxdiffusion_config) return NoTpuRecipe(config);
    DeployedRecipe r;
    r.context = on.chips;
    r.fsdp = on.chips > 1;
    r.command = "ici_data_parallelism=1 ici_fsdp_parallelism=" + std::to_string(on.chips) +
                " ici_tensor_parallelism=1 attention=flash";
    r.source = std::string("maxdiffusion ") + maxdiffusion_config +
               " @101335d defaults: the sequence and the weights' embed dimension over every chip, flash attention";
    return r;
  }
  DeployedRecipe r = UlyssesElseRing(heads, on);
  r.fsdp = dit_fsdp && on.chips > 1;
  if (r.ulysses > 1) r.command = "--ulysses_size " + std::to_string(r.ulysses);
  if (r.ring > 1) r.command += std::string(r.command.empty() ? "" : " ") + "--ring_size " + std::to_string(r.ring);
  if (r.fsdp) r.command += " --dit_fsdp";
  if (r.command.empty()) r.command = "no parallel flags (one GPU)";
  r.source = "Wan generate.py @1fea12c3 (ulysses_size x ring_size = world size, heads % ulysses_size = 0), README "
             "@18368dfc (--ulysses_size $GPU_NUMS, Ring where the " +
             std::to_string(heads) + " heads do not divide) and issue #109 (Ulysses per machine, Ring over machines)";
  return r;
}

StatusOr<DeployedRecipe> DitFamily::TrainRecipe(const ModelConfig& config, const RecipeChips&, int64_t) const {
  return NotFound("none published: " + config.model + "'s deployment publishes no multi-chip training recipe");
}

StatusOr<DeployedRecipe> WanTrainRecipe(const ModelConfig& config, const RecipeChips& on, int64_t micro_batch) {
  if (!on.tpu) {
    return NotFound("none published for GPUs: " + config.model +
                    "'s training recipe is MaxDiffusion's, on TPUs (its README: v5p-8 and v5p-256)");
  }
  // The README's fsdp axis: 4 chips (v5p-8 and v5p-256 alike).
  constexpr int64_t kSequenceChips = 4;
  if (on.chips % kSequenceChips != 0) {
    return FailedPrecondition("MaxDiffusion's Wan training README runs ici_fsdp_parallelism=4 with the data axis "
                              "over the other chips; " +
                              std::to_string(on.chips) + " chips do not divide by 4");
  }
  DeployedRecipe r;
  r.dp = on.chips / kSequenceChips;
  r.context = kSequenceChips;
  r.fsdp = true;
  r.remat = pir::RematPolicy::kOffload;
  if (micro_batch % r.dp != 0) {
    return FailedPrecondition("MaxDiffusion's Wan training README splits the batch over ici_data_parallelism=" +
                              std::to_string(r.dp) + "; a batch of " + std::to_string(micro_batch) +
                              " samples does not divide over it");
  }
  char per_device[32];
  std::snprintf(per_device, sizeof per_device, "%g", static_cast<double>(micro_batch) / static_cast<double>(on.chips));
  r.command = "ici_data_parallelism=" + std::to_string(r.dp) +
              " ici_fsdp_parallelism=4 ici_tensor_parallelism=1 attention=flash "
              "remat_policy=HIDDEN_STATE_WITH_OFFLOAD per_device_batch_size=" +
              per_device;
  r.source = "maxdiffusion README @f5f212f2, Wan 2.1 training (v5p-8: ici_fsdp_parallelism=4, per_device_batch_size "
             "0.25; v5p-256: ici_data_parallelism=32), base_wan_14b.yml @f5f212f2 (activation_length and embed -> "
             "fsdp)";
  return r;
}

StatusOr<DeployedRecipe> HunyuanVideoRecipe(const ModelConfig& config, int64_t heads, const RecipeChips& on) {
  if (on.tpu) return NoTpuRecipe(config);
  DeployedRecipe r = UlyssesElseRing(heads, on);
  r.command = "--ulysses-degree " + std::to_string(r.ulysses) + " --ring-degree " + std::to_string(r.ring);
  r.source = "HunyuanVideo README @fa14b001 (xDiT parallel inference: --ulysses-degree 8 --ring-degree 1 on 8 GPUs; "
             "ulysses x ring = world size, the " +
             std::to_string(heads) + " heads divisible by ulysses)";
  return r;
}

StatusOr<DeployedRecipe> StepVideoRecipe(const ModelConfig& config, int64_t heads, const RecipeChips& on) {
  if (on.tpu) return NoTpuRecipe(config);
  const int64_t chips = on.chips;
  if (chips % 2 != 0 || heads % chips != 0) {
    return FailedPrecondition("Step-Video's README runs tp_degree=2 x ulysses_degree = GPUs (4 or 8), with the " +
                              std::to_string(heads) + " heads split over both; " + std::to_string(chips) +
                              " chips do not divide that way");
  }
  DeployedRecipe r;
  r.tp = 2;
  r.ulysses = chips / 2;
  r.command = "--ulysses_degree " + std::to_string(r.ulysses) + " --tensor_parallel_degree 2";
  r.source = "Step-Video-T2V README, Multi-GPU Parallel Deployment: tp_degree=2, tp_degree x ulysses_degree = GPUs";
  return r;
}

StatusOr<DeployedRecipe> DeployedRecipeOf(const ModelConfig& config, const RecipeChips& on) {
  if (on.chips < 1 || on.per_node < 1) {
    return InvalidArgument("a deployed recipe needs at least one chip per machine, got " + std::to_string(on.chips) +
                           " chips, " + std::to_string(on.per_node) + " per machine");
  }
  return FamilyOf(config.model).Recipe(config, on);
}

StatusOr<DeployedRecipe> DeployedTrainRecipeOf(const ModelConfig& config, const RecipeChips& on, int64_t micro_batch) {
  if (on.chips < 1 || micro_batch < 1) {
    return InvalidArgument("a deployed training recipe needs at least one chip and one sample, got " +
                           std::to_string(on.chips) + " chips, " + std::to_string(micro_batch) + " samples");
  }
  return FamilyOf(config.model).TrainRecipe(config, on, micro_batch);
}

}  // namespace az::zoo
