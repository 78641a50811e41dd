"""Pass rules shared by several claims of the paper (each claim lists the ones it reads)."""

from verify.core import Rule

SLOPE_CF = Rule(
    0.05,
    "rate rule: tolerance of the last local slope (over one decade) for closed-form (deterministic) curves",
    "reconstruction pass criterion (half-width of its tail-slope window)",
)
SLOPE_MC = Rule(
    0.1,
    "rate rule: tolerance of the last local slope for Monte Carlo and online-SGD curves",
    "reconstruction pass criterion (half-width of its tail-slope window)",
)
REDUCTION = Rule(
    1e-9,
    "max deviation of an exact reduction from full-matrix GD (round-off level)",
    "reconstruction pass criterion",
)
CONST_2PC = Rule(
    (0.98, 1.02), "T excess(T) / derived tail constant within 2%", "reconstruction pass criterion"
)
MC_Z = Rule(4.0, "max |Monte Carlo - closed form| in standard errors", "reconstruction pass criterion")
MAX_ENTRY = Rule(0.05, "max |A - S*| at T_max", "reconstruction pass criterion")
