"""Experiments of the deora2023 claims, one module per claim module of ``verify/deora2023/claims``:

- ``runs``: what several sections share (the mixture problem, GD with snapshots, NTK margins, the random
  derivative cases, the worst-case search scaffold and the box of the loss-level searches);
- ``derivatives``, ``model_bounds``, ``self_bounded``, ``quasiconvex``, ``training``, ``generalization``,
  ``generalization_rates``, ``realizability``, ``ntk``, ``mixture``, ``rates``, ``heads``: the experiments
  of the claim module of the same name (``claims/training_heads.py`` reads the runs of ``training``).

Section modules import ``runs`` only, never each other. This package re-exports the names the claims and
tests use (``E.name``). Sweep points are frozen dataclasses and workers module-level functions, so
``ctx.map`` may send them to a process pool. A cached sweep (``functools.cache``, owned by its section
module) takes a frozen ``*Sweep`` dataclass whose ``mapper`` (the claim's ``ctx.map``) is left out of its
hash: a parallel map returns the serial result, so the mapper never changes the value.
"""

from __future__ import annotations

from verify.deora2023.experiments.derivatives import kappa3_ratios, softmax_ratio_search, softmax_ratios
from verify.deora2023.experiments.generalization import GenDatasets, gen_datasets, gen_gap, shared_test_se
from verify.deora2023.experiments.generalization_rates import (
    GapPoint,
    GapSweep,
    GenRatePoint,
    gap_point,
    gap_sweep,
    gen_rate_point,
)
from verify.deora2023.experiments.heads import HeadsPoint, heads_point
from verify.deora2023.experiments.mixture import NoisyMarginPoint, noisy_margin_trial
from verify.deora2023.experiments.model_bounds import (
    ScalingSweep,
    grad_ratio,
    grad_ratio_search,
    hess_ratio,
    hess_ratio_full,
    hess_ratio_search,
    scaling_sweep,
    trained_problem,
)
from verify.deora2023.experiments.ntk import NtkGramPoint, NtkSweep, ntk_gram_point, ntk_sweep
from verify.deora2023.experiments.quasiconvex import quasiconvex_pairs, quasiconvex_search
from verify.deora2023.experiments.rates import (
    LazyPoint,
    LazySweep,
    decaying_gd_losses,
    lazy_point,
    lazy_sweep,
    rate_runs,
)
from verify.deora2023.experiments.realizability import (
    TAYLOR_LAM_MIN,
    ntk_gram_w0,
    ntk_margin_w0,
    ntk_setup,
    phi_along_theta_star_w0,
    taylor_ratio_search,
    taylor_ratios,
)
from verify.deora2023.experiments.runs import (
    _rng,
    cases,
    make_problem,
    ntk_margins,
    polar_U,
    random_case,
    run_gd,
    shift,
    split_z,
    svm_margin,
    unit_tokens,
    value_norm_max,
)
from verify.deora2023.experiments.self_bounded import (
    WcPoint,
    WcSweep,
    loss_point,
    loss_ratio_search,
    sbgrad_ratios,
    sbwc_ratio,
    smooth_ratios,
    wc_point,
    wc_sweep,
)
from verify.deora2023.experiments.training import TrainConfig, train_experiment

_CACHED = (scaling_sweep, wc_sweep, ntk_sweep, lazy_sweep, train_experiment, gap_sweep)


def clear_caches() -> None:
    """Forget the cached sweeps (a test that perturbs the model must not see earlier results)."""
    for fn in _CACHED:
        fn.cache_clear()


__all__ = [
    "TAYLOR_LAM_MIN",
    "GapPoint",
    "GapSweep",
    "GenDatasets",
    "GenRatePoint",
    "HeadsPoint",
    "LazyPoint",
    "LazySweep",
    "NoisyMarginPoint",
    "NtkGramPoint",
    "NtkSweep",
    "ScalingSweep",
    "TrainConfig",
    "WcPoint",
    "WcSweep",
    "_rng",
    "cases",
    "clear_caches",
    "decaying_gd_losses",
    "gap_point",
    "gap_sweep",
    "gen_datasets",
    "gen_gap",
    "gen_rate_point",
    "grad_ratio",
    "grad_ratio_search",
    "heads_point",
    "hess_ratio",
    "hess_ratio_full",
    "hess_ratio_search",
    "kappa3_ratios",
    "lazy_point",
    "lazy_sweep",
    "loss_point",
    "loss_ratio_search",
    "make_problem",
    "noisy_margin_trial",
    "ntk_gram_point",
    "ntk_gram_w0",
    "ntk_margin_w0",
    "ntk_margins",
    "ntk_setup",
    "ntk_sweep",
    "phi_along_theta_star_w0",
    "polar_U",
    "quasiconvex_pairs",
    "quasiconvex_search",
    "random_case",
    "rate_runs",
    "run_gd",
    "sbgrad_ratios",
    "sbwc_ratio",
    "scaling_sweep",
    "shared_test_se",
    "shift",
    "smooth_ratios",
    "softmax_ratio_search",
    "softmax_ratios",
    "split_z",
    "svm_margin",
    "taylor_ratio_search",
    "taylor_ratios",
    "train_experiment",
    "trained_problem",
    "unit_tokens",
    "value_norm_max",
    "wc_point",
    "wc_sweep",
]
