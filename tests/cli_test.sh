#!/usr/bin/env bash
# End-to-end tests of the aoizora CLI: outputs, exit codes and error messages.
#   tests/cli_test.sh path/to/aoizora repo_root [1|2|3]
# Part 1: the zoo, inspect, PIR files, topologies, collectives, compile,
# price, the planner and the JAX loop. Part 2: imported programs, hostile
# input. Part 3: plan determinism across --threads (left out of the
# sanitizer run: the Makefile's SANITIZE_SKIP says why).
# Without a part, all three; CTest runs them as cli_e2e_1, _2 and _3.
set -uo pipefail
bin=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# run NAME EXPECTED_EXIT CMD... : runs CMD, keeps stdout/stderr in $tmp/NAME.{out,err}.
run() {
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local got=$?
  if [[ $got -ne $want ]]; then
    echo "FAIL $name: exit $got, expected $want"; cat "$tmp/$name.err"; failed=$((failed + 1)); return 1
  fi
  return 0
}
# expect NAME STREAM PATTERN : the stream (out|err) of NAME contains the fixed string.
expect() {
  if grep -qF -- "$3" "$tmp/$1.$2"; then passed=$((passed + 1)); else
    echo "FAIL $1: $2 lacks '$3'"; sed 's/^/  | /' "$tmp/$1.$2" | head -20; failed=$((failed + 1)); fi
}
part=${3:-all}
if [[ $part != 2 ]]; then

# The zoo with exact parameter counts (reference/models.md §1.3, §2.3).
if run models 0 "$bin" models; then
  expect models out "wan2.1-t2v-1.3b       1,418,996,800"
  expect models out "wan2.1-t2v-14b       14,288,491,584"
  expect models out "wan2.1-i2v-14b       16,394,878,784"
  expect models out "hunyuanvideo-13b     12,821,012,544"
  # Wan 2.2 (§3 notes): one A14B expert's count; TI2V-5B.
  expect models out "wan2.2-t2v-a14b      14,288,491,584"
  expect models out "wan2.2-i2v-a14b      14,288,901,184"
  expect models out "wan2.2-ti2v-5b        4,999,787,712"
  # CogVideoX (§3): counts derived from the diffusers configs (cogvideox_test.cc).
  expect models out "cogvideox-2b          1,693,783,872"
  expect models out "cogvideox-5b          5,570,283,072"
  expect models out "cogvideox1.5-5b       5,570,676,352"
  # Step-Video-T2V and LTX-Video (§3): counts derived in step_video_test.cc, ltx_video_test.cc.
  expect models out "step-video-t2v       29,342,478,400"
  expect models out "ltx-video-2b          1,923,385,472"
  expect models out "ltx-video-13b        13,042,569,344"
  # Mochi 1 and Open-Sora 2.0 (§3): counts derived in mochi_test.cc, open_sora_test.cc.
  expect models out "mochi-1              10,027,677,744"
  expect models out "open-sora-2.0        11,891,390,528"
fi

# inspect --json carries the issue's keys with the reference values.
if run inspect_json 0 "$bin" inspect --model wan2.1-t2v-14b --json; then
  expect inspect_json out '"model": "wan2.1-t2v-14b"'
  expect inspect_json out '"params": 14288491584'
  expect inspect_json out '"video_tokens": 75600'
  expect inspect_json out '"text_tokens": 512'
  expect inspect_json out '"param_bytes": 28576983168'
  for key in flops_per_forward flops_per_step; do expect inspect_json out "\"$key\": "; done
fi
# HunyuanVideo 720p, 129 frames: 33 x 45 x 80 = 118,800 video tokens.
if run inspect_hy 0 "$bin" inspect --model hunyuanvideo-13b --json; then
  expect inspect_hy out '"video_tokens": 118800'
  expect inspect_hy out '"text_tokens": 256'
fi
# 480p: 21 x 30 x 52 = 32,760 tokens; two-pass CFG doubles the step.
if run inspect_480 0 "$bin" inspect --model wan2.1-t2v-1.3b --width 832 --height 480 --frames 81 --cfg two-pass; then
  expect inspect_480 out "tokens           video 32,760 (21x30x52 patches), text 512"
  expect inspect_480 out "cfg              two-pass (2 forwards of batch 1 per step)"
fi
# Wan 2.2 A14B: two experts of 14,288,491,584 parameters (2 x = 28,576,983,168),
# the high-noise one for 26 of the 40 steps (shift 12, boundary 0.875).
if run inspect_a14b 0 "$bin" inspect --model wan2.2-t2v-a14b; then
  expect inspect_a14b out "parameters       14,288,491,584 (14.288 B) per expert"
  expect inspect_a14b out "2 experts: 28,576,983,168"
  expect inspect_a14b out "experts          one active per step: expert 1 runs steps 1-26, expert 2 steps 27-40"
fi
if run inspect_a14b_json 0 "$bin" inspect --model wan2.2-i2v-a14b --json; then
  expect inspect_a14b_json out '"experts": 2'
  expect inspect_a14b_json out '"expert_switch_step": 15'
  expect inspect_a14b_json out '"params_all_experts": 28577802368'
fi
# TI2V-5B: VAE 4x16x16, 1280x704, 121 frames -> 31 x 22 x 40 = 27,280 tokens.
if run inspect_ti2v 0 "$bin" inspect --model wan2.2-ti2v-5b; then
  expect inspect_ti2v out "tokens           video 27,280 (31x22x40 patches), text 512"
fi
run ti2v_720 1 "$bin" inspect --model wan2.2-ti2v-5b --height 720 && expect ti2v_720 err "multiples of 32"
# The non-DiT stages: umT5-XXL's 5,680,910,336 parameters (zoo/stages_test.cc
# derives them), and an unknown stage is a user error naming the model's stages.
if run inspect_stage 0 "$bin" inspect --model wan2.1-t2v-14b --stage umt5-xxl; then
  expect inspect_stage out "parameters       5,680,910,336"
fi
run inspect_stage_bad 1 "$bin" inspect --model wan2.1-t2v-14b --stage vae && expect inspect_stage_bad err "its stages: umt5-xxl, wan-vae-decoder"
# HunyuanVideo's tiled VAE decoder (84 tiles at 720p) and the Wan I2V encoder:
# 146,136,339 and 53,596,928 parameters (zoo/vae_test.cc derives them).
if run inspect_hv_vae 0 "$bin" inspect --model hunyuanvideo-13b --stage hunyuan-vae-decoder; then
  expect inspect_hv_vae out "parameters       146,136,339"
fi
if run inspect_wan_enc 0 "$bin" inspect --model wan2.1-i2v-14b --stage wan-vae-encoder; then
  expect inspect_wan_enc out "parameters       53,596,928"
fi
# CogVideoX-5B: 49 frames -> 13 x 30 x 45 = 17,550 video tokens + 226 text; CFG as one batch-2 forward.
if run inspect_cog5b 0 "$bin" inspect --model cogvideox-5b; then
  expect inspect_cog5b out "tokens           video 17,550 (13x30x45 patches), text 226"
  expect inspect_cog5b out "cfg              batch2 (1 forward of batch 2 per step)"
fi
# CogVideoX-2B's 30 heads: no Ulysses degree of 4 or 8.
run cog2b_ulysses8 1 "$bin" plan --model cogvideox-2b --topology l40:8 --template ulysses=8 --no-alpa -q &&
  expect cog2b_ulysses8 err "a Ulysses degree must divide the 30 attention heads of cogvideox-2b"
# xDiT splits CogVideoX's 60 latent rows (480p) in 2-row patch bands per rank: sp must divide 30, so
# on 8 GPUs no xDiT combination runs (sp 8, or 4 with cfg 2); the plan says so and pads its own split.
if run cog5b_no_expert 0 "$bin" plan --model cogvideox-5b --topology l40:8 --template ring=4,cfg=2 --no-alpa -q \
    --out "$tmp/cog5b_plan"; then
  expect cog5b_no_expert out "expert    no plan: xDiT splits every CogVideoX frame's latent rows"
  expect cog5b_no_expert out "at most 6 of the 8 chips (e.g. ring=3,cfg=2"
  grep -qF "so it would refuse to run" "$tmp/cog5b_plan/plan_torch.py" && passed=$((passed + 1)) ||
    { echo "FAIL cog5b_no_expert: plan_torch.py lacks the refusal"; failed=$((failed + 1)); }
fi
# On 6 GPUs cfg=2,ring=3 runs: the xDiT command is cogvideox_example.py.
if run cog5b_six 0 "$bin" plan --model cogvideox-5b --topology l40:6 --template ring=3,cfg=2 --no-alpa -q \
    --out "$tmp/cog5b_six"; then
  grep -qF "examples/cogvideox_example.py --model THUDM/CogVideoX-5b --height 480 --width 720 --num_frames 49" \
    "$tmp/cog5b_six/plan_torch.py" && passed=$((passed + 1)) ||
    { echo "FAIL cog5b_six: no xDiT command"; failed=$((failed + 1)); }
