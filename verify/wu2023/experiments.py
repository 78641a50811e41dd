"""Experiments of the wu2023 claims: seeded set-ups, GD runs that record the Prop. 1 premises, the
typed sweep points with their module-level workers (so ``ctx.map`` can ship them to a process pool),
and the sweeps the claims run.

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
from bounds.checks import check_choice
from verify.core import Ctx
from verify.numerics.fit import fit_loglog
from verify.numerics.gd import BatchRecorder, RunState, Trajectory, gradient_descent, gradient_descent_batched
from verify.numerics.softmax import softmax
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


#: Xavier (Glorot) normal initialisation, not one of the paper's (the default of many transformer codes):
#: every weight matrix of variance 2 / (fan_in + fan_out), so W_V's, 2 / (d + d_m), falls like 1/d_m (the
#: alternative world of ``wu2023.alpha.width``, which draws only the features F_pre: no tau1 needed).
XAVIER = "xavier"


def xavier_variances(d: int, d_m: int) -> B.InitVariances:
    """The entry variances of Xavier normal init: W_Q, W_K, W_V 2/(d + d_m), w_O 2/(d_m + 1), tau1 = 1."""
    w = 2 / (d + d_m)
    return B.InitVariances(w, w, w, 2 / (d_m + 1), 1.0)


def shared_init(
    seed: int, key: int, model: M.ShallowTransformer, variances: B.InitVariances | None = None
) -> M.Params:
    """Standard-normal draws shared across inits (scaled by each init's standard deviations, or by
    ``variances`` when given)."""
    rng = rng_for(seed, key, 2, model.d_m)
    v = variances or B.init_variances(model.init, model.d, model.d_m)
    g = {b: rng.standard_normal((model.d_m, model.d)) for b in ("W_Q", "W_K", "W_V")}
    return M.Params(
        W_Q=g["W_Q"] * np.sqrt(v.eta_Q),
        W_K=g["W_K"] * np.sqrt(v.eta_K),
        W_V=g["W_V"] * np.sqrt(v.eta_V),
        w_O=rng.standard_normal(model.d_m) * np.sqrt(v.eta_O),
    )


def lam_max(model: M.ShallowTransformer, theta: M.Params, batch: D.Batch) -> float:
    return float(np.linalg.eigvalsh(model.ntk(theta, batch))[-1])


def inverse_lam_max_step(s: Setup) -> float:
    """gamma = 1/lambda_max(K_0), the step size of most claims."""
    return 1.0 / lam_max(s.model, s.theta0, s.batch)


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
        norms = {b: float(np.linalg.norm(v, 2)) for b, v in start.items()}
        record["radius"] = lambda th, g, l, t: max(
            float(np.linalg.norm(th[b] - start[b], 2)) / norms[b] for b in start
        )
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


def run_gd_runs(setups: Sequence[Setup], gammas: Sequence[float], steps: int, **kw: Any) -> list[Trajectory]:
    """:func:`run_gd_batched` over the set-ups in batches of :func:`chunks` (``kw``: its options)."""
    m = setups[0].model
    idx = chunks(range(len(setups)), setups[0].batch.N * m.d_s * m.d_m)
    return [
        tr
        for part in idx
        for tr in run_gd_batched([setups[i] for i in part], [gammas[i] for i in part], steps, **kw)
    ]


#: The largest batch of GD runs, in elements of its largest arrays (S N d_s d_m): a batch beyond the cache
#: runs slower than its runs one by one (measured at N = 10, d_s = 4: S = 20 at d_m = 64 runs 3.0x faster,
#: S = 8 at d_m = 128 2.2x, S = 4 at d_m = 256 1.4x and S = 8 there 1.1x; S = 3 at N = 24, d_s = 8, d_m =
#: 128 0.8x).
BATCH_ELEMENTS = 1 << 15


def chunks(items: Sequence[T], per_run: int) -> list[Sequence[T]]:
    """``items`` in consecutive batches of at most ``BATCH_ELEMENTS`` / ``per_run`` (at least one) each."""
    k = max(1, BATCH_ELEMENTS // per_run)
    return [items[i : i + k] for i in range(0, len(items), k)]


def steps_to(loss: np.ndarray, frac: float) -> int | None:
    """First t with loss_t <= frac * loss_0, None if never."""
    hit = np.nonzero(loss <= frac * loss[0])[0]
    return int(hit[0]) if hit.size else None


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


@dataclass(frozen=True, kw_only=True)
class GDPoint(Point):
    """A GD run: ``gamma`` (<= 0 means 1/lambda_max(K_0)), ``steps``, target ``frac`` l_0, and ``stop``:
    end once l < frac l_0."""

    gamma: float
    steps: int
    frac: float
    stop: bool = True


@dataclass(frozen=True, kw_only=True)
class PoolingPoint(Point):
    """A model against its average-pooling twin along ``steps`` GD steps."""

    steps: int


@dataclass(frozen=True, kw_only=True)
class MinWidthPoint:
    """The empirical minimal width over ``widths`` (ascending): GD of ``steps`` steps to frac l_0."""

    seed: int
    key: int
    N: int
    d: int
    d_s: int
    tau0_power: float
    widths: tuple[int, ...]
    steps: int
    frac: float


@dataclass(frozen=True, kw_only=True)
class ThmWidthPoint:
    """One data draw for the Thm 1 / 2 width function; ``which``: "both", "c1" or "c2"."""

    seed: int
    key: int
    N: int
    d: int
    d_s: int
    tau0_power: float
    which: str


@dataclass(frozen=True, kw_only=True)
class PremisePoint(Point):
    """A GD run to ``frac`` l_0 within ``steps`` steps with gamma = ``step_factor`` / lambda_max(K_0)
    that watches Prop. 1's premises (:func:`premise_run`); ``decrease_rtol``: round-off allowance of
    the sufficient-decrease premise."""

    steps: int
    frac: float
    step_factor: float
    decrease_rtol: float


def premise_run(p: PremisePoint) -> dict[str, float | str]:
    """GD (gamma = step_factor / lambda_max(K_0), sum loss) from the point's set-up, stopped once
    l < frac l_0 or at the first step where a premise of Prop. 1 fails: alpha = sigma_min(F_pre^0) > 0 (needs
    d_m >= N), the sufficient decrease l_{t+1} <= l_t - gamma/2 |grad l_t|^2 (+ rtol l_t; the
    per-step form of the step-size condition C3) and sigma_min(F_pre^t) >= alpha/2. Returns success
    (1.0 when the target is reached with every premise at every step, else 0.0), the premise that
    failed first ("" if none; "target" when the run ended above it), the steps run, and radius:
    max_t max_b |W_b^t - W_b^0|_2 / |W_b^0|_2 (the ball premise with our radii C_b = |W_b^0|_2;
    reported, not part of success)."""
    if p.d_m < p.N:
        return {"success": 0.0, "failed": "alpha = 0 (d_m < N)", "steps": 0.0, "radius": 0.0}
    s = p.setup()
    lmax = lam_max(s.model, s.theta0, s.batch)
    if not lmax > 0:  # every ReLU unit dead on every example: alpha = 0
        return {"success": 0.0, "failed": "alpha = 0", "steps": 0.0, "radius": 0.0}
    g = p.step_factor / lmax
    st: dict = {"failed": "", "prev": None}

    def lg(theta: M.Params) -> tuple[float, M.Params]:
        c = s.model.forward(theta, s.batch)
        loss, grad = s.model.loss_and_grad(theta, s.batch, cache=c)
        sig2 = M.sigma_min_sq(c.h)
        if st["prev"] is None:
            st["alpha2"] = sig2
            if not sig2 > 0:
                st["failed"] = "alpha = 0"
        else:
            l_prev, gn2 = st["prev"]
            if loss > l_prev - g / 2 * gn2 + p.decrease_rtol * l_prev:
                st["failed"] = "sufficient decrease"
            elif sig2 < st["alpha2"] / 4:
                st["failed"] = "sigma_min(F^t) >= alpha/2"
        st["prev"] = (loss, sum(float(np.sum(v * v)) for v in grad.blocks().values()))
        return (math.inf if st["failed"] else loss), grad

    loss0 = s.model.loss(s.theta0, s.batch)
    start = s.theta0.blocks()
    norms = {b: float(np.linalg.norm(v, 2)) for b, v in start.items()}
    rec = {
        "radius": lambda th, gr, l, t: max(float(np.linalg.norm(th[b] - start[b], 2)) / norms[b] for b in th)
    }
    tr = gradient_descent(s.theta0, lg, g, p.steps, record=rec, stop_below=p.frac * loss0)
    reached = tr.state == RunState.CONVERGED
    failed = st["failed"] or ("" if reached else "target")
    return {
        "success": float(reached and not st["failed"]),
        "failed": failed,
        "steps": float(tr.loss.size - 1),
        "radius": float(np.max(tr.extras["radius"])) if tr.loss.size else math.inf,
    }


def s_deviation(p: Point) -> float:
    """max_ij |S_ij - 1/d_s| at init for one sequence (N = 1)."""
    s = p.setup()
    S = s.model.forward(s.theta0, s.batch).S
    return float(np.max(np.abs(S - 1.0 / p.d_s)))


def qk_ratio(p: Point) -> float:
    """(|J_Q|^2 + |J_K|^2) / |J_V|^2 at init."""
    s = p.setup()
    K = s.model.ntk_blocks(s.theta0, s.batch)
    return float((np.trace(K["W_Q"]) + np.trace(K["W_K"])) / np.trace(K["W_V"]))


def conc_point(p: Point) -> tuple[float, float]:
    """(alpha^2 / d_m, lambda_min(G)) at init, G from the realised softmax."""
    s = p.setup()
    c = s.model.forward(s.theta0, s.batch)
    v = B.init_variances(p.init, p.d, p.d_m)
    G = B.expected_gram(c.S @ c.Xs, v.eta_V)
    return M.sigma_min_sq(c.h) / p.d_m, float(np.linalg.eigvalsh(G)[0])


@dataclass(frozen=True, kw_only=True)
class ConcPoint(Point):
    """A concentration point: the softmax of the point's set-up at width ``ref_width`` (its W_Q, W_K), and
    ``draws`` draws of W_V of width ``d_m`` given it."""

    ref_width: int
    draws: int


def conc_gap(p: ConcPoint) -> float:
    """The lemma's concentration conditioned on W_Q, W_K (derivation Sect. 5.3): with the softmax of the
    set-up at width ``p.ref_width`` held fixed (so G is fixed), the mean over ``p.draws`` draws of W_V
    (d_m, d) (stream (seed, key, 3, d_m)) of r = |alpha^2 / (d_m lambda_min(G)) - 1|. Averaging draws
    removes the random sign inside the absolute value; holding the softmax removes the change of G from
    width to width, which is not the lemma's fluctuation."""
    s = make_setup(
        p.seed, p.key, N=p.N, d=p.d, d_s=p.d_s, d_m=p.ref_width, tau0_power=p.tau0_power, init=p.init,
        regime=p.regime,
    )  # fmt: skip
    c = s.model.forward(s.theta0, s.batch)
    Z = (c.S @ c.Xs).reshape(-1, p.d)
    eta_V = B.init_variances(p.init, p.d, p.d_m).eta_V
    lam = float(np.linalg.eigvalsh(B.expected_gram(Z.reshape(p.N, p.d_s, p.d), eta_V))[0])
    rng = rng_for(p.seed, p.key, 3, p.d_m)
    r = []
    for _ in range(p.draws):
        W = rng.standard_normal((p.d_m, p.d)) * math.sqrt(eta_V)
        F = np.maximum(Z @ W.T, 0.0).reshape(p.N, p.d_s, p.d_m).mean(axis=1)
        r.append(abs(M.sigma_min_sq(F) / (p.d_m * lam) - 1.0))
    return float(np.mean(r))


