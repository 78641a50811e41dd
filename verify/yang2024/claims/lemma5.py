"""Lemma 5 (loss reformulation, eqs. (26)/(34)): the closed-form population loss, its target matrix A
and constants c_k, its hand-derived gradients, and the floor L* being attained at H >= N."""

from __future__ import annotations

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
from verify.numerics.gradcheck import check_grad
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024 import model as M
from verify.yang2024.claims.common import FULL_TEXT, RANK_ULPS

_LEMMA5_SOURCE = FULL_TEXT + (
    "Sec. 3.3: 'a small training error implies that sum_h w_{h,k} softmax(V^T Q_h v_k) is close to A_{:,k}. "
    "In fact, this is the necessary and sufficient condition for the training loss to be small. A rigorous "
    "argument is provided in Lemma 5'"
)
_LEMMA5_CHOICES = {
    "se_window": Choice(
        Rule(4, "Monte-Carlo window half-width in standard errors", "reconstruction pass criterion"),
        range=(3, 5),
        reason="Monte-Carlo agreement of a closed form: within 3 to 5 standard errors",
    )
}


@claim(
    "yang2024.lemma5",
    Source(
        "Lemma 5 (loss reformulation), eqs. (26)/(34); derivation Sect. 3.1",
        Provenance.DERIVED,
        quote=_LEMMA5_SOURCE,
    ),
    kind=Kind.TWO_SIDED,
    statement="population loss = 1/2 sum_k ||Zbar(a-hat_k - A_k)||^2 + L* (Monte-Carlo, 4 SE)",
    assumptions=("E[lambda lambda^T] = I (Assumption 1)", "noise variance tau on the representation"),
    profiles=Profiles(quick={"config": "small", "H": 6, "draws": 100_000}, paper={"draws": 1_000_000}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_LEMMA5_CHOICES,
    report=Report(
        r"Lemma 5: $L=\frac12\sum_k\|\bar Z(\hat a_k-A_{:,k})\|^2+L^*$, $\bar Z=(Z^\top Z+m\tau I_N)^{1/2}$, "
        r"within 4 SE of Monte Carlo"
    ),
)
def lemma5(ctx: Ctx, *, config: str, H: int, draws: int) -> Evidence:
    """Yang et al. 2024, Lemma 5 (closed form of the population loss (9)); kind two-sided; DERIVED;
    every seed. Consistency check: a closed form against the Monte Carlo of its own definition, true
    for every theta and Z; it tests bounds.yang2024 (A, L*, G) and the label sampler.

    theory: [L_cf - k SE, L_cf + k SE] (k: rule ``se_window``) with L_cf = 1/2 tr(R^T G R) + L* from
    bounds.yang2024 (A, L*, G) at a random theta (Q Gaussian, w ~ 0.3 N(0,1)); measured: the
    Monte-Carlo mean of 1/2 sum_k (y-hat_k - y_k)^2 over ``draws`` prompts with lambda ~ N(0, I_m) and
    fresh noise eps_k ~ N(0, tau I_m) on every representation (literal eq. 1). Holds when L_MC lies in
    the window.
    """
    problem = E.problem_for(ctx.seed, D.Config.named(config))
    model = M.Transformer(H)
    th = E.random_theta(problem, H, ctx.rng(1))
    L_cf = B.closed_form_loss(model.forward(th, problem), problem.A, problem.G, problem.Lstar)
    mean, se = E.lemma5_monte_carlo(problem, model.forward(th, problem), draws, ctx.rng(2))
    k = ctx.rule("se_window")
    return Evidence(
        theory=[L_cf - k * se, L_cf + k * se],
        measured=mean,
        notes=[
            f"closed form {L_cf:.6g}, Monte-Carlo {mean:.6g} +- {se:.3g} (SE, {draws} draws); "
            f"L* = {problem.Lstar:.6g} (with the + m tau of fresh target noise)"
        ],
        params={"L_cf": L_cf, "se": se},
    )


_A_IDENTITY_SOURCE = FULL_TEXT + (
    "Sec. 3.3, eq. (26): the 'N-by-K matrix A' holding the 'inherent information' of the basic tasks (its "
    "formula is lost in the copy; the text's special case tau = 0, N >= m: 'A becomes Z^dagger Z-tilde')"
)
_A_IDENTITY_CHOICES = {
    "tol": Choice(
        Rule(1e-10, "an exact identity, checked to round-off", "reconstruction pass criterion"),
        range=(1e-13, 1e-8),
        reason="an identity to round-off: 1e-13 to 1e-8 relative",
    )
}


@claim(
    "yang2024.A_identity",
    Source(
        "Lemma 5, eq. (26)/(34): A = G^{-1}(Z^T Z-tilde + m tau [I, 0]); constants c_k; derivation Sect. 3.1",
        Provenance.DERIVED,
        quote=_A_IDENTITY_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="A_{:,k} = e_k and c_k = 0 for every prompt token k <= N (any Z, tau > 0)",
    assumptions=("tau > 0",),
    profiles=Profiles(quick={"cases": 40}, paper={"cases": 400}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_A_IDENTITY_CHOICES,
    report=Report(
        r"$A=G^{-1}(Z^\top\tilde Z+m\tau[I_N,0])$ has $A_{:,k}=e_k$ and $c_k=0$ for every prompt token "
        r"$k\le N$ (any $Z$, $\tau>0$)"
    ),
)
def A_identity(ctx: Ctx, *, cases: int) -> Evidence:
    """Yang et al. 2024, Lemma 5 (A and the constants c_k); kind upper; DERIVED; every seed.
    Consistency check: G e_k = Z^T z_k + m tau e_k for k <= N is an algebraic identity, so A_{:,k} = e_k
    and c_k = 0 hold for every Z and tau; it tests bounds.target_matrix and bounds.const_terms.

    theory: rule ``tol``; measured: max over ``cases`` random (Z, Z_Q, tau), with N < m and N > m, of
    max(|A_{:, :N} - I|, |c_k| / (||z_k||^2 + m tau) for k <= N), A and c_k from their definitions in
    bounds.yang2024. Holds when measured <= tol.
    """
    rng = ctx.rng(1)
    worst = 0.0
    for _ in range(cases):
        m, N, KQ = (int(v) for v in rng.integers(1, 30, size=3))
        tau = float(10 ** rng.uniform(-3, 0))
        Z, Z_Q = rng.standard_normal((m, N)), rng.standard_normal((m, KQ))
        A = B.target_matrix(Z, Z_Q, tau)
        c = B.const_terms(Z, Z_Q, tau)[:N]
        scale = np.sum(Z * Z, axis=0) + m * tau
        worst = max(worst, float(np.max(np.abs(A[:, :N] - np.eye(N)))), float(np.max(np.abs(c) / scale)))
    return Evidence(theory=ctx.rule("tol"), measured=worst, notes=[f"{cases} random (m, N, K-N, tau) cases"])


_GRAD_SOURCE = FULL_TEXT + (
    "Sec. 2, eq. (10): GD on the population loss (9) with separate step sizes eta_Q, eta_w for Q_h and w_h"
)
_GRAD_CHOICES = {
    "rtol": Choice(
        Rule(1e-6, "relative error allowed per compared value", "reconstruction pass criterion"),
        range=(1e-8, 1e-4),
        reason="finite differences against hand gradients: 1e-8 to 1e-4 relative",
    ),
    "h": Choice(
        Rule(1e-5, "central-difference step (and h/4): Delta ~ 70 needs h above 1e-6", "attncheck"),
        range=(3e-6, 1e-4),
        reason="the central-difference step: above 1e-6 (its reason), up to 1e-4",
    ),
    "roundoff_ulps": Choice(
        Rule(16, "atol = ulps eps |Delta| / h, the round-off of the difference at h/4", "attncheck"),
        range=(4, 64),
        reason="round-off of the difference at h/4: 4 to 64 ulps of |Delta| / h",
    ),
}


@claim(
    "yang2024.grad",
    Source(
        "gradients of the Lemma 5 loss (hand-derived), eqs. (7a)/(7b); derivation Sect. 3.2",
        Provenance.DERIVED,
        quote=_GRAD_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="hand-derived dL/dQ_h and dL/dw_{h,k} match central differences (rel. error <= 1e-6)",
    profiles=Profiles(quick={"config": "small", "H": 6, "n_dirs": 20}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_GRAD_CHOICES,
    report=Report(
        r"the hand-derived $\partial L/\partial Q_h$ and $\partial L/\partial w_{h,k}$ equal central finite "
        r"differences (relative error $\le10^{-6}$)"
    ),
)
def grad(ctx: Ctx, *, config: str, H: int, n_dirs: int) -> Evidence:
    """Yang et al. 2024, gradients of the closed-form loss; kind upper; DERIVED; every seed.
    Consistency check: it tests the code (hand gradients against finite differences), not the paper.

    theory: 1 (the scaled error |analytic - numeric| / (atol + rtol |numeric|) allowed by the rule
    ``rtol``, with atol = roundoff_ulps eps |Delta| / h the round-off floor of the central differences
    at h and h/4, a few ulps of Delta each); measured: the largest scaled error of
    verify.numerics.check_grad over ``n_dirs`` random unit directions per block (Q, w) plus a joint
    one, central differences at step rule ``h`` and h/4 on Delta = L - L* at a random theta. Unstable
    differences make the check inconclusive.
    """
    problem = E.problem_for(ctx.seed, D.Config.named(config))
    model = M.Transformer(H, excess=True)
    th = E.random_theta(problem, H, ctx.rng(3))
    Delta, g = model.loss_and_grad(th, problem)
    h = ctx.rule("h")
    rep = check_grad(
        lambda t: model.loss_and_grad(M.Params.from_blocks(t), problem)[0],
        th.blocks(),
        g.blocks(),
        mode="directional",
        eps=h,
        rtol=ctx.rule("rtol"),
        atol=ctx.rule("roundoff_ulps") * E.EPS * abs(Delta) / h,
        n_dirs=n_dirs,
        seed=ctx.seed,
    )
    inconclusive = None
    if rep.unstable and rep.max_rel_error <= 1:
        inconclusive = f"finite differences unstable in {rep.unstable}"
    return Evidence(
        theory=1.0,
        measured=rep.max_rel_error,
        inconclusive=inconclusive,
        notes=[rep.summary()],
        params={"values_checked": rep.checked},
    )


_LSTAR_ATTAINED_SOURCE = FULL_TEXT + (
    "Sec. 3.3: closeness of sum_h w_{h,k} softmax(V^T Q_h v_k) to A_{:,k} 'is the necessary and sufficient "
    "condition for the training loss to be small' (Lemma 5)"
)
_LSTAR_ATTAINED_CHOICES = {
    "rel_tol": Choice(
        Rule(1e-8, "L(Q, w*) - L* allowed, relative to L*", "reconstruction pass criterion"),
        range=(1e-10, 1e-6),
        reason="L(Q, w*) = L* to round-off of a least-squares solve: 1e-10 to 1e-6 relative",
    ),
    "rank_ulps": RANK_ULPS,
}


@claim(
    "yang2024.Lstar_attained",
    Source(
        "Lemma 5 consequences; Assumption 2; eq. (8); derivation Sect. 3.1",
        Provenance.DERIVED,
        quote=_LSTAR_ATTAINED_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="with H >= N and rank C_k = N, L* is attained by solving for w at fixed Q",
    assumptions=("H >= N", "rank C_k = N for every k (sigma_min > 1e3 eps ||C_k||)"),
    profiles=Profiles(quick={"config": "small", "H_over_N": 2}, paper={"config": "paper"}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_LSTAR_ATTAINED_CHOICES,
    report=Report(
        r"with $H\ge N$ and $\operatorname{rank}C_k=N$ for every $k$, $L^*=\inf L$ is attained by solving "
        r"for $w$ at fixed $Q$"
    ),
)
def Lstar_attained(ctx: Ctx, *, config: str, H_over_N: int) -> Evidence:
    """Yang et al. 2024, Lemma 5: L* = inf L is attained; kind upper; DERIVED; every seed.
    Consistency check: with rank C_k = N (checked), C_k w = A_{:,k} has an exact solution, so the
    floor is reached by construction; it tests the least-squares solve and the closed-form loss.

    theory: rule ``rel_tol`` x L*; measured: L(Q, w*) - L* = 1/2 tr(R^T G R) (computed directly, no
    cancellation) with Q Gaussian (beta = 1) and w*_{:,k} = C_k^+ A_{:,k} (minimum-norm least
    squares). Assumptions checked: H >= N and every C_k numerically of rank N (rule ``rank_ulps``).
    """
    problem = E.problem_for(ctx.seed, D.Config.named(config))
    H = H_over_N * problem.N
    model = M.Transformer(H)
    failed = [] if H >= problem.N else [f"H = {H} < N = {problem.N}"]
    Q = E.init_for(ctx.seed, problem, H, 1.0).Q
    C = model.attention(Q, problem).transpose(2, 1, 0)
    s = np.linalg.svd(C, compute_uv=False)
    if H >= problem.N and not np.all(s[:, problem.N - 1] > ctx.rule("rank_ulps") * E.EPS * s[:, 0]):
        failed.append("some C_k is numerically rank deficient")
    gap = model.excess_loss(M.Params(Q, model.lstsq_w(Q, problem)), problem)  # no cancellation
    Lstar = B.loss_floor(problem.Z, problem.Z_Q, problem.tau)
    return Evidence(
        theory=ctx.rule("rel_tol") * Lstar,
        measured=gap,
        failed=failed,
        notes=[f"L* = {Lstar:.8g}, L(Q, w*) - L* = {gap:.3g}, H = {H}"],
    )
