"""AoiZora from Python: plan a video diffusion transformer on a slice of chips.

    import aoizora
    plan = aoizora.plan(model="wan2.1-t2v-1.3b", topology="h100:8", width=832, height=480, frames=17)
    plan.mesh            # {"x": 2, "y": 4}
    plan.device_order    # device id of each logical rank (row-major mesh position)
    plan.shardings       # {tensor name: PartitionSpec-style tuple}
    plan.to_json()       # the CLI's plan.json, byte for byte

The planner is the C++ library (aoizora._core, built by CMake: docs/python.md);
this package shapes its answers for Python and hands them to JAX or PyTorch,
which it imports only when asked to (Plan.jax_mesh, Plan.torch_device_mesh,
aoizora.jax.plan_function).
"""

import json as _json
import os as _os
import pkgutil as _pkgutil

# The extension is built into <build>/python/aoizora/ while this file stays in
# python/aoizora/: with both folders on sys.path the package spans them.
__path__ = _pkgutil.extend_path(__path__, __name__)

try:
    from . import _core
except ImportError as _error:  # pragma: no cover - depends on the build
    raise ImportError(
        "aoizora._core (the C++ planner) is not importable: build the target aoizora_python and put "
        "<build>/python on PYTHONPATH, or install it (docs/python.md)"
    ) from _error

from ._plan import Configuration, Plan  # noqa: E402
from ._progress import TerminalProgress  # noqa: E402

Error = _core.Error
Error.__doc__ = "A user error from the planner; the message is its diagnostic, with its location."
Error.__module__ = __name__

__all__ = ["Configuration", "Error", "Plan", "TerminalProgress", "models", "plan", "price", "topologies"]


def models():
    """The model zoo: one dict per model, as `aoizora models --json` lists it (model, params,
    description, default_width, default_height, default_frames, default_steps, default_cfg)."""
    return _json.loads(_core.models_json())


def topologies():
    """The named systems a topology= argument takes ("v5e:2x4", "h100:8", ...)."""
    return list(_core.topologies())


def _read_bytes(path, what):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as error:
        raise Error(f"cannot open '{_os.fspath(path)}' ({what}): {error.strerror}") from None


def _topology(topology):
    """(spec, JSON text or bytes, or None): a named system, a topology JSON file, or its parsed dict."""
    if isinstance(topology, dict):
        return "<topology>", _json.dumps(topology)
    if isinstance(topology, _os.PathLike) or (isinstance(topology, str) and topology.endswith(".json")):
        path = _os.fspath(topology)
        return path, _read_bytes(path, "topology")
    if not isinstance(topology, str):
        raise TypeError(f"topology: expected a name, a .json path or a dict, got {type(topology).__name__}")
    return topology, None


def _calibration(calibration):
    """(name, JSON text or None): a calibration JSON file or its parsed dict; None: the chip's."""
    if calibration is None:
        return "", None
    if isinstance(calibration, dict):
        return "<calibration>", _json.dumps(calibration)
    path = _os.fspath(calibration)
    return path, _read_bytes(path, "calibration")


def _default_progress():
    import sys

    stream = sys.stderr
    return TerminalProgress(stream) if stream is not None and stream.isatty() else None