def alpha_he_lecun(p: Point) -> tuple[float, float]:
    """(alpha^2 LeCun, alpha^2 He) on the point's data with shared standard-normal draws."""
    batch = D.gaussian_data(rng_for(p.seed, p.key, 0), p.N, p.d_s, p.d, p.regime)
    out = []
    for init in ("lecun", "he"):
        model = M.ShallowTransformer(d=p.d, d_s=p.d_s, d_m=p.d_m, tau0_power=p.tau0_power, init=init)
        out.append(M.sigma_min_sq(model.features(shared_init(p.seed, p.key, model), batch)))
    return out[0], out[1]


def alpha_sq(p: Point) -> float:
    """alpha^2 = sigma_min(F_pre^0)^2 at the point's init (one of the model's, or ``XAVIER``), on the data
    and standard-normal draws of :func:`alpha_he_lecun` (so its LeCun value is that function's, bit for
    bit)."""
    batch = D.gaussian_data(rng_for(p.seed, p.key, 0), p.N, p.d_s, p.d, p.regime)
    xavier = p.init == XAVIER
    model = M.ShallowTransformer(
        d=p.d, d_s=p.d_s, d_m=p.d_m, tau0_power=p.tau0_power, init="lecun" if xavier else p.init
    )
    v = xavier_variances(p.d, p.d_m) if xavier else None
    return M.sigma_min_sq(model.features(shared_init(p.seed, p.key, model, v), batch))


