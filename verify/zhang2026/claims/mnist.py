"""The paper's MNIST experiment (a conv + 3x3 avg-pool teacher on real images), on scikit-learn's 8x8
digits as a stand-in: the claim ``digits``."""

from __future__ import annotations

import numpy as np

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
    Source,
    Verdict,
    claim,
)
from verify.zhang2026 import experiments as E
from verify.zhang2026.claims.common import NOTE, REVIEWS, RateParts

_DIGITS_CHOICES = {
    "M": Choice(
        4,
        options=(2, 4, 8),
        reason="the number of filters (the paper's trained CNN filters are not recovered): 2 to 8 PCA "
        "filters",
    ),
    "steps": Choice(
        3000,
        range=(1000, 10_000),
        reason="the length of training (not recovered; the paper profile's 10^5 is the long end): a "
        "third of ours to about 3x the cost",
    ),
    "vscales": Choice(
        (5.0, 10.0, 20.0, 50.0),
        options=((5.0, 10.0, 20.0, 50.0), (2.0, 5.0, 10.0, 20.0, 50.0, 100.0)),
        reason="the teacher scale is not recovered, so the sweep must span small to large filters: ours "
        "or a wider one (a sweep without small teachers would leave out the scales the paper may use)",
    ),
    "cos_drop": Choice(
        Rule(
            0.02,
            "largest fall of cos(W_V, V*) below its running maximum ('stays high'; 0.02 absorbs wiggles)",
            "[P] reviewer 2 / [S]: rises early and stays high",
        ),
        range=(0.01, 0.1),
        reason="how large a fall below the running maximum still 'stays high': 0.01 to 0.1",
    ),
}


@claim(
    "zhang2026.digits",
    Source(
        "MNIST experiment ([S]; reviewer 2: early directional alignment), on a digits stand-in",
        Provenance.RECONSTRUCTED,
        quote="cos(W_V, V*) > 0.9 on MNIST: "
        + NOTE
        + "; early directional alignment: reviewer 2 in "
        + REVIEWS,
    ),
    kind=Kind.UPPER,
    statement="conv + 3x3 avg-pool teacher on real images: cos(W_V, V*) rises early and stays high (> 0.9 at "
    "the end, no drop), the attention approaches S*, border rows are recovered worse than interior rows; "
    "judged at every teacher scale of a sweep (the paper's scale is not recovered)",
    assumptions=("scikit-learn's bundled digits (the data extra)", "linear sigma, PCA filters as V*"),
    profiles=Profiles(paper=dict(vscales=(5.0, 10.0, 20.0, 50.0), steps=100_000)),
    expect=Expect(Verdict.VIOLATED),
    alternative=Alternative(
        world="a small teacher only, ||v*_m|| = 5 (the teacher scale is not recovered): the attention "
        "learns slowly and the alignment dips",
        overrides={"vscales": (5.0,)},
    ),
    rules=dict(cos_final=Rule(0.9, "cos(W_V, V*) at the end of training at least this", "[S]: cos > 0.9")),
    choices=_DIGITS_CHOICES,
    report=Report(
        r"conv + $3\times3$ avg-pool teacher on real images (a digits stand-in for MNIST): "
        r"$\cos(W_V,V^*)$ rises early and stays high ($>0.9$ at the end, no drop), $A\to S^*$, border rows "
        r"are recovered worse than interior rows",
        Plot(
            x="t",
            curves=[
                ("vscale_5_cos", r"$\|v^*_m\|=5$"),
                ("vscale_50_cos", r"$\|v^*_m\|=50$"),
            ],
            const=0.9,
            theory_label=r"claim: $\cos>0.9$ at the end",
            xlabel="GD step $t$",
            ylabel=r"$\cos(W_V,V^*)$",
            logx=True,
        ),
    ),
)
def digits(ctx: Ctx, *, M: int, vscales: tuple[float, ...], steps: int) -> Evidence:
    """MNIST experiment [S], on scikit-learn's 8x8 digits as a stand-in
    (:func:`~verify.zhang2026.data.load_patches`: 3x3 patches at stride 1 on a 6x6 grid, D = 36, d = 9; V* =
    top-M PCA filters with rows of norm ``vscale``; 3x3 pooling, K = 9; sigma = id; full-batch GD on all 1797
    images from zero init, exact through the data's second moments). The experiment is reconstructed (the
    paper's CNN filters, their scale, sigma, sizes and steps are not recovered), so a failure is our
    stand-in's, not a finding against the paper. Per teacher scale: cos(W_V, V*) at the end >=
    ``cos_final``; its largest fall below its running maximum <= ``cos_drop``; ||A - S*||_F at the end
    below its initial value; mean |A - S*| over border rows (keys) > over interior rows. Violated if any
    scale of the sweep ``vscales`` fails; the notes give the verdict at each scale. Deterministic (no
    random draw)."""
    parts, notes, series, sweep = RateParts(), [], {}, []
    for vs in vscales:
        first = len(parts.r)
        try:
            r = E.digits_run(ctx, M, vs, steps)
        except ImportError:
            return Evidence(
                theory=1.0, measured=0.0, inconclusive="scikit-learn is not installed (the data extra)"
            )
        if r.stopped:
            parts.exact(f"||v*_m|| = {vs:g}: GD finished", False, r.stopped)
            continue
        drop = float(np.max(np.maximum.accumulate(r.cos) - r.cos))
        parts.atleast(
            f"||v*_m|| = {vs:g}: cos(W_V, V*) at t = {steps}", float(r.cos[-1]), ctx.rule("cos_final")
        )
        parts.tol(f"||v*_m|| = {vs:g}: largest fall of cos below its running max", drop, ctx.rule("cos_drop"))
        parts.tol(
            f"||v*_m|| = {vs:g}: ||A - S*||_F at the end / at t = 1",
            float(r.attn_err[-1] / r.attn_err[0]),
            1.0,
        )
        parts.atleast(f"||v*_m|| = {vs:g}: border / interior row error", r.err_border / r.err_interior, 1.0)
        k, worst = int(np.argmax(r.cos)), max(parts.r[first:])
        sweep.append(f"{vs:g}: {'holds' if worst <= 1.0 else 'violated'} (max r = {worst:.3g})")
        notes.append(
            f"||v*_m|| = {vs:g} (eta {r.eta:.4g}): cos peaks at {r.cos[k]:.3f} (t = {r.times[k]}), ends at "
            f"{r.cos[-1]:.3f}; ||A - S*||_F {r.attn_err[0]:.3f} -> {r.attn_err[-1]:.3f}"
        )
        series[f"vscale_{vs:g}_cos"], series[f"vscale_{vs:g}_attn_err"] = r.cos.tolist(), r.attn_err.tolist()
    series["t"] = E.log_grid(steps).tolist()
    notes.insert(0, f"verdict per teacher scale ||v*_m|| at t = {steps}: " + "; ".join(sweep))
    return parts.evidence(headline=parts.worst_name(), notes=notes, series=series)
