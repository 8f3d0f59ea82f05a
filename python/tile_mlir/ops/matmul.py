"""tile_mlir.ops.matmul(a, b, out_dtype=None): a @ b on the Hopper GEMM
(tile_mlir.kernels.gemm_hopper): bf16 or fp16, a (M, K) and b (K, N), any
M, N and K (N and K not multiples of 8 take zero-padded copies, `padded`),
C rounded once to the inputs' type (or `out_dtype`, bf16 or fp16) as
torch.matmul rounds it, or float32 (the accumulators as they are).
scaled_matmul: e4m3 with per-tensor or rowwise scales, as
torch._scaled_mm takes them, or 1 x 128 and 128 x 128 block scales
(DeepSeek-V3's; the grouped GEMM's kernel, one expert)."""

import dataclasses
from typing import Optional

import torch

from . import autotune, launch
from .launch import SMS, require

DTYPES = (torch.bfloat16, torch.float16)
OUT_DTYPES = (torch.bfloat16, torch.float16, torch.float32)


# Swap-AB's bound of a decode M (its kernel's N): 4 of a thread's bn / 2
# accumulator pairs hold its columns.
SHORT_N = 16


def check_out_dtype_type(out_dtype):
    if out_dtype is not None and not isinstance(out_dtype, torch.dtype):
        raise TypeError(f"out_dtype is a torch.dtype or None, got {type(out_dtype).__name__}")


def check_out_dtype(out_dtype, default):
    """C's dtype: `default` for None, else one the kernel's epilogue rounds to."""
    check_out_dtype_type(out_dtype)
    if out_dtype is None:
        return default
    require(out_dtype in OUT_DTYPES, "out_dtype", f"{out_dtype}; C is torch.bfloat16, torch.float16 or "
            "torch.float32")
    return out_dtype


def check(a: torch.Tensor, b: torch.Tensor):
    """(m, n, k) of a valid call, or the error naming the argument."""
    launch.tensor(a, "a", (2,), DTYPES)
    launch.tensor(b, "b", (2,), DTYPES)
    launch.same_placement(a=a, b=b)
    (m, k), (k_b, n) = a.shape, b.shape
    launch.require(k == k_b, "b", f"its {k_b} rows do not match a's {k} columns")
    launch.require(m >= 1 and n >= 1 and k >= 1, "a", f"an empty product {m} x {n} x {k}")
    return m, n, k


def matmul(a, b, out_dtype=None):
    """a @ b (module docstring). Bad arguments raise before anything runs,
    naming the argument (the dispatcher's own cast errors do not)."""
    if not launch.eager(a, b):  # the type checks of the eager path are eager()'s own
        launch.tensors(a=a, b=b)
        check_out_dtype_type(out_dtype)
        return matmul_op(a, b, out_dtype)
    check_out_dtype_type(out_dtype)
    key = ("matmul", out_dtype, launch.signature_of(a), launch.signature_of(b))
    return launch.eager_call(key, lambda: _prepare_matmul(a, b, out_dtype))(a, b)


def _prepare_matmul(a, b, out_dtype):
    m, n, k = check(a, b)
    out = check_out_dtype(out_dtype, a.dtype)
    general = lambda a, b: matmul_impl(a, b, out_dtype)  # noqa: E731
    if not (as_is(a, b) and n % 8 == 0 and k % 8 == 0):
        return general
    run = _GemmRun("matmul", (m, n, k), launch.NAMES[a.dtype], False,
                   None if out == a.dtype else launch.NAMES[out])
    return run.prepared((a, b), lambda a, b: (a, b, a.new_empty((m, n), dtype=out)))


