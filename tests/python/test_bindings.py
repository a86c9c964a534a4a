"""Tests of the Python bindings (python/aoizora, python/_aoizora/module.cc): the API against the
CLI built beside it, on zoo models and the sample files.

The plan a binding returns must be the CLI's: Plan.to_json() is compared byte for byte with the
plan.json `aoizora plan --out DIR` writes for the same input (both leave the wall time out, so
the same input and seed give the same bytes). models() is compared with `aoizora models --json`,
price() with `aoizora price --evidence FILE --json`.

CTest (python_bindings) sets PYTHONPATH to python/ and <build>/python, and AOIZORA to the CLI.
By hand:
    PYTHONPATH=python:build/python AOIZORA=build/aoizora /usr/bin/python3 -m unittest tests/python/test_bindings.py -v
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import unittest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"
IN_CI = os.environ.get("CI", "").lower() == "true"

try:
    import aoizora
except ImportError as error:  # a build without the module: say why, fail under CI
    if IN_CI:
        raise
    raise unittest.SkipTest(f"aoizora is not importable by {sys.executable}: {error}")

# A small, fast zoo case: Wan 2.1 T2V-1.3B at 256x256, 5 frames (2 latent frames of 16x16
# patches = 512 video tokens) on one 8-GPU H100 node.
SMALL = dict(model="wan2.1-t2v-1.3b", width=256, height=256, frames=5)
SMALL_FLAGS = ["--model", "wan2.1-t2v-1.3b", "--width", "256", "--height", "256", "--frames", "5"]
ONNX = REPO / "tests" / "data" / "onnx"
WAN_SHLO = REPO / "tests" / "data" / "stablehlo" / "wan13b_480p_81f_1block_b2.mlir"


def cli():
    path = os.environ.get("AOIZORA", "")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise unittest.SkipTest("no aoizora binary: set AOIZORA=path/to/aoizora (CTest does)")
    return path


def run_cli(*args):
    run = subprocess.run([cli(), *map(str, args)], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise AssertionError(f"aoizora {' '.join(map(str, args))} failed ({run.returncode}):\n{run.stderr[-3000:]}")
    return run.stdout


class CliPlanJson:
    """plan.json of `aoizora plan ARGS --out DIR -q`."""

    def __init__(self, *args):
        self._tmp = tempfile.TemporaryDirectory(prefix="aoizora_bindings_")
        out = os.path.join(self._tmp.name, "plan")
        run_cli("plan", *args, "-q", "--out", out)
        with open(os.path.join(out, "plan.json"), encoding="utf-8") as f:
            self.text = f.read()
        self._tmp.cleanup()


class ModelsAndTopologiesTest(unittest.TestCase):
    def test_models_are_the_clis(self):
        self.assertEqual(aoizora.models(), json.loads(run_cli("models", "--json")))

    def test_models_list_the_zoo(self):
        names = [m["model"] for m in aoizora.models()]
        self.assertIn("wan2.1-t2v-14b", names)
        self.assertIn("wan2.1-t2v-1.3b", names)
        # Every count comes from the built graph; the published Wan 2.1 T2V-1.3B count is
        # 1,418,996,800 parameters (reference/models.md, from the released checkpoint).
        wan = next(m for m in aoizora.models() if m["model"] == "wan2.1-t2v-1.3b")
        self.assertEqual(wan["params"], 1_418_996_800)

    def test_topologies_are_the_clis(self):
        listed = json.loads(run_cli("topo", "list", "--json"))
        self.assertEqual(aoizora.topologies(), listed["topologies"])
        self.assertIn("h100:8", aoizora.topologies())
        self.assertIn("v5e:2x4", aoizora.topologies())


class ZooPlanTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plan = aoizora.plan(**SMALL, topology="h100:8", progress=False)
        cls.cli = CliPlanJson(*SMALL_FLAGS, "--topology", "h100:8")

    def test_plan_json_is_the_clis(self):
        self.assertEqual(self.plan.to_json(), self.cli.text)

    def test_timing_adds_plan_time_only(self):
        timed = json.loads(self.plan.to_json(timing=True))
        self.assertGreater(timed.pop("plan_time_s"), 0)
        self.assertEqual(timed, self.plan.to_dict())

    def test_mesh_and_device_order(self):
        p = self.plan
        self.assertEqual(list(p.mesh), list(p.mesh_axes))
        devices = 1
        for size in p.mesh_shape:
            devices *= size
        self.assertEqual(devices, 8)  # every GPU of the node
        self.assertEqual(sorted(p.device_order), list(range(8)))  # a permutation of the chip ids
        self.assertEqual(p.device_order, p.data["best"]["placement"]["device_order"])

    def test_shardings_name_mesh_axes_only(self):
        p = self.plan
        self.assertTrue(p.shardings)
        self.assertIn("blocks.0.self_attn.q.weight", p.shardings)
        for name, spec in p.shardings.items():
            tensor = next(t for t in p.tensors if t["name"] == name)
            self.assertEqual(len(spec), len(tensor["shape"]), name)
            for entry in spec:
                axes = entry if isinstance(entry, tuple) else (entry,) if entry else ()
                for axis in axes:
                    self.assertIn(axis, p.mesh_axes, name)

    def test_latency_and_baselines(self):
        p = self.plan
        steps = p.inputs["steps"]
        self.assertGreater(p.step_latency_s, 0)
        # End to end: the encoders and the VAE (plan.json "stages") around the denoising steps.
        stages = sum(stage["latency_s"] for stage in p.data["stages"])
        self.assertEqual([stage["name"] for stage in p.data["stages"]], ["umt5-xxl", "wan-vae-decoder"])
        self.assertGreater(stages, 0)
        self.assertAlmostEqual(p.data["stages_latency_s"], stages, delta=1e-9 * stages)
        self.assertAlmostEqual(p.video_latency_s, stages + steps * p.step_latency_s, delta=1e-9 * p.video_latency_s)
        # stages=False is --no-stages: the steps alone, the same sharding.
        steps_only = aoizora.plan(**SMALL, topology="h100:8", alpa=False, stages=False, progress=False)
        self.assertEqual(steps_only.data["stages"], [])
        self.assertAlmostEqual(steps_only.video_latency_s, steps * steps_only.step_latency_s,
                               delta=1e-9 * steps_only.video_latency_s)
        self.assertGreater(p.breakdown["compute_s"], 0)
        expert = p.baselines["expert"]
        self.assertIsInstance(expert, aoizora.Configuration)
        # The best is the fastest of everything priced, the baselines included (search/planner.h).
        self.assertLessEqual(p.step_latency_s, expert.step_latency_s)
        self.assertGreaterEqual(p.speedups["over_expert"], 1.0)
        if p.baselines["alpa"] is not None:
            self.assertLessEqual(p.step_latency_s, p.baselines["alpa"].step_latency_s)
        # The model repository's recipe (Wan on 8 GPUs: Ring 8, 12 heads; FSDP), under the default order.
        deployed = p.baselines["deployed"]
        self.assertIsInstance(deployed, aoizora.Configuration)
        self.assertEqual(deployed.mesh, {"ring": 8})
        self.assertLessEqual(p.step_latency_s, deployed.step_latency_s)
        self.assertAlmostEqual(p.speedups["over_deployed"], deployed.step_latency_s / p.step_latency_s, places=9)

    def test_summary_and_code(self):
        self.assertIn("wan2.1-t2v-1.3b", self.plan.summary())
        self.assertIn("DEVICE_ORDER = " + str(self.plan.device_order), self.plan.jax_code())
        self.assertIn("RANK_LAYOUT", self.plan.torch_code("expert"))
        with self.assertRaises(aoizora.Error):
            self.plan.jax_code("annotated")  # a zoo plan has no program shardings


class StackPlanTest(unittest.TestCase):
    """stack= is `aoizora plan --stack`: the same plan.json bytes, the same refusals."""

    ARGS = dict(template="ulysses=4,cfg=2", placement="default", alpa=False, stages=False, progress=False)
    FLAGS = ["--template", "ulysses=4,cfg=2", "--placement", "default", "--no-alpa", "--no-stages"]

    def test_stack_is_the_clis(self):
        p = aoizora.plan(**SMALL, topology="h100:8", stack="cudnn", **self.ARGS)
        self.assertEqual(p.stack, "cudnn")
        self.assertEqual(p.to_json(), CliPlanJson(*SMALL_FLAGS, "--topology", "h100:8", "--stack", "cudnn",
                                                  *self.FLAGS).text)
        # Wan 2.1's default is fa2 (its reference code's flash_attn), slower than cuDNN's kernel.
        default = aoizora.plan(**SMALL, topology="h100:8", **self.ARGS)
        self.assertEqual(default.stack, "fa2")
        self.assertLess(p.step_latency_s, default.step_latency_s)

    def test_bad_stacks_raise(self):
        with self.assertRaisesRegex(aoizora.Error, "stack=: unknown attention library 'fa4'"):
            aoizora.plan(**SMALL, topology="h100:8", stack="fa4", **self.ARGS)
        with self.assertRaisesRegex(aoizora.Error, "fa3 runs on Hopper"):
            aoizora.plan(**SMALL, topology="a100:8", stack="fa3", **self.ARGS)


class TrainPlanTest(unittest.TestCase):
    """plan(train=True) is `aoizora plan --train`: the same plan.json bytes."""

    ARGS = dict(width=256, height=256, frames=9, topology="v5p:2x2x1", alpa=False)

    @classmethod
    def setUpClass(cls):
        cls.plan = aoizora.plan("wan2.1-t2v-1.3b", train=True, progress=False, **cls.ARGS)
        cls.cli = CliPlanJson("--train", "-m", "wan2.1-t2v-1.3b", "--width", 256, "--height", 256, "--frames", 9,
                              "-t", "v5p:2x2x1", "--no-alpa")

    def test_plan_json_is_the_clis(self):
        self.assertEqual(self.plan.to_json(), self.cli.text)

    def test_training_facts(self):
        p = self.plan
        self.assertTrue(p.train)
        self.assertEqual(p.inputs["micro_batch"], 4)  # one sample per chip
        self.assertIsNone(p.video_latency_s)
        self.assertAlmostEqual(p.samples_per_s, 4 / p.step_latency_s, delta=1e-9 * p.samples_per_s)
        self.assertIn(p.best.remat, ("none", "selected", "offload", "full"))
        self.assertTrue(any(t["role"] == "optimizer_state" for t in p.tensors))

    def test_training_errors(self):
        with self.assertRaises(aoizora.Error):
            aoizora.plan("wan2.1-t2v-1.3b", remat="full", progress=False, **self.ARGS)
        with self.assertRaises(aoizora.Error):
            aoizora.plan("wan2.1-t2v-1.3b", train=True, remat="most", progress=False, **self.ARGS)


class ProgramPlanTest(unittest.TestCase):
    def test_stablehlo_file_and_text_are_the_clis(self):
        # One Wan 2.1 T2V-1.3B block as JAX lowered it (tests/data/stablehlo), on a 2x2 v5e slice.
        cli_text = CliPlanJson("--stablehlo", WAN_SHLO, "--topology", "v5e:2x2", "--no-alpa").text
        from_path = aoizora.plan(stablehlo=WAN_SHLO, topology="v5e:2x2", alpa=False, progress=False)
        self.assertEqual(from_path.to_json(), cli_text)
        text = WAN_SHLO.read_text(encoding="utf-8")
        from_text = aoizora.plan(stablehlo=text, name=str(WAN_SHLO), topology="v5e:2x2", alpa=False, progress=False)
        self.assertEqual(from_text.to_json(), cli_text)
        self.assertEqual(from_path.inputs["program"], {"file": str(WAN_SHLO), "format": "stablehlo"})
        # The program's arguments in order, each named as in the plan's tensors.
        names = [plan_name for plan_name, _ in from_path.argument_names()]
        self.assertTrue(names)
        for name in names:
            if name:
                self.assertIn(name, from_path.shardings)
        self.assertEqual(len(from_path.argument_specs()), len(names))

    def test_onnx_file_and_bytes_are_the_clis(self):
        path = ONNX / "tiny_blocks.onnx"
        cli_text = CliPlanJson("--onnx", path, "--topology", "h100:8", "--no-alpa").text
        self.assertEqual(aoizora.plan(onnx=path, topology="h100:8", alpa=False, progress=False).to_json(), cli_text)
        from_bytes = aoizora.plan(onnx=path.read_bytes(), name=str(path), topology="h100:8", alpa=False,
                                  progress=False)
        self.assertEqual(from_bytes.to_json(), cli_text)
        self.assertEqual(from_bytes.inputs["program"]["format"], "onnx")
        self.assertIn("annotated", from_bytes.baselines)

    def test_onnx_dims_bind_like_the_cli(self):
        # The dynamic export has a symbolic sequence `seq` (tests/data/onnx/README.md); bound to
        # 8 it is the static file's shape.
        path = ONNX / "tiny_blocks_dynamic_noparams.onnx"
        cli_text = CliPlanJson("--onnx", path, "--dim", "seq=8", "--topology", "h100:4", "--no-alpa").text
        planned = aoizora.plan(onnx=path, dims={"seq": 8}, topology="h100:4", alpa=False, progress=False)
        self.assertEqual(planned.to_json(), cli_text)

    @unittest.skipUnless((SHARED / "stablehlo").is_dir() or IN_CI, "../shared/data is missing (under CI=true: a failure)")
    def test_shared_sample_is_the_clis(self):
        path = SHARED / "stablehlo" / "e2e_fsdp_tp_shardy.mlir"
        cli_text = CliPlanJson("--stablehlo", path, "--topology", "h100:8", "--no-alpa").text
        planned = aoizora.plan(stablehlo=str(path), topology="h100:8", alpa=False, progress=False)
        self.assertEqual(planned.to_json(), cli_text)
        # The program's own Shardy shardings (mesh x=2, y=4) are priced as the "annotated" baseline.
        self.assertIsNotNone(planned.baselines["annotated"])
        self.assertEqual(planned.baselines["annotated"].mesh, {"x": 2, "y": 4})


class ErrorTest(unittest.TestCase):
    """Bad input raises aoizora.Error (a ValueError) with the planner's diagnostic."""

    def assertError(self, fragment, **kwargs):
        kwargs.setdefault("progress", False)
        with self.assertRaises(aoizora.Error) as caught:
            aoizora.plan(**kwargs)
        self.assertIsInstance(caught.exception, ValueError)
        self.assertIn(fragment, str(caught.exception))
        return str(caught.exception)

    def test_unknown_model_and_topology(self):
        self.assertError("no-such-model", model="no-such-model", topology="h100:8")
        self.assertError("h100:9", **SMALL, topology="h100:9")

    def test_bad_sizes_name_the_rule(self):
        # Frames must be 4n+1 (the VAE's temporal compression, zoo.h).
        self.assertError("4n+1", model="wan2.1-t2v-1.3b", frames=6, topology="h100:8")

    def test_stablehlo_error_is_located(self):
        text = ("module @m {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
                "    %0 = stablehlo.add %arg0, %arg9 : tensor<4xf32>\n    return %0 : tensor<4xf32>\n  }\n}\n")
        message = self.assertError("bad.mlir:3:", stablehlo=text, name="bad.mlir", topology="h100:8")
        self.assertIn("^", message)  # the source line with a caret under the column

    def test_arguments_that_do_not_fit(self):
        self.assertError("give one of model=, stablehlo= and onnx=", topology="h100:8")
        self.assertError("describe a zoo model", onnx=ONNX / "tiny_blocks.onnx", width=256, topology="h100:8")
        self.assertError("expected NAME=SIZE", onnx=ONNX / "tiny_blocks.onnx", dims={"seq": 0}, topology="h100:8")
        self.assertError("seq", onnx=ONNX / "tiny_blocks_dynamic_noparams.onnx", topology="h100:8")
        self.assertError("nope.onnx", onnx="/nonexistent/nope.onnx", topology="h100:8")
        self.assertError("placement", **SMALL, topology="h100:8", placement="best")


