"""Theorem 2 (inference after training, eqs. (20)-(22)): the trained model predicts the ridge limit
y-hat* = (y, Z_Q^T lambda-hat), the deterministic inference and copy bounds along GD, the
probabilistic step (Y_delta) and the iteration count (eq. 21, re-derived)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from bounds import yang2024 as B
from verify.core import (
    Choice,
    Ctx,
    Evidence,
    Expect,
    Kind,
    Plot,
    Profiles,
    Provenance,
    Report,
    Rule,
    Search,
    SeedPlan,
    Seeds,
    Source,
    claim,
    fmt_sci,
)
from verify.numerics.worstcase import WorstCase
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E
from verify.yang2024.claims.thm1 import STEP_FACTOR

#: the search sizes and budget of both Theorem 2 bound searches (yang2024.thm2.bound, yang2024.thm2.copy)
SEARCH = Choice(
    (3, 2, 2, 2, 4, 1, 100),
    options=((3, 2, 2, 2, 4, 1, 100), (3, 2, 2, 2, 4, 3, 100), (4, 3, 3, 2, 4, 1, 100)),
    basis="plausible",
    reason="the search's sizes (K, N, d, m, H) and budget (starts, iterations) are ours (the bound is for "
    "every problem): ours, three times the starts, or a problem one size larger",
)
#: the space both Theorem 2 bound searches run over (yang2024.thm2.bound, yang2024.thm2.copy)
THETA_PROMPT = (
    "every theta = (Q, w) of H heads and one prompt y (N,), unconstrained, on the seed's problem of "
    "sizes (K, N, d, m, H) = search[:5] (tau of the config); starts N(0, 1)"
)


def _search(
    ctx: Ctx, cfg: D.Config, ratio: Callable[..., np.ndarray], search: tuple[int, ...], typical: float
) -> WorstCase:
    """A Theorem 2 bound searched at its worst case (:func:`verify.yang2024.experiments.theta_prompt_search`)
    on the seed's problem of sizes ``search[:4]`` with ``search[4]`` heads; its typical ratio is the
    larger of its random starts' and ``typical`` (the claim's random draws)."""
    K, N, d, m, H, starts, maxiter = search
    problem = E.problem_for(ctx.seed, replace(cfg, K=K, N=N, d=d, m=m))
    found = E.theta_prompt_search(ctx.rng(25), problem, H, ratio, starts, maxiter)
    return replace(found, typical=max(found.typical, typical))


#: The paper's own words on what the trained transformer computes (the limit claims quote them).
_AFTER_THM2 = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), Sec. 3.2 after Theorem 2: '(22) shows that after training, the transformer learns "
    "to output the given labels of the first N tokens in each prompt, and ... predicts the labels"
    " of the rest K - N tokens by implementing the ridge regression given in (20)'; Sec. 4: "
    "'after sufficient training, the output of the transformer y-hat converges to y-hat*' (eqs. "
    "(20)-(22) are lost in the copy)"
)
_THM2_LIMIT_CHOICES = {
    "tol": Choice(
        Rule(1e-6, "mean (1/K) ||y-hat - y-hat*||^2 allowed after training", "reconstruction pass criterion"),
        range=(1e-8, 1e-4),
        basis="plausible",
        reason="the trained model's mean inference error allowed: 1e-8 to 1e-4",
    ),
    "trained": Choice(
        Rule(1e-8, "Delta(T) at most this: the trained regime", "reconstruction pass criterion"),
        range=(1e-9, 1e-7),
        basis="plausible",
        reason="Delta(T) of the trained regime: a decade either side of ours",
    ),
}


@claim(
    "yang2024.thm2.limit",
    Source(
        "Theorem 2, eqs. (20)-(22); Sec. 3.3 (unseen examples and unseen tasks); derivation Sect. 6.2",
        Provenance.DERIVED,
        quote=_AFTER_THM2,
    ),
    kind=Kind.UPPER,
    statement="after training, y-hat -> (y, Z_Q^T lambda-hat), lambda-hat = (ZZ^T + m tau I)^{-1} Z y, "
    "in-domain and out-of-domain",
    assumptions=("Delta(T) <= 1e-8",),
    profiles=Profiles(quick={"config": "small", "H_over_N": 8, "steps": 20_000, "prompts": 200}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_THM2_LIMIT_CHOICES,
    report=Report(
        r"Theorem 2: after training, $\hat y\to(y,Z_Q^\top\hat\lambda)$ with "
        r"$\hat\lambda=(ZZ^\top+m\tau I)^{-1}Zy$, in-domain and out-of-domain"
    ),
)
def thm2_limit(ctx: Ctx, *, config: str, H_over_N: int, steps: int, prompts: int) -> Evidence:
    """Yang et al. 2024, Theorem 2 (inference = ridge regression); kind upper; DERIVED; every seed.
    Consistency check: once Delta(T) <= 1e-8 (checked), the deterministic bound of yang2024.thm2.bound
    (true for any theta) gives (1/K) ||y-hat - y-hat*||^2 <= 2 Delta ||y||^2 / (K lambda_min(G)), far
    below ``tol``; the check is implied by its checked premise and tests the prediction path against the
    ridge computed in m-space, in-domain and out-of-domain.

    theory: rule ``tol``; measured: the larger of the mean (1/K) ||y-hat - y-hat*||^2 over ``prompts``
    fresh prompts with lambda ~ N(0, I) (in-domain) and lambda ~ N(1, 4I) (out-of-domain), at theta_T
    of GD (H = H_over_N * N, stopped once Delta <= rule ``trained`` or after ``steps``); y-hat* from the
    ridge of bounds.transformer_ridge, not through A. Assumption: Delta(T) <= rule ``trained``.
    """
    cfg = D.Config.named(config)
    r = E.run_gd(ctx.seed, cfg, H_over_N * cfg.N, steps=steps, stop_below=ctx.rule("trained"))
    th, p = r.traj.params, r.problem
    DT = float(r.traj.loss[-1])
    e_id = E.inference_error(th, p, D.prompts(p, prompts, ctx.rng(11), "id")).mean()
    e_ood = E.inference_error(th, p, D.prompts(p, prompts, ctx.rng(12), "ood")).mean()
    trained = ctx.rule("trained")
    return Evidence(
        theory=ctx.rule("tol"),
        measured=float(max(e_id, e_ood)),
        failed=([] if DT <= trained else [f"Delta(T) = {DT:.3g} > {trained:g}: not trained far enough"])
        + E.diverged_notes([(H_over_N * p.N, r)]),
        notes=[f"Delta(T) = {DT:.3g}; in-domain {e_id:.3g}, out-of-domain {e_ood:.3g}"],
    )


_THM2_BOUND_CHOICES = {
    "rtol": Choice(
        Rule(1e-12, "round-off margin of the bound", "reconstruction pass criterion"),
        range=(1e-14, 1e-10),
        basis="plausible",
        reason="round-off margin of the bound: 1e-14 to 1e-10 relative",
    ),
    "search": SEARCH,
}


@claim(
    "yang2024.thm2.bound",
    Source(
        "Theorem 2, eq. (22) (deterministic step of the proof); derivation Sect. 6.3",
        Provenance.DERIVED,
        quote=_AFTER_THM2,
    ),
    kind=Kind.UPPER,
    statement="(1/(2K)) ||y-hat(theta) - y-hat*||^2 <= Delta(theta) ||y||^2 / (K lambda_min(G)) "
    "at every iterate and every prompt",
    profiles=Profiles(
        quick=dict(config="small", H_over_N=2, steps=3000, prompts=100),
        paper={"steps": 20_000, "search": (6, 3, 3, 2, 6, 10, 300)},
    ),
    seeds=SeedPlan(Seeds.EVERY, experiment="default-step GD runs"),
    expect=Expect(consistency=True),
    search=Search(
        ratio="(1/(2K)) ||y-hat(theta) - y-hat*||^2 / (Delta(theta) ||y||^2 / (K lambda_min(G)))",
        space=THETA_PROMPT,
        budget="search",
    ),
    choices=_THM2_BOUND_CHOICES,
    report=Report(
        r"$\frac1{2K}\|\hat y(\theta)-\hat y^*\|^2\le\Delta(\theta)\|y\|^2/(K\lambda_{\min}(G))$ at every "
        r"iterate and every prompt",
        Plot(
            x="t",
            curves=[("max_ratio", "largest ratio over prompts")],
            const=1.0,
            theory_label=r"bound: ratio $\leq1$",
            xlabel="GD step $t$",
            ylabel="left side / right side of the bound",
            logx=True,
            logy=True,
        ),
    ),
)
def thm2_bound(
    ctx: Ctx, *, config: str, H_over_N: int, steps: int, prompts: int, search: tuple[int, ...]
) -> Evidence:
    """Yang et al. 2024, Theorem 2, deterministic inference bound; kind upper; DERIVED; every seed.
    Consistency check: (1/(2K)) ||(A-hat - A)^T y||^2 <= ||A-hat - A||_F^2 ||y||^2 / (2K) <=
    Delta ||y||^2 / (K lambda_min(G)) holds for every theta and every y (Cauchy-Schwarz), so no model
    or data can break it; it tests that the prediction path and the loss agree. Equality needs A-hat - A
    of rank one along the lambda_min(G) eigenvector u and y parallel to u: reachable with H >= N heads.

    theory: 1, with the relative tolerance rule ``rtol``; measured: the larger of the max over 41 GD
    iterates and ``prompts`` in-domain plus ``prompts`` out-of-domain prompts of LHS / RHS
    (:func:`verify.yang2024.experiments.inference_ratio`: LHS = (1/(2K)) ||y-hat - y-hat*||^2, RHS =
    bounds.inference_bound(Delta, ||y||^2, K, lambda_min(G))) and a worst-case search over every
    theta = (Q, w) and one prompt y on the seed's problem of sizes (K, N, d, m) = ``search[:4]`` (tau of
    ``config``) with H = ``search[4]`` heads (``search[5]`` starts of ``search[6]`` L-BFGS-B iterations:
    :func:`verify.yang2024.experiments.theta_prompt_search`).
    """
    cfg = D.Config.named(config)
    r = E.canonical_run(ctx.seed, cfg, H_over_N * cfg.N, steps)
    p = r.problem
    y = np.concatenate([D.prompts(p, prompts, ctx.rng(13), "id"), D.prompts(p, prompts, ctx.rng(14), "ood")])
    ts = [float(t) for t, _ in r.snapshots]
    rs = [float(np.max(E.inference_ratio(th, p, y))) for _, th in r.snapshots]
    typical = max(rs)
    found = _search(ctx, cfg, E.inference_ratio, search, typical)
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio),
        rtol=ctx.rule("rtol"),
        worst=found,
        series={"t": ts, "max_ratio": rs},
        notes=[
            f"largest LHS/RHS {typical:.3g} over {len(ts)} iterates x {2 * prompts} prompts; "
            f"searched {found.ratio:.10f}"
        ],
    )


_THM2_PROB_SOURCE = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), Sec. 3.2, Theorem 2: 'given any prompt P that satisfies Assumption 4 at the "
    "inference time, with probability at least 1 - delta, the output of the transformer y-hat "
    "satisfies (22)'; Assumption 4: ||lambda||_2 <= B"
)
_THM2_PROB_CHOICES = {
    "delta": Choice(
        0.01,
        range=(0.001, 0.1),
        basis="paper's range",
        reason="Theorem 2 holds with probability 1 - delta for every delta in (0, 1): 1e-3 to 0.1",
    ),
    "B_norm": Choice(
        2.0,
        range=(0.5, 4.0),
        basis="paper's range",
        reason="Theorem 2 is for every ||lambda|| <= B: B from 0.5 to 4",
    ),
}


@claim(
    "yang2024.thm2.prob",
    Source(
        "Theorem 2 (probability 1 - delta over the inference noise), Assumption 4; derivation Sect. 6.3",
        Provenance.RECONSTRUCTED,
        quote=_THM2_PROB_SOURCE,
    ),
    kind=Kind.PROBABILITY,
    statement="||y||^2 <= Y_delta with probability >= 1 - delta whenever ||lambda|| <= B",
    assumptions=("||lambda|| <= B (Assumption 4; worst direction taken)",),
    profiles=Profiles(quick={"config": "small", "draws": 100_000}),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_THM2_PROB_CHOICES,
    report=Report(
        r"$\|y\|^2\le Y_\delta$ with probability $\ge1-\delta$ whenever $\|\lambda\|\le B$ (Assumption 4; "
        r"$Y_\delta$ reconstructed)"
    ),
)
def thm2_prob(ctx: Ctx, *, config: str, delta: float, B_norm: float, draws: int) -> Evidence:
    """Yang et al. 2024, Theorem 2 (probabilistic step: Laurent-Massart on ||y||^2); probability;
    RECONSTRUCTED (Y_delta is our re-derivation); every seed: the probability is over the inference
    noise, for every dictionary, so each seed (one Z) runs its own Clopper-Pearson test. Consistency
    check: a chi-square tail bound on ||y||^2 (Laurent-Massart, with the room of (a + b)^2 <= 2a^2 + 2b^2),
    a textbook fact about Gaussian labels, independent of the transformer and of training; only a far
    heavier noise (variance 100 tau) breaks it, no plausible nearby law does.

    theory: 1 - delta; measured: [#(||y||^2 <= Y_delta), draws] over ``draws`` noise draws for the
    worst task on the sphere ||lambda|| = B (top left singular vector of Z), prompt labels from
    data.sample_labels with the noise on the representation as in eq. (1); Y_delta from
    bounds.yang2024.prob_bound.
    """
    p = E.problem_for(ctx.seed, D.Config.named(config))
    U, s, _ = np.linalg.svd(p.Z)
    lam = np.tile(B_norm * U[:, 0], (draws, 1))
    Y = B.prob_bound(B_norm, float(s[0] ** 2), p.tau, p.N, delta)
    y = D.sample_labels(p, lam, ctx.rng(15), tokens=p.N)
    y2 = np.sum(y * y, axis=1)
    ok = int(np.sum(y2 <= Y))
    return Evidence(
        theory=1 - delta,
        measured=[ok, draws],
        notes=[
            f"Y_delta = {Y:.4g}; empirical (1-delta) quantile of ||y||^2 = {np.quantile(y2, 1 - delta):.4g}"
        ],
    )


_THM2_COPY_CHOICES = {
    "steps": Choice(
        3000,
        range=(1000, 9000),
        basis="plausible",
        reason="our GD budget before the copy is checked: a factor 3 either side",
    ),
    "search": SEARCH,
}


@claim(
    "yang2024.thm2.copy",
    Source(
        "Theorem 2, eq. (22): y-hat* = (y_1..y_N, ...) (copying the prompt labels); derivation Sect. 6.3",
        Provenance.DERIVED,
        quote=_AFTER_THM2,
    ),
    kind=Kind.UPPER,
    statement="max_{k<=N} |y-hat_k - y_k| <= sqrt(2 Delta ||y||^2 / lambda_min(G)), -> 0 with Delta",
    profiles=Profiles(
        quick=dict(config="small", H_over_N=2, prompts=100),
        paper={"steps": 20_000, "search": (6, 3, 3, 2, 6, 10, 300)},
    ),
    seeds=SeedPlan(Seeds.EVERY, experiment="default-step GD runs"),
    expect=Expect(consistency=True),
    search=Search(
        ratio="max_{k<=N} |y-hat_k - y_k| / sqrt(2 Delta(theta) ||y||^2 / lambda_min(G))",
        space=THETA_PROMPT,
        budget="search",
    ),
    choices=_THM2_COPY_CHOICES,
    report=Report(
        r"$\max_{k\le N}|\hat y_k-y_k|\le\sqrt{2\Delta\|y\|^2/\lambda_{\min}(G)}\to0$ with $\Delta$ "
        r"(the prompt labels are copied)",
        Plot(
            x="Delta",
            curves=[("max_copy_error", "largest copy error over prompts")],
            theory="copy_bound",
            theory_label=r"Thm 2's bound at that prompt, $\sqrt{2\Delta/\lambda_{\min}(G)}\,\|y\|$",
            xlabel=r"$\Delta=L(\theta_t)-L^*$ along GD",
            ylabel=r"$\max_{k\leq N}|\hat y_k-y_k|$",
            logx=True,
            logy=True,
        ),
    ),
)
def thm2_copy(
    ctx: Ctx, *, config: str, H_over_N: int, steps: int, prompts: int, search: tuple[int, ...]
) -> Evidence:
    """Yang et al. 2024, Theorem 2 (prompt tokens are copied); kind upper; DERIVED; every seed.
    Consistency check: |y-hat_k - y_k| = |(A-hat - A)_{:,k}^T y| <= sqrt(2 Delta / lambda_min(G)) ||y||
    for k <= N holds for every theta and y (A_{:,k} = e_k), so it holds by construction. Equality needs
    A-hat - A to vanish outside one prompt column k, that column and y along the lambda_min(G)
    eigenvector: reachable with H >= N heads.

    theory: 1; measured: the larger of the max over 41 GD iterates and ``prompts`` in-domain prompts of
    max_{k<=N} |y-hat_k - y_k| / bounds.copy_bound(Delta, ||y||^2, lambda_min(G))
    (:func:`verify.yang2024.experiments.copy_error`) and a worst-case search over every theta = (Q, w)
    and one prompt y, as in yang2024.thm2.bound (``search`` = (K, N, d, m, H, starts, maxiter)).
    """
    cfg = D.Config.named(config)
    r = E.canonical_run(ctx.seed, cfg, H_over_N * cfg.N, steps)
    p = r.problem
    y = D.prompts(p, prompts, ctx.rng(16), "id")
    rows = [E.copy_error(th, p, y) for _, th in r.snapshots]
    ts = [float(t) for t, _ in r.snapshots]
    errs, ds = [float(e.max()) for e, _, _ in rows], [Delta for _, _, Delta in rows]
    at = [int(np.argmax(e)) for e, _, _ in rows]  # the prompt of the largest error, its bound drawn
    bounds = [
        float(B.copy_bound(Delta, float(y[i] @ y[i]), p.lam_min_G))
        for (_, _, Delta), i in zip(rows, at, strict=True)
    ]
    typical = max(float(np.max(q)) for _, q, _ in rows)
    found = _search(ctx, cfg, lambda th, p, y: E.copy_error(th, p, y)[1], search, typical)
    return Evidence(
        theory=1.0,
        measured=max(typical, found.ratio),
        worst=found,
        series={"t": ts, "Delta": ds, "max_copy_error": errs, "copy_bound": bounds},
        notes=[
            f"copy error {errs[0]:.3g} -> {errs[-1]:.3g} as Delta {ds[0]:.3g} -> {ds[-1]:.3g}; largest ratio "
            f"{typical:.3g} along GD, searched {found.ratio:.10f}"
        ],
    )


def _settle(ts: list[int], errs: list[float], eps: float) -> int | None:
    """The step after the last snapshot whose error exceeds eps (0 if none does); None if the last one
    does (not settled within the run)."""
    above = [t for t, e in zip(ts, errs, strict=True) if e > eps]
    if not above:
        return 0
    return None if above[-1] == ts[-1] else above[-1] + 1


_THM2_ITERS_SOURCE = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), Sec. 3.2, Theorem 2: 'for any eps > 0 and delta in (0, 1), if the number of "
    "training iterates satisfies (21)' ((21) is lost in the copy)"
)
_THM2_ITERS_CHOICES = {
    "delta": Choice(
        0.01,
        range=(0.001, 0.1),
        basis="paper's range",
        reason="Theorem 2 holds with probability 1 - delta for every delta in (0, 1): 1e-3 to 0.1",
    )
}


@claim(
    "yang2024.thm2.iters",
    Source(
        "Theorem 2, eq. (21) (iteration complexity; re-derived sufficient T); derivation Sect. 6.3",
        Provenance.RECONSTRUCTED,
        quote=_THM2_ITERS_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="T >= ln(Delta(0) Y_delta / (K lambda_min(G) eps)) / ln(1/rho) iterations suffice for "
    "(1/(2K)) ||y-hat - y-hat*||^2 <= eps on prompts with ||lambda|| <= B",
    assumptions=("||y||^2 <= Y_delta (the probability-(1 - delta) event of Theorem 2)",),
    profiles=Profiles(
        quick={"config": "small", "H_over_N": 2, "eps": 1e-2, "prompts": 100, "steps": 10_000},
        paper={"eps": 1e-4, "steps": 20_000},
    ),
    seeds=SeedPlan(Seeds.EVERY),
    expect=Expect(consistency=True),
    choices=_THM2_ITERS_CHOICES,
    report=Report(
        r"eq.~(21): $T\ge\ln\frac{\Delta(0)Y_\delta}{K\lambda_{\min}(G)\epsilon}/\ln\frac1\rho$ iterations "
        r"give $\frac1{2K}\|\hat y-\hat y^*\|^2\le\epsilon$ when $\|\lambda\|\le B$",
        Plot(
            x="t",
            curves=[("max_error", "largest error over prompts")],
            const=1e-2,
            theory_label=r"target $\epsilon=10^{-2}$ (quick profile)",
            xlabel="GD step $t$",
            ylabel=r"$\frac{1}{2K}\|\hat y-\hat y^*\|^2$",
            logx=True,
            logy=True,
        ),
    ),
)
def thm2_iters(
    ctx: Ctx, *, config: str, H_over_N: int, eps: float, delta: float, prompts: int, steps: int
) -> Evidence:
    """Yang et al. 2024, Theorem 2 iteration count (eq. 21, RECONSTRUCTED: our sufficient T from the
    proof skeleton; the paper's constants are NOT RECOVERED); kind upper on iterations; every seed.
    Consistency check: T is the count at which rho^T Delta(0) Y_delta / (K lambda_min(G)) reaches eps,
    so on prompts with ||y||^2 <= Y_delta it is implied by Theorem 1's bound along the same GD (H = 2N,
    half the default step: where yang2024.thm1.rate finds the bound holding) and the Cauchy-Schwarz step
    of yang2024.thm2.bound; the bound is 100 to 300 times the iterations GD needs, and no world inside
    those premises brings them together.

    theory: T = bounds.iterations_needed(Delta(0), Y_delta, K, lambda_min(G), eps, rho) with Y_delta for
    ||lambda|| <= B = 1 and rho = 1 - eta_Q gamma^2 zeta_0 / 2 at the step of thm1.rate (half the default
    rule, so that eta_Q <= 1/L is not contradicted). measured: the iterations GD needed, i.e. the step
    after the last of 41 snapshots at which max over ``prompts`` prompts of (1/(2K)) ||y-hat - y-hat*||^2
    exceeds eps (prompts: lambda uniform on the sphere ||lambda|| = 1 plus the worst direction, labels
    of eq. (1), kept when ||y||^2 <= Y_delta). holds when measured <= T, with slack log10(T / measured).
    If the error has not settled below eps by the last step: violated when T is at most that step,
    inconclusive otherwise.
    """
    cfg = D.Config.named(config)
    H = H_over_N * cfg.N
    r = E.run_gd(ctx.seed, cfg, H, steps=steps, snapshot_every=max(1, steps // 40), step_factor=STEP_FACTOR)
    p = r.problem
    Y = B.prob_bound(1.0, float(np.linalg.norm(p.Z, 2) ** 2), p.tau, p.N, delta)
    rho = B.rate_factor(r.eta_Q, r.gamma, r.zeta0)
    T = B.iterations_needed(float(r.traj.loss[0]), Y, p.K, p.lam_min_G, eps, rho)
    lam = ctx.rng(17).standard_normal((prompts, p.m))
    lam[0] = np.linalg.svd(p.Z)[0][:, 0]
    y = D.sample_labels(p, lam / np.linalg.norm(lam, axis=1, keepdims=True), ctx.rng(18), tokens=p.N)
    y = y[np.sum(y * y, axis=1) <= Y]
    ts = [t for t, _ in r.snapshots]
    errs = [float(np.max(0.5 * E.inference_error(th, p, y))) for _, th in r.snapshots]
    settled = _settle(ts, errs, eps)
    notes = [
        f"zeta_0 = {r.zeta0:.3g}, rho = 1 - {fmt_sci(1 - rho)}, Delta(0) = {r.traj.loss[0]:.4g}, "
        f"Y_delta = {Y:.4g}: sufficient T = {E.fmt_count(T)}; {len(y)} of {prompts} prompts in the event",
        f"max error over prompts at t = {ts[0]}, {ts[len(ts) // 2]}, {ts[-1]}: "
        f"{errs[0]:.3g}, {errs[len(ts) // 2]:.3g}, {errs[-1]:.3g}; below {eps:g} from step {settled} on",
    ]
    measured, inconclusive = settled, None
    if settled is None:
        measured = ts[-1] + 1
        if T > ts[-1]:
            inconclusive = f"the error is still above {eps:g} at step {ts[-1]} < T = {E.fmt_count(T)}"
    return Evidence(
        theory=T,
        measured=measured,
        inconclusive=inconclusive,
        failed=E.diverged_notes([(H, r)]) + ([] if len(y) else ["no prompt in the event ||y||^2 <= Y_delta"]),
        notes=notes,
        series={"t": [float(t) for t in ts], "max_error": errs},
    )
