"""Compile every candidate of an AoiZora candidates file with JAX and dump the HLO.

    python3 -m aoizora_jax.compile_candidates --candidates cands.json \\
        --function my_dit:forward --inputs inputs.json --out hlo/ [--fake-devices 8]
    aoizora plan ... --compiler xla --hlo-dir hlo/

`aoizora plan --emit-candidates FILE` writes the parallelization candidates the planner
considers (format "aoizora-candidates/1": a mesh, the PartitionSpec of every input and
parameter pattern per candidate). For each candidate this script builds the mesh, lowers the
user's function with jax.jit(fn, in_shardings=...).lower(*abstract_args), compiles it, and
writes compiled.as_text() to OUT/<hlo_file> (hlo_file defaults to "<id>.hlo"), plus
OUT/manifest.json with each candidate's status ("compiled", "skipped", "failed"), message and
lower/compile times. The schemas and a full example are in docs/jax-loop.md.

The mesh is jax.sharding.Mesh(np.array(devices[:n]).reshape(sizes), names) with `devices` in
JAX's default order (jax.devices(platform)). That is deliberate: the compiled per-device program
depends on the mesh shape and axis names, not on which chip holds which logical rank, and the
planner searches the device order (placement) separately when it prices the imported dumps.

If the function has a parameter named `aoizora_axes`, it is bound with functools.partial (so it
is static, never traced) to {role: mesh axis name} from the candidate's axis_roles, e.g.
{"ring": "ring", "ulysses": "ulysses"}; a role held by several axes maps to the tuple of their
names. The jit runs inside `with mesh:` so the function's own with_sharding_constraint calls
may use bare PartitionSpecs.

Errors. Every user error (unreadable or malformed file, wrong format, missing key, a spec that
does not fit an argument, unknown --only id, bad --function) prints `error: <where>: <what>` on
stderr and exits 2 before anything is compiled; all spec errors of all selected candidates are
listed at once. A candidate that needs more devices than there are is skipped, one whose lowering
or compilation raises is marked failed (its stale .hlo, if any, is removed so that the planner
never imports an old dump); the exit status is then 1, and 0 when every candidate compiled.

JAX and numpy are imported only when compiling: --dry-run (print each candidate's mesh, the
PartitionSpec of every argument and tree leaf, and the output path) and every check above are
pure Python, which is what tests/python/test_compile_candidates.py exercises.
"""

import argparse
import dataclasses
import functools
import inspect
import json
import os
import re
import sys
import time

FORMAT = "aoizora-candidates/1"
MANIFEST_FORMAT = "aoizora-compile-manifest/1"

# Element types the input spec may name; all are jax.numpy dtype names.
DTYPES = frozenset(
    ["bool", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8", "uint16", "uint32",
     "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
     "float4_e2m1fn", "float8_e3m4", "float8_e4m3", "float8_e4m3fn", "float8_e4m3fnuz",
     "float8_e4m3b11fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"])


class UserError(Exception):
    """A mistake in the user's input: reported as `error: <where>: <what>`, exit 2."""

    def __init__(self, where, what):
        super().__init__(f"{where}: {what}" if where else what)


# ---------------------------------------------------------------------------------------------
# JSON files


def _reject_duplicate_keys(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r} in an object")
        result[key] = value
    return result


def _caret(text, line, column):
    """The source line (a window of at most 80 characters around `column`) and a caret."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    source = lines[line - 1].expandtabs(1)
    start = max(0, column - 1 - 40)
    return f"\n  {source[start:start + 80]}\n  {' ' * (column - 1 - start)}^"


def load_json(path):
    """The parsed JSON of `path`; UserError with line and column when it is malformed."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise UserError(path, "no such file") from None
    except UnicodeDecodeError as e:
        raise UserError(path, f"not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise UserError(path, f"cannot read: {e.strerror}") from None
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicate_keys)
    except json.JSONDecodeError as e:
        raise UserError(path, f"line {e.lineno}, column {e.colno}: {e.msg}"
                        + _caret(text, e.lineno, e.colno)) from None
    except ValueError as e:  # a duplicate key
        raise UserError(path, str(e)) from None


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _require(obj, key, where, path):
    if key not in obj:
        raise UserError(path, f"{where}: missing key {key!r}")
    return obj[key]