fi
# Step-Video: 204 frames -> 12 x 3 = 36 latent frames, 544x992 / 16 -> 36 x 34 x 62 = 75,888 tokens
# (patch 1); 77 CLIP + 320 Step-LLM text rows.
if run inspect_step 0 "$bin" inspect --model step-video-t2v; then
  expect inspect_step out "tokens           video 75,888 (36x34x62 patches), text 397"
  expect inspect_step out "parameters       29,342,478,400"
  expect inspect_step out "cfg              batch2 (1 forward of batch 2 per step)"
fi
run step_frames 1 "$bin" inspect --model step-video-t2v --frames 205 && expect step_frames err "frames must be 17n"
# LTX-Video 2B: 161 frames -> 21 latent frames, 704x512 / 32 -> 21 x 16 x 22 = 7,392 tokens; 128 T5 rows.
if run inspect_ltx 0 "$bin" inspect --model ltx-video-2b; then
  expect inspect_ltx out "tokens           video 7,392 (21x16x22 patches), text 128"
  expect inspect_ltx out "parameters       1,923,385,472"
fi
if run inspect_ltx13 0 "$bin" inspect --model ltx-video-13b --json; then
  expect inspect_ltx13 out '"video_tokens": 13376'
  expect inspect_ltx13 out '"params": 13042569344'
fi
run ltx_height 1 "$bin" inspect --model ltx-video-2b --height 720 && expect ltx_height err "multiples of 32"
run ltx_frames 1 "$bin" inspect --model ltx-video-2b --frames 45 && expect ltx_frames err "frames must be 8n+1"
# Mochi 1: VAE 6x in time, 163 frames -> 28 latent frames, 28 x 30 x 53 = 44,520 tokens + 256 text.
if run inspect_mochi 0 "$bin" inspect --model mochi-1; then
  expect inspect_mochi out "tokens           video 44,520 (28x30x53 patches), text 256"
  expect inspect_mochi out "parameters       10,027,677,744"
  expect inspect_mochi out "cfg              batch2 (1 forward of batch 2 per step)"
fi
run mochi_frames 1 "$bin" inspect --model mochi-1 --frames 161 && expect mochi_frames err "frames must be 6n+1"
# mochi-xdit's U3xR2 and U3+CFG on 6 GPUs; 24 heads: no Ulysses 5.
run mochi_u3r2 0 "$bin" plan --model mochi-1 --topology h100:6 --template ulysses=3,ring=2 --no-alpa -q &&
  expect mochi_u3r2 out "ring=2,ulysses=3"
run mochi_u3cfg 0 "$bin" plan --model mochi-1 --topology h100:6 --template ulysses=3,cfg=2 --no-alpa -q &&
  expect mochi_u3cfg out "cfg=2,ulysses=3"
run mochi_ulysses5 1 "$bin" plan --model mochi-1 --topology h100:5 --template ulysses=5 --no-alpa -q &&
  expect mochi_ulysses5 err "a Ulysses degree must divide the 24 attention heads of mochi-1"
# Open-Sora 2.0 at 768px (16:9: 1024x576), 129 frames: 33 x 36 x 64 = 76,032 tokens + 512 T5 rows;
# its 768px deployment is sp 8 with ring attention.
if run inspect_osora 0 "$bin" inspect --model open-sora-2.0 --json; then
  expect inspect_osora out '"video_tokens": 76032'
  expect inspect_osora out '"text_tokens": 512'
  expect inspect_osora out '"params": 11891390528'
fi
run osora_ring8 0 "$bin" plan --model open-sora-2.0 --topology h100:8 --template ring=8 --no-alpa -q &&
  expect osora_ring8 out "ring=8"
# LTX-Video's 32 heads: no Ulysses degree of 6. Step-Video's deployment vocabulary, tp x ulysses (README).
run ltx_ulysses6 1 "$bin" plan --model ltx-video-2b --topology h100:6 --template ulysses=6 --no-alpa -q &&
  expect ltx_ulysses6 err "a Ulysses degree must divide the 32 attention heads of ltx-video-2b"
run step_tp_ulysses 0 "$bin" plan --model step-video-t2v --topology h100:8 --template tp=2,ulysses=4 --no-alpa -q &&
  expect step_tp_ulysses out "aoizora   ulysses=4,tp=2"

# Determinism: the same command twice prints the same bytes.
run det_a 0 "$bin" inspect --model hunyuanvideo-13b --json && run det_b 0 "$bin" inspect --model hunyuanvideo-13b --json
if cmp -s "$tmp/det_a.out" "$tmp/det_b.out"; then passed=$((passed + 1)); else echo "FAIL determinism"; failed=$((failed + 1)); fi

# PIR text out of the CLI reads back in with the same figures.
if run print_pir 0 "$bin" inspect --model wan2.1-t2v-1.3b --print-pir; then
  if run read_pir 0 "$bin" inspect --pir "$tmp/print_pir.out" --json; then
    expect read_pir out '"params": 1418996800'
  fi
fi

# User errors: exit 1 with a clear message; usage errors: exit 2.
run unknown_model 1 "$bin" inspect --model wan3 && expect unknown_model err "unknown model 'wan3'"
run bad_frames 1 "$bin" inspect --model wan2.1-t2v-14b --frames 80 && expect bad_frames err "frames must be 4n+1"
run bad_width 1 "$bin" inspect --model wan2.1-t2v-14b --width 1000 && expect bad_width err "multiples of 16"
run bad_cfg 1 "$bin" inspect --model wan2.1-t2v-14b --cfg parallel && expect bad_cfg err "unknown CFG mode 'parallel'"
run bad_dtype 1 "$bin" inspect --model wan2.1-t2v-14b --dtype int3 && expect bad_dtype err "unknown dtype 'int3'"
run no_model 2 "$bin" inspect && expect no_model err "give --model M, --stablehlo FILE, --onnx FILE or --pir FILE"
run bad_flag 2 "$bin" inspect --model wan2.1-t2v-14b --frobnicate
run no_command 2 "$bin"
run help 0 "$bin" inspect --help && expect help out "--print-pir"
run missing_file 1 "$bin" inspect --pir "$tmp/nope.pir" && expect missing_file err "cannot open"
# A PIR file with a located error: file:line:col, the line, and a caret.
cat >"$tmp/bad.pir" <<'PIR'
graph "bad" {
  input %0 "x" : f32[4]
  %1 = matmull "m" (%0) : f32[4]
  return %1
}
PIR
if run bad_pir 1 "$bin" inspect --pir "$tmp/bad.pir"; then
  expect bad_pir err "bad.pir:3:8: error: unknown op kind 'matmull'"
  expect bad_pir err "       ^"
fi
# A PIR file that parses but fails verification: the verifier names the location.
cat >"$tmp/shape.pir" <<'PIR'
graph "shape" {
  input %0 "x" : f32[4,8]
  %1 = neg "n" (%0) : f32[4,9]
  return %1
}
PIR
if run verify_pir 1 "$bin" inspect --pir "$tmp/shape.pir"; then
  expect verify_pir err "shape.pir:3:3: error: neg result 0 is declared f32[4,9] but the operands give f32[4,8]"
fi

# Topologies.
if run topo_show 0 "$bin" topo show v5e:2x4; then
  expect topo_show out "10 x 45.0 GB/s per direction"
fi
run topo_bad 1 "$bin" topo show v5e:3x3 && expect topo_bad err "not a v5e slice"
run topo_list 0 "$bin" topo list && expect topo_list out "v5p"

# Collectives: the scaling book's example (34 MB over a 4-chip axis without wraparound: 3 x 8.5 MB
# / 4.5e10 = 567 us at the book's link rate; / 0.905, the shipped ICI efficiency derived from the
# book's measured points (docs/calibration.md), 626 us; the book measured 680 us).
if run coll_line 0 "$bin" collective -t v5e:4x8 -k all-gather -b 34MB -g '[8,4]<=[32]' --json; then
  expect coll_line out '"algorithm": "line on x (no wraparound)"'
  expect coll_line out '"bandwidth_s": 0.000626151012891'
  expect coll_line out '"max_link_load_bytes"'
fi
if run coll_explain 0 "$bin" collective -t v5e:2x4 -k all-gather -b 64MB -g '{{0,1,2,3},{4,5,6,7}}' -p 0,2,4,6,1,3,5,7 --explain; then
  expect coll_explain out "no wraparound: the ring closes back through the line"
  expect coll_explain out "link loads"
