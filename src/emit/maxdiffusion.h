// What MaxDiffusion (AI-Hypercomputer/maxdiffusion, the JAX code Wan runs with
// on TPUs) accepts for a TPU inference plan: the config overrides and the
// command line of src/maxdiffusion/generate_wan.py.
//
// MaxDiffusion's vocabulary (reference/models.md §4.4; its configs
// src/maxdiffusion/configs/base_wan_*.yml and the README's generate_wan.py
// command): one mesh of axes (data, fsdp, context, tensor) sized by
// ici_{data,fsdp,context,tensor}_parallelism (dcn_* across slices); CFG runs
// as one batch-2 forward over `data`; the sequence is split over `context`
// with the attention kernel named by `attention` (flash: K and V gathered;
// ring; ulysses; ulysses_ring with ulysses_shards = the Ulysses degree, the
// context axis reshaped to (ring, ulysses), Ulysses innermost); heads and MLP
// over `tensor`; the weights' embed dimension over context x fsdp. A plan
// with Ulysses head chunks (search/combos.h Combo::ulysses_chunks) sets
// ulysses_attention_chunks (attention ulysses or ulysses_ring; MaxDiffusion
// cuts the same head ranges, compile/spmd/spmd_compiler.h UlyssesHeadChunks)
// and, in `env`, the XLA flags its config names for the overlap
// (LIBTPU_INIT_ARGS: --xla_tpu_enable_async_all_to_all=true
// --xla_tpu_overlap_compute_collective_tc=true).
//
// The plan's degrees map as: data = dp x cfg, context = ring x ulysses x
// context, tensor = tp, fsdp = 1. What MaxDiffusion would run differently from
// what was priced is said in `notes` (its own device order instead of a
// searched placement, weights sharded over context whatever the plan's FSDP,
// CFG as a batch-2 forward where the plan priced two passes). A configuration
// it cannot express (another model, a sharding of seeds, a data axis the
// batch does not fill) gets `expressible` false with the reason.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "search/plan.h"

namespace az::emit {

struct MaxDiffusionLaunch {
  bool expressible = false;
  std::string reason;       // why not (expressible false)
  std::string config_file;  // "src/maxdiffusion/configs/base_wan_14b.yml"
  // key -> value, in the order written (values as generate_wan.py parses them).
  std::vector<std::pair<std::string, std::string>> overrides;
  std::vector<std::string> notes;  // what MaxDiffusion runs differently from what was priced
  // Environment the command needs ("LIBTPU_INIT_ARGS", "--xla_..."), in order.
  std::vector<std::pair<std::string, std::string>> env;
};

MaxDiffusionLaunch PlanMaxDiffusion(const search::Plan& plan, const search::Configuration& config);

// The command line: python src/maxdiffusion/generate_wan.py CONFIG key=value...
std::string MaxDiffusionCommand(const MaxDiffusionLaunch& launch);

// maxdiffusion.yml: the overrides as YAML (on top of the base config), headed
// by comments that give the command, the configuration and the notes. Of the
// plan's best when MaxDiffusion expresses it, else of the expert baseline (an
// xDiT degree set, which it always expresses on a TPU plan) with the reason
// the best is not; only comments when neither runs.
std::string MaxDiffusionYaml(const search::Plan& plan);

}  // namespace az::emit
