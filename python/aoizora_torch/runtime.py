"""Runs the strategies of a generated plan_torch.py with plain torch.distributed collectives.

DTensor (plan_torch.py's apply_plan / parallelize_plan) needs torch >= 2.0 and leaves the
collectives to DTensor's op rules. This runtime needs only torch.distributed (torch 1.13 and
later, any backend with all_reduce, all_to_all_single and point-to-point: gloo on CPUs, NCCL on
GPUs) and issues exactly the collectives the plan prices, on the plan's groups:

  mesh dim role  what each rank holds                     collective (kind, group)
  -------------  ---------------------------------------  -------------------------------------
  cfg, dp        its slice of the batch (CFG: the two      none
                 guidance branches on two rank groups)
  ulysses        its slice of the token sequence; inside   all-to-all on the ulysses dim's groups:
                 self-attention, its slice of the heads    q, k, v (sequence -> heads) and the
                                                           output (heads -> sequence); with
                                                           ULYSSES_ATTENTION_CHUNKS = C, per head
                                                           chunk, issued async (SequenceParallel-
                                                           Attention.chunked)
  ring           its slice of the token sequence; inside   collective-permute i -> i+1 on the ring
                 self-attention, K and V travel the ring   dim's groups, ring - 1 times, K and V
                 (online-softmax merge of the blocks)      in one message
  tp             Megatron: "colwise" Linears keep their    all-reduce on the tp dim's groups: each
                 rows of the weight, "rowwise" ones their  "rowwise" output, and the sum of squares
                 columns; RMSNorms whose weight the plan   of each tp-sharded RMSNorm (float32)
                 shards on tp normalize over the whole
                 width

The mesh is the plan's: MESH_DIM_NAMES, MESH_SHAPE, AXIS_ROLES, and logical rank k (row-major
mesh position) on process rank RANK_LAYOUT[k]. Groups are logged in logical ranks, as the plan
prices them (Comm.log), so a run can be compared with PRICED_COLLECTIVES collective by
collective; process groups are built on the process ranks RANK_LAYOUT names.

What a module must provide (tests/torch/wan_block.py does): Linears under the plan's FQNs;
RMSNorm modules with `weight` and `eps`; every module that splits heads has `num_heads` (divided
by the tp degree here); the attention core is a parameterless submodule with
`forward(q, k, v)` on [batch, tokens, heads, head_dim], `head_dim` and `kv_from_sequence` (True
when K and V come from the token sequence, i.e. self-attention; False when every rank holds
their source whole, e.g. cross-attention on the text). Where the plan lists the attention op's
result under the module's FQN ("... (result of 'blocks.0.self_attn.attention')"), its
placements are checked against the layout this runtime uses.

dry_run=True issues no collective: every collective is logged and returns a tensor of the right
shape, so a module on the meta device (no memory, no compute) gives the log of the real sizes.
"""

import collections
import math
import re

ROLES = ("cfg", "dp", "ulysses", "ring", "tp")
BATCH_ROLES = ("cfg", "dp")
SEQUENCE_ROLES = ("ring", "ulysses")

# kind: "all-reduce" | "all-to-all" | "collective-permute" (the plan's names); axis: the mesh dim
# name; groups: the logical ranks of every group of that dim (each in the dim's order), or for a
# permute every (source, target) pair; bytes: what one rank sends in (its buffer); ranks: the
# same groups (pairs) in process ranks, as torch.distributed was given them.
Collective = collections.namedtuple("Collective", "kind axis groups bytes ranks")


class PlanError(ValueError):
    """The plan asks for something this runtime does not execute, or disagrees with the module."""


def _plan_value(plan, name, default=None):
    if isinstance(plan, dict):
        return plan.get(name, default)
    return getattr(plan, name, default)


