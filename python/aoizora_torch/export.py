"""Export a torch.nn.Module to ONNX for `aoizora plan --onnx FILE` (docs/pytorch.md).

Library:
    from aoizora_torch.export import export
    export(module, example_inputs, "block.onnx", dynamic_axes={...}, input_names=[...])

Command line (run from the repository root with PYTHONPATH=python, Debian's /usr/bin/python3):
    python3 -m aoizora_torch.export --module tests/torch/wan_block.py:WanBlockWrapper \\
        --preset wan2.1-t2v-14b --tokens video_tokens=64,text_tokens=16 -o wan14b_block.onnx

The CLI loads CLASS from FILE and asks it for the module and its inputs:
    CLASS.from_preset(name, device=None, dtype=None)  the module (device="meta" for a cheap build)
    module.example_inputs(**sizes)                    the tracing inputs; --tokens gives the sizes
    CLASS.INPUT_NAMES, OUTPUT_NAMES, DYNAMIC_AXES     optional; the graph's names and symbolic dims
tests/torch/wan_block.py and tests/torch/hunyuan_blocks.py follow this protocol.

What the exported file holds:
  * The graph of one traced forward, by PyTorch's legacy TorchScript exporter (torch >= 2.5 is
    asked for it with dynamo=False), opset 17 by default. Sequence dims named in dynamic_axes are
    symbolic (dim_param "video_tokens", ...): trace at a small size, the importer binds the real one.
  * Weights as initializers (export_params=True), or, for big modules, no weights at all
    (export_params=False): every parameter is then a graph input named by its FQN, with its
    shape, after the module's own inputs. Without weights the module is traced on the meta
    device (export_preset builds it there): a Wan 14B block exports in seconds, in ~250 MB.
  * Either way, a metadata_props entry "aoizora.parameters": JSON [[fqn, [dims...], dtype], ...]
    of every parameter, in module order, so a reader knows which graph inputs are weights.
  * Constant folding is off by default: with it, the exporter folds Transpose(weight) of every
    Linear into a new initializer named "onnx::MatMul_<n>", and the FQN is lost. Without it, each
    Linear is Transpose(W) -> MatMul -> Add, and W keeps its name ("blocks.0.ffn.0.weight").

Only torch is needed (no onnx package): the metadata entry is written as raw protobuf bytes.
"""

import argparse
import contextlib
import importlib.util
import json
import os
import resource
import sys
import time

# ModelProto.metadata_props is field 14, a repeated StringStringEntryProto {key = 1, value = 2}.
_MODEL_METADATA_PROPS = 14
_PARAMETERS_KEY = "aoizora.parameters"
# Modules with more parameter bytes than this are exported without weights by default.
AUTO_PARAMS_LIMIT_BYTES = 64 << 20


def torch_version():
    """(major, minor) of the installed torch ("1.13.0a0+git..." -> (1, 13))."""
    import torch

    parts = torch.__version__.split("+")[0].split(".")
    digits = []
    for part in parts[:2]:
        number = ""
        for ch in part:
            if not ch.isdigit():
                break
            number += ch
        digits.append(int(number or 0))
    return tuple(digits)


# ---- Protobuf wire format, the few pieces needed. ----

def _varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _length_delimited(field, payload):
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def metadata_entry_bytes(key, value):
    """A ModelProto.metadata_props entry (field 14) as serialized bytes.

    Protobuf parsers merge a message from its fields in any order, and a repeated field's
    elements are appended as they come; so these bytes, appended to a serialized ModelProto,
    add one metadata_props entry to it (after any the exporter wrote). This is how we add
    metadata without the onnx package."""
    entry = _length_delimited(1, key.encode("utf-8")) + _length_delimited(2, value.encode("utf-8"))
    return _length_delimited(_MODEL_METADATA_PROPS, entry)


def parameter_table(module):
    """[[fqn, [dims...], dtype], ...] of every parameter, in named_parameters order."""
    table = []
    for name, param in module.named_parameters():
        table.append([name, list(param.shape), str(param.dtype).replace("torch.", "")])
    return table


def parameter_bytes(module):
    return sum(p.numel() * p.element_size() for p in module.parameters())


# ---- Exporting. ----

