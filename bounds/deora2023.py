"""Theory side of Deora, Ghaderi, Taheri, Thrampoulidis (TMLR 2024, arXiv 2310.12680).

The paper body could not be read (only its abstract, summaries and reviews): the paper's own
constants are NOT RECOVERED. Every function says which formula it evaluates and its tag:

* DERIVED (sections 3-7 of verify/deora2023/derivations.md): bounds proved there for the reconstructed model
  Phi = (1/sqrt(H)) sum_h <U_h, softmax(X W_h X^T) X>; tested as hard properties.
* RECONSTRUCTED (sections 5.1, 6.1, 7.2): the most likely paper form (from Taheri & Thrampoulidis);
  tested by shape only. These are OUR reconstructions, never the paper's statements.

Notation: T tokens, d dimension, H heads, n samples, K GD steps, eta step size, R = max token norm,
u = max_h ||U_h||_F (value norm), ubar0 = its value at theta_0.
Magnitudes that can be huge (required head counts) are mpmath ``mpf``.
"""

from __future__ import annotations

import math

import mpmath

from bounds.checks import (
    check_bool,
    check_choice,
    check_int,
    check_positive,
    check_prob,
    check_real,
    finite_result,
)
from bounds.mp import DPS, MpReal, mp

# ----------------------------------------------------------------------------------------------
# section 3.1: softmax facts [DERIVED]

#: ||diag(s) - s s^T||_2 <= 1/2 for every probability vector s.
SOFTMAX_JACOBIAN_NORM = 0.5


@finite_result
def variance_bound(value_range: float) -> float:
    """Popoviciu: Var_s(a) <= range(a)^2 / 4."""
    r = check_real("value_range", value_range, low=0.0)
    return r * r / 4.0


@finite_result
def kappa3_bound(range_v: float, range_b: float) -> float:
    """|kappa3_s(v, b, b)| <= range(v) range(b)^2 / 4 (third central mixed moment under s)."""
    rv, rb = check_real("range_v", range_v, low=0.0), check_real("range_b", range_b, low=0.0)
    return rv * rb * rb / 4.0


# ----------------------------------------------------------------------------------------------
# sections 3.2, 3.3: model-level gradient and Hessian bounds [DERIVED]


@finite_result
def grad_bound_sq(T: int, R: float, mean_sq_value_norm: float) -> float:
    """beta_2(theta)^2 = T R^2 + T R^6 (1/H) sum_h ||U_h||_F^2 >= ||grad Phi(theta; X)||^2 (Sec. 3.2).

    mean_sq_value_norm: (1/H) sum_h ||U_h||_F^2. For the single-query variant V1 pass T = 1.
    """
    T = check_int("T", T)
    R = check_real("R", R, low=0.0)
    m = check_real("mean_sq_value_norm", mean_sq_value_norm, low=0.0)
    return T * R**2 + T * R**6 * m


@finite_result
def beta3(T: int, R: float, max_value_norm: float) -> float:
    """beta_3(theta) = sqrt(T) R^3 (1 + 2 R^2 max_h ||U_h||_F) (Sec. 3.3); V1: T = 1."""
    T = check_int("T", T)
    R = check_real("R", R, low=0.0)
    u = check_real("max_value_norm", max_value_norm, low=0.0)
    return math.sqrt(T) * R**3 * (1.0 + 2.0 * R**2 * u)


@finite_result
def hess_bound(T: int, R: float, max_value_norm: float, H: int) -> float:
    """||grad^2 Phi(theta; X)||_2 <= beta_3(theta) / sqrt(H) (Sec. 3.3)."""
    return beta3(T, R, max_value_norm) / math.sqrt(check_int("H", H))


@finite_result
def beta2_ball(T: int, R: float, U0_fro: float, r: float, H: int) -> float:
    """beta_2(r) = sqrt(T R^2 + T R^6 (||U_0||_F + r)^2 / H): gradient bound on ||theta - theta_0|| <= r."""
    U0 = check_real("U0_fro", U0_fro, low=0.0)
    r = check_real("r", r, low=0.0)
    H = check_int("H", H)
    return math.sqrt(grad_bound_sq(T, R, (U0 + r) ** 2 / H))


@finite_result
def beta3_ball(T: int, R: float, ubar0: float, r: float) -> float:
    """beta_3(r) = sqrt(T) R^3 (1 + 2 R^2 (ubar_0 + r)) on the ball of radius r around theta_0."""
    return beta3(T, R, check_real("ubar0", ubar0, low=0.0) + check_real("r", r, low=0.0))


