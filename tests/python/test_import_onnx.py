"""The PyTorch-exported blocks, imported by `aoizora --onnx`, against the zoo (issue 8's acceptance).

The exports are the ones python_torch_export wrote (CTest fixture torch_exports, folder
AOIZORA_TORCH_EXPORTS): one Wan 2.1 T2V-14B block and one HunyuanVideo double- and single-stream
block at the real widths, traced at a few tokens with the token counts symbolic, weights named by
their FQNs. Bound here to the zoo's 720p sizes, each must import with the zoo block's parameters
and FLOPs (within 1%), and the Wan block planned on h100:8 must get the zoo model's sharding class.

Needs the aoizora binary (AOIZORA). Without the exports (no PyTorch) it skips, except under
CI=true, where that is a failure.
"""

import json
import os
import subprocess
import unittest

AOIZORA = os.environ.get("AOIZORA", "")
EXPORTS = os.environ.get("AOIZORA_TORCH_EXPORTS", "")
IN_CI = os.environ.get("CI") == "true"

# Wan 2.1 T2V-14B at 1280x720, 81 frames: 21 x 45 x 80 = 75,600 video tokens, 512 text rows.
WAN_DIMS = {"batch": 1, "video_tokens": 75600, "text_tokens": 512}
# HunyuanVideo at 1280x720, 129 frames: 33 x 45 x 80 = 118,800 video tokens, 256 text tokens;
# the single-stream block runs on their concatenation, 119,056 rows.
HY_DIMS = {"batch": 1, "video_tokens": 118800, "text_tokens": 256, "joint_tokens": 119056}

# Parameters of one block (reference/models.md §1.3, §2.3):
#   Wan 14B: q, k, v, o of self- and cross-attention 8 x (5120^2 + 5120) = 209,756,160;
#     RMSNorm q/k of both attentions and the affine norm3 6 x 5120 = 30,720;
#     FFN 5120 x 13824 + 13824 + 13824 x 5120 + 5120 = 141,576,704; modulation 6 x 5120 = 30,720:
#     351,394,304.
#   HunyuanVideo double: 339,831,296; single: 141,591,808 (the same table).
BLOCK_PARAMS = {"wan2.1-t2v-14b_block": 351_394_304, "hunyuanvideo-13b_double_block": 339_831_296,
                "hunyuanvideo-13b_single_block": 141_591_808}


