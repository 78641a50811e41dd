"""Experiments of the wu2023 claims, one module per claim module (``experiments/ntk.py`` serves
``claims/ntk.py``) over :mod:`.runs`, what two or more of them share:

- ``runs``: seeded set-ups (the set-up of a Prop. 1 run among them), GD alone and batched, the sweep
  point and the pooled sweep, Prop. 1's quantities at init and along a run, the width-threshold data
  summary, the array worst-case search;
- ``alpha``, ``alpha_gram``, ``assumptions``, ``attention``, ``d_below_n``, ``gradients``, ``ntk``,
  ``prop1_proof``, ``stepsize``, ``tightness``, ``training``, ``width_order``: what only the claim module
  of that name uses;
- ``fig9``: the Fig. 9 runs, one set that the claims of ``claims/fig9.py`` and ``claims/fig9_ntk.py``
  share (through ``claims/common.py``, experiment "fig9").

``claims/prop1.py`` and ``claims/widths.py`` need only ``runs``. A section module imports only ``runs``,
never another section. This package re-exports the names the claims and tests use, so ``E.name``
(``from verify.wu2023 import experiments as E``) finds each; a test that patches a name a function looks
up patches the module that function lives in (``E.stepsize``).
"""

from verify.wu2023.experiments.alpha import XAVIER, ConcPoint, alpha_he_lecun, alpha_sq, conc_gap, conc_point
from verify.wu2023.experiments.alpha_gram import hermite_gap
from verify.wu2023.experiments.assumptions import assumption3, covariance_tails, tail_constant
from verify.wu2023.experiments.attention import (
    PoolingPoint,
    pooling_gap,
    pooling_point,
    qk_sweep,
    s_dev_sweep,
)
from verify.wu2023.experiments.d_below_n import digits_gd_run
from verify.wu2023.experiments.fig9 import Fig9Point, fig9_runs
from verify.wu2023.experiments.gradients import softmax_lip_ratio
from verify.wu2023.experiments.ntk import ntk_limit_err, ntk_mineig_ratio, ntk_rate_run
from verify.wu2023.experiments.prop1_proof import (
    feature_jacobian,
    lipschitz_ratios,
    lipschitz_search,
    ntk_floor_ratio,
    params_from_flat,
    pl_ratio,
    theta_search,
)
from verify.wu2023.experiments.runs import (
    Point,
    Setup,
    array_search,
    c_ratio_sweep,
    data_summary,
    gd_setup,
    inverse_lam_max_step,
    lam_max,
    make_setup,
    min_width_of,
    pooled,
    prop1_at_init,
    prop1_premises,
    run_gd,
    run_gd_batched,
    stack_setups,
    thm_width_fn,
    threshold,
)
from verify.wu2023.experiments.stepsize import stable_step
from verify.wu2023.experiments.tightness import PremisePoint, premise_run, width_protocol
from verify.wu2023.experiments.training import common_scaling_step, gd_sweep, init_rate_runs
from verify.wu2023.experiments.width_order import width_orders

__all__ = [
    "XAVIER",
    "ConcPoint",
    "Fig9Point",
    "Point",
    "PoolingPoint",
    "PremisePoint",
    "Setup",
    "alpha_he_lecun",
    "alpha_sq",
    "array_search",
    "assumption3",
    "c_ratio_sweep",
    "common_scaling_step",
    "conc_gap",
    "conc_point",
    "covariance_tails",
    "data_summary",
    "digits_gd_run",
    "feature_jacobian",
    "fig9_runs",
    "gd_setup",
    "gd_sweep",
    "hermite_gap",
    "init_rate_runs",
    "inverse_lam_max_step",
    "lam_max",
    "lipschitz_ratios",
    "lipschitz_search",
    "make_setup",
    "min_width_of",
    "ntk_floor_ratio",
    "ntk_limit_err",
    "ntk_mineig_ratio",
    "ntk_rate_run",
    "params_from_flat",
    "pl_ratio",
    "pooled",
    "pooling_gap",
    "pooling_point",
    "premise_run",
    "prop1_at_init",
    "prop1_premises",
    "qk_sweep",
    "run_gd",
    "run_gd_batched",
    "s_dev_sweep",
    "softmax_lip_ratio",
    "stable_step",
    "stack_setups",
    "tail_constant",
    "theta_search",
    "thm_width_fn",
    "threshold",
    "width_orders",
    "width_protocol",
]