# ----------------------------------------------------------------------------------------------
# section 4.1: loss-level self-bounded properties [DERIVED]


@finite_result
def sb_grad_bound(beta2: float, L: float) -> float:
    """Self-bounded gradient: ||grad L(theta)|| <= beta_2 L(theta), beta_2 = max_i ||grad Phi_i||."""
    return check_real("beta2", beta2, low=0.0) * check_real("L", L, low=0.0)


@finite_result
def weak_convexity_modulus(beta3_value: float, H: int) -> float:
    """kappa = beta_3 / sqrt(H): lambda_min(grad^2 L) >= -kappa L (self-bounded weak convexity)."""
    return check_real("beta3_value", beta3_value, low=0.0) / math.sqrt(check_int("H", H))


@finite_result
def smoothness_bounds(beta2: float, beta3_value: float, H: int, L: float) -> tuple[float, float]:
    """(self-bounded, global) smoothness of the logistic empirical risk:
    ||grad^2 L|| <= (beta_2^2 + beta_3/sqrt(H)) L   and   ||grad^2 L|| <= beta_2^2/4 + beta_3/sqrt(H)."""
    b2 = check_real("beta2", beta2, low=0.0)
    k = weak_convexity_modulus(beta3_value, H)
    return (b2 * b2 + k) * check_real("L", L, low=0.0), b2 * b2 / 4.0 + k


# ----------------------------------------------------------------------------------------------
# section 4.2: generalized local quasi-convexity [DERIVED]


@finite_result
def qc_a(c: float) -> float:
    """a = c / (2 - c) for c = kappa D^2 in [0, 1)."""
    c = check_real("c", c, low=0.0, high=1.0, high_open=True)
    return c / (2.0 - c)


@finite_result
def qc_segment_max(L_max_endpoints: float, c: float) -> float:
    """max over the segment of L <= max(L(theta), L(theta')) / (1 - c/2)."""
    c = check_real("c", c, low=0.0, high=1.0, high_open=True)
    return check_real("L_max_endpoints", L_max_endpoints, low=0.0) / (1.0 - c / 2.0)


@finite_result
def qc_inner_lower(L: float, L_prime: float, c: float) -> float:
    """<grad L(theta), theta - theta'> >= (1 - a) L(theta) - (1 + a) L(theta'), a = c/(2-c)."""
    a = qc_a(c)
    return (1.0 - a) * check_real("L", L, low=0.0) - (1.0 + a) * check_real("L_prime", L_prime, low=0.0)


# ----------------------------------------------------------------------------------------------
# section 5.2: Theorem D-train [DERIVED]


@finite_result
def dtrain_bound(L_ref: float, D0: float, eta: float, K: int, c: float, L0: float, LK: float) -> float:
    """(1/K) sum_{k<K} L_k <= ((1+a)/(1-a)) L(theta_ref) + D_0^2/(2 eta (1-a) K) + (L_0 - L_K)/((1-a) K)."""
    a = qc_a(c)
    K = check_int("K", K)
    eta = check_positive("eta", eta)
    L_ref, D0 = check_real("L_ref", L_ref, low=0.0), check_real("D0", D0, low=0.0)
    L0, LK = check_real("L0", L0, low=0.0), check_real("LK", LK, low=0.0)
    return (1 + a) / (1 - a) * L_ref + D0**2 / (2 * eta * (1 - a) * K) + (L0 - LK) / ((1 - a) * K)


@finite_result
def dtrain_dbar_sq(D0: float, eta: float, a: float, K: int, L_ref: float, L0: float) -> float:
    """D_k^2 <= D_0^2 + 2 eta (1 + a) K L(theta_ref) + 2 eta L_0 =: Dbar^2 for all k <= K."""
    check_real("a", a, low=0.0, high=1.0)
    return (
        check_real("D0", D0, low=0.0) ** 2
        + 2 * check_positive("eta", eta) * (1 + a) * check_int("K", K) * check_real("L_ref", L_ref, low=0.0)
        + 2 * eta * check_real("L0", L0, low=0.0)
    )


@finite_result
def convex_limit(L_ref: float, D0: float, eta: float, K: int, L0: float, LK: float = 0.0) -> float:
    """The H -> infinity limit of the D-train bound: L(theta_ref) + D_0^2/(2 eta K) + (L_0 - L_K)/K."""
    return dtrain_bound(L_ref, D0, eta, K, 0.0, L0, LK)


