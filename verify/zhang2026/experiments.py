"""GD runs, exact reductions, sweep points and workers, and the computations behind the claims.

* :func:`population_gd` -- full-matrix GD on the population loss from zero init (the reference run).
* :func:`scalar_run` -- the 2-scalar (C1, g) recursion for uniform-K teachers (linear, leaky ReLU,
  ReLU); :func:`scalar_run_mean` -- its (alpha, beta, g) extension to non-centred inputs;
  :func:`circulant_run` -- the one-column recursion for circulant teachers with unequal weights. Each
  is checked against :func:`population_gd` inside the claims and in the property tests.
* :class:`CurvePoint` / :func:`scalar_curve` -- the typed sweep point and the module-level (picklable)
  worker that every ``ctx.map`` of the paper uses.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from bounds import zhang2026 as B
from bounds.checks import check_array, check_int, check_positive, check_real
from bounds.mp import to_float
from verify.core import Ctx
from verify.numerics.gd import RunState, gradient_descent, gradient_descent_batched
from verify.numerics.gradcheck import GradReport, check_grad
from verify.numerics.softmax import softmax, softmax_vjp
from verify.numerics.worstcase import WorstCase, worst_case
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


def population_gd(
    V: np.ndarray,
    S: np.ndarray,
    P: np.ndarray,
    eta: float,
    times: Sequence[int],
    act: M.Act | None = None,
    sx2: float = 1.0,
    mu: float = 0.0,
) -> Run:
    """:func:`population_gd_batched` on one problem: V (M, d), S and P (D, D)."""
    return population_gd_batched(V[None], S[None], P[None], eta, times, act, sx2, mu)[0]


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
    ts = [check_int("time", int(t), low=0) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
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
    ts = [check_int("time", int(t), low=t_now) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
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


def scalar_run_mean(
    V: np.ndarray, D: int, K: int, eta: float, times: Sequence[int], sx2: float = 1.0, mu: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Linear sigma, uniform-K S*, iid entries of mean ``mu`` and variance ``sx2`` (raw Gumbel, Exp(1)):
    W_V = alpha V* + beta V* 1 1^T stays in this 2-dimensional span (the mean term of
    :func:`~verify.zhang2026.model.linear_loss_grad` is -mu^2 D (V* - W_V) 1 1^T) and the attention
    keeps two levels with gap g:

        alpha <- alpha - eta sx2 D (|a|^2 alpha - u),
        beta  <- beta - eta (sx2 D |a|^2 beta - mu^2 D (1 - alpha - beta d)),
        g     <- g - eta u v sx2 (|W_V|^2 (u - v) - <V*, W_V> / K).

    Returns (excess, alpha, beta, g) at ``times``; the Lemma C.2 residual is
    |beta| ||V* 1 1^T|| / ||W_V||."""
    V = check_array("V", V, ndim=2)
    D, K = check_int("D", D, low=2), check_int("K", K, low=1)
    if K >= D:
        raise ValueError(f"K must lie in [1, D-1], got K={K}, D={D}")
    eta, sx2, mu = check_positive("eta", eta), check_positive("sx2", sx2), check_real("mu", mu)
    ts = [check_int("time", int(t), low=0) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    d = V.shape[1]
    vv, w1 = float(np.vdot(V, V)), float(np.sum(V.sum(axis=1) ** 2))
    DmK, invK, m2D, exp = float(D - K), 1.0 / K, mu * mu * D, math.exp
    al = be = g = 0.0
    t_now, out = 0, []
    for t in ts:
        for _ in range(t - t_now):
            e = exp(g)
            den = K * e + DmK
            u = e / den
            v = 1.0 / den
            na2 = K * u * u + DmK * v * v
            ww = al * al * vv + 2.0 * al * be * w1 + be * be * d * w1
            vw = al * vv + be * w1
            gd = sx2 * (ww * (u - v) - vw * invK)
            al, be = (
                al - eta * sx2 * D * (na2 * al - u),
                be - eta * (sx2 * D * na2 * be - m2D * (1.0 - al - be * d)),
            )
            g = g - eta * u * v * gd
        t_now = t
        u, v = M.scalar_state(g, D, K)
        na2 = K * u * u + DmK * v * v
        ww = al * al * vv + 2.0 * al * be * w1 + be * be * d * w1
        vw = al * vv + be * w1
        ex = 0.5 * sx2 * D * (vv * invK - 2.0 * vw * u + ww * na2)
        ex += 0.5 * m2D * (1.0 - al - be * d) ** 2 * w1
        out.append((ex, al, be, g))
    arr = np.array(out, dtype=np.float64).reshape(-1, 4)
    return arr[:, 0], arr[:, 1], arr[:, 2], arr[:, 3]


def circulant_run(
    s_col: np.ndarray,
    V: np.ndarray,
    eta: float,
    times: Sequence[int],
    sx2: float = 1.0,
    mu: float = 0.0,
    t_decay: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`circulant_run_batched` for one V* (M, d): (excess (n_t,), W_V (n_t, M, d), a (n_t, D))."""
    ex, w, a = circulant_run_batched(s_col, V[None], eta, times, sx2, mu, t_decay)
    return ex[0], w[0], a[0]


def circulant_run_batched(
    s_col: np.ndarray,
    V: np.ndarray,
    eta: float,
    times: Sequence[int],
    sx2: float = 1.0,
    mu: float = 0.0,
    t_decay: float = 0.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Linear sigma, circulant column-stochastic S* (column i = column 0 shifted by i), iid entries of mean
    ``mu`` and variance ``sx2``: every column of A stays the shift of one column a = softmax(lam). Iterates
    (W_V (M, d), lam (D,)) from zero init with the gradients of
    :func:`~verify.zhang2026.model.linear_loss_grad` restricted to this symmetric set:
    grad W_V = sx2 D (|a|^2 W_V - <s, a> V*) - mu^2 D (V* - W_V) 1 1^T,
    lam <- lam - (eta/D) a * (G - <a, G>), G = sx2 (|W_V|^2 a - <V*, W_V> s) (the mean term's
    attention gradient is constant in each column and cancels in the softmax), for n teachers V* (n, M, d)
    at once (each run's values from its own slices only). t_decay: the step schedule of :func:`step_at`
    (0: constant). Returns (excess (n, n_t), W_V (n, n_t, M, d), a (n, n_t, D)) at ``times``."""
    s = check_array("s_col", s_col, ndim=1)
    V = check_array("V", V, ndim=3)
    if not abs(s.sum() - 1.0) < 1e-12:
        raise ValueError(f"s_col must sum to 1 (column-stochastic S*), got {s.sum()}")
    D_ = s.size
    eta, sx2 = check_positive("eta", eta), check_positive("sx2", sx2)
    mu = check_real("mu", mu)
    ts = [check_int("time", int(t), low=0) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    runs = V.shape[0]
    W, lam, t_now = np.zeros_like(V), np.zeros((runs, D_)), 0
    sb = np.broadcast_to(s, lam.shape)
    vv, ss = M.inner(V, V), float(s @ s)

    def column(lam: np.ndarray) -> np.ndarray:
        z = np.exp(lam - lam.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    out_e, out_w, out_a = [], [], []
    for t in ts:
        for k in range(t_now, t):
            et = step_at(eta, k, t_decay)
            es, el, em = et * sx2 * D_, et * sx2 / D_, et * mu * mu * D_
            a = column(lam)
            G = M.inner(W, W)[:, None] * a - M.inner(V, W)[:, None] * s
            gl = a * (G - M.inner(a, G)[:, None])
            step = es * (M.inner(a, a)[:, None, None] * W - M.inner(sb, a)[:, None, None] * V)
            if mu:
                step = step - em * (V - W).sum(axis=2, keepdims=True)
            W = W - step
            lam = lam - el * gl
        t_now = t
        a = column(lam)
        vw, ww = M.inner(V, W), M.inner(W, W)
        r = (V - W).sum(axis=2)  # (n, M): the mean residual per output / mu
        ex = 0.5 * sx2 * D_ * (vv * ss - 2 * vw * M.inner(sb, a) + ww * M.inner(a, a))
        ex = ex + 0.5 * mu * mu * D_ * M.inner(r, r)
        out_e.append(ex)
        out_w.append(W.copy())
        out_a.append(a)
    return np.stack(out_e, axis=1), np.stack(out_w, axis=1), np.stack(out_a, axis=1)


def log_times(t_lo: int, t_max: int, per_decade: int = 10) -> np.ndarray:
    """About ``per_decade`` log-spaced integer times per decade over [t_lo, t_max] (at least 3)."""
    n = max(3, int(per_decade * math.log10(t_max / t_lo)) + 1)
    return np.unique(np.round(np.logspace(math.log10(t_lo), math.log10(t_max), n)).astype(int))


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


def t_on(t: np.ndarray, y: np.ndarray, thresh: float, per_octave: int = 8) -> float:
    """First T after which the local slope over a factor-2 window stays <= thresh (t on a
    2^(1/per_octave) grid)."""
    ls = np.log(y[per_octave:] / y[:-per_octave]) / math.log(2.0)  # slope over [t_k, 2 t_k]
    bad = np.nonzero(ls > thresh)[0]
    k = 0 if bad.size == 0 else int(bad[-1]) + 1
    if k >= ls.size:
        return float("nan")
    return float(t[k])


def chunks(n: int, size: int = 50_000) -> list[int]:
    """Sizes of the Monte Carlo chunks that make up n samples."""
    return [min(size, n - i) for i in range(0, n, size)]


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
    """ctx.map worker: the (C1, g) recursion at ``p``, as plain lists (t, excess, C1, g, eps)."""
    act = LIN if p.act == "linear" else LEAKY
    r = scalar_run(p.D, p.K, p.eta, list(p.times), p.sx2, p.v2, act, p.t_decay, p.logit_gain)
    return {
        "t": r.times.tolist(),
        "excess": r.excess.tolist(),
        "C1": r.C1.tolist(),
        "g": r.g.tolist(),
        "eps": r.eps.tolist(),
    }


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


def closedform_checks(
    ctx: Ctx, sz: Size, N: int, rtol: float, eps: float, atol_rel: float
) -> tuple[list[tuple[str, float]], list[tuple[str, GradReport]]]:
    """Monte Carlo against closed form, and hand gradients against central differences, at one random
    point of a circulant problem. Returns ([(label, |MC - CF| / SE)], [(name, gradcheck report)]).

    Linear sigma with Gaussian, t(5), centred and raw Gumbel, Exp(1) entries (the last two through the
    mean term); leaky ReLU and ReLU (dual kernel) with Gaussian entries. The gradcheck's absolute floor
    is ``atol_rel * max(1, |loss|)``: central differences of a loss of size |f| carry round-off
    ~1e-16 |f| / eps."""
    rng = ctx.rng(1)
    S, V, P = circulant_problem(rng, sz, 2.0)
    W_V, W_KQ = 0.5 * rng.standard_normal((sz.M, sz.d)), rng.standard_normal((sz.D, sz.D))
    A = M.attention(W_KQ, P)
    cases = [
        ("gaussian", LIN),
        ("t5", LIN),
        ("gumbel", LIN),
        ("gumbel_raw", LIN),
        ("exp", LIN),
        ("gaussian", LEAKY),
        ("gaussian", M.Act("relu")),
    ]
    mc_z = []
    for k, (kind, act) in enumerate(cases):
        mu, var = D.input_moments(kind)
        if act.name == "linear":
            cf = M.linear_loss_grad(W_V, W_KQ, P, V, S, var, mu)[0]
        else:
            cf = M.dual_loss(W_V, A, V, S, act.slope, var)
        per = []
        for j, n in enumerate(chunks(N)):
            X = D.sample_inputs(kind, n, sz.d, sz.D, ctx.rng(2, k, j))
            Y, H = act(np.matmul(V, X) @ S), act(np.matmul(W_V, X) @ A)
            per.append(0.5 * np.sum((Y - H) ** 2, axis=(1, 2)))
        per_all = np.concatenate(per)
        mc, se = float(per_all.mean()), float(per_all.std(ddof=1) / math.sqrt(N))
        mc_z.append((f"{kind}/{act.name}: |MC - CF| / SE (MC {mc:.5g}, CF {cf:.5g})", abs(mc - cf) / se))
    th = {"W_V": W_V, "W_KQ": W_KQ}
    reports = []
    for name, fn in [
        ("linear", lambda t: M.linear_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 1.3, 0.0)),
        ("linear, mean 0.6", lambda t: M.linear_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 1.3, 0.6)),
        ("leaky", lambda t: M.dual_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 0.1, 1.3)),
        ("relu", lambda t: M.dual_loss_grad(t["W_V"], t["W_KQ"], P, V, S, 0.0, 1.3)),
    ]:
        rep = check_grad(
            lambda t, fn=fn: fn(t)[0],
            th,
            fn(th)[1],
            rtol=rtol,
            eps=eps,
            atol=atol_rel * max(1.0, abs(fn(th)[0])),
        )
        reports.append((name, rep))
    return mc_z, reports


def p_invariance(ctx: Ctx, sz: Size, eta: float, steps: int) -> list[tuple[float, list[str]]]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): max difference of (A, W_V) over 10
    checkpoints between P = I and two random orthogonal P, linear and leaky ReLU (cycle GCN teacher at
    K = 3, circulant otherwise). Returns [(worst, notes)] per seed."""
    S = D.s_gcn_cycle(sz.D, 3) if sz.K == 3 else D.s_circulant(sz.D, sz.K)
    probs = []
    for c in seeds_of(ctx):
        V = D.random_v(sz.M, sz.d, c.rng(1), 2.0)
        Ps = [np.eye(sz.D), M.random_orthogonal(sz.D, c.rng(2)), M.random_orthogonal(sz.D, c.rng(3))]
        probs += [(V, S, P) for P in Ps]
    times = log_times(1, steps, 3)
    out: list[tuple[float, list[str]]] = [(0.0, []) for _ in ctx.seed_set]
    for act in (LIN, LEAKY):
        runs = population_gd_batched(*stacked(probs), eta, times, act=act)
        for i, (worst, notes) in enumerate(out):
            r0, *rest = runs[3 * i : 3 * i + 3]
            dev = max(max(float(np.abs(r.A - r0.A).max()), float(np.abs(r.W_V - r0.W_V).max())) for r in rest)
            notes.append(f"{act.name}: max |dA|, |dW_V| over {len(times)} checkpoints = {dev:.2e}")
            out[i] = (max(worst, dev), notes)
    return out


def scalar_reduction_deviation(
    ctx: Ctx, sz: Size, eta: float, sx2: float, steps: int
) -> list[tuple[float, list[str], int]]:
    """Per seed of ``ctx.seed_set`` (the full-matrix runs of all seeds in one batch): max of |C1 - C1~|,
    |g - g~|, |excess - excess~| / excess(0) between full-matrix GD and the scalar recursion over
    log-spaced checkpoints, linear and leaky ReLU. Returns [(worst, notes, last step)] per seed."""
    probs = [circulant_problem(c.rng(1), sz, 2.0) for c in seeds_of(ctx)]
    times = log_times(1, steps, 4)
    out: list[tuple[float, list[str], int]] = [(0.0, [], int(times[-1])) for _ in probs]
    Sb, Vb, Pb = stacked(probs)
    for act in (LIN, LEAKY):
        fulls = population_gd_batched(Vb, Sb, Pb, eta, times, act=act, sx2=sx2)
        for i, ((S, V, P), full) in enumerate(zip(probs, fulls, strict=True)):
            v2 = float(np.sum(V * V))
            sc = scalar_run(sz.D, sz.K, eta, times, sx2, v2, act)
            C1 = np.einsum("tmd,md->t", full.W_V, V) / v2
            g = np.array([M.scalar_from_matrix(w, P, S)[2] for w in full.W_KQ])
            e0 = M.scalar_excess(0.0, 0.0, sz.D, sz.K, sx2, v2, act)
            dev = max(
                float(np.abs(C1 - sc.C1).max()),
                float(np.abs(g - sc.g).max()),
                float(np.abs(full.excess - sc.excess).max() / e0),
            )
            worst, notes, last = out[i]
            notes.append(
                f"{act.name}: max deviation {dev:.2e} over {steps} steps (final excess {full.excess[-1]:.4g})"
            )
            out[i] = (max(worst, dev), notes, last)
    return out


@dataclass(frozen=True)
class Alignment:
    """Lemma C.2 measurements: linear residual, spread and first multiple; leaky closed-form min row
    cosine; min row multiple (both); leaky Monte Carlo min row cosine; the checkpoints."""

    resid: float
    spread: float
    c1_first: float
    cos_leaky: float
    min_mult: float
    cos_mc: float
    times: np.ndarray


def alignment(
    ctx: Ctx, sz: Size, eta: float, steps: int, N_mc: int, steps_mc: int, mu: float = 0.0
) -> list[Alignment]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): rows of W_V against the rows of V*
    (unequal row norms) along population GD (linear, leaky ReLU) and after ``steps_mc`` GD steps on a
    fixed sample of N_mc Gaussian inputs (leaky ReLU). mu: the mean of the input entries of the linear
    population run (the leaky closed form needs centred Gaussian inputs and runs at mean 0; the Monte
    Carlo sample is shifted by mu)."""
    rngs = [c.rng(1) for c in seeds_of(ctx)]
    probs = []
    for rng in rngs:
        S, P = D.s_circulant(sz.D, sz.K), M.random_orthogonal(sz.D, rng)
        V = rng.standard_normal((sz.M, sz.d)) * np.array([0.5, 1.0, 2.0])[: sz.M, None]  # unequal row norms
        probs.append((V, S, P))
    Vb, Sb, Pb = stacked(probs)
    times = log_times(1, steps, 4)
    out: list[dict] = [{"min_mult": np.inf} for _ in probs]
    for act in (LIN, LEAKY):
        runs = population_gd_batched(Vb, Sb, Pb, eta, times, act=act, mu=mu if act.name == "linear" else 0.0)
        for o, (V, _, _), run in zip(out, probs, runs, strict=True):
            mult = np.einsum("tmd,md->tm", run.W_V, V) / np.sum(V * V, axis=1)  # per-row multiples
            resid = np.linalg.norm(run.W_V - mult[:, :, None] * V, axis=(1, 2)) / np.linalg.norm(
                run.W_V, axis=(1, 2)
            )
            cos = np.einsum("tmd,md->tm", run.W_V, V) / (
                np.linalg.norm(run.W_V, axis=2) * np.linalg.norm(V, axis=1)
            )
            o["min_mult"] = min(o["min_mult"], float(mult.min()))
            if act.name == "linear":
                o.update(
                    resid=float(resid.max()), spread=float(np.ptp(mult, axis=1).max()), c1=float(mult[0, 0])
                )
            else:
                o["cos"] = float(cos.min())
    X = np.stack([rng.standard_normal((N_mc, sz.d, sz.D)) + mu for rng in rngs])
    batch = D.Sample(X, LEAKY(np.matmul(Vb[:, None], X) @ Sb[:, None]), Pb)
    model = M.PositionAttention(LEAKY)
    trs = gradient_descent_batched(
        {"W_V": np.zeros_like(Vb), "W_KQ": np.zeros_like(Pb)},
        lambda th: model.loss_and_grad_batched(th, batch),
        eta,
        steps_mc,
        norms=False,
    )
    res = []
    for o, (V, _, _), tr in zip(out, probs, trs, strict=True):
        W = tr.params["W_V"]
        cos_mc = float(
            (np.sum(W * V, axis=1) / (np.linalg.norm(W, axis=1) * np.linalg.norm(V, axis=1))).min()
        )
        res.append(Alignment(o["resid"], o["spread"], o["c1"], o["cos"], o["min_mult"], cos_mc, times))
    return res