fi
run coll_perm 1 "$bin" collective -t v5e:2x4 -k all-gather -b 1MB -g '[2,4]<=[8]' -p 0,0,1,2,3,4,5,6 && expect coll_perm err "not a permutation"
run coll_groups 1 "$bin" collective -t v5e:2x4 -k all-gather -b 1MB -g '{{0,1},{2,3}}' && expect coll_groups err "cover 4 of the 8"
run coll_kind 1 "$bin" collective -t v5e:2x4 -k allgather -b 1MB -g '[2,4]<=[8]' && expect coll_kind err "unknown collective kind"
run coll_slice 1 "$bin" collective -t v9x:2x2 -k all-gather -b 1MB -g '[1,4]<=[4]'
run coll_fabric 1 "$bin" collective -t h100:2x8:roce -k all-reduce -b 1MB -g '[1,16]<=[16]' && expect coll_fabric err "unknown fabric 'roce'"
run coll_fail 0 "$bin" collective -t v5e:2x4 --fail-link 0-1 -k all-gather -b 1MB -g '[4,2]<=[8]'

# Calibration on the real sweep (skipped without ../shared/data, as the unit tests do).
data="$root/../shared/data/measurements"
if [[ -d "$data" ]]; then
  if run calib 0 "$bin" calibrate -t h100:8 -m "$data/nccl_allreduce_1x8_h100_sxm.csv" -o "$tmp/cal.json"; then
    expect calib out "median |error| over sizes >= 1 MiB"
    run coll_cal 0 "$bin" collective -t h100:8 -k all-reduce -b 1GiB -g '[1,8]<=[8]' --calibration "$tmp/cal.json" && expect coll_cal out "nvls"
  fi
  # Two nodes over EFA: the multi-node forms fit the sweep (docs/calibration.md: 5.5%).
  run calib_efa 0 "$bin" calibrate -t h100:2x8:efa -m "$data/nccl_allreduce_2x8_h100_efa.csv" && \
    expect calib_efa out "median |error| over sizes >= 1 MiB: 5.5%"
elif [[ "${CI:-}" == "true" ]]; then
  echo "FAIL: ../shared/data is missing under CI"; failed=$((failed + 1))
fi
printf 'bytes,time_us\n1024,12\n2048\n' >"$tmp/bad.csv"
run calib_bad 1 "$bin" calibrate -t h100:8 -m "$tmp/bad.csv" && expect calib_bad err "bad.csv:3: error: expected 2 columns"

# Compilation: Ulysses over 8 on Wan 14B has 4 all-to-alls per self-attention: 40 blocks x 4 = 160.
small=(--width 256 --height 256 --frames 9)
if run compile_json 0 "$bin" compile -m wan2.1-t2v-14b "${small[@]}" --mesh sp=8 -T ulysses=sp --json --evidence "$tmp/ev.json"; then
  expect compile_json out '"kind": "all-to-all",'
  expect compile_json out '"count": 160,'
  for key in flops_per_device peak_memory_bytes collectives; do expect compile_json out "\"$key\""; done
  expect compile_json out "$(grep -o '"hash": "[0-9a-f]*"' "$tmp/ev.json" | sed 's/"hash"/"evidence_hash"/')"
fi
run compile_cir 0 "$bin" compile -m wan2.1-t2v-1.3b "${small[@]}" --mesh r=4 -T ring=r --print-cir && expect compile_cir out "collective-permute-start"
run compile_heads 1 "$bin" compile -m wan2.1-t2v-14b --mesh sp=16 -T ulysses=sp && expect compile_heads err "valid Ulysses degrees: 1, 2, 4, 5, 8, 10, 20, 40"
run compile_mesh 1 "$bin" compile -m wan2.1-t2v-14b --mesh sp=8,sp=2 -T ulysses=sp && expect compile_mesh err "axis 'sp' appears twice"
# MaxDiffusion's context parallelism (templates.h: context=N): K and V all-gathered per
# self-attention, 40 blocks x 2 = 80, plus the output's gather; no ring permutes. Not with ring.
if run compile_context 0 "$bin" compile -m wan2.1-t2v-14b "${small[@]}" --mesh c=4 -T context=c; then
  expect compile_context out "all-gather               81 x"
  grep -q "collective-permute" "$tmp/compile_context.out" && { echo "FAIL compile_context: a permute"; failed=$((failed + 1)); }
fi
run compile_context_ring 1 "$bin" compile -m wan2.1-t2v-14b "${small[@]}" --mesh c=4,r=2 -T context=c,ring=r &&
  expect compile_context_ring err "'context=c' combines with neither ring nor ulysses"
run plan_context 0 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T context=4,fsdp=4 --no-alpa -q &&
  expect plan_context out "aoizora   context=4  context=context,fsdp=context"
run plan_context_degree 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T context=3 -q &&
  expect plan_context_degree err "the degrees of pipefusion, ulysses, ring, context, cfg, tp and dp multiply to 3"
run plan_context_ring 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x4 "${small[@]}" -T context=4,ring=2 -q &&
  expect plan_context_ring err "context combines with neither ring nor ulysses"
# FSDP prefetch depth (compile/spmd/schedule.h, search/prefetch.h): only with fsdp, 1 to 8, and
# only plan_torch.py runs a depth above 1 (no XLA flag sets it); a pinned depth is reported.
run plan_prefetch_no_fsdp 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T ring=4,prefetch=2 -q &&
  expect plan_prefetch_no_fsdp err "prefetch sets how far FSDP's weight gathers run ahead; the combination has no fsdp"
run plan_prefetch_depth 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T ring=4,fsdp=4,prefetch=9 -q &&
  expect plan_prefetch_depth err "the FSDP prefetch depth is a layer count from 1 to 8"
run plan_prefetch_target 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T ring=4,fsdp=4,prefetch=2 \
    --target jax -q &&
  expect plan_prefetch_target err "an FSDP prefetch depth above 1 is set through plan_torch.py"
run plan_prefetch 0 "$bin" plan -m wan2.1-t2v-14b -t h100:4 "${small[@]}" -T ring=4,fsdp=4,prefetch=2 --no-alpa \
    --no-stages -q &&
  expect plan_prefetch out "fsdp prefetch 2"
# A TPU slice runs XLA (targets.h: `any` there is what JAX or MaxDiffusion runs).
run plan_prefetch_tpu 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T ring=4,fsdp=4,prefetch=2 -q &&
  expect plan_prefetch_tpu err "a TPU slice runs XLA, which keeps one all-gather in flight"
run compile_prefetch_bad 2 "$bin" compile -m wan2.1-t2v-14b "${small[@]}" --mesh r=4 -T ring=r,fsdp=r --prefetch 0 &&
  expect compile_prefetch_bad err "--prefetch"
# Per-part hybrids (templates.h: tp scoped to block parts on a sequence axis): the 40 blocks'
# cross-attention and FFN gather the sequence and reduce-scatter it (80 each; the 81st gather
# is the output's), the self-attention keeps Ulysses' 4 all-to-alls (160). Errors name the part.
if run compile_hybrid 0 "$bin" compile -m wan2.1-t2v-14b "${small[@]}" --mesh u=4 -T ulysses=u,tp=u@cross_attn+ffn; then
  expect compile_hybrid out "all-gather               81 x"
  expect compile_hybrid out "reduce-scatter           80 x"
  expect compile_hybrid out "all-to-all              160 x"
fi
run compile_hybrid_part 1 "$bin" compile -m wan2.1-t2v-14b "${small[@]}" --mesh u=4 -T ulysses=u,tp=u@fnn &&
  expect compile_hybrid_part err "wan2.1-t2v-14b's blocks have no part 'fnn' (their parts: cross_attn, ffn, self_attn)"
run compile_hybrid_scope 1 "$bin" compile -m wan2.1-t2v-14b "${small[@]}" --mesh u=4 -T ulysses=u@self_attn &&
  expect compile_hybrid_scope err "only tp takes a block part scope"
run plan_hybrid 0 "$bin" plan -m wan2.1-t2v-14b -t h100:4 "${small[@]}" -T ring=4,tp=ring@ffn,fsdp=4 --no-alpa -q &&
  expect plan_hybrid out "aoizora   ring=4  ring=ring,tp=ring@ffn,fsdp=ring"
run plan_hybrid_tpu 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T ring=4,tp=ring@ffn,fsdp=4 -q &&
  expect plan_hybrid_tpu err "no TPU runtime runs ring=4,tp=ring@ffn,fsdp=4 as priced"
