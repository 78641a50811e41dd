"""Sec. 3.3 and Lemma 4 (eqs. (20), (23)-(25)): the limit map is ridge regression with penalty m tau,
the paper's 'best' ridge (penalty N tau) from Lemma 4, and the role of N versus m."""

from __future__ import annotations

import math

import numpy as np

from bounds import yang2024 as B
from verify.core import (
    Choice,
    Ctx,
    Evidence,
    Expect,
    Kind,
    Profiles,
    Provenance,
    Report,
    Rule,
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.numerics.stats import rechecked_z
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024.claims.common import AFTER_THEOREM_2, FULL_TEXT

SE_WINDOW = Rule(4, "Monte-Carlo agreement in standard errors", "attncheck")


def _random_ridge_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    m, N, KQ = int(rng.integers(2, 30)), int(rng.integers(2, 40)), int(rng.integers(1, 30))
    tau = float(10 ** rng.uniform(-3, 0))
    return rng.standard_normal((m, N)), rng.standard_normal((m, KQ)), rng.standard_normal((3, N)), tau


_RIDGE_EQUIV_CHOICES = {
    "tol": Choice(
        Rule(1e-9, "an exact identity, relative to the predictions' scale", "reconstruction pass criterion"),
        range=(1e-12, 1e-7),
        reason="the push-through identity to round-off: 1e-12 to 1e-7 relative",
    )
}


@claim(
    "yang2024.ridge_equiv",
    Source(
        "Theorem 2, eqs. (20), (22); Sec. 3.3 (push-through identity); derivation Sect. 6.1",
        Provenance.DERIVED,
        quote=AFTER_THEOREM_2,
    ),
    kind=Kind.UPPER,
    statement="A^T y = (y, Z_Q^T (Z Z^T + m tau I)^{-1} Z y): copy plus ridge with penalty m tau",
    profiles=Profiles(quick={"cases": 60}, paper={"cases": 1000}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_RIDGE_EQUIV_CHOICES,
    report=Report(
        r"$A^\top y=(y,\,Z_Q^\top(ZZ^\top+m\tau I)^{-1}Zy)$: copy the prompt labels, ridge regression with "
        r"penalty $m\tau$ for the rest"
    ),
)
def ridge_equiv(ctx: Ctx, *, cases: int) -> Evidence:
    """Yang et al. 2024, Theorem 2 / eq. (20): the limit map is ridge regression; kind upper; DERIVED;
    every seed. Consistency check: the push-through identity G^{-1} Z^T = Z^T (Z Z^T + m tau I)^{-1}
    holds for every Z, so no model or data can break it; it tests bounds.target_matrix against
    bounds.transformer_ridge.

    theory: rule ``tol``; measured: max over ``cases`` random (m, N, K-N, tau), both N < m and N > m,
    of max|A^T y - (y, Z_Q^T lambda-hat)| / max(1, max|y-hat*|), with A from bounds.target_matrix
    (N-space) and lambda-hat from bounds.transformer_ridge (m-space).
    """
    rng = ctx.rng(4)
    worst, n_lt, n_gt = 0.0, 0, 0
    for _ in range(cases):
        Z, Z_Q, y, tau = _random_ridge_case(rng)
        n_lt += Z.shape[1] < Z.shape[0]
        n_gt += Z.shape[1] > Z.shape[0]
        ref = B.ridge_predictions(Z, Z_Q, y, B.transformer_ridge(Z, y, tau))
        got = B.limit_predictor(B.target_matrix(Z, Z_Q, tau), y)
        worst = max(worst, float(np.max(np.abs(got - ref)) / max(1.0, float(np.max(np.abs(ref))))))
    return Evidence(
        theory=ctx.rule("tol"), measured=worst, notes=[f"{cases} cases: {n_lt} with N < m, {n_gt} with N > m"]
    )


_LEMMA4_SOURCE = FULL_TEXT + (
    "Sec. 3.2, eq. (24): lambda-hat_tau := argmin_lambda E_eps [1/(2N) sum_i (y_i - lambda^T (f(v_i) + "
    "eps_i))^2], 'equivalent to the following ridge regression problem (see Lemma 4 ...)' ((25) is lost in "
    "the copy)"
)
_LEMMA4_CHOICES = {
    "se_window": Choice(
        SE_WINDOW, range=(3, 5), reason="Monte-Carlo agreement: within 3 to 5 standard errors"
    )
}


@claim(
    "yang2024.lemma4",
    Source("Lemma 4, eqs. (24)-(25); derivation Sect. 4", Provenance.DERIVED, quote=_LEMMA4_SOURCE),
    kind=Kind.UPPER,
    statement="E over feature noise of (24) equals the ridge objective (25) with (tau/2)||lambda||^2",
    profiles=Profiles(quick={"config": "small", "draws": 100_000, "grid": 8}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    rules={
        "batches": Rule(
            50,
            "batch means behind the SE of the Monte-Carlo argmin: with 49 degrees of freedom the estimated "
            "SE is itself accurate, so se_window SE is a ~2e-4 two-sided tail per coordinate",
            "attncheck",
        )
    },
    choices=_LEMMA4_CHOICES,
    report=Report(
        r"Lemma 4: the expectation of (24) over the feature noise is the ridge objective (25), "
        r"$\frac1{2N}\|y-Z^\top\lambda\|^2+\frac\tau2\|\lambda\|^2$"
    ),
)
def lemma4(ctx: Ctx, *, config: str, draws: int, grid: int) -> Evidence:
    """Yang et al. 2024, Lemma 4 (statement EXACT, closed form DERIVED); kind upper; every seed.
    Consistency check: a closed form against its own Monte Carlo (E over eps-tilde of a quadratic),
    true for every Z, y and lambda; it tests bounds.lemma4_objective and bounds.best_ridge.

    theory: 1; measured: the larger of (i) max over ``grid`` random lambda of |MC - closed form| /
    (k SE), MC over ``draws`` feature-noise draws eps-tilde_i ~ N(0, tau I), and (ii) max over the m
    coordinates of |argmin of the Monte-Carlo quadratic - bounds.best_ridge| / (k SE), the SE from
    rule ``batches`` batch means (k: rule ``se_window``). Both parts are at most 1 when the lemma
    holds; a larger z is measured again on 10 times the draws, which decide (the argmin is a ratio of
    Monte Carlo means: ``verify.numerics.stats.rechecked_z``). (A fixed 1e-3 relative tolerance on the
    argmin ignores the Monte-Carlo error; the relative distance is reported.)
    """
    p = E.problem_for(ctx.seed, D.Config.named(config))
    rng = ctx.rng(18)
    y = p.Z.T @ rng.standard_normal(p.m) + 0.3 * rng.standard_normal(p.N)
    lams = rng.standard_normal((grid, p.m))
    cf = B.lemma4_objective(p.Z, y, lams, p.tau)
    lam_cf = B.best_ridge(p.Z, y, p.tau)

    def z_of(n: int, stage: int) -> tuple[float, str]:
        mc = E.lemma4_monte_carlo(p, y, lams, n, ctx.rule("batches"), ctx.rng(19) if stage else rng)
        z = float(np.max(np.abs(mc.mean - cf) / mc.se))
        rel = float(np.linalg.norm(mc.argmin - lam_cf) / np.linalg.norm(lam_cf))
        se_arg = np.std(mc.batch_argmins, axis=0, ddof=1) / math.sqrt(len(mc.batch_argmins))
        z_arg = float(np.max(np.abs(mc.argmin - lam_cf) / se_arg))
        what = f"max |MC - closed form| = {z:.3g} SE over {grid} lambdas; argmin off by {z_arg:.3g} SE"
        return max(z, z_arg), f"{what} (relative distance {rel:.3g})"

    z, what = rechecked_z(z_of, draws, ctx.rule("se_window"))
    return Evidence(theory=1.0, measured=z / ctx.rule("se_window"), notes=[what])


def _shapes_repdim(rng: np.random.Generator) -> tuple[int, int, float]:
    m = int(rng.integers(2, 25))
    N = int(rng.integers(2, 40))
    return m, N, float(10 ** rng.uniform(-3, 0))


_REPDIM_SOURCE = FULL_TEXT + (
    "end of Sec. 3.2: 'When N < m, the transformer tends to underfit by choosing a lambda with small "
    "l2-norm; when N > m, the transformer tends to overfit since it underestimates the noise level'; (20) "
    "and (25) differ 'only' in 'the coefficient of the regularization term', the transformer 'assuming the "
    "noise level is given by m/N tau' (the fraction is flattened in the copy)"
)
_REPDIM_CHOICES = {
    "equal_tol": Choice(
        Rule(1e-10, "N = m: the estimates agree to this, relative to 1 + norm", "attncheck"),
        range=(1e-12, 1e-8),
        reason="N = m: equal estimates to round-off, 1e-12 to 1e-8 relative",
    ),
    "order_rtol": Choice(
        Rule(1e-12, "relative round-off allowed in the norm comparisons", "attncheck"),
        range=(1e-14, 1e-10),
        reason="round-off in the norm comparisons: 1e-14 to 1e-10 relative",
    ),
}


@claim(
    "yang2024.repdim",
    Source(
        "Sec. 3.3, eqs. (20), (25): the role of N versus m; derivation Sect. 6.5",
        Provenance.DERIVED,
        quote=_REPDIM_SOURCE,
    ),
    kind=Kind.QUALITATIVE,
    statement="transformer ridge = 'best' ridge iff N = m; ||lambda-hat|| <= ||lambda-hat_tau|| for N < m "
    "and >= for N > m",
    profiles=Profiles(quick={"cases": 1000}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_REPDIM_CHOICES,
    report=Report(
        r"$\hat\lambda=\hat\lambda_\tau$ iff $N=m$; $\|\hat\lambda\|\le\|\hat\lambda_\tau\|$ for $N<m$ and "
        r"$\ge$ for $N>m$ (penalties $m\tau$ and $N\tau$)"
    ),
)
def repdim(ctx: Ctx, *, cases: int) -> Evidence:
    """Yang et al. 2024, Sec. 3.3 (representation dimension; claims EXACT in words, formulas
    DERIVED); qualitative; every seed. Consistency check: the ridge norm ||(ZZ^T + c I)^{-1} Z y||
    decreases in c for every Z and y, and the penalties m tau and N tau coincide iff N = m, so the
    statement holds by construction; it tests bounds.transformer_ridge and bounds.best_ridge.

    measured: True when, over ``cases`` random (m, N, tau, Z, y) (a third of them with N = m), N = m
    gives ||lambda-hat - lambda-hat_tau|| <= equal_tol (1 + ||lambda-hat||), N < m gives
    ||lambda-hat|| <= ||lambda-hat_tau|| and N > m gives >= (up to relative round-off rule
    ``order_rtol``), estimates from bounds.transformer_ridge and bounds.best_ridge.
    """
    rng = ctx.rng(19)
    equal_tol, order_rtol = ctx.rule("equal_tol"), ctx.rule("order_rtol")
    bad, counts = 0, {"N<m": 0, "N=m": 0, "N>m": 0}
    for i in range(cases):
        m, N, tau = _shapes_repdim(rng)
        if i % 3 == 0:
            N = m
        Z, y = rng.standard_normal((m, N)), rng.standard_normal(N)
        a, b = B.transformer_ridge(Z, y, tau), B.best_ridge(Z, y, tau)
        na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
        if N == m:
            counts["N=m"] += 1
            bad += float(np.linalg.norm(a - b)) > equal_tol * (1 + na)
        elif N < m:
            counts["N<m"] += 1
            bad += na > nb * (1 + order_rtol)
        else:
            counts["N>m"] += 1
            bad += na < nb * (1 - order_rtol)
    return Evidence(theory=True, measured=bad == 0, notes=[f"{counts}; {bad} cases out of order"])
