"""Tests of python/aoizora_jax/compile_candidates.py (docs/jax-loop.md).

Run from the repository root:
    PYTHONPATH=python python3 -m unittest discover -s tests/python -v

JAX is not installable on the development machines, so these tests cover the argument handling,
the spec mapping and the dry run with the standard library only. The compile loop itself
(mesh, in_shardings, aoizora_axes, manifest, skipping) runs against a small stand-in for jax and
numpy written by StubJaxTest; the real compile is exercised where JAX exists.
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(REPO, "python")
sys.path.insert(0, PYTHON_DIR)

from aoizora_jax import compile_candidates as cc  # noqa: E402

# Two candidates on 8 devices. The first gives blocks.0.* before blocks.*.weight, so that
# block 0's weight takes the first pattern and block 1's the second (first match wins).
CANDIDATES = {
    "format": "aoizora-candidates/1",
    "model": "wan2.1-t2v-1.3b", "width": 832, "height": 480, "frames": 81, "batch": 1,
    "cfg_mode": "two-pass", "topology": "v5e:2x4", "chips": 8,
    "candidates": [
        {"id": "ulysses4-ring2", "combo": "ulysses=4,ring=2", "expert": True,
         "mesh": [{"name": "ring", "size": 2}, {"name": "ulysses", "size": 4}],
         "axis_roles": ["ring", "ulysses"], "template": "usp:ulysses=ulysses,ring=ring",
         "hlo_file": "ulysses4-ring2.hlo",
         "inputs": {"x": [[], ["ring", "ulysses"], []], "t": [[]]},
         "parameters": {"blocks.0.*": [["ulysses"], []], "blocks.*.weight": [[], ["ring"]]}},
        {"id": "cfg2-ring4", "combo": "cfg=2,ring=4", "expert": False,
         "mesh": [{"name": "cfg", "size": 2}, {"name": "ring", "size": 4}],
         "axis_roles": ["cfg", "ring"], "template": "cfg=cfg,ring=ring,fsdp=cfg+ring",
         "hlo_file": "cfg2-ring4.hlo",
         "inputs": {"x": [["cfg"], ["ring"], []], "t": [[]]},
         "parameters": {"*.weight": [["cfg", "ring"], []]}},
    ],
}

INPUTS = {"args": [
    {"name": "params", "tree": {
        "blocks.0.attn.weight": {"shape": [64, 32], "dtype": "bfloat16"},
        "blocks.1.attn.weight": {"shape": [64, 32], "dtype": "bfloat16"},
        "blocks.1.attn.bias": {"shape": [32], "dtype": "float32"},
        "head.weight": {"shape": [64, 16], "dtype": "bfloat16"}}},
    {"name": "x", "shape": [2, 16, 8], "dtype": "bfloat16", "spec_from": "x"},
    {"name": "t", "shape": [2], "dtype": "float32", "spec": [[]]},
    {"name": "scale", "shape": [], "dtype": "float32"},
]}


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)
    return path


def copy(value):
    return json.loads(json.dumps(value))


class CliTest(unittest.TestCase):
    """Runs the module as a command, as a user would."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.out = os.path.join(self.dir, "out")
        self.cands = write_json(os.path.join(self.dir, "cands.json"), CANDIDATES)
        self.inputs = write_json(os.path.join(self.dir, "inputs.json"), INPUTS)

    def tearDown(self):
        self.tmp.cleanup()

    def cli(self, *extra, candidates=None, inputs=None, function="my_dit:forward",
            pythonpath=(PYTHON_DIR,), env=None):
        command = [sys.executable, "-m", "aoizora_jax.compile_candidates",
                   "--candidates", candidates or self.cands, "--function", function,
                   "--inputs", inputs or self.inputs, "--out", self.out, *extra]
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(pythonpath), **(env or {}))
        return subprocess.run(command, capture_output=True, text=True, env=environment,
                              cwd=self.dir, timeout=60)

    def assertUserError(self, result, *lines):
        """Exit status 2, nothing on stdout, exactly `lines` on stderr, no traceback."""
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(result.stderr.splitlines(), list(lines))