# A training step with a per-part hybrid: its parts' backward runs Megatron too (templates.h); the
# JAX plan gives every tensor's spec (the FFN's hidden activation split on the Ulysses axis, the
# batch on dp), the torch plan names the per-part role its runtime refuses.
if run plan_train_hybrid 0 "$bin" plan --train -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 -t h100:8 \
    --no-alpa -T ulysses=4,dp=2,tp=ulysses@cross_attn+ffn,fsdp=8,remat=none --out "$tmp/plan_train_hybrid" -q; then
  expect plan_train_hybrid out "dp=dp,ulysses=ulysses,tp=ulysses@cross_attn+ffn,fsdp=dp+ulysses"
  grep -qF "(result of 'blocks.0.ffn.1')\": (\"dp\", None, \"ulysses\")" "$tmp/plan_train_hybrid/plan_jax.py" \
    && passed=$((passed + 1)) || { echo "FAIL plan_train_hybrid: plan_jax.py lacks the FFN's hidden spec"; failed=$((failed + 1)); }
  grep -qF "AXIS_ROLES = (\"dp\", \"ulysses+tp@cross_attn+ffn\")" "$tmp/plan_train_hybrid/plan_torch.py" \
    && passed=$((passed + 1)) || { echo "FAIL plan_train_hybrid: plan_torch.py lacks the per-part role"; failed=$((failed + 1)); }
  for f in plan_jax.py plan_torch.py; do
    python3 -m py_compile "$tmp/plan_train_hybrid/$f" && passed=$((passed + 1)) \
      || { echo "FAIL plan_train_hybrid: $f"; failed=$((failed + 1)); }
  done
fi
run plan_hybrid_axis 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x2 "${small[@]}" -T ring=4,tp=cfg@ffn -q &&
  expect plan_hybrid_axis err "a per-part tp takes the axis of ulysses, ring or context"
# PipeFusion (src/search/pipefusion.h): stages dividing the blocks, with ulysses, ring and cfg only.
run plan_pipefusion_layers 1 "$bin" plan -m wan2.1-t2v-1.3b -t h100:8 "${small[@]}" -T pipefusion=4,ulysses=2 -q &&
  expect plan_pipefusion_layers err "pipefusion=4 does not divide the 30 block units of wan2.1-t2v-1.3b"
run plan_pipefusion_tp 1 "$bin" plan -m wan2.1-t2v-14b -t v5e:2x4 "${small[@]}" -T pipefusion=2,tp=4 -q &&
  expect plan_pipefusion_tp err "pipefusion combines with ulysses, ring and cfg only"
run plan_pipefusion_model 1 "$bin" plan -m hunyuanvideo-13b -t h100:8 "${small[@]}" -T pipefusion=2,ulysses=4 -q &&
  expect plan_pipefusion_model err "is not built as PipeFusion patches"
# Ulysses head chunks (combos.h: ulysses_chunks): Ulysses needed, at most the head groups (12 / 4 = 3).
run plan_uchunks_none 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x2 "${small[@]}" -T ring=4,ulysses_chunks=2 -q &&
  expect plan_uchunks_none err "the combination has no ulysses degree"
run plan_uchunks_groups 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x2 "${small[@]}" -T ulysses=4,ulysses_chunks=4 -q &&
  expect plan_uchunks_groups err "ulysses_chunks=4 exceeds the 3 head groups (12 heads / ulysses 4)"
run plan_uchunks_xdit 1 "$bin" plan -m wan2.1-t2v-1.3b -t h100:4 "${small[@]}" --target xdit \
  -T ulysses=4,ulysses_chunks=2 -q &&
  expect plan_uchunks_xdit err "xDiT's Ulysses runs one all-to-all per tensor, no head chunks"
# Wan 14B 720p replicated on one v5e chip (16 GB) does not fit; FSDP over 8 does.
run compile_oom 1 "$bin" compile -m wan2.1-t2v-14b --mesh x=1 -T replicated --chip v5e && expect compile_oom out "DOES NOT FIT on v5e"
run compile_fsdp 0 "$bin" compile -m wan2.1-t2v-14b --mesh f=8 -T fsdp=f --chip v5e && expect compile_fsdp out "fits on v5e"

# Compute-model fit to the public DiT latencies (docs/compute-model.md).
if [[ -d "$data" ]]; then
  if run calib_dit 0 "$bin" calibrate --dit "$data/dit_single_gpu_latency.csv" -o "$tmp/compute.json"; then
    expect calib_dit out "median |error| over 13 priced rows"
    expect calib_dit out "not priced: umt5-xxl on the host CPU (--t5_cpu)"
    expect calib_dit out "+ wan-vae-decoder"
    python3 -c "import json; j=json.load(open('$tmp/compute.json')); assert len(j) == 6 and j[0]['chip'] == 'h800'" \
      && passed=$((passed + 1)) || { echo "FAIL calib_dit: -o is not one calibration per GPU"; failed=$((failed + 1)); }
  fi
  if run calib_shipped 0 "$bin" calibrate --dit "$data/dit_single_gpu_latency.csv" --shipped --json; then
    expect calib_shipped out '"calibration": "shipped defaults"'
    expect calib_shipped out '"host_transfers_s"'
  fi
fi
run calib_shipped_o 1 "$bin" calibrate --dit x.csv --shipped -o y.json && expect calib_shipped_o err "--shipped fits nothing"
run calib_shipped_k 1 "$bin" calibrate --kernels x.csv --chip h100 --shipped && expect calib_shipped_k err "--shipped goes with --dit"
run calib_modes 1 "$bin" calibrate --dit x.csv -t h100:8 && expect calib_modes err "give one per invocation"
run calib_kchip 1 "$bin" calibrate --kernels x.csv && expect calib_kchip err "--kernels needs --chip"
# The joint fit of single- and multi-GPU videos and the fidelity report (docs/fidelity.md).
if [[ -d "$data" ]]; then
  if run calib_multi 0 "$bin" calibrate --dit "$data/dit_single_gpu_latency.csv" --multi "$data/dit_multi_gpu_latency.csv"; then
    # rho and the medians of fidelity/scaling_test.cc (hw/chip.cc fitted_compute ships them).
    expect calib_multi out "joint fit: convolution efficiency ratio rho = 0.1607"
    expect calib_multi out "ulysses=8,fsdp=8"
    expect calib_multi out "multi-GPU rows: median |error| 3.4% over 28"
  fi
  run calib_multi_single 1 "$bin" calibrate --dit "$data/dit_single_gpu_latency.csv" --multi "$data/dit_single_gpu_latency.csv" &&
    expect calib_multi_single err "dit_single_gpu_latency.csv:6: error: --multi rows run on 2 or more GPUs"
fi
mkdir -p "$tmp/measurements" && printf 'a,b\n1,2\n' > "$tmp/measurements/other.csv"
run calib_report 0 "$bin" calibrate --report --data "$tmp/measurements" && expect calib_report out "| other.csv |  | 0 |  |  | not predicted"
run calib_report_o 0 "$bin" calibrate --report --data "$tmp/measurements" -o "$tmp/fidelity.md" &&
  expect calib_report_o out "other.csv" && grep -q "^# Fidelity" "$tmp/fidelity.md" && passed=$((passed + 1))
run calib_report_dir 1 "$bin" calibrate --report --data "$tmp/nowhere" && expect calib_report_dir err "measurement folder '$tmp/nowhere' is not a directory"
run calib_multi_alone 1 "$bin" calibrate --multi x.csv && expect calib_multi_alone err "--multi goes with --dit"
run calib_data_alone 1 "$bin" calibrate --dit x.csv --data d && expect calib_data_alone err "--data goes with --report"
run calib_report_shipped 1 "$bin" calibrate --report --shipped && expect calib_report_shipped err "--report always prices with the shipped defaults"

# Pricing and placement of compiled evidence (issue 5). Ulysses over the 4
# chips of each x-row of v5e:2x4 is a line, JAX's default; a 2x2 block would
# halve the all-to-all's longest path.
if run ev_usp 0 "$bin" compile -m wan2.1-t2v-1.3b --width 832 --height 480 --frames 17 --mesh x=2,y=4 -T usp:ulysses=y,ring=x --evidence "$tmp/usp.json"; then
  if run place 0 "$bin" place -e "$tmp/usp.json" -t v5e:2x4 --json --trace "$tmp/t.json" --svg "$tmp/p.svg"; then
    for key in '"best": {' '"default": {' '"latency_s"' '"placement"' '"maps_total": 40320' '"maps_priced": 10080'; do
      expect place out "$key"
    done
    python3 -c "import json,sys; t=json.load(open('$tmp/t.json')); assert any(e['ph']=='X' for e in t['traceEvents'])" \
      && passed=$((passed + 1)) || { echo "FAIL place: the trace is not Trace Event JSON"; failed=$((failed + 1)); }
    python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse('$tmp/p.svg')" \
      && passed=$((passed + 1)) || { echo "FAIL place: the SVG is not well-formed"; failed=$((failed + 1)); }
  fi
  run place_det 0 "$bin" place -e "$tmp/usp.json" -t v5e:2x4 --json
  if cmp -s <(grep -v '"time' "$tmp/place.out") <(grep -v '"time' "$tmp/place_det.out"); then passed=$((passed + 1)); else
    echo "FAIL place determinism"; failed=$((failed + 1)); fi
  run price 0 "$bin" price -e "$tmp/usp.json" -t v5e:2x4 -p 0,1,2,3,7,6,5,4 && expect price out "per run of the program"
  run price_default 0 "$bin" price -e "$tmp/usp.json" -t v5e:2x4 --json && expect price_default out '"placement_method": "jax create_device_mesh"'
  run price_size 1 "$bin" price -e "$tmp/usp.json" -t v5e:4x4 -p 0,1,2,3 && expect price_size err "maps 4 logical devices"
  run price_chips 1 "$bin" price -e "$tmp/usp.json" -t v5e:2x2 && expect price_chips err "8 devices"
  python3 -c "import json; e=json.load(open('$tmp/usp.json')); del e['segments']; json.dump(e, open('$tmp/bad_ev.json','w'))"
  run price_bad 1 "$bin" price -e "$tmp/bad_ev.json" -t v5e:2x4 && expect price_bad err "segments: expected an array"
