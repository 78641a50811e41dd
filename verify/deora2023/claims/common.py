"""What several deora2023 claim modules share: the choice of a worst-case search's budget (every module that
searches) and the space of the loss-level searches (``self_bounded``, ``quasiconvex``). Claim modules import
this module, never each other."""

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
        basis="plausible",
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
