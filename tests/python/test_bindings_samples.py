"""The Python bindings against the CLI on every zoo model and every sample program file: the
same plan.json, or the same error, and the same import warnings.

Zoo models: each at 256x256, 17 frames (4n+1, 8n+1, 16n+1 and 17n, so every family but Mochi's
6n+1 takes it; Mochi 13), 2 steps,
on one H100 (a one-device plan: small and fast, and every tensor must be replicated). Sample
files: ../shared/data/stablehlo (JAX and Shardy exports; three of them cannot be planned, and
the binding must raise the CLI's message) and tests/data/onnx, on four H100s.

CTest: python_bindings_samples (PYTHONPATH python/:<build>/python, AOIZORA the CLI).
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED_STABLEHLO = REPO.parent / "shared" / "data" / "stablehlo"
IN_CI = os.environ.get("CI", "").lower() == "true"

try:
    import aoizora
except ImportError as error:
    if IN_CI:
        raise
    raise unittest.SkipTest(f"aoizora is not importable by {sys.executable}: {error}")


def cli():
    path = os.environ.get("AOIZORA", "")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise unittest.SkipTest("no aoizora binary: set AOIZORA=path/to/aoizora (CTest does)")
    return path


def cli_plan(*args):
    """(plan.json text or None, stderr lines) of `aoizora plan ARGS -q --out DIR`."""
    with tempfile.TemporaryDirectory(prefix="aoizora_bindings_") as tmp:
        out = os.path.join(tmp, "plan")
        run = subprocess.run([cli(), "plan", *map(str, args), "-q", "--out", out], capture_output=True, text=True,
                             check=False)
        if run.returncode not in (0, 1):
            raise AssertionError(f"aoizora plan {args}: exit {run.returncode}\n{run.stderr[-2000:]}")
        text = None
        if run.returncode == 0:
            with open(os.path.join(out, "plan.json"), encoding="utf-8") as f:
                text = f.read()
        return text, run.stderr


class ZooModelsTest(unittest.TestCase):
    def test_every_zoo_model_plans_as_the_cli_does(self):
        models = [m["model"] for m in aoizora.models()]
        self.assertGreaterEqual(len(models), 4)  # Wan 2.1 x3 and HunyuanVideo at least
        for model in models:
            with self.subTest(model=model):
                frames = 13 if model == "mochi-1" else 17
                flags = ["--model", model, "--width", "256", "--height", "256", "--frames", frames, "--steps", "2"]
                expected, stderr = cli_plan(*flags, "--topology", "h100:1", "--no-alpa", "--placement", "default")
                self.assertIsNotNone(expected, stderr)
                plan = aoizora.plan(model=model, width=256, height=256, frames=frames, steps=2, topology="h100:1",
                                    alpa=False, placement="default", progress=False)
                self.assertEqual(plan.to_json(), expected)
                self.assertEqual(plan.device_order, [0])
                self.assertGreater(plan.step_latency_s, 0)
                # One device: nothing can be split.
                for name, spec in plan.shardings.items():
                    self.assertTrue(all(entry is None for entry in spec), name)


class SampleFilesTest(unittest.TestCase):
    def check_file(self, flag, path):
        expected, stderr = cli_plan(f"--{flag}", path, "--topology", "h100:4", "--no-alpa")
        if expected is None:
            # The CLI ends its stderr with "aoizora: <diagnostic>"; the binding raises the diagnostic.
            with self.assertRaises(aoizora.Error) as caught:
                aoizora.plan(**{flag: path}, topology="h100:4", alpa=False, progress=False)
            self.assertTrue(stderr.endswith(f"aoizora: {caught.exception}\n"), (stderr, str(caught.exception)))
            return None
        plan = aoizora.plan(**{flag: path}, topology="h100:4", alpa=False, progress=False)
        self.assertEqual(plan.to_json(), expected)
        # With -q the CLI's stderr is the import warnings, one "aoizora: " line each.
        self.assertEqual("".join(f"aoizora: {warning}\n" for warning in plan.warnings), stderr)
        return plan

    @unittest.skipUnless(SHARED_STABLEHLO.is_dir() or IN_CI, "../shared/data is missing (under CI=true: a failure)")
    def test_shared_stablehlo_samples(self):
        files = sorted(SHARED_STABLEHLO.glob("*.mlir"))
        self.assertTrue(files)
        planned = 0
        for path in files:
            with self.subTest(file=path.name):
                planned += self.check_file("stablehlo", path) is not None
        self.assertGreater(planned, 0)

    def test_onnx_samples(self):
        # The dynamic file needs its `seq` bound: the CLI and the binding refuse it alike.
        for path in sorted((REPO / "tests" / "data" / "onnx").glob("*.onnx")):
            with self.subTest(file=path.name):
                self.check_file("onnx", path)


if __name__ == "__main__":
    unittest.main()
