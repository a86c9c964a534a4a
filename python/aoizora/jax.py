"""aoizora.jax: plan a JAX function.

    import aoizora.jax
    planned = aoizora.jax.plan_function(step, params, x, topology="v5e:2x4")
    step = jax.jit(step, in_shardings=planned.in_shardings, out_shardings=planned.out_shardings)

plan_function lowers the function with JAX (jax.jit(fn, keep_unused=True).lower(*example_args):
every argument stays in the program, so the program's arguments are the flattened example
arguments in order), plans its StableHLO with aoizora.plan(stablehlo=...), and builds the mesh
(Plan.jax_mesh: the plan's device order) and a NamedSharding per argument and result. JAX is
imported when plan_function runs, not before.
"""

from . import plan as _plan
from ._core import Error


class FunctionPlan:
    """What plan_function returns: plan (the aoizora.Plan), mesh (jax.sharding.Mesh),
    in_shardings (a tuple, one pytree of NamedSharding per positional argument) and
    out_shardings (the result's pytree of NamedSharding), ready for jax.jit."""

    def __init__(self, plan, mesh, in_shardings, out_shardings):
        self.plan = plan
        self.mesh = mesh
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings

    def __repr__(self):
        return f"FunctionPlan({self.plan!r})"


def plan_function(fn, *example_args, topology, devices=None, name=None, **plan_options):
    """Plans `fn` called on `example_args` (arrays or jax.ShapeDtypeStruct pytrees) on
    `topology`; plan_options go to aoizora.plan (template=, seed=, progress=, ...). devices:
    the jax devices of the mesh (default jax.devices()). Raises aoizora.Error when the program's
    arguments do not match the example arguments."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    lowered = jax.jit(fn, keep_unused=True).lower(*example_args)
    program_name = name or getattr(fn, "__name__", "function") + ".stablehlo.mlir"
    plan = _plan(stablehlo=lowered.as_text(), name=program_name, topology=topology, **plan_options)
    mesh = plan.jax_mesh(devices)

    leaves, in_tree = jax.tree_util.tree_flatten(example_args)
    in_specs = plan.argument_specs()
    if len(in_specs) != len(leaves):
        raise Error(f"{program_name}: the lowered program has {len(in_specs)} arguments, the example arguments "
                    f"{len(leaves)} leaves")
    in_shardings = jax.tree_util.tree_unflatten(
        in_tree, [NamedSharding(mesh, PartitionSpec(*spec)) for spec in in_specs])
    out_specs = plan.result_specs()
    out_tree = lowered.out_tree
    if out_tree.num_leaves != len(out_specs):
        raise Error(f"{program_name}: the lowered program has {len(out_specs)} results, the function's output "
                    f"{out_tree.num_leaves} leaves")
    out_shardings = jax.tree_util.tree_unflatten(
        out_tree, [NamedSharding(mesh, PartitionSpec(*spec)) for spec in out_specs])
    return FunctionPlan(plan, mesh, in_shardings, out_shardings)