def ntk_limit_err(p: Point) -> float:
    """|K(theta_0) - K_inf|_F / |K_inf|_F, K_inf of the token means (``bounds.wu2023.limiting_ntk``)."""
    s = p.setup()
    K = s.model.ntk(s.theta0, s.batch)
    Kinf = B.limiting_ntk(s.batch.X.mean(axis=1))["K"]
    return float(np.linalg.norm(K - Kinf) / np.linalg.norm(Kinf))


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


def gd_point(p: GDPoint) -> dict[str, float | bool | None]:
    """One GD run. Returns the final loss ratio, steps to frac l_0, the gamma used, the max relative
    weight drift, the NTK drift at the end, whether it diverged, and t10: the first step whose change
    gamma |grad_t| is below 10% of the first step's (None if never)."""
    s = p.setup()
    K0 = s.model.ntk(s.theta0, s.batch)
    g = 1.0 / float(np.linalg.eigvalsh(K0)[-1]) if p.gamma <= 0 else p.gamma
    loss0 = s.model.loss(s.theta0, s.batch)
    tr = run_gd(s, g, p.steps, stop_below=p.frac * loss0 if p.stop else None)
    reached = steps_to(tr.loss, p.frac)
    Kt = s.model.ntk(tr.params, s.batch)
    small = tr.grad_norm < 0.1 * tr.grad_norm[0]
    return {
        "ratio": float(tr.loss[-1] / tr.loss[0]),
        "steps": None if reached is None else float(reached),
        "gamma": g,
        "drift": float(np.max(tr.drift) / np.linalg.norm(s.theta0.flat())),
        "ntk_drift": float(np.linalg.norm(Kt - K0) / np.linalg.norm(K0)),
        "diverged": tr.state == RunState.DIVERGED,
        "t10": float(np.argmax(small)) if np.any(small) else None,
    }


def min_width(p: MinWidthPoint) -> int | None:
    """Smallest d_m in ``p.widths`` from which GD with gamma = 1/lambda_max(K_0) reaches
    l_T <= frac l_0 within ``steps`` (for every larger width of the list too); None if none."""
    ok = []
    for w in p.widths:
        s = make_setup(p.seed, p.key, N=p.N, d=p.d, d_s=p.d_s, d_m=w, tau0_power=p.tau0_power)
        g = inverse_lam_max_step(s)
        loss0 = s.model.loss(s.theta0, s.batch)
        tr = run_gd(s, g, p.steps, stop_below=p.frac * loss0)
        ok.append(bool(tr.loss[-1] <= p.frac * loss0))
    for i in range(len(p.widths)):
        if all(ok[i:]):
            return int(p.widths[i])
    return None


def data_summary(
    seed: int, key: int, N: int, d: int, d_s: int, p: float, ref_width: int, label_scale: float = 1.0
) -> B.DataSummary:
    """Data summary for the width thresholds: G from the realised softmax at ``ref_width`` (tau0 =
    d_m^-1/2) or from uniform attention (d_m^-1, the large-width limit); labels +-``label_scale``."""
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=ref_width, tau0_power=p, label_scale=label_scale)
    S = s.model.forward(s.theta0, s.batch).S if p == 0.5 else np.full((N, d_s, d_s), 1 / d_s)
    return B.summarise(s.batch.X, s.batch.y, B.expected_gram(S @ s.batch.X, 1.0))


def thm_width_fn(p: float):
    """The reconstructed width of Thm 1 (tau0 = d_m^-1/2) or Thm 2 (d_m^-1), read from ``B`` at call time."""
    return B.thm1_width if p == 0.5 else B.thm2_width


def thm_width_point(p: ThmWidthPoint) -> float:
    """log10 of the required width for one data draw (G at d_m = 4N)."""
    s = data_summary(p.seed, p.key, p.N, p.d, p.d_s, p.tau0_power, 4 * p.N)
    return float(np.log10(float(thm_width_fn(p.tau0_power)(s, which=p.which))))


def pooling_point(p: PoolingPoint) -> tuple[float, float]:
    """(relative difference of f at init, max_t |l_attn - l_pool| / l_0 over GD) between the model
    and the same weights with S = 11^T/d_s, at a step stable for both."""
    s = p.setup()
    sp = Setup(s.model.with_(pooling=True), s.batch, s.theta0)
    fa, fp = s.model.forward(s.theta0, s.batch).f, sp.model.forward(s.theta0, s.batch).f
    g = 1.0 / max(lam_max(s.model, s.theta0, s.batch), lam_max(sp.model, s.theta0, s.batch))
    la, lp = run_gd(s, g, p.steps).loss, run_gd(sp, g, p.steps).loss
    n = min(la.size, lp.size)
    return (
        float(np.linalg.norm(fa - fp) / np.linalg.norm(fp)),
        float(np.max(np.abs(la[:n] - lp[:n])) / la[0]),
    )


def pooling_gap(p: Point) -> float:
    """|f_attn - f_pool| / |f_pool| at init: the model against the same weights with S = 11^T/d_s."""
    s = p.setup()
    fa = s.model.forward(s.theta0, s.batch).f
    fp = s.model.with_(pooling=True).forward(s.theta0, s.batch).f
    return float(np.linalg.norm(fa - fp) / np.linalg.norm(fp))


def stable_step(p: Point) -> float:
    """The largest stable GD step of the linearised model: 2 / lambda_max(K_0) for the sum loss, 2 N /
    lambda_max(K_0) for the mean loss (its Gauss-Newton Hessian is K_0 / N)."""
    s = p.setup()
    return (p.N if p.loss_norm == "mean" else 1) * 2.0 / lam_max(s.model, s.theta0, s.batch)


def pooled(ctx: Ctx, worker, xs: Sequence, point) -> np.ndarray:
    """``worker(point(x, seed))`` for every x of ``xs`` and every seed of ``ctx.seed_set`` (one
    replicate per seed, for a ``pooled`` claim): values (len(xs), n_seeds), through ``ctx.map``."""
    seeds = ctx.seed_set
    vals = ctx.map(worker, [point(x, s) for x in xs for s in seeds])
    return np.array(vals, dtype=float).reshape(len(xs), len(seeds), *np.shape(vals[0]))


