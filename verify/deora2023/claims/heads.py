"""The head-count study (derivation Sect. 10.1): does training improve with H at the paper's experimental
protocol (theta(0) = 0, full-batch GD at eta = 1)?"""

from __future__ import annotations

import numpy as np

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
    SeedPlan,
    Seeds,
    Source,
    claim,
)
from verify.deora2023 import experiments as E
from verify.numerics.fit import fit_rate

#: Where the protocol's settings come from (no claim attributes a number of ours to the authors).
PROTOCOL_SOURCE = (
    "the paper's experiment section as quoted by an LLM extraction of its text (acmrep2026.k117.org, page "
    "'On the Optimization and Generalization of Multi-head Attention'; class (B*): quoted sentences, "
    "not the paper itself): DM1 with n = 100 training samples, a test set of 300, 5 trials, "
    "theta(0) = 0, GD with constant step 1.0 (Figure 2, the effect of increasing H); a planted model "
    "with n = 1000 and a test set of 3000"
)


_RULES = {
    "correction": Rule(
        1.0,
        "order q of the pre-asymptotic correction a H^-q: the gain is a power series in the attention "
        "step eta/H (derivation Sect. 10.1), so its next term is relative order H^-1",
        "derivation Sect. 10.1",
    ),
    "reduction_rtol": Rule(
        1e-9,
        "the exact one-head reduction of the runs reproduces the H-head run (smallest H, every trial) to "
        "rounding: relative difference of the training loss after K steps",
        "derivation Sect. 10.1",
    ),
}


def _choices() -> dict[str, Choice]:
    """The head-count claims' choices: the band, the step count and the H grid (the quoted protocol fixes
    n, the test size, theta(0) = 0 and eta = 1, not K nor the heads)."""
    return {
        "tol": Choice(
            Rule(
                0.2,
                "the corrected exponent within 0.2 of -1, the suite's order-level window of the 1/n-type "
                "rates (rate.K, gen.gap); the mean-field step's exponent 0 is 1 away",
                "reconstruction pass criterion (by analogy)",
            ),
            range=(0.1, 0.3),
            reason="from 0.1 (the suite's tighter rate bands) to 0.3 (the alternative world's exponent 0 is "
            "1 away)",
        ),
        "K": Choice(
            100,
            range=(50, 300),
            reason="GD steps (the quoted protocol gives none): half ours to the paper profile's 300",
        ),
        "Hs": Choice(
            (4, 8, 16, 32, 64),
            options=((4, 8, 16, 32, 64), (8, 16, 32, 64, 128)),
            reason="the head grid (the quoted Figure 2 gives no list here): ours or one octave up; the law "
            "is asymptotic in H",
        ),
    }


_PLOTS = (
    Plot.rate(
        -1.0,
        "H",
        [("gain", "gain over frozen attention")],
        "heads $H$",
        r"$\hat L_K^{\mathrm{frozen}}-\hat L(\theta_K)$",
        theory_label="theory: slope $-1$",
    ),
    Plot(
        x="H",
        curves=[("train_loss", "training loss $\\hat L(\\theta_K)$"), ("test_loss", "test loss")],
        theory="frozen_loss",
        theory_label="frozen attention (the $H\\to\\infty$ limit)",
        xlabel="heads $H$",
        ylabel="loss after $K$ steps",
        logx=True,
        logy=True,
    ),
)


