"""Experiments of the yang2024 claims, one module per claim module of the same name.

``runs`` holds what two or more claim modules share: problems, initialisations, the step rule, GD
(cached), Theorem 1's quantities at initialisation, predictions against the ridge limit. Each other
module serves the claim module of its name: ``fig2`` (Adam), ``heads`` (GD at a stable gamma, the
fixed-Q floor and its search, GD at a step tuned per H), ``lemma5`` (Monte Carlo of the loss),
``prop1`` (the rank sweep, zeta_0), ``ridge`` (Monte Carlo of Lemma 4, the Fig. 3 draws), ``thm1``
(the tracked run, Hessian, round-off, PL regime) and ``thm2`` (inference and copy ratios, their
worst-case search); claims/subset.py uses ``runs`` only. The names below are those the claims and
tests read as ``E.name``.
"""

from verify.yang2024.experiments.fig2 import adam, first_fall
from verify.yang2024.experiments.heads import (
    Tuned,
    descent_iterations,
    fixed_Q_floor,
    one_head_search,
    stable_run,
    tuned_descent,
)
from verify.yang2024.experiments.lemma5 import lemma5_monte_carlo, random_theta
from verify.yang2024.experiments.prop1 import (
    Prop1Point,
    Prop1Row,
    Zeta0Point,
    min_sigma,
    prop1_seed,
    zeta0_point,
)
from verify.yang2024.experiments.ridge import fig3_draws, lemma4_monte_carlo, paired_diffs, paired_steps
from verify.yang2024.experiments.runs import (
    EPS,
    GAMMA,
    Run,
    canonical_run,
    fmt_count,
    inference_error,
    init_for,
    init_rate,
    problem_for,
    ridge_limit,
    run_gd,
    run_gd_cached,
    step_sizes,
    thin,
    thin_t,
)
from verify.yang2024.experiments.thm1 import (
    empirical_rate,
    hessian_lmax,
    monotone_violation,
    regime_end,
    roundoff,
    tracked_run,
)
from verify.yang2024.experiments.thm2 import copy_error, diverged_notes, inference_ratio, theta_prompt_search

__all__ = [
    "EPS",
    "GAMMA",
    "Prop1Point",
    "Prop1Row",
    "Run",
    "Tuned",
    "Zeta0Point",
    "adam",
    "canonical_run",
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
    "stable_run",
    "step_sizes",
    "theta_prompt_search",
    "thin",
    "thin_t",
    "tracked_run",
    "tuned_descent",
    "zeta0_point",
]
