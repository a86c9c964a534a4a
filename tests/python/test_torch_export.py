"""Tests of python/aoizora_torch/export.py on the PyTorch DiT blocks in tests/torch (docs/pytorch.md).

Run from the repository root with Debian's interpreter, which has python3-torch
(scripts/install-deps --torch):
    PYTHONPATH=python /usr/bin/python3 -m unittest discover -s tests/python -p 'test_torch_*.py' -v

Exports, by PyTorch's own (legacy TorchScript) exporter, the tiny presets with their weights and
the real ones without (Wan 2.1 T2V-14B block, HunyuanVideo 13B double- and single-stream block),
then reads every file back with the small protobuf decoder below: a valid ModelProto, every
parameter FQN present with its shape (an initializer, or a graph input when the file holds no
weights), the "aoizora.parameters" metadata, the symbolic token dims, and the op types the
importer folds. Without torch the tests skip, unless CI=true, where they fail.

AOIZORA_TORCH_EXPORTS=DIR keeps the files, with manifest.json describing them (CTest passes
${CMAKE_BINARY_DIR}/torch_exports; the fixture "torch_exports" lets later tests require them).
"""

import collections
import json
import os
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "python"))

from aoizora_torch import export as ex  # noqa: E402  (imports no torch)

from torch_support import IN_CI, require_torch, torch  # noqa: E402,F401

TORCH_DIR = os.path.join(REPO, "tests", "torch")
# Tracing sizes: small; the token dims are symbolic in the files.
SIZES = {"video_tokens": 16, "text_tokens": 8}



# ---- A protobuf decoder: just the wire format, and the ONNX fields we read (formats.md §4.1). ----

class WireError(ValueError):
    pass


