"""Sec. 3.3 and Lemma 4 (eqs. (20), (23)-(25), Fig. 3): the limit map is ridge regression with penalty
m tau, the paper's 'best' ridge (penalty N tau) from Lemma 4, the role of N versus m, and the expected
errors of the two estimators."""

from __future__ import annotations

import math

import numpy as np

from bounds import yang2024 as B
from verify.core import (
    Alternative,
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
    SeedPlan,
    Seeds,
    Source,
    Verdict,
    claim,
)
from verify.yang2024 import data as D
from verify.yang2024 import experiments as E

SE_WINDOW = Rule(4, "Monte-Carlo agreement in standard errors", "attncheck")


def _random_ridge_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    m, N, KQ = int(rng.integers(2, 30)), int(rng.integers(2, 40)), int(rng.integers(1, 30))
    tau = float(10 ** rng.uniform(-3, 0))
    return rng.standard_normal((m, N)), rng.standard_normal((m, KQ)), rng.standard_normal((3, N)), tau


_RIDGE_EQUIV_SOURCE = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), Sec. 3.2 after Theorem 2: '(22) shows that after training, the transformer learns "
    "to output the given labels of the first N tokens in each prompt, and ... predicts the labels"
    " of the rest K - N tokens by implementing the ridge regression given in (20)'; Sec. 4: "
    "'after sufficient training, the output of the transformer y-hat converges to y-hat*' (eqs. "
    "(20)-(22) are lost in the copy)"
)
_RIDGE_EQUIV_CHOICES = {
    "tol": Choice(
        Rule(1e-9, "an exact identity, relative to the predictions' scale", "reconstruction pass criterion"),
        range=(1e-12, 1e-7),
        basis="plausible",
        reason="the push-through identity to round-off: 1e-12 to 1e-7 relative",
    )
}