def _check_object(value, where, path):
    if not isinstance(value, dict):
        raise UserError(path, f"{where}: expected an object, got {type(value).__name__}")
    return value


# ---------------------------------------------------------------------------------------------
# Specs and parameter patterns


def parse_spec(value, where, path):
    """A spec as a tuple (one per dimension) of tuples of axis names, major to minor."""
    if not isinstance(value, list) or not all(
            isinstance(entry, list) and all(isinstance(a, str) and a for a in entry)
            for entry in value):
        raise UserError(path, f"{where}: a spec is a list with one list of mesh-axis names per "
                        f"dimension, e.g. [[], [\"ring\"]], got {json.dumps(value)}")
    return tuple(tuple(entry) for entry in value)


def spec_text(spec):
    """A spec as the file writes it: [[], ["ring", "ulysses"]]."""
    return json.dumps([list(entry) for entry in spec])


def partition_spec(spec):
    """The PartitionSpec entries of a spec: None for [], the name for one axis, else a tuple."""
    return tuple(None if not entry else entry[0] if len(entry) == 1 else tuple(entry)
                 for entry in spec)


def format_partition_spec(partition):
    """PartitionSpec(None, ('ring', 'ulysses')), valid Python for jax.sharding.PartitionSpec."""
    return "PartitionSpec(" + ", ".join(repr(entry) for entry in partition) + ")"


def compile_pattern(pattern):
    """A regex for a parameter pattern: `*` matches a non-empty run of characters, dots
    included (so one dotted component or more); everything else is literal."""
    return re.compile("(?:" + ".+".join(re.escape(part) for part in pattern.split("*")) + r")\Z")


def match_parameter(name, parameters):
    """The first (pattern, regex, spec) of `parameters`, in file order, matching `name`, or
    None (the parameter is replicated)."""
    for entry in parameters:
        if entry[1].match(name):
            return entry
    return None


def check_spec(spec, shape, axis_sizes):
    """The problems (strings) of giving an array of `shape` the spec on a mesh of `axis_sizes`
    ({name: size}, in mesh order): rank, unknown or repeated axes, divisibility."""
    if len(spec) != len(shape):
        return [f"the spec {spec_text(spec)} has {len(spec)} entries but the argument has "
                f"rank {len(shape)} (shape {list(shape)})"]
    problems, seen = [], set()
    for dim, entry in enumerate(spec):
        unknown = [axis for axis in entry if axis not in axis_sizes]
        for axis in unknown:
            problems.append(f"dimension {dim}: axis {axis!r} is not in the candidate's mesh "
                            f"(axes: {', '.join(axis_sizes)})")
        for axis in entry:
            if axis in seen:
                problems.append(f"dimension {dim}: axis {axis!r} shards the argument twice")
            seen.add(axis)
        if unknown or not entry:
            continue
        ways = 1
        for axis in entry:
            ways *= axis_sizes[axis]
        if shape[dim] % ways:
            factors = " x ".join(f"{axis} {axis_sizes[axis]}" for axis in entry)
            problems.append(f"dimension {dim} has size {shape[dim]}, not divisible by {ways} "
                            f"(the shards of {factors})")
    return problems


# ---------------------------------------------------------------------------------------------
# The candidates file. Keys this script does not use are ignored (the planner may add some);
# the ones it uses are checked.


@dataclasses.dataclass
class Candidate:
    id: str
    combo: str
    expert: bool
    mesh: list          # [(axis name, size)] in mesh order, major first
    axis_roles: list    # one role per mesh axis, or empty
    inputs: dict        # input name -> spec
    parameters: list    # [(pattern, regex, spec)] in file order
    hlo_file: str

    def axis_sizes(self):
        return dict(self.mesh)

    def device_count(self):
        count = 1
        for _, size in self.mesh:
            count *= size
        return count

    def aoizora_axes(self):
        """{role: axis name}, or {role: (names...)} for a role several axes share."""
        names = {}
        for role, (axis, _) in zip(self.axis_roles, self.mesh):
            names.setdefault(role, []).append(axis)
        return {role: axes[0] if len(axes) == 1 else tuple(axes) for role, axes in names.items()}


