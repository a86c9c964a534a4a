"""Helpers that connect PyTorch modules with AoiZora's planner.

export: trace a torch.nn.Module and write ONNX for `aoizora plan --onnx FILE`, optionally without
weights (docs/pytorch.md). Nothing here imports torch at import time.
"""