class Mesh:
    """The plan's mesh as seen by one process (global rank `rank`)."""

    def __init__(self, names, shape, rank_layout, roles, rank):
        names, shape, rank_layout, roles = tuple(names), tuple(shape), list(rank_layout), tuple(roles)
        if not (len(names) == len(shape) == len(roles)):
            raise PlanError(f"mesh {names} of shape {shape} has roles {roles}: one per mesh dim expected")
        world = math.prod(shape)
        if sorted(rank_layout) != list(range(world)):
            raise PlanError(f"RANK_LAYOUT {rank_layout} is not a permutation of the {world} ranks of mesh {shape}")
        for name, size, role in zip(names, shape, roles):
            if role not in ROLES and size > 1:
                raise PlanError(f"mesh dim '{name}' (size {size}) carries '{role}', which this runtime does not run "
                                f"(it runs {', '.join(ROLES)})")
        for role in ROLES:
            if sum(1 for r, s in zip(roles, shape) if r == role and s > 1) > 1:
                raise PlanError(f"role '{role}' is on several mesh dims of {names}: one expected")
        if rank not in rank_layout:
            raise PlanError(f"rank {rank} is not in RANK_LAYOUT {rank_layout}")
        self.names, self.shape, self.rank_layout, self.roles = names, shape, rank_layout, roles
        self.rank = rank
        self.logical = rank_layout.index(rank)
        self.coords = self.unravel(self.logical)

    @classmethod
    def from_plan(cls, plan, rank):
        roles = _plan_value(plan, "AXIS_ROLES")
        if roles is None:
            raise PlanError("the plan has no AXIS_ROLES (generated by an older aoizora): re-plan")
        return cls(_plan_value(plan, "MESH_DIM_NAMES"), _plan_value(plan, "MESH_SHAPE"),
                   _plan_value(plan, "RANK_LAYOUT"), roles, rank)

    @property
    def world(self):
        return len(self.rank_layout)

    def unravel(self, logical):
        coords = []
        for size in reversed(self.shape):
            coords.append(logical % size)
            logical //= size
        return tuple(reversed(coords))

    def ravel(self, coords):
        logical = 0
        for coord, size in zip(coords, self.shape):
            logical = logical * size + coord
        return logical

    def axis(self, role):
        """The mesh dim carrying `role` with size > 1, or None."""
        for axis, (r, size) in enumerate(zip(self.roles, self.shape)):
            if r == role and size > 1:
                return axis
        return None

    def axes(self, roles):
        """The mesh dims carrying any of `roles` (size > 1), in mesh order: major first."""
        return [axis for axis, (r, size) in enumerate(zip(self.roles, self.shape)) if r in roles and size > 1]

    def groups(self, axis):
        """Every group of mesh dim `axis` in logical ranks, each in the dim's order."""
        out = []
        for logical in range(self.world):
            coords = self.unravel(logical)
            if coords[axis] != 0:
                continue
            out.append(tuple(self.ravel(coords[:axis] + (k,) + coords[axis + 1:]) for k in range(self.shape[axis])))
        return tuple(out)

    def index(self, axes, logical=None):
        """Position of a rank (this one by default) along `axes` together, the first major."""
        coords = self.coords if logical is None else self.unravel(logical)
        position = 0
        for axis in axes:
            position = position * self.shape[axis] + coords[axis]
        return position

    def size(self, axes):
        return math.prod(self.shape[axis] for axis in axes)