def plan(model=None, *, topology, stablehlo=None, onnx=None, name=None, latent=None, dims=None,
         width=None, height=None, frames=None, steps=None, batch=1, cfg=None, dtype="bf16",
         template=None, placement="search", calibration=None, stack=None, threads=2, seed=1, top_k=6, alpa=True,
         stages=True, target="any", train=False, micro_batch=None, remat=None, progress=None):
    """Plans a model on a slice and returns a Plan (what `aoizora plan` computes).

    The model, one of:
      model="wan2.1-t2v-14b" with width=, height=, frames=, steps=, batch=, cfg= ("two-pass",
          "batch2", "none") and dtype= ("bf16", "f16", "f32"); unset ones take the model's defaults;
      stablehlo=TEXT (jax.jit(f).lower(...).as_text()), or a file: a path, or a one-line str
          naming an existing file;
      onnx=FILE (a path) or onnx=BYTES (the file's contents);
      with a program: name= (how the plan and its diagnostics name an in-memory program; a
          file's path by default), latent= (the input carrying the video tokens), dims=
          {"NAME": size} (symbolic dims of an ONNX file) and steps=.
    The search: topology= (a named system, see topologies(); a topology JSON file; or its dict),
    template= (pin a sharding: "ulysses=4,ring=2"), placement= ("search" or "default"),
    calibration= (a calibration JSON file or dict), stack= (the software stack to price with,
    the CLI's --stack: "fa2", "fa3", "cudnn", ...; None: the model's deployed library on these
    chips; the plan's inputs["stack"] says which was priced), threads=, seed=, top_k=, alpa= (False skips
    the Alpa baseline), stages= (False prices the denoising steps only: no encoders or VAE in
    video_latency_s, the CLI's --no-stages), target= (the runtime the plan is for, the CLI's
    --target: "any", "jax", "maxdiffusion", "xdit"; the best is a configuration it runs).
    Training (`aoizora plan --train`): train=True plans a training step (forward, backward and
    AdamW) of micro_batch= samples (default: one per chip) at the clip width=, height=, frames=;
    remat= ("none", "selected", "full") pins the per-block rematerialization, else the planner
    picks the cheapest that fits per candidate. Such a plan has samples_per_s and remat instead
    of video_latency_s.
    progress: a callable(message, elapsed_seconds) called at every stage of the search (from
    the planner's threads, one call at a time); None shows a progress line when stderr is a
    terminal; True shows it anyway; False shows nothing. An exception it raises stops nothing
    but is raised when the planner returns (so does Ctrl-C: the search runs to its end).

    Raises aoizora.Error (a ValueError) with the planner's diagnostic on bad input.
    """
    request = _core.PlanRequest()
    programs = [key for key, value in (("model", model), ("stablehlo", stablehlo), ("onnx", onnx)) if value is not None]
    if len(programs) != 1:
        raise Error("give one of model=, stablehlo= and onnx=" + (f" (got {', '.join(programs)})" if programs else ""))
    if model is not None:
        if not isinstance(model, str):
            raise TypeError(f"model: expected a zoo model name, got {type(model).__name__}")
        if name is not None or latent is not None or dims:
            raise Error("name=, latent= and dims= describe an imported program (stablehlo= or onnx=), not a zoo model")
        request.model = model
        request.width, request.height, request.frames = width, height, frames
        request.batch = batch
        request.cfg = cfg or ""
        request.dtype = dtype
    else:
        if width is not None or height is not None or frames is not None or cfg is not None or batch != 1:
            raise Error("width=, height=, frames=, batch= and cfg= describe a zoo model; an imported program has "
                        "its shapes already (bind symbolic dims with dims={NAME: SIZE})")
        request.program_format = "stablehlo" if stablehlo is not None else "onnx"
        source = stablehlo if stablehlo is not None else onnx
        if isinstance(source, str) and stablehlo is not None and "\n" not in source and _os.path.isfile(source):
            source = _os.fspath(source)  # a file's name (one line naming a file is no StableHLO module)
        elif isinstance(source, str) and stablehlo is not None:
            # StableHLO as text, the way jax's Lowered.as_text() gives it.
            source = source.encode("utf-8")
        if isinstance(source, (bytes, bytearray)):
            request.program_contents = bytes(source)
            request.program_file = name or f"<{request.program_format}>"
        elif isinstance(source, (str, _os.PathLike)):
            request.program_file = _os.fspath(source)
            if name:  # the file read here, named as asked
                request.program_contents = _read_bytes(request.program_file, request.program_format)
                request.program_file = name
        else:
            raise TypeError(f"{request.program_format}: expected text, bytes or a path, got {type(source).__name__}")
        request.latent = latent or ""
        request.dims = [f"{key}={value}" for key, value in (dims or {}).items()]
    request.steps = steps
    request.topology, request.topology_json = _topology(topology)
    request.calibration_name, request.calibration_json = _calibration(calibration)
    request.stack = stack or ""
    request.target = target
    request.template = template or ""
    if placement not in ("search", "default"):
        raise Error(f"placement: expected 'search' or 'default', got {placement!r}")
    request.search_placement = placement == "search"
    if not 1 <= threads <= 256:
        raise Error(f"threads: expected 1 to 256, got {threads}")
    if not 1 <= top_k <= 1000:
        raise Error(f"top_k: expected 1 to 1000, got {top_k}")
    request.threads, request.seed, request.top_k, request.alpa = threads, seed, top_k, bool(alpa)
    request.stages = bool(stages)
    request.train = bool(train)
    if micro_batch is not None:
        if not 1 <= micro_batch <= 1024:
            raise Error(f"micro_batch: expected 1 to 1024, got {micro_batch}")
        request.micro_batch = micro_batch
    request.remat = remat or ""

    if progress is None:
        progress = _default_progress()
    elif progress is True:
        import sys

        progress = TerminalProgress(sys.stderr)
    elif progress is False:
        progress = None
    elif not callable(progress):
        raise TypeError(f"progress: expected a callable, None, True or False, got {type(progress).__name__}")
    try:
        result = _core.plan(request, progress)
    finally:
        if isinstance(progress, TerminalProgress):
            progress.close()
    return Plan(result)


def price(evidence, *, topology, placement=None, calibration=None):
    """One run of compiled evidence (`aoizora compile --evidence FILE`) under one placement, as
    `aoizora price --evidence FILE --json` reports it: a dict with latency_s, the placement and
    its method, and the breakdown (compute, communication, collective classes, link loads).

    evidence: the evidence JSON file's path, or its parsed dict. placement: None for the
    default placement (JAX's create_device_mesh on TPUs, device-id order on GPUs), or a list of
    chip ids, one per logical device.
    """
    if isinstance(evidence, dict):
        evidence_name, evidence_text = "<evidence>", _json.dumps(evidence)
    else:
        evidence_name = _os.fspath(evidence)
        evidence_text = _read_bytes(evidence_name, "evidence")
    spec, topology_json = _topology(topology)
    calibration_name, calibration_json = _calibration(calibration)
    chips = [] if placement is None else [int(chip) for chip in placement]
    if placement is not None and not chips:
        raise Error("placement: an empty list (give None for the default placement)")
    return _json.loads(_core.price_json(evidence_text, evidence_name, spec, topology_json, chips, calibration_json,
                                        calibration_name))
