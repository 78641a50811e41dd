"""Experiment helpers for the deora2023 claims: problem setup, GD runs with snapshots, and the
module-level sweep functions that ``ctx.map`` may send to a process pool."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from verify.deora2023 import model as M
from verify.deora2023.data import Mixture, token_radius
from verify.deora2023.ntk import svm_margin
from verify.numerics.gd import Trajectory, gradient_descent


@dataclass
class Problem:
    """A training set (X (n, T, d), y (n,), relevant-token mask) and an initialisation."""

    X: np.ndarray
    y: np.ndarray
    rel: np.ndarray
    params0: dict[str, np.ndarray]
    mix: Mixture

    @property
    def R(self) -> float:
        return token_radius(self.X)

    @property
    def H(self) -> int:
        return self.params0["U"].shape[0]


def make_problem(
    data_rng: np.random.Generator,
    init_rng: np.random.Generator,
    *,
    n: int,
    H: int,
    T: int = 6,
    d: int = 8,
    S: float = 1.0,
    sigma: float = 0.05,
    M_irr: int = 4,
    variant: str = "O",
    zeta: float = 1 / 3,
    w_scale: float = 0.0,
) -> Problem:
    """Tokenized mixture (spec 9.1) with the paired initialisation I0 (spec 1.5)."""
    mix = Mixture(T=T, d=d, zeta=zeta, S=S, sigma=sigma, M=M_irr, variant=variant)
    X, y, rel = mix.sample(data_rng, n)
    return Problem(X, y, rel, M.init_params(init_rng, H, T, d, w_scale=w_scale), mix)


def run_gd(
    params0: dict[str, np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    eta: float,
    K: int,
    snapshots: tuple[int, ...] | list[int] = (),
    every: int | None = None,
) -> tuple[Trajectory, dict[int, dict[str, np.ndarray]]]:
    """Full-batch GD on the logistic empirical risk; returns the trajectory and copies of theta_k
    at the steps in ``snapshots`` (and every ``every`` steps)."""
    want = set(snapshots) | ({k for k in range(0, K + 1, every)} if every else set())
    snaps: dict[int, dict[str, np.ndarray]] = {}

    def keep(theta, grads, loss, t):
        if t in want:
            snaps[t] = {k: np.array(v, copy=True) for k, v in theta.items()}
        return 0.0

    def lg(theta):
        return M.loss_and_grad(theta, X, y, validate=False)

    traj = gradient_descent(params0, lg, eta, K, record={"snap": keep})
    return traj, snaps


def value_norm_max(params: dict[str, np.ndarray]) -> float:
    """u = max_h ||U_h||_F."""
    return float(np.max(np.linalg.norm(params["U"].reshape(params["U"].shape[0], -1), axis=1)))


def value_norm_mean_sq(params: dict[str, np.ndarray]) -> float:
    """(1/H) sum_h ||U_h||_F^2."""
    return float(np.mean(np.sum(params["U"] ** 2, axis=(1, 2))))


def dist(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> float:
    return float(np.sqrt(sum(np.sum((a[k] - b[k]) ** 2) for k in a)))


def lerp(a: dict[str, np.ndarray], b: dict[str, np.ndarray], s: float) -> dict[str, np.ndarray]:
    return {k: (1.0 - s) * a[k] + s * b[k] for k in a}


def ntk_margins(params: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray):
    """(U-block margin, full margin) of the NTK features y_i grad Phi(theta; X_i)."""
    F = M.features(params, X) * y[:, None]
    H, T, d = M.check_params(params)
    return svm_margin(F[:, : H * T * d]), svm_margin(F)


def curvature_kappa(params: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray) -> float:
    """max(0, -lambda_min(M)) / L(theta): a rigorous upper bound on the self-bounded weak-convexity
    ratio max(0, -lambda_min(grad^2 L)) / L at theta (M = non-PSD, head-block-diagonal part)."""
    lam = M.curvature_lambda_min(params, X, y)
    return max(0.0, -lam) / M.loss(params, X, y)


_MEMO: dict[tuple, object] = {}


def memo(key: tuple, fn):
    """Return the cached ``fn()`` for ``key`` (measurements only; never bounds), computing it once.
    Claims sharing one experiment (train.logic / paperform / Hcond) then run it once per process."""
    if key not in _MEMO:
        _MEMO[key] = fn()
    return _MEMO[key]


def clear_memo() -> None:
    _MEMO.clear()