@dataclass(frozen=True)
class KQStructure:
    """W_KQ along population GD: W_KQ^(1) == 0; max relative spread of the on- and off-support entries
    of P^T W_KQ P; max |(C2/C3) / kq_level_ratio - 1|; (C1, C2, C3) at the last step."""

    first_zero: bool
    spread_on: float
    spread_off: float
    ratio_dev: float
    last: tuple[float, float, float]


def kq_structure(
    ctx: Ctx, sz: Size, eta: float, steps: int, weights: tuple[float, ...] | None = None
) -> list[KQStructure]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): the two-level structure of W_KQ over
    log-spaced checkpoints t >= 2 (linear sigma). weights: None for a uniform-K teacher, else a circulant
    teacher with these K weights on its support."""
    if weights is not None:
        S = D.s_weighted(sz.D, np.array(weights, dtype=np.float64))
    else:
        S = D.s_gcn_cycle(sz.D, sz.K) if sz.K % 2 else D.s_circulant(sz.D, sz.K)
    probs = []
    for c in seeds_of(ctx):
        rng = c.rng(1)
        V, P = D.random_v(sz.M, sz.d, rng, 2.0), M.random_orthogonal(sz.D, rng)
        probs.append((V, S, P))
    times = log_times(1, steps, 4)
    on = S > 0
    ratio_th = to_float(B.kq_level_ratio(sz.D, sz.K))
    out = []
    for (V, _, P), run in zip(probs, population_gd_batched(*stacked(probs), eta, times), strict=True):
        first_zero = bool(np.all(run.W_KQ[0] == 0.0)) and times[0] == 1
        sp_on, sp_off, rat = 0.0, 0.0, 0.0
        for w in run.W_KQ[1:]:
            L = P.T @ w @ P
            sp_on = max(sp_on, float(np.ptp(L[on]) / abs(L[on].mean())))
            sp_off = max(sp_off, float(np.ptp(L[~on]) / abs(L[~on].mean())))
            C2, C3, _ = M.scalar_from_matrix(w, P, S)
            rat = max(rat, abs((C2 / C3) / ratio_th - 1.0))
        C2, C3, _ = M.scalar_from_matrix(run.W_KQ[-1], P, S)
        C1 = float(np.sum(run.W_V[-1] * V) / np.sum(V * V))
        out.append(KQStructure(first_zero, sp_on, sp_off, rat, (C1, C2, C3)))
    return out


def deqk_run(
    ctx: Ctx, sz: Size, eta: float, sx2: float, steps: int
) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): D = K (S* = 1 1^T / D), linear sigma:
    the excess at t = 0..steps in the cancellation-free Kronecker form, bounds.zhang2026.deqk_excess at the
    same t, and max |W_KQ^(t)|."""
    S = np.full((sz.D, sz.D), 1.0 / sz.D)
    probs = []
    for c in seeds_of(ctx):
        rng = c.rng(1)
        probs.append((D.random_v(sz.M, sz.d, rng, 1.5), S, M.random_orthogonal(sz.D, rng)))
    times = np.arange(0, steps + 1)
    out = []
    for (V, _, _), run in zip(
        probs, population_gd_batched(*stacked(probs), eta, times, sx2=sx2), strict=True
    ):
        v2 = float(np.sum(V * V))
        ex = np.array(
            [M.linear_excess_residual(w, a, V, S, sx2) for w, a in zip(run.W_V, run.A, strict=True)]
        )
        th = np.array([to_float(B.deqk_excess(int(t), eta, sx2, v2)) for t in times])
        out.append((ex, th, float(np.abs(run.W_KQ).max())))
    return out