class Comm:
    """The collectives of one process on the plan's mesh dims, logged as the plan names them."""

    def __init__(self, mesh, dry_run=False):
        self.mesh = mesh
        self.dry_run = dry_run
        self.log = []
        self._groups = {}
        # Per mesh dim, its groups in process ranks: logical rank k is process RANK_LAYOUT[k].
        self._process_groups = {axis: tuple(tuple(mesh.rank_layout[logical] for logical in group)
                                            for group in mesh.groups(axis))
                                for axis, size in enumerate(mesh.shape) if size > 1}
        if dry_run:
            return
        import torch.distributed as dist

        if dist.get_world_size() != mesh.world:
            raise PlanError(f"this plan is for {mesh.world} ranks, the job has {dist.get_world_size()}")
        # Every process creates every group, in the same order (torch.distributed requires it).
        for axis, groups in sorted(self._process_groups.items()):
            for group in groups:
                handle = dist.new_group(list(group))
                if mesh.rank in group:
                    self._groups[axis] = handle

    def _record(self, kind, axis, tensor, groups, ranks=None):
        ranks = self._process_groups[axis] if ranks is None else ranks
        self.log.append(Collective(kind, self.mesh.names[axis], groups, tensor.numel() * tensor.element_size(), ranks))

    def all_reduce(self, tensor, axis):
        """Sum over mesh dim `axis`, in place; returns `tensor`."""
        self._record("all-reduce", axis, tensor, self.mesh.groups(axis))
        if not self.dry_run:
            import torch.distributed as dist

            dist.all_reduce(tensor, group=self._groups[axis])
        return tensor

    def all_to_all(self, tensor, axis, scatter_dim, gather_dim):
        """Chunk j of `tensor` along scatter_dim goes to position j of the dim's group; what
        arrives is concatenated along gather_dim in group order."""
        return self.all_to_all_async(tensor, axis, scatter_dim, gather_dim)()

    def all_to_all_async(self, tensor, axis, scatter_dim, gather_dim):
        """all_to_all issued without waiting (async_op): returns a function that waits for it
        and gives its result, so that compute can run while it is in flight."""
        import torch

        size = self.mesh.shape[axis]
        if tensor.shape[scatter_dim] % size != 0:
            raise PlanError(f"all-to-all on '{self.mesh.names[axis]}': dim {scatter_dim} of {tuple(tensor.shape)} "
                            f"does not split {size} ways")
        self._record("all-to-all", axis, tensor, self.mesh.groups(axis))
        send = torch.stack(tensor.chunk(size, dim=scatter_dim)).contiguous()
        receive = torch.empty_like(send)
        work = None
        if not self.dry_run:
            import torch.distributed as dist

            work = dist.all_to_all_single(receive, send, group=self._groups[axis], async_op=True)

        def wait():
            if work is not None:
                work.wait()
            return torch.cat(receive.unbind(0), dim=gather_dim)

        return wait

    def ring_shift(self, tensor, axis):
        """Sends `tensor` to the next rank of mesh dim `axis` (position i -> i + 1, cyclic) and
        returns what the previous one sent."""
        import torch

        mesh = self.mesh
        # The pairs logged are the ones sent: `next_of` gives every logical rank's target.
        next_of = {group[k]: group[(k + 1) % len(group)] for group in mesh.groups(axis) for k in range(len(group))}
        process = {mesh.rank_layout[source]: mesh.rank_layout[target] for source, target in next_of.items()}
        self._record("collective-permute", axis, tensor, tuple(sorted(next_of.items())), tuple(sorted(process.items())))
        tensor = tensor.contiguous()
        receive = torch.empty_like(tensor)
        if not self.dry_run:
            import torch.distributed as dist

            target = process[mesh.rank]
            source = next(source for source, target_ in process.items() if target_ == mesh.rank)
            ops = [dist.P2POp(dist.isend, tensor, target), dist.P2POp(dist.irecv, receive, source)]
            for request in dist.batch_isend_irecv(ops):
                request.wait()
        return receive


def _nn():
    import torch
    from torch import nn

    return torch, nn


def _chunk(tensor, dim, parts, index, what):
    if tensor.shape[dim] % parts != 0:
        raise PlanError(f"{what}: dim {dim} of {tuple(tensor.shape)} does not split {parts} ways")
    return tensor.chunk(parts, dim=dim)[index].clone()


