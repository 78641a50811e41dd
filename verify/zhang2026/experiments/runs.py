"""The shared set-ups and GD runs of zhang2026 (what two or more claim modules use): population GD, the
scalar (C1, g) recursion with its sweep point, the scalar-curve and online-SGD workers (module-level, so
``ctx.map`` runs them on any backend bit-identically), the problem set-ups, the step schedule, time grids
and T_0."""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bounds import zhang2026 as B
from bounds.checks import check_array, check_int, check_positive, check_real
from bounds.mp import to_float
from verify.core import Ctx
from verify.numerics.gd import RunState, gradient_descent_batched
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M

LIN = M.Act("linear")
LEAKY = M.Act("leaky", alpha=0.1, dprime0=1.0)
#: The examples of the paper's Sect. 2 as (name, D, K): conv + 2x2 avg-pool on a 4x4 patch grid, cycle
#: GCN (self + 2 neighbours), fixed sparse selection of 2 target tokens, group-sparse. (For uniform-K
#: teachers the population dynamics depend on S* only through (D, K), so the selection task uses its
#: own K: at the cycle's K = 3 its runs would be identical to the GCN's.)
EXAMPLES = (("conv_pool", 16, 4), ("gcn_cycle", 8, 3), ("selection", 8, 2), ("group_sparse", 8, 1))


def step_at(eta: float, k: int, t_decay: float) -> float:
    """The step of GD step k (k = 0, 1, ...): eta (constant, the paper's GD) when ``t_decay`` is 0, else
    the decaying schedule eta / sqrt(1 + k / t_decay) (the alternative world of the tail claims: the
    effective time grows like sqrt(T), so an excess ~ 1/T in effective time decays like T^-1/2)."""
    return eta / math.sqrt(1.0 + k / t_decay) if t_decay else eta