@claim(
    "yang2024.ridge_equiv",
    Source(
        "Theorem 2, eqs. (20), (22); Sec. 3.3 (push-through identity); derivation Sect. 6.1",
        Provenance.DERIVED,
        quote=_RIDGE_EQUIV_SOURCE,
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


_LEMMA4_SOURCE = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), Sec. 3.2, eq. (24): lambda-hat_tau := argmin_lambda E_eps [1/(2N) sum_i (y_i - "
    "lambda^T (f(v_i) + eps_i))^2], 'equivalent to the following ridge regression problem (see "
    "Lemma 4 ...)' ((25) is lost in the copy)"
)
_LEMMA4_CHOICES = {
    "se_window": Choice(
        SE_WINDOW,
        range=(3, 5),
        basis="plausible",
        reason="Monte-Carlo agreement: within 3 to 5 standard errors",
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
    holds. (A fixed 1e-3 relative tolerance on the argmin ignores the Monte-Carlo error; the
    relative distance is reported.)
    """
    p = E.problem_for(ctx.seed, D.Config.named(config))
    rng = ctx.rng(18)
    y = p.Z.T @ rng.standard_normal(p.m) + 0.3 * rng.standard_normal(p.N)
    lams = rng.standard_normal((grid, p.m))
    cf = B.lemma4_objective(p.Z, y, lams, p.tau)
    mc = E.lemma4_monte_carlo(p, y, lams, draws, ctx.rule("batches"), rng)
    z = float(np.max(np.abs(mc.mean - cf) / mc.se))
    lam_cf = B.best_ridge(p.Z, y, p.tau)
    rel = float(np.linalg.norm(mc.argmin - lam_cf) / np.linalg.norm(lam_cf))
    se_arg = np.std(mc.batch_argmins, axis=0, ddof=1) / math.sqrt(len(mc.batch_argmins))
    z_arg = float(np.max(np.abs(mc.argmin - lam_cf) / se_arg))
    return Evidence(
        theory=1.0,
        measured=max(z, z_arg) / ctx.rule("se_window"),
        notes=[
            f"max |MC - closed form| = {z:.3g} SE over {grid} lambdas; argmin off by {z_arg:.3g} SE "
            f"(relative distance {rel:.3g})"
        ],
    )


def _shapes_repdim(rng: np.random.Generator) -> tuple[int, int, float]:
    m = int(rng.integers(2, 25))
    N = int(rng.integers(2, 40))
    return m, N, float(10 ** rng.uniform(-3, 0))


_REPDIM_SOURCE = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), end of Sec. 3.2: 'When N < m, the transformer tends to underfit by choosing a "
    "lambda with small l2-norm; when N > m, the transformer tends to overfit since it "
    "underestimates the noise level'; (20) and (25) differ 'only' in 'the coefficient of the "
    "regularization term', the transformer 'assuming the noise level is given by m/N tau' (the "
    "fraction is flattened in the copy)"
)
_REPDIM_CHOICES = {
    "equal_tol": Choice(
        Rule(1e-10, "N = m: the estimates agree to this, relative to 1 + norm", "attncheck"),
        range=(1e-12, 1e-8),
        basis="plausible",
        reason="N = m: equal estimates to round-off, 1e-12 to 1e-8 relative",
    ),
    "order_rtol": Choice(
        Rule(1e-12, "relative round-off allowed in the norm comparisons", "attncheck"),
        range=(1e-14, 1e-10),
        basis="plausible",
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


NS_QUICK = (10, 14, 18, 20, 22, 26, 30)  # the paper's N/m = 0.5 ... 1.5 at m = 20
NS_PAPER = (50, 70, 90, 100, 110, 130, 150)  # Fig. 3: m = 100, N from 50 to 150
#: the N grid of the Fig. 3 claims (fig3, fig3.near, lmmse): the paper gives its range, not its points
NS_CHOICE = Choice(
    NS_QUICK,
    options=(NS_QUICK, tuple(range(10, 31, 2)), (10, 15, 20, 25, 30)),
    basis="plausible",
    reason="Fig. 3 spans N/m = 0.5 to 1.5 (N from 50 to 150 at m = 100) and does not list its points: at "
    "m = 20, ours (steps of 0.2 m, 0.1 m next to m), every 0.1 m, or every 0.25 m",
)
FIG3_Z = Rule(2.576, "99% normal band on each paired difference over the draws", "attncheck")


#: The sentence the two readings of Fig. 3 read ("the closer m is to N, the better").
_FIG3_TEXT = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), end of Sec. 3.2: 'The closer m is to N, the closer the transformer's choice of "
    "templates is to the best possible choice, and the better the transformer's prediction will "
    "be'; Sec. 4 and the Fig. 3 caption: the gap (1/K)||y-hat* - y-hat_best||^2 for N from 50 to "
    "150 at m = 100, tau = 0.01 'validates that the closer N is to m, the better the "
    "transformer's prediction is'"
)
_FIG3_CHOICES = {
    "Ns": NS_CHOICE,
    "z": Choice(
        FIG3_Z,
        range=(1.96, 3.291),
        basis="plausible",
        reason="the band on each paired difference is ours: a two-sided 95% (1.96) to 99.9% (3.29) "
        "normal band",
    ),
    "draws": Choice(
        100,
        range=(50, 300),
        basis="plausible",
        reason="the paper uses one dictionary; our average over nested draws, from half to three times "
        "ours (the paper profile uses 50)",
    ),
    "K": Choice(
        60,
        range=(40, 180),
        basis="plausible",
        reason="the paper's K = 200 is for m = 100; at our m = 20 (N up to 30) a dictionary from 40 "
        "to 180 tokens",
    ),
}


@claim(
    "yang2024.fig3",
    Source(
        "Fig. 3 and its caption; end of Sec. 3.2 ('the closer m is to N, the closer the "
        "transformer's choice of templates is to the best possible choice'); gap in closed form: derivation "
        "Sect. 8.5",
        Provenance.EXACT,
        quote=_FIG3_TEXT,
    ),
    kind=Kind.QUALITATIVE,
    statement="the expected gap (1/K) E||y-hat* - y-hat_best||^2 decreases as N approaches m, from "
    "either side (0 at N = m)",
    profiles=Profiles(quick={"m": 20, "tau": 0.01}, paper={"K": 200, "m": 100, "Ns": NS_PAPER, "draws": 50}),
    seeds=SeedPlan(Seeds.EVERY, experiment="fig3 draws"),
    expect=Expect(Verdict.VIOLATED),
    alternative=Alternative(
        world="a noise level 100 times the paper's (tau = 1), far from interpolation: the statement holds "
        "there, so the violation at tau = 0.01 is no artefact of a check that cannot pass",
        overrides={"tau": 1.0},
        expect=Verdict.HOLDS,
    ),
    choices=_FIG3_CHOICES,
    report=Report(
        r"Fig.~3: the expected gap $\frac1K\mathbb{E}\|\hat y^*-\hat y_{\mathrm{best}}\|^2$ decreases as $N$ "
        r"approaches $m$, from either side ($0$ at $N=m$)",
        Plot(
            x="N",
            curves=[
                ("gap_mean", "mean gap over draws"),
                ("gap_lo", "lower end of its 99% band"),
                ("gap_hi", "upper end of its 99% band"),
            ],
            xlabel="prompt length $N$ ($m=20$)",
            ylabel=r"$\frac{1}{K}\mathbb{E}\|\hat y^*-\hat y_{\mathrm{best}}\|^2$",
        ),
    ),
)
def fig3(ctx: Ctx, *, K: int, m: int, tau: float, Ns: tuple, draws: int) -> Evidence:
    """Yang et al. 2024, Fig. 3 and Sec. 3.3 (statement EXACT; the gap's closed form
    bounds.fig3_gap is DERIVED and checked against Monte Carlo in the unit tests); qualitative; every
    seed.

    The gap of one representation draw is its expectation over lambda ~ N(0, I) and the label noise
    (closed form); the claim averages it over ``draws`` nested draws (experiments.fig3_draws: one
    Z-tilde per draw, prompt = its first N columns, so every N compares on the same draws). Each step
    toward m (ascending N below m, descending N above m) is a paired difference of the gap over the
    draws with a rule ``z`` band. measured: True when every step toward m lowers the mean gap
    (band below 0), False when some step raises it (band above 0), inconclusive otherwise. Expected
    violated (a finding against the paper's reading): the gap is 0 at N = m but peaks near m and falls
    again far from it (the ridge is most sensitive to its penalty where Z Z^T is ill-conditioned).
    Each estimator's error against the truth is reported: the 'best' ridge never beats the
    transformer's under the training prior (see yang2024.lmmse).
    """
    fd = E.fig3_draws(ctx.seed, K, m, tau, tuple(Ns), draws)
    cols = list(range(len(Ns)))
    left = [j for j in cols if Ns[j] <= m]
    right = [j for j in cols if Ns[j] >= m][::-1]
    steps = E.paired_steps(fd.gap, left, ctx.rule("z")) + E.paired_steps(fd.gap, right, ctx.rule("z"))
    wrong = [(Ns[a], Ns[b], d, hw) for a, b, d, hw in steps if d - hw > 0]
    undecided = [(Ns[a], Ns[b]) for a, b, d, hw in steps if d - hw <= 0 < d + hw]
    mean = fd.gap.mean(axis=0)
    half = ctx.rule("z") * fd.gap.std(axis=0, ddof=1) / np.sqrt(draws)
    wins = int(np.sum(fd.err_best < fd.err_transformer))
    notes = [
        "mean gap over draws: "
        + ", ".join(f"N={N}: {g:.3g} +- {h:.2g}" for N, g, h in zip(Ns, mean, half, strict=True)),
        "steps toward m (mean change of the gap, band): "
        + ", ".join(f"{Ns[a]}->{Ns[b]}: {d:+.2e} +- {hw:.1e}" for a, b, d, hw in steps),
        "error vs truth, transformer / 'best': "
        + ", ".join(
            f"N={N}: {a:.4g}/{b:.4g}"
            for N, a, b in zip(Ns, fd.err_transformer.mean(0), fd.err_best.mean(0), strict=True)
        )
        + f"; 'best' beats the transformer in {wins} of {fd.gap.size} (draw, N) cases",
    ]
    if wrong:
        notes.append(f"closer to m is worse at {[(a, b) for a, b, _, _ in wrong]}")
    return Evidence(
        theory=True,
        measured=not wrong,
        inconclusive=None if wrong or not undecided else f"steps {undecided} undecided at the band",
        notes=notes,
        series={
            "N": [float(n) for n in Ns], "gap_mean": mean.tolist(), "gap_lo": (mean - half).tolist(),
            "gap_hi": (mean + half).tolist(), "err_transformer": fd.err_transformer.mean(0).tolist(),
            "err_best": fd.err_best.mean(0).tolist(),
        },
    )  # fmt: skip


def _near_far(Ns: tuple, m: int) -> tuple[list[int], list[int]]:
    """Columns of the grid points next to m (the largest N < m and the smallest N > m) and of every other
    N != m."""
    below = [j for j, N in enumerate(Ns) if N < m]
    above = [j for j, N in enumerate(Ns) if N > m]
    near = ([max(below, key=lambda j: Ns[j])] if below else []) + (
        [min(above, key=lambda j: Ns[j])] if above else []
    )
    return near, [j for j in below + above if j not in near]


_FIG3_NEAR_CHOICES = {
    "z": Choice(
        FIG3_Z,
        range=(1.96, 3.291),
        basis="plausible",
        reason="the band on each paired difference is ours: a two-sided 95% (1.96) to 99.9% (3.29) "
        "normal band",
    ),
    "draws": Choice(
        100,
        range=(50, 300),
        basis="plausible",
        reason="the paper uses one dictionary; our average over nested draws, from half to three times "
        "ours (the paper profile uses 50)",
    ),
    "taus": Choice(
        (0.001, 0.01, 0.1),
        options=((0.001, 0.01, 0.1), (0.01,)),
        basis="plausible",
        reason="the sentence of Sec. 3.2 is for any noise level; Fig. 3 uses tau = 0.01: ours (the "
        "paper's and a decade either side) or the paper's alone",
    ),
    "Ns": NS_CHOICE,
}


@claim(
    "yang2024.fig3.near",
    Source(
        "Fig. 3 and its caption; end of Sec. 3.2 ('the closer m is to N, the closer the "
        "transformer's choice of templates is to the best possible choice'), the weaker reading; gap in "
        "closed form: derivation Sect. 8.5",
        Provenance.EXACT,
        quote=_FIG3_TEXT,
    ),
    kind=Kind.QUALITATIVE,
    statement="the weaker reading of 'the closer m is to N, the better': the expected gap "
    "(1/K) E||y-hat* - y-hat_best||^2 is 0 at N = m and, among N != m, smallest at the grid points next "
    "to m, at the paper's tau and a decade either side",
    profiles=Profiles(quick={"K": 60, "m": 20}, paper={"K": 200, "m": 100, "Ns": NS_PAPER, "draws": 50}),
    seeds=SeedPlan(Seeds.EVERY, experiment="fig3 draws"),
    expect=Expect(Verdict.VIOLATED),
    alternative=Alternative(
        world="noise levels a decade and two above the paper's (tau = 0.1, 1): the weak reading holds there "
        "at every seed, so its violation at tau = 0.001 is no artefact of a check that cannot pass",
        overrides={"taus": (0.1, 1.0)},
        expect=Verdict.HOLDS,
    ),
    choices=_FIG3_NEAR_CHOICES,
    report=Report(
        r"the weaker reading of Sec.~3.2: the expected gap $\frac1K\mathbb{E}\|\hat y^*-\hat "
        r"y_{\mathrm{best}}\|^2$ is smallest, among $N\ne m$, at the grid points next to $m$ "
        r"($\tau=10^{-3},10^{-2},10^{-1}$)"
    ),
)
def fig3_near(ctx: Ctx, *, K: int, m: int, taus: tuple, Ns: tuple, draws: int) -> Evidence:
    """Yang et al. 2024, Fig. 3 and the end of Sec. 3.2, read weakly (statement EXACT, reading ours; the
    gap's closed form bounds.fig3_gap is DERIVED); qualitative; every seed.

    For each tau in ``taus`` (the paper's Fig. 3 noise level 0.01 and a decade either side, fixed by that
    rule), the gap over the
    nested draws of yang2024.fig3 (experiments.fig3_draws) at each grid point next to m is compared with
    the gap at every other N != m by a paired difference with a rule ``z`` band. measured: True when
    every far point's gap is above every near point's (band above 0) at every tau, False when some far
    point's gap is below a near point's (band below 0), inconclusive otherwise; the outcome per tau is
    in the notes. Expected violated: at tau = 0.001 the gap is largest next to m (it holds at the paper's
    tau = 0.01 and at 0.1: the notes).
    """
    near, far = _near_far(tuple(Ns), m)
    wrong, undecided, notes = [], [], []
    for tau in taus:
        fd = E.fig3_draws(ctx.seed, K, m, tau, tuple(Ns), draws)
        diffs = E.paired_diffs(fd.gap, [(a, b) for a in near for b in far], ctx.rule("z"))
        bad = [(Ns[b], Ns[a]) for a, b, d, hw in diffs if d + hw < 0]
        open_ = [(Ns[b], Ns[a]) for a, b, d, hw in diffs if d - hw <= 0 <= d + hw]
        wrong += [(tau, *p) for p in bad]
        undecided += [(tau, *p) for p in open_]
        mean = fd.gap.mean(axis=0)
        verdict = "fails" if bad else "undecided" if open_ else "holds"
        notes.append(
            f"tau={tau:g}: {verdict}; mean gap "
            + ", ".join(f"N={N}: {g:.3g}" for N, g in zip(Ns, mean, strict=True))
            + (f"; far below near at (far N, near N) = {bad}" if bad else "")
        )
    return Evidence(
        theory=True,
        measured=not wrong,
        inconclusive=None if wrong or not undecided else f"(tau, far N, near N) {undecided} undecided",
        notes=notes,
        params={"near": [Ns[j] for j in near], "far": [Ns[j] for j in far]},
    )


_LMMSE_SOURCE = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), a referee's question of the attncheck audit (reviewer question 4), not the paper's "
    "statement; the text: Sec. 3.2 calls the ridge (24)-(25) 'the best prediction we could hope "
    "for'; Assumption 1 (E lambda_i = 0, E lambda_i^2 = 1, independent entries) is the premise "
    "that makes the transformer's ridge the LMMSE estimator"
)
_LMMSE_CHOICES = {
    "Ns": NS_CHOICE,
    "tie_rtol": Choice(
        Rule(1e-12, "N = m: a ratio above 1 + tie_rtol enters the maximum", "attncheck"),
        range=(1e-14, 1e-10),
        basis="plausible",
        reason="a tie at N = m to round-off: 1e-14 to 1e-10 relative",
    ),
}


@claim(
    "yang2024.lmmse",
    Source(
        "Sec. 3.3 (eqs. 20, 23-25); reviewer-style check, not claimed by the paper; derivation Sect. 8.4",
        Provenance.QUESTION,
        quote=_LMMSE_SOURCE,
    ),
    kind=Kind.UPPER,
    statement="under E[lambda lambda^T] = I the transformer's ridge (m tau) has expected error <= the "
    "paper's 'best' ridge (N tau) for every N",
    profiles=Profiles(
        quick={"K": 60, "m": 20, "tau": 0.01, "draws": 100},
        paper={"K": 200, "m": 100, "Ns": NS_PAPER, "draws": 50},
    ),
    seeds=SeedPlan(Seeds.EVERY, experiment="fig3 draws"),
    expect=Expect(consistency=True),
    choices=_LMMSE_CHOICES,
    report=Report(
        r"under $\mathbb{E}[\lambda\lambda^\top]=I$ the transformer's ridge (penalty $m\tau$) has expected "
        r"error $\le$ the `best' ridge's ($N\tau$), every $N$",
        Plot(
            x="N",
            curves=[("E_transformer", r"transformer's ridge, penalty $m\tau$")],
            theory="E_best",
            theory_label=r"bound: 'best' ridge, penalty $N\tau$",
            xlabel="prompt length $N$ ($m=20$)",
            ylabel=r"expected error $\frac{1}{K}\mathbb{E}\|Z_Q^\top(\hat\lambda-\lambda)\|^2$",
            logy=True,
        ),
    ),
)
def lmmse(ctx: Ctx, *, K: int, m: int, tau: float, Ns: tuple, draws: int) -> Evidence:
    """Transformer ridge = LMMSE under the training prior (a reviewer's question, DERIVED); kind upper;
    every seed. Consistency check: the transformer's ridge (ZZ^T + m tau I)^{-1} Z y is the best
    linear estimator of lambda under E[lambda lambda^T] = I (E[tau ||lambda||^2] = m tau), so the
    inequality holds for every Z by construction; it tests bounds.expected_error.

    theory: 1; measured: max over the draws of yang2024.fig3 (same nested draws) and N != m of
    E_tf / E_best, E = bounds.expected_error with penalties m tau and N tau. At N = m the estimators
    coincide; a ratio above 1 + rule ``tie_rtol`` there would enter the maximum.
    """
    fd = E.fig3_draws(ctx.seed, K, m, tau, tuple(Ns), draws)
    ratio = fd.err_transformer / fd.err_best
    tie = np.array([N == m for N in Ns])
    ties = ratio[:, tie]
    worst = float(
        max(np.max(ratio[:, ~tie], initial=0.0), np.max(ties[ties > 1 + ctx.rule("tie_rtol")], initial=0.0))
    )
    return Evidence(
        theory=1.0,
        measured=worst,
        notes=[
            "mean expected error, transformer vs 'best': "
            + ", ".join(
                f"N={N}: {a:.6g} vs {b:.6g}"
                for N, a, b in zip(Ns, fd.err_transformer.mean(0), fd.err_best.mean(0), strict=True)
            )
        ],
        series={
            "N": [float(n) for n in Ns],
            "E_transformer": fd.err_transformer.mean(0).tolist(),
            "E_best": fd.err_best.mean(0).tolist(),
        },
    )