def _make_modules():
    torch, nn = _nn()
    F = torch.nn.functional

    class ColwiseLinear(nn.Module):
        """Megatron's column-parallel Linear: this rank's rows of the weight (output features)
        and of the bias; no collective."""

        def __init__(self, linear, comm, axis):
            super().__init__()
            parts, index = comm.mesh.shape[axis], comm.mesh.coords[axis]
            self.weight = nn.Parameter(_chunk(linear.weight.detach(), 0, parts, index, "colwise weight"))
            self.bias = None
            if linear.bias is not None:
                self.bias = nn.Parameter(_chunk(linear.bias.detach(), 0, parts, index, "colwise bias"))

        def forward(self, x):
            return F.linear(x, self.weight, self.bias)

    class RowwiseLinear(nn.Module):
        """Megatron's row-parallel Linear: this rank's columns of the weight (input features),
        the partial products summed by an all-reduce on the tp dim, then the whole bias."""

        def __init__(self, linear, comm, axis):
            super().__init__()
            parts, index = comm.mesh.shape[axis], comm.mesh.coords[axis]
            self.comm, self.axis = comm, axis
            self.weight = nn.Parameter(_chunk(linear.weight.detach(), 1, parts, index, "rowwise weight"))
            self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone())

        def forward(self, x):
            y = self.comm.all_reduce(F.linear(x, self.weight), self.axis)
            return y if self.bias is None else y + self.bias

    class TpRMSNorm(nn.Module):
        """RMSNorm over a width split on the tp dim: this rank's slice of the weight, the sum of
        squares (float32) all-reduced, divided by the whole width."""

        def __init__(self, norm, comm, axis):
            super().__init__()
            parts, index = comm.mesh.shape[axis], comm.mesh.coords[axis]
            self.comm, self.axis, self.eps = comm, axis, norm.eps
            self.width = norm.weight.shape[0]
            self.weight = nn.Parameter(_chunk(norm.weight.detach(), 0, parts, index, "RMSNorm weight"))

        def forward(self, x):
            squares = self.comm.all_reduce(x.float().pow(2).sum(-1, keepdim=True), self.axis)
            return x * torch.rsqrt(squares / self.width + self.eps).to(x.dtype) * self.weight

    class SequenceParallelAttention(nn.Module):
        """The attention core on a sequence split over the ulysses and ring dims.

        Self-attention (kv_from_sequence): Ulysses all-to-alls q, k, v from a slice of the tokens
        with every head to a slice of the heads with the ulysses group's tokens, the ring passes
        K and V around its group, and the output goes back by the reverse all-to-all.
        Cross-attention: each rank's query tokens against the whole K and V it already holds,
        no collective."""

        def __init__(self, core, comm, ulysses_axis, ring_axis, chunks=1):
            super().__init__()
            self.core = core
            self.comm, self.ulysses_axis, self.ring_axis = comm, ulysses_axis, ring_axis
            self.chunks = chunks

        def attend(self, q, k, v):
            if self.ring_axis is not None:
                return ring_attention(q, k, v, self.core.head_dim, self.comm, self.ring_axis)
            return self.core(q, k, v)

        def forward(self, q, k, v):
            if not self.core.kv_from_sequence:
                return self.core(q, k, v)
            ulysses = self.ulysses_axis
            if ulysses is not None and self.chunks > 1:
                return self.chunked(q, k, v)
            if ulysses is not None:
                q, k, v = (self.comm.all_to_all(t, ulysses, scatter_dim=2, gather_dim=1) for t in (q, k, v))
            if self.ring_axis is not None:
                out = ring_attention(q, k, v, self.core.head_dim, self.comm, self.ring_axis)
            else:
                out = self.core(q, k, v)
            if ulysses is not None:
                out = self.comm.all_to_all(out, ulysses, scatter_dim=1, gather_dim=2)
            return out

        def chunked(self, q, k, v):
            """Ulysses in head chunks (ULYSSES_ATTENTION_CHUNKS, MaxDiffusion's
            ulysses_attention_chunks, over ulysses_head_chunk_ranges of this rank's heads): chunk
            i + 1's q, k, v all-to-alls are issued before chunk i attends, and each chunk's output
            all-to-all is issued as soon as it is computed, so the transfers overlap the
            attention; the outputs are concatenated on heads."""
            torch, _ = _nn()
            ulysses = self.ulysses_axis
            ranges = ulysses_head_chunk_ranges(q.shape[2], self.comm.mesh.shape[ulysses], self.chunks)

            def issue(start, end):
                return [self.comm.all_to_all_async(t[:, :, start:end], ulysses, scatter_dim=2, gather_dim=1)
                        for t in (q, k, v)]

            pending = issue(*ranges[0])
            outputs = []
            for i in range(len(ranges)):
                inputs = [wait() for wait in pending]
                if i + 1 < len(ranges):
                    pending = issue(*ranges[i + 1])
                out = self.attend(*inputs)
                outputs.append(self.comm.all_to_all_async(out, ulysses, scatter_dim=1, gather_dim=2))
            return torch.cat([wait() for wait in outputs], dim=2)

    return ColwiseLinear, RowwiseLinear, TpRMSNorm, SequenceParallelAttention


