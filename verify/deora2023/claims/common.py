"""What several deora2023 claim modules share: the choice of a worst-case search's budget (every module that
searches). Claim modules import this module, never each other."""

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