def k0_drift(ctx: Ctx, sz: Size, eta: float, steps: int) -> list[float]:
    """Per seed of ``ctx.seed_set`` (all seeds' runs in one batch): K = 0 (S* = 0), linear sigma: max over
    all steps of |W_V|, |W_KQ| and the excess."""
    S = np.zeros((sz.D, sz.D))
    probs = []
    for c in seeds_of(ctx):
        rng = c.rng(1)
        probs.append((D.random_v(sz.M, sz.d, rng, 2.0), S, M.random_orthogonal(sz.D, rng)))
    runs = population_gd_batched(*stacked(probs), eta, np.arange(steps + 1))
    return [
        max(float(np.abs(r.W_V).max()), float(np.abs(r.W_KQ).max()), float(np.abs(r.excess).max()))
        for r in runs
    ]


def monotone_run(
    n: int,
    K: int,
    eta: float,
    v2: float,
    steps: int,
    rtol: float,
    mu: float = 0.0,
    shape: tuple[int, int] = (2, 3),
) -> tuple[bool, float]:
    """(the excess is finite and non-increasing at every step up to relative round-off rtol, final excess)
    of the linear scalar recursion at step size eta. mu != 0: inputs of mean mu (unit variance) through
    :func:`scalar_run_mean`, with V* of ``shape`` (M, d), equal entries and ||V*||_F^2 = v2 (V* 1 along
    the mean term)."""
    try:
        with np.errstate(all="ignore"):
            if mu:
                V = np.full(shape, math.sqrt(v2 / (shape[0] * shape[1])))
                ex = scalar_run_mean(V, n, K, eta, list(range(steps + 1)), 1.0, mu)[0]
            else:
                ex = scalar_run(n, K, eta, list(range(steps + 1)), 1.0, v2).excess
        inc = ~(np.diff(ex) <= rtol * ex[:-1])
        return bool(np.all(np.isfinite(ex)) and not inc.any()), float(ex[-1])
    except (OverflowError, ValueError):
        return False, float("nan")


