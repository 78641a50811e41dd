"""Theory side of Zhang, Zhao, Gu, Cao (ICLR 2026, arXiv 2603.22801): rates, constants, conditions.

Reconstructed from the abstract, reviews and summaries. The paper's own constants (T*, the upper /
lower constants of the Theta(1/T) rate, the epsilon of Thm 3.2) are NOT RECOVERED; what is here is
either the paper's shape (exponents; EXACT-from-reviews), the reconstruction of its conditions
(RECONSTRUCTED), or exact facts of the reference model derived for it (DERIVED). Every function says
which. Parametrisation:
Lam = P^T W_KQ P / sqrt(D), P^T P = I, column softmax, 1/2-normalised squared loss, zero init.
The derivations are in ``verify/zhang2026/derivations.md`` (cited below as "derivations.md Sect. N").
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import mpmath
import numpy as np

from bounds.checks import check_int, check_positive, check_real, finite_result
from bounds.mp import DPS, MpReal, mp

#: Thm 3.1(c) [P]: excess(T) = Theta(T^RATE_EXPONENT).
RATE_EXPONENT = -1.0
#: Thm 3.1(a) via derivations.md Sect. 6.2 [D]: ||A^(T) - S*||_F ~ T^RECOVERY_EXPONENT.
RECOVERY_EXPONENT = -0.5
#: Secondary note [S]: excess = Theta(K D^4 / (eta T)), i.e. exponent 4 in D at fixed K.
NOTE_D_EXPONENT = 4.0
#: Thm 3.1(d) [P] (reviewers): T* grows like D^2 and like ||V*||^-2.
TSTAR_D_EXPONENT = 2.0
TSTAR_V_EXPONENT = -2.0
#: derivations.md Sect. 5.4 [D]: L_OOD - A_T = B(T) = O(1/T) when OOD labels are teacher plus
#: independent noise.
OOD_SLOPE_INDEPENDENT = -1.0
#: derivations.md Sect. 5.4 [D]: L_OOD - A_T = Theta(T^-1/2) under the worst label law of Thm 3.2's class
#: (response columns with bounded second moments [S]) at a fixed teacher OOD loss A_T > 0: the order of our
#: derived slack eps(T) = B + 2 sqrt(A_T B) of the theorem's inequality, which that law attains (the
#: paper's own eps(T) is NOT RECOVERED).
OOD_SLOPE_WORST = -0.5


def _check_dk(D: int, K: int) -> tuple[int, int]:
    D = check_int("D", D, low=2)
    return D, check_int("K", K, low=1, high=D - 1)


@finite_result
def tail_constant(D: int, K: int | Sequence[int], eta: float) -> MpReal:
    """DERIVED (derivations.md Sect. 6.3): lim_T T * excess(T) = sum_i K_i (D - K_i) / (4 eta).

    K: one support size (every column) or the D per-column sizes K_i. Independent of ||V*||, M, d,
    sx2, the noise and P; holds for any positive column-stochastic weights on the supports.
    """
    D = check_int("D", D, low=2)
    eta = check_positive("eta", eta)
    if isinstance(K, numbers.Integral) and not isinstance(K, bool):
        k = check_int("K", K, low=1, high=D - 1)
        with mpmath.workdps(DPS):  # D equal columns: D K (D - K), exact integer arithmetic
            return mp(D * k * (D - k)) / (4 * mp(eta))
    if not isinstance(K, Sequence | np.ndarray) or isinstance(K, str):
        raise TypeError(f"K must be one int or a sequence of D = {D} ints, got {type(K).__name__}")
    ks = list(K)
    if len(ks) != D:
        raise ValueError(f"K must be one int or D = {D} per-column sizes, got {len(ks)}")
    ks = [check_int(f"K[{i}]", k, low=1, high=D - 1) for i, k in enumerate(ks)]
    with mpmath.workdps(DPS):
        return mpmath.fsum(mp(k) * (D - k) for k in ks) / (4 * mp(eta))


@finite_result
def kappa(D: int, K: int, eta: float, sx2: float, v2: float) -> MpReal:
    """DERIVED (derivations.md Sect. 6.2): eps_{t+1} - eps_t ~ -kappa eps_t^3 with
    kappa = eta sx2 ||V*||^2 / (K (D-K)^2)."""
    D, K = _check_dk(D, K)
    eta, sx2, v2 = check_positive("eta", eta), check_positive("sx2", sx2), check_positive("v2", v2)
    with mpmath.workdps(DPS):
        return mp(eta) * sx2 * v2 / (K * mp(D - K) ** 2)


@finite_result
def onset_T0(D: int, K: int, eta: float, sx2: float, v2: float) -> MpReal:
    """DERIVED proxy for the paper's T* (derivations.md Sect. 6.4):
    T_0 = 1/(2 kappa) = K (D-K)^2 / (2 eta sx2 ||V*||_F^2).

    The paper's T* itself is NOT RECOVERED; the reviewers report only its shape (~D^2, ~1/||V*||^2).
    """
    with mpmath.workdps(DPS):
        return 1 / (2 * kappa(D, K, eta, sx2, v2))


@finite_result
def eps_asymptotic(T: float, D: int, K: int, eta: float, sx2: float, v2: float) -> MpReal:
    """DERIVED (derivations.md Sect. 6.2): off-support attention mass eps(T) ~ (2 kappa T)^(-1/2)."""
    T = check_positive("T", T)
    with mpmath.workdps(DPS):
        return 1 / mpmath.sqrt(2 * kappa(D, K, eta, sx2, v2) * T)


@finite_result
def deqk_excess(t: int, eta: float, sx2: float, v2: float) -> MpReal:
    """DERIVED (derivations.md Sect. 6.5), D = K: W_KQ = 0 and
    excess(t) = 1/2 sx2 ||V*||^2 (1 - eta sx2)^(2t) exactly."""
    t = check_int("t", t, low=0)
    eta, sx2, v2 = check_positive("eta", eta), check_positive("sx2", sx2), check_positive("v2", v2)
    with mpmath.workdps(DPS):
        return mp(sx2) * v2 / 2 * (1 - mp(eta) * sx2) ** (2 * t)


@finite_result
def c1_first_step(eta: float, sx2: float) -> MpReal:
    """DERIVED (derivations.md Sect. 5.3): C1(1) = eta sx2 for a column-stochastic S* (linear sigma,
    zero init)."""
    return mp(check_positive("eta", eta)) * check_positive("sx2", sx2)


@finite_result
def kq_level_ratio(D: int, K: int) -> MpReal:
    """DERIVED (derivations.md Sect. 5.3): C2 / C3 = (D - K) / K exactly (softmax gradients sum to 0 per
    column)."""
    D, K = _check_dk(D, K)
    return mp(D - K) / K


@finite_result
def ood_B_op_bound(v_op: float, delta_op: float, ex2: float) -> MpReal:
    """DERIVED (derivations.md Sect. 5.4 (ii)): B(T) <= 1/2 ||V*||_op^2 ||S* - C1 A||_op^2 E||X~||_F^2
    (any X~)."""
    v_op = check_real("v_op", v_op, low=0.0)
    delta_op = check_real("delta_op", delta_op, low=0.0)
    ex2 = check_real("ex2", ex2, low=0.0)
    with mpmath.workdps(DPS):
        return mp(v_op) ** 2 * mp(delta_op) ** 2 * ex2 / 2


@finite_result
def ood_B_exact(
    tr_vsv: float, sx2: float, v2: float, excess_id: float, D: int, C1: float, vmu2: float
) -> MpReal:
    """DERIVED (derivations.md Sect. 5.4 (iii)), iid tokens of covariance Sigma and mean mu_x, linear sigma:
    B = tr(V* Sigma V*^T) / (sx2 ||V*||^2) * excess_ID + (D/2) (1 - C1)^2 ||V* mu_x||^2."""
    D = check_int("D", D, low=1)
    tr_vsv, vmu2 = check_real("tr_vsv", tr_vsv, low=0.0), check_real("vmu2", vmu2, low=0.0)
    sx2, v2 = check_positive("sx2", sx2), check_positive("v2", v2)
    excess_id, C1 = check_real("excess_id", excess_id, low=0.0), check_real("C1", C1)
    with mpmath.workdps(DPS):
        return mp(tr_vsv) / (mp(sx2) * v2) * excess_id + mp(D) / 2 * (1 - mp(C1)) ** 2 * vmu2


@finite_result
def ood_upper(A_T: float, B_T: float) -> MpReal:
    """DERIVED (derivations.md Sect. 5.4 (i), Cauchy-Schwarz): L_OOD <= (sqrt(A_T) + sqrt(B(T)))^2."""
    A_T, B_T = check_real("A_T", A_T, low=0.0), check_real("B_T", B_T, low=0.0)
    with mpmath.workdps(DPS):
        return (mpmath.sqrt(mp(A_T)) + mpmath.sqrt(mp(B_T))) ** 2


@finite_result
def eta_paper(M: int, D: int, const: float = 1.0) -> MpReal:
    """RECONSTRUCTED (derivations.md Sect. 5.1, A5 [S]): eta <= const / (M D^(5/2)); the constant is NOT
    RECOVERED (1 here)."""
    M, D = check_int("M", M), check_int("D", D)
    with mpmath.workdps(DPS):
        return mp(check_positive("const", const)) / (M * mp(D) ** mpmath.mpf(2.5))


@finite_result
def eta_heuristic(D: int, K: int, sx2: float, v2: float) -> MpReal:
    """DERIVED heuristic (derivations.md Sect. 6.9): eta <= 1/2 min(K / (sx2 D), D K / (sx2 ||V*||_F^2)).

    From the curvature of the C1 dynamics (eta sx2 ||A||_F^2 < 2 with ||A||_F^2 -> D/K) and of the logit
    dynamics; not a proven bound.
    """
    D = check_int("D", D, low=2)
    K = check_int("K", K, low=1, high=D)
    sx2, v2 = check_positive("sx2", sx2), check_positive("v2", v2)
    with mpmath.workdps(DPS):
        return min(mp(K) / (sx2 * D), mp(D) * K / (sx2 * v2)) / 2


@finite_result
def dimension_condition(M: int, K: int) -> None:
    """NOT RECOVERED (derivations.md Sect. 5.1, A4): D >= Omega(poly(M, K)); the polynomial is unknown,
    so nothing to evaluate."""
    check_int("M", M), check_int("K", K)
    raise NotImplementedError("the paper's dimension condition D >= poly(M, K) is NOT RECOVERED")