def _parse_candidate(obj, index, path):
    where = f"candidates[{index}]"
    _check_object(obj, where, path)
    cid = _require(obj, "id", where, path)
    if not isinstance(cid, str) or not cid:
        raise UserError(path, f"{where}: id must be a non-empty string")
    where = f"candidates[{index}] ({cid!r})"

    mesh = _require(obj, "mesh", where, path)
    if not isinstance(mesh, list) or not mesh:
        raise UserError(path, f"{where}: mesh must be a non-empty list of {{name, size}}")
    axes = []
    for i, axis in enumerate(mesh):
        _check_object(axis, f"{where}: mesh[{i}]", path)
        name, size = axis.get("name"), axis.get("size")
        if not isinstance(name, str) or not name or not _is_int(size) or size < 1:
            raise UserError(path, f"{where}: mesh[{i}] needs a non-empty string name and a "
                            f"positive integer size, got {json.dumps(axis)}")
        if name in dict(axes):
            raise UserError(path, f"{where}: mesh axis {name!r} appears twice")
        axes.append((name, size))

    roles = obj.get("axis_roles", [])
    if not isinstance(roles, list) or not all(isinstance(r, str) and r for r in roles) or (
            roles and len(roles) != len(axes)):
        raise UserError(path, f"{where}: axis_roles must list one role per mesh axis "
                        f"({len(axes)}), got {json.dumps(roles)}")

    inputs = _check_object(_require(obj, "inputs", where, path), f"{where}: inputs", path)
    inputs = {name: parse_spec(spec, f"{where}: inputs[{name!r}]", path)
              for name, spec in inputs.items()}
    parameters = []
    params = _check_object(_require(obj, "parameters", where, path), f"{where}: parameters", path)
    for pattern, spec in params.items():
        parameters.append((pattern, compile_pattern(pattern),
                           parse_spec(spec, f"{where}: parameters[{pattern!r}]", path)))

    hlo_file = obj.get("hlo_file", cid + ".hlo")
    if (not isinstance(hlo_file, str) or not hlo_file or hlo_file in (".", "..")
            or "/" in hlo_file or "\\" in hlo_file):
        raise UserError(path, f"{where}: hlo_file must be a plain file name, got "
                        f"{json.dumps(hlo_file)}")
    combo, expert = obj.get("combo", ""), obj.get("expert", False)
    if not isinstance(combo, str) or not isinstance(expert, bool):
        raise UserError(path, f"{where}: combo must be a string and expert a boolean")
    return Candidate(cid, combo, expert, axes, roles, inputs, parameters, hlo_file)


def parse_candidates(obj, path):
    """The candidates of a parsed candidates file, in file order."""
    _check_object(obj, "the top level", path)
    fmt = _require(obj, "format", "the top level", path)
    if fmt != FORMAT:
        raise UserError(path, f"format is {json.dumps(fmt)}, expected \"{FORMAT}\" (written by "
                        "`aoizora plan --emit-candidates`)")
    listed = _require(obj, "candidates", "the top level", path)
    if not isinstance(listed, list):
        raise UserError(path, "candidates must be a list")
    candidates, hlo_files = [], {}
    for index, entry in enumerate(listed):
        candidate = _parse_candidate(entry, index, path)
        if any(c.id == candidate.id for c in candidates):
            raise UserError(path, f"candidates[{index}]: id {candidate.id!r} appears twice")
        if candidate.hlo_file in hlo_files:
            raise UserError(path, f"candidates[{index}] ({candidate.id!r}): hlo_file "
                            f"{candidate.hlo_file!r} is also candidate "
                            f"{hlo_files[candidate.hlo_file]!r}'s")
        hlo_files[candidate.hlo_file] = candidate.id
        candidates.append(candidate)
    return candidates


def select_candidates(candidates, only, path):
    """The candidates named by --only (in file order), or all of them."""
    if not only:
        return list(candidates)
    known = [c.id for c in candidates]
    for cid in only:
        if cid not in known:
            raise UserError(path, f"--only {cid}: no such candidate (candidates: "
                            f"{', '.join(known) or 'none'})")
    return [c for c in candidates if c.id in only]


