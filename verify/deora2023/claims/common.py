"""What several deora2023 claim modules share: the choice of a worst-case search's budget (every module
that searches), the space of the loss-level searches (``self_bounded``, ``quasiconvex``) and the set-up
of the D-train runs (``training``, ``training_heads``). Claim modules import this module, never each
other."""

from __future__ import annotations

from verify.core import Choice


def search_choice(value: tuple[int, ...], t_index: int) -> Choice:
    """The ``search`` parameter (the searched sizes, then starts and L-BFGS-B iterations) as a choice: ours,
    twice the starts, or one token more (the size at ``t_index`` is T). The bound is stated for every size
    and the paper fixes no search, so a reader may pick either."""
    more = (*value[:-2], 2 * value[-2], value[-1])
    longer = (*value[:t_index], value[t_index] + 1, *value[t_index + 1 :])
    return Choice(
        value,
        options=(value, more, longer),
        reason="the worst-case search (sizes searched, starts, iterations; the paper fixes none): ours, "
        "twice the starts (twice its time), or one token more (T + 1)",
    )


def loss_space(polar: bool, per_sample: bool = True) -> str:
    """The space of :func:`verify.deora2023.experiments.loss_ratio_search` (``polar``: U in polar form;
    ``per_sample``: the bound is a sum of per-sample terms, so one sample loses nothing)."""
    U = "U = u/||u|| 10 tanh(l^2/10) (U = 0 a smooth point)" if polar else "U = 10 tanh(z_U/10) entrywise"
    why = "each bound is a sum of per-sample terms, and " if per_sample else ""
    return (
        "every theta = (U, W) and a one-sample data set (X, y = +1) at (H, T, d) = search[:3] (no loss: "
        f"{why}y Phi(theta; X) = Phi(theta; yX)); {U}, W = z_W/R^2, X = R x/max_t ||x_t|| with log R "
        "smoothly clamped to (log 1e-6, log 10); starts N(0, 1)"
    )


#: The D-train experiment's quick parameters besides its choices (:data:`TRAIN_CHOICES`).
TRAIN_QUICK = dict(T=4, d=4, M_irr=2, eta=1.0, every=40, seg_points=4)
TRAIN_PAPER = dict(
    n=40,
    H=256,
    T=6,
    d=8,
    M_irr=4,
    K=600,
    eta=1.0,
    every=150,
    seg_points=6,
    eps=(0.3, 0.1, 0.01),
    late_factor=3,
)

#: The D-train experiment's choices: sizes and horizon of our run (the paper's theorem is for any of them).
TRAIN_CHOICES = {
    "K": Choice(120, range=(60, 360), reason="GD steps judged by the theorem (for any K): half to 3x ours"),
    "H": Choice(
        64,
        options=(32, 64, 128),
        reason="heads of the trained model: half or twice ours (the paper profile's 256 is too slow for a "
        "quick check; a set: the paired initialisation needs an even H)",
    ),
    "n": Choice(16, range=(8, 32), reason="training samples: half to twice ours"),
    "token_scale": Choice(
        1.0,
        range=(0.5, 2.0),
        reason="the token scale of our mixture (the paper's data model is NOT RECOVERED): half to twice "
        "ours; the alternative worlds' 1/5 and 1/100 are other data laws",
    ),
    "late_factor": Choice(
        3,
        range=(2, 5),
        reason="the late iterate theta_{late_factor K} used as a reference point: 2K to 5K steps",
    ),
    "eps": Choice(
        (0.3, 0.1),
        options=((0.3, 0.1), (0.3, 0.1, 0.01), (0.5, 0.3, 0.1)),
        reason="the losses eps of the realizability reference points (the theorem is for any reference "
        "point): ours, with the paper profile's eps = 0.01 added, or with eps = 0.5 added",
    ),
}
