#!/usr/bin/env bash
# The device checks, as ONE command on the device machine (one H200, 16 cores, JAX 0.11,
# PyTorch 2.11, no network, no aoizora build), from the repository root with $OUT set:
#
#   bash scripts/device/run-device-checks.sh
#
# Everything the parts need from the planner is committed under tests/jax/ (candidates files,
# input specs). Parts, each under its own `timeout` so one failure stops none of the others:
#   0. versions      -> $OUT/versions.txt (python, jax, jaxlib, torch, onnx; nvidia-smi -L)
#   1. kernels       -> $OUT/kernels_h200.csv: bf16 matmuls, SDPA attention, convolution and
#                       memory-bound kernels of Wan 2.1 timed with CUDA events on the GPU
#                       (scripts/device/kernel_timings.py; aoizora calibrate --kernels ... --chip h200)
#   2. hlo           -> $OUT/hlo.tar.gz: XLA's compiled HLO of wan_jax.forward (2 blocks, 832x480,
#                       17 frames) for chosen planner candidates on 8 host CPU devices, through
#                       python/aoizora_jax/compile_candidates.py (scripts/device/compile_hlo.py)
#   3. stablehlo     -> $OUT/stablehlo.tar.gz: StableHLO text of one block at real sizes, with
#                       and without a candidate's shardings (scripts/device/export_stablehlo.py)
#   4. onnx          -> $OUT/onnx_dynamo.tar.gz: tests/torch/wan_block.py's tiny preset through
#                       torch.onnx.export(dynamo=True) (scripts/device/export_onnx_dynamo.py)
# and $OUT/log.txt, everything printed. Part 1 runs on cores 0-1 and the GPU while parts 2-4 run
# on the CPU (cores 2-15, JAX_PLATFORMS=cpu, so JAX never takes the GPU), all at once.
# Expected: about 3 minutes (versions ~10 s; then, at once, kernels ~40-80 s, hlo ~1-3 min,
# stablehlo ~30 s, onnx ~1 min; packing ~5 s). Every part ends by its own limit (versions 75 s,
# hlo 225 s, stablehlo 200 s, onnx 180 s, kernels 150 s), so the whole ends within 5.5 minutes.
set -u
: "${OUT:?set OUT to the folder the outputs go to}"
cd "$(dirname "$0")/../.." || exit 1
WORK=$(mktemp -d /tmp/aoizora-device.XXXXXX)
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1

# part NAME LIMIT_S COMMAND...: runs COMMAND under `timeout`, logs start, exit status, seconds.
part() {
  local name=$1 limit=$2 start rc
  shift 2
  start=$(date +%s)
  echo "=== $name: start $(date -u +%H:%M:%S) (limit ${limit} s)"
  timeout -k 10 "$limit" "$@"
  rc=$?
  echo "=== $name: exit $rc after $(( $(date +%s) - start )) s$([ $rc = 124 ] && echo ' (timed out)')"
}

cpus() {  # taskset -c LIST when the machine has the cores, else nothing
  if command -v taskset >/dev/null && [ "$(nproc)" -ge 16 ]; then echo "taskset -c $1"; fi
}

versions() {
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm), $(nproc) cores"
    echo "python: $($PY --version 2>&1) at $(command -v $PY)"
    JAX_PLATFORMS=cpu timeout 45 $PY - <<'EOF' 2>&1
import importlib
for name in ["jax", "jaxlib", "numpy", "torch", "onnx", "onnxscript", "onnxruntime"]:
    try:
        module = importlib.import_module(name)
        print(f"{name}: {getattr(module, '__version__', '?')}")
    except Exception as e:
        print(f"{name}: not importable ({type(e).__name__}: {e})")
try:
    import jax
    print("jax_use_shardy_partitioner:", jax.config.jax_use_shardy_partitioner)
    print("jax.set_mesh:", hasattr(jax, "set_mesh"))
except Exception as e:
    print("jax config:", type(e).__name__, e)
try:
    import torch
    print("torch cuda:", torch.version.cuda, "cudnn:", torch.backends.cudnn.version(),
          "device:", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None)
except Exception as e:
    print("torch cuda:", type(e).__name__, e)