class PriceTest(unittest.TestCase):
    def test_price_is_the_clis(self):
        with tempfile.TemporaryDirectory(prefix="aoizora_bindings_") as tmp:
            evidence = os.path.join(tmp, "usp.json")
            run_cli("compile", *SMALL_FLAGS, "--mesh", "x=2,y=2", "-T", "usp:ulysses=y,ring=x", "--evidence", evidence)
            for placement in (None, [3, 1, 0, 2]):
                flags = [] if placement is None else ["--placement", ",".join(map(str, placement))]
                expected = json.loads(run_cli("price", "--evidence", evidence, "--topology", "h100:4", "--json",
                                              *flags))
                got = aoizora.price(evidence, topology="h100:4", placement=placement)
                self.assertEqual(got, expected)
                self.assertGreater(got["latency_s"], 0)
            with open(evidence, encoding="utf-8") as f:
                as_dict = json.load(f)
            self.assertEqual(aoizora.price(as_dict, topology="h100:4")["latency_s"],
                             aoizora.price(evidence, topology="h100:4")["latency_s"])
            with self.assertRaises(aoizora.Error):
                aoizora.price(evidence, topology="h100:4", placement=[0, 0, 1, 2])  # chip 0 twice


class ProgressTest(unittest.TestCase):
    def test_callback_sees_the_stages_and_the_gil_is_free_meanwhile(self):
        calls, counter, done = [], [0], threading.Event()

        def spin():
            while not done.is_set():
                counter[0] += 1

        def progress(message, seconds):
            calls.append((message, seconds, counter[0]))

        spinner = threading.Thread(target=spin)
        spinner.start()
        try:
            aoizora.plan(**SMALL, topology="h100:8", alpa=False, progress=progress)
        finally:
            done.set()
            spinner.join()
        self.assertGreaterEqual(len(calls), 2)
        for message, seconds, _ in calls:
            self.assertIsInstance(message, str)
            self.assertGreaterEqual(seconds, 0)
        # Between the first and the last stage the planner ran with the GIL released, so the
        # spinning thread advanced (with the GIL held it could not run at all).
        self.assertGreater(calls[-1][2], calls[0][2])

    def test_an_exception_in_the_callback_is_raised(self):
        calls = []

        def progress(message, seconds):
            calls.append(message)
            raise KeyError("stop here")

        with self.assertRaises(KeyError):
            aoizora.plan(onnx=ONNX / "tiny_blocks.onnx", topology="h100:4", alpa=False, progress=progress)
        self.assertEqual(len(calls), 1)  # later stages are not reported once it raised

    def test_terminal_progress_rewrites_one_line(self):
        import io

        stream = io.StringIO()
        bar = aoizora.TerminalProgress(stream)
        aoizora.plan(onnx=ONNX / "tiny_blocks.onnx", topology="h100:4", alpa=False, progress=bar)
        bar.close()
        text = stream.getvalue()
        self.assertTrue(text.startswith("\r\x1b[K["))
        self.assertTrue(text.endswith("\n"))
        self.assertEqual(text.count("\n"), 1)  # one line, rewritten in place


if __name__ == "__main__":
    unittest.main()
