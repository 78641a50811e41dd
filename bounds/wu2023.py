"""Theory side of Wu, Liu, Chrysos, Cevher (NeurIPS 2023, arXiv 2311.01575), "On the Convergence of
Encoder-only Shallow Transformers", as reconstructed from its abstract and reviews.

Only the paper's abstract and reviews could be read, so every constant below is ours (tags in the
docstrings). Contents:

* initialisation table (LeCun / He / NTK) and the two softmax scalings tau0 = d_m^-1/2, d_m^-1;
* Proposition 1 [RECONSTRUCTED statement, DERIVED proof]: lambda-bar per block, rho, z, alpha, loss_0,
  conditions C1 / C2 as ratios (>= 1 means the condition holds), the linear rate (1 - gamma tau1^2
  alpha^2 / 4)^t and the path-length bound;
* the alpha lower bound [DERIVED]: expected feature Gram in closed form (arc-cosine kernel) and its
  Hermite PSD floor;
* Theorems 1 / 2 as width-threshold functions: the width at which the Prop. 1 conditions hold with
  the initial norms replaced by their Gaussian high-probability values (mpmath; may be 1e40);
* limiting NTK under tau0 = d_m^-1 and its minimum-eigenvalue bounds [DERIVED];
* Assumptions 1-4 as checkers on a data set (forms per the reviews; constants NOT RECOVERED).

The derivations and proofs behind the DERIVED and RECONSTRUCTED formulas are in
``verify/wu2023/derivations.md`` (cited below as "derivations.md Sect. N").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from bounds.checks import (
    check_array,
    check_blocks,
    check_choice,
    check_int,
    check_positive,
    check_prob,
    check_real,
    check_real_mp,
    check_steps,
    finite_result,
)
from bounds.mp import DPS, mp

#: The paper's three initialisations.
INITS = ("lecun", "he", "ntk")
#: The mean-field parametrisation (not one of the paper's): the competing regime, in which the features
#: learn at every width (the alternative world of ``wu2023.fig9.ntk.width``).
MEAN_FIELD = "mf"
#: The two softmax scalings tau0 = d_m^-power of Theorems 1 and 2.
TAU0_POWERS = (0.5, 1.0)
#: The four trained blocks W_Q, W_K, W_V, w_O (keys of the norm / radius mappings of Prop. 1).
BLOCKS = ("Q", "K", "V", "O")
#: relu_hermite_sq evaluates r! in float64, which holds r! up to r = 170.
MAX_HERMITE_ORDER = 170
#: required_width searches d_m up to 10^max_log10 with max_log10 at most this (~0.3 s at the cap).
MAX_LOG10_WIDTH = 1000.0
#: Correlations beyond [-1, 1] by at most this much are round-off and are clipped; more is refused.
CORR_SLACK = 1e-9

#: Width order of Theorem 1 (tau0 = d_m^-1/2): "quadratic over-parameterisation" [EXACT, abstract].
THM1_WIDTH_ORDER = 2.0
#: Width order of Theorem 2 (tau0 = d_m^-1): "linear" [EXACT-from-reviews].
THM2_WIDTH_ORDER = 1.0
#: Theorem 2 needs d to grow like N^4 [EXACT-from-reviews; constant NOT RECOVERED].
THM2_DIM_ORDER = 4.0


@dataclass(frozen=True)
class InitVariances:
    """Entry variances eta_Q, eta_K, eta_V (W: d_m x d), eta_O (w_O: d_m) and the output scale tau1
    [RECONSTRUCTED table, derivations.md Sect. 2.1]."""

    eta_Q: float
    eta_K: float
    eta_V: float
    eta_O: float
    tau1: float


@finite_result
def init_variances(init: str, d: int, d_m: int) -> InitVariances:
    """LeCun: 1/d, 1/d, 1/d, 1/d_m, tau1 = 1; He: twice LeCun; NTK: all 1, tau1 = d_m^-1/2; mean field
    (``MEAN_FIELD``, ours): W_Q, W_K, W_V as LeCun, w_O of variance 1, tau1 = 1/d_m."""
    check_choice("init", init, (*INITS, MEAN_FIELD))
    d, d_m = check_int("d", d), check_int("d_m", d_m)
    if init == MEAN_FIELD:
        return InitVariances(1 / d, 1 / d, 1 / d, 1.0, 1 / d_m)
    if init == "lecun":
        return InitVariances(1 / d, 1 / d, 1 / d, 1 / d_m, 1.0)
    if init == "he":
        return InitVariances(2 / d, 2 / d, 2 / d, 2 / d_m, 1.0)
    return InitVariances(1.0, 1.0, 1.0, 1.0, 1 / math.sqrt(d_m))


@finite_result
def tau0(d_m: int, power: float) -> float:
    """Softmax scaling tau0 = d_m^-power, power 0.5 (Thm 1) or 1 (Thm 2) [EXACT]."""
    check_choice("power", power, TAU0_POWERS)
    return float(check_int("d_m", d_m)) ** (-float(power))


# ---------------------------------------------------------------------------------------------------
# Arc-cosine kernels and Hermite coefficients
# ---------------------------------------------------------------------------------------------------


def _corr(u: Any) -> np.ndarray:
    u = check_array("u", u)
    if u.size and float(np.max(np.abs(u))) > 1.0 + CORR_SLACK:
        raise ValueError(f"u must hold correlations in [-1, 1], got max |u| = {float(np.max(np.abs(u))):g}")
    return u


def _kappa1(u: np.ndarray) -> np.ndarray:
    u = np.clip(u, -1.0, 1.0)
    return (np.sqrt(1.0 - u * u) + u * (np.pi - np.arccos(u))) / (2 * np.pi)


def _kappa0(u: np.ndarray) -> np.ndarray:
    u = np.clip(u, -1.0, 1.0)
    return (np.pi - np.arccos(u)) / (2 * np.pi)


@finite_result
def kappa1(u: np.ndarray) -> np.ndarray:
    """E[relu(g) relu(g')] for standard normals with correlation u: (sqrt(1-u^2) + u(pi - arccos u))/2pi.

    u: correlations in [-1, 1], any shape (round-off up to 1e-9 beyond is clipped)."""
    return _kappa1(_corr(u))


@finite_result
def kappa0(u: np.ndarray) -> np.ndarray:
    """E[1[g>0] 1[g'>0]] with correlation u: (pi - arccos u) / 2pi (u as in :func:`kappa1`)."""
    return _kappa0(_corr(u))


@finite_result
def relu_hermite_sq(r: int) -> float:
    """mu_r^2 of ReLU for even r in [2, 170]: ((r-3)!!)^2 / (2 pi r!) (mu_2^2 = 1/4pi) [DERIVED].

    Evaluated in float64, which holds r! up to r = 170 (:data:`MAX_HERMITE_ORDER`)."""
    r = check_int("r", r, low=2, high=MAX_HERMITE_ORDER)
    if r % 2:
        raise ValueError(f"r must be even, got {r}")
    dfact = math.prod(range(r - 3, 0, -2)) if r > 3 else 1
    return dfact**2 / (2 * math.pi * math.factorial(r))


def _cosines(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nrm = np.linalg.norm(Z, axis=-1)
    safe = np.where(nrm > 0, nrm, 1.0)
    U = (Z / safe[:, None]) @ (Z / safe[:, None]).T
    return nrm, U


# ---------------------------------------------------------------------------------------------------
# alpha = sigma_min(F_pre^0): expected Gram and Hermite floor (derivations.md Sect. 5.3) [DERIVED]
# ---------------------------------------------------------------------------------------------------


@finite_result
def expected_gram(Z: np.ndarray, eta_V: float) -> np.ndarray:
    """G with E[F_pre F_pre^T | W_Q, W_K] = d_m G.

    Z: (N, d_s, d), Z[n, s] = z_{n,s} = row s of S_n X_n (scaled tokens). Returns (N, N):
    G[n, m] = eta_V / d_s^2 sum_{s,s'} |z_ns| |z_ms'| kappa1(cos(z_ns, z_ms')).
    """
    Z = check_array("Z", Z, ndim=3, nonempty=True)
    eta_V = check_positive("eta_V", eta_V)
    N, d_s, d = Z.shape
    nrm, U = _cosines(Z.reshape(N * d_s, d))
    M = np.outer(nrm, nrm) * _kappa1(U)  # cosines computed here: their round-off is clipped
    return eta_V / d_s**2 * M.reshape(N, d_s, N, d_s).sum(axis=(1, 3))


@finite_result
def hermite_floor(Z: np.ndarray, eta_V: float) -> np.ndarray:
    """(eta_V/4) Zbar Zbar^T + (eta_V/2pi) r r^T <= G in the PSD order; Zbar[n] = mean_s z_ns,
    r[n] = mean_s |z_ns|. Z: (N, d_s, d); returns (N, N)."""
    Z = check_array("Z", Z, ndim=3, nonempty=True)
    eta_V = check_positive("eta_V", eta_V)
    Zbar = Z.mean(axis=1)
    r = np.linalg.norm(Z, axis=-1).mean(axis=1)
    return eta_V / 4 * Zbar @ Zbar.T + eta_V / (2 * np.pi) * np.outer(r, r)


@finite_result
def alpha_sq_floor(Zbar: np.ndarray, eta_V: float, d_m: int) -> float:
    """d_m (eta_V/4) sigma_min(Zbar)^2: the order of alpha^2 the Hermite floor gives (zero if N > d)."""
    Zbar = check_array("Zbar", Zbar, ndim=2, nonempty=True)
    d_m, eta_V = check_int("d_m", d_m), check_positive("eta_V", eta_V)
    ev = np.linalg.eigvalsh(Zbar @ Zbar.T)[0]
    return d_m * eta_V / 4 * max(float(ev), 0.0)


# ---------------------------------------------------------------------------------------------------
# Proposition 1 [RECONSTRUCTED statement; constants ours; proof DERIVED] (derivations.md Sect. 5.1-5.2)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prop1:
    """lam_bar: {Q, K, V, O} -> ||W_b^0||_2 + C_b; radii: C_b; rho: Lipschitz constant of F_pre on the
    ball; z: bound on ||J|| on the ball; alpha = sigma_min(F_pre^0); loss0; tau1; c1, c2: ratios of
    the conditions (>= 1 means C1 / C2 hold); path: the path-length bound 8 z sqrt(2 l0)/(tau1^2 a^2)."""

    lam_bar: dict[str, float]
    radii: dict[str, float]
    rho: float
    z: float
    alpha: float
    loss0: float
    tau1: float
    c1: float
    c2: float
    path: float

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@finite_result
def token_stats(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """c_n = max_s |x_ns| and X2_n = ||X_n||_2 (spectral). X: (N, d_s, d) -> two (N,) arrays."""
    X = check_array("X", X, ndim=3, nonempty=True)
    return np.linalg.norm(X, axis=-1).max(axis=1), np.linalg.norm(X, ord=2, axis=(1, 2))


@finite_result
def rho_z(
    c: np.ndarray, X2: np.ndarray, lam_bar: dict[str, float], tau0: float, tau1: float, d_s: int
) -> tuple[float, float]:
    """rho = sqrt(sum_n a_n^2 + b_n^2 + c_n^2), z = tau1 sqrt(sum_n c_n^2 lV^2 + lO^2 (c^2+a^2+b^2)),
    a_n = tau0 X2_n^3 lV lK / (2 sqrt d_s), b_n = tau0 X2_n^3 lV lQ / (2 sqrt d_s) [DERIVED].

    c, X2: (N,) arrays >= 0 (:func:`token_stats`); lam_bar: {Q, K, V, O} -> lambda-bar >= 0."""
    c = check_array("c", c, ndim=1, nonempty=True, low=0.0)
    X2 = check_array("X2", X2, shape=c.shape, low=0.0, match="c")
    lam_bar = check_blocks("lam_bar", lam_bar, BLOCKS)
    tau0, tau1 = check_positive("tau0", tau0), check_positive("tau1", tau1)
    d_s = check_int("d_s", d_s)
    a = tau0 * X2**3 * lam_bar["V"] * lam_bar["K"] / (2 * math.sqrt(d_s))
    b = tau0 * X2**3 * lam_bar["V"] * lam_bar["Q"] / (2 * math.sqrt(d_s))
    rho = float(np.sqrt(np.sum(a**2 + b**2 + c**2)))
    z = tau1 * float(np.sqrt(np.sum(c**2 * lam_bar["V"] ** 2 + lam_bar["O"] ** 2 * (c**2 + a**2 + b**2))))
    return rho, z


@finite_result(may_be_inf=True)
def prop1_quantities(
    X: np.ndarray,
    norms0: dict[str, float],
    alpha: float,
    loss0: float,
    *,
    tau0: float,
    tau1: float,
    radii: dict[str, float] | None = None,
) -> Prop1:
    """All Prop. 1 quantities from the (scaled) tokens X (N, d_s, d), the initial spectral norms
    ``norms0`` {Q, K, V, O} (>= 0), alpha = sigma_min(F_pre^0) and the initial (sum) loss. Radii
    default to C_b = ||W_b^0||_2 (ours: the paper's C_b are NOT RECOVERED).

    Degenerate cases (documented infinities, ``mpmath.inf``): ``path`` is infinite when alpha = 0 (then
    c1 = 0: C1 fails); ``c1`` is infinite when the path bound is 0 (loss0 = 0 or z = 0: nothing to
    travel); ``c2`` is infinite when rho z loss0 = 0 (the right side of C2 is 0, so C2 holds)."""
    X = check_array("X", X, ndim=3, nonempty=True)
    check_blocks("norms0", norms0, BLOCKS)
    alpha = check_real("alpha", alpha, low=0.0)
    loss0 = check_real("loss0", loss0, low=0.0)
    tau0, tau1 = check_positive("tau0", tau0), check_positive("tau1", tau1)
    if radii is not None:
        check_blocks("radii", radii, BLOCKS)
    radii = dict(norms0) if radii is None else dict(radii)
    lam = {k: float(norms0[k]) + float(radii[k]) for k in BLOCKS}
    c, X2 = token_stats(X)
    rho, z = rho_z(c, X2, lam, tau0, tau1, X.shape[1])
    need = 8 * z * math.sqrt(2 * loss0)
    path = need / (tau1**2 * alpha**2) if alpha > 0 else mpmath.inf
    c1 = 0.0 if alpha == 0 else (min(radii.values()) / path if path > 0 else mpmath.inf)
    denom = 16 * rho * z * math.sqrt(2 * loss0)
    c2 = tau1**2 * alpha**3 / denom if denom > 0 else mpmath.inf
    return Prop1(lam, radii, rho, z, alpha, loss0, tau1, c1, c2, path)


@finite_result
def rate_factor(gamma: float, tau1: float, alpha: float) -> float:
    """q = 1 - gamma tau1^2 alpha^2 / 4 (sum loss) [RECONSTRUCTED Prop. 1; the reviews name this form]."""
    gamma = check_positive("gamma", gamma)
    q = 1.0 - gamma * check_positive("tau1", tau1) ** 2 * check_real("alpha", alpha, low=0.0) ** 2 / 4
    if q < 0:
        raise ValueError(f"gamma tau1^2 alpha^2 must be <= 4 (condition C3), got q = {q}")
    return q


@finite_result
def rate_bound(loss0: float, gamma: float, tau1: float, alpha: float, t: np.ndarray) -> np.ndarray:
    """Prop. 1 bound loss0 * q^t at the steps t (whole numbers >= 0, any shape); sum-loss convention."""
    t = check_steps("t", t)
    loss0 = check_real("loss0", loss0, low=0.0)
    q = rate_factor(gamma, tau1, alpha)
    return loss0 * q**t


@finite_result
def sum_loss_gamma(gamma: float, N: int, loss_norm: str) -> float:
    """GD on the mean loss with step gamma is GD on the sum loss with step gamma / N."""
    check_choice("loss_norm", loss_norm, ("sum", "mean"))
    gamma, N = check_positive("gamma", gamma), check_int("N", N)
    return gamma / (N if loss_norm == "mean" else 1)


@finite_result
def expected_loss0(y: np.ndarray, F: np.ndarray, tau1: float, eta_O: float) -> float:
    """E_{w_O}[l_0] = 1/2 (|y|^2 + tau1^2 eta_O |F_pre|_F^2) (sum loss; exact) [DERIVED].

    y: (N,) labels; F: (N, d_m) pre-output features F_pre."""
    y = check_array("y", y, ndim=1, nonempty=True)
    F = check_array("F", F, shape=(y.size, None), nonempty=True, match="y")
    tau1 = check_positive("tau1", tau1)
    return 0.5 * (float(y @ y) + tau1**2 * check_positive("eta_O", eta_O) * float(np.sum(F * F)))


@finite_result
def gaussian_norm_bound(eta: float, rows: int, cols: int, t: float) -> float:
    """sqrt(eta) (sqrt(rows) + sqrt(cols) + t): P(||W||_2 >= it) <= exp(-t^2/2) for i.i.d. N(0, eta)
    entries (Davidson-Szarek / Vershynin, explicit constant)."""
    return math.sqrt(check_positive("eta", eta)) * (
        math.sqrt(check_int("rows", rows)) + math.sqrt(check_int("cols", cols)) + check_real("t", t, low=0)
    )


# ---------------------------------------------------------------------------------------------------
# Theorems 1 / 2 as width thresholds (mpmath) [RECONSTRUCTED mapping; orders EXACT(-from-reviews)]
# (derivations.md Sect. 5.4)
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DataSummary:
    """What the width thresholds need from a data set (N examples of d_s tokens of dimension d):
    sum_c2 = sum_n c_n^2, sum_x6 = sum_n X2_n^6, y_sq = |y|^2, lam0 = lambda_min(G / eta_V),
    trG = tr(G / eta_V) (G the expected feature Gram, per unit eta_V).

    Validated on construction: N, d, d_s integers >= 1; sum_c2, sum_x6, y_sq, trG finite and >= 0;
    lam0 finite (<= 0 means the width conditions never hold); lam0 > 0 needs sum_c2 > 0 and trG > 0."""

    N: int
    d: int
    d_s: int
    sum_c2: float
    sum_x6: float
    y_sq: float
    lam0: float
    trG: float

    def __post_init__(self) -> None:
        for name in ("N", "d", "d_s"):
            check_int(name, getattr(self, name))
        for name in ("sum_c2", "sum_x6", "y_sq", "trG"):
            check_real(name, getattr(self, name), low=0.0)
        if check_real("lam0", self.lam0) > 0:
            if self.sum_c2 == 0:
                raise ValueError("sum_c2 must be > 0 when lam0 > 0 (lambda_min(G) > 0 needs tokens X != 0)")
            if self.trG == 0:
                raise ValueError("trG must be > 0 when lam0 > 0 (the trace of G_unit is >= N lam0)")


@finite_result
def summarise(X: np.ndarray, y: np.ndarray, G_unit: np.ndarray) -> DataSummary:
    """DataSummary from tokens X (N, d_s, d), labels y (N,), and G / eta_V (N, N)."""
    X = check_array("X", X, ndim=3, nonempty=True)
    c, X2 = token_stats(X)
    y = check_array("y", y, shape=(X.shape[0],), match="X")
    G_unit = check_array("G_unit", G_unit, shape=(X.shape[0], X.shape[0]), match="X")
    if np.any(np.diag(G_unit) < 0):
        raise ValueError("G_unit must be a Gram matrix: its diagonal has a negative entry")
    values = (
        float(np.sum(c**2)),
        float(np.sum(X2**6)),
        float(np.sum(y**2)),
        float(np.linalg.eigvalsh(G_unit)[0]),
        float(np.trace(G_unit)),
    )
    if not np.all(np.isfinite(values)):
        raise OverflowError("a data summary overflows float64")
    return DataSummary(X.shape[0], X.shape[2], X.shape[1], *values)


def _check_summary(s: Any) -> DataSummary:
    if not isinstance(s, DataSummary):
        raise TypeError(f"s must be a DataSummary (see summarise), got {type(s).__name__}")
    return s


@finite_result
def proxy_ratios(
    d_m: Any, s: DataSummary, *, tau0_power: float, init: str = "lecun", delta: float = 0.5
) -> tuple[Any, Any]:
    """(C1 ratio, C2 ratio) at width d_m (mpf) with the initial quantities replaced by their
    high-probability values: ||W_b^0||_2 -> sqrt(eta)(sqrt d_m + sqrt d), ||w_O^0|| -> sqrt(eta_O d_m),
    C_b = ||W_b^0|| (ours), alpha^2 -> (1 - delta) d_m lam0 eta_V, l_0 -> E[l_0].

    d_m: a real >= 1 (int, float or mpf, beyond float64 too); s.lam0 must be >= 0 (with lam0 = 0 both
    ratios are 0; :func:`required_width` returns ``mpmath.inf`` for lam0 <= 0 without calling this)."""
    check_real_mp("d_m", d_m, low=1)
    _check_summary(s)
    if s.lam0 < 0:
        raise ValueError(f"s.lam0 must be >= 0 (alpha^2 = (1 - delta) d_m lam0 eta_V), got {s.lam0}")
    check_choice("tau0_power", tau0_power, TAU0_POWERS)
    check_choice("init", init, INITS)
    check_prob("delta", delta)
    return _proxy_ratios_at(s, tau0_power, init, delta)(d_m)


def _proxy_ratios_at(
    s: DataSummary, tau0_power: float, init: str, delta: float
) -> Callable[[Any], tuple[Any, Any]]:
    """:func:`proxy_ratios` as a function of d_m for validated arguments: the terms free of d_m are
    evaluated once (the same mpf operations on the same operands, so the same values), for the many
    widths of :func:`required_width`."""
    with mpmath.workdps(DPS):
        d, d_s = mp(s.d), mp(s.d_s)
        k = mp(1) if init == "lecun" else mp(2)
        eQ = mp(1) if init == "ntk" else k / d  # = eK = eV
        sqrt_eQ, sqrt_d = mpmath.sqrt(eQ), mpmath.sqrt(d)
        minus_p, x6, c2sum, four_ds = -mp(tau0_power), mp(s.sum_x6), mp(s.sum_c2), 4 * d_s
        keep, lam0, y_sq, trG, three_halves = 1 - mp(delta), mp(s.lam0), mp(s.y_sq), mp(s.trG), mp(1.5)

    def at(d_m: Any) -> tuple[Any, Any]:
        with mpmath.workdps(DPS):
            dm = mp(d_m)
            if init == "ntk":
                eO = mp(1)
                t1sq = 1 / dm
            else:
                eO = k / dm
                t1sq = mp(1)
            nQ = sqrt_eQ * (mpmath.sqrt(dm) + sqrt_d)  # = nK = nV: eQ = eK = eV
            nO = mpmath.sqrt(eO * dm)
            lQ, lO = 2 * nQ, 2 * nO  # lQ = lK = lV
            lQ2 = lQ**2
            t0 = dm**minus_p
            sa2 = t0**2 * x6 * lQ2 * lQ2 / four_ds  # = sb2 (lK = lQ)
            rho = mpmath.sqrt(sa2 + sa2 + c2sum)
            z = mpmath.sqrt(t1sq * (c2sum * lQ2 + lO**2 * (c2sum + sa2 + sa2)))
            a2 = keep * dm * lam0 * eQ
            loss0 = (y_sq + t1sq * eO * dm * trG * eQ) / 2
            root = mpmath.sqrt(2 * loss0)
            c1 = min(nQ, nO) * t1sq * a2 / (8 * z * root)
            c2 = t1sq * a2**three_halves / (16 * rho * z * root)
            return c1, c2

    return at


@finite_result(may_be_inf=True)
def required_width(
    s: DataSummary,
    *,
    tau0_power: float,
    init: str = "lecun",
    delta: float = 0.5,
    which: str = "both",
    max_log10: float = 100.0,
) -> Any:
    """Smallest d_m (mpf) from which the chosen proxy conditions ("c1", "c2" or "both") hold on the
    log10-grid (step 1/2) up to 10^max_log10 (checked every 5 decades above the first success),
    refined by bisection on log10 d_m; ``mpmath.inf`` if they never hold there. The ratios grow like
    powers of d_m at large width; the coarse re-check guards against a non-monotone stretch.

    ``max_log10`` lies in [0, 1000] (:data:`MAX_LOG10_WIDTH`; the search costs ~0.3 s at the cap)."""
    check_choice("which", which, ("c1", "c2", "both"))
    check_prob("delta", delta)
    _check_summary(s)
    check_choice("tau0_power", tau0_power, TAU0_POWERS)
    check_choice("init", init, INITS)
    max_log10 = check_real("max_log10", max_log10, low=0.0, high=MAX_LOG10_WIDTH)
    if s.lam0 <= 0:
        return mpmath.inf

    ratios = _proxy_ratios_at(s, tau0_power, init, delta)  # validated above; d_m = 10^lg >= 1

    def ok(lg: Any) -> bool:
        c1, c2 = ratios(mpmath.power(10, lg))
        return {"c1": c1 >= 1, "c2": c2 >= 1, "both": c1 >= 1 and c2 >= 1}[which]

    with mpmath.workdps(DPS):
        n = int(max_log10 * 2)
        k = 0
        while True:
            while k <= n and not ok(mp(k) / 2):
                k += 1
            if k > n:
                return mpmath.inf
            # confirm on a coarser grid above the first success; restart past any failure
            bad = next((j for j in range(k + 10, n + 1, 10) if not ok(mp(j) / 2)), None)
            if bad is None:
                break
            k = bad + 1
        if k == 0:
            return mp(1)
        lo, hi = mp(k - 1) / 2, mp(k) / 2
        for _ in range(24):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if ok(mid) else (mid, hi)
        return mpmath.ceil(mpmath.power(10, hi))


@finite_result(may_be_inf=True)
def thm1_width(s: DataSummary, *, init: str = "lecun", delta: float = 0.5, which: str = "both") -> Any:
    """Theorem 1 (tau0 = d_m^-1/2): the width at which the reconstructed Prop. 1 conditions hold
    (claimed order N^2 [EXACT, abstract]; the conditions' own order is what the claims measure);
    ``mpmath.inf`` when the conditions never hold up to d_m = 1e100 (or lam0 <= 0)."""
    return required_width(s, tau0_power=0.5, init=init, delta=delta, which=which)


@finite_result(may_be_inf=True)
def thm2_width(s: DataSummary, *, init: str = "lecun", delta: float = 0.5, which: str = "both") -> Any:
    """Theorem 2 (tau0 = d_m^-1): as :func:`thm1_width` (claimed order N [EXACT-from-reviews]);
    ``mpmath.inf`` when the conditions never hold up to d_m = 1e100 (or lam0 <= 0)."""
    return required_width(s, tau0_power=1.0, init=init, delta=delta, which=which)


@finite_result
def thm2_min_dim(N: int) -> float:
    """N^4: the order at which Theorem 2 needs d to grow [EXACT-from-reviews; constant NOT RECOVERED,
    taken as 1 here]."""
    return float(check_int("N", N)) ** THM2_DIM_ORDER


# ---------------------------------------------------------------------------------------------------
# Limiting NTK under tau0 = d_m^-1 (derivations.md Sect. 5.5) [DERIVED]
# ---------------------------------------------------------------------------------------------------


@finite_result
def limiting_ntk(Xbar: np.ndarray, *, scale_O: float = 1.0, scale_V: float = 1.0) -> dict[str, np.ndarray]:
    """K_O = scale_O |x_n||x_m| kappa1(u), K_V = scale_V <x_n, x_m> kappa0(u) for token means Xbar
    (N, d). scale_O = tau1^2 d_m eta_V, scale_V = tau1^2 d_m eta_O (both 1 under NTK init)."""
    Xbar = check_array("Xbar", Xbar, ndim=2, nonempty=True)
    nrm, U = _cosines(Xbar)
    K_O = check_positive("scale_O", scale_O) * np.outer(nrm, nrm) * _kappa1(U)
    K_V = check_positive("scale_V", scale_V) * (Xbar @ Xbar.T) * _kappa0(U)
    return {"K_O": K_O, "K_V": K_V, "K": K_O + K_V}


@finite_result
def ntk_mineig_linear(Xbar: np.ndarray, *, scale_O: float = 1.0, scale_V: float = 1.0) -> float:
    """lambda_min(K_inf) >= (scale_O + scale_V)/4 sigma_min(Xbar)^2 (= 1/2 sigma_min^2 under NTK init)."""
    Xbar = check_array("Xbar", Xbar, ndim=2, nonempty=True)
    ev = max(float(np.linalg.eigvalsh(Xbar @ Xbar.T)[0]), 0.0)
    return (check_positive("scale_O", scale_O) + check_positive("scale_V", scale_V)) / 4 * ev


@finite_result
def ntk_mineig_hermite(Xbar: np.ndarray, r: int = 2, *, scale_O: float = 1.0) -> float:
    """lambda_min(K_O) >= scale_O mu_r^2 min_n |x_n|^2 lambda_min(U^{o r}), U the cosine matrix (even
    r in [2, 170], as :func:`relu_hermite_sq`)."""
    Xbar = check_array("Xbar", Xbar, ndim=2, nonempty=True)
    relu_hermite_sq(r)  # validates r before U**r is formed
    nrm, U = _cosines(Xbar)
    ev = float(np.linalg.eigvalsh(U**r)[0])
    return check_positive("scale_O", scale_O) * relu_hermite_sq(r) * float(np.min(nrm)) ** 2 * ev


@finite_result
def ntk_rate_bound(loss0: float, gamma: float, lam0: float, t: np.ndarray) -> np.ndarray:
    """(1 - gamma lam0 / 2)^t loss0 [RECONSTRUCTED, Du et al. style NTK-regime rate]; t: steps, whole
    numbers >= 0 (any shape)."""
    t = check_steps("t", t)
    q = 1 - check_positive("gamma", gamma) * check_real("lam0", lam0, low=0.0) / 2
    if q < 0:
        raise ValueError(f"gamma lam0 must be <= 2, got q = {q}")
    return check_real("loss0", loss0, low=0.0) * q**t


# ---------------------------------------------------------------------------------------------------
# Softmax Lipschitz facts [DERIVED]
# ---------------------------------------------------------------------------------------------------

#: ||diag(p) - p p^T||_2 <= 1/2 and the row-wise softmax is 1/2-Lipschitz in Frobenius norm.
SOFTMAX_LIP = 0.5


# ---------------------------------------------------------------------------------------------------
# Assumptions 1-4 as checkers (forms from the reviews; thresholds NOT RECOVERED)
# ---------------------------------------------------------------------------------------------------


@finite_result
def assumption1(X: np.ndarray) -> float:
    """A1 bounded data: returns C_x = max token norm (the assumption holds for any finite set; the
    paper's bound is NOT RECOVERED). X: (N, d_s, d)."""
    return float(np.max(np.linalg.norm(check_array("X", X, ndim=3, nonempty=True), axis=-1)))


@finite_result
def assumption2(X: np.ndarray) -> float:
    """A2 linearly independent tokens in each example: min_n sigma_min(X_n) (0 if some X_n has rank
    < d_s, always when d < d_s). X: (N, d_s, d)."""
    X = check_array("X", X, ndim=3, nonempty=True)
    if X.shape[1] > X.shape[2]:
        return 0.0
    return float(np.min(np.linalg.svd(X, compute_uv=False)[:, -1]))


@finite_result
def assumption3_covariance(X: np.ndarray) -> np.ndarray:
    """A3 as the reviews describe it: similarity of the empirical covariances X_i^T X_i, X_j^T X_j.
    Returns the off-diagonal cosines <C_i, C_j>_F / (|C_i|_F |C_j|_F), i < j (the paper's tail
    bound and its constant c-hat are NOT RECOVERED). X: (N, d_s, d) -> (N(N-1)/2,); every X_n must
    have a nonzero token (a zero covariance has no direction)."""
    X = check_array("X", X, ndim=3, nonempty=True)
    C = np.einsum("nsd,nse->nde", X, X).reshape(X.shape[0], -1)
    nrm = np.linalg.norm(C, axis=1, keepdims=True)
    if np.any(nrm == 0):
        raise ValueError(f"X: example {int(np.argmin(nrm[:, 0]))} has only zero tokens (its covariance is 0)")
    C /= nrm
    M = C @ C.T
    return M[np.triu_indices(X.shape[0], k=1)]


def _pooled_means(name: str, Z: Any) -> np.ndarray:
    Z = check_array(name, Z, ndim=2, nonempty=True)
    if not np.any(Z):
        raise ValueError(f"{name} must not be all zero (the ratio is 0/0)")
    return Z


@finite_result
def assumption3_pooled(Zbar: np.ndarray) -> float:
    """A3 as we reconstruct it (pooled-input reading, derivations.md Sect. 4): N sigma_min(Zbar)^2 /
    |Zbar|_F^2 (scale-free; 0 if N > d).
    Zbar: (N, d), rows = attention-weighted token means, not all zero."""
    Zbar = _pooled_means("Zbar", Zbar)
    ev = max(float(np.linalg.eigvalsh(Zbar @ Zbar.T)[0]), 0.0)
    total = float(np.sum(Zbar * Zbar))
    if total == 0:
        raise OverflowError("|Zbar|_F^2 underflows to 0")
    return Zbar.shape[0] * ev / total


@finite_result
def assumption4(Xbar: np.ndarray) -> float:
    """A4 (tau0 = d_m^-1) positive definiteness, read as lambda_min(Xbar Xbar^T) > 0 for the token
    means (the limit of A3 when the attention is uniform); returns N lambda_min / tr."""
    return assumption3_pooled(_pooled_means("Xbar", Xbar))


@finite_result
def slope_window(claimed: float, half: float) -> list[float]:
    """[claimed - half, claimed + half] (our pass windows on fitted slopes); half >= 0."""
    claimed, half = check_real("claimed", claimed), check_real("half", half, low=0.0)
    return [claimed - half, claimed + half]