EOF
    echo "--- nvidia-smi -L"
    timeout 15 nvidia-smi -L 2>&1
    echo "--- nvidia-smi"
    timeout 15 nvidia-smi 2>&1 | head -20
  } >"$OUT/versions.txt"
  cat "$OUT/versions.txt"
}

# hlo MODEL CANDIDATES GROUPS...: the command compiling one model's candidates (its own deadline
# is 200 s; `timeout` kills its whole process group past 225 s).
hlo() {
  local model=$1 candidates=$2
  shift 2
  echo env JAX_PLATFORMS=cpu XLA_FLAGS=--xla_force_host_platform_device_count=8 $(cpus 2-15) \
    $PY scripts/device/compile_hlo.py --candidates "$candidates" --out "$WORK/hlo/$model" \
    --deadline-s 200 "$@"
}

main() {
  echo "device checks in $(pwd), work folder $WORK, outputs $OUT"
  echo "=== versions"
  versions

  local t=tests/jax
  # The planner's candidates (tests/jax/cands_*.json, `aoizora plan ... --width 832 --height 480
  # --frames 17 --emit-candidates`), one process each; cfg candidates run the batch-2 inputs.
  part hlo-wan14b 225 $(hlo wan14b $t/cands_wan14b_h100x8.json \
    --group $t/inputs_wan14b.json ulysses8 --group $t/inputs_wan14b.json tp8 \
    --group $t/inputs_wan14b.json ulysses2-tp4 --group $t/inputs_wan14b.json ulysses8-fsdp8 \
    --group $t/inputs_wan14b_cfg.json ulysses4-cfg2) >"$WORK/hlo14.log" 2>&1 &
  local hlo14=$!
  part hlo-wan13b 225 $(hlo wan13b $t/cands_wan13b_h100x8.json \
    --group $t/inputs_wan13b.json ulysses4-ring2 --group $t/inputs_wan13b_cfg.json ulysses4-cfg2 \
    --group $t/inputs_wan13b_cfg.json cfg2-tp4 \
    --group $t/inputs_wan13b_cfg.json ulysses4-cfg2-fsdp8) >"$WORK/hlo13.log" 2>&1 &
  local hlo13=$!
  part stablehlo 200 env JAX_PLATFORMS=cpu XLA_FLAGS=--xla_force_host_platform_device_count=8 \
    $(cpus 2-15) $PY scripts/device/export_stablehlo.py --out "$WORK/stablehlo" \
    >"$WORK/stablehlo.log" 2>&1 &
  local stablehlo=$!
  if [ -f tests/torch/wan_block.py ]; then
    part onnx 180 env CUDA_VISIBLE_DEVICES= $(cpus 2-15) $PY scripts/device/export_onnx_dynamo.py \
      --out "$WORK/onnx" >"$WORK/onnx.log" 2>&1 &
  else
    echo "=== onnx: tests/torch/wan_block.py is absent, skipped" >"$WORK/onnx.log"
  fi
  local onnx=$!

  part kernels 150 $(cpus 0-1) $PY scripts/device/kernel_timings.py \
    --out "$OUT/kernels_h200.csv" --budget-s 80

  wait $hlo14 $hlo13 $stablehlo $onnx 2>/dev/null
  for log in hlo14 hlo13 stablehlo onnx; do
    echo "----- $log.log"
    cat "$WORK/$log.log"
  done

  echo "=== packing $(date -u +%H:%M:%S)"
  # The group folders' dumps are copies of the ones in hlo/<model>/; their manifests stay.
  [ -d "$WORK/hlo" ] && tar -czf "$OUT/hlo.tar.gz" -C "$WORK" --exclude='group*/*.hlo' hlo
  [ -d "$WORK/stablehlo" ] && tar -czf "$OUT/stablehlo.tar.gz" -C "$WORK" stablehlo
  [ -d "$WORK/onnx" ] && tar -czf "$OUT/onnx_dynamo.tar.gz" -C "$WORK" onnx
  ls -la "$OUT"
  echo "=== done $(date -u +%H:%M:%S)"
}

main 2>&1 | tee "$OUT/log.txt"