class DryRunTest(CliTest):
    def test_dry_run_prints_every_partition_spec(self):
        result = self.cli("--dry-run")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        # ulysses4-ring2 (ring 2 x ulysses 4):
        #   blocks.0.attn.weight: blocks.0.* comes first -> [["ulysses"], []]; 64 % 4 == 0
        #   blocks.1.attn.weight: not blocks.0.*, but blocks.*.weight -> [[], ["ring"]]
        #   blocks.1.attn.bias and head.weight match no pattern -> replicated
        #   x: inputs["x"] = [[], ["ring", "ulysses"], []] -> a tuple for the two axes; 16 % 8 == 0
        #   t: its explicit spec [[]]; scale: rank 0, no spec -> PartitionSpec()
        # cfg2-ring4 (cfg 2 x ring 4): every *.weight (head's too) -> [["cfg", "ring"], []],
        #   64 % 8 == 0; x -> [["cfg"], ["ring"], []], 2 % 2 == 0 and 16 % 4 == 0
        expected = f"""\
candidate ulysses4-ring2: ulysses=4,ring=2, expert
  mesh: Mesh(devices[:8].reshape((2, 4)), ('ring', 'ulysses'))
  aoizora_axes: {{'ring': 'ring', 'ulysses': 'ulysses'}}
  params.blocks.0.attn.weight: PartitionSpec('ulysses', None)  # pattern 'blocks.0.*'
  params.blocks.1.attn.weight: PartitionSpec(None, 'ring')  # pattern 'blocks.*.weight'
  params.blocks.1.attn.bias: PartitionSpec(None)  # no pattern: replicated
  params.head.weight: PartitionSpec(None, None)  # no pattern: replicated
  x: PartitionSpec(None, ('ring', 'ulysses'), None)  # inputs['x']
  t: PartitionSpec(None)  # spec
  scale: PartitionSpec()  # replicated
  output: {self.out}/ulysses4-ring2.hlo

candidate cfg2-ring4: cfg=2,ring=4
  mesh: Mesh(devices[:8].reshape((2, 4)), ('cfg', 'ring'))
  aoizora_axes: {{'cfg': 'cfg', 'ring': 'ring'}}
  params.blocks.0.attn.weight: PartitionSpec(('cfg', 'ring'), None)  # pattern '*.weight'
  params.blocks.1.attn.weight: PartitionSpec(('cfg', 'ring'), None)  # pattern '*.weight'
  params.blocks.1.attn.bias: PartitionSpec(None)  # no pattern: replicated
  params.head.weight: PartitionSpec(('cfg', 'ring'), None)  # pattern '*.weight'
  x: PartitionSpec('cfg', 'ring', None)  # inputs['x']
  t: PartitionSpec(None)  # spec
  scale: PartitionSpec()  # replicated
  output: {self.out}/cfg2-ring4.hlo

dry run: 2 candidates, nothing compiled
"""
        self.assertEqual(result.stdout, expected)
        self.assertFalse(os.path.exists(self.out), "a dry run writes nothing")

    def test_only_selects_candidates(self):
        result = self.cli("--dry-run", "--only", "cfg2-ring4")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("candidate cfg2-ring4:", result.stdout)
        self.assertNotIn("ulysses4-ring2", result.stdout)
        self.assertTrue(result.stdout.endswith("dry run: 1 candidate, nothing compiled\n"))