def read_varint(buf, pos):
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise WireError("truncated varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 64:
            raise WireError("varint over 64 bits")


def fields(buf):
    """[(field number, wire type, value)]: ints for varints, bytes otherwise. Raises WireError
    unless `buf` is exactly a sequence of well-formed fields."""
    out = []
    pos = 0
    while pos < len(buf):
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        if wire == 0:
            value, pos = read_varint(buf, pos)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            if pos + size > len(buf):
                raise WireError("truncated fixed field")
            value, pos = buf[pos:pos + size], pos + size
        elif wire == 2:
            size, pos = read_varint(buf, pos)
            if pos + size > len(buf):
                raise WireError(f"field {number}: {size} bytes past the end")
            value, pos = buf[pos:pos + size], pos + size
        else:
            raise WireError(f"wire type {wire}")
        out.append((number, wire, value))
    return out


def get_all(parsed, number):
    return [value for n, _, value in parsed if n == number]


def get_one(parsed, number, default=None):
    values = get_all(parsed, number)
    return values[-1] if values else default


def text(value):
    return value.decode("utf-8") if isinstance(value, bytes) else value


def value_info(buf):
    """ValueInfoProto -> (name, [dim_value or dim_param], elem_type)."""
    info = fields(buf)
    dims, elem = [], None
    type_proto = get_one(info, 2)
    tensor = get_one(fields(type_proto), 1) if type_proto else None
    if tensor is not None:
        tensor = fields(tensor)
        elem = get_one(tensor, 1)
        shape = get_one(tensor, 2)
        for dim in get_all(fields(shape), 1) if shape is not None else []:
            dim = fields(dim)
            param = get_one(dim, 2)
            dims.append(text(param) if param is not None else get_one(dim, 1))
    return text(get_one(info, 1)), dims, elem


def read_model(path):
    """The parts of a ModelProto the tests check, every nested message walked."""
    with open(path, "rb") as f:
        model = fields(f.read())
    graph_bytes = get_one(model, 7)
    if graph_bytes is None:
        raise WireError("no graph")
    graph = fields(graph_bytes)
    nodes = []
    for node in get_all(graph, 1):
        node = fields(node)
        for attribute in get_all(node, 5):
            attribute = fields(attribute)
            for tensor in get_all(attribute, 5):
                fields(tensor)
        nodes.append({"op": text(get_one(node, 4)), "inputs": [text(v) for v in get_all(node, 1)],
                      "outputs": [text(v) for v in get_all(node, 2)], "domain": text(get_one(node, 7, b""))})
    initializers = {}
    for tensor in get_all(graph, 5):
        tensor = fields(tensor)
        initializers[text(get_one(tensor, 8))] = [d for d in get_all(tensor, 1)]
    opsets = {}
    for opset in get_all(model, 8):
        opset = fields(opset)
        opsets[text(get_one(opset, 1, b""))] = get_one(opset, 2)
    metadata = {}
    for entry in get_all(model, 14):
        entry = fields(entry)
        metadata[text(get_one(entry, 1))] = text(get_one(entry, 2))
    for info in get_all(graph, 13):
        value_info(info)
    return {
        "ir_version": get_one(model, 1), "producer": text(get_one(model, 2, b"")), "opsets": opsets,
        "nodes": nodes, "ops": collections.Counter(n["op"] for n in nodes), "initializers": initializers,
        "inputs": [value_info(v) for v in get_all(graph, 11)],
        "outputs": [value_info(v) for v in get_all(graph, 12)], "metadata": metadata,
    }


# ---- The exports. ----

# name, file in tests/torch, class, preset, expected counts: attentions (Softmax), LayerNorms,
# GELU(tanh)s, Linears; and the symbolic dims its inputs carry.
EXPORTS = [
    ("wan2.1-tiny_block", "wan_block.py", "WanBlockWrapper", "tiny", 2, 3, 1, 10, {"video_tokens", "text_tokens"}),
    ("hunyuanvideo-tiny_double_block", "hunyuan_blocks.py", "HunyuanDoubleBlockWrapper", "tiny", 1, 4, 2, 10,
     {"video_tokens", "text_tokens"}),
    ("hunyuanvideo-tiny_single_block", "hunyuan_blocks.py", "HunyuanSingleBlockWrapper", "tiny", 1, 1, 1, 3,
     {"joint_tokens", "video_tokens"}),
    ("wan2.1-t2v-14b_block", "wan_block.py", "WanBlockWrapper", "wan2.1-t2v-14b", 2, 3, 1, 10,
     {"video_tokens", "text_tokens"}),
    ("hunyuanvideo-13b_double_block", "hunyuan_blocks.py", "HunyuanDoubleBlockWrapper", "hunyuanvideo-13b", 1, 4, 2,
     10, {"video_tokens", "text_tokens"}),
    ("hunyuanvideo-13b_single_block", "hunyuan_blocks.py", "HunyuanSingleBlockWrapper", "hunyuanvideo-13b", 1, 1, 1,
     3, {"joint_tokens", "video_tokens"}),
]

# Parameters per block, reference/models.md §1.3 and §2.3.
EXPECTED_PARAMETERS = {
    "wan2.1-t2v-14b_block": 351_394_304,
    "hunyuanvideo-13b_double_block": 339_831_296,
    "hunyuanvideo-13b_single_block": 141_591_808,
}

_state = {}


def setUpModule():
    require_torch()
    keep = os.environ.get("AOIZORA_TORCH_EXPORTS")
    if keep:
        os.makedirs(keep, exist_ok=True)
        directory = keep
    else:
        _state["tmp"] = tempfile.TemporaryDirectory(prefix="aoizora_torch_")
        directory = _state["tmp"].name
    _state["dir"] = directory
    manifest = []
    for name, source, class_name, preset, *_ in EXPORTS:
        path = os.path.join(directory, name + ".onnx")
        spec = os.path.join(TORCH_DIR, source) + ":" + class_name
        if preset == "tiny":
            # In this process: real initial weights, stored in the file.
            cls = ex.load_class(spec)
            result = ex.export_preset(cls, preset, path, sizes=SIZES)
            result.pop("peak_rss_bytes")  # this process's, not the export's
        else:
            # Through the command line, one process each, so that time and memory are the export's.
            env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
            run = subprocess.run([sys.executable, "-W", "ignore", "-m", "aoizora_torch.export", "--module", spec,
                                  "--preset", preset, "--tokens", "video_tokens=16,text_tokens=8", "-o", path],
                                 env=env, capture_output=True, text=True, check=False)
            if run.returncode != 0:
                raise RuntimeError(f"exporting {name} failed:\n{run.stderr[-4000:]}")
            result = json.loads(run.stdout.strip().splitlines()[-1])
        result.update({"name": name, "file": name + ".onnx", "module": f"tests/torch/{source}:{class_name}",
                       "preset": preset, "trace_sizes": SIZES})
        result["path"] = os.path.abspath(path)
        manifest.append(result)
    with open(os.path.join(directory, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    _state["manifest"] = {entry["name"]: entry for entry in manifest}
    _state["models"] = {entry["name"]: read_model(entry["path"]) for entry in manifest}


def tearDownModule():
    if "tmp" in _state:
        _state["tmp"].cleanup()


def module_parameters(source, class_name, preset):
    """[[fqn, shape, dtype]] of the preset, built on the meta device (no memory)."""
    cls = ex.load_class(os.path.join(TORCH_DIR, source) + ":" + class_name)
    return ex.parameter_table(cls.from_preset(preset, device="meta"))


class ExportedFilesTest(unittest.TestCase):
    def test_files_are_onnx_models(self):
        for name, *_ in EXPORTS:
            with self.subTest(name):
                model = _state["models"][name]
                self.assertGreaterEqual(model["ir_version"], 7)
                self.assertEqual(model["producer"], "pytorch")
                self.assertEqual(model["opsets"].get(""), 17)
                self.assertTrue(model["nodes"])
                self.assertTrue(all(n["domain"] == "" for n in model["nodes"]), "standard ops only")

    def test_every_parameter_is_there_by_fqn(self):
        for name, source, class_name, preset, *_ in EXPORTS:
            with self.subTest(name):
                model = _state["models"][name]
                stored = _state["manifest"][name]["export_params"]
                self.assertEqual(stored, preset == "tiny")
                table = module_parameters(source, class_name, preset)
                prefix = "blocks.0." if source == "wan_block.py" else (
                    "double_blocks.0." if "Double" in class_name else "single_blocks.0.")
                inputs = {n: dims for n, dims, _ in model["inputs"]}
                for fqn, shape, _ in table:
                    self.assertTrue(fqn.startswith(prefix), fqn)
                    where = model["initializers"] if stored else inputs
                    self.assertIn(fqn, where, f"{fqn} missing from the {'initializers' if stored else 'inputs'}")
                    self.assertEqual(where[fqn], shape, fqn)
                # No generated names: every initializer is a parameter (the exporter neither folded a
                # transposed copy of a weight nor merged equal ones).
                self.assertEqual(sorted(model["initializers"]), sorted(fqn for fqn, _, _ in table) if stored else [])
                if name in EXPECTED_PARAMETERS:
                    self.assertEqual(sum(ex._numel(shape) for _, shape, _ in table), EXPECTED_PARAMETERS[name])

    def test_parameter_metadata(self):
        for name, source, class_name, preset, *_ in EXPORTS:
            with self.subTest(name):
                metadata = _state["models"][name]["metadata"]
                self.assertIn("aoizora.parameters", metadata)
                decoded = json.loads(metadata["aoizora.parameters"])
                self.assertEqual(decoded, module_parameters(source, class_name, preset))
                self.assertEqual(sum(ex._numel(s) for _, s, _ in decoded), _state["manifest"][name]["parameters"])

    def test_token_dims_are_symbolic(self):
        for name, *rest in EXPORTS:
            with self.subTest(name):
                dims = set()
                for _, shape, _ in _state["models"][name]["inputs"]:
                    dims.update(d for d in shape if isinstance(d, str))
                self.assertTrue(rest[-1] <= dims, dims)
                self.assertIn("batch", dims)

    def test_op_types_the_importer_folds(self):
        # The patterns the ONNX importer folds back: attention (MatMul, Mul(scale), Softmax,
        # MatMul), LayerNormalization, RMSNorm (Pow, ReduceMean, Add, Sqrt, Div, Mul, Mul),
        # GELU(tanh) (Mul, Pow, Add, Tanh, ...), Linear (Transpose(W), MatMul, Add; Gemm on 2-D).
        known = {"Add", "Concat", "Constant", "Div", "Gather", "Gemm", "LayerNormalization", "MatMul", "Mul", "Neg",
                 "Pow", "ReduceMean", "Reshape", "Shape", "Sigmoid", "Slice", "Softmax", "Sqrt", "Squeeze", "Tanh",
                 "Transpose", "Unsqueeze"}
        for name, _, _, _, attentions, layer_norms, gelus, linears, _ in EXPORTS:
            with self.subTest(name):
                ops = _state["models"][name]["ops"]
                self.assertLessEqual(set(ops), known, sorted(set(ops) - known))
                self.assertEqual(ops["Softmax"], attentions)
                self.assertEqual(ops["LayerNormalization"], layer_norms)
                self.assertEqual(ops["Tanh"], gelus)
                # Each Linear is one MatMul (3-D input) or Gemm (2-D: the modulation on vec); each
                # attention two MatMuls.
                self.assertEqual(ops["MatMul"] + ops.get("Gemm", 0), linears + 2 * attentions)
                self.assertEqual(ops["Pow"], ops["Sqrt"], "one Pow and one Sqrt per RMSNorm")

    def test_weightless_files_are_small(self):
        for name, entry in _state["manifest"].items():
            with self.subTest(name):
                if not entry["export_params"]:
                    self.assertLess(entry["bytes"], 1 << 20)
                self.assertEqual(os.path.getsize(entry["path"]), entry["bytes"])


class WireFormatTest(unittest.TestCase):
    def test_metadata_entry_bytes(self):
        entry = ex.metadata_entry_bytes("k", "v\u00e9" * 100)
        (number, wire, payload), = fields(entry)
        self.assertEqual((number, wire), (14, 2))
        decoded = fields(payload)
        self.assertEqual(text(get_one(decoded, 1)), "k")
        self.assertEqual(text(get_one(decoded, 2)), "v\u00e9" * 100)

    def test_decoder_rejects_garbage(self):
        for bad in (b"\x0a\x05ab", b"\x80", b"\x07", b"\x00\x01"):
            with self.subTest(bad):
                with self.assertRaises(WireError):
                    fields(bad)


class ModulesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        require_torch()

    def test_real_rope_is_wans_complex_rope(self):
        wan = ex.load_class(os.path.join(TORCH_DIR, "wan_block.py") + ":WanBlockWrapper")
        user = sys.modules[wan.__module__]
        grid = (2, 3, 4)
        cos, sin = user.rope_tables(grid)
        x = torch.randn(1, 24, 2, 128, dtype=torch.float64)
        # Wan's rope_apply: adjacent pairs as complex numbers times e^{i angle}.
        angle = torch.atan2(sin[:, 0::2].double(), cos[:, 0::2].double())
        freqs = torch.polar(torch.ones_like(angle), angle)[:, None, :]
        reference = torch.view_as_real(torch.view_as_complex(x.reshape(1, 24, 2, 64, 2)) * freqs).flatten(3)
        got = user.apply_rope(x, cos.double(), sin.double())
        self.assertTrue(torch.allclose(got, reference, atol=1e-5), (got - reference).abs().max())
        # 44/42/42 dims per axis for 128-wide heads.
        self.assertEqual(user.rope_sections(128), (44, 42, 42))

    def test_blocks_run_and_keep_shapes(self):
        for source, class_name in (("wan_block.py", "WanBlockWrapper"),
                                   ("hunyuan_blocks.py", "HunyuanDoubleBlockWrapper"),
                                   ("hunyuan_blocks.py", "HunyuanSingleBlockWrapper")):
            with self.subTest(class_name):
                module = ex.load_class(os.path.join(TORCH_DIR, source) + ":" + class_name).from_preset("tiny")
                inputs = module.example_inputs(video_tokens=12, text_tokens=5)
                with torch.no_grad():
                    out = module(*inputs)
                outs = out if isinstance(out, tuple) else (out,)
                self.assertEqual(outs[0].shape, inputs[0].shape)
                self.assertTrue(all(torch.isfinite(o).all() for o in outs))


class CommandLineTest(unittest.TestCase):
    def run_cli(self, *args):
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        return subprocess.run([sys.executable, "-m", "aoizora_torch.export", *args], env=env, capture_output=True,
                              text=True, check=False)

    def test_bad_arguments_are_errors(self):
        require_torch()
        wan = os.path.join(TORCH_DIR, "wan_block.py") + ":WanBlockWrapper"
        for args, message in ((["--module", "no_colon", "--preset", "tiny"], "FILE.py:CLASS"),
                              (["--module", wan, "--preset", "tiny", "--tokens", "video_tokens"], "NAME=SIZE"),
                              (["--module", wan + "x", "--preset", "tiny"], "has no"),
                              (["--module", wan, "--preset", "wan9"], "unknown preset")):
            with self.subTest(args):
                run = self.run_cli(*args, "-o", os.devnull)
                self.assertEqual(run.returncode, 2, run.stderr)
                self.assertIn(message, run.stderr)

    def test_version_parsing(self):
        require_torch()
        self.assertGreaterEqual(ex.torch_version(), (1, 13))


if __name__ == "__main__":
    unittest.main()