# ---------------------------------------------------------------------------------------------
# The input spec: the function's positional arguments.


@dataclasses.dataclass
class Arg:
    name: str
    shape: tuple = ()
    dtype: str = ""
    spec_from: str = None
    spec: tuple = None
    leaves: list = None   # for a tree: [(dotted name, shape, dtype)], else None


def nest(pairs):
    """A nested dict from [(path components, value)]; ValueError when a path is both a leaf
    and a subtree."""
    root = {}
    for path, value in pairs:
        node = root
        for depth, key in enumerate(path[:-1]):
            node = node.setdefault(key, {})
            if not isinstance(node, dict):
                raise ValueError(f"{'.'.join(path[:depth + 1])!r} is a leaf and a subtree")
        if path[-1] in node:
            raise ValueError(f"{'.'.join(path)!r} is a leaf and a subtree")
        node[path[-1]] = value
    return root


def _parse_array(obj, where, path):
    shape, dtype = obj.get("shape"), obj.get("dtype")
    if not isinstance(shape, list) or not all(_is_int(d) and d >= 0 for d in shape):
        raise UserError(path, f"{where}: shape must be a list of non-negative integers, got "
                        f"{json.dumps(shape)}")
    if dtype not in DTYPES:
        raise UserError(path, f"{where}: dtype {json.dumps(dtype)} is not one of "
                        f"{', '.join(sorted(DTYPES))}")
    return tuple(shape), dtype


def parse_inputs(obj, path):
    """The arguments of a parsed input-spec file, in order. Unknown keys are errors (the file is
    written by hand, so a misspelt key must not pass silently)."""
    _check_object(obj, "the top level", path)
    for key in obj:
        if key != "args":
            raise UserError(path, f"the top level: unknown key {key!r} (expected \"args\")")
    listed = _require(obj, "args", "the top level", path)
    if not isinstance(listed, list):
        raise UserError(path, "args must be a list")
    args = []
    for index, entry in enumerate(listed):
        where = f"args[{index}]"
        _check_object(entry, where, path)
        name = _require(entry, "name", where, path)
        if not isinstance(name, str) or not name:
            raise UserError(path, f"{where}: name must be a non-empty string")
        if any(a.name == name for a in args):
            raise UserError(path, f"{where}: argument name {name!r} appears twice")
        where = f"args[{index}] ({name!r})"
        allowed = {"name", "tree"} if "tree" in entry else {
            "name", "shape", "dtype", "spec_from", "spec"}
        for key in entry:
            if key not in allowed:
                raise UserError(path, f"{where}: unexpected key {key!r} (an argument is either "
                                "{name, shape, dtype, spec_from or spec} or {name, tree})")
        if "tree" in entry:
            tree = _check_object(entry["tree"], f"{where}: tree", path)
            leaves = []
            for leaf_name, leaf in tree.items():
                leaf_where = f"{where}: tree[{leaf_name!r}]"
                if not leaf_name or "" in leaf_name.split("."):
                    raise UserError(path, f"{leaf_where}: empty name component")
                _check_object(leaf, leaf_where, path)
                for key in leaf:
                    if key not in ("shape", "dtype"):
                        raise UserError(path, f"{leaf_where}: unexpected key {key!r}")
                leaves.append((leaf_name, *_parse_array(leaf, leaf_where, path)))
            try:
                nest([(tuple(n.split(".")), None) for n, _, _ in leaves])
            except ValueError as e:
                raise UserError(path, f"{where}: tree: {e}") from None
            args.append(Arg(name, leaves=leaves))
            continue
        shape, dtype = _parse_array(entry, where, path)
        if "spec_from" in entry and "spec" in entry:
            raise UserError(path, f"{where}: give spec_from or spec, not both")
        spec_from = entry.get("spec_from")
        if spec_from is not None and (not isinstance(spec_from, str) or not spec_from):
            raise UserError(path, f"{where}: spec_from must name one of a candidate's inputs")
        spec = parse_spec(entry["spec"], f"{where}: spec", path) if "spec" in entry else None
        args.append(Arg(name, shape, dtype, spec_from, spec))
    return args


# ---------------------------------------------------------------------------------------------
# A candidate applied to the arguments