def _weights_as_inputs(module, count):
    """(wrapper, parameter FQNs, parameter tensors): the wrapper's forward takes `count` inputs and
    then every parameter of `module`, which it runs with those tensors in place of its own.

    Why: the legacy exporter evaluates what it can with the parameter values it holds (its
    shape inference folds Transpose(weight) on real data) and clones every traced input, so a
    Wan 14B block exported with its parameters as parameters costs 1.4 GB twice over and tens
    of seconds. Traced as inputs, the weights need no values: the module and its inputs can
    live on the meta device and the exporter never touches weight data."""
    from torch import nn

    named = list(module.named_parameters())
    slots = []
    for name, _ in named:
        owner, _, leaf = name.rpartition(".")
        slots.append((module.get_submodule(owner) if owner else module, leaf))

    class WeightsAsInputs(nn.Module):
        def __init__(self):
            super().__init__()
            # Not a registered submodule: the wrapper has no parameters (no initializers).
            object.__setattr__(self, "inner", module)

        def named_modules(self, *args, **kwargs):
            # The exporter names node scopes after the modules listed here: the inner module's
            # give the names a plain export gives ("/blocks.0/self_attn/q/MatMul").
            return module.named_modules(*args, **kwargs)

        def forward(self, *args):
            inputs, weights = args[:count], args[count:]
            saved = [owner._parameters[leaf] for owner, leaf in slots]
            try:
                for (owner, leaf), weight in zip(slots, weights):
                    owner._parameters[leaf] = weight
                return module(*inputs)
            finally:
                for (owner, leaf), param in zip(slots, saved):
                    owner._parameters[leaf] = param

    return WeightsAsInputs(), [name for name, _ in named], tuple(param.detach() for _, param in named)


@contextlib.contextmanager
def _layer_norm_without_affine_fix(opset):
    """torch 1.x exports F.layer_norm(x, shape, None, None) at opset 17 as LayerNormalization
    with an empty Scale input, which its own checker rejects. torch 2.x passes Constant ones
    (and zeros for a missing bias); do the same on 1.x for the duration of one export."""
    if opset < 17 or torch_version() >= (2, 0):
        yield
        return
    import torch
    from torch.onnx import symbolic_helper

    @symbolic_helper.parse_args("v", "is", "v", "v", "f", "none")
    def layer_norm(g, x, normalized_shape, weight, bias, eps, cudnn_enable):
        scalar = x.type().scalarType() if x.type().kind() == "TensorType" else None
        dtype = {"BFloat16": torch.bfloat16, "Half": torch.float16, "Double": torch.float64}.get(scalar, torch.float32)
        if symbolic_helper._is_none(weight):
            weight = g.op("Constant", value_t=torch.ones(normalized_shape, dtype=dtype))
        if symbolic_helper._is_none(bias):
            bias = g.op("Constant", value_t=torch.zeros(normalized_shape, dtype=dtype))
        return g.op("LayerNormalization", x, weight, bias, epsilon_f=eps, axis_i=-len(normalized_shape))

    torch.onnx.register_custom_op_symbolic("aten::layer_norm", layer_norm, opset)
    try:
        yield
    finally:
        torch.onnx.unregister_custom_op_symbolic("aten::layer_norm", opset)


def export(module, example_inputs, path, *, dynamic_axes=None, input_names=None, output_names=None,
           export_params=True, opset=17, do_constant_folding=False):
    """Exports `module` traced on `example_inputs` (a tuple) to the ONNX file `path`.

    With export_params=False the file holds no weights: each parameter is a graph input named
    by its FQN. Either way the file's metadata_props gets "aoizora.parameters" (see the module
    docstring). Returns a dict: path, bytes, seconds, parameters (count), export_params."""
    import torch

    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    module = module.eval()
    kwargs = dict(opset_version=opset, do_constant_folding=do_constant_folding, output_names=output_names,
                  dynamic_axes=dynamic_axes)
    if torch_version() >= (2, 5):
        kwargs["dynamo"] = False  # the TorchScript exporter: stable FQN names, dim_param axes
    start = time.perf_counter()
    if export_params:
        traced, args = module, example_inputs
        kwargs["input_names"] = input_names
        # The exporter merges initializers: in eval mode every two parameters with equal values
        # (two RMSNorm weights still at their initial ones become one tensor with one FQN); in
        # training mode only tensors that share storage (tied weights). So the root module
        # reports training=True, its submodules stay in eval mode (dropout and batch-norm trace
        # as in inference), and TrainingMode.PRESERVE keeps the exporter from resetting either.
        kwargs["training"] = torch.onnx.TrainingMode.PRESERVE
    else:
        traced, names, weights = _weights_as_inputs(module, len(example_inputs))
        if any(w.is_meta for w in weights):
            example_inputs = tuple(x.to("meta") if isinstance(x, torch.Tensor) else x for x in example_inputs)
        args = example_inputs + weights
        if input_names is None:
            input_names = [f"input_{k}" for k in range(len(example_inputs))]
        kwargs["input_names"] = list(input_names) + names
    saved_training = module.training
    module.training = export_params
    try:
        with torch.no_grad(), _layer_norm_without_affine_fix(opset):
            torch.onnx.export(traced, args, path, export_params=export_params, **kwargs)
    finally:
        module.training = saved_training
    table = parameter_table(module)
    with open(path, "ab") as f:
        f.write(metadata_entry_bytes(_PARAMETERS_KEY, json.dumps(table, separators=(",", ":"))))
    return {"path": path, "bytes": os.path.getsize(path), "seconds": time.perf_counter() - start,
            "parameters": sum(_numel(shape) for _, shape, _ in table), "export_params": export_params}


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# ---- Command line. ----