class SpecErrorTest(CliTest):
    def test_rank_mismatch(self):
        inputs = copy(INPUTS)
        inputs["args"][2]["spec"] = [[], []]  # t has rank 1
        result = self.cli("--dry-run", inputs=write_json(self.inputs, inputs))
        problem = "argument 't': the spec [[], []] has 2 entries but the argument has rank 1 " \
                  "(shape [2])"
        self.assertUserError(
            result,
            f"error: {self.inputs}: candidate 'ulysses4-ring2', {problem}",
            f"error: {self.inputs}: candidate 'cfg2-ring4', {problem}")

    def test_rank_mismatch_of_a_tree_leaf(self):
        candidates = copy(CANDIDATES)
        candidates["candidates"][1]["parameters"] = {"*": [["cfg", "ring"], []]}
        result = self.cli("--dry-run", "--only", "cfg2-ring4",
                          candidates=write_json(self.cands, candidates))
        # "*" also matches the rank-1 bias.
        self.assertUserError(
            result,
            f"error: {self.cands}: candidate 'cfg2-ring4', argument 'params', leaf "
            "'blocks.1.attn.bias' (pattern '*'): the spec [[\"cfg\", \"ring\"], []] has 2 "
            "entries but the argument has rank 1 (shape [32])")

    def test_unknown_axis(self):
        candidates = copy(CANDIDATES)
        candidates["candidates"][0]["inputs"]["x"] = [[], ["ring", "tensor"], []]
        result = self.cli("--dry-run", candidates=write_json(self.cands, candidates))
        self.assertUserError(
            result,
            f"error: {self.cands}: candidate 'ulysses4-ring2', argument 'x': dimension 1: "
            "axis 'tensor' is not in the candidate's mesh (axes: ring, ulysses)")

    def test_axis_used_twice(self):
        inputs = copy(INPUTS)
        inputs["args"][1] = {"name": "x", "shape": [8, 8], "dtype": "float32",
                             "spec": [["ring"], ["ring"]]}
        result = self.cli("--dry-run", "--only", "ulysses4-ring2",
                          inputs=write_json(self.inputs, inputs))
        self.assertUserError(
            result,
            f"error: {self.inputs}: candidate 'ulysses4-ring2', argument 'x': dimension 1: "
            "axis 'ring' shards the argument twice")

    def test_non_divisible_dimension(self):
        inputs = copy(INPUTS)
        inputs["args"][1]["shape"] = [2, 12, 8]
        result = self.cli("--dry-run", inputs=write_json(self.inputs, inputs))
        # ulysses4-ring2 splits dim 1 over ring x ulysses = 8 ways, and 12 % 8 != 0;
        # cfg2-ring4 splits it 4 ways, and 12 % 4 == 0.
        self.assertUserError(
            result,
            f"error: {self.cands}: candidate 'ulysses4-ring2', argument 'x': dimension 1 has "
            "size 12, not divisible by 8 (the shards of ring 2 x ulysses 4)")

    def test_spec_from_unknown_input(self):
        inputs = copy(INPUTS)
        inputs["args"][1]["spec_from"] = "latents"
        result = self.cli("--dry-run", "--only", "cfg2-ring4",
                          inputs=write_json(self.inputs, inputs))
        self.assertUserError(
            result,
            f"error: {self.inputs}: candidate 'cfg2-ring4', argument 'x': spec_from 'latents' "
            "names none of the candidate's inputs (x, t)")