def s_dev_sweep(ctx: Ctx, power: float, widths: list[int], d: int, d_s: int) -> np.ndarray:
    """max|S - 1/d_s| per width and seed (LeCun, one "active" sequence): (len(widths), n_seeds)."""
    return pooled(
        ctx,
        s_deviation,
        widths,
        lambda w, s: Point(seed=s, key=0, N=1, d=d, d_s=d_s, d_m=w, tau0_power=power, regime="active"),
    )


def qk_sweep(ctx: Ctx, p: float, widths: list[int], N: int, d: int, d_s: int, init: str) -> np.ndarray:
    """The Q/K-to-V NTK ratio per width and seed, "paper" tokens: (len(widths), n_seeds)."""
    return pooled(
        ctx,
        qk_ratio,
        widths,
        lambda w, s: Point(seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, init=init),
    )


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


def threshold(widths: np.ndarray, ratios: np.ndarray) -> float:
    """Width at which a power law fitted to ratio(d_m) reaches 1 (log-log extrapolation)."""
    fit = fit_loglog(widths, ratios)
    return float(math.exp(-fit.intercept / fit.slope)) if fit.slope > 0 else math.inf


def width_orders(ctx: Ctx, p: float, Ns: list[int], d_factor: float, d_power: float, d_s: int, which: str):
    """log10 of the Thm 1 / 2 width per N and seed with d = round(d_factor N^d_power): (log10 widths
    (len(Ns), n_seeds), ds)."""
    ds = {n: round(d_factor * n**d_power) for n in Ns}
    lw = pooled(
        ctx,
        thm_width_point,
        Ns,
        lambda n, s: ThmWidthPoint(seed=s, key=0, N=n, d=ds[n], d_s=d_s, tau0_power=p, which=which),
    )
    return lw, [ds[n] for n in Ns]


def gd_sweep(
    ctx: Ctx,
    N: int,
    d: int,
    d_s: int,
    widths: list[int],
    p: float,
    init: str,
    regime: str,
    gamma: float,
    steps: int,
    frac: float,
    stop: bool = True,
    loss_norm: str = "sum",
) -> list[list[dict]]:
    """:func:`gd_point` per width and seed of ``ctx.seed_set``: rows[width][seed]."""

    def point(w: int, s: int) -> GDPoint:
        return GDPoint(
            seed=s, key=0, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, init=init, regime=regime,
            gamma=gamma, steps=steps, frac=frac, stop=stop, loss_norm=loss_norm,
        )  # fmt: skip

    out = ctx.map(gd_point, [point(w, s) for w in widths for s in ctx.seed_set])
    n = len(ctx.seed_set)
    return [out[i * n : (i + 1) * n] for i in range(len(widths))]


def min_width_of(ok: Sequence[bool], widths: Sequence[int]) -> float:
    """The smallest width of the grid from which every larger width of the grid succeeds (NaN if the
    largest fails)."""
    return next((float(widths[i]) for i in range(len(widths)) if all(ok[i:])), math.nan)


def width_protocol(
    ctx: Ctx,
    p: float,
    Ns: Sequence[int],
    widths: Sequence[int],
    d: int,
    d_s: int,
    steps: int,
    frac: float,
    step_factor: float,
    rtol: float,
    d_per_N: int = 0,
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """:func:`premise_run` at every N, width and seed of ``ctx.seed_set`` (fixed d, or d = d_per_N N
    when ``d_per_N`` > 0; "paper" tokens, LeCun, tau0 = d_m^-p): success (len(Ns), len(widths),
    n_seeds) as 0/1, the ball radius ratio of the same runs, and how often each premise failed first."""

    def point(nw: tuple[int, int], s: int) -> PremisePoint:
        dd = d_per_N * nw[0] if d_per_N > 0 else d
        return PremisePoint(
            seed=s, key=0, N=nw[0], d=dd, d_s=d_s, d_m=nw[1], tau0_power=p, steps=steps, frac=frac,
            step_factor=step_factor, decrease_rtol=rtol,
        )  # fmt: skip

    grid = [(n, w) for n in Ns for w in widths]
    out = ctx.map(premise_run, [point(nw, s) for nw in grid for s in ctx.seed_set])
    shape = (len(Ns), len(widths), len(ctx.seed_set))
    ok = np.array([r["success"] for r in out]).reshape(shape)
    radius = np.array([r["radius"] for r in out]).reshape(shape)
    reasons: dict[str, int] = {}
    for r in out:
        reasons[str(r["failed"]) or "none"] = reasons.get(str(r["failed"]) or "none", 0) + 1
    return ok, radius, reasons


def gd_setup(
    seed: int, N: int, d: int, d_s: int, d_m: int, p: float, init: str, regime: str
) -> tuple[Setup, float]:
    """The set-up of key 0 and its step gamma = 1/lambda_max(K_0)."""
    s = make_setup(seed, 0, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init, regime=regime)
    return s, inverse_lam_max_step(s)


def spectral_norms(th: M.Params) -> dict[str, float]:
    """|W_Q|_2, |W_K|_2, |W_V|_2, |w_O| keyed Q, K, V, O (the radii of Prop. 1's ball)."""
    return {
        "Q": np.linalg.norm(th.W_Q, 2),
        "K": np.linalg.norm(th.W_K, 2),
        "V": np.linalg.norm(th.W_V, 2),
        "O": np.linalg.norm(th.w_O),
    }


def lipschitz_ratios(s: Setup, rng: np.random.Generator, pairs: int) -> tuple[float, float]:
    """max over ``pairs`` random pairs in the spectral ball B of |F(t) - F(t')|_F / (rho |t - t'|) and
    of |J(t)|_2 / z. B has radii C_b = ``rng``-random multiples of |W_b^0| (1e-2 .. 10^0.5) and rho, z
    are ``bounds.wu2023.rho_z`` at lambda_b = |W_b^0| + C_b."""
    th0 = s.theta0
    norms = spectral_norms(th0)
    radii = {b: float(v * 10.0 ** rng.uniform(-2, 0.5)) for b, v in norms.items()}
    lam = {b: float(norms[b] + radii[b]) for b in norms}
    c, X2 = B.token_stats(s.batch.X * s.model.input_scale)
    rho, z = B.rho_z(c, X2, lam, s.model.tau0, s.model.tau1, s.model.d_s)

    def point() -> M.Params:
        out = {}
        for b, key in (("W_Q", "Q"), ("W_K", "K"), ("W_V", "V"), ("w_O", "O")):
            W0 = getattr(th0, b)
            Dir = rng.standard_normal(W0.shape)
            nrm = np.linalg.norm(Dir, 2) if Dir.ndim == 2 else np.linalg.norm(Dir)
            out[b] = W0 + Dir / nrm * radii[key] * rng.uniform()
        return M.Params.from_blocks(out)

    worst_rho = worst_z = 0.0
    for _ in range(pairs):
        a, b2 = point(), point()
        dF = np.linalg.norm(s.model.features(a, s.batch) - s.model.features(b2, s.batch))
        worst_rho = max(worst_rho, float(dF / (rho * np.linalg.norm(a.flat() - b2.flat()))))
        worst_z = max(worst_z, float(np.linalg.norm(s.model.jacobian(a, s.batch), 2) / z))
    return worst_rho, worst_z


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


def ntk_rate_run(seed: int, key: int, N: int, d: int, d_s: int, d_m: int, steps: int) -> dict[str, float]:
    """NTK init, tau0 = d_m^-1, "paper" tokens, GD with gamma = 1/lambda_max(K_inf), ``steps`` steps:
    the step t >= 1 where l_t / ``bounds.wu2023.ntk_rate_bound``_t is largest, l_t and the bound there,
    the steps run and lambda_min of K_inf and of K(theta_0)."""
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=1.0, init="ntk")
    ev = np.linalg.eigvalsh(B.limiting_ntk(s.batch.X.mean(axis=1))["K"])
    g = 1.0 / ev[-1]
    tr = run_gd(s, g, steps)
    bound = B.ntk_rate_bound(tr.loss[0], g, ev[0], np.arange(tr.loss.size))
    t = 1 + int(np.argmax(tr.loss[1:] / bound[1:]))
    lam0 = float(np.linalg.eigvalsh(s.model.ntk(s.theta0, s.batch))[0])
    return {
        "t": float(t), "loss": float(tr.loss[t]), "bound": float(bound[t]), "ran": float(tr.loss.size - 1),
        "lam_inf": float(ev[0]), "lam_0": lam0,
    }  # fmt: skip


