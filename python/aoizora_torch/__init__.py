"""Helpers that connect PyTorch modules with AoiZora's planner.

export: trace a torch.nn.Module and write ONNX for `aoizora plan --onnx FILE`, optionally without
weights (docs/pytorch.md). runtime: run a generated plan_torch.py with plain torch.distributed
collectives on any torch >= 1.13 (plan.parallelize_runtime; docs/pytorch.md, section 4). Nothing
here imports torch at import time.
"""