class FileErrorTest(CliTest):
    def test_malformed_json_is_located(self):
        with open(self.cands, "w", encoding="utf-8") as f:
            f.write('{"format": "aoizora-candidates/1",\n'
                    ' "candidates": [\n'
                    '    {"id": "a" "mesh": []}\n'
                    ' ]\n}\n')
        result = self.cli("--dry-run")
        # Line 3 is `    {"id": "a" "mesh": []}`: four spaces, `{` at column 5, `"id"` at
        # 6-9, `:` at 10, `"a"` at 12-14, and the parser wants a ',' where `"mesh"` starts, 16.
        self.assertUserError(
            result,
            f"error: {self.cands}: line 3, column 16: Expecting ',' delimiter",
            '      {"id": "a" "mesh": []}',
            "  " + " " * 15 + "^")  # two spaces of indent, then the caret under column 16

    def test_wrong_format(self):
        candidates = copy(CANDIDATES)
        candidates["format"] = "aoizora-candidates/2"
        result = self.cli("--dry-run", candidates=write_json(self.cands, candidates))
        self.assertUserError(
            result,
            f"error: {self.cands}: format is \"aoizora-candidates/2\", expected "
            "\"aoizora-candidates/1\" (written by `aoizora plan --emit-candidates`)")

    def test_missing_key(self):
        candidates = copy(CANDIDATES)
        del candidates["candidates"][1]["mesh"]
        result = self.cli("--dry-run", candidates=write_json(self.cands, candidates))
        self.assertUserError(
            result, f"error: {self.cands}: candidates[1] ('cfg2-ring4'): missing key 'mesh'")

    def test_missing_file(self):
        missing = os.path.join(self.dir, "nope.json")
        result = self.cli("--dry-run", inputs=missing)
        self.assertUserError(result, f"error: {missing}: no such file")

    def test_misspelt_input_key(self):
        inputs = copy(INPUTS)
        inputs["args"][1]["spec_form"] = inputs["args"][1].pop("spec_from")
        result = self.cli("--dry-run", inputs=write_json(self.inputs, inputs))
        self.assertUserError(
            result,
            f"error: {self.inputs}: args[1] ('x'): unexpected key 'spec_form' (an argument is "
            "either {name, shape, dtype, spec_from or spec} or {name, tree})")

    def test_unknown_only_id(self):
        result = self.cli("--dry-run", "--only", "cfg2-ring4", "ring8")
        self.assertUserError(
            result, f"error: {self.cands}: --only ring8: no such candidate (candidates: "
            "ulysses4-ring2, cfg2-ring4)")

    def test_bad_function_spec(self):
        result = self.cli("--dry-run", function="my_dit.forward")
        self.assertUserError(
            result, "error: --function: expected module:function (e.g. my_dit:forward), got "
            "'my_dit.forward'")

    @unittest.skipIf(importlib.util.find_spec("jax") is not None, "JAX is installed here")
    def test_missing_jax(self):
        result = self.cli()
        self.assertUserError(
            result, "error: JAX is not installed (python3 -c 'import jax' fails): "
            "ModuleNotFoundError: No module named 'jax'")
        self.assertFalse(os.path.exists(self.out))