def matmul_impl(a: torch.Tensor, b: torch.Tensor, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    m, n, k = check(a, b)
    out = check_out_dtype(out_dtype, a.dtype)
    (a_rows, bt), (n_to, k_to) = padded(*k_major(a, b), 8, 8)
    c = torch.empty((m, n_to), dtype=out, device=a.device)
    dtype = launch.NAMES[a.dtype]
    tuned_run("matmul", (m, n_to, k_to), dtype, tuple(launch.bits(t) for t in (a_rows, bt, c)),
              out_dtype=None if out == a.dtype else launch.NAMES[out])
    return c if n_to == n else c[:, :n].contiguous()


def as_is(a, b):
    """Whether the kernel takes a and b as they are: A with K contiguous,
    B the transposed view of a contiguous (N, K), both at whole 16 bytes."""
    return a.is_contiguous() and b.t().is_contiguous() and a.data_ptr() % 16 == 0 and b.data_ptr() % 16 == 0


def k_major(a, b):
    """A with K contiguous and B as Bt (N x K, K contiguous), as the kernel
    takes them: a transposed view of a contiguous (N, K) is taken as it is;
    any other layout is copied once."""
    return (launch.aligned(a if a.is_contiguous() else a.contiguous()),
            launch.aligned(b.t() if b.t().is_contiguous() else b.t().contiguous()))


def padded(a_rows, bt, n_multiple, k_multiple):
    """((A, Bt), (N, K)) with N and K rounded up to the multiples the
    kernel's TMA rows take (whole 16 bytes): the documented fallback for
    other shapes, zero-filled copies (zeros add nothing to the product;
    the padded columns of C are dropped), made on each call."""
    (_, k), n = a_rows.shape, bt.shape[0]
    k_to, n_to = -(-k // k_multiple) * k_multiple, -(-n // n_multiple) * n_multiple
    if (k_to, n_to) == (k, n):
        return (a_rows, bt), (n, k)
    pad = torch.nn.functional.pad
    return (pad(a_rows, (0, k_to - k)), pad(bt, (0, k_to - k, 0, n_to - n))), (n_to, k_to)


@dataclasses.dataclass(frozen=True)
class GemmPlan:
    """How the op runs the Hopper GEMM: its `config`, and `swap_ab`: C^T =
    Bt A^T, a short M as the kernel's N so that N's rows make the tiles
    that fill the SMs (decode), always split along K, the reduction
    writing C transposed back (gemm_reduce's `transposed`)."""

    config: object
    swap_ab: bool = False
    # The split's partials summed by each tile's last slice in the GEMM's
    # own launch (kernels/split_k_finish.py), not by a second kernel.
    one_launch: bool = False


def tuned_run(op, shape, dtype, args, scaled=False, out_dtype=None):
    """Runs the Hopper GEMM of `shape` (m, n, k) on `args` (A, Bt, C, and
    the scales) in the plan the autotuner picked for op's bucket of M
    (`scaled` and `out_dtype` as hopper_gemm takes them, "float32" too)."""
    run = _GemmRun(op, shape, dtype, scaled, out_dtype)
    launch.by_signature(run.signature, args[0], lambda: run.choose(args), run.stages,
                        lambda plan: run.operands(plan, args))


class _GemmRun:
    """The kernels of one GEMM signature under a plan: the GEMM alone; or
    its float32 accumulators into a workspace (split along K, swap-AB, or a
    float32 C), then the reduction that scales and rounds them into C; or,
    for a float32 C of one slice and no scales, the workspace is C itself."""

    def __init__(self, op, shape, dtype, scaled, out_dtype):
        self.op, (self.m, self.n, self.k), self.dtype = op, shape, dtype
        self.scaled, self.out_dtype = scaled, out_dtype
        self.signature = (op, *shape, dtype, scaled, out_dtype)
        # The specs of the kernels before scales and C's type had choices
        # stay as they were (their cache entries too).
        self.variant = {key: value for key, value in (("scaled", scaled), ("out_dtype", out_dtype))
                        if value not in (False, True, None)}
        self.scales = {False: "none", True: "tensor"}.get(scaled, scaled)
        self.c_dtype = out_dtype or ("bfloat16" if dtype == "e4m3" else dtype)

    def choose(self, args):
        """The plan the autotuner picks for the bucket of M, timed on `args`:
        the candidates are the bucket's (every M in it shares the choice,
        and the kernels, whose M is a runtime size)."""
        bucket, n, k = autotune.bucket(self.m), self.n, self.k
        return launch.tuned({"op": self.op, "bucket": [bucket, n, k], "dtypes": [self.dtype], **self.variant},
                            candidates(self.dtype, bucket, n, k), self.stages,
                            lambda plan: self.operands(plan, args), args[0])

    def prepared(self, inputs, arguments):
        """The eager path of this signature on inputs the kernels take as
        they are: `arguments(*inputs)` gives (A, Bt, C, scales) with C
        fresh; a call is C's (and a workspace's) allocation and the
        launches. The plan is chosen (timed) on the first call's `inputs`."""
        plan, launchers = launch.prepared(self.signature, inputs[0], lambda: self.choose(arguments(*inputs)),
                                          self.stages, lambda plan: self.operands(plan, arguments(*inputs)))
        index = inputs[0].device.index
        if not self.to_workspace(plan):
            # One kernel on (A, Bt, C, scales) as they are (operands()'s
            # [args]): its launch without the general loop over kernels.
            (gemm,) = launchers

            def one_kernel(*inputs):
                args = arguments(*inputs)
                gemm(*[t.data_ptr() for t in args], stream=launch.stream(index))
                return args[2]
            return one_kernel

        def call(*inputs):
            args = arguments(*inputs)
            launch.launch_all(launchers, self.operands(plan, args), index)
            return args[2]
        return call

    def to_workspace(self, plan):
        return plan.config.split_k > 1 or plan.swap_ab or self.c_dtype == "float32"

    def direct(self, plan):
        """The workspace is C (a float32 C of one slice, no scales)."""
        return self.c_dtype == "float32" and plan.config.split_k == 1 and not plan.swap_ab and self.scales == "none"

    def stages(self, plan):
        """(spec, build, grid) of each kernel `plan` launches: M (swap-AB:
        the GEMM's N) a runtime size, so that one kernel serves every M of
        the plan (bounded by the bucket where that fixes its tiles:
        max_m); the grid this call's."""
        from ..kernels.configs import split_k_reduce_grid
        config, swap, (m, n, k) = plan.config, plan.swap_ab, (self.m, self.n, self.k)
        gm, gn = (n, None) if swap else (None, n)  # the GEMM's sizes as compiled
        bounded = self.bounds(plan)
        grid = config.grid(n, m) if swap else config.grid(bounded.get("max_m", m), n)
        partial = self.to_workspace(plan)

        def gemm():
            from ..kernels.gemm_hopper import hopper_gemm
            if partial:
                return hopper_gemm(gm, gn, k, self.dtype, config, partial=True, **bounded)
            return hopper_gemm(None, n, k, self.dtype, config, scaled=self.scaled, out_dtype=self.out_dtype,
                               **bounded)
        # A partial's scales and C's type are the reduction's; unsplit, it is
        # told from the one-pass kernel of the same configuration.
        extra = ({"workspace": True} if config.split_k == 1 else {}) if partial else self.variant
        spec = {"op": self.op, "kernel": "hopper_gemm", "shape": [gm, gn, k], "dtype": self.dtype,
                "config": dataclasses.asdict(config), **bounded, **extra}
        if plan.one_launch:
            finish = dataclasses.asdict(self._finish(plan))
            return [self._one_launch(plan, dict(spec, finish=finish), grid, bounded)]
        if not partial or self.direct(plan):
            return [(spec, gemm, grid)]

        def reduce():
            from ..kernels.gemm_reduce import split_k_reduce
            return split_k_reduce(None, n, config.split_k, self.c_dtype, self.scales, transposed=swap)
        return [(spec, gemm, grid), ({"op": self.op, "kernel": "split_k_reduce", "shape": [None, n],
                                      "split": config.split_k, "dtype": self.dtype,
                                      **({"transposed": True} if swap else {}), **self.variant},
                                     reduce, split_k_reduce_grid(m, n))]

    def bounds(self, plan):
        """hopper_gemm's bound of the runtime size, where one fixes the
        kernel's work (at most three kernels a plan, for every M): max_m,
        one tile row's rows where the bucket fits in one, two rows' where
        it fits in two (every M of such a bucket makes that many tile
        rows), so the tiles, loops and grid are constants, as a constant
        M's; swap-AB's max_n 16 for a bucket of at most 16 (decode), so the
        accumulators of the columns past it are neither stored nor
        summed."""
        bucket, config = autotune.bucket(self.m), plan.config
        if plan.swap_ab:
            return {"max_n": SHORT_N} if bucket <= SHORT_N < config.bn else {}
        rows = 64 * config.consumers
        return {} if bucket > 2 * rows else {"max_m": rows if bucket <= rows else 2 * rows}

    def _finish(self, plan):
        from ..kernels.configs import SplitKFinish
        return SplitKFinish(self.c_dtype, self.scales, plan.swap_ab)

    def _one_launch(self, plan, spec, grid, bounded):
        """(spec, build, grid) of the GEMM whose tiles' last slices sum the
        split (`bounded`: its runtime size's bound, stages')."""
        n, k, swap = self.n, self.k, plan.swap_ab

        def gemm():
            from ..kernels.gemm_hopper import hopper_gemm
            return hopper_gemm(n if swap else None, None if swap else n, k, self.dtype, plan.config,
                               finish=self._finish(plan), **bounded)
        return spec, gemm, grid

    def operands(self, plan, args):
        """Each kernel's arguments under `plan`, from the call's (A, Bt, C,
        scales); a workspace, where the plan has one, fresh."""
        m, n = self.m, self.n
        if not self.to_workspace(plan):
            return [args]
        if self.direct(plan):
            return [(args[0], args[1], args[2].view(1, m, n))]
        split, swap = plan.config.split_k, plan.swap_ab
        work = args[0].new_empty((split, n, -(-m // 8) * 8) if swap else (split, m, n), dtype=torch.float32)
        a_side, b_side = (args[1], args[0]) if swap else (args[0], args[1])
        if plan.one_launch:
            config = plan.config
            tiles = config.tiles(n, m) if swap else config.tiles(m, n)
            return [(a_side, b_side, work, args[2], launch.counters(args[0].device, tiles * config.consumers),
                     *args[3:])]
        return [(a_side, b_side, work), (work, *args[2:])]


def _split_to_fill(tiles, steps):
    """The largest power of two (at least 1) that splits `steps` into
    slices of 4 or more and keeps tiles x split within the SMs."""
    split = 1
    while tiles * split * 2 <= SMS and steps % (split * 2) == 0 and steps // (split * 2) >= 4:
        split *= 2
    return split


def _split_to_balance(tiles, steps):
    """The split along K whose units (tiles x split, each SM taking them in
    turn) leave the SMs' last round fullest: a power of two that keeps
    slices of 4 or more steps, the smallest of the best. A short M reads
    all of B once, so the time is that of the SM that reads the most:
    96 tiles split 2 ways are 192 units, two rounds for 60 SMs and one for
    72 (73% of the SMs' time reading), 4 ways 384, three rounds for 120
    and two for 12 (97%)."""
    splits = [1] + [1 << i for i in range(1, steps.bit_length()) if steps % (1 << i) == 0 and steps >> i >= 4]
    return max(splits, key=lambda split: (_busy(tiles * split), -split))


def _busy(units):
    """The share of the SMs' rounds that `units` of equal work keep busy."""
    return units / (-(-units // SMS) * SMS)


def _splits(tiles, steps, least=1):
    """The splits a short M's plan is tried with: the one that fills the
    SMs once (at least `least`), and the one that balances their rounds
    where that keeps them 10% busier."""
    fill = max(least, _split_to_fill(tiles, steps))
    balance = _split_to_balance(tiles, steps)
    return [fill] + ([balance] if _busy(tiles * balance) >= 1.1 * _busy(tiles * fill) else [])


def candidates(dtype, m=None, n=None, k=None):
    """The plans the autotuner times, the default (best) first: one block
    an SM in groups of 8, 128-column tiles with 6 stages, one consumer of
    64 rows (for a short M); where a short M leaves most SMs without a
    tile, that one and the default split along K into as many slices as
    fill the SMs (and into as many as balance their rounds, _splits); and
    for M up to 128, swap-AB (N's rows as the tiles, M as 64 or 128
    columns) split likewise. Each split plan twice: summed by a second
    kernel, and in the GEMM's own launch."""
    plans = _plans(dtype, m, n, k)
    return plans + [dataclasses.replace(p, one_launch=True) for p in plans if p.config.split_k > 1]


def _plans(dtype, m, n, k):
    from ..kernels.configs import HopperGemmConfig
    best = HopperGemmConfig.best(dtype)
    short = HopperGemmConfig(consumers=1, bn=128, stages=6)
    others = [HopperGemmConfig(blocks=132, group_m=8), HopperGemmConfig(bn=128, stages=6), short]
    plans = [GemmPlan(c) for c in [best] + [c for c in others if c != best]]
    if m is None:
        return plans
    steps = -(-k // (128 if dtype == "e4m3" else 64))
    for base in (short, best):
        for split in _splits(base.tiles(m, n), steps):
            if split > 1:
                plans.append(GemmPlan(dataclasses.replace(base, split_k=split, blocks=SMS)))
    if m <= SWAP_AB_M:
        # M as the kernel's 64 (to M 64) or 128 columns; 8 or 6 stages fill
        # the shared memory.
        bn, stages = (64, 8) if m <= 64 else (128, 6)
        for consumers in (1, 2):
            for split in _splits(-(-n // (64 * consumers)), steps, least=2):
                if steps % split == 0:
                    config = HopperGemmConfig(consumers=consumers, bn=bn, stages=stages, split_k=split, blocks=SMS)
                    plans.append(GemmPlan(config, swap_ab=True))
    return plans


# The longest M that swap-AB plans take (as the kernel's N).
SWAP_AB_M = 128




matmul_op = torch.library.custom_op("tile_mlir::matmul", mutates_args=())(matmul_impl)


@matmul_op.register_fake
def _(a, b, out_dtype=None):
    m, n, _ = check(a, b)
    return a.new_empty((m, n), dtype=check_out_dtype(out_dtype, a.dtype))


def check_scaled(a, b, scale_a, scale_b):
    """(m, n, k, the scales' kind) of a valid scaled_matmul, or the error
    naming the argument: one float32 scale each ("tensor"), or scale_a
    (M, 1) and scale_b (1, N) ("row"), as torch._scaled_mm takes them; or
    block scales ("block", DeepSeek-V3's and DeepGEMM's): scale_a (M, K /
    128), 1 x 128 blocks of a's rows, and scale_b (N / 128, K / 128), 128 x
    128 blocks of b's (N, K) storage, N and K multiples of 128."""
    launch.tensor(a, "a", (2,), (torch.float8_e4m3fn,))
    launch.tensor(b, "b", (2,), (torch.float8_e4m3fn,))
    launch.same_placement(a=a, b=b)
    (m, k), (k_b, n) = a.shape, b.shape
    for name, scale in (("scale_a", scale_a), ("scale_b", scale_b)):
        launch.tensor(scale, name, (0, 1, 2), (torch.float32,))
        launch.require(scale.device == a.device, name, f"on {scale.device}, a on {a.device}")
    rowwise = (tuple(scale_a.shape), tuple(scale_b.shape)) == ((m, 1), (1, n))
    blocks = (tuple(scale_a.shape), tuple(scale_b.shape)) == ((m, -(-k // 128)), (-(-n // 128), -(-k // 128)))
    if blocks and not rowwise:
        launch.require(k == k_b, "b", f"its {k_b} rows do not match a's {k} columns")
        launch.require(n % 128 == 0 and k % 128 == 0, "b", f"N {n} and K {k}: block scales take multiples of 128")
        return m, n, k, "block"
    if not rowwise and scale_a.numel() * scale_b.numel() != 1:
        # Name the one that does not match the other's kind.
        a_ok = scale_a.numel() == 1 if scale_b.numel() == 1 else tuple(scale_a.shape) == (m, 1)
        launch.require(a_ok, "scale_a", f"shape {tuple(scale_a.shape)}: one element (per tensor) or ({m}, 1) with "
                       f"scale_b (1, {n}) (rowwise)")
        launch.require(False, "scale_b", f"shape {tuple(scale_b.shape)}: one element (per tensor) or (1, {n}) with "
                       f"scale_a ({m}, 1) (rowwise)")
    launch.require(k == k_b, "b", f"its {k_b} rows do not match a's {k} columns")
    launch.require(min(m, n, k) >= 1, "a", f"an empty product {m} x {n} x {k}")
    return m, n, k, "row" if rowwise and m * n > 1 else "tensor"


def scaled_matmul(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    """(a @ b) scaled, as torch._scaled_mm(a, b, scale_a, scale_b,
    out_dtype=...) takes it: e4m3 a (M, K) and b (K, N) (the transposed
    view of a row-major (N, K) is taken as it is); one float32 scale each,
    by whose product (rounded once) the accumulators are multiplied, or
    rowwise scale_a (M, 1) and scale_b (1, N), each accumulator times its
    row's then its column's (torch's order); then rounded once to
    `out_dtype` (bf16 or fp16), or float32 as they are."""
    if not launch.eager(a, b, scale_a, scale_b):
        launch.tensors(a=a, b=b, scale_a=scale_a, scale_b=scale_b)
        check_out_dtype_type(out_dtype)
        return scaled_matmul_op(a, b, scale_a, scale_b, out_dtype)
    check_out_dtype_type(out_dtype)
    key = ("scaled_matmul", out_dtype, *map(launch.signature_of, (a, b, scale_a, scale_b)))
    return launch.eager_call(key, lambda: _prepare_scaled(a, b, scale_a, scale_b, out_dtype))(a, b, scale_a, scale_b)


def _prepare_scaled(a, b, scale_a, scale_b, out_dtype):
    m, n, k, kind = check_scaled(a, b, scale_a, scale_b)
    out = check_out_dtype(out_dtype, torch.bfloat16)
    general = lambda *inputs: scaled_matmul_impl(*inputs, out_dtype)  # noqa: E731
    as_they_are = as_is(a, b) and n % 8 == 0 and k % 16 == 0 and scale_a.is_contiguous() and scale_b.is_contiguous()
    if kind == "block" or not as_they_are:
        return general
    run = _GemmRun("scaled_matmul", (m, n, k), "e4m3", True if kind == "tensor" else "row",
                   None if out == torch.bfloat16 else launch.NAMES[out])
    # The scales as they are: contiguous, their one or M (N) values in
    # order, as the reshaped copies of the general path hold them.
    return run.prepared((a, b, scale_a, scale_b), lambda a, b, scale_a, scale_b: (
        a, b, a.new_empty((m, n), dtype=out), scale_a, scale_b))


def scaled_matmul_impl(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                       out_dtype: Optional[torch.dtype] = torch.bfloat16) -> torch.Tensor:
    m, n, k, kind = check_scaled(a, b, scale_a, scale_b)
    out = check_out_dtype(out_dtype, torch.bfloat16)
    if kind == "block":
        return _block_scaled(a, b, (scale_a, scale_b), out)
    # e4m3 pads in its bits (float8 has no pad kernel): a zero byte is +0.
    (a_rows, bt), (n_to, k_to) = padded(*(launch.bits(t) for t in k_major(a, b)), 8, 16)
    c = torch.empty((m, n_to), dtype=out, device=a.device)
    shapes = ((1, 1), (1, 1)) if kind == "tensor" else ((m, 1), (1, n))
    scales = [s.reshape(shape).contiguous() for s, shape in zip((scale_a, scale_b), shapes)]
    if kind == "row" and n_to != n:
        scales[1] = torch.nn.functional.pad(scales[1], (0, n_to - n), value=1.0)
    tuned_run("scaled_matmul", (m, n_to, k_to), "e4m3", (a_rows, bt, launch.bits(c), *scales),
              scaled=True if kind == "tensor" else "row",
              out_dtype=None if out == torch.bfloat16 else launch.NAMES[out])
    return c if n_to == n else c[:, :n].contiguous()


def _block_scaled(a, b, scales, out):
    """Block scales: the grouped GEMM's contiguous layout with one expert
    of every row (kernels/gemm_grouped.py: each 128-block of K's partial
    promoted outside the tensor cores), C bf16."""
    from .grouped import grouped_matmul_impl
    launch.require(out == torch.bfloat16, "out_dtype", f"{out}: block-scaled products are rounded to "
                   "torch.bfloat16")
    offs = torch.full((1,), a.shape[0], dtype=torch.int32, device=a.device)  # a fill: no copy from the host
    return grouped_matmul_impl(a, b.unsqueeze(0), offs=offs, scale_a=scales[0], scale_b=scales[1].unsqueeze(0))


scaled_matmul_op = torch.library.custom_op("tile_mlir::scaled_matmul", mutates_args=())(scaled_matmul_impl)


@scaled_matmul_op.register_fake
def _(a, b, scale_a, scale_b, out_dtype=torch.bfloat16):
    m, n, _, _ = check_scaled(a, b, scale_a, scale_b)
    return a.new_empty((m, n), dtype=check_out_dtype(out_dtype, torch.bfloat16))