def load_class(spec):
    """'path/to/file.py:ClassName' -> the class."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise ValueError(f"--module wants FILE.py:CLASS, got {spec!r}")
    module_name = "aoizora_torch_user_" + os.path.splitext(os.path.basename(path))[0]
    spec_obj = importlib.util.spec_from_file_location(module_name, path)
    if spec_obj is None or spec_obj.loader is None:
        raise ValueError(f"cannot load {path}")
    user = importlib.util.module_from_spec(spec_obj)
    sys.modules[module_name] = user
    spec_obj.loader.exec_module(user)
    if not hasattr(user, name):
        raise ValueError(f"{path} has no {name}")
    return getattr(user, name)


def parse_sizes(text):
    """'video_tokens=64,text_tokens=16' -> {'video_tokens': 64, 'text_tokens': 16}."""
    sizes = {}
    for item in filter(None, (text or "").split(",")):
        key, sep, value = item.partition("=")
        if not sep or not value.strip().isdigit():
            raise ValueError(f"--tokens wants NAME=SIZE[,NAME=SIZE...], got {item!r}")
        sizes[key.strip()] = int(value)
    return sizes


def export_preset(cls, preset, path, *, sizes=None, params="auto", opset=17, dtype=None):
    """Builds CLASS.from_preset(preset) (on the meta device when weights are left out), traces
    it at `sizes` and exports. params: "auto" (weights when under AUTO_PARAMS_LIMIT_BYTES),
    "yes" or "no". Returns export()'s dict plus peak_rss_bytes (of this process so far)."""
    import torch

    dtype = dtype or torch.float32
    module = cls.from_preset(preset, device="meta", dtype=dtype)
    if params == "auto":
        export_params = parameter_bytes(module) <= AUTO_PARAMS_LIMIT_BYTES
    else:
        export_params = params == "yes"
    if export_params:
        torch.manual_seed(0)
        module = cls.from_preset(preset, dtype=dtype)  # real initial values
    # Without weights the module stays on the meta device: export() traces it on meta inputs.
    inputs = module.example_inputs(**(sizes or {}), dtype=dtype)
    result = export(module, inputs, path, dynamic_axes=getattr(cls, "DYNAMIC_AXES", None),
                    input_names=getattr(cls, "INPUT_NAMES", None), output_names=getattr(cls, "OUTPUT_NAMES", None),
                    export_params=export_params, opset=opset)
    # ru_maxrss is in KiB on Linux.
    result["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m aoizora_torch.export",
                                     description="Export a PyTorch module to ONNX for aoizora plan --onnx.")
    parser.add_argument("--module", required=True, help="FILE.py:CLASS (see the module docstring)")
    parser.add_argument("--preset", required=True, help="a name CLASS.from_preset knows")
    parser.add_argument("--tokens", default="", help="tracing sizes, NAME=SIZE[,NAME=SIZE...]")
    parser.add_argument("--params", choices=["auto", "yes", "no"], default="auto",
                        help="store weights in the file (auto: only under 64 MiB)")
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    try:
        import torch

        torch.onnx  # noqa: B018  (a tests/torch folder on sys.path is no PyTorch)
    except (ImportError, AttributeError):
        print("aoizora_torch.export: needs torch (Debian: apt-get install python3-torch; "
              "run with /usr/bin/python3)", file=sys.stderr)
        return 2
    try:
        cls = load_class(args.module)
        sizes = parse_sizes(args.tokens)
        presets = getattr(cls, "PRESETS", None)
        if presets is not None and args.preset not in presets:
            raise ValueError(f"unknown preset {args.preset!r} (known: {', '.join(sorted(presets))})")
    except ValueError as e:
        print(f"aoizora_torch.export: {e}", file=sys.stderr)
        return 2
    result = export_preset(cls, args.preset, args.output, sizes=sizes, params=args.params, opset=args.opset,
                           dtype=getattr(torch, args.dtype))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