def ulysses_head_chunk_ranges(num_heads, ulysses_shards, num_chunks):
    """MaxDiffusion's _ulysses_head_chunk_ranges (attention_flax.py): half-open ranges over
    `num_heads` heads, each a multiple of `ulysses_shards`: the num_heads / ulysses_shards groups
    cut into min(num_chunks, groups) chunks of floor(groups / num_chunks) groups, the last with
    the remainder. The compiler's are the same (compile/spmd/spmd_compiler.h UlyssesHeadChunks)."""
    if num_chunks <= 1:
        return [(0, num_heads)]
    if num_heads % ulysses_shards != 0:
        raise PlanError(f"{num_heads} heads do not split over {ulysses_shards} Ulysses shards")
    groups = num_heads // ulysses_shards
    num_chunks = min(num_chunks, groups)
    per_chunk = max(1, groups // num_chunks)
    ranges, start = [], 0
    for chunk in range(num_chunks):
        end = groups if chunk == num_chunks - 1 else min(start + per_chunk, groups)
        if start >= end:
            break
        ranges.append((start * ulysses_shards, end * ulysses_shards))
        start = end
    return ranges


def ring_attention(q, k, v, head_dim, comm, axis):
    """softmax(q k^T / sqrt(head_dim)) v over the K/V blocks of the ring's ranks, on
    [batch, tokens, heads, head_dim]. Each step but the last passes the K/V block in hand to the
    next rank and takes the previous rank's (ring - 1 collective-permutes of K and V in one
    buffer; blocking calls, so no overlap with the attention), then attends to the block in hand;
    the blocks merge by online softmax: running row max m, sum l and output o, rescaled by
    exp(m_old - m_new). In float32."""
    torch, _ = _nn()
    scale = 1.0 / math.sqrt(head_dim)
    dtype = q.dtype
    query = q.transpose(1, 2).float()                    # [B, H, Lq, D]
    block = torch.cat([k, v], dim=-1)                     # [B, Lk, H, 2D]: one message per step
    size = comm.mesh.shape[axis]
    out = row_max = row_sum = None
    for step in range(size):
        following = comm.ring_shift(block, axis) if step + 1 < size else None
        key, value = block.float().transpose(1, 2).split(k.shape[-1], dim=-1)  # [B, H, Lk, D]
        scores = query @ key.transpose(-2, -1) * scale   # [B, H, Lq, Lk]
        block_max = scores.amax(dim=-1, keepdim=True)
        if out is None:
            new_max = block_max
        else:
            new_max = torch.maximum(row_max, block_max)
        probs = torch.exp(scores - new_max)
        if out is None:
            out, row_sum = probs @ value, probs.sum(dim=-1, keepdim=True)
        else:
            rescale = torch.exp(row_max - new_max)
            out = out * rescale + probs @ value
            row_sum = row_sum * rescale + probs.sum(dim=-1, keepdim=True)
        row_max = new_max
        block = following
    return (out / row_sum).transpose(1, 2).to(dtype)


def _set_submodule(root, fqn, module):
    parent_name, _, leaf = fqn.rpartition(".")
    parent = root.get_submodule(parent_name) if parent_name else root
    setattr(parent, leaf, module)


_RESULT = re.compile(r"\(result of '(.*)'\)$")


def _expected_attention_placements(mesh, kv_from_sequence):
    """Per mesh dim, the placement of the attention result [B, L, H, D] under this runtime."""
    out = []
    for role, size in zip(mesh.roles, mesh.shape):
        if size == 1 or role not in ROLES:
            out.append(("replicate",))
        elif role in BATCH_ROLES:
            out.append(("shard", 0))
        elif role == "ring" or (role == "ulysses" and not kv_from_sequence):
            out.append(("shard", 1))
        else:  # ulysses on self-attention, tp: heads
            out.append(("shard", 2))
    return out


class Runtime:
    """What parallelize returns: the mesh, the collectives (comm.log) and the layout helpers."""

    def __init__(self, mesh, comm, batch_axes, sequence_axes):
        self.mesh, self.comm = mesh, comm
        # Mesh dims splitting the batch and the token sequence, major first, as the plan orders
        # them: shard the block's inputs with these.
        self.batch_axes, self.sequence_axes = batch_axes, sequence_axes

    def shard(self, tensor, dim, axes):
        """This rank's slice of `tensor` along `dim` split over mesh dims `axes` (major first)."""
        return _chunk(tensor, dim, self.mesh.size(axes), self.mesh.index(axes), f"input split over {axes}")

    def assemble(self, local, dims):
        """The whole tensor from every rank's `local` slice ({tensor dim: mesh dims}); an
        all-gather on the default group, outside the plan (not logged): for checking only."""
        torch, _ = _nn()
        import torch.distributed as dist

        pieces = [torch.empty_like(local) for _ in range(self.mesh.world)]
        dist.all_gather(pieces, local.contiguous())
        shape = list(local.shape)
        for dim, axes in dims.items():
            shape[dim] *= self.mesh.size(axes)
        out = local.new_empty(shape)
        for rank, piece in enumerate(pieces):
            logical = self.mesh.rank_layout.index(rank)
            index = []
            for dim in range(len(shape)):
                axes = dims.get(dim, [])
                start = self.mesh.index(axes, logical) * local.shape[dim]
                index.append(slice(start, start + local.shape[dim]))
            out[tuple(index)] = piece
        return out


def parallelize(module, plan, rank=None, dry_run=False, strict=False):
    """Lays out `module` (every rank holding the full weights) as plan_torch.py `plan` (its module
    or its globals()) says, for process `rank` (default: torch.distributed's), and swaps in the
    parallel Linears, norms and attention. Returns the Runtime. Raises PlanError for what the
    runtime cannot execute."""
    chunks = _plan_value(plan, "ULYSSES_ATTENTION_CHUNKS", 1)
    if not isinstance(chunks, int) or chunks < 1:
        raise PlanError(f"ULYSSES_ATTENTION_CHUNKS is {chunks!r}: a positive integer expected")
    _, nn = _nn()
    if rank is None:
        import torch.distributed as dist

        rank = dist.get_rank()
    mesh = Mesh.from_plan(plan, rank)
    comm = Comm(mesh, dry_run=dry_run)
    ColwiseLinear, RowwiseLinear, TpRMSNorm, SequenceParallelAttention = _make_modules()
    tp = mesh.axis("tp")
    tp_name = _plan_value(plan, "TP_MESH_DIM")
    if tp is not None and tp_name != mesh.names[tp]:
        raise PlanError(f"TP_MESH_DIM is {tp_name!r}, AXIS_ROLES puts tp on '{mesh.names[tp]}'")
    styles = {fqn: entry for fqn, entry in _plan_value(plan, "PARALLELIZE_PLAN").items() if isinstance(entry, str)}
    module_placements = _plan_value(plan, "module_placements")
    placements = module_placements([name for name, _ in module.named_parameters()], strict)
    replicated = [("replicate",)] * len(mesh.shape)
    modules = dict(module.named_modules())

    handled = set()
    colwise_parents = set()
    for fqn, style in styles.items():
        linear = modules.get(fqn)
        if linear is None:
            if strict:
                raise PlanError(f"the plan splits Linear '{fqn}', which the module does not have")
            continue
        if not isinstance(linear, nn.Linear):
            raise PlanError(f"the plan splits '{fqn}' {style}, but it is a {type(linear).__name__}, not a Linear")
        if tp is None:
            raise PlanError(f"the plan splits '{fqn}' {style} with no tp mesh dim")
        _set_submodule(module, fqn, (ColwiseLinear if style == "colwise" else RowwiseLinear)(linear, comm, tp))
        handled.update(f"{fqn}.{leaf}" for leaf in ("weight", "bias"))
        if style == "colwise":
            colwise_parents.add(fqn.rpartition(".")[0])

    for name, placement in placements.items():
        if name in handled or placement == replicated:
            continue
        owner_name, _, leaf = name.rpartition(".")
        owner = modules.get(owner_name)
        on_tp_only = tp is not None and all(p == ("replicate",) for k, p in enumerate(placement) if k != tp)
        if (on_tp_only and placement[tp] == ("shard", 0) and leaf == "weight" and hasattr(owner, "eps")
                and owner.weight.dim() == 1):
            _set_submodule(module, owner_name, TpRMSNorm(owner, comm, tp))
            continue
        raise PlanError(f"parameter '{name}': the plan places it {placement} on mesh {mesh.names}, which this "
                        "runtime does not execute (it runs Megatron Linears and tp-sharded RMSNorm weights)")

    for fqn in colwise_parents:
        owner = modules.get(fqn)
        if owner is not None and hasattr(owner, "num_heads"):
            if owner.num_heads % mesh.shape[tp] != 0:
                raise PlanError(f"'{fqn}' has {owner.num_heads} heads, which do not split {mesh.shape[tp]} ways")
            owner.num_heads //= mesh.shape[tp]

    # The attention results as the plan lays them out, by op name (= the core's FQN): their
    # placements are checked, and their specs say which batch and sequence dim is major.
    activations, specs = {}, {}
    for name, placement in (_plan_value(plan, "ACTIVATION_PLACEMENTS") or {}).items():
        match = _RESULT.search(name)
        if match:
            activations[match.group(1)] = list(placement)
    for name, spec in (_plan_value(plan, "MULTI_AXIS_SPECS") or {}).items():
        match = _RESULT.search(name)
        if match:
            specs[match.group(1)] = spec
    batch_axes, sequence_axes = mesh.axes(BATCH_ROLES), mesh.axes(SEQUENCE_ROLES)
    orders = {}
    ulysses, ring = mesh.axis("ulysses"), mesh.axis("ring")
    for fqn, core in modules.items():
        if not hasattr(core, "kv_from_sequence"):
            continue
        planned = activations.get(fqn)
        expected = _expected_attention_placements(mesh, core.kv_from_sequence)
        if planned is not None and planned != expected:
            raise PlanError(f"attention '{fqn}': the plan places its result {planned}, this runtime {expected}")
        spec = specs.get(fqn)
        for dim, roles in ((0, BATCH_ROLES), (1, SEQUENCE_ROLES)):
            entry = spec[dim] if spec is not None and dim < len(spec) else None
            if isinstance(entry, tuple) and len(entry) > 1:
                order = [mesh.names.index(name) for name in entry if mesh.roles[mesh.names.index(name)] in roles]
                if orders.setdefault(dim, order) != order:
                    raise PlanError(f"attention '{fqn}': the plan splits dim {dim} over {entry}, another attention "
                                    f"over {[mesh.names[axis] for axis in orders[dim]]}")
        if ulysses is not None or ring is not None:
            _set_submodule(module, fqn, SequenceParallelAttention(core, comm, ulysses, ring, chunks))
    if 0 in orders and sorted(orders[0]) == sorted(batch_axes):
        batch_axes = orders[0]
    if 1 in orders and sorted(orders[1]) == sorted(sequence_axes):
        sequence_axes = orders[1]
    return Runtime(mesh, comm, batch_axes, sequence_axes)


def expand_groups(text):
    """The plan's replica groups text -> tuple of tuples of logical ranks: explicit
    "{{0,1},{2,3}}", or XLA's iota form "[G,S]<=[d0,d1,...]T(perm)" (iota over prod(d) reshaped
    to d, transposed by perm, read as G groups of S)."""
    text = text.replace(" ", "")
    if text.startswith("{"):
        return tuple(tuple(int(x) for x in group.split(",") if x) for group in re.findall(r"\{([0-9,]*)\}", text))
    match = re.fullmatch(r"\[(\d+),(\d+)\]<=\[([0-9,]+)\](?:T\(([0-9,]+)\))?", text)
    if not match:
        raise ValueError(f"unreadable replica groups: {text!r}")
    groups, size = int(match.group(1)), int(match.group(2))
    dims = [int(x) for x in match.group(3).split(",")]
    perm = [int(x) for x in match.group(4).split(",")] if match.group(4) else list(range(len(dims)))
    total = math.prod(dims)
    if groups * size != total or sorted(perm) != list(range(len(dims))):
        raise ValueError(f"inconsistent iota replica groups: {text!r}")
    # Element at transposed position p is iota's element at the position whose dim perm[i] is p[i].
    tdims = [dims[axis] for axis in perm]
    flat = []
    for linear in range(total):
        position = []
        for size_t in reversed(tdims):
            position.append(linear % size_t)
            linear //= size_t
        position.reverse()
        source = [0] * len(dims)
        for i, axis in enumerate(perm):
            source[axis] = position[i]
        value = 0
        for coord, dim in zip(source, dims):
            value = value * dim + coord
        flat.append(value)
    return tuple(tuple(flat[g * size:(g + 1) * size]) for g in range(groups))