def final_ratio(tr: Trajectory, steps: int) -> float:
    """l_T / l_0, inf when the run stopped before ``steps`` (diverged); l_T for a run of
    :func:`run_gd_batched` (its loss is l_t / l_0, so l_0 = 1)."""
    return float(tr.loss[-1] / tr.loss[0]) if tr.loss.size == steps + 1 else math.inf


def init_rate_runs(
    seeds: Sequence[int], key: int, N: int, d: int, d_s: int, d_m: int, steps: int, step: str = "common"
) -> list[tuple[dict, float]]:
    """Per seed: l_T / l_0 per init (``B.INITS``) on the seed's data, at ``step`` "common" (gamma =
    1/max(lambda_max(K_0)) over LeCun and He, for all three) or "own" (each init at its own gamma =
    1/lambda_max(K_0)); and NTK init's l_T / l_0 at its own gamma (reported). The seeds run batched, one
    GD per init (:func:`run_gd_runs`)."""
    check_choice("step", step, STEP_PROTOCOLS)
    su = {i: [make_setup(s, key, N=N, d=d, d_s=d_s, d_m=d_m, init=i) for s in seeds] for i in B.INITS}
    lm = {i: [lam_max(x.model, x.theta0, x.batch) for x in su[i]] for i in B.INITS}
    common = [1.0 / max(a, b) for a, b in zip(lm["lecun"], lm["he"], strict=True)]
    g = {i: common if step == "common" else [1.0 / v for v in lm[i]] for i in B.INITS}
    r = {i: [final_ratio(tr, steps) for tr in run_gd_runs(su[i], g[i], steps, norms=False)] for i in B.INITS}
    own = r["ntk"]
    if step != "own":
        own = [
            final_ratio(tr, steps)
            for tr in run_gd_runs(su["ntk"], [1.0 / v for v in lm["ntk"]], steps, norms=False)
        ]
    return [({i: r[i][k] for i in B.INITS}, own[k]) for k in range(len(seeds))]


#: How GD claims that compare configurations choose the step: one step common to the configurations
#: (the paper's protocol) or each configuration's own 1/lambda_max(K_0).
STEP_PROTOCOLS = ("common", "own")


def common_scaling_step(seeds: Sequence[int], N: int, d: int, d_s: int, d_m: int, regime: str) -> float:
    """The smallest over ``seeds`` of 1/max(lambda_max(K_0)) over tau0 = d_m^-1/2 and d_m^-1."""
    gs = []
    for k in seeds:
        a = make_setup(k, 0, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=0.5, regime=regime)
        b = make_setup(k, 0, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=1.0, regime=regime)
        gs.append(1.0 / max(lam_max(a.model, a.theta0, a.batch), lam_max(b.model, b.theta0, b.batch)))
    return float(min(gs))


def assumption3(batch: D.Batch, d_m: int, seed: int, key: int) -> tuple[float, float]:
    """(N sigma_min(Zbar)^2 / |Zbar|_F^2, N lambda_min(G) / tr G) of ``batch`` at LeCun init, tau0 =
    d_m^-1/2, weights from stream (seed, key, 9, d_m)."""
    N, d_s, d = batch.X.shape
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m)
    th = model.init_params(rng_for(seed, key, 9, d_m))
    c = model.forward(th, batch)
    Z = c.S @ batch.X
    G = B.expected_gram(Z, 1.0)
    return B.assumption3_pooled(Z.mean(axis=1)), N * float(np.linalg.eigvalsh(G)[0] / np.trace(G))


def tail_constant(u: np.ndarray, power: float = 1.0) -> float:
    """The largest c with P(u >= t) <= 2 exp(-c t^power) at every t > 0 under the empirical law of the
    values ``u`` (the tail form of Assumption 3 as we reconstruct it; the prefactor 2 is the textbook
    sub-exponential / sub-Gaussian form). The empirical tail is a step function, so the bound binds at
    the sample points: c = min over the positive sorted values u_(k) of ln(2 n / (n - k + 1)) /
    u_(k)^power (values <= 0 never bind). inf when no value is positive."""
    u = np.sort(np.asarray(u, dtype=np.float64).ravel())
    if u.size == 0:
        raise ValueError("u must hold at least one value")
    tail = (u.size - np.arange(u.size)) / u.size  # P(u >= u_(k)) at the first index of a tie
    pos = u > 0
    if not np.any(pos):
        return math.inf
    return float(np.min(np.log(2.0 / tail[pos]) / u[pos] ** power))