def _heads(
    ctx: Ctx, Hs: tuple[int, ...], n: int, n_test: int, K: int, eta: float, attn_step_exp: float, data: str
) -> Evidence:
    """The head-count study on ``data`` ("mixture" or "planted"): the gain over frozen attention against H,
    judged as a rate with exponent -1 (.heads.loss, .heads.loss.planted). The runs are the exact one-head
    reduction of :func:`verify.deora2023.experiments.heads_point`; at the smallest H every trial also runs
    the H heads in full, which must give the same training loss (rule ``reduction_rtol``)."""

    def point(s: int, H: int, attn_step: float, full: bool = False) -> E.HeadsPoint:
        return E.HeadsPoint(s, H, n, n_test, K, eta, attn_step, data, full)

    pts = [point(s, H, float(H) ** attn_step_exp) for s in ctx.seed_set for H in Hs]
    out = np.array(ctx.map(E.heads_point, pts)).reshape(len(ctx.seed_set), len(Hs), 3)
    # the frozen-attention run (attn_step 0) of each seed, at the smallest H (its U-only loss is H-free)
    frozen = np.array(ctx.map(E.heads_point, [point(s, Hs[0], 0.0) for s in ctx.seed_set]))
    full = np.array(ctx.map(E.heads_point, [point(s, Hs[0], float(Hs[0]) ** attn_step_exp, True)
                                            for s in ctx.seed_set]))  # fmt: skip
    train, test = out[:, :, 0].T, out[:, :, 1].T
    gain = frozen[None, :, 0] - train  # (len(Hs), n_seeds)
    dev = float(np.max(np.abs(full[:, 0] - train[0]) / train[0]))
    notes = [
        "training loss after K steps (mean over trials) "
        + ", ".join(f"H={H}: {v:.4g}" for H, v in zip(Hs, train.mean(1), strict=True))
        + f"; frozen attention {frozen[:, 0].mean():.4g}",
        "test loss " + ", ".join(f"H={H}: {v:.4g}" for H, v in zip(Hs, test.mean(1), strict=True)),
        f"rises with H at every trial: {bool(np.all(np.diff(train, axis=0) > 0))}; the H = {Hs[0]} heads run "
        f"in full: largest spread between heads {float(full[:, 2].max()):.1e} (0: the heads move as one), "
        f"training loss {dev:.1e} (relative) from the one-head reduction",
    ]
    series = {
        "H": list(Hs),
        "gain": gain.tolist(),
        "train_loss": train.tolist(),
        "test_loss": test.tolist(),
        "frozen_loss": [float(frozen[:, 0].mean())] * len(Hs),
    }
    if not dev <= ctx.rule("reduction_rtol"):
        why = f"the one-head reduction misses the H = {Hs[0]} heads run by {dev:.1e} (relative training loss)"
        return Evidence(theory=-1.0, measured=None, inconclusive=why, notes=notes, series=series)
    if not np.all(gain > 0):
        return Evidence(
            theory=-1.0,
            measured=None,
            failed=["the attention does not lower the loss at some H and trial (gain <= 0)"],
            notes=notes,
            series=series,
        )
    fit = fit_rate(np.array(Hs, float), gain, window=3, correction=ctx.rule("correction"))
    return Evidence(theory=-1.0, measured=fit, tol=ctx.rule("tol"), notes=notes, series=series)


