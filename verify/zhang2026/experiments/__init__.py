"""GD runs, exact reductions, sweep points and workers, and the computations behind zhang2026's claims.

``experiments/<name>.py`` serves ``claims/<name>.py`` (closed_forms, examples, full_tf, invariants, mnist,
protocol, reviewers, stepsize, thm31_tstar, thm32, variants); :mod:`.runs` holds what two or more claim
modules use (population GD, the scalar (C1, g) recursion and its sweep worker, the online-SGD worker,
the set-ups), all that ``claims/thm31.py`` and ``claims/thm31_constant.py`` need included. The package
re-exports the names the claims, tests and benchmarks use, so ``E.name`` works; a name looked up inside
a module is patched there (e.g. ``monkeypatch.setattr(E.thm31_tstar, ...)``).
"""

from verify.zhang2026.experiments.closed_forms import (
    closedform_checks,
    p_invariance,
    scalar_reduction_deviation,
)
from verify.zhang2026.experiments.examples import batched_population_gd, example_runs, population_gd
from verify.zhang2026.experiments.full_tf import full_tf_shares
from verify.zhang2026.experiments.invariants import Alignment, KQStructure, alignment, kq_structure
from verify.zhang2026.experiments.mnist import digits_run
from verify.zhang2026.experiments.protocol import AsymPoint, asym_curve
from verify.zhang2026.experiments.reviewers import deqk_run, k0_drift
from verify.zhang2026.experiments.runs import (
    EXAMPLES,
    LEAKY,
    LIN,
    CurvePoint,
    ScalarRun,
    SgdPoint,
    Size,
    attn_error,
    circulant_problem,
    log_grid,
    onset,
    population_gd_batched,
    scalar_curve,
    scalar_run,
    seeds_of,
    sgd_curve,
    stacked,
    step_at,
)
from verify.zhang2026.experiments.stepsize import largest_stable_eta, monotone_run, scalar_run_mean
from verify.zhang2026.experiments.thm31_tstar import onset_sweep
from verify.zhang2026.experiments.thm32 import OodCurves, ood_curves, ood_op_search
from verify.zhang2026.experiments.variants import (
    Weighted,
    circulant_run,
    circulant_run_batched,
    dense_teacher_steps,
    nonuniform_runs,
    unequal_sums_floor,
    value_and_positions,
    weighted_support,
)

__all__ = [
    "EXAMPLES",
    "LEAKY",
    "LIN",
    "Alignment",
    "AsymPoint",
    "CurvePoint",
    "KQStructure",
    "OodCurves",
    "ScalarRun",
    "SgdPoint",
    "Size",
    "Weighted",
    "alignment",
    "asym_curve",
    "attn_error",
    "batched_population_gd",
    "circulant_problem",
    "circulant_run",
    "circulant_run_batched",
    "closedform_checks",
    "dense_teacher_steps",
    "deqk_run",
    "digits_run",
    "example_runs",
    "full_tf_shares",
    "k0_drift",
    "kq_structure",
    "largest_stable_eta",
    "log_grid",
    "monotone_run",
    "nonuniform_runs",
    "onset",
    "onset_sweep",
    "ood_curves",
    "ood_op_search",
    "p_invariance",
    "population_gd",
    "population_gd_batched",
    "scalar_curve",
    "scalar_reduction_deviation",
    "scalar_run",
    "scalar_run_mean",
    "seeds_of",
    "sgd_curve",
    "stacked",
    "step_at",
    "unequal_sums_floor",
    "value_and_positions",
    "weighted_support",
]