class PureFunctionTest(unittest.TestCase):
    """The pure-Python pieces, called directly."""

    def parameters(self, patterns):
        return [(p, cc.compile_pattern(p), ()) for p in patterns]

    def test_wildcard_precedence(self):
        parameters = self.parameters(["blocks.0.*", "blocks.*.weight", "*"])

        def first(name):
            match = cc.match_parameter(name, parameters)
            return match[0] if match else None

        self.assertEqual(first("blocks.0.ffn.weight"), "blocks.0.*")  # the first pattern wins
        self.assertEqual(first("blocks.1.ffn.weight"), "blocks.*.weight")
        # `*` spans several dotted components.
        self.assertEqual(first("blocks.12.ffn.0.weight"), "blocks.*.weight")
        self.assertEqual(first("head.bias"), "*")
        self.assertIsNone(cc.match_parameter("head.bias", parameters[:2]))  # replicated

    def test_wildcard_is_anchored_and_dots_are_literal(self):
        parameters = self.parameters(["blocks.*.weight"])
        self.assertIsNone(cc.match_parameter("blocksX1Xweight", parameters))
        self.assertIsNone(cc.match_parameter("blocks..weight", parameters))  # `*` is non-empty
        self.assertIsNone(cc.match_parameter("blocks.1.weight_scale", parameters))
        self.assertIsNone(cc.match_parameter("x.blocks.1.weight", parameters))

    def test_partition_spec_mapping(self):
        spec = cc.parse_spec([[], ["ring"], ["ring", "ulysses"]], "here", "f.json")
        self.assertEqual(cc.partition_spec(spec), (None, "ring", ("ring", "ulysses")))
        self.assertEqual(cc.format_partition_spec(cc.partition_spec(spec)),
                         "PartitionSpec(None, 'ring', ('ring', 'ulysses'))")
        self.assertEqual(cc.format_partition_spec(()), "PartitionSpec()")

    def test_malformed_spec(self):
        with self.assertRaises(cc.UserError) as caught:
            cc.parse_spec([[], "ring"], "args[1] ('x'): spec", "in.json")
        self.assertEqual(str(caught.exception),
                         "in.json: args[1] ('x'): spec: a spec is a list with one list of "
                         "mesh-axis names per dimension, e.g. [[], [\"ring\"]], got "
                         "[[], \"ring\"]")

    def test_check_spec(self):
        sizes = {"ring": 2, "ulysses": 4}
        self.assertEqual(cc.check_spec(((), ("ring", "ulysses")), (3, 16), sizes), [])
        self.assertEqual(cc.check_spec((("ulysses",),), (6,), sizes),
                         ["dimension 0 has size 6, not divisible by 4 (the shards of ulysses 4)"])

    def test_nest(self):
        self.assertEqual(cc.nest([(("a", "b"), 1), (("a", "c"), 2), (("d",), 3)]),
                         {"a": {"b": 1, "c": 2}, "d": 3})
        with self.assertRaises(ValueError):
            cc.nest([(("a",), 1), (("a", "b"), 2)])
        with self.assertRaises(ValueError):
            cc.nest([(("a", "b"), 1), (("a",), 2)])

    def test_aoizora_axes(self):
        candidate = cc.parse_candidates(CANDIDATES, "c.json")[0]
        self.assertEqual(candidate.aoizora_axes(), {"ring": "ring", "ulysses": "ulysses"})
        shared = copy(CANDIDATES)
        shared["candidates"][0]["axis_roles"] = ["fsdp", "fsdp"]
        candidate = cc.parse_candidates(shared, "c.json")[0]
        self.assertEqual(candidate.aoizora_axes(), {"fsdp": ("ring", "ulysses")})

    def test_accepts_aoizora_axes(self):
        def keyword(x, *, aoizora_axes):
            return x

        def positional(x, aoizora_axes=None):
            return x

        def plain(x, **kwargs):
            return x

        self.assertTrue(cc.accepts_aoizora_axes(keyword))
        self.assertTrue(cc.accepts_aoizora_axes(positional))
        self.assertFalse(cc.accepts_aoizora_axes(plain))

    def test_fake_devices_env(self):
        self.assertEqual(cc.fake_devices_env(8, {}),
                         {"XLA_FLAGS": "--xla_force_host_platform_device_count=8",
                          "JAX_PLATFORMS": "cpu"})
        environ = {"XLA_FLAGS": "--xla_dump_to=/tmp/d --xla_force_host_platform_device_count=2",
                   "JAX_PLATFORMS": "tpu"}
        self.assertEqual(cc.fake_devices_env(16, environ),
                         {"XLA_FLAGS": "--xla_dump_to=/tmp/d "
                          "--xla_force_host_platform_device_count=16",
                          "JAX_PLATFORMS": "cpu"})
        self.assertEqual(environ["JAX_PLATFORMS"], "tpu", "the helper changes nothing itself")

    def test_load_function(self):
        with tempfile.TemporaryDirectory() as directory:
            with open(os.path.join(directory, "good_dit.py"), "w") as f:
                f.write("def forward(x):\n    return x\nscale = 2\n")
            with open(os.path.join(directory, "broken_dit.py"), "w") as f:
                f.write("raise RuntimeError('no weights here')\n")
            self.assertEqual(cc.load_function("good_dit:forward", [directory])(3), 3)
            cases = {
                "broken_dit:forward": "--function broken_dit:forward: cannot import "
                "broken_dit: RuntimeError: no weights here",
                "missing_dit_module:forward": "--function missing_dit_module:forward: cannot "
                "import missing_dit_module: ModuleNotFoundError: No module named "
                "'missing_dit_module'",
                "good_dit:backward": "--function good_dit:backward: good_dit has no attribute "
                "'backward'",
                "good_dit:scale": "--function good_dit:scale: scale is a int, not a function",
                "good_dit:": "--function: expected module:function (e.g. my_dit:forward), got "
                "'good_dit:'",
            }
            for spec, message in cases.items():
                with self.subTest(spec=spec), self.assertRaises(cc.UserError) as caught:
                    cc.load_function(spec, [directory])
                self.assertEqual(str(caught.exception), message)