def _worst_case_c(
    H: int, T: int, R: float, ubar0: float, D0: float, eta: float, K: int, L_ref: float, L0: float
) -> MpReal:
    """c(H) = beta_3(D_0 + Dbar) Dbar^2 / sqrt(H) with the conservative a = 1 inside Dbar (valid for
    every c < 1). The segments [theta_k, theta_ref] lie in the ball of radius D_0 + Dbar around theta_0."""
    dbar_sq = dtrain_dbar_sq(D0, eta, 1.0, K, L_ref, L0)
    b3 = beta3_ball(T, R, ubar0, D0 + math.sqrt(dbar_sq))
    with mpmath.workdps(DPS):
        return mp(b3) * mp(dbar_sq) / mpmath.sqrt(check_int("H", H))


@finite_result(may_be_inf=True)
def dtrain_worst_case(
    H: int, T: int, R: float, ubar0: float, D0: float, eta: float, K: int, L_ref: float, L0: float
) -> MpReal:
    """The D-train bound with the worst-case modulus kappa = beta_3(r)/sqrt(H) of Sec. 3.3 (L_K
    dropped, i.e. the largest value); ``mpmath.inf`` where c(H) >= 1 and the theorem says nothing."""
    c = _worst_case_c(H, T, R, ubar0, D0, eta, K, L_ref, L0)
    if c >= 1 or float(c) >= 1:  # c within half an ulp of 1 also says nothing
        return mpmath.inf
    return mp(dtrain_bound(L_ref, D0, eta, K, float(c), L0, 0.0))


@finite_result
def required_heads(
    T: int, R: float, ubar0: float, D0: float, eta: float, K: int, L_ref: float, L0: float, c: float = 0.5
) -> MpReal:
    """Worst-case sufficient head count of Sec. 5.2 for P2 with modulus c (default 1/2):
    sqrt(H) >= beta_3(D_0 + Dbar) Dbar^2 / c, i.e. H >= (beta_3 Dbar^2 / c)^2 (mpf)."""
    c = check_real("c", c, low=0.0, high=1.0, low_open=True, high_open=True)
    dbar_sq = dtrain_dbar_sq(D0, eta, qc_a(c), K, L_ref, L0)
    b3 = beta3_ball(T, R, ubar0, D0 + math.sqrt(dbar_sq))
    with mpmath.workdps(DPS):
        return (mp(b3) * mp(dbar_sq) / mp(c)) ** 2


@finite_result
def paper_form_train_bound(L_ref: float, dist: float, eta: float, K: int) -> float:
    """[RECONSTRUCTED, constants NOT CONFIRMED]
    L(theta_K) <= 2 L(theta) + (5/4) ||theta - theta_0||^2 / (eta K)."""
    return 2.0 * check_real("L_ref", L_ref, low=0.0) + 1.25 * check_real("dist", dist, low=0.0) ** 2 / (
        check_positive("eta", eta) * check_int("K", K)
    )


# ----------------------------------------------------------------------------------------------
# section 6: generalization [DERIVED Theorem D-gen; RECONSTRUCTED paper form]


@finite_result
def gen_premise(Gamma: float, beta2: float, eta: float, K: int, n: int) -> bool:
    """Premise of D-gen: Gamma beta_2^2 eta K <= n / 2."""
    return (
        check_real("Gamma", Gamma, low=1.0)
        * check_real("beta2", beta2, low=0.0) ** 2
        * check_positive("eta", eta)
        * check_int("K", K)
        <= check_int("n", n) / 2.0
    )


@finite_result
def gen_bound(Gamma: float, beta2: float, eta: float, n: int, sum_mean_losses: float) -> float:
    """E[L(theta_K)] - E[L_hat(theta_K)] <= (4 Gamma beta_2^2 eta / n) sum_{k<K} E L_hat(theta_k)."""
    return (
        4.0
        * check_real("Gamma", Gamma, low=1.0)
        * check_real("beta2", beta2, low=0.0) ** 2
        * check_positive("eta", eta)
        / check_int("n", n)
        * check_real("sum_mean_losses", sum_mean_losses, low=0.0)
    )


@finite_result
def paper_form_gen_rate(g: float, eta: float, K: int, n: int, beta2: float) -> float:
    """[RECONSTRUCTED order, constants ours] E L(theta_K) = O(g^2/(eta K) + beta_2^2 (eta + g^2)/n);
    returned without the O(.) constant."""
    g = check_real("g", g, low=0.0)
    eta = check_positive("eta", eta)
    return g * g / (eta * check_int("K", K)) + check_real("beta2", beta2, low=0.0) ** 2 * (
        eta + g * g
    ) / check_int("n", n)


