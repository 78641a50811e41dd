"""Pass rules shared by several claims of the paper (each claim lists the ones it reads)."""

from verify.core.record import Rule

SLOPE_CF = Rule(
    0.05,
    "rate rule: tolerance of the last local slope (over one decade) for closed-form (deterministic) curves",
    "spec pass criterion (half-width of its tail-slope window)",
)
SLOPE_MC = Rule(
    0.1,
    "rate rule: tolerance of the last local slope for Monte Carlo and online-SGD curves",
    "spec pass criterion (half-width of its tail-slope window)",
)
REDUCTION = Rule(
    1e-9, "max deviation of an exact reduction from full-matrix GD (round-off level)", "spec pass criterion"
)
CONST_2PC = Rule((0.98, 1.02), "T excess(T) / derived tail constant within 2%", "spec pass criterion")
MC_Z = Rule(4.0, "max |Monte Carlo - closed form| in standard errors", "spec pass criterion")
MAX_ENTRY = Rule(0.05, "max |A - S*| at T_max", "spec pass criterion")