# A stand-in for jax and numpy: just enough of their API for the compile loop, recording what
# it is given. Its device count comes from XLA_FLAGS, which checks that --fake-devices sets it
# before jax is imported.
STUB_JAX = '''
import os
from . import numpy, sharding
__version__ = "0-stub"

class Device:
    platform = "cpu"
    def __init__(self, id):
        self.id = id

def devices(platform=None):
    count = 1
    for flag in os.environ.get("XLA_FLAGS", "").split():
        if flag.startswith("--xla_force_host_platform_device_count="):
            count = int(flag.split("=")[1])
    assert os.environ.get("JAX_PLATFORMS") == "cpu"
    return [Device(i) for i in range(count)]

class ShapeDtypeStruct:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype
    def __repr__(self):
        return f"ShapeDtypeStruct({self.shape}, {self.dtype})"

class _Compiled:
    def __init__(self, text):
        self.text = text
    def as_text(self):
        return self.text

class _Lowered(_Compiled):
    def compile(self):
        return _Compiled(self.text)

def jit(fn, in_shardings):
    class Jitted:
        def lower(self, *args):
            result = fn(*args)
            return _Lowered(f"HloModule stub\\nmesh {sharding.active}\\n"
                            f"in_shardings {in_shardings!r}\\nresult {result!r}\\n")
    return Jitted()
'''

STUB_SHARDING = '''
active = None

class Mesh:
    def __init__(self, devices, names):
        self.devices, self.names = devices, names
    def __enter__(self):
        global active
        active = self
    def __exit__(self, *exc):
        global active
        active = None
    def __repr__(self):
        return f"Mesh({self.devices.shape}, {self.names}, ids {self.devices.ids})"

class PartitionSpec(tuple):
    def __new__(cls, *entries):
        return super().__new__(cls, entries)
    def __repr__(self):
        return "P" + tuple.__repr__(self)

class NamedSharding:
    def __init__(self, mesh, spec):
        self.spec = spec
    def __repr__(self):
        return f"NS{self.spec!r}"
'''

STUB_NUMPY = '''
class _Array:
    def __init__(self, ids, shape):
        self.ids, self.shape = ids, tuple(shape)
    def reshape(self, shape):
        return _Array(self.ids, shape)

def array(items, dtype=None):
    assert dtype is object
    return _Array([d.id for d in items], [len(items)])
'''

USER_MODULE = '''
def forward(params, x, t, scale, aoizora_axes=None):
    if "fail" in aoizora_axes:
        raise ValueError("asked to fail")
    return {"axes": aoizora_axes, "blocks": sorted(params["blocks"]), "x": x}
'''