# ----------------------------------------------------------------------------------------------
# section 7: NTK separability => realizability [DERIVED], rates [RECONSTRUCTED form]


@finite_result
def g_eps_full(B0: float, eps: float, gamma: float) -> float:
    """g(eps) = lambda_eps = 2 (B_0 + log(1/eps)) / gamma (full theta_*, needs the H premise)."""
    return (
        2.0
        * (check_real("B0", B0, low=0.0) + math.log(1.0 / check_prob("eps", eps)))
        / check_positive("gamma", gamma)
    )


@finite_result
def g_eps_U(B0: float, eps: float, gamma_U: float) -> float:
    """g(eps) = (B_0 + log(1/eps)) / gamma_U (theta_* on the U block only; exact, any H)."""
    return (check_real("B0", B0, low=0.0) + math.log(1.0 / check_prob("eps", eps))) / check_positive(
        "gamma_U", gamma_U
    )


@finite_result
def taylor_remainder_bound(lam: float, H: int, beta3_lam: float) -> float:
    """(lambda^2 / (2 sqrt(H))) beta_3(lambda): the second-order loss in y Phi(theta_0 + lambda theta_*)."""
    lam = check_real("lam", lam, low=0.0)
    return lam * lam / (2.0 * math.sqrt(check_int("H", H))) * check_real("beta3_lam", beta3_lam, low=0.0)


@finite_result
def realizability_heads(lam: float, beta3_lam: float, gamma: float) -> MpReal:
    """The H premise of Sec. 7.1: sqrt(H) >= lambda beta_3(lambda) / gamma, as a required H (mpf)."""
    with mpmath.workdps(DPS):
        return (
            mp(check_real("lam", lam, low=0.0))
            * mp(check_real("beta3_lam", beta3_lam, low=0.0))
            / mp(check_positive("gamma", gamma))
        ) ** 2


@finite_result
def ntk_train_rate(K: int, B0: float, gamma: float, eta: float, L0: float, U_only: bool = False) -> float:
    """[explicit numbers DERIVED, Õ(1/K) form RECONSTRUCTED] D-train with c = 1/2 and eps = 1/K:
    L(theta_K) <= (1/K) [2 + 3 (B_0 + log K)^2 / (eta gamma^2) + 1.5 L_0]  (U-only: 3/(4 ...))."""
    K = check_int("K", K)
    B0, gamma = check_real("B0", B0, low=0.0), check_positive("gamma", gamma)
    eta, L0 = check_positive("eta", eta), check_real("L0", L0, low=0.0)
    coef = 0.75 if check_bool("U_only", U_only) else 3.0
    return (2.0 + coef * (B0 + math.log(K)) ** 2 / (eta * gamma**2) + 1.5 * L0) / K


# ----------------------------------------------------------------------------------------------
# section 9.2: mixture margins at W = 0 [DERIVED]


@finite_result
def mixture_margin_U(zeta: float, S: float, T: int, variant: str) -> float:
    """U-part NTK margin at W_0 = 0, sigma = 0: zeta S sqrt(T/2) (variant O), zeta S sqrt(T) (A)."""
    zeta = check_real("zeta", zeta, low=0.0, high=1.0, low_open=True)
    S, T = check_positive("S", S), check_int("T", T)
    check_choice("variant", variant, ("O", "A"))
    if variant == "O":
        return zeta * S * math.sqrt(T / 2.0)
    if variant == "A":
        return zeta * S * math.sqrt(T)
    raise ValueError(f"variant must be one of ('O', 'A'), got {variant!r}")


@finite_result
def mixture_margin_noisy_lower(zeta: float, S: float, T: int, sigma: float, n: int, delta: float) -> float:
    """With probability >= 1 - delta (variant O):
    gamma_U >= sqrt(T) zeta S / sqrt(2) - sigma sqrt(2 log(n / delta))."""
    base = mixture_margin_U(zeta, S, T, "O")
    sigma = check_real("sigma", sigma, low=0.0)
    return base - sigma * math.sqrt(2.0 * math.log(check_int("n", n) / check_prob("delta", delta)))


@finite_result
def ideal_attention_margin(S: float, T: int) -> float:
    """Margin if every head attended only to relevant tokens (variant O): S sqrt(T/2) = gamma_U / zeta."""
    return check_positive("S", S) * math.sqrt(check_int("T", T) / 2.0)
