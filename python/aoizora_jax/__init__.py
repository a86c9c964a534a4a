"""Helpers that connect AoiZora's planner with JAX.

compile_candidates: lower and compile every candidate of `aoizora plan --emit-candidates`
with jax.jit and dump the compiled HLO for `aoizora plan --compiler xla --hlo-dir`
(docs/jax-loop.md). Nothing here imports JAX at import time.
"""