fi

# The planner (issue 6): the default job, pinned configurations, files, errors.
if run plan 0 "$bin" plan -m wan2.1-t2v-1.3b --width 832 --height 480 --frames 17 -t v5e:2x4 --json --out "$tmp/plan" -q; then
  for key in '"best": {' '"step_latency_s"' '"baselines": {' '"expert": {' '"alpa": {' '"video_latency_s"' '"plan_time_s"' '"roofline_bound_s"' \
      '"stages": [' '"name": "umt5-xxl"' '"name": "wan-vae-decoder"' '"denoising_latency_s"'; do
    expect plan out "$key"
  done
  for f in plan.json report.md plan_jax.py placement.svg compare.svg step.trace.json; do
    [[ -s "$tmp/plan/$f" ]] && passed=$((passed + 1)) || { echo "FAIL plan: $f missing"; failed=$((failed + 1)); }
  done
  python3 -m py_compile "$tmp/plan/plan_jax.py" && passed=$((passed + 1)) || { echo "FAIL plan: plan_jax.py"; failed=$((failed + 1)); }
fi
if run plan_gpu 0 "$bin" plan -m wan2.1-t2v-1.3b --width 832 --height 480 --frames 17 -t h100:8 -T ulysses=4,cfg=2 --placement default --out "$tmp/plan_gpu" -q; then
  expect plan_gpu out "cfg=2,ulysses=4"
  python3 -m py_compile "$tmp/plan_gpu/plan_torch.py" && passed=$((passed + 1)) || { echo "FAIL plan: plan_torch.py"; failed=$((failed + 1)); }
fi
# Multi-slice TPU (issue 28): two v5e:2x2 slices joined by DCN. The plan names
# the axes that cross slices, plan_jax.py builds the mesh with
# create_hybrid_device_mesh and compiles, maxdiffusion.yml sets dcn_*.
# --top-k 2 --no-alpa: the files' DCN structure is what this checks; two survivors keep the
# sanitizer run's placement searches short (a multi-slice collective is priced per placement).
if run plan_slices 0 "$bin" plan -m wan2.1-t2v-1.3b --width 832 --height 480 --frames 17 -t 'v5e:2x2*2' --top-k 2 \
    --no-alpa --out "$tmp/plan_slices" -q; then
  expect plan_slices out "v5e:2x2*2"
  grep -q "Scale-out (aoizora): DCN: .* across 2 slices; ICI: " "$tmp/plan_slices/report.md" && passed=$((passed + 1)) \
    || { echo "FAIL plan_slices: report.md names no DCN axis"; failed=$((failed + 1)); }
  python3 -c "import json; s=json.load(open('$tmp/plan_slices/plan.json'))['best']['placement']['scale_out']; assert s['network']=='dcn' and s['domains']==2 and s['across'], s" \
    && passed=$((passed + 1)) || { echo "FAIL plan_slices: plan.json scale_out"; failed=$((failed + 1)); }
  grep -q "mesh_utils.create_hybrid_device_mesh(" "$tmp/plan_slices/plan_jax.py" && passed=$((passed + 1)) \
    || { echo "FAIL plan_slices: plan_jax.py lacks create_hybrid_device_mesh"; failed=$((failed + 1)); }
  python3 -m py_compile "$tmp/plan_slices/plan_jax.py" && passed=$((passed + 1)) || { echo "FAIL plan_slices: plan_jax.py"; failed=$((failed + 1)); }
  grep -q "^dcn_.*_parallelism: 2$" "$tmp/plan_slices/maxdiffusion.yml" && passed=$((passed + 1)) \
    || { echo "FAIL plan_slices: maxdiffusion.yml sets no DCN degree"; failed=$((failed + 1)); }
fi
# Multi-node GPUs (issue 28): 64 H100s in 8 nodes over EFA, Wan 2.1 14B at a
# small video, the degrees pinned (ulysses=8 fills a node, ring=8 spans the
# nodes under the rank order). report.md, plan.json and plan_jax.py name the
# axis crossing nodes and the one inside them.
if run plan_nodes 0 "$bin" plan -m wan2.1-t2v-14b --width 832 --height 480 --frames 17 -t h100:8x8:efa \
    -T ulysses=8,ring=8 --placement default --no-alpa --no-stages --out "$tmp/plan_nodes" -q; then
  grep -q "Scale-out (aoizora): inter-node: ring=8 across 8 nodes; intra-node: ulysses=8 inside each node" \
    "$tmp/plan_nodes/report.md" && passed=$((passed + 1)) \
    || { echo "FAIL plan_nodes: report.md names no inter-node axis"; failed=$((failed + 1)); }
  python3 -c "import json; s=json.load(open('$tmp/plan_nodes/plan.json'))['best']['placement']['scale_out']; assert s['network']=='inter-node' and s['domains']==8 and s['hybrid'], s" \
    && passed=$((passed + 1)) || { echo "FAIL plan_nodes: plan.json scale_out"; failed=$((failed + 1)); }
  grep -q "^# Multi-node: inter-node: ring=8 across 8 nodes; intra-node: ulysses=8 inside each node" \
    "$tmp/plan_nodes/plan_jax.py" && grep -q "^INTER_NODE_MESH_SHAPE = (8, 1)$" "$tmp/plan_nodes/plan_jax.py" \
    && passed=$((passed + 1)) || { echo "FAIL plan_nodes: plan_jax.py names no inter-node axis"; failed=$((failed + 1)); }
  python3 -m py_compile "$tmp/plan_nodes/plan_jax.py" && passed=$((passed + 1)) || { echo "FAIL plan_nodes: plan_jax.py"; failed=$((failed + 1)); }
fi
# The default placement of several slices is JAX's hybrid mesh, and says so.
run plan_slices_default 0 "$bin" plan -m wan2.1-t2v-1.3b --width 832 --height 480 --frames 17 -t 'v5e:2x2*2' \
    --placement default --no-alpa --no-stages && expect plan_slices_default out "placement jax create_hybrid_device_mesh;"
run plan_slices_bad 1 "$bin" plan -m wan2.1-t2v-1.3b -t 'v5e:2x2*0' -q && expect plan_slices_bad err "bad slice count '0'"
run topo_slices 0 "$bin" topo show 'v5e:2x4*2' --svg "$tmp/slices.svg" && expect topo_slices out "2 slices joined by DCN"
run plan_model 1 "$bin" plan -m wan3 -t v5e:2x4 -q && expect plan_model err "unknown model 'wan3'"
run plan_topo 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:3x3 -q && expect plan_topo err "is not a v5e slice"
run plan_tmpl 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x4 -T ulysses=4 -q && expect plan_tmpl err "multiply to 4"
run plan_oom 1 "$bin" plan -m wan2.1-t2v-14b --frames 641 -t v5e:2x2 -q --no-alpa && expect plan_oom err "smallest slice that would fit: v5e:2x4"
run plan_flag 2 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x4 --placement best
# Issue 10: the whole video, stage by stage, in the summary and the report; --no-stages prices the steps alone.
if run plan_stages 0 "$bin" plan -m wan2.1-t2v-14b --width 1280 --height 720 --frames 81 -t h100:8 --no-alpa --out "$tmp/plan_stages" -q; then
  expect plan_stages out "video " && expect plan_stages out "umt5-xxl" && expect plan_stages out "wan-vae-decoder"
  grep -qF "## The whole video: encoders, steps, VAE" "$tmp/plan_stages/report.md" && passed=$((passed + 1)) ||
    { echo "FAIL plan_stages: the report has no stage table"; failed=$((failed + 1)); }
fi
run plan_no_stages 0 "$bin" plan -m wan2.1-t2v-14b --width 1280 --height 720 --frames 81 -t h100:8 --no-alpa --no-stages --json -q &&
  expect plan_no_stages out '"stages": []'
