"""Exports tests/torch/wan_block.py's tiny preset with PyTorch's default (dynamo, torch.export)
ONNX exporter, for the ONNX importer's tests: python/aoizora_torch/export.py uses the legacy
TorchScript exporter, and files from the new one have to import too. Part of
scripts/device/run-device-checks.sh; every failure is logged, none is fatal.

    python3 scripts/device/export_onnx_dynamo.py --out OUT/onnx

Writes OUT/wan_block_tiny_static.onnx (traced shapes), OUT/wan_block_tiny_dynamic.onnx (the
module's DYNAMIC_AXES as dynamic dims, when the exporter takes them), and OUT/summary.json
(versions, opsets, each file's op-type counts, inputs and outputs, or the error).
"""

import argparse
import collections
import importlib.util
import json
import os
import sys
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODULE_FILE = os.path.join(ROOT, "tests", "torch", "wan_block.py")


def load_module_class():
    spec = importlib.util.spec_from_file_location("wan_block", MODULE_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.WanBlockWrapper


def describe(path):
    """Op-type counts, opsets, graph inputs and outputs of an ONNX file (needs `onnx`)."""
    import onnx

    model = onnx.load(path, load_external_data=False)

    def value_info(v):
        dims = [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
        return [v.name, dims]

    return {"bytes": os.path.getsize(path),
            "opsets": {o.domain or "ai.onnx": o.version for o in model.opset_import},
            "ops": dict(collections.Counter(n.op_type for n in model.graph.node).most_common()),
            "functions": len(model.functions), "initializers": len(model.graph.initializer),
            "inputs": [value_info(v) for v in model.graph.input],
            "outputs": [value_info(v) for v in model.graph.output]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    options = parser.parse_args()
    os.makedirs(options.out, exist_ok=True)
    summary = {"module": "tests/torch/wan_block.py:WanBlockWrapper", "preset": "tiny",
               "exports": {}}
    import torch

    summary["torch"] = torch.__version__
    try:
        import onnx
        import onnxscript
        summary["onnx"], summary["onnxscript"] = onnx.__version__, onnxscript.__version__
    except Exception as e:
        summary["onnx"] = f"not importable: {e}"
    cls = load_module_class()
    module = cls.from_preset("tiny").eval()
    inputs = module.example_inputs(video_tokens=16, text_tokens=8)
    names = dict(input_names=getattr(cls, "INPUT_NAMES", None),
                 output_names=getattr(cls, "OUTPUT_NAMES", None))
    attempts = [("wan_block_tiny_static", {}),
                ("wan_block_tiny_dynamic", {"dynamic_axes": getattr(cls, "DYNAMIC_AXES", None)})]
    failures = 0
    for name, extra in attempts:
        path = os.path.join(options.out, name + ".onnx")
        entry = {}
        start = time.perf_counter()
        try:
            with torch.no_grad():
                torch.onnx.export(module, inputs, path, dynamo=True, **names, **extra)
            entry["export_s"] = round(time.perf_counter() - start, 2)
            entry.update(describe(path))
            entry["status"] = "exported"
            print(f"{name}: exported in {entry['export_s']} s, {entry['bytes']} bytes, ops "
                  f"{entry['ops']}", flush=True)
        except Exception as e:
            failures += 1
            entry.update(status="failed", error=f"{type(e).__name__}: {e}"[:2000],
                         traceback=traceback.format_exc()[-4000:])
            print(f"{name}: FAILED: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
        summary["exports"][name] = entry
        with open(os.path.join(options.out, "summary.json"), "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