@claim(
    "deora2023.heads.loss",
    Source(
        "derivation Sect. 10.1 (from theta(0) = 0 the heads move together; first order in the "
        "attention's step eta/H); the protocol of the paper's head-count experiment (Fig. 2, DM1)",
        Provenance.DERIVED,
        quote=PROTOCOL_SOURCE,
    ),
    kind=Kind.RATE,
    statement="at the paper's head-count protocol (theta(0) = 0, full-batch GD at eta = 1; our 1/sqrt(H) "
    "output scaling; DM1 read as our tokenized mixture) more heads do not improve training: every head "
    "gets the same update, so H heads are one head whose attention step is eta/H, the training loss "
    "after K steps rises with H toward the loss of frozen attention, and its gain over frozen attention "
    "falls like H^-1",
    assumptions=("the attention lowers the loss: L_K(frozen) - L_K(H) > 0 at every H and trial",),
    profiles=Profiles(
        quick=dict(n=100, n_test=300, eta=1.0, attn_step_exp=0.0),
        paper=dict(Hs=(4, 8, 16, 32, 64, 128, 256, 512), K=300),
    ),
    seeds=SeedPlan(Seeds.POOLED, quick=5, paper=10),
    expect=Expect(consistency=True),
    rules=_RULES,
    choices=_choices(),
    report=Report(
        r"at $\theta(0)=0$ and GD with $\eta=1$ ($1/\sqrt H$ scaling), the $H$ heads move as one head "
        r"with attention step $\eta/H$: $\hat L(\theta_K)$ rises with $H$ toward the frozen-attention loss "
        r"$\hat L_K^{\mathrm{frozen}}$, and $\hat L_K^{\mathrm{frozen}}-\hat L(\theta_K)\sim H^{-1}$",
        *_PLOTS,
    ),
)
def heads_loss(
    ctx: Ctx, *, Hs: tuple[int, ...], n: int, n_test: int, K: int, eta: float, attn_step_exp: float
) -> Evidence:
    """Derivation Sect. 10.1 / claim deora2023.heads.loss [DERIVED; the protocol's settings are the paper's
    as quoted by a (B*) extraction, see ``source``; the data model DM1 is NOT RECOVERED and read as our
    mixture]. Kind: rate, exponent -1, tolerance rule ``tol``, correction order rule ``correction``.
    Seeds: pooled, one trial (training set of n, test set of n_test) per seed, every H on the same data.
    measured: the corrected exponent of gain(H) = L_hat_K(frozen attention) - L_hat_K(H) over ``Hs``, one
    column per seed. Quick: K = 100, H up to 64, 5 trials (the paper's count); paper profile: K = 300
    (the step count of the audit that asked the question), H up to 512, 10 trials (the suite's
    minimum). ``attn_step_exp``: the attention step is eta H^attn_step_exp (0: plain GD; 1: the
    mean-field step, under which the gain is flat in H). Consistency check: from theta(0) = 0 our model's
    heads get identical updates, so the H-head run IS the one-head run at attention step eta/H (checked
    to rounding, rule ``reduction_rtol``) and the gain's exponent -1 is the first order of that step:
    it follows from the model and protocol we built, and no measurement of the paper enters."""
    return _heads(ctx, Hs, n, n_test, K, eta, attn_step_exp, "mixture")


@claim(
    "deora2023.heads.loss.planted",
    Source(
        "derivation Sect. 10.1, on the paper's second data model (a planted model, sizes as quoted)",
        Provenance.DERIVED,
        quote=PROTOCOL_SOURCE,
    ),
    kind=Kind.RATE,
    statement="the head-count law of .heads.loss on a planted model (labels of a one-head attention "
    "teacher on Gaussian tokens; ours, the paper's planted model is NOT RECOVERED): from theta(0) = 0 with "
    "GD at eta = 1 the gain of the H-head run over frozen attention falls like H^-1",
    assumptions=("the attention lowers the loss: L_K(frozen) - L_K(H) > 0 at every H and trial",),
    profiles=Profiles(
        quick=dict(n=100, n_test=300, eta=1.0, attn_step_exp=0.0),
        paper=dict(Hs=(4, 8, 16, 32, 64, 128, 256, 512), n=1000, n_test=3000, K=300),
    ),
    seeds=SeedPlan(Seeds.POOLED, quick=3, paper=10),
    expect=Expect(consistency=True),
    rules=_RULES,
    choices=_choices(),
    report=Report(
        r"on a planted model, from $\theta(0)=0$ with GD at $\eta=1$: "
        r"$\hat L_K^{\mathrm{frozen}}-\hat L(\theta_K)\sim H^{-1}$",
        *_PLOTS,
    ),
)
def heads_loss_planted(
    ctx: Ctx, *, Hs: tuple[int, ...], n: int, n_test: int, K: int, eta: float, attn_step_exp: float
) -> Evidence:
    """Derivation Sect. 10.1 / claim deora2023.heads.loss.planted [DERIVED; data RECONSTRUCTED]. Kind: rate,
    as .heads.loss, on :class:`verify.deora2023.data.Planted`. Quick keeps small settings (n = 100, test
    300, K = 100, 3 trials); the paper profile has the quoted sizes n = 1000, test 3000 (10 trials, the
    suite's minimum; the paper averages 5) with K = 300 and H up to 512. Consistency check, as
    .heads.loss (the one-head reduction does not depend on the data)."""
    return _heads(ctx, Hs, n, n_test, K, eta, attn_step_exp, "planted")
