"""The model's derivatives (Eq. (1.2), hand-derived) and the softmax fact the Lipschitz constants of
Prop. 1 use (its 1/2-Lipschitz bound)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from bounds import wu2023 as B
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
from verify.numerics.gradcheck import check_grad
from verify.numerics.softmax import softmax
from verify.wu2023 import experiments as E
from verify.wu2023 import model as M


def _kink_free_setup(ctx: Ctx, key: int, init: str, p: float, **sizes: int) -> E.Setup | None:
    """The first of ``redraws`` "active" set-ups (keys key, key + 1, ...) whose ReLU pre-activations
    all stay ``kink_margin`` away from 0; None if there is none."""
    for attempt in range(ctx.rule("redraws")):
        s = E.make_setup(ctx.seed, key + attempt, tau0_power=p, init=init, regime="active", **sizes)
        if np.min(np.abs(s.model.forward(s.theta0, s.batch).A)) > ctx.rule("kink_margin"):
            return s
    return None


_GRAD_CHOICES = {
    "fd_rtol": Choice(
        Rule(1e-6, "relative part of the allowed |analytic - numeric|", "reconstruction pass criterion"),
        range=(1e-7, 1e-5),
        reason="the relative finite-difference allowance (central differences reach about 1e-8 to 1e-10 "
        "in "
        "double precision): a decade either side of ours",
    ),
    "fd_atol": Choice(
        Rule(1e-6, "absolute part of the allowed |analytic - numeric|", "reconstruction pass criterion"),
        range=(1e-7, 1e-5),
        reason="the absolute finite-difference allowance: a decade either side of ours",
    ),
}


@claim(
    "wu2023.grad",
    Source("Eq. (1.2) (hand-derived gradients, derivation Sect. 1.3)", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="hand-derived gradients of the squared loss equal central differences (all inits, both tau0)",
    assumptions=("no ReLU pre-activation within 1e-4 of the kink",),
    profiles=Profiles(quick=dict(N=3, d=6, d_s=5, d_m=12), paper=dict(N=6, d_m=60)),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    rules={
        "kink_margin": Rule(
            1e-4, "finite differences are invalid across a ReLU kink: closer points are redrawn", "attncheck"
        ),
        "redraws": Rule(
            20, "draws tried per (init, tau0) before the kink is declared unavoidable", "attncheck"
        ),
    },
    choices=_GRAD_CHOICES,
    report=Report(
        r"the hand-derived gradients of $\ell$ in $W_Q,W_K,W_V,w_O$ equal central differences "
        r"(LeCun, He, NTK init; both $\tau_0$)"
    ),
)
def grad(ctx: Ctx, *, N: int, d: int, d_s: int, d_m: int) -> Evidence:
    """Wu et al. 2023, Eq. (1.2) with the hand-derived gradients. Consistency check (the code's
    gradients against finite differences of the code's loss). Kind: upper, DERIVED, every seed.

    theory: 1 (the allowed scaled error); measured: the largest |analytic - numeric| / (fd_atol +
    fd_rtol |numeric|) over every coordinate of every block (central differences at eps and eps/4
    must also agree), for LeCun / He / NTK init, tau0 = d_m^-1/2 and d_m^-1, sum loss. Points whose
    ReLU pre-activations come within ``kink_margin`` of 0 are redrawn (up to ``redraws`` times).
    """
    worst, notes = 0.0, []
    for i, init in enumerate(B.INITS):
        for j, p in enumerate((0.5, 1.0)):
            s = _kink_free_setup(ctx, 100 * i + 10 * j, init, p, N=N, d=d, d_s=d_s, d_m=d_m)
            if s is None:
                return Evidence(1.0, None, failed=[f"ReLU kink unavoidable ({init}, tau0 power {p})"])
            _, g = s.model.loss_and_grad(s.theta0, s.batch)
            rep = check_grad(
                lambda th, s=s: s.model.loss(M.Params.from_blocks(th), s.batch),
                s.theta0.blocks(),
                g.blocks(),
                mode="full",
                rtol=ctx.rule("fd_rtol"),
                atol=ctx.rule("fd_atol"),
                seed=ctx.seed,
            )
            worst = max(worst, rep.max_rel_error if not rep.unstable else math.inf)
            notes.append(f"{init}, tau0=d_m^-{p:g}: {rep.summary()}")
    if not math.isfinite(worst):
        return Evidence(1.0, None, inconclusive="finite differences unstable", notes=notes)
    return Evidence(theory=1.0, measured=worst, notes=notes)


_SOFTMAX_LIP_CHOICES = {
    "rtol": Choice(
        Rule(1e-12, "round-off margin on the constant 1/2", "reconstruction pass criterion"),
        range=(1e-14, 1e-10),
        reason="a round-off margin (on the constant 1/2): two decades around ours, from 1e-14 to 1e-10",
    )
}


@claim(
    "wu2023.softmax.lip",
    Source("Prop. 1 proof (the softmax is 1/2-Lipschitz); derivation Sect. 5.1", Provenance.DERIVED),
    kind=Kind.UPPER,
    statement="|diag(p) - pp^T|_2 <= 1/2 and the row-wise softmax is 1/2-Lipschitz in Frobenius norm",
    profiles=Profiles(
        quick=dict(samples=2000, k=6, search=(2, 1, 100)), paper=dict(samples=20000, search=(4, 10, 300))
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    search=Search(
        ratio="|softmax(L) - softmax(L')|_F / (1/2 (1 + rtol) |L - L'|_F)",
        space="every pair of k x k logit matrices, k = search[0], unconstrained but for |L - L'|_F >= 1e-2 "
        "(round-off of the difference); starts N(0, 1)",
        budget="search",
    ),
    choices=_SOFTMAX_LIP_CHOICES,
    report=Report(
        r"$\|\mathrm{diag}(p)-pp^\top\|_2\le\frac12$, so the row-wise softmax is "
        r"$\frac12$-Lipschitz in $\|\cdot\|_F$"
    ),
)
def softmax_lip(ctx: Ctx, *, samples: int, k: int, search: tuple[int, int, int]) -> Evidence:
    """Prop. 1 proof, the softmax fact behind rho. Consistency check: a mathematical fact about the softmax
    on random logits, independent of the model, the data and training, so it tests our derivation and
    the softmax code, never the paper. Kind: upper, DERIVED; round-off margin ``rtol``.

    theory: 1/2; measured: the largest of ||diag(p) - p p^T||_2 over random p (including two-point
    p = (1/2, 1/2, 0...) where it is attained) and of ||softmax(L) - softmax(L')||_F / ||L - L'||_F
    over random pairs of k x k logit matrices at scales 1e-2 .. 1e2 and over a worst-case search of the
    Lipschitz ratio over every pair of ``search[0]`` x ``search[0]`` logit matrices at least 1e-2 apart
    (``search[1]`` starts of ``search[2]`` L-BFGS-B iterations:
    :func:`verify.wu2023.experiments.softmax_lip_ratio`).
    """
    rng = ctx.rng(1)
    rtol = ctx.rule("rtol")
    scales = 10.0 ** rng.uniform(-2, 2, size=(samples, 1))
    z = rng.standard_normal((samples, k)) * scales
    p = softmax(z)
    p[0] = 0.0
    p[0, :2] = 0.5
    J = np.einsum("ni,ij->nij", p, np.eye(k)) - p[:, :, None] * p[:, None, :]
    jac = float(np.max(np.linalg.eigvalsh(J)[:, -1]))
    L = rng.standard_normal((samples // 10, k, k)) * scales[: samples // 10, :, None]
    L2 = L + rng.standard_normal(L.shape) * 10.0 ** rng.uniform(-3, 1, size=(L.shape[0], 1, 1))
    num = np.linalg.norm(softmax(L) - softmax(L2), axis=(1, 2))
    lip = float(np.max(num / np.linalg.norm(L - L2, axis=(1, 2))))
    ks, starts, maxiter = search
    found = E.array_search(lambda A: E.softmax_lip_ratio(A, rtol), (2, ks, ks), ctx.rng(2), starts, maxiter)
    searched = found.ratio * B.SOFTMAX_LIP * (1 + rtol)
    return Evidence(
        theory=B.SOFTMAX_LIP,
        measured=max(jac, lip, searched),
        rtol=rtol,
        worst=replace(found, typical=max(found.typical, lip / B.SOFTMAX_LIP)),
        notes=[f"max Jacobian norm {jac:.10f}, max Lipschitz ratio {lip:.6f}, searched {searched:.10f}"],
    )
