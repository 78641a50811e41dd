"""Pass rules shared by several claims of the paper (each claim lists the ones it reads)."""

from verify.core.record import Rule

SLOPE_CF = Rule(
    0.05, "half-width of the tail-slope window for closed-form (deterministic) curves", "spec pass criterion"
)
SLOPE_MC = Rule(0.1, "half-width of the tail-slope window for Monte Carlo curves", "spec pass criterion")
REDUCTION = Rule(
    1e-9, "max deviation of an exact reduction from full-matrix GD (round-off level)", "spec pass criterion"
)
CONST_2PC = Rule((0.98, 1.02), "T excess(T) / derived tail constant within 2%", "spec pass criterion")
MC_Z = Rule(4.0, "max |Monte Carlo - closed form| in standard errors", "spec pass criterion")
