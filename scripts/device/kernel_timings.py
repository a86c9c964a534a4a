"""Times the kernels of a Wan 2.1 forward on one GPU with PyTorch and writes them in the kernel
CSV that `aoizora calibrate --kernels FILE --chip NAME` fits (src/price/compute_fit.h):

    python3 scripts/device/kernel_timings.py --out kernels_h200.csv [--budget-s 75]
    build/aoizora calibrate --kernels kernels_h200.csv --chip h200

Columns: kind, flops, bytes, time_us, dims (what ReadKernelTimings reads), then name, inner,
min_us, max_us (ignored by the reader, kept for people). Counting follows the planner's own
(src/pir/rules/cost.cc):
  matmul       bf16 [m, k] x [k, n]: flops 2mnk, bytes of A, B and C, dims 1 x m x n x k;
  convolution  the patch embedding Conv3d, kernel = stride = (1, 2, 2): flops 2 * rows * d * 64,
               dims 1 x rows x d x 64 (rows = output positions, 64 = 16 channels x 1 x 2 x 2);
  attention    torch.nn.functional.scaled_dot_product_attention, bf16 [B, H, L, 128], not
               causal: flops 4 * BH * Lq * Lkv * 128 (the two matmuls; softmax is not counted),
               bytes of q, k, v and the output, dims BH x Lq x Lkv x 128;
  elementwise  add / broadcast mul on the f32 residual, f32 -> bf16 convert, GELU(tanh) on the
               bf16 FFN hidden: flops per element as ops.def counts them (1, 1, 0, 8);
  norm         LayerNorm without affine on f32 (8 per element), RMSNorm with weight on bf16 (5);
  copy         the [B, L, H, 128] -> [B, H, L, 128] transpose a layout change costs.
Shapes are those of Wan 2.1 T2V-14B (d 5120, FFN 13824, 40 heads) and T2V-1.3B (1536, 8960, 12)
at several token counts: 4096 to 75600 (14B at 720p, 81 frames), 32760 (1.3B at 480p, 81 frames),
and the per-device shards of ulysses (heads / u), ring (queries / r) and tp (n / t).

Timing: CUDA events, 3 warm-ups, then the median of 10 samples; a sample times `inner`
back-to-back calls (1 for a call of 1 ms or more, else enough to fill about 1 ms, at most 100)
and divides, so a short kernel is timed as it runs inside a model (queued behind the previous
one) rather than with a launch gap. Inputs stay the same across calls, so an operand under the
50 MB L2 stays cached: the memory-bound rows are all well over it. Rows are written as they are
measured; past --budget-s the rest are skipped (and listed in a comment). --cpu runs tiny
stand-ins on the CPU in f32 with wall-clock timing, only to test this script and the CSV where
there is no GPU.
"""

import argparse
import math
import statistics
import sys
import time

WAN = {  # model: (d, ffn, heads)
    "wan14b": (5120, 13824, 40),
    "wan13b": (1536, 8960, 12),
}
HEAD_DIM = 128
TEXT_LEN, TEXT_DIM = 512, 4096


