"""Hand derivatives of the model and the softmax facts behind the bounds (derivation Sect. 1.3 and 3.1)."""

from __future__ import annotations

import numpy as np

from bounds.checks import check_int
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
    Search,
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.deora2023 import experiments as E
from verify.deora2023 import model as M
from verify.deora2023.claims.common import search_choice
from verify.numerics.gradcheck import check_grad, check_hvp

_GRAD_CHOICES = {
    "tol": Choice(
        Rule(1e-6, "scaled error |FD - g| / (tol (1 + |FD|)) of check_grad", "reconstruction pass criterion"),
        range=(1e-8, 1e-5),
        reason="central differences in float64 reach about 1e-8 to 1e-10 relative: 1e-8 to 1e-5",
    )
}


@claim(
    "deora2023.grad",
    Source("derivation Sect. 1.3 (hand derivatives of Phi and L)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="the hand gradients of Phi and of the logistic risk equal central finite differences",
    assumptions=("float64", "finite differences stable (eps and eps/4 agree)"),
    profiles=Profiles(quick=dict(cases=3), paper=dict(cases=40)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_GRAD_CHOICES,
    report=Report(
        r"the hand-derived $\nabla_\theta\Phi(\theta;X)$ and $\nabla L(\theta)$ equal central finite "
        r"differences (scaled error at most $1$ at the tolerance $10^{-6}$)"
    ),
)
def grad(ctx: Ctx, *, cases: int) -> Evidence:
    """Derivation Sect. 1.3 / claim deora2023.grad [DERIVED]. Kind: upper. Consistency check: it tests the
    code's hand derivatives against finite differences of the code's own forward pass, so no change to
    the model, the data or a measured quantity of the paper can make it fail. Seeds: every seed.

    measured: the largest scaled error |FD - analytic| / (tol (1 + |FD|)) (rule ``tol``) over every
    coordinate of grad Phi(theta; X_1) and grad L(theta) (``check_grad``, central differences at 1e-6
    and 2.5e-7); theory: 1. Cases: H in 1..4, T in 2..5, d in 2..4, theta entries N(0, s^2),
    s in {0.1, 1, 3}.
    """
    tol = ctx.rule("tol")
    worst, unstable = 0.0, []
    for j, (H, T, d, s, xs) in enumerate(E.cases(ctx.rng(1), cases)):
        params, X, y = E.random_case(ctx.rng(2, j), H, T, d, s, xs, 3)
        g1 = {k: v[0] for k, v in M.per_sample_grads(params, X[:1]).items()}
        r1 = check_grad(lambda p, X=X: float(M.phi(p, X[:1])[0]), params, g1, rtol=tol, atol=tol)
        _, g2 = M.loss_and_grad(params, X, y)
        r2 = check_grad(lambda p, X=X, y=y: M.loss(p, X, y), params, g2, rtol=tol, atol=tol)
        worst = max(worst, r1.max_rel_error, r2.max_rel_error)
        unstable += r1.unstable + r2.unstable
    ev = Evidence(
        theory=1.0,
        measured=worst,
        params={"cases": cases},
        notes=[f"max scaled error {worst:.3g} (1 = the tolerance 1e-6 (1 + |g|))"],
    )
    if unstable:
        ev.inconclusive = f"finite differences unstable at {unstable[:3]}"
    return ev


def _head_structure(Hp: np.ndarray, H: int, T: int, d: int) -> tuple[float, float]:
    """(max |U-U block|, max |entry coupling two heads|) of a dense Hessian of Phi."""
    nu = H * T * d
    head = np.concatenate([np.repeat(np.arange(H), T * d), np.repeat(np.arange(H), d * d)])
    mask = head[:, None] != head[None, :]
    return float(np.max(np.abs(Hp[:nu, :nu]))), float(np.max(np.abs(Hp[mask]))) if mask.any() else 0.0


_HVP_CHOICES = {
    "rtol": Choice(
        Rule(
            1e-6, "relative tolerance of the HVP against finite differences", "reconstruction pass criterion"
        ),
        range=(1e-8, 1e-5),
        reason="finite differences of the gradient in float64: 1e-8 to 1e-5 relative",
    )
}


@claim(
    "deora2023.hvp",
    Source("derivation Sect. 1.3 (HVP; U-U block zero; block-diagonal over heads)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="the hand Hessian-vector products of Phi and L match finite differences of the "
    "gradient; the U-U block is zero and the Hessian of Phi is block-diagonal over heads",
    profiles=Profiles(quick=dict(cases=2), paper=dict(cases=30)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    rules={
        "atol": Rule(1e-7, "absolute floor of the HVP comparison (entries near zero)", "attncheck"),
        "zero_atol": Rule(1e-9, "what counts as a zero Hessian entry (U-U block, cross-head)", "attncheck"),
        "qf_rtol": Rule(
            1e-6, "quadratic-form formula vs v^T H v, relative to max(1, |v^T H v|)", "attncheck"
        ),
    },
    choices=_HVP_CHOICES,
    report=Report(
        r"the hand Hessian-vector products of $\Phi$ and $L$ equal finite differences of the gradient; "
        r"$\nabla^2_{UU}\Phi=0$ and $\nabla^2\Phi$ is block-diagonal over the heads"
    ),
)
def hvp(ctx: Ctx, *, cases: int) -> Evidence:
    """Derivation Sect. 1.3 / claim deora2023.hvp [DERIVED]. Kind: upper. Consistency check: the hand
    second derivatives against finite differences of the code's own gradient, and structural zeros that
    follow from the model's definition; it tests the code, not a statement of the paper. Seeds: every
    seed.

    measured: max of (HVP scaled error with rules ``rtol`` / ``atol`` over 4 random directions, for
    grad^2 L and for sum_i c_i grad^2 Phi_i), max|U-U block| / ``zero_atol`` and max|off-head block| /
    ``zero_atol`` of the dense Hessian of Phi(.; X_1), and the scaled error of the quadratic-form
    formula of derivation Sect. 1.3 (:func:`verify.deora2023.model.quadratic_form`, rule ``qf_rtol``)
    against v^T H v of the dense Hessian; theory: 1.
    """
    rtol, atol, zero, qf_rtol = (ctx.rule(k) for k in ("rtol", "atol", "zero_atol", "qf_rtol"))
    worst = uu = off = qerr = 0.0
    for j, (H, T, d, s, xs) in enumerate(E.cases(ctx.rng(1), cases)):
        params, X, y = E.random_case(ctx.rng(2, j), H, T, d, s, xs, 3)
        c = ctx.rng(3, j).standard_normal(3)
        r1 = check_hvp(
            lambda p, X=X, y=y: M.loss_and_grad(p, X, y)[1],
            params,
            lambda p, v, X=X, y=y: M.loss_hvp(p, X, y, v),
            rtol=rtol,
            atol=atol,
            seed=j,
        )
        r2 = check_hvp(
            lambda p, X=X, c=c: M._weighted_grad(M.forward(p, X), c),
            params,
            lambda p, v, X=X, c=c: M.phi_hvp(p, X, v, c),
            rtol=rtol,
            atol=atol,
            seed=j,
        )
        worst = max(worst, r1.max_rel_error, r2.max_rel_error)
        Hp = M.hessian_phi(params, X[0])
        uu_j, off_j = _head_structure(Hp, H, T, d)
        uu, off = max(uu, uu_j), max(off, off_j)
        v = ctx.rng(4, j).standard_normal(Hp.shape[0])
        qf = float(v @ Hp @ v)
        qerr = max(qerr, abs(M.quadratic_form(params, X[0], v) - qf) / (qf_rtol * max(1.0, abs(qf))))
    return Evidence(
        theory=1.0,
        measured=max(worst, uu / zero, off / zero, qerr),
        params={"cases": cases},
        notes=[
            f"HVP scaled error {worst:.3g}; max |U-U block| {uu:.2e}; max |off-head block| {off:.2e}; "
            f"quadratic-form formula scaled error {qerr:.2e}"
        ],
    )


_SOFTMAX_FACTS_CHOICES = {
    "rtol": Choice(
        Rule(1e-12, "round-off margin of the exact inequalities", "reconstruction pass criterion"),
        range=(1e-14, 1e-10),
        reason="round-off margin of exact inequalities in float64: 1e-14 to 1e-10 relative",
    ),
    "search": search_choice((2, 1, 50), 0),
}


@claim(
    "deora2023.softmax",
    Source("derivation Sect. 3.1", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="||diag(s)-ss^T|| <= 1/2, Var_s(a) <= range(a)^2/4, |k3_s(v,b,b)| <= range(v)range(b)^2/4",
    profiles=Profiles(quick=dict(draws=2000), paper=dict(draws=20000, search=(4, 8, 200))),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="each quantity / its bound / (1 + rtol), searched per inequality (the largest kept)",
        space="every logit vector (T = search[0]) and every vector a (variance) or pair (v, b) (k3) of "
        "length T, unconstrained; starts N(0, 1)",
        budget="search",
    ),
    choices=_SOFTMAX_FACTS_CHOICES,
    report=Report(
        r"for $s=\mathrm{softmax}(a)$: $\|\mathrm{diag}(s)-ss^\top\|\le\frac12$, "
        r"$\mathrm{Var}_s(a)\le\frac14\,\mathrm{range}(a)^2$, "
        r"$|k_3^s(v,b,b)|\le\frac14\,\mathrm{range}(v)\,\mathrm{range}(b)^2$"
    ),
)
def softmax_facts(ctx: Ctx, *, draws: int, search: tuple[int, int, int]) -> Evidence:
    """Derivation Sect. 3.1 / claim deora2023.softmax [DERIVED]. Kind: upper, round-off margin rule ``rtol``.
    Seeds: every seed (a bound for every draw; each seed searches from its own starts). Consistency
    check: the three inequalities are textbook facts about probability vectors (the Jacobian's norm,
    Popoviciu's inequality, the third central moment of a law on an interval), true for every softmax,
    so only wrong code can break them.

    measured: max over random softmax vectors (T in [2, 50], logit scale up to 50, plus the extremal
    two-point s = (1/2, 1/2, 0, ...)) and a worst-case search of each quantity divided by its bound;
    theory: 1. The search (:func:`verify.deora2023.experiments.softmax_ratio_search`) runs per
    inequality over the logits and the vectors it takes at T = ``search[0]`` (``search[1]`` starts of
    ``search[2]`` L-BFGS-B iterations), the ratio divided by 1 + ``rtol`` (the Jacobian and Popoviciu
    bounds are attained exactly, where float64 lands on either side of 1); the largest worst case is kept,
    its typical ratio that of the search's random starts (the draws above include the extremal point).
    """
    rtol = ctx.rule("rtol")
    worst = E.softmax_ratios(ctx.rng(1), check_int("draws", draws))
    found = E.softmax_ratio_search(ctx.rng(2), *search, rtol)
    top = max(found.values(), key=lambda w: w.ratio)
    typical = max(worst.values())
    return Evidence(
        theory=1.0,
        measured=max(typical, top.ratio * (1 + rtol)),
        rtol=rtol,
        params={"draws": draws},
        worst=top,
        notes=[
            f"largest ratio to the bound: {k} {v:.8f} (random), {found[k].ratio:.8f} (searched)"
            for k, v in worst.items()
        ],
    )