def covariance_tails(X: np.ndarray, power: float) -> dict[str, float]:
    """The covariance cosines u_ij = <C_i, C_j>_F / (|C_i|_F |C_j|_F), C_i = X_i^T X_i, i < j
    (``bounds.wu2023.assumption3_covariance``) of the tokens X (N, d_s, d): their tail constant at
    ``power`` and at power 2 (the sub-Gaussian form, reported), mean, 90% quantile, max and the share of
    pairs above 0.9."""
    u = B.assumption3_covariance(X)
    return {
        "c": tail_constant(u, power),
        "c2": tail_constant(u, 2.0),
        "mean": float(u.mean()),
        "q90": float(np.quantile(u, 0.9)),
        "max": float(u.max()),
        "above_0.9": float(np.mean(u > 0.9)),
    }


#: Round-off allowance of the sufficient-decrease premise in :func:`digits_gd_run` (reported only).
PREMISE_RTOL = 1e-12


def digits_gd_run(
    seed: int, key: int, N: int, d_m: int, steps: int, frac: float, gauss: bool, conflict: bool = False
) -> dict:
    """GD on N digit images as 8 row-tokens (d = 8), LeCun, tau0 = d_m^-1/2, sum loss, gamma =
    1/lambda_max(K_0), at most ``steps`` steps, stopped below frac l_0. Data from stream (seed, key, 0),
    weights from (seed, key, 1, d_m). ``conflict``: the last image replaced by a copy of the first with
    the opposite label (alpha = 0 and no zero-loss fit). ``gauss``: the digit tokens replaced by Gaussian
    tokens of the same shape and Frobenius norm (the same labels), the twin that separates "d < N" from
    "images". Returns
    l_T / l_0, the steps run, alpha^2 = sigma_min(F_pre^0)^2 and alpha^2 / (d_m lambda_min(G)) (G from
    the realised softmax), the pooled-input quantity of Assumption 3 (0 when N > d), lambda_min /
    lambda_max of K_0, min_t and final sigma_min(F^t) / alpha (0 when alpha = 0, e.g. repeated
    images), and whether Prop. 1's premises (sufficient decrease, sigma_min(F^t) >= alpha/2) held at
    every step."""
    rng = rng_for(seed, key, 0)
    batch = D.digits_tokens(rng, N, "rows")
    if conflict:
        X, y = batch.X.copy(), batch.y.copy()
        X[-1], y[-1] = X[0], -y[0]
        batch = D.Batch(X, y)
    _, d_s, d = batch.X.shape
    if gauss:
        X = D.gaussian_tokens(rng, N, d_s, d)
        batch = D.Batch(X * np.linalg.norm(batch.X) / np.linalg.norm(X), batch.y)
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m)
    s = Setup(model, batch, model.init_params(rng_for(seed, key, 1, d_m)))
    ev = np.linalg.eigvalsh(model.ntk(s.theta0, batch))
    c = model.forward(s.theta0, batch)
    Z = c.S @ c.Xs
    lam_G = float(np.linalg.eigvalsh(B.expected_gram(Z, B.init_variances("lecun", d, d_m).eta_V))[0])
    gamma = 1.0 / float(ev[-1])
    loss0 = model.loss(s.theta0, batch)
    tr = run_gd(s, gamma, steps, track_sigma=True, stop_below=frac * loss0)
    sig2 = tr.extras["sig2"]
    sig = np.sqrt(sig2 / sig2[0]) if sig2[0] > 0 else np.zeros_like(sig2)  # alpha = 0: no ratio
    ok, _ = prop1_premises(tr, gamma, PREMISE_RTOL)
    return {
        "ratio": float(tr.loss[-1] / tr.loss[0]),
        "steps": float(tr.loss.size - 1),
        "alpha2": float(sig2[0]),
        "conc": float(sig2[0] / (d_m * lam_G)) if lam_G > 0 else 0.0,
        "zbar": B.assumption3_pooled(Z.mean(axis=1)),
        "inv_cond": float(max(ev[0], 0.0) / ev[-1]),
        "sig_min": float(sig.min()),
        "sig_last": float(sig[-1]),
        "premises": bool(ok[-1]),
    }


# ---------------------------------------------------------------------------------------------------
# Worst-case searches of the bounds stated for every input (verify.numerics.worstcase). Every ratio
# carries its claim's round-off margin (upper: measured / (bound (1 + rtol)); lower: bound (1 - rtol) /
# measured, or an absolute margin where the claim has one), so a ratio above 1 is exactly a point where
# the claim's own rule fails.
# ---------------------------------------------------------------------------------------------------


def params_from_flat(z: np.ndarray, d: int, d_m: int) -> M.Params:
    """The inverse of :meth:`verify.wu2023.model.Params.flat`: blocks W_Q, W_K, W_V (d_m, d), w_O (d_m,)."""
    Q, K, V, O = np.split(np.asarray(z, dtype=np.float64), np.cumsum([d_m * d] * 3))
    return M.Params(W_Q=Q.reshape(d_m, d), W_K=K.reshape(d_m, d), W_V=V.reshape(d_m, d), w_O=O)


def model_search(
    model: M.ShallowTransformer,
    ratio: Callable[[M.Params, D.Batch], float],
    rng: np.random.Generator,
    starts: int,
    maxiter: int,
    *,
    batch: D.Batch | None = None,
    N: int = 1,
    w_O: bool = True,
) -> WorstCase:
    """Worst case of ``ratio(theta, batch)`` over every theta of ``model`` and, when ``batch`` is None,
    every token set X (N, d_s, d) (labels 0); otherwise on ``batch``. The search variable is (X, W_Q, W_K,
    W_V, w_O) flattened and unconstrained (without w_O, fixed at ones, when ``w_O`` is False: a ratio
    that does not depend on it). Starts are N(0, 1) draws, redrawn (up to :data:`DRAWS` times) where
    the ratio is below :data:`DRAW_FLOOR`: a dead ReLU unit or a rank-deficient F_pre makes it 0 (up to
    round-off) and flat, and a start there never moves."""
    nX = 0 if batch is not None else N * model.d_s * model.d
    nW = 3 * model.d_m * model.d

    def split(z: np.ndarray) -> tuple[M.Params, D.Batch]:
        b = batch if batch is not None else D.Batch(z[:nX].reshape(N, model.d_s, model.d), np.zeros(N))
        th = z[nX:] if w_O else np.concatenate([z[nX:], np.ones(model.d_m)])
        return params_from_flat(th, model.d, model.d_m), b

    def sample(g: np.random.Generator) -> np.ndarray:
        for _ in range(DRAWS):
            z = g.standard_normal(nX + nW + (model.d_m if w_O else 0))
            if ratio(*split(z)) >= DRAW_FLOOR:
                break
        return z

    w = worst_case(lambda z: ratio(*split(z)), sample, rng, starts=starts, maxiter=maxiter)
    n = N if batch is None else batch.N
    sizes = {"N": n, "d_s": model.d_s, "d": model.d, "d_m": model.d_m, "tau0": model.tau0, "w_O": w_O}
    return replace(w, argument={**sizes, "data": "searched" if batch is None else "fixed"})