# bench --scale (issue 28): each row a plan in its own process, timed and its peak memory read;
# a slice the catalog refuses is a row with the reason, not a failed bench.
if run bench_scale 0 "$bin" bench --scale -m wan2.1-t2v-1.3b@832x480x17 -t v5e:2x2 -t v5e:2x4 -t v5e:3x3 -o "$tmp/scale" -q; then
  # Planned rows: | model | video | slice | chips | plan time | in planner | peak RSS | pick | ms/step | vs expert |
  planned=$(awk -F' [|] ' '/^[|] wan2.1-t2v-1.3b [|] 832x480x17 [|] v5e:2x[24] / &&
    $5 ~ /^[0-9.]+ s$/ && $5 + 0 > 0 && $7 ~ /^[0-9.]+ (MiB|GiB)$/ && $7 + 0 > 0 && $8 != "" { n++ } END { print n + 0 }' "$tmp/scale/scale.md")
  [[ $planned == 2 ]] && passed=$((passed + 1)) ||
    { echo "FAIL bench_scale: $planned planned rows with a time and a peak RSS, expected 2"; cat "$tmp/scale/scale.md"; failed=$((failed + 1)); }
  grep -qF "| v5e:3x3 |  |  |  |  | not planned: topology 'v5e:3x3': 3x3 is not a v5e slice" "$tmp/scale/scale.md" &&
    passed=$((passed + 1)) || { echo "FAIL bench_scale: no row for the refused slice"; failed=$((failed + 1)); }
  [[ $(grep -c '<polyline' "$tmp/scale/scale.svg") == 1 ]] && tail -1 "$tmp/scale/scale.svg" | grep -qF '</svg>' &&
    passed=$((passed + 1)) || { echo "FAIL bench_scale: scale.svg lacks the v5e series"; failed=$((failed + 1)); }
fi
# A plan cannot finish in 10 ms (the process alone takes longer): the row says it was killed.
run bench_scale_timeout 0 "$bin" bench --scale -m wan2.1-t2v-1.3b@832x480x17 -t v5e:2x2 --timeout 0.01 -q &&
  expect bench_scale_timeout out "| not planned: timed out after 0.01 s |"
# A plan that fails is a row with the plan's own error (its last stderr line, "aoizora: " off).
run bench_scale_fail 0 "$bin" bench --scale -m wan2.1-t2v-14b@1280x720x641 -t v5e:2x2 -q &&
  expect bench_scale_fail out "| not planned: wan2.1-t2v-14b at 1280x720x641 does not fit v5e:2x2: the most frugal"
run bench_scale_train 2 "$bin" bench --scale --train && expect bench_scale_train err "--train excludes --scale"
run bench_paper_model 1 "$bin" bench --paper -m wan2.1-t2v-1.3b &&
  expect bench_paper_model err "bench --paper runs the paper's grid: it takes no --model"
run bench_paper_train 2 "$bin" bench --paper --train && expect bench_paper_train err "--train excludes --paper"
run bench_timeout 2 "$bin" bench --timeout 5 && expect bench_timeout err "--timeout requires --scale"

# Software stacks (issue 23, docs/compute-model.md): Wan 2.2 runs FA3 on Hopper (its README), so
# its default on h100 is fa3 and --stack fa2 is slower; Wan 2.1 stays on fa2; H20 has no FA3
# figure and falls back; unknown names list the valid ones; libraries off their chips are refused.
small=(--width 832 --height 480 --frames 17 -T ulysses=8 --placement default --no-alpa --no-stages -q)
if run stack_wan22 0 "$bin" plan -m wan2.2-t2v-a14b -t h100:8 "${small[@]}" --json &&
   run stack_wan22_fa2 0 "$bin" plan -m wan2.2-t2v-a14b -t h100:8 "${small[@]}" --json --stack fa2; then
  expect stack_wan22 out '"name": "fa3"' && expect stack_wan22 out 'FlashAttention3 deployed on Hopper'
  expect stack_wan22_fa2 out '"name": "fa2"'
  python3 - "$tmp/stack_wan22.out" "$tmp/stack_wan22_fa2.out" <<'PY' && passed=$((passed + 1)) || { echo "FAIL stack_wan22: fa3 not faster"; failed=$((failed + 1)); }
import json, sys
fa3, fa2 = (json.load(open(f)) for f in sys.argv[1:])
# 0.3569 x 648 / 370 = 0.6251 (stack.cc) against the h100 fit's 0.3569.
assert abs(fa3["inputs"]["stack"]["attention_efficiency"] - 0.3569 * 648 / 370) < 1e-9
assert fa2["inputs"]["stack"]["attention_efficiency"] == 0.3569
assert fa3["best"]["step_latency_s"] < fa2["best"]["step_latency_s"]
PY
fi
run stack_summary 0 "$bin" plan -m wan2.2-t2v-a14b -t h100:8 "${small[@]}" && expect stack_summary out "on h100:8, stack fa3"
run stack_wan21 0 "$bin" plan -m wan2.1-t2v-14b -t h100:8 "${small[@]}" && expect stack_wan21 out "on h100:8, stack fa2"
run stack_h20 0 "$bin" plan -m wan2.2-t2v-a14b -t h20:8 "${small[@]}" --json &&
  expect stack_h20 out '"name": "fa2"' && expect stack_h20 out 'no public benchmark gives fa3 against fa2 on h20'
run stack_unknown 1 "$bin" plan -m wan2.1-t2v-14b -t h100:8 --stack fa4 -q &&
  expect stack_unknown err "--stack: unknown attention library 'fa4' (valid: fa2, fa3, cudnn, xformers, jax-flash, jax-splash, xla"
run stack_mode 1 "$bin" plan -m wan2.1-t2v-14b -t h100:8 --stack fa3+jit -q &&
  expect stack_mode err "unknown execution mode 'jit'"
run stack_a100 1 "$bin" plan -m wan2.1-t2v-14b -t a100:8 --stack fa3 -q &&
  expect stack_a100 err "--stack fa3: fa3 runs on Hopper (sm90) GPUs only"
run stack_tpu 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x4 --stack fa2 -q &&
  expect stack_tpu err "attention library fa2 runs on NVIDIA GPUs, not on v5e"
run stack_train 1 "$bin" plan --train -m wan2.1-t2v-1.3b -t h100:8 --stack fa3 -q &&
  expect stack_train err "--stack fa3: the sourced library ratios are forward-pass figures"
run stack_xformers 1 "$bin" plan -m wan2.1-t2v-14b -t h100:8 --stack xformers -q &&
  expect stack_xformers err "no public benchmark gives xformers against fa2 on h100"

# Training plans (issue 9): a small clip (256x256x9: 768 tokens a sample) on 4 v5p chips,
# one sample per chip; the files, the keys, the optimizer's tensors, and the errors.
if run plan_train 0 "$bin" plan --train -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 -t v5p:2x2x1 --no-alpa \
    --json --out "$tmp/plan_train" -q; then
  for key in '"workload": "train"' '"micro_batch": 4' '"samples_per_s"' '"remat": "' '"role": "optimizer_state"' \
      '"description": "MaxDiffusion '; do
    expect plan_train out "$key"
  done
  expect_file() { grep -qF -- "$2" "$1" && passed=$((passed + 1)) || { echo "FAIL plan_train: $1 lacks '$2'"; failed=$((failed + 1)); }; }
  expect_file "$tmp/plan_train/plan_jax.py" "OPTIMIZER_STATE_SPECS = {"
  expect_file "$tmp/plan_train/report.md" "One training step: forward, backward"
  python3 -m py_compile "$tmp/plan_train/plan_jax.py" && passed=$((passed + 1)) || { echo "FAIL plan_train: plan_jax.py"; failed=$((failed + 1)); }
fi
run train_summary 0 "$bin" plan --train -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 -t v5p:2x2x1 --no-alpa \
    -T dp=4,fsdp=4,remat=full -q && expect train_summary out "samples/s" && expect train_summary out "remat full"
# Remat offload (MaxDiffusion's HIDDEN_STATE_WITH_OFFLOAD): the host link's trips in the plan; the
# compiled step reloads the saved values before the backward.
if run train_offload 0 "$bin" plan --train -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 -t v5p:2x2x1 --no-alpa \
    -T context=4,fsdp=4 --remat offload --json -q; then
  expect train_offload out '"remat": "offload"'
  expect train_offload out '"host_transfer_s": '
  expect train_offload out '"host_exposed_s": '
fi
run compile_offload 0 "$bin" compile -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 --graph train --micro-batch 2 \
    --mesh x=2 -T dp=x --remat offload --print-cir && expect compile_offload out '.host-reload" copy ()'
run train_offload_bad 1 "$bin" plan --train -m wan2.1-t2v-1.3b -t v5p:2x2x1 --remat offloaded -q &&
  expect train_offload_bad err "(expected none, full, selected or offload)"
run train_divide 1 "$bin" plan --train -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 -t v5p:2x2x1 \
    --micro-batch 2 -T dp=4 -q && expect train_divide err "does not divide the micro-batch of 2 samples"
run plan_accumulate_bad 1 "$bin" plan --train -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 -t v5p:2x2x1 \
    --micro-batch 4 -T ulysses=4,fsdp=4,accumulate=3 -q &&
  expect plan_accumulate_bad err "accumulate=3 does not divide the micro-batch of 4 samples"
run train_needs_flag 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5p:2x2x1 --remat full -q &&
  expect train_needs_flag err "describe a training step: add --train"
run train_remat 1 "$bin" plan --train -m wan2.1-t2v-1.3b -t v5p:2x2x1 --remat most -q &&
  expect train_remat err "--remat: unknown rematerialization 'most'"
run train_program 1 "$bin" plan --train --onnx "$root/tests/data/onnx/tiny_blocks.onnx" -t h100:8 -q &&
  expect train_program err "training steps are built for zoo models"
# Wan 14B's weights, gradients and AdamW states alone (16 B per parameter / 4 = 53 GiB a chip)
# exceed v5e's 16 GiB: neither remat nor gradient accumulation makes it fit. Pinned to remat
# full, the error names the pinned policy.
run train_oom 1 "$bin" plan --train -m wan2.1-t2v-14b -t v5e:2x2 --micro-batch 4 --no-alpa -q &&
  expect train_oom err "does not fit v5e:2x2"
run train_oom_pinned 1 "$bin" plan --train -m wan2.1-t2v-14b -t v5e:2x2 --micro-batch 4 --remat full --no-alpa -q &&
  expect train_oom_pinned err "(a training step of 4 samples, remat full and gradient accumulation) does not fit v5e:2x2"
run compile_train 0 "$bin" compile -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 --graph train --micro-batch 2 \
    --mesh x=2 -T dp=x && expect compile_train out "(train) on mesh x=2 with dp=x" && expect compile_train out "all-reduce"

# XLA's compiled HLO priced directly (compile/xla): the Llama 3.1 70B train step
# on 128 chips, its device assignment searched against identity and default.
hlo="$root/../shared/data/hlo"
if [[ -d "$hlo" ]]; then
  if run hlo_price 0 "$bin" price --hlo "$hlo/hlo_llama31_70b_bf16_16x8.hlo" --topology v5p:4x4x8; then
    expect hlo_price out "128 devices, mesh a=2,b=64"
    expect hlo_price out "identity "
    expect hlo_price out "XLA device_assignment (replica x partition -> device id): {{"
    expect hlo_price out "JAX device order: devices = [jax.devices()[i] for i in ["
  fi
  if run hlo_json 0 "$bin" price --hlo "$hlo/hlo_mixtral_8x7b_bf16_1x8.hlo" --topology h100:8 --json; then
    expect hlo_json out '"speedup_over_identity": '
    expect hlo_json out '"collectives": 1775'
  fi
  expect hlo_json err "custom call 'TopK': cost unknown"
  run hlo_many 1 "$bin" price --hlo "$hlo/import_async.hlo" --topology v5e:2x4 && expect hlo_many err "holds 17 modules"
  run hlo_module 0 "$bin" price --hlo "$hlo/import_async.hlo" --hlo-module 1 --topology v5e:2x4 --explain &&
    expect hlo_module out "all-gather"
elif [[ "${CI:-}" == "true" ]]; then
  echo "FAIL: ../shared/data is missing under CI"; failed=$((failed + 1))
fi
printf 'HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  b = f32[2] add(a, c)\n}\n' >"$tmp/bad.hlo"
run hlo_bad 1 "$bin" price --hlo "$tmp/bad.hlo" --topology v5e:2x4 && expect hlo_bad err "bad.hlo:4:3: error: operand 'c' of 'b' is not defined"
run hlo_both 1 "$bin" price --hlo "$tmp/bad.hlo" --evidence x.json --topology v5e:2x4 && expect hlo_both err "exactly one of --evidence"

# The JAX loop's first step: the candidates file (the 1.3B model's 12 heads
# rule out ulysses=8, so ring8 leads the 34 candidates on 8 chips: 24, plus
# the context twins of the 5 ring-only ones (ring 8, 4 x tp 2, 2 x tp 4,
# 4 x cfg 2, 2 x cfg 2 x tp 2), each without and with FSDP).
if run cand 0 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x4 --emit-candidates "$tmp/cand.json"; then
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); c=d['candidates']; assert d['format']=='aoizora-candidates/1' and len(c)==34 and c[0]['id']=='ring8' and 'blocks.*.ffn.0.weight' in c[0]['parameters'], c[0]['id']" "$tmp/cand.json"; then
    passed=$((passed + 1)); else echo "FAIL cand: candidates file"; failed=$((failed + 1)); fi
  # The script's dry run reads it (JAX is not needed for a dry run).
  printf '{"args": [{"name": "latent", "shape": [1, 16, 5, 60, 104], "dtype": "bfloat16", "spec_from": "latent"}]}' >"$tmp/inputs.json"
  run cand_dry 0 env PYTHONPATH="$root/python" python3 -m aoizora_jax.compile_candidates --candidates "$tmp/cand.json" \
    --function m:f --inputs "$tmp/inputs.json" --out "$tmp/dumps" --only ring8 --dry-run && expect cand_dry out "ring8"