@dataclasses.dataclass
class Placed:
    """One array argument or tree leaf with its PartitionSpec entries."""
    label: str        # "x", or "params.blocks.0.ffn.0.weight" for a leaf
    path: tuple       # components inside the tree; () for an array argument
    shape: tuple
    dtype: str
    partition: tuple
    source: str       # where the spec came from, for the dry run


def resolve(candidate, args, candidates_path, inputs_path):
    """[(Arg, [Placed])] for `candidate`, and the list of error lines (empty when it fits)."""
    sizes = candidate.axis_sizes()
    resolved, errors = [], []

    def place(label, path, shape, dtype, spec, source, where, what):
        if spec is None:
            spec = ((),) * len(shape)
        for problem in check_spec(spec, shape, sizes):
            errors.append(f"{where}: candidate {candidate.id!r}, {what}: {problem}")
        return Placed(label, path, shape, dtype, partition_spec(spec), source)

    for arg in args:
        what = f"argument {arg.name!r}"
        if arg.leaves is not None:
            placed = []
            for leaf_name, shape, dtype in arg.leaves:
                match = match_parameter(leaf_name, candidate.parameters)
                pattern = match[0] if match else None
                source = f"pattern {pattern!r}" if match else "no pattern: replicated"
                placed.append(place(f"{arg.name}.{leaf_name}", tuple(leaf_name.split(".")),
                                    shape, dtype, match[2] if match else None, source,
                                    candidates_path,
                                    f"{what}, leaf {leaf_name!r} (pattern {pattern!r})"
                                    if match else f"{what}, leaf {leaf_name!r}"))
            resolved.append((arg, placed))
            continue
        if arg.spec_from is not None:
            if arg.spec_from not in candidate.inputs:
                errors.append(f"{inputs_path}: candidate {candidate.id!r}, {what}: spec_from "
                              f"{arg.spec_from!r} names none of the candidate's inputs "
                              f"({', '.join(candidate.inputs) or 'none'})")
                continue
            spec, source, where = (candidate.inputs[arg.spec_from], f"inputs[{arg.spec_from!r}]",
                                   candidates_path)
        elif arg.spec is not None:
            spec, source, where = arg.spec, "spec", inputs_path
        else:
            spec, source, where = None, "replicated", inputs_path
        resolved.append((arg, [place(arg.name, (), arg.shape, arg.dtype, spec, source,
                                     where, what)]))
    return resolved, errors


def mesh_text(candidate):
    names = tuple(name for name, _ in candidate.mesh)
    sizes = tuple(size for _, size in candidate.mesh)
    return f"Mesh(devices[:{candidate.device_count()}].reshape({sizes!r}), {names!r})"


