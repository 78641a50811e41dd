"""Experiments of claims/prop1.py (yang2024.prop1, prop1.assump3, zeta0.scale): the Proposition 1 rank
sweep and zeta_0 at initialisation. Sweep points are frozen dataclasses and their workers module-level
functions (``ctx.map`` may run them in other processes)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_choice
from verify.yang2024 import data as D
from verify.yang2024 import model as M
from verify.yang2024.experiments.runs import init_for, problem_for


@dataclass(frozen=True)
class Prop1Point:
    """One seed of the Proposition 1 sweep: heads Hs, scales betas; rank_tol: sigma_min / ||C_k|| a
    rank-N C_k must exceed."""

    seed: int
    config: D.Config
    Hs: tuple[int, ...]
    betas: tuple[float, ...]
    rank_tol: float


@dataclass(frozen=True)
class Prop1Row:
    """Outcome at one (seed, H, beta): smallest relative sigma_min of C_k (its N-th singular value over
    its largest; 0 when H < N), zeta_0, whether rank N holds (above rank_tol), whether the tokens
    satisfy Assumption 3."""

    seed: int
    H: int
    beta: float
    rel_sigma_min: float
    zeta0: float
    ok: bool
    a3: bool


def prop1_seed(pt: Prop1Point) -> list[Prop1Row]:
    """Per (H, beta) of one seed: the rank test of Proposition 1 (rank N relative to machine precision;
    impossible when H < N, where C_k (N, H) has rank <= H) and zeta_0."""
    problem = problem_for(pt.seed, pt.config)
    a3 = D.satisfies_assumption3(problem.V)
    rows = []
    for H in pt.Hs:
        model = M.Transformer(H)
        Z0 = init_for(pt.seed, problem, H, 1.0).Q  # one draw per (seed, H), scaled by beta
        for beta in pt.betas:
            C = model.attention(beta * Z0, problem).transpose(2, 1, 0)  # (K, N, H)
            z0 = B.zeta0(np.matmul(problem.Zbar, C))
            rel = 0.0
            if H >= problem.N:
                s = np.linalg.svd(C, compute_uv=False)
                rel = float(np.min(s[:, problem.N - 1] / s[:, 0]))
            rows.append(Prop1Row(pt.seed, H, beta, rel, z0, rel > pt.rank_tol, a3))
    return rows


def min_sigma(problem: D.Problem, H: int, seed: int) -> float:
    """min_k sigma_min(C_k) at the beta = 1 init of H heads."""
    model = M.Transformer(H)
    C = model.attention(init_for(seed, problem, H, 1.0).Q, problem).transpose(2, 1, 0)
    s = np.linalg.svd(C, compute_uv=False)
    return float(np.min(s[:, problem.N - 1]))


#: Output scalings of the heads: the paper's eq. (8) (sum of the heads) and the NTK parametrisation
#: (the sum divided by sqrt(H), so that B_k = Zbar C_k / sqrt(H))
OUTPUT_SCALES = ("1", "1/sqrt(H)")


@dataclass(frozen=True)
class Zeta0Point:
    """zeta_0 of one (seed, H, beta) init at ``config``, for the output scaling ``output_scale`` (one of
    OUTPUT_SCALES)."""

    seed: int
    config: D.Config
    H: int
    beta: float
    output_scale: str = "1"


def zeta0_point(pt: Zeta0Point) -> float:
    p = problem_for(pt.seed, pt.config)
    model, th = M.Transformer(pt.H), init_for(pt.seed, p, pt.H, pt.beta)
    if check_choice("output_scale", pt.output_scale, OUTPUT_SCALES) == "1":
        return model.zeta(th, p)
    return B.zeta0(model.B_matrices(th, p) / np.sqrt(pt.H))