fi
run xla_flags 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x4 --compiler xla && expect xla_flags err "--compiler xla and --hlo-dir DIR go together"
# Targets (search/targets.h): what the runtime does not run is refused with the reason; a TPU
# plan writes MaxDiffusion's overrides.
run target_md_gpu 1 "$bin" plan -m wan2.1-t2v-1.3b -t h100:8 --target maxdiffusion -q &&
  expect target_md_gpu err "--target maxdiffusion plans TPU slices"
run target_jax_ring 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x4 --target jax -T ring=8 -q &&
  expect target_jax_ring err "JAX lowers a sequence-sharded K and V as an all-gather, not a ring"
if run target_md 0 "$bin" plan -m wan2.1-t2v-1.3b --width 832 --height 480 --frames 17 -t v5e:2x4 \
    --target maxdiffusion --no-alpa --no-stages --placement default -q --out "$tmp/target_md"; then
  expect target_md out "aoizora plan: wan2.1-t2v-1.3b"
  grep -qF "python src/maxdiffusion/generate_wan.py src/maxdiffusion/configs/base_wan_1_3b.yml" \
    "$tmp/target_md/maxdiffusion.yml" && passed=$((passed + 1)) ||
    { echo "FAIL target_md: maxdiffusion.yml lacks the command"; failed=$((failed + 1)); }
fi
mkdir -p "$tmp/empty"
run xla_none 1 "$bin" plan -m wan2.1-t2v-1.3b -t v5e:2x4 --compiler xla --hlo-dir "$tmp/empty" -q && expect xla_none err "no candidate's HLO dump"

fi  # part 1

if [[ $part == all || $part == 3 ]]; then
# Determinism: the default `make plan` job and a GPU plan write byte-identical
# plan.json files whatever --threads (the same seed; plan.json leaves the wall
# time out).
for job in "v5e:2x4" "h100:8"; do
  ref=""
  for threads in 1 2 8; do
    dir="$tmp/det_${job/:/_}_$threads"
    if run "det_plan_${job/:/_}_$threads" 0 "$bin" plan --model wan2.1-t2v-14b --width 1280 --height 720 --frames 81 \
        --topology "$job" --threads "$threads" --out "$dir" -q; then
      if [[ -z "$ref" ]]; then ref="$dir/plan.json"
      elif cmp -s "$ref" "$dir/plan.json"; then passed=$((passed + 1))
      else echo "FAIL determinism: plan.json on $job differs between --threads 1 and $threads"; failed=$((failed + 1)); fi
    fi
  done
done

# ... and a training plan (issue 12). Without Alpa, for time: the training graph's 2D meshes
# are large ILPs (docs/alpa.md); their solve is deterministic (a node budget, not a clock).
ref=""
for threads in 1 2 8; do
  dir="$tmp/det_train_$threads"
  if run "det_train_$threads" 0 "$bin" plan --train -m wan2.1-t2v-1.3b --width 256 --height 256 --frames 9 \
      -t v5p:2x2x1 --no-alpa --threads "$threads" --out "$dir" -q; then
    if [[ -z "$ref" ]]; then ref="$dir/plan.json"
    elif cmp -s "$ref" "$dir/plan.json"; then passed=$((passed + 1))
    else echo "FAIL determinism: the training plan.json differs between --threads 1 and $threads"; failed=$((failed + 1)); fi
  fi