#: Draws :func:`model_search` tries per start for one whose ratio is at least DRAW_FLOOR.
DRAWS = 100
DRAW_FLOOR = 1e-3


def feature_jacobian(model: M.ShallowTransformer, th: M.Params, batch: D.Batch) -> np.ndarray:
    """The Jacobian of F_pre in (W_Q, W_K, W_V): (N d_m, 3 d_m d), row (n, m) the gradient of
    F_pre[n, m] = h_m(X_n), from the model's hand gradients of f = tau1 w_O^T h at w_O = e_m / tau1."""
    cols = 3 * model.d_m * model.d
    unit = np.eye(model.d_m) / model.tau1
    rows = [model.jacobian(th.replace(w_O=unit[m]), batch)[:, :cols] for m in range(model.d_m)]
    return np.stack(rows, axis=1).reshape(-1, cols)


def lipschitz_ratio(
    model: M.ShallowTransformer, th: M.Params, batch: D.Batch, rtol: float, qk: bool = False
) -> float:
    """|dF_pre(theta)|_2 / (rho (1 + rtol)), rho from ``bounds.wu2023.rho_z`` at lambda-bar_b = |W_b|_2.

    On the convex ball the best Lipschitz constant of F_pre is the supremum of |dF_pre|_2, and theta lies
    on the outer boundary of the ball of centre W_b / (1 + k), radii C_b = k |W_b^0|_2 (any k > 0),
    whose lambda-bar_b = |W_b^0|_2 + C_b is |W_b|_2; rho grows with lambda-bar, so this ratio over every
    theta is the worst case over every ball and every pair in it. qk: only the Q/K terms,
    |dF_pre / d(W_Q, W_K)|_2 against sqrt(sum_n a_n^2 + b_n^2) (rho with c_n = 0)."""
    c, X2 = B.token_stats(batch.X * model.input_scale)
    rho, _ = B.rho_z(0 * c if qk else c, X2, spectral_norms(th), model.tau0, model.tau1, model.d_s)
    J = feature_jacobian(model, th, batch)
    J = J[:, : 2 * model.d_m * model.d] if qk else J
    return float(np.linalg.norm(J, 2) / (rho * (1 + rtol))) if rho > 0 else 0.0


def lipschitz_search(
    rng: np.random.Generator,
    N: int,
    d_s: int,
    d: int,
    d_m: int,
    starts: int,
    maxiter: int,
    rtol: float,
    qk: bool = False,
) -> WorstCase:
    """Worst case of :func:`lipschitz_ratio` over every theta and every token set X (N, d_s, d) at LeCun
    init's tau0 = d_m^-1/2 (tau1 cancels; w_O does not enter F_pre)."""
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m)
    w = model_search(
        model, lambda th, b: lipschitz_ratio(model, th, b, rtol, qk), rng, starts, maxiter, N=N, w_O=False
    )
    return replace(w, argument={**w.argument, "terms": "Q/K" if qk else "all"})


def ntk_floor_ratio(model: M.ShallowTransformer, th: M.Params, batch: D.Batch, rtol: float) -> float:
    """tau1^2 sigma_min(F_pre)^2 (1 - rtol) / lambda_min(K) at theta (0 where the floor is 0)."""
    floor = model.tau1**2 * M.sigma_min_sq(model.features(th, batch))
    return floor * (1 - rtol) / float(np.linalg.eigvalsh(model.ntk(th, batch))[0]) if floor > 0 else 0.0


def pl_ratio(model: M.ShallowTransformer, th: M.Params, batch: D.Batch, rtol: float) -> float:
    """2 tau1^2 sigma_min(F_pre)^2 l (1 - rtol) / |grad l|^2 at theta (0 where the bound is 0)."""
    c = model.forward(th, batch)
    loss, g = model.loss_and_grad(th, batch, cache=c)
    bound = 2 * model.tau1**2 * M.sigma_min_sq(c.h) * loss
    return bound * (1 - rtol) / float(np.sum(g.flat() ** 2)) if bound > 0 else 0.0


def theta_search(
    ratio: Callable[[M.ShallowTransformer, M.Params, D.Batch, float], float],
    rng: np.random.Generator,
    seed: int,
    N: int,
    d_s: int,
    d: int,
    d_m: int,
    starts: int,
    maxiter: int,
    rtol: float,
) -> WorstCase:
    """Worst case of ``ratio(model, theta, batch, rtol)`` over every theta on the seed's "active" data
    (N, d_s, d) and labels (:func:`make_setup`, key 0; LeCun, tau0 = d_m^-1/2)."""
    s = make_setup(seed, 0, N=N, d=d, d_s=d_s, d_m=d_m, regime="active")
    return model_search(
        s.model, lambda th, b: ratio(s.model, th, b, rtol), rng, starts, maxiter, batch=s.batch
    )


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


#: Smallest |L' - L|_F of :func:`softmax_lip_ratio`: the softmax difference then carries a relative
#: round-off of about 1e-14, far below the claim's margin 1e-12.
SOFTMAX_STEP = 1e-2


def softmax_lip_ratio(pair: np.ndarray, rtol: float) -> float:
    """|softmax(L) - softmax(L')|_F / (1/2 (1 + rtol) |L - L'|_F) for pair = (L, u) (2, k, k): L' = L + u
    (1 + SOFTMAX_STEP / |u|_F), so |L' - L|_F >= SOFTMAX_STEP keeps the difference of the softmaxes
    clear of round-off (the supremum is approached as L' -> L)."""
    L, u = pair
    step = u * (1 + SOFTMAX_STEP / np.linalg.norm(u))
    num = np.linalg.norm(softmax(L) - softmax(L + step))
    return float(num / (B.SOFTMAX_LIP * (1 + rtol) * np.linalg.norm(step)))


