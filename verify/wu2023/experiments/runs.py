"""The shared set-ups and GD of the wu2023 experiments (what two or more claim modules use): seeded
set-ups, GD alone and batched, the typed sweep point and the pooled sweep, the Prop. 1 quantities at
init and along a run, the data summary of the width thresholds, and the worst-case search over arrays.

Seeding: every function that draws takes the base ``seed`` and integer keys and uses
``np.random.default_rng([seed, *keys])`` -- the same stream ``Ctx.rng(*keys)`` gives. A point's
data come from stream (seed, key, 0) and its weights from (seed, key, 1, d_m), so sweeps over the
width, the init or tau0 compare on the same data.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from bounds import wu2023 as B
from verify.core import Ctx
from verify.numerics.fit import fit_loglog
from verify.numerics.gd import BatchRecorder, Trajectory, gradient_descent, gradient_descent_batched
from verify.numerics.worstcase import WorstCase, worst_case
from verify.wu2023 import data as D
from verify.wu2023 import model as M

T = TypeVar("T")


def rng_for(seed: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng([seed, *keys])


@dataclass(frozen=True)
class Setup:
    """A model, its data and its initial weights."""

    model: M.ShallowTransformer
    batch: D.Batch
    theta0: M.Params


def make_setup(
    seed: int,
    key: int,
    *,
    N: int,
    d: int,
    d_s: int,
    d_m: int,
    tau0_power: float = 0.5,
    init: str = "lecun",
    regime: str = "paper",
    loss_norm: str = "sum",
    label_scale: float = 1.0,
) -> Setup:
    """Gaussian data (``regime``) from stream (seed, key, 0), weights from (seed, key, 1, d_m); the +-1
    labels times ``label_scale`` (1: the same bits as without it)."""
    batch = D.gaussian_data(rng_for(seed, key, 0), N, d_s, d, regime)
    if label_scale != 1.0:
        batch = D.Batch(batch.X, batch.y * label_scale)
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m, tau0_power=tau0_power, init=init, loss_norm=loss_norm)
    return Setup(model, batch, model.init_params(rng_for(seed, key, 1, d_m)))


def lam_max(model: M.ShallowTransformer, theta: M.Params, batch: D.Batch) -> float:
    return float(np.linalg.eigvalsh(model.ntk(theta, batch))[-1])


def inverse_lam_max_step(s: Setup) -> float:
    """gamma = 1/lambda_max(K_0), the step size of most claims."""
    return 1.0 / lam_max(s.model, s.theta0, s.batch)


def gd_setup(
    seed: int, N: int, d: int, d_s: int, d_m: int, p: float, init: str, regime: str
) -> tuple[Setup, float]:
    """The set-up of key 0 and its step gamma = 1/lambda_max(K_0)."""
    s = make_setup(seed, 0, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init, regime=regime)
    return s, inverse_lam_max_step(s)


def run_gd(
    s: Setup,
    gamma: float,
    steps: int,
    *,
    track_sigma: bool = False,
    track_radius: bool = False,
    stop_below: float | None = None,
    theta0: M.Params | None = None,
) -> Trajectory:
    """Full-batch GD on all four blocks with one step size; optionally records sigma_min(F_pre^t)^2
    (extras "sig2") from the forward pass the gradient already did, and (extras "radius") the largest
    over blocks of |W_b^t - W_b^0|_2 / |W_b^0|_2 (spectral; Euclidean for w_O): the iterate is in
    Prop. 1's ball with our radii C_b = |W_b^0|_2 while it is <= 1."""
    last: dict[str, M.Cache] = {}

    def lg(theta: M.Params) -> tuple[float, M.Params]:
        c = s.model.forward(theta, s.batch)
        last["c"] = c
        return s.model.loss_and_grad(theta, s.batch, cache=c)

    th0 = s.theta0 if theta0 is None else theta0
    record = {}
    if track_sigma:
        record["sig2"] = lambda th, g, l, t: M.sigma_min_sq(last["c"].h)
    if track_radius:
        start = th0.blocks()
        norms = {b: spectral_norm(v) for b, v in start.items()}
        record["radius"] = lambda th, g, l, t: max(spectral_norm(th[b] - start[b]) / norms[b] for b in start)
    return gradient_descent(th0, lg, gamma, steps, record=record or None, stop_below=stop_below)


def stack_setups(setups: Sequence[Setup]) -> Setup:
    """S set-ups of one model configuration on a leading run axis (data (S, N, d_s, d), weights (S, ...))."""
    model = setups[0].model
    if any(s.model != model for s in setups):
        raise ValueError("stacked set-ups must share one model configuration")
    theta0 = M.Params(**{b: np.stack([getattr(s.theta0, b) for s in setups]) for b in M.BLOCKS})
    return Setup(model, D.Batch.stack([s.batch for s in setups]), theta0)