def largest_stable_eta(n: int, K: int, eta0: float, v2: float, steps: int) -> float | None:
    """The largest eta0 * 2^k (k < 12) whose run stays finite and ends below the initial excess."""
    largest = None
    for k in range(0, 12):
        eta = eta0 * 2**k
        try:
            with np.errstate(all="ignore"):
                r = scalar_run(n, K, eta, [steps], 1.0, v2)
            fine = bool(np.isfinite(r.excess[-1]) and r.excess[-1] < M.scalar_excess(0, 0, n, K, 1.0, v2))
        except (OverflowError, ValueError):
            fine = False
        if not fine:
            break
        largest = eta
    return largest


@dataclass(frozen=True)
class Weighted:
    """Circulant teacher with weights (0.6, 0.3, 0.1): deviation of the one-column reduction from the full
    matrix over 300 steps, tail times and excess, T_max."""

    dev: float
    t: np.ndarray
    excess: np.ndarray
    t_max: int


def weighted_support(
    V: np.ndarray, P: np.ndarray, eta: float, times: np.ndarray, t_decay: float = 0.0
) -> list[Weighted]:
    """Non-uniform weights (0.6, 0.3, 0.1) on a circulant 3-support, for n problems V (n, M, d), P
    (n, D, D) at once: the one-column reduction sampled at ``times`` (step schedule ``t_decay``,
    :func:`step_at`), validated against full-matrix GD (constant step) over 300 steps first."""
    S = D.s_weighted(P.shape[1], np.array([0.6, 0.3, 0.1]))
    tv = log_times(1, 300, 3)
    fulls = population_gd_batched(V, np.broadcast_to(S, P.shape), P, eta, tv)
    _, w_c, a_c = circulant_run_batched(S[:, 0], V, eta, tv)
    tt = np.asarray(times)
    ex = circulant_run_batched(S[:, 0], V, eta, tt, t_decay=t_decay)[0]
    return [
        Weighted(
            max(float(np.abs(full.A[:, :, 0] - a_c[i]).max()), float(np.abs(full.W_V - w_c[i]).max())),
            tt,
            ex[i],
            int(tt[-1]),
        )
        for i, full in enumerate(fulls)
    ]