def hermite_gap(Z: np.ndarray, tol: float) -> tuple[float, float]:
    """(eta_V/4 sigma_min(Zbar)^2 / (lambda_min(G) + tol |G|_2), (lambda_min(G) - eta_V/4 sigma_min(Zbar)^2)
    / |G|_2) at eta_V = 1 for the attention-weighted tokens Z (N, d_s, d): the consequence of the Hermite
    floor as a ratio (with the claim's round-off margin ``tol`` relative to |G|_2) and as a relative gap.
    Any tokens and any row-stochastic S give any Z, and eta_V cancels."""
    G = B.expected_gram(Z, 1.0)
    lam, scale = float(np.linalg.eigvalsh(G)[0]), float(np.linalg.norm(G, 2))
    bound = B.alpha_sq_floor(Z.mean(axis=1), 1.0, 1)
    return bound / (lam + tol * scale), (lam - bound) / scale


def ntk_mineig_ratio(Xbar: np.ndarray, tol: float, bound: str) -> float:
    """bound / (lambda_min + tol |K_inf|_2) for a lower bound of ``wu2023.ntk.mineig`` on the token means
    Xbar (N, d): ``bound`` "linear", lambda_min(K_inf) >= sigma_min(Xbar)^2 / 2, or "hermite",
    lambda_min(K_O) >= mu_2^2 min|xbar|^2 lambda_min(U o U)."""
    check_choice("bound", bound, ("linear", "hermite"))
    K = B.limiting_ntk(Xbar)
    slack = tol * float(np.linalg.norm(K["K"], 2))
    if bound == "linear":
        return B.ntk_mineig_linear(Xbar) / (float(np.linalg.eigvalsh(K["K"])[0]) + slack)
    return B.ntk_mineig_hermite(Xbar, 2) / (float(np.linalg.eigvalsh(K["K_O"])[0]) + slack)


@dataclass(frozen=True, kw_only=True)
class Fig9Point(Point):
    """A Fig. 9 run (tau0 = d_m^-1 by default): ``steps`` GD steps at gamma = ``step_factor`` /
    lambda_max(K_0) (at step t divided by 1 + ``step_decay`` t: 0, a constant step, in every claim but
    an alternative world), never stopped early; the NTK is taken at the steps ``checkpoints``."""

    tau0_power: float = 1.0
    steps: int
    step_factor: float
    checkpoints: tuple[int, ...]
    step_decay: float = 0.0


#: Fig. 9 runs of this process, per point (:func:`fig9_runs`).
_FIG9: dict[Fig9Point, dict[str, list[float]]] = {}


def fig9_runs(points: Sequence[Fig9Point]) -> list[dict[str, list[float]]]:
    """Fig. 9 (a)-(c) along each point's GD run (shorter than ``steps`` when it diverged): the loss
    relative to the start l_t / l_0 (t = 0..steps), the relative weight movement per step |theta_{t+1} -
    theta_t| / |theta_0| = gamma |grad l_t| / |theta_0| (t = 0..steps-1), the NTK drift |K_t - K_0|_F /
    |K_0|_F at the checkpoints, and |K_T - K_c|_F / |K_c - K_0|_F with c the first checkpoint after 0 and
    T the last (the change after the early phase against the change during it; empty without two
    checkpoints after 0). The points that differ only in their seed run as one batched GD
    (:func:`run_gd_batched`, in batches of :func:`chunks`); each point's run is kept for the process, so
    the Fig. 9 claims share them (their experiment "fig9"), and it is the same bit for bit whatever batch
    computed it."""
    groups: dict[Fig9Point, list[Fig9Point]] = {}
    for p in dict.fromkeys(points):
        if p not in _FIG9:
            groups.setdefault(replace(p, seed=0), []).append(p)
    for group in groups.values():
        q = group[0]
        for part in chunks(group, q.N * q.d_s * q.d_m):
            _FIG9.update(zip(part, _fig9_batch(part), strict=True))
    return [_FIG9[p] for p in points]


def _fig9_batch(points: Sequence[Fig9Point]) -> list[dict[str, list[float]]]:
    """:func:`fig9_runs` of points of one configuration, as one batched GD."""
    setups = [p.setup() for p in points]
    model, steps, marks = setups[0].model, points[0].steps, set(points[0].checkpoints)
    K0 = [model.ntk(s.theta0, s.batch) for s in setups]
    gammas = [points[0].step_factor / float(np.linalg.eigvalsh(k)[-1]) for k in K0]
    kept: dict[int, list[np.ndarray]] = {}

    def ntk_drift(th: Mapping[str, np.ndarray], step, loss, t: int) -> np.ndarray:
        if t not in marks:
            return np.zeros(len(setups))
        at = [M.Params(**{b: v[i] for b, v in th.items()}) for i in range(len(setups))]
        kept[t] = K0 if t == 0 else [model.ntk(a, s.batch) for a, s in zip(at, setups, strict=True)]
        return np.array(
            [np.linalg.norm(k - k0) / np.linalg.norm(k0) for k, k0 in zip(kept[t], K0, strict=True)]
        )

    def step_length(th, step: Mapping[str, np.ndarray], loss, t: int) -> np.ndarray:
        return np.sqrt(sum(np.add.reduce((g * g).reshape(g.shape[0], -1), axis=1) for g in step.values()))

    record = {"ntk": ntk_drift, "step": step_length}
    runs = run_gd_batched(setups, gammas, steps, norms=False, record=record, decay=points[0].step_decay)
    early = min((c for c in kept if c > 0), default=None)
    end = max(kept, default=None)
    out = []
    for i, (s, tr) in enumerate(zip(setups, runs, strict=True)):
        late = (
            [float(np.linalg.norm(kept[end][i] - kept[early][i]) / np.linalg.norm(kept[early][i] - K0[i]))]
            if early is not None and end > early
            else []
        )
        out.append({
            "loss": tr.loss.tolist(),
            "move": (tr.extras["step"][:-1] / np.linalg.norm(s.theta0.flat())).tolist(),
            "ntk": [float(tr.extras["ntk"][min(c, tr.loss.size - 1)]) for c in points[0].checkpoints],
            "late": late,
        })  # fmt: skip
    return out