def dry_run_text(candidate, resolved, out_dir):
    """What --dry-run prints for one candidate."""
    header = f"candidate {candidate.id}"
    if candidate.combo or candidate.expert:
        header += ": " + ", ".join(filter(None, [candidate.combo,
                                                 "expert" if candidate.expert else ""]))
    lines = [header, f"  mesh: {mesh_text(candidate)}",
             f"  aoizora_axes: {candidate.aoizora_axes()!r}"]
    for _, placed in resolved:
        for p in placed:
            lines.append(f"  {p.label}: {format_partition_spec(p.partition)}  # {p.source}")
    lines.append(f"  output: {os.path.join(out_dir, candidate.hlo_file)}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The environment, the user's function, JAX


def fake_devices_env(count, environ):
    """The variables --fake-devices sets before JAX is imported: `count` host CPU devices,
    appended to XLA_FLAGS (replacing an earlier device-count flag), and JAX_PLATFORMS=cpu."""
    flag = "--xla_force_host_platform_device_count"
    kept = [f for f in environ.get("XLA_FLAGS", "").split() if f.split("=")[0] != flag]
    return {"XLA_FLAGS": " ".join(kept + [f"{flag}={count}"]), "JAX_PLATFORMS": "cpu"}


def parse_function_spec(spec):
    """(module, attribute path) of a `module:function` spec."""
    module, sep, attribute = spec.partition(":")
    parts = module.split(".") + attribute.split(".")
    if not sep or not all(p.isidentifier() for p in parts):
        raise UserError("--function", f"expected module:function (e.g. my_dit:forward), got "
                        f"{spec!r}")
    return module, attribute


def load_function(spec, python_path=()):
    """The callable named by `module:function`, importing the module with `python_path`
    prepended to sys.path (first directory first)."""
    import importlib

    module_name, attribute = parse_function_spec(spec)
    sys.path[0:0] = list(python_path)
    where = f"--function {spec}"
    try:
        obj = importlib.import_module(module_name)
    except (Exception, SystemExit) as e:
        raise UserError(where, f"cannot import {module_name}: {type(e).__name__}: {e}") from None
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise UserError(where, f"{getattr(obj, '__name__', module_name)} has no "
                            f"attribute {part!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UserError(where, f"{attribute} is a {type(obj).__name__}, not a function")
    return obj


def accepts_aoizora_axes(fn):
    """Whether `fn` has a parameter aoizora_axes that can be passed by keyword."""
    try:
        parameter = inspect.signature(fn).parameters.get("aoizora_axes")
    except (TypeError, ValueError):
        return False
    return parameter is not None and parameter.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


def import_jax():
    try:
        import jax
        import jax.numpy
        import numpy
    except Exception as e:
        raise UserError(None, "JAX is not installed (python3 -c 'import jax' fails): "
                        f"{type(e).__name__}: {e}") from None
    return jax, numpy


def compile_candidate(jax, np, fn, devices, candidate, resolved):
    """The compiled HLO text and (lower, compile) seconds of one candidate."""
    count = candidate.device_count()
    mesh = jax.sharding.Mesh(
        np.array(devices[:count], dtype=object).reshape([s for _, s in candidate.mesh]),
        tuple(name for name, _ in candidate.mesh))
    abstract, shardings = [], []
    for arg, placed in resolved:
        pairs = [(p, jax.ShapeDtypeStruct(p.shape, jax.numpy.dtype(p.dtype)),
                  jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*p.partition)))
                 for p in placed]
        if arg.leaves is None:
            abstract.append(pairs[0][1])
            shardings.append(pairs[0][2])
        else:
            abstract.append(nest([(p.path, a) for p, a, _ in pairs]))
            shardings.append(nest([(p.path, s) for p, _, s in pairs]))
    if accepts_aoizora_axes(fn):
        fn = functools.partial(fn, aoizora_axes=candidate.aoizora_axes())
    start = time.perf_counter()
    with mesh:
        lowered = jax.jit(fn, in_shardings=tuple(shardings)).lower(*abstract)
        lowered_at = time.perf_counter()
        compiled = lowered.compile()
    done = time.perf_counter()
    text = compiled.as_text()
    if not text:
        raise RuntimeError("compiled.as_text() returned no HLO")
    return text, lowered_at - start, done - lowered_at


def _write_atomically(path, text):
    temporary = path + ".tmp"
    with open(temporary, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temporary, path)