def run(*args, timeout=900):
    done = subprocess.run([AOIZORA, *args], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"aoizora {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


def dims_flags(dims):
    flags = []
    for name, size in dims.items():
        flags += ["--dim", f"{name}={size}"]
    return flags


def sharding_class(description):
    """The strategies that split compute, without cfg/dp (the imported block runs one pass) and
    fsdp (storage): "ulysses=4,ring=2,fsdp=8" -> {"ulysses", "ring"}."""
    kinds = {part.split("=")[0] for part in description.replace("xDiT ", "").split(",") if part}
    return kinds - {"cfg", "dp", "fsdp", "replicated"}


class ImportedBlocks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not AOIZORA or not os.access(AOIZORA, os.X_OK):
            raise unittest.SkipTest("AOIZORA does not name the aoizora binary")
        manifest = os.path.join(EXPORTS, "manifest.json") if EXPORTS else ""
        if not manifest or not os.path.exists(manifest):
            if IN_CI:
                raise AssertionError(f"CI=true but the torch exports are missing ({manifest or 'unset'})")
            raise unittest.SkipTest("no torch exports (PyTorch missing: scripts/install-deps --torch)")
        with open(manifest, encoding="utf-8") as f:
            cls.files = {entry["name"]: entry["path"] for entry in json.load(f)}

    def inspect(self, name, dims):
        return json.loads(run("inspect", "--onnx", self.files[name], *dims_flags(dims), "--json").stdout)

    def test_blocks_match_the_zoo(self):
        wan_zoo = json.loads(run("inspect", "--model", "wan2.1-t2v-14b", "--json").stdout)
        hy_zoo = json.loads(run("inspect", "--model", "hunyuanvideo-13b", "--width", "1280", "--height", "720",
                                "--frames", "129", "--json").stdout)
        # Model FLOPs of one block: the zoo's forward spread over its blocks. The embeddings, the
        # refiner and the head add under 0.5% (their matmuls run on 512 text rows or on 64 output
        # channels), so one block's share is within 1% of a block. Wan: 40 blocks. HunyuanVideo:
        # 20 double + 40 single blocks, whose matmul and attention FLOPs are equal at this size
        # (each runs qkv, mlp and the joint attention over the same 119,056 rows).
        cases = [("wan2.1-t2v-14b_block", WAN_DIMS, wan_zoo["flops_per_forward"] / 40),
                 ("hunyuanvideo-13b_double_block", HY_DIMS, hy_zoo["flops_per_forward"] / 60),
                 ("hunyuanvideo-13b_single_block", HY_DIMS, hy_zoo["flops_per_forward"] / 60)]
        for name, dims, zoo_flops in cases:
            with self.subTest(block=name):
                got = self.inspect(name, dims)
                self.assertEqual(got["format"], "onnx")
                self.assertEqual(got["params"], BLOCK_PARAMS[name])
                self.assertLess(abs(got["flops_per_forward"] - zoo_flops) / zoo_flops, 0.01,
                                f"{got['flops_per_forward']} vs the zoo's {zoo_flops}")
                # The folds found the attention (Wan: self and cross; HunyuanVideo: one joint).
                self.assertEqual(got["attention_ops"], 2 if name.startswith("wan") else 1)

    def test_the_two_exporters_agree(self):
        # tests/data/onnx/wan_block_tiny_*_dynamo.onnx: the same tiny Wan block exported on the
        # device machine by PyTorch 2.11's dynamo exporter (opset 20, LayerNormalization, Gelu;
        # weights in an external .data file that is not committed: the importer needs only their
        # dims). Here the legacy TorchScript exporter of Debian's PyTorch wrote the same module.
        # Both must give the same FLOPs and attention. Parameters differ by exactly what the dynamo
        # exporter's optimizer merged: initializers of equal value become one, and the fresh
        # module's four other norm weights of ones (self_attn.norm_k, cross_attn.norm_q/norm_k,
        # norm3; dim 256) became references to self_attn.norm_q.weight: 4 x 256 = 1,024 fewer.
        # Its pre-transposed Linear weights ("val_72") take their module's name.
        sizes = {"batch": 1, "video_tokens": 16, "text_tokens": 8}
        legacy = self.inspect("wan2.1-tiny_block", sizes)
        root = os.path.join(os.path.dirname(__file__), "..", "data", "onnx")
        for variant in ("static", "dynamic"):
            with self.subTest(variant=variant):
                path = os.path.join(root, f"wan_block_tiny_{variant}_dynamo.onnx")
                dims = dims_flags(sizes) if variant == "dynamic" else []
                got = json.loads(run("inspect", "--onnx", path, *dims, "--json").stdout)
                self.assertEqual(legacy["params"] - got["params"], 4 * 256)
                names = {a["name"] for a in got["arguments"]}
                self.assertIn("blocks.0.self_attn.q.weight", names)
                self.assertIn("blocks.0.ffn.2.weight", names)
                self.assertEqual(got["flops_per_forward"], legacy["flops_per_forward"])
                self.assertEqual(got["attention_ops"], legacy["attention_ops"])
                self.assertEqual(got["video_tokens"], 16)

    def test_wan_block_plans_like_the_zoo(self):
        block = json.loads(run("plan", "--onnx", self.files["wan2.1-t2v-14b_block"], *dims_flags(WAN_DIMS),
                               "--topology", "h100:8", "--no-alpa", "--json", "-q").stdout)
        zoo = json.loads(run("plan", "--model", "wan2.1-t2v-14b", "--cfg", "none", "--topology", "h100:8",
                             "--no-alpa", "--json", "-q").stdout)
        self.assertEqual(block["inputs"]["program"]["format"], "onnx")
        self.assertEqual(sharding_class(block["best"]["description"]), sharding_class(zoo["best"]["description"]),
                         f"block {block['best']['description']} vs zoo {zoo['best']['description']}")


if __name__ == "__main__":
    unittest.main()