def checked_times(times: Sequence[int], low: int) -> list[int]:
    """The sampling times of a run as ints, each >= ``low`` and strictly increasing."""
    ts = [check_int("time", int(t), low=low) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    return ts


@dataclass
class Run:
    """Population GD from zero init, sampled at ``times`` (t = number of steps taken).

    excess (n_t,), W_V (n_t, M, d), W_KQ (n_t, D, D), A (n_t, D, D); loss: the GD segments'
    per-step losses concatenated (length steps + 1); stopped: why GD ended early, or None.
    """

    times: np.ndarray
    excess: np.ndarray
    W_V: np.ndarray
    W_KQ: np.ndarray
    A: np.ndarray
    loss: np.ndarray
    stopped: str | None


def population_gd_batched(
    V: np.ndarray,
    S: np.ndarray,
    P: np.ndarray,
    eta: float,
    times: Sequence[int],
    act: M.Act | None = None,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> list[Run]:
    """Full-matrix GD on the population loss from W_V = 0, W_KQ = 0 (both blocks step ``eta``), for n
    problems at once (V (n, M, d), S and P (n, D, D)): one :class:`Run` per problem, each bit-identical to
    its batch of one and stopping on its own.

    times: increasing step counts >= 0 at which to store the parameters. For a nonlinear ``act`` the
    step from W_V = 0 uses :func:`~verify.zhang2026.model.zero_init_grad_dual_batched` (sigma'(0)
    convention), later steps the closed form.
    """
    act = act or M.Act("linear")
    eta = check_positive("eta", eta)
    V = check_array("V", V, ndim=3)
    S = check_array("S", S, ndim=3)
    runs, n = S.shape[0], check_int("D", S.shape[1])
    if S.shape != (runs, n, n) or P.shape != (runs, n, n) or V.shape[0] != runs:
        raise ValueError(f"S and P must be (n, D, D) and V (n, M, d) with n = {runs}, D = {n}, got "
                         f"{S.shape}, {P.shape}, {V.shape}")  # fmt: skip
    ts = checked_times(times, low=0)
    model = M.PositionAttention(act)
    theta = {"W_V": np.zeros_like(V), "W_KQ": np.zeros((runs, n, n))}
    t_now = 0
    losses: list[list[float]] = [[] for _ in range(runs)]
    stopped: list[str | None] = [None] * runs
    out_wv, out_kq, out_ex = [], [], []
    for t in ts:
        ex = np.full(runs, np.nan)
        live = [r for r in range(runs) if stopped[r] is None]
        if live:
            pop = D.Population(V[live], S[live], P[live], sx2, mu)
            trs = gradient_descent_batched(
                {k: v[live] for k, v in theta.items()},
                lambda th, pop=pop: model.loss_and_grad_batched(th, pop),
                eta,
                t - t_now,
                norms=False,
            )
            for r, tr in zip(live, trs, strict=True):
                for k in theta:
                    theta[k][r] = tr.params[k]
                if tr.state is not RunState.COMPLETED:
                    stopped[r] = f"{tr.stopped} (segment starting at t = {t_now})"
                    losses[r].extend(tr.loss.tolist())
                else:
                    losses[r].extend(tr.loss[:-1].tolist())
                    ex[r] = tr.loss[-1]
            t_now = t
        out_wv.append(theta["W_V"].copy())
        out_kq.append(theta["W_KQ"].copy())
        out_ex.append(ex)
    out = []
    for r in range(runs):
        exr = np.array([e[r] for e in out_ex])
        if stopped[r] is None and ts:
            losses[r].append(float(exr[-1]))
        W_KQ = np.array([w[r] for w in out_kq])
        A = M.attention(W_KQ, P[r])
        Wv = np.array([w[r] for w in out_wv])
        out.append(Run(np.array(ts), exr, Wv, W_KQ, A, np.array(losses[r]), stopped[r]))
    return out


@dataclass
class ScalarRun:
    """The (C1, g) recursion sampled at ``times``: C1 value scale, g = logit gap (on minus off support),
    eps = off-support attention mass per column, excess = the population excess loss."""

    times: np.ndarray
    C1: np.ndarray
    g: np.ndarray
    eps: np.ndarray
    excess: np.ndarray


def scalar_run(
    D: int,
    K: int,
    eta: float,
    times: Sequence[int],
    sx2: float = 1.0,
    v2: float = 1.0,
    act: M.Act | None = None,
    t_decay: float = 0.0,
    logit_gain: float = 1.0,
    start: tuple[int, float, float] = (0, 0.0, 0.0),
) -> ScalarRun:
    """Uniform-K S*, Gaussian inputs: iterate (C1, g) from zero init, sampling at ``times``.

    With u = a_on, v = a_off, q = K u, eps = (D-K) v: G_on - m = eps (G_on - G_off) and
    G_off - m = -q (G_on - G_off), so a_on (G_on - m) - a_off (G_off - m) = D u v (G_on - G_off) and
    ``g <- g - eta u v (G_on - G_off)``. Linear: G_on - G_off = sx2 v2 (C1^2 (u - v) - C1/K) and
    ``C1 <- C1 + eta sx2 D (u - |a|^2 C1)``. Leaky ReLU / ReLU (dual kernel, all rows share the multiple
    because sigma is positively homogeneous): C1 <- C1 - eta D sx2 df/dC1 with
    f = gamma/2 (C1^2 |a|^2 + 1/K) - beta1 C1 u - beta2 (2/pi) C1 J, and
    G_on - G_off = sx2 v2 (2 C1^2 L_a (u - v) + C1 L_c / K); the first step uses sigma'(0) := act.dprime0,
    giving C1(1) = eta sigma'(0) (1 + slope)/2 sx2. v2 = ||V*||_F^2. Pure-Python floats (~0.3-0.8 us/step).
    t_decay: the step schedule of :func:`step_at` (0: constant). logit_gain: lam^2 for positional
    encodings with P^T P = lam I (the logit step is eta lam^2 / D, derivation Sect. 4.2; 1: P^T P = I).
    start: (t_0, C1, g), a run to continue from step t_0 (its last sample), bit-identical to running on
    (the default: zero init at t_0 = 0); every time must be >= t_0.
    """
    D, K = check_int("D", D, low=2), check_int("K", K, low=1)
    if K >= D:
        raise ValueError(f"K must lie in [1, D-1] for the gap recursion, got K={K}, D={D}")
    eta, sx2, v2 = check_positive("eta", eta), check_positive("sx2", sx2), check_positive("v2", v2)
    act = act or M.Act("linear")
    t_now, C1, g = check_int("start time", start[0], low=0), float(start[1]), float(start[2])
    if t_now == 0 and (C1, g) != (0.0, 0.0):
        raise ValueError(f"a run starting at t = 0 starts at the zero init, got C1 = {C1}, g = {g}")
    ts = checked_times(times, low=t_now)
    gam, b1, b2 = M.kernel_coefs(act)
    b2p = b2 * 2 / math.pi
    t_decay, gain = check_real("t_decay", t_decay, low=0.0), check_positive("logit_gain", logit_gain)
    DmK, c, es, el, invK = float(D - K), sx2 * v2, eta * sx2, eta * gain, 1.0 / K
    exp, sqrt, asin = math.exp, math.sqrt, math.asin
    out = []
    for t in ts:
        n = t - t_now
        if act.name == "linear":
            for k in range(t_now, t):
                if t_decay:
                    et = step_at(eta, k, t_decay)
                    es, el = et * sx2, et * gain
                e = exp(g)
                den = K * e + DmK
                u = e / den
                v = 1.0 / den
                gd = c * (C1 * C1 * (u - v) - C1 * invK)
                C1 = C1 + es * D * (u - (K * u * u + DmK * v * v) * C1)
                g = g - el * u * v * gd
        else:
            k0 = t_now
            if t_now == 0 and n > 0:
                C1, k0 = eta * act.dprime0 * (1 + act.slope) / 2 * sx2, 1
            for k in range(k0, t):
                if t_decay:
                    et = step_at(eta, k, t_decay)
                    es, el = et * sx2, et * gain
                e = exp(g)
                den = K * e + DmK
                u = e / den
                v = 1.0 / den
                na2 = K * u * u + DmK * v * v
                r = sqrt(max(na2 * invK - u * u, 0.0))
                asr = asin(min(u * sqrt(K / na2), 1.0))
                L_a = 0.5 * gam - b2p * r / (2.0 * C1 * na2)
                L_c = -b1 - b2p * asr
                gd = c * (2.0 * C1 * C1 * L_a * (u - v) + C1 * L_c * invK)
                C1 = C1 - es * D * (gam * C1 * na2 - b1 * u - b2p * (r + u * asr))
                g = g - el * u * v * gd
        t_now = t
        u, v = M.scalar_state(g, D, K)
        out.append((C1, g, (D - K) * v, M.scalar_excess(C1, g, D, K, sx2, v2, act)))
    arr = np.array(out, dtype=np.float64).reshape(-1, 4)
    return ScalarRun(np.array(ts, dtype=np.float64), arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3])


@dataclass(frozen=True)
class CurvePoint:
    """One scalar-reduction run of a sweep: sizes D, K, step eta, input variance sx2, v2 = ||V*||_F^2,
    activation ``act`` ("linear" or "leaky"), sampling times; t_decay and logit_gain as in
    :func:`scalar_run` (defaults: the paper's constant step, P^T P = I)."""

    D: int
    K: int
    eta: float
    sx2: float
    v2: float
    act: str
    times: tuple[int, ...]
    t_decay: float = 0.0
    logit_gain: float = 1.0


def scalar_curve(p: CurvePoint) -> dict[str, list]:
    """ctx.map worker: the (C1, g) recursion at ``p``, as plain lists (t, excess, C1, g, eps), new lists
    on every call; each point's recursion runs once per process (:func:`_scalar_curve`), so the claims
    and choice points that ask for the same point share it."""
    return {k: list(v) for k, v in _scalar_curve(p).items()}


@functools.cache
def _scalar_curve(p: CurvePoint) -> dict[str, list]:
    """The body of :func:`scalar_curve`, cached per point (callers get copies)."""
    act = LIN if p.act == "linear" else LEAKY
    r = scalar_run(p.D, p.K, p.eta, list(p.times), p.sx2, p.v2, act, p.t_decay, p.logit_gain)
    return {
        "t": r.times.tolist(),
        "excess": r.excess.tolist(),
        "C1": r.C1.tolist(),
        "g": r.g.tolist(),
        "eps": r.eps.tolist(),
    }


def log_times(t_lo: int, t_max: int, per_decade: int = 10) -> np.ndarray:
    """About ``per_decade`` log-spaced integer times per decade over [t_lo, t_max] (at least 3)."""
    n = max(3, int(per_decade * math.log10(t_max / t_lo)) + 1)
    return np.unique(np.round(np.logspace(math.log10(t_lo), math.log10(t_max), n)).astype(int))


def log_grid(steps: int, per_decade: int = 4) -> np.ndarray:
    """Log-spaced integer times 1 .. steps, ``per_decade`` per decade (never past ``steps``)."""
    k = np.arange(0, round(per_decade * math.log10(steps)) + 1)
    return np.unique(np.minimum(np.round(10.0 ** (k / per_decade)).astype(int), steps))


def onset(D: int, K: int, eta: float, sx2: float, v2: float) -> float:
    """T_0 = bounds.zhang2026.onset_T0 as a float (the time scale the horizons are given in)."""
    return to_float(B.onset_T0(D, K, eta, sx2, v2))


def attn_error(g: np.ndarray, D: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """(||A - S*||_F, max |A - S*|) of the two-level attention with gap g (uniform-K S*)."""
    e = np.exp(g)
    den = K * e + (D - K)
    u, v = e / den, 1.0 / den
    fro = np.sqrt(D * (K * (u - 1.0 / K) ** 2 + (D - K) * v**2))
    return fro, np.maximum(1.0 / K - u, v)


@dataclass(frozen=True)
class Size:
    """Sizes of a claim's problem: D tokens, support size K, M outputs, d features."""

    D: int
    K: int
    M: int
    d: int


def circulant_problem(rng: np.random.Generator, sz: Size, vnorm: float) -> tuple[np.ndarray, ...]:
    """(S*, V*, P): the circulant uniform-K teacher, V* with ||V*||_F = vnorm, a random orthogonal P
    (drawn in this order from ``rng``)."""
    return D.s_circulant(sz.D, sz.K), D.random_v(sz.M, sz.d, rng, vnorm), M.random_orthogonal(sz.D, rng)


def seeds_of(ctx: Ctx) -> list[Ctx]:
    """ctx at each seed of its seed set (a batched claim's seeds, in order)."""
    return [ctx.for_seed(s) for s in ctx.seed_set]


def stacked(rows: Sequence[Sequence[np.ndarray]]) -> list[np.ndarray]:
    """The runs' arrays stacked on a leading run axis: rows of (V, S, P, ...) -> [V (n, ...), S, P, ...]."""
    return [np.stack(col) for col in zip(*rows, strict=True)]


@dataclass(frozen=True)
class SgdPoint:
    """One online-SGD run: ``seed`` (problem from stream (seed, 1), batches from (seed, 2)); input law
    ``kind``; circulant uniform-K teacher of sizes (D, K, M, d) with ||V*||_F = vnorm; step eta; fresh
    batches of ``batch`` inputs per step; Gaussian label noise of s.d. tau; sampling ``times``; t_decay:
    the step schedule of :func:`step_at` (0: constant)."""

    seed: int
    kind: str
    D: int
    K: int
    M: int
    d: int
    eta: float
    vnorm: float
    batch: int
    tau: float
    times: tuple[int, ...]
    t_decay: float = 0.0


def sgd_curve(p: SgdPoint) -> dict[str, list[float]]:
    """Online mini-batch SGD of the position-only student (linear sigma) from zero init; at each sampling
    time the exact population excess of the iterate (the closed form needs only the input law's mean
    and variance), the Lemma C.2 residual ||W_V - c V*|| / ||W_V||, ||W_V - V*||_F / ||V*||_F and
    max |A - S*|."""
    rng = np.random.default_rng([p.seed, 1])
    S, V, P = circulant_problem(rng, Size(p.D, p.K, p.M, p.d), p.vnorm)
    srng = np.random.default_rng([p.seed, 2])
    mu, var = D.input_moments(p.kind)
    W, KQ, t_now = np.zeros((p.M, p.d)), np.zeros((p.D, p.D)), 0
    out: dict[str, list[float]] = {"excess": [], "resid": [], "value_err": [], "max_entry": []}
    for t in checked_times(p.times, low=1):
        for k in range(t_now, t):
            X = D.sample_inputs(p.kind, p.batch, p.d, p.D, srng)
            Y = np.matmul(V, X) @ S
            if p.tau:
                Y = Y + p.tau * srng.standard_normal(Y.shape)
            g = M.mc_loss_grad(W, KQ, P, X, Y, LIN)[1]
            et = step_at(p.eta, k, p.t_decay)
            W, KQ = W - et * g["W_V"], KQ - et * g["W_KQ"]
        t_now = t
        out["excess"].append(M.linear_loss_grad(W, KQ, P, V, S, var, mu)[0])
        c = float(np.sum(W * V) / np.sum(V * V))
        out["resid"].append(float(np.linalg.norm(W - c * V) / np.linalg.norm(W)))
        out["value_err"].append(float(np.linalg.norm(W - V) / np.linalg.norm(V)))
        out["max_entry"].append(float(np.abs(M.attention(KQ, P) - S).max()))
    return out