def compile_all(options, candidates, resolved_by_id, fn, jax, np):
    """Compiles every candidate, writing the dumps and the manifest; the exit status."""
    try:
        devices = jax.devices(options.platform) if options.platform else jax.devices()
    except Exception as e:
        raise UserError(f"--platform {options.platform or '(default)'}",
                        f"{type(e).__name__}: {e}") from None
    try:
        os.makedirs(options.out, exist_ok=True)
    except OSError as e:
        raise UserError(options.out, f"cannot create the directory: {e.strerror}") from None
    manifest = {"format": MANIFEST_FORMAT, "candidates_file": options.candidates,
                "function": options.function, "jax_version": getattr(jax, "__version__", ""),
                "platform": devices[0].platform if devices else "", "devices": len(devices),
                "candidates": {}}
    manifest_path = os.path.join(options.out, "manifest.json")
    all_compiled = True
    for number, candidate in enumerate(candidates, 1):
        hlo_path = os.path.join(options.out, candidate.hlo_file)
        entry = {"hlo_file": candidate.hlo_file, "status": "compiled", "message": "",
                 "lower_s": None, "compile_s": None}
        progress = f"[{number}/{len(candidates)}] {candidate.id}"
        if candidate.device_count() > len(devices):
            entry["status"] = "skipped"
            entry["message"] = (f"needs {candidate.device_count()} devices, "
                                f"{len(devices)} available (--fake-devices N gives N host "
                                "CPU devices)")
        else:
            start = time.perf_counter()
            try:
                text, entry["lower_s"], entry["compile_s"] = compile_candidate(
                    jax, np, fn, devices, candidate, resolved_by_id[candidate.id])
                _write_atomically(hlo_path, text)
                entry["message"] = f"{len(text)} characters of HLO"
            except Exception as e:
                entry["status"] = "failed"
                entry["message"] = f"{type(e).__name__}: {e}"
                entry["compile_s"] = round(time.perf_counter() - start, 3)
        if entry["status"] == "compiled":
            print(f"{progress}: compiled in {entry['lower_s']:.2f} s + "
                  f"{entry['compile_s']:.2f} s -> {hlo_path}", flush=True)
        else:
            all_compiled = False
            try:
                os.remove(hlo_path)  # never leave an older dump for the planner to import
            except FileNotFoundError:
                pass
            first_line = (entry["message"].splitlines() or [""])[0]
            print(f"{progress}: {entry['status']}: {first_line}", file=sys.stderr, flush=True)
        manifest["candidates"][candidate.id] = entry
        _write_atomically(manifest_path, json.dumps(manifest, indent=2) + "\n")
    statuses = [e["status"] for e in manifest["candidates"].values()]
    print(f"{statuses.count('compiled')} compiled, {statuses.count('skipped')} skipped, "
          f"{statuses.count('failed')} failed; manifest {manifest_path}")
    return 0 if all_compiled else 1


# ---------------------------------------------------------------------------------------------
# The command line


def _positive(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def make_parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m aoizora_jax.compile_candidates",
        description="Lower and compile each candidate of `aoizora plan --emit-candidates` with "
        "jax.jit and write its HLO text for `aoizora plan --compiler xla --hlo-dir`.",
        epilog="See docs/jax-loop.md. Exit status: 0 all compiled (or --dry-run), 1 some "
        "skipped or failed, 2 a user error.")
    parser.add_argument("--candidates", required=True, metavar="FILE")
    parser.add_argument("--function", required=True, metavar="MODULE:FUNCTION")
    parser.add_argument("--inputs", required=True, metavar="SPEC.json")
    parser.add_argument("--out", required=True, metavar="DIR")
    parser.add_argument("--only", nargs="+", action="extend", default=[], metavar="ID")
    parser.add_argument("--platform", choices=["cpu", "tpu", "gpu"])
    parser.add_argument("--fake-devices", type=_positive, metavar="N")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--python-path", action="append", default=[], metavar="DIR")
    return parser


def run(options):
    parse_function_spec(options.function)
    for directory in options.python_path:
        if not os.path.isdir(directory):
            raise UserError(directory, "--python-path: no such directory")
    if options.fake_devices and options.platform not in (None, "cpu"):
        raise UserError("--fake-devices", f"makes host CPU devices; --platform "
                        f"{options.platform} contradicts it")
    candidates = parse_candidates(load_json(options.candidates), options.candidates)
    selected = select_candidates(candidates, options.only, options.candidates)
    args = parse_inputs(load_json(options.inputs), options.inputs)

    resolved_by_id, errors = {}, []
    for candidate in selected:
        resolved_by_id[candidate.id], problems = resolve(candidate, args, options.candidates,
                                                         options.inputs)
        errors += problems
    if errors:
        for line in errors:
            print(f"error: {line}", file=sys.stderr)
        return 2

    if options.dry_run:
        for candidate in selected:
            print(dry_run_text(candidate, resolved_by_id[candidate.id], options.out))
        print(f"dry run: {len(selected)} candidate{'s' if len(selected) != 1 else ''}, "
              "nothing compiled")
        return 0

    if options.fake_devices:
        os.environ.update(fake_devices_env(options.fake_devices, os.environ))
    jax, np = import_jax()
    fn = load_function(options.function, options.python_path)
    return compile_all(options, selected, resolved_by_id, fn, jax, np)


def main(argv=None):
    options = make_parser().parse_args(argv)
    try:
        return run(options)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