done

fi  # part 3

if [[ $part == all || $part == 2 ]]; then

# XLA 0.11's own dumps of the JAX Wan model (tests/data/xla): stack-frame tables and mesh-form
# replica groups; 2 blocks of the 40, which the planner warns about.
xla_wan="$root/tests/data/xla/wan14b_832x480x17_2blocks"
run xla_wan_price 0 "$bin" price --hlo "$xla_wan/ulysses8.hlo" --topology h100:8 && expect xla_wan_price out "8 devices"
if run xla_wan_plan 0 "$bin" plan -m wan2.1-t2v-14b -t h100:8 --width 832 --height 480 --frames 17 --compiler xla \
    --hlo-dir "$xla_wan"; then
  # 51 candidates: planner_test's Combos.EnumerationOfWan14BOn8Chips (32, 10 context twins, 9 PipeFusion).
  expect xla_wan_plan err "xla: 5 of 51 candidates have an HLO dump"
  expect xla_wan_plan err "is the dump this model at this size?"
fi

# Programs in place of --model (docs/importers.md): the ONNX export committed in
# tests/data/onnx (two tiny transformer blocks, tests/data/onnx/README.md) and
# the real JAX exports of ../shared/data/stablehlo.
onnx="$root/tests/data/onnx"
if run onnx_inspect 0 "$bin" inspect --onnx "$onnx/tiny_blocks.onnx" --json; then
  expect onnx_inspect out '"format": "onnx"'
  # Two blocks of 3,248 parameters (tests/data/onnx/README.md): 6,496.
  expect onnx_inspect out '"params": 6496'
  expect onnx_inspect out '"attention_ops": 2'
fi
if run onnx_plan 0 "$bin" plan --onnx "$onnx/tiny_blocks.onnx" --topology h100:8 --no-alpa --json -q; then
  expect onnx_plan out '"format": "onnx"'
  expect onnx_plan out '"annotated"'
fi
run onnx_unbound 1 "$bin" inspect --onnx "$onnx/tiny_blocks_dynamic_noparams.onnx" && expect onnx_unbound err "seq"
run onnx_width 1 "$bin" inspect --onnx "$onnx/tiny_blocks.onnx" --width 1280 && expect onnx_width err "describe a zoo model"
run onnx_dim_syntax 1 "$bin" inspect --onnx "$onnx/tiny_blocks.onnx" --dim seq && expect onnx_dim_syntax err "expected NAME=SIZE"
run onnx_latent 1 "$bin" inspect --onnx "$onnx/tiny_blocks.onnx" --latent video && expect onnx_latent err "names no floating-point input"
run onnx_missing 1 "$bin" inspect --onnx "$tmp/nope.onnx" && expect onnx_missing err "nope.onnx"
run onnx_annotated 1 "$bin" compile --onnx "$onnx/tiny_blocks.onnx" --mesh x=8 -T annotated &&
  expect onnx_annotated err "takes the program's own shardings"
run two_programs 2 "$bin" inspect --onnx "$onnx/tiny_blocks.onnx" --stablehlo "$tmp/x.mlir"
run program_and_model 2 "$bin" plan --model wan2.1-t2v-1.3b --onnx "$onnx/tiny_blocks.onnx" -t h100:8
printf 'module @m {\n  func.func public @main(%%arg0: tensor<4xf32>) -> tensor<4xf32> {\n    %%0 = stablehlo.add %%arg0, %%arg9 : tensor<4xf32>\n    return %%0 : tensor<4xf32>\n  }\n}\n' >"$tmp/bad.mlir"
run shlo_bad 1 "$bin" inspect --stablehlo "$tmp/bad.mlir" && expect shlo_bad err "bad.mlir:3:"
# One Wan 2.1 T2V-14B block (with the embeddings and head) at 720p as JAX lowered it with the
# ulysses8 candidate's shardings (tests/data/README.md). The source locations name the arguments;
# the two [1, 6, 5120] and [1, 2, 5120] modulation tables added to batch-1 embeddings count as
# inputs (frontend/stablehlo/import.h), so the parameters are the zoo's one-block model
# (584,113,728) less 40,960: 584,072,768.
wan_shlo="$root/tests/data/stablehlo/wan14b_720p_81f_1block_ulysses8.debug.mlir"
if run shlo_wan 0 "$bin" inspect --stablehlo "$wan_shlo" --json; then
  expect shlo_wan out '"params": 584072768'
  expect shlo_wan out '"video_tokens": 75600'
  expect shlo_wan out '"latent_input": "latent"'
  expect shlo_wan out '"attention_ops": 2'
fi
# Planned, the user's own Ulysses sharding is priced beside AoiZora's pick.
if run shlo_wan_plan 0 "$bin" plan --stablehlo "$wan_shlo" --topology h100:8 --no-alpa -q; then
  expect shlo_wan_plan out "yours     ulysses=8"
fi
shlo="$root/../shared/data/stablehlo"
if [[ -d "$shlo" ]]; then
  # The FSDP x TP MLP (formats.md §5): 784x128 + 128 + 4 x (128x128 + 128) + 128x8 + 8 = 167,560
  # parameters on mesh x=2, y=4.
  if run shlo_inspect 0 "$bin" inspect --stablehlo "$shlo/e2e_fsdp_tp_shardy.mlir" --json; then
    expect shlo_inspect out '"params": 167560'
    expect shlo_inspect out '@mesh = [\"x\"=2, \"y\"=4]'
  fi
  run shlo_plan 0 "$bin" plan --stablehlo "$shlo/e2e_fsdp_tp_shardy.mlir" --topology h100:8 --no-alpa --json -q &&
    expect shlo_plan out '"format": "stablehlo"'
  # An MLP of batch 1 without attention: planned from its own structure
  # (program_source.h: data parallel over its tokens, FSDP, Megatron).
  run shlo_mlp 0 "$bin" plan --stablehlo "$shlo/sdy_mlp_auto.mlir" --topology h100:8 -q &&
    expect shlo_mlp out "tp="
  # The Llama prefill: its masked grouped-query attention folded, nothing custom.
  if run shlo_llama 0 "$bin" inspect --stablehlo "$shlo/sdy_llama_attn_prefill_auto.mlir"; then
    expect shlo_llama out "32 heads, 8 K/V heads (grouped-query), mask tensor"
    expect shlo_llama out "custom ops       none"
    expect shlo_llama out "unfolded attention none"
  fi
  run shlo_llama_plan 0 "$bin" plan --stablehlo "$shlo/sdy_llama_attn_prefill_auto.mlir" --topology v5e:2x4 -q
elif [[ "${CI:-}" == "true" ]]; then
  echo "FAIL: ../shared/data is missing under CI"; failed=$((failed + 1))
fi

# Hostile inputs: clear errors, no out-of-memory kill, no hang.
printf 'HloModule m\nENTRY e {\n  a = f32[99999999999,99999999999] parameter(0)\n  b = f32[99999999999,99999999999] all-reduce(a), channel_id=1, replica_groups=[1000000000,2]<=[2000000000], use_global_device_ids=true\n}\n' >"$tmp/huge_groups.hlo"
run hostile_groups 1 "$bin" price --hlo "$tmp/huge_groups.hlo" -t v5e:2x4 && expect hostile_groups err "huge_groups.hlo:4:80: error: replica_groups: replica groups '[1000000000,2]<=[2000000000]', column 29: too many devices"
printf 'HloModule m\n%%c (p: f32[]) -> f32[] {\n  %%p = f32[] parameter(0)\n  ROOT %%r = f32[] call(%%p), to_apply=%%c\n}\nENTRY %%e {\n  %%a = f32[] parameter(0)\n  ROOT %%b = f32[] call(%%a), to_apply=%%c\n}\n' >"$tmp/cyclic.hlo"
run hostile_cycle 1 "$bin" price --hlo "$tmp/cyclic.hlo" -t v5e:2x4 && expect hostile_cycle err "calls itself"
truncate -s 1100M "$tmp/gigantic.hlo"
run hostile_size 1 "$bin" price --hlo "$tmp/gigantic.hlo" -t v5e:2x4 && expect hostile_size err "over the input limit of 1024 MiB"
rm -f "$tmp/gigantic.hlo"
python3 -c 'import json; print(json.dumps({"chip": "h100", "chips": [{"name": "g%d" % i} for i in range(70000)], "links": []}))' >"$tmp/million.json"
run hostile_chips 1 "$bin" topo show "$tmp/million.json" && expect hostile_chips err "chips: 70000 entries, over the limit of 65536"
run hostile_slice 1 "$bin" topo show h100:100000x8 && expect hostile_slice err "node count must be 1..64"

fi  # part 2

echo "cli${3:+ part $3}: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
