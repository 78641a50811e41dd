"""Experiments of the yang2024 claims, one module per claim module of the same name.

``runs`` holds what two or more claim modules share: problems, initialisations, the step rule, GD
(cached; at a gamma that does not diverge; tracked for Theorem 1's premises), Theorem 1's quantities at
initialisation, predictions against the ridge limit, the loss floor at fixed Q, the notes of diverged
runs. Each other module serves the claim module of its name: ``fig2`` (Adam), ``fig3`` (the Fig. 3
draws, paired differences), ``fig4`` (the stable runs' losses of a seed set, one batched GD),
``lemma5`` (Monte Carlo of the loss), ``multihead`` (the worst case of the orthant floor), ``prop1``
(the rank sweep, zeta_0), ``ridge`` (Monte Carlo of Lemma 4), ``speed`` (GD at a step tuned per H),
``thm1`` (Hessian, round-off, PL regime) and ``thm2`` (inference and copy ratios, their worst-case
search); claims/subset.py, thm1_pl.py and thm2_iters.py use ``runs`` only. The names below are those
the claims and tests read as ``E.name``.
"""

from verify.yang2024.experiments import fig4, runs, speed
from verify.yang2024.experiments.fig2 import adam, first_fall
from verify.yang2024.experiments.fig3 import fig3_draws, paired_diffs, paired_steps
from verify.yang2024.experiments.fig4 import Losses, stable_losses
from verify.yang2024.experiments.lemma5 import lemma5_monte_carlo, random_theta
from verify.yang2024.experiments.multihead import one_head_search
from verify.yang2024.experiments.prop1 import (
    Prop1Point,
    Prop1Row,
    Zeta0Point,
    min_sigma,
    prop1_seed,
    zeta0_point,
)
from verify.yang2024.experiments.ridge import lemma4_monte_carlo
from verify.yang2024.experiments.runs import (
    EPS,
    GAMMA,
    Run,
    canonical_run,
    diverged_notes,
    fixed_Q_floor,
    fmt_count,
    inference_error,
    init_for,
    init_rate,
    problem_for,
    ridge_limit,
    run_gd,
    run_gd_cached,
    stable_run,
    step_sizes,
    thin,
    thin_t,
    tracked_run,
)
from verify.yang2024.experiments.speed import Tuned, descent_iterations, tuned_descent
from verify.yang2024.experiments.thm1 import (
    empirical_rate,
    hessian_lmax,
    monotone_violation,
    regime_end,
    roundoff,
)
from verify.yang2024.experiments.thm2 import copy_error, inference_ratio, theta_prompt_search


def clear_runs() -> None:
    """Forget the problems and runs this process keeps (problems, GD runs, the completed runs longer ones
    continue, fig4's batched runs, speed's descent runs): for a test that perturbs what they compute, or
    that compares a batch with its runs alone."""
    for cache in (
        runs.problem_for,
        runs.run_gd_cached,
        runs.completed_runs,
        fig4.batched_runs,
        speed.descent_run,
    ):
        cache.cache_clear()


__all__ = [
    "EPS",
    "GAMMA",
    "Losses",
    "Prop1Point",
    "Prop1Row",
    "Run",
    "Tuned",
    "Zeta0Point",
    "adam",
    "canonical_run",
    "clear_runs",
    "copy_error",
    "descent_iterations",
    "diverged_notes",
    "empirical_rate",
    "fig3_draws",
    "first_fall",
    "fixed_Q_floor",
    "fmt_count",
    "hessian_lmax",
    "inference_error",
    "inference_ratio",
    "init_for",
    "init_rate",
    "lemma4_monte_carlo",
    "lemma5_monte_carlo",
    "min_sigma",
    "monotone_violation",
    "one_head_search",
    "paired_diffs",
    "paired_steps",
    "problem_for",
    "prop1_seed",
    "random_theta",
    "regime_end",
    "ridge_limit",
    "roundoff",
    "run_gd",
    "run_gd_cached",
    "stable_losses",
    "stable_run",
    "step_sizes",
    "theta_prompt_search",
    "thin",
    "thin_t",
    "tracked_run",
    "tuned_descent",
    "zeta0_point",
]