def plan_rows():
    """(kind, name, spec) in measuring order: the cheap kinds first, attention last."""
    rows = []
    tokens = {"wan14b": [4096, 9450, 16384, 32760, 75600],
              "wan13b": [4095, 8190, 16384, 32760, 75600]}
    for model, (d, ffn, _) in WAN.items():
        for m in tokens[model]:
            rows.append(("matmul", f"{model}.qkvo.L{m}", (m, d, d)))
            rows.append(("matmul", f"{model}.ffn0.L{m}", (m, d, ffn)))
            rows.append(("matmul", f"{model}.ffn2.L{m}", (m, ffn, d)))
        rows.append(("matmul", f"{model}.text0", (TEXT_LEN, TEXT_DIM, d)))
        rows.append(("matmul", f"{model}.text2", (TEXT_LEN, d, d)))
    for model, m, t in [("wan14b", 75600, 8), ("wan14b", 32760, 4), ("wan13b", 32760, 4)]:
        d, ffn, _ = WAN[model]
        rows.append(("matmul", f"{model}.qkv.tp{t}.L{m}", (m, d, d // t)))
        rows.append(("matmul", f"{model}.o.tp{t}.L{m}", (m, d // t, d)))
        rows.append(("matmul", f"{model}.ffn0.tp{t}.L{m}", (m, d, ffn // t)))
        rows.append(("matmul", f"{model}.ffn2.tp{t}.L{m}", (m, ffn // t, d)))
    # Patch embedding at the models' native sizes: latent [1, 16, 21, H/8, W/8].
    rows.append(("convolution", "wan14b.patch_embedding.720p", (5120, 21, 90, 160)))
    rows.append(("convolution", "wan13b.patch_embedding.480p", (1536, 21, 60, 104)))
    for model, m in [("wan14b", 9450), ("wan14b", 32760), ("wan14b", 75600), ("wan13b", 32760),
                     ("wan13b", 75600)]:
        d, ffn, heads = WAN[model]
        rows.append(("elementwise", f"{model}.residual_add.L{m}", ("add", m, d)))
        rows.append(("elementwise", f"{model}.gate_mul.L{m}", ("mul", m, d)))
        rows.append(("elementwise", f"{model}.convert_bf16.L{m}", ("convert", m, d)))
        rows.append(("elementwise", f"{model}.gelu_tanh.L{m}", ("gelu", m, ffn)))
        rows.append(("norm", f"{model}.layer_norm.L{m}", ("layer_norm", m, d)))
        rows.append(("norm", f"{model}.rms_norm.L{m}", ("rms_norm", m, d)))
        rows.append(("copy", f"{model}.heads_transpose.L{m}", ("transpose", m, heads)))
    # Attention (batch, heads, q, kv): full, ulysses (heads / u), ring (queries / r), cross.
    attention = [
        ("wan14b.self.L4096", (1, 40, 4096, 4096)),
        ("wan14b.self.L16384", (1, 40, 16384, 16384)),
        ("wan14b.self.L32760", (1, 40, 32760, 32760)),
        ("wan13b.self.L4096", (1, 12, 4096, 4096)),
        ("wan13b.self.L16384", (1, 12, 16384, 16384)),
        ("wan13b.self.L32760", (1, 12, 32760, 32760)),
        ("wan13b.self.cfg2.L32760", (2, 12, 32760, 32760)),
        ("wan14b.self.ulysses8.L75600", (1, 5, 75600, 75600)),
        ("wan14b.self.ulysses8.L32760", (1, 5, 32760, 32760)),
        ("wan13b.self.ulysses4.L32760", (1, 3, 32760, 32760)),
        ("wan13b.self.ulysses2.L32760", (1, 6, 32760, 32760)),
        ("wan14b.self.ring8_block.L75600", (1, 40, 9450, 9450)),
        ("wan14b.self.ring8_allgather.L75600", (1, 40, 9450, 75600)),
        ("wan13b.self.ring8_block.L32760", (1, 12, 4095, 4095)),
        ("wan13b.self.ring8_allgather.L32760", (1, 12, 4095, 32760)),
        ("wan14b.cross.L75600", (1, 40, 75600, TEXT_LEN)),
        ("wan14b.cross.ulysses8.L75600", (1, 40, 9450, TEXT_LEN)),
        ("wan13b.cross.L32760", (1, 12, 32760, TEXT_LEN)),
        ("wan13b.cross.ulysses4.L32760", (1, 12, 8190, TEXT_LEN)),
        ("wan14b.self.ulysses4.L75600", (1, 10, 75600, 75600)),
        ("wan13b.self.L75600", (1, 12, 75600, 75600)),
        ("wan14b.self.L75600", (1, 40, 75600, 75600)),
    ]
    rows += [("attention", name, spec) for name, spec in attention]
    return rows


class Bench:
    def __init__(self, torch, cpu):
        self.torch, self.cpu = torch, cpu
        self.device = "cpu" if cpu else "cuda"
        self.low = torch.float32 if cpu else torch.bfloat16  # the model dtype (bf16)
        self.f32 = torch.float32

    def shrink(self, n, floor=8):
        """Tiny stand-in sizes for --cpu."""
        return max(floor, n // 64) if self.cpu else n

    def randn(self, *shape, dtype):
        return self.torch.randn(*shape, device=self.device, dtype=dtype)

    def build(self, kind, spec):
        """(callable, flops, bytes, dims) for one row."""
        torch, low, f32 = self.torch, self.low, self.f32
        eb, fb = (4 if self.cpu else 2), 4  # bytes per element: model dtype, f32
        if kind == "matmul":
            m, k, n = (self.shrink(v) for v in spec)
            a, b = self.randn(m, k, dtype=low), self.randn(k, n, dtype=low)
            c = torch.empty(m, n, device=self.device, dtype=low)
            return (lambda: torch.mm(a, b, out=c), 2 * m * n * k, eb * (m * k + k * n + m * n),
                    f"1x{m}x{n}x{k}")
        if kind == "convolution":
            d, t, h, w = spec
            d, h, w = self.shrink(d), self.shrink(h, 4) // 2 * 2, self.shrink(w, 4) // 2 * 2
            x = self.randn(1, 16, t, h, w, dtype=low)
            weight, bias = self.randn(d, 16, 1, 2, 2, dtype=low), self.randn(d, dtype=low)
            rows = t * (h // 2) * (w // 2)
            fn = lambda: torch.nn.functional.conv3d(x, weight, bias, stride=(1, 2, 2))  # noqa
            return (fn, 2 * rows * d * 64, eb * (x.numel() + weight.numel() + d + rows * d),
                    f"1x{rows}x{d}x64")
        if kind == "attention":
            batch, heads, q_len, kv_len = spec
            heads = min(heads, 2) if self.cpu else heads
            q_len, kv_len = self.shrink(q_len), self.shrink(kv_len)
            q = self.randn(batch, heads, q_len, HEAD_DIM, dtype=low)
            k = self.randn(batch, heads, kv_len, HEAD_DIM, dtype=low)
            v = self.randn(batch, heads, kv_len, HEAD_DIM, dtype=low)
            bh = batch * heads
            fn = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)  # noqa
            return (fn, 4 * bh * q_len * kv_len * HEAD_DIM,
                    eb * HEAD_DIM * bh * (2 * q_len + 2 * kv_len),
                    f"{bh}x{q_len}x{kv_len}x{HEAD_DIM}")
        op, m, n = spec
        m, n = self.shrink(m), self.shrink(n)
        if op == "add":
            a, b = self.randn(m, n, dtype=f32), self.randn(m, n, dtype=f32)
            return lambda: torch.add(a, b), m * n, 3 * fb * m * n, ""
        if op == "mul":
            a, g = self.randn(m, n, dtype=f32), self.randn(1, n, dtype=f32)
            return lambda: torch.mul(a, g), m * n, 2 * fb * m * n + fb * n, ""
        if op == "convert":
            a = self.randn(m, n, dtype=f32)
            return lambda: a.to(low), 0, (fb + eb) * m * n, ""
        if op == "gelu":
            a = self.randn(m, n, dtype=low)
            fn = lambda: torch.nn.functional.gelu(a, approximate="tanh")  # noqa: E731
            return fn, 8 * m * n, 2 * eb * m * n, ""
        if op == "layer_norm":
            a = self.randn(m, n, dtype=f32)
            fn = lambda: torch.nn.functional.layer_norm(a, (n,), eps=1e-6)  # noqa: E731
            return fn, 8 * m * n, 2 * fb * m * n, ""
        if op == "rms_norm":
            a, weight = self.randn(m, n, dtype=low), self.randn(n, dtype=low)
            rms = getattr(torch.nn.functional, "rms_norm", None)
            if rms is None:  # PyTorch < 2.4 (the CPU smoke test): the same math, several kernels
                fn = lambda: a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * weight  # noqa
            else:
                fn = lambda: rms(a, (n,), weight, 1e-6)  # noqa: E731
            return fn, 5 * m * n, 2 * eb * m * n + eb * n, ""
        if op == "transpose":
            heads = min(n, 2) if self.cpu else n
            a = self.randn(1, m, heads, HEAD_DIM, dtype=low)
            fn = lambda: a.transpose(1, 2).contiguous()  # noqa: E731
            return fn, 0, 2 * eb * a.numel(), ""
        raise ValueError(f"unknown row {kind} {spec}")

    def measure(self, fn, warmups=3, samples=10):
        """(median, min, max) microseconds per call and the calls per sample."""
        torch = self.torch
        for _ in range(warmups):
            fn()
        if self.cpu:
            start = time.perf_counter()
            fn()
            estimate_ms = (time.perf_counter() - start) * 1e3
        else:
            torch.cuda.synchronize()
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            fn()
            end.record()
            end.synchronize()
            estimate_ms = begin.elapsed_time(end)
        inner = 1 if estimate_ms >= 1.0 else min(100, math.ceil(1.0 / max(estimate_ms, 1e-3)))
        times = []
        for _ in range(samples):
            if self.cpu:
                start = time.perf_counter()
                for _ in range(inner):
                    fn()
                times.append((time.perf_counter() - start) * 1e6 / inner)
                continue
            begin.record()
            for _ in range(inner):
                fn()
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end) * 1e3 / inner)
        return statistics.median(times), min(times), max(times), inner


def sdpa_kernels(torch, bench):
    """Names of the CUDA kernels one SDPA call launches (which backend PyTorch picked)."""
    try:
        fn = bench.build("attention", (1, 40, 4096, 4096))[0]
        fn()
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        names = sorted({e.key for e in prof.key_averages()})
        return "; ".join(n[:90] for n in names)[:400]
    except Exception as e:
        return f"unknown ({type(e).__name__}: {e})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--budget-s", type=float, default=75.0,
                        help="stop starting rows after this many seconds")
    parser.add_argument("--cpu", action="store_true", help="tiny f32 stand-ins on the CPU")
    options = parser.parse_args()
    started = time.monotonic()
    import torch

    if not options.cpu and not torch.cuda.is_available():
        sys.exit("error: no CUDA device (use --cpu for the CPU smoke test)")
    bench = Bench(torch, options.cpu)
    rows = plan_rows()
    with open(options.out, "w", encoding="utf-8") as out:
        device = "cpu (smoke test: f32 stand-ins, not a measurement)" if options.cpu else \
            torch.cuda.get_device_name(0)
        out.write(f"# Wan 2.1 kernels timed by scripts/device/kernel_timings.py on {device}\n")
        out.write(f"# torch {torch.__version__}, CUDA {torch.version.cuda}, cuDNN "
                  f"{torch.backends.cudnn.version()}; {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}\n")
        out.write("# CUDA events, 3 warm-ups, median of 10 samples of `inner` back-to-back calls; "
                  "dtype bf16 (f32 for the residual-stream add/mul/convert/layer_norm)\n")
        if not options.cpu:
            out.write(f"# sdpa kernels: {sdpa_kernels(torch, bench)}\n")
        out.write("kind,flops,bytes,time_us,dims,name,inner,min_us,max_us\n")
        out.flush()
        skipped = []
        for kind, name, spec in rows:
            if time.monotonic() - started > options.budget_s:
                skipped.append(name)
                continue
            try:
                fn, flops, nbytes, dims = bench.build(kind, spec)
                median, low, high, inner = bench.measure(fn)
            except Exception as e:  # one bad row (out of memory, a missing op) costs one row
                print(f"{name}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
                out.write(f"# {name}: failed: {type(e).__name__}\n")
                continue
            finally:
                if not options.cpu:
                    torch.cuda.empty_cache()
            out.write(f"{kind},{flops},{nbytes},{median:.3f},{dims},{name},{inner},"
                      f"{low:.3f},{high:.3f}\n")
            out.flush()
            rate = f"{flops / (median * 1e-6) / 1e12:.1f} TFLOP/s" if flops else ""
            print(f"{name}: {median:.1f} us  {rate}  {nbytes / (median * 1e-6) / 1e12:.2f} TB/s",
                  flush=True)
        if skipped:
            out.write(f"# skipped past the {options.budget_s:.0f} s budget: {' '.join(skipped)}\n")
    print(f"{len(rows) - len(skipped)} of {len(rows)} rows in {time.monotonic() - started:.1f} s "
          f"-> {options.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