def dense_teacher_steps(
    rngs: Sequence[np.random.Generator], V: np.ndarray, P: np.ndarray, eta: float, steps: int, below: float
) -> list[tuple[float, float]]:
    """For each run (its generator of ``rngs``, V (n, M, d), P (n, D, D); all runs in one batch, each
    stopping on its own) a dense positive column-stochastic S* (entries U(0.5, 1.5), normalised): (steps
    until the excess is below ``below``, or steps + 1 if never; final excess)."""
    n = P.shape[1]
    Sd = np.stack([rng.uniform(0.5, 1.5, (n, n)) for rng in rngs])
    Sd /= Sd.sum(axis=1, keepdims=True)
    model, pop = M.PositionAttention(LIN), D.Population(V, Sd, P)
    trs = gradient_descent_batched(
        {"W_V": np.zeros_like(V), "W_KQ": np.zeros_like(P)},
        lambda th: model.loss_and_grad_batched(th, pop),
        eta,
        steps,
        stop_below=below,
        norms=False,
    )
    return [(float(tr.loss.size - 1 if tr.loss[-1] < below else steps + 1), float(tr.loss[-1])) for tr in trs]


def unequal_sums_floor(
    rngs: Sequence[np.random.Generator], V: np.ndarray, P: np.ndarray, eta: float, steps: int
) -> list[tuple[float, np.ndarray, float]]:
    """For each run (its generator of ``rngs``, V (n, M, d), P (n, D, D); the GD runs in one batch) a
    circulant K = 2 teacher with column sums U(0.7, 1.3): (the minimised floor of the closed form, relative
    gaps of GD to it at steps / 10 and steps, the final GD excess)."""
    n = P.shape[1]
    Sc = np.stack([D.s_circulant(n, 2) * rng.uniform(0.7, 1.3, n)[None, :] for rng in rngs])
    out = []
    for i, run in enumerate(population_gd_batched(V, Sc, P, eta, [steps // 10, steps])):
        start = (run.W_V[-1], M.logits(run.W_KQ[-1], P[i]))
        floor = min_closed_form(V[i], Sc[i], P[i], starts=[start])
        out.append((floor, (run.excess - floor) / floor, float(run.excess[-1])))
    return out


def min_closed_form(
    V: np.ndarray, S: np.ndarray, P: np.ndarray, starts: Sequence[tuple[np.ndarray, np.ndarray]] = ()
) -> float:
    """min over (W_V, logits) of the linear closed form, by L-BFGS on hand gradients from several starts
    (zero logits, log S* at two scales, and the given (W_V, logits) starts, e.g. a GD end point)."""
    from scipy.optimize import minimize

    m_out, d = V.shape
    n = S.shape[0]

    def f(x: np.ndarray) -> tuple[float, np.ndarray]:
        W, Lam = x[: m_out * d].reshape(m_out, d), x[m_out * d :].reshape(n, n)
        loss, g = M.linear_loss_grad(W, P @ Lam @ P.T * math.sqrt(n), P, V, S)
        gl = P.T @ g["W_KQ"] @ P * math.sqrt(n)  # chain rule through W_KQ = sqrt(D) P Lam P^T
        return loss, np.concatenate([g["W_V"].ravel(), gl.ravel()])

    x0s = [np.concatenate([w.ravel(), lam.ravel()]) for w, lam in starts]
    best = np.inf
    for scale in (0.0, 1.0, 3.0):
        x0s.append(np.concatenate([V.ravel(), scale * np.log(np.maximum(S, 1e-3)).ravel()]))
    for x0 in x0s:
        res = minimize(
            f, x0, jac=True, method="L-BFGS-B", options=dict(maxiter=20_000, gtol=1e-13, ftol=1e-16)
        )
        best = min(best, float(res.fun))
    return best


def ood_inputs(
    r: np.random.Generator, kind: str, N: int, d: int, n: int, ar: float
) -> tuple[np.ndarray, float, float]:
    """N OOD inputs X~ (N, d, D) and the (mean, variance) of their entries: iid ``exp`` / ``exp_centred``
    tokens, or ``correlated`` AR(1) Gaussian tokens with coefficient ``ar``."""
    if kind != "correlated":
        return D.sample_inputs(kind, N, d, n, r), *D.input_moments(kind)
    Z = r.standard_normal((N, d, n))
    X = np.empty_like(Z)
    X[:, :, 0] = Z[:, :, 0]
    for j in range(1, n):
        X[:, :, j] = ar * X[:, :, j - 1] + math.sqrt(1 - ar * ar) * Z[:, :, j]
    return X, 0.0, 1.0


@dataclass
class OodCurves:
    """Per tail checkpoint of one OOD input kind: Monte Carlo B and its SE; L_OOD - A_T (paired estimator,
    teacher + independent noise labels); SE of L_OOD; L_OOD; L_OOD - A_T under the worst label law of
    the class (:func:`ood_curves`) and our derived slack eps(T) = B + 2 sqrt(A_T B) on the same sample;
    bound (i); B exact (iid kinds, else empty); the op-norm bound on B."""

    B: list[float]
    B_se: list[float]
    L_minus_A: list[float]
    L_se: list[float]
    L: list[float]
    L_worst: list[float]
    eps: list[float]
    bound_i: list[float]
    B_exact: list[float]
    B_op: list[float]


def limit_error_direction(S: np.ndarray) -> np.ndarray:
    """Q (D, D): the direction S* - C1 A tends to along training, up to the factor -eps (DERIVED,
    derivation Sect. 5.4): 1/(D - K) off the support of each column of a uniform-K teacher, 0 on it (the
    on-support error is O(eps^2)); f*(X~) - TF(X~) = V* X~ (S* - C1 A) -> -eps V* X~ Q."""
    off = S == 0
    return off / off.sum(axis=0, keepdims=True)


def ood_curves(
    ctx: Ctx,
    k: int,
    kind: str,
    prob: tuple[np.ndarray, np.ndarray, int, float],
    sc: ScalarRun,
    N: int,
    tau: float,
    aligned: float = 1.0,
) -> OodCurves:
    """L_OOD, B(T) and the bounds of Thm 3.2 at the scalar run's checkpoints, on N OOD samples (stream
    (2, k)) common across checkpoints. prob = (V*, S*, K, v2 = ||V*||_F^2 as the run used it);
    A_T = 1/2 M D tau^2, AR(1) coefficient 0.6.

    Labels of the stated class (response columns with bounded second moments) at teacher OOD loss A_T:
    teacher plus independent noise (``L_minus_A``: L_OOD - A_T = B in expectation), and the worst law
    (``L_worst``): Y~ = f*(X~) + h(X~) + independent noise, h = -c V* X~ Q (Q:
    :func:`limit_error_direction`, aligned with the student's limiting error) carrying the share
    ``aligned`` of A_T (c from the sample: 1/2 mean ||h||^2 = aligned A_T) and the noise the rest (its
    cross term enters by its expectation, 0). By Cauchy-Schwarz on the sample, L_worst <= eps = B +
    2 sqrt(A_T B); at aligned = 1 it attains eps as the direction of f* - TF converges (the class's
    worst case); at aligned = 0 it is B."""
    V, S, K, v2 = prob
    (m_out, d), n = V.shape, S.shape[0]
    v_op = float(np.linalg.norm(V, 2))
    A_T = 0.5 * m_out * n * tau**2
    r = ctx.rng(2, k)
    X, mu, var = ood_inputs(r, kind, N, d, n, 0.6)
    E = tau * r.standard_normal((N, m_out, n))
    VX = np.einsum("md,ndk->nmk", V, X)
    Ystar = VX @ S
    H = VX @ limit_error_direction(S)
    h = -math.sqrt(2.0 * aligned * A_T / float(np.mean(np.sum(H * H, axis=(1, 2))))) * H
    ex2 = d * n * (var + mu * mu)
    c = OodCurves([], [], [], [], [], [], [], [], [], [])
    for C1, g in zip(sc.C1, sc.g, strict=True):
        A = M.two_level_attention(g, S)
        diff = Ystar - C1 * (VX @ A)  # f* - TF, (N, M, D)
        b = 0.5 * np.sum(diff**2, axis=(1, 2))
        c.B.append(float(b.mean()))
        c.B_se.append(float(b.std(ddof=1) / math.sqrt(N)))
        li = 0.5 * np.sum((diff + E) ** 2, axis=(1, 2))  # 1/2 ||Y~ - TF||^2, Y~ = f* + E
        # L_OOD - A_T by the paired estimator 1/2||f* + E - TF||^2 - 1/2||E||^2 on the same samples
        c.L_minus_A.append(float(np.mean(b + np.sum(E * diff, axis=(1, 2)))))
        c.L_se.append(float(li.std(ddof=1) / math.sqrt(N)))
        c.L.append(float(li.mean()))
        # 1/2||Y~ - TF||^2 - 1/2||Y~ - f*||^2 = B + <h, f* - TF> for the worst law
        c.L_worst.append(float(np.mean(b + np.sum(h * diff, axis=(1, 2)))))
        c.eps.append(c.B[-1] + 2.0 * math.sqrt(A_T * c.B[-1]))
        Delta = S - C1 * A
        bop = to_float(B.ood_B_op_bound(v_op, float(np.linalg.norm(Delta, 2)), ex2))
        if kind != "correlated":
            Bex = to_float(
                B.ood_B_exact(
                    float(np.sum(V * V)) * var,
                    1.0,
                    v2,
                    float(M.scalar_excess(C1, g, n, K, 1.0, v2)),
                    n,
                    C1,
                    float(np.sum((V.sum(axis=1) * mu) ** 2)),
                )
            )
            c.B_exact.append(Bex)
        c.bound_i.append(to_float(B.ood_upper(A_T, Bex if kind != "correlated" else bop)))
        c.B_op.append(bop)
    return c


def ood_op_search(
    rng: np.random.Generator, V: np.ndarray, S: np.ndarray, C1: float, g: float, starts: int, maxiter: int
) -> WorstCase:
    """Worst case of B / bounds.ood_B_op_bound (Thm 3.2 (ii)) over every law of X~ with finite second
    moments, at the trained state W_V = C1 V*, A = the two-level attention of gap g: both sides are
    linear in the law (B = 1/2 E||f*(X~) - TF(X~)||_F^2, the bound in E||X~||_F^2), so the ratio of a
    mixture is at most the largest ratio of its components and the worst law is a point mass X~ = X;
    both are homogeneous of degree 2 in X, so z is X (d, D) flattened and scaled onto the unit sphere.
    Starts N(0, 1)."""
    A = M.two_level_attention(g, S)
    v_op, delta_op = float(np.linalg.norm(V, 2)), float(np.linalg.norm(S - C1 * A, 2))
    bound = to_float(B.ood_B_op_bound(v_op, delta_op, 1.0))  # E||X~||_F^2 = 1 on the sphere
    d, n = V.shape[1], S.shape[0]

    def ratio(z: np.ndarray) -> float:
        VX = V @ (z / np.linalg.norm(z)).reshape(d, n)
        diff = VX @ S - C1 * (VX @ A)  # f*(X) - TF(X)
        return 0.5 * float(np.sum(diff * diff)) / bound

    found = worst_case(ratio, lambda r: r.standard_normal(d * n), rng, starts=starts, maxiter=maxiter)
    return replace(found, argument={"C1": C1, "g": g, "d": d, "D": n})


@dataclass(frozen=True)
class Shares:
    """Full one-layer TF after online GD: feature-block share of ||W_V||^2, position-block share of
    ||W_KQ||^2, the position block's attention against S* (max |S(W_KQ[d:, d:]) - S*| at steps // 10 and
    at the end; whether the top-K entries of every column are on G_i), a note, and the attention error
    after every step (``attn_curve``, index t)."""

    act: str
    feature_share: float
    position_share: float
    attn_err_early: float
    attn_err: float
    support: bool
    note: str
    attn_curve: tuple[float, ...] = ()


#: Token mixing of the full-TF teacher: ``position`` is the paper's S* (fixed, input-independent);
#: ``content`` mixes tokens by their features, S(X) = column-softmax(X^T X) (reviewer 4's contrast with
#: Wang et al. 2024, where the attention must read the input): the alternative world of ``fullTF``.
MIXINGS = ("position", "content")


def full_tf_shares(
    ctx: Ctx,
    sz: Size,
    eta: float,
    vnorm: float,
    N: int,
    steps: int,
    acts: Sequence[str] = ("linear", "leaky"),
    mixing: str = "position",
) -> list[Shares]:
    """Online GD (a fresh batch of N Gaussian inputs per step, noise-free labels, stream (2, k) with k
    the index of the activation in (linear, leaky)) of the full one-layer TF from zero init, for each
    activation in ``acts``; the teacher mixes tokens by S* (``mixing="position"``) or by
    column-softmax(X^T X) (``"content"``, :data:`MIXINGS`)."""
    if mixing not in MIXINGS:
        raise ValueError(f"mixing must be one of {MIXINGS}, got {mixing!r}")
    S, V, P = circulant_problem(ctx.rng(1), sz, vnorm)
    d, out = sz.d, []
    for k, act in enumerate((LIN, LEAKY)):
        if act.name not in acts:
            continue
        brng, model = ctx.rng(2, k), M.FullTF(act)

        def lg(th: M.Params, act: M.Act = act, brng: np.random.Generator = brng, model: M.FullTF = model):
            X = brng.standard_normal((N, d, sz.D))  # a fresh batch every step (online GD)
            mix = S if mixing == "position" else softmax(np.swapaxes(X, 1, 2) @ X, axis=-2)
            return model.loss_and_grad(th, D.Sample(X, act(np.matmul(V, X) @ mix), P))

        def err(th: dict, *_: object) -> float:
            return float(np.abs(M.attention(th["W_KQ"][d:, d:], P) - S).max())

        tr = gradient_descent(
            M.Params.zeros(sz.M, d + sz.D, d + sz.D), lg, eta, steps, norms=False, record={"err": err}
        )
        Wv, W = tr.params.W_V, tr.params.W_KQ
        fv = float(np.sum(Wv[:, :d] ** 2) / np.sum(Wv**2))
        fk = float(np.sum(W[d:, d:] ** 2) / np.sum(W**2))
        cos = float(np.sum(Wv[:, :d] * V) / (np.linalg.norm(Wv[:, :d]) * np.linalg.norm(V)))
        A = M.attention(W[d:, d:], P)
        top = np.argsort(-A, axis=0, kind="stable")[: sz.K]
        support = all(set(top[:, i].tolist()) == set(np.nonzero(S[:, i])[0].tolist()) for i in range(sz.D))
        e = tr.extras["err"]
        note = (
            f"{act.name}: loss {tr.loss[0]:.3g} -> {tr.loss[-1]:.3g}; cos(W_V[:, :d], V*) = {cos:.4f}; "
            f"max |S(W_KQ[d:, d:]) - S*| = {e[steps // 10]:.3f} (t = {steps // 10}) -> {e[-1]:.3f} "
            f"(t = {steps}); shares: W_V feature block {fv:.3f}, W_KQ position block {fk:.3f}"
        )
        out.append(Shares(act.name, fv, fk, float(e[steps // 10]), float(e[-1]), support, note, tuple(e)))
    return out


def onset_sweep(
    ctx: Ctx,
    pts: Sequence[tuple[int, float]],
    K: int,
    eta: float,
    horizon_T0: float,
    thresh: float,
    sample_per_octave: int = 32,
    per_octave: int = 128,
    logit_scaling: bool = True,
) -> tuple[list[float], list[float]]:
    """T_on (:func:`t_on` with slope threshold ``thresh``) and T_on / T_0 at each (D, ||V*||_F) of
    ``pts``: linear scalar runs to horizon_T0 T_0 sampled on a 2^(1/sample_per_octave) grid, read on a
    2^(1/per_octave) grid (log-log interpolation), so T_on is resolved to a factor 2^(1/per_octave).
    (Sampled on a 2^(1/8) grid and read on 2^(1/32), T_on jittered by about 1% from one D to the next
    and sat up to 1.3% below its finely sampled value: errata, issue 25 item 10.) ``logit_scaling``:
    the logits carry the 1/sqrt(D) (True; T_0 is derived for it) or not (logit gain D, the logit step
    eta instead of eta/D: derivation Sect. 6.10)."""
    points = []
    for n, vn in pts:
        T0 = onset(n, K, eta, 1.0, vn**2)
        m = int(sample_per_octave * math.log2(horizon_T0 * T0)) + 1
        times = np.unique(np.round(2.0 ** (np.arange(m) / sample_per_octave)).astype(int))
        gain = 1.0 if logit_scaling else float(n)
        points.append(CurvePoint(n, K, eta, 1.0, vn**2, "linear", tuple(times.tolist()), logit_gain=gain))
    t_ons, ratio = [], []
    for (n, vn), r in zip(pts, ctx.map(scalar_curve, points), strict=True):
        t, y = np.array(r["t"]), np.array(r["excess"])
        # the sampling grid is rounded to integers; read the curve on the exact 2^(k/per_octave) grid
        grid = 2.0 ** (np.arange(int(per_octave * math.log2(t[-1])) + 1) / per_octave)
        yi = np.exp(np.interp(np.log(grid), np.log(t), np.log(y)))
        t_ons.append(t_on(grid, yi, thresh, per_octave))
        ratio.append(t_ons[-1] / onset(n, K, eta, 1.0, vn**2))
    return t_ons, ratio


def value_and_positions(rng: np.random.Generator, sz: Size, vnorm: float) -> tuple[np.ndarray, np.ndarray]:
    """(V* with ||V*||_F = vnorm, a random orthogonal P), drawn in this order from ``rng``."""
    return D.random_v(sz.M, sz.d, rng, vnorm), M.random_orthogonal(sz.D, rng)


# ---------------------------------------------------------------- full-model runs (no symmetric reduction)


# Runs of the full model that do not use the symmetric reduction: full-matrix population GD batched over
# seeds (each teacher with its own S*), online mini-batch SGD (the paper's experimental protocol) on any
# input law, and population GD from a small non-zero, non-symmetric initialisation.
#
# Workers take a frozen dataclass point and are module-level functions, so ``ctx.map`` can run them in a
# process pool and return them in order (bit-identical to a serial run).


def _times(times: Sequence[int]) -> list[int]:
    ts = [check_int("time", int(t), low=1) for t in times]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ValueError("times must be strictly increasing")
    return ts


def batched_population_gd(
    V: np.ndarray, S: np.ndarray, eta: float, times: Sequence[int], t_decay: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full-matrix population GD (linear sigma, Gaussian-moment closed form) from zero init for n
    problems at once: V (n, M, d), S (n, D, D). It runs in logit coordinates Lam = P^T W_KQ P / sqrt(D)
    (P^T P = I: the W_KQ step is the logit step Lam <- Lam - (eta / D) grad_Lam, the same for every
    orthogonal P; ``zhang2026.P_invariance`` checks this on the matrix model). t_decay: the step schedule
    of :func:`step_at` (0: constant). Returns (excess (n_t, n), W_V (n_t, n, M, d), A (n_t, n, D, D)) at
    ``times``."""
    V, S = np.asarray(V, dtype=np.float64), np.asarray(S, dtype=np.float64)
    eta, ts = check_positive("eta", eta), _times(times)
    n_tok = S.shape[1]
    W, Lam = np.zeros_like(V), np.zeros_like(S)
    vv, ss = np.einsum("nmd,nmd->n", V, V), np.einsum("nij,nij->n", S, S)
    out_e, out_w, out_a, t_now = [], [], [], 0
    for t in ts:
        for k in range(t_now, t):
            et = step_at(eta, k, t_decay)
            A = softmax(Lam, axis=-2)
            vw, ww = np.einsum("nmd,nmd->n", V, W), np.einsum("nmd,nmd->n", W, W)
            sa, aa = np.einsum("nij,nij->n", S, A), np.einsum("nij,nij->n", A, A)
            g_a = ww[:, None, None] * A - vw[:, None, None] * S
            W = W - et * (aa[:, None, None] * W - sa[:, None, None] * V)
            Lam = Lam - (et / n_tok) * softmax_vjp(A, g_a, axis=-2)
        t_now = t
        A = softmax(Lam, axis=-2)
        vw, ww = np.einsum("nmd,nmd->n", V, W), np.einsum("nmd,nmd->n", W, W)
        sa, aa = np.einsum("nij,nij->n", S, A), np.einsum("nij,nij->n", A, A)
        out_e.append(0.5 * (vv * ss - 2 * vw * sa + ww * aa))
        out_w.append(W.copy())
        out_a.append(A)
    return np.array(out_e), np.array(out_w), np.array(out_a)


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
    S, V = D.s_circulant(p.D, p.K), D.random_v(p.M, p.d, rng, p.vnorm)
    P = M.random_orthogonal(p.D, rng)
    srng = np.random.default_rng([p.seed, 2])
    mu, var = D.input_moments(p.kind)
    W, KQ, t_now = np.zeros((p.M, p.d)), np.zeros((p.D, p.D)), 0
    out: dict[str, list[float]] = {"excess": [], "resid": [], "value_err": [], "max_entry": []}
    for t in _times(p.times):
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


@dataclass(frozen=True)
class AsymPoint:
    """Population GD (linear sigma) of a circulant (D, K) teacher from W_V(0) = scale ||V*||_F Z / ||Z||
    and logits Lam(0) with iid N(0, scale^2) entries (non-symmetric), stream (seed, 1); step eta;
    t_decay: the step schedule of :func:`step_at` (0: constant)."""

    seed: int
    D: int
    K: int
    M: int
    d: int
    eta: float
    vnorm: float
    scale: float
    times: tuple[int, ...]
    t_decay: float = 0.0


def asym_curve(p: AsymPoint) -> dict[str, list[float]]:
    """The full-matrix run of ``p``: excess, Lemma C.2 residual, and the largest relative spread (max -
    min) / mean of the on-support and of the off-support attention entries within a column (0 on the
    two-level form of the symmetric reduction)."""
    rng = np.random.default_rng([p.seed, 1])
    S, V = D.s_circulant(p.D, p.K), D.random_v(p.M, p.d, rng, p.vnorm)
    P = M.random_orthogonal(p.D, rng)
    Z = rng.standard_normal((p.M, p.d))
    W = p.scale * p.vnorm * Z / np.linalg.norm(Z)
    KQ = P @ (p.scale * rng.standard_normal((p.D, p.D))) @ P.T * math.sqrt(p.D)
    on, t_now = S > 0, 0
    out: dict[str, list[float]] = {"excess": [], "resid": [], "spread_on": [], "spread_off": []}
    for t in _times(p.times):
        for k in range(t_now, t):
            g = M.linear_loss_grad(W, KQ, P, V, S)[1]
            et = step_at(p.eta, k, p.t_decay)
            W, KQ = W - et * g["W_V"], KQ - et * g["W_KQ"]
        t_now = t
        out["excess"].append(M.linear_loss_grad(W, KQ, P, V, S)[0])
        c = float(np.sum(W * V) / np.sum(V * V))
        out["resid"].append(float(np.linalg.norm(W - c * V) / np.linalg.norm(W)))
        A = M.attention(KQ, P)
        for name, mask in (("spread_on", on), ("spread_off", ~on)):
            cols = [A[mask[:, i], i] for i in range(p.D)]
            out[name].append(max(float(np.ptp(c_) / c_.mean()) for c_ in cols))
    return out


# ---------------------------------------------------------------- the digits stand-in for MNIST


@dataclass(frozen=True)
class DigitsRun:
    """Along GD at ``times``: cos(W_V, V*) (flattened), ||A - S*||_F, and at the end the mean |A - S*| over
    the rows (keys) of border and of interior patches; eta: the step used; loss0: the initial loss."""

    times: np.ndarray
    cos: np.ndarray
    attn_err: np.ndarray
    err_border: float
    err_interior: float
    eta: float
    loss0: float
    stopped: str | None


def digits_run(X: np.ndarray, M_out: int, vscale: float, times: np.ndarray) -> DigitsRun:
    """Full-batch GD of the position-only student (P = I) from zero init on the teacher's outputs.

    The step is eta = 1 / lambda, lambda the largest eigenvalue of the W_V curvature W -> W G(A) at
    the uniform attention and at S* (the stable range of the value dynamics is eta < 2 / lambda)."""
    n_tok = X.shape[2]
    V, S, P = D.pca_filters(X, M_out, vscale), D.s_conv_pool(D.GRID, D.POOL), np.eye(n_tok)
    T = M.second_moments(X)
    d = X.shape[1]
    curv = [
        np.linalg.eigvalsh((T @ (A @ A.T).ravel()).reshape(d, d)).max()
        for A in (np.full((n_tok, n_tok), 1 / n_tok), S)
    ]
    eta = 1.0 / max(curv)
    theta, t_now, out, stopped = M.Params.zeros(V.shape[0], d, n_tok), 0, [], None

    def lg(th: M.Params) -> tuple[float, M.Params]:
        loss, g = M.moment_loss_grad(th.W_V, th.W_KQ, P, V, S, T)
        return loss, M.Params(**g)

    loss0 = lg(theta)[0]
    for t in times:
        tr = gradient_descent(theta, lg, eta, int(t) - t_now)
        if tr.state is not RunState.COMPLETED:
            stopped = f"{tr.stopped} before t = {t}"
            break
        theta, t_now = tr.params, int(t)
        A = M.attention(theta.W_KQ, P)
        cos = float(np.sum(theta.W_V * V) / (np.linalg.norm(theta.W_V) * np.linalg.norm(V)))
        out.append((cos, float(np.linalg.norm(A - S))))
    A = M.attention(theta.W_KQ, P)
    err, b = np.abs(A - S).mean(axis=1), D.border_rows()
    arr = np.array(out).reshape(-1, 2)
    return DigitsRun(
        np.asarray(times[: len(out)]), arr[:, 0], arr[:, 1], float(err[b].mean()), float(err[~b].mean()),
        eta, float(loss0), stopped,
    )  # fmt: skip


def log_grid(steps: int, per_decade: int = 4) -> np.ndarray:
    """Log-spaced integer times 1 .. steps, ``per_decade`` per decade (never past ``steps``)."""
    k = np.arange(0, round(per_decade * math.log10(steps)) + 1)
    return np.unique(np.minimum(np.round(10.0 ** (k / per_decade)).astype(int), steps))
