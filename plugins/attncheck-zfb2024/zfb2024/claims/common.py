"""Shared pieces of the claim modules: the seeded set-up (Lambda, Theta Theta^T, sigma), the reduced
flow every Lemma-5 claim reads (one per seed, cached), and the equivalence rule on Monte Carlo intervals."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from verify.core import Choice, Evidence, Interval, Rule
from verify.numerics.stats import mean_half_width
from zfb2024 import data, dynamics, theory

#: The paper's citation prefix of every claim reference.
V3 = "arXiv v3"

#: The two-sided level of every Monte Carlo interval.
LEVEL = 0.99

SIGMA_FRAC = Choice(
    0.5,
    range=(0.1, 0.9),
    reason="sigma^2 as a fraction of Theorem 4.1's bound 2 / (sqrt(d) ||Gamma||_op): any value inside "
    "the theorem's regime; 0.1 to 0.9 stays clear of both ends",
)

MARGIN = Choice(
    Rule(
        0.02,
        "equivalence margin: the 99% interval of the Monte Carlo estimate's relative deviation from the "
        "closed form must lie below it (holds) or above it (violated)",
    ),
    range=(0.01, 0.04),
    reason="half to twice 2%: above the 99% half-widths of the quick samples (0.2% to 1%, heavy-tailed "
    "squared errors), well below the alternative worlds' deviations (12% and more)",
)

ODE_TOL = Choice(
    Rule(1e-10, "an ODE equality: the largest deviation at round-off of solve_ivp (rtol 1e-12)"),
    range=(1e-11, 1e-9),
    reason="1e-10 for ODE equalities (solve_ivp at rtol 1e-12 reaches round-off), 10x tighter or looser; "
    "measured deviations are below 1e-12",
)


@dataclass(frozen=True)
class Setup:
    """One seed's draw: covariance ``lam`` (d, d), Theta Theta^T ``theta2``, the init scale ``sigma``."""

    lam: np.ndarray
    theta2: np.ndarray
    sigma: float
    N: int


def setup(seed: int, d: int, N: int, sigma_frac: float) -> Setup:
    """Lambda = Q diag(Uniform(0.5, 2)) Q^T, Theta Theta^T = M M^T / ||M M^T||_F, and
    sigma^2 = sigma_frac * 2 / (sqrt(d) ||Gamma||_op), from generator (seed, 0)."""
    rng = np.random.default_rng([seed, 0])
    lam = data.random_lambda(rng, d)
    return Setup(lam, data.random_theta2(rng, d), float(np.sqrt(sigma_frac * theory.sigma2_max(lam, N))), N)


@functools.cache
def reduced_flow(
    seed: int, d: int, N: int, sigma_frac: float, t_end: float, sign: float = 1.0, unbalance: float = 0.0
) -> tuple[Setup, dynamics.Flow]:
    """The gradient flow (5.4) of one seed from (3.10) (``sign`` -1: U11(0) flipped; ``unbalance``:
    u_{-1}(0) = sigma (1 + unbalance)), cached per process: the Lemma-5 claims share it."""
    s = setup(seed, d, N, sigma_frac)
    U0, u0 = dynamics.init(s.theta2, s.sigma, sign=sign, unbalance=unbalance)
    return s, dynamics.flow(dynamics.reduced_rhs(s.lam, N), U0, u0, t_end)


def mc_mean(batches: np.ndarray) -> tuple[float, Interval]:
    """The mean of K independent batch estimates (K,) and its two-sided 99% t interval (K - 1 dof)."""
    b = np.asarray(batches, dtype=np.float64)
    if b.ndim != 1 or b.size < 2:
        raise ValueError(f"batches must be (K,) with K >= 2, got shape {b.shape}")
    mean = float(b.mean())
    half = mean_half_width(b, 0.5 + LEVEL / 2)
    return mean, Interval(mean - half, mean + half, LEVEL, "two-sided")


def equivalence(batches: np.ndarray, theory_value: float, margin: float, what: str) -> Evidence:
    """The equivalence rule on a Monte Carlo interval: ``batches`` holds K independent batch estimates
    of a quantity whose closed form is ``theory_value``; measured = |mean - theory| / |theory| with its
    99% interval, judged as an upper bound by ``margin`` (holds: the whole interval is below; violated:
    the whole interval is above)."""
    mean, iv = mc_mean(batches)
    scale = abs(theory_value)
    ends = sorted((abs(iv.lo - theory_value) / scale, abs(iv.hi - theory_value) / scale))
    lo = 0.0 if iv.lo <= theory_value <= iv.hi else ends[0]
    return Evidence(
        theory=margin,
        measured=abs(mean - theory_value) / scale,
        interval=Interval(lo, ends[1], LEVEL, "two-sided"),
        notes=[
            f"{what}: Monte Carlo {mean:.6g} +- {(iv.hi - iv.lo) / 2:.2g} (99%, {len(batches)} batches) vs "
            f"closed form {theory_value:.6g}"
        ],
    )