def run_gd_batched(
    setups: Sequence[Setup],
    gammas: Sequence[float],
    steps: int,
    *,
    norms: bool = True,
    record: Mapping[str, BatchRecorder] | None = None,
    decay: float = 0.0,
) -> list[Trajectory]:
    """Full-batch GD of S set-ups of one model configuration at once (a leading run axis, one run per
    seed: :func:`verify.numerics.gd.gradient_descent_batched`), run s at its own step ``gammas[s]``
    (at step t, ``gammas[s] / (1 + decay t)``: a decaying schedule when ``decay`` > 0).
    Each run's iterates theta_t are bit for bit those of :func:`run_gd` on its set-up alone: the loop
    takes one step size for all runs, so the run's step is folded into the gradient it is handed (eta =
    1, and 1 * (gamma_s grad) = gamma_s grad exactly). Per run, the trajectory's ``loss`` is l_t / l_0 and
    ``grad_norm`` the step length gamma_s |grad l_t| (``norms``: False skips it and the drift);
    ``record``: per-step recorders fn(theta_t, step_t, l_t / l_0, t) -> (S,), evaluated for every run
    of the batch (a diverged run's values are dropped, so they run without floating-point warnings)."""
    s = stack_setups(setups)
    gam = np.asarray(gammas, dtype=np.float64)
    scale = {b: gam.reshape((-1,) + (1,) * (getattr(s.theta0, b).ndim - 1)) for b in M.BLOCKS}
    loss0 = s.model.loss(s.theta0, s.batch)

    t = [0]  # the loop evaluates the loss and gradient once per step t = 0, 1, ..., steps

    def lg(theta: Mapping[str, np.ndarray]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        loss, grad = s.model.loss_and_grad(M.Params.from_blocks(dict(theta)), s.batch)
        at = 1.0 / (1.0 + decay * t[0]) if decay else 1.0
        t[0] += 1
        if decay:
            return loss / loss0, {b: (at * scale[b]) * g for b, g in grad.blocks().items()}
        return loss / loss0, {b: scale[b] * g for b, g in grad.blocks().items()}

    def quiet(fn: BatchRecorder) -> BatchRecorder:
        def rec(*a: Any) -> np.ndarray:
            with np.errstate(all="ignore"):
                return fn(*a)

        return rec

    rec = {k: quiet(fn) for k, fn in (record or {}).items()}
    return gradient_descent_batched(s.theta0.blocks(), lg, 1.0, steps, record=rec or None, norms=norms)


#: The largest batch of GD runs, in elements of its largest arrays (S N d_s d_m): a batch beyond the cache
#: runs slower than its runs one by one (measured at N = 10, d_s = 4: S = 20 at d_m = 64 runs 3.0x faster,
#: S = 8 at d_m = 128 2.2x, S = 4 at d_m = 256 1.4x and S = 8 there 1.1x; S = 3 at N = 24, d_s = 8, d_m =
#: 128 0.8x).
BATCH_ELEMENTS = 1 << 15


def chunks(items: Sequence[T], per_run: int) -> list[Sequence[T]]:
    """``items`` in consecutive batches of at most ``BATCH_ELEMENTS`` / ``per_run`` (at least one) each."""
    k = max(1, BATCH_ELEMENTS // per_run)
    return [items[i : i + k] for i in range(0, len(items), k)]


@dataclass(frozen=True, kw_only=True)
class Point:
    """One sweep point: seed and key of its streams, sizes N, d, d_s, width d_m, tau0 = d_m^-tau0_power,
    init, token regime and label scale; :meth:`setup` draws it (:func:`make_setup`)."""

    seed: int
    key: int
    N: int
    d: int
    d_s: int
    d_m: int
    tau0_power: float = 0.5
    init: str = "lecun"
    regime: str = "paper"
    label_scale: float = 1.0
    loss_norm: str = "sum"

    def setup(self) -> Setup:
        return make_setup(
            self.seed,
            self.key,
            N=self.N,
            d=self.d,
            d_s=self.d_s,
            d_m=self.d_m,
            tau0_power=self.tau0_power,
            init=self.init,
            regime=self.regime,
            label_scale=self.label_scale,
            loss_norm=self.loss_norm,
        )


def pooled(
    ctx: Ctx, worker: Callable[[Any], Any], xs: Sequence[Any], point: Callable[[Any, int], Any]
) -> np.ndarray:
    """``worker(point(x, seed))`` for every x of ``xs`` and every seed of ``ctx.seed_set`` (one
    replicate per seed, for a ``pooled`` claim): values (len(xs), n_seeds), through ``ctx.map``."""
    seeds = ctx.seed_set
    vals = ctx.map(worker, [point(x, s) for x in xs for s in seeds])
    return np.array(vals, dtype=float).reshape(len(xs), len(seeds), *np.shape(vals[0]))


def spectral_norm(a: np.ndarray) -> float:
    """|a|_2 of a matrix or a vector, the value ``np.linalg.norm(a, 2)`` gives (the same LAPACK call, without
    its wrapper: per GD step it took half the time of a small SVD): a matrix's largest singular value, the
    first that ``svd`` returns, sorted descending; a vector's Euclidean norm."""
    return float(np.linalg.svd(a, compute_uv=False)[0]) if a.ndim == 2 else float(np.linalg.norm(a))


def spectral_norms(th: M.Params) -> dict[str, float]:
    """|W_Q|_2, |W_K|_2, |W_V|_2, |w_O| keyed Q, K, V, O (the radii of Prop. 1's ball)."""
    blocks = {"Q": th.W_Q, "K": th.W_K, "V": th.W_V, "O": th.w_O}
    return {key: spectral_norm(w) for key, w in blocks.items()}


def prop1_at_init(s: Setup) -> B.Prop1:
    """Prop. 1 quantities of a set-up at its initialisation (sum-loss convention)."""
    c = s.model.forward(s.theta0, s.batch)
    norms = {b: float(v) for b, v in spectral_norms(s.theta0).items()}
    loss0 = 0.5 * float(np.sum((c.f - s.batch.y) ** 2))
    return B.prop1_quantities(
        c.Xs, norms, float(np.sqrt(M.sigma_min_sq(c.h))), loss0, tau0=s.model.tau0, tau1=s.model.tau1
    )


def c_ratios(p: Point) -> tuple[float, float]:
    """(C1, C2) ratios of the Prop. 1 conditions at init."""
    q = prop1_at_init(p.setup())
    return q.c1, q.c2


def c_ratio_sweep(
    ctx: Ctx, N: int, d: int, d_s: int, widths: list[int], p: float, label_scale: float = 1.0
) -> np.ndarray:
    """(C1, C2) ratios at LeCun init per width and seed (labels +-``label_scale``): (len(widths),
    n_seeds, 2)."""
    return pooled(
        ctx,
        c_ratios,
        widths,
        lambda w, s: Point(seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, label_scale=label_scale),
    )


def prop1_premises(tr: Trajectory, gamma: float, rtol: float) -> tuple[np.ndarray, np.ndarray]:
    """(ok, p2): ok[t] = the sufficient decrease l_{s+1} <= l_s - gamma/2 |grad l_s|^2 (+ rtol l_s)
    held at every s < t and p2 at every s <= t; p2[t] = sigma_min(F^t) >= alpha/2, alpha =
    sigma_min(F^0) (``tr`` recorded "sig2")."""
    L, sig2 = tr.loss, tr.extras["sig2"]
    alpha = math.sqrt(sig2[0])
    dec = L[1:] <= L[:-1] - gamma / 2 * tr.grad_norm[:-1] ** 2 + rtol * L[:-1]
    p2 = sig2 >= alpha**2 / 4
    ok = np.ones(L.size, dtype=bool)
    ok[1:] = np.cumprod(dec).astype(bool)
    ok &= np.cumprod(p2).astype(bool)
    return ok, p2


def threshold(widths: np.ndarray, ratios: np.ndarray) -> float:
    """Width at which a power law fitted to ratio(d_m) reaches 1 (log-log extrapolation)."""
    fit = fit_loglog(widths, ratios)
    return float(math.exp(-fit.intercept / fit.slope)) if fit.slope > 0 else math.inf


def min_width_of(ok: Sequence[bool], widths: Sequence[int]) -> float:
    """The smallest width of the grid from which every larger width of the grid succeeds (NaN if the
    largest fails)."""
    return next((float(widths[i]) for i in range(len(widths)) if all(ok[i:])), math.nan)


def data_summary(
    seed: int, key: int, N: int, d: int, d_s: int, p: float, ref_width: int, label_scale: float = 1.0
) -> B.DataSummary:
    """Data summary for the width thresholds: G from the realised softmax at ``ref_width`` (tau0 =
    d_m^-1/2) or from uniform attention (d_m^-1, the large-width limit); labels +-``label_scale``."""
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=ref_width, tau0_power=p, label_scale=label_scale)
    S = s.model.forward(s.theta0, s.batch).S if p == 0.5 else np.full((N, d_s, d_s), 1 / d_s)
    return B.summarise(s.batch.X, s.batch.y, B.expected_gram(S @ s.batch.X, 1.0))


def thm_width_fn(p: float) -> Callable[..., Any]:
    """The reconstructed width of Thm 1 (tau0 = d_m^-1/2) or Thm 2 (d_m^-1), read from ``B`` at call time."""
    return B.thm1_width if p == 0.5 else B.thm2_width


# Worst-case searches of the bounds stated for every input (verify.numerics.worstcase; the ratios are in
# the section modules). Every ratio carries its claim's round-off margin (upper: measured / (bound (1 +
# rtol)); lower: bound (1 - rtol) / measured, or an absolute margin where the claim has one), so a ratio
# above 1 is exactly a point where the claim's own rule fails.
def array_search(
    ratio: Callable[[np.ndarray], float],
    shape: tuple[int, ...],
    rng: np.random.Generator,
    starts: int,
    maxiter: int,
    **argument: object,
) -> WorstCase:
    """Worst case of ``ratio(A)`` over every array A of ``shape`` (unconstrained); starts N(0, 1) draws.
    ``argument`` is recorded with the shape (what a replay needs)."""
    w = worst_case(
        lambda z: ratio(z.reshape(shape)),
        lambda g: g.standard_normal(math.prod(shape)),
        rng,
        starts=starts,
        maxiter=maxiter,
    )
    return replace(w, argument={"shape": list(shape), **argument})