class StubJaxTest(CliTest):
    def test_compile_loop(self):
        stub = os.path.join(self.dir, "stub")
        os.makedirs(os.path.join(stub, "jax"))
        os.makedirs(os.path.join(stub, "numpy"))
        files = {"jax/__init__.py": STUB_JAX, "jax/sharding.py": STUB_SHARDING,
                 "jax/numpy.py": "def dtype(name):\n    return name\n",
                 "numpy/__init__.py": STUB_NUMPY}
        for name, text in files.items():
            with open(os.path.join(stub, name), "w") as f:
                f.write(textwrap.dedent(text))
        user = os.path.join(self.dir, "user")
        os.makedirs(user)
        with open(os.path.join(user, "my_dit.py"), "w") as f:
            f.write(USER_MODULE)

        candidates = copy(CANDIDATES)  # ulysses4-ring2 needs 8 devices: skipped on 4
        candidates["candidates"][1]["mesh"][1]["size"] = 2  # cfg2-ring2 on 4 devices
        candidates["candidates"][1]["id"] = "cfg2-ring2"
        candidates["candidates"][1]["hlo_file"] = "cfg2-ring2.hlo"
        candidates["candidates"].append(
            {"id": "fails", "mesh": [{"name": "cfg", "size": 2}], "axis_roles": ["fail"],
             "inputs": {"x": [[], [], []]}, "parameters": {}})
        os.makedirs(self.out)
        for stale in ("ulysses4-ring2.hlo", "fails.hlo"):
            with open(os.path.join(self.out, stale), "w") as f:
                f.write("HloModule old\n")

        result = self.cli("--fake-devices", "4", "--python-path", user,
                          candidates=write_json(self.cands, candidates),
                          pythonpath=(stub, PYTHON_DIR),
                          env={"XLA_FLAGS": "--xla_dump_to=/tmp/unused"})
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stderr.splitlines(), [
            "[1/3] ulysses4-ring2: skipped: needs 8 devices, 4 available (--fake-devices N "
            "gives N host CPU devices)",
            "[3/3] fails: failed: ValueError: asked to fail"])
        self.assertEqual(sorted(os.listdir(self.out)), ["cfg2-ring2.hlo", "manifest.json"])

        with open(os.path.join(self.out, "cfg2-ring2.hlo")) as f:
            hlo = f.read().splitlines()
        # The mesh is devices 0-3 in JAX's order as 2 x 2; the tree's shardings are nested
        # like the tree; aoizora_axes is bound from axis_roles.
        self.assertEqual(hlo[1], "mesh Mesh((2, 2), ('cfg', 'ring'), ids [0, 1, 2, 3])")
        self.assertEqual(
            hlo[2],
            "in_shardings ({'blocks': {'0': {'attn': {'weight': NSP(('cfg', 'ring'), None)}}, "
            "'1': {'attn': {'weight': NSP(('cfg', 'ring'), None), 'bias': NSP(None,)}}}, "
            "'head': {'weight': NSP(('cfg', 'ring'), None)}}, NSP('cfg', 'ring', None), "
            "NSP(None,), NSP())")
        self.assertEqual(hlo[3], "result {'axes': {'cfg': 'cfg', 'ring': 'ring'}, "
                         "'blocks': ['0', '1'], 'x': ShapeDtypeStruct((2, 16, 8), bfloat16)}")

        with open(os.path.join(self.out, "manifest.json")) as f:
            manifest = json.load(f)
        self.assertEqual(manifest["format"], "aoizora-compile-manifest/1")
        self.assertEqual(manifest["devices"], 4)
        entries = manifest["candidates"]
        self.assertEqual(list(entries), ["ulysses4-ring2", "cfg2-ring2", "fails"])
        self.assertEqual([e["status"] for e in entries.values()],
                         ["skipped", "compiled", "failed"])
        self.assertEqual(entries["fails"]["message"], "ValueError: asked to fail")
        self.assertEqual(entries["cfg2-ring2"]["hlo_file"], "cfg2-ring2.hlo")
        self.assertIsInstance(entries["cfg2-ring2"]["compile_s"], float)
        self.assertIsNone(entries["ulysses4-ring2"]["compile_s"])


if __name__ == "__main__":
    unittest.main()
