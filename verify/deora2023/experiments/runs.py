"""The set-ups and runs that several sections of deora2023 share: the data-and-initialisation problem,
full-batch GD with snapshots, the parameter-space helpers, the NTK margins (the SVM of derivation Sect. 11),
the random cases of the derivative checks, and the scaffold of the worst-case searches (with the box
of the loss-level searches).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import minimize

from bounds.checks import check_array, check_int
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.model import Params
from verify.numerics.gd import Trajectory, gradient_descent
from verify.numerics.worstcase import WorstCase, worst_case

MODEL = M.MultiHeadAttention()


def _rng(seed: int, *keys: int) -> np.random.Generator:
    """The stream ``Ctx(seed=seed).rng(*keys)`` gives."""
    return np.random.default_rng([seed, *keys])


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
) -> D.Problem:
    """Tokenized mixture (derivation Sect. 9.1) with the paired initialisation I0 (derivation Sect. 1.5)."""
    mix = D.Mixture(T=T, d=d, zeta=zeta, S=S, sigma=sigma, M=M_irr, variant=variant)
    X, y, rel = mix.sample(data_rng, n)
    return D.Problem(X, y, rel, M.init_params(init_rng, H, T, d, w_scale=w_scale), mix)


def run_gd(
    params0: Params,
    X: np.ndarray,
    y: np.ndarray,
    eta: float | Mapping[str, float],
    K: int,
    snapshots: tuple[int, ...] | list[int] = (),
    every: int | None = None,
) -> tuple[Trajectory, dict[int, M.AttnParams]]:
    """Full-batch GD on the logistic empirical risk (``eta``: one step, or one per block "U", "W");
    returns the trajectory and copies of theta_k at the steps in ``snapshots`` (and every ``every``
    steps)."""
    want = set(snapshots) | ({k for k in range(0, K + 1, every)} if every else set())
    snaps: dict[int, M.AttnParams] = {}
    batch = D.Batch(X, y)

    def keep(theta, grads, loss, t):
        if t in want:
            snaps[t] = M.AttnParams(**{k: np.array(v, copy=True) for k, v in theta.items()})
        return 0.0

    def lg(theta):
        return MODEL.loss_and_grad(theta, batch, validate=False)

    traj = gradient_descent(params0, lg, eta, K, record={"snap": keep})
    return traj, snaps


def value_norm_max(params: Params) -> float:
    """u = max_h ||U_h||_F."""
    return float(np.max(np.linalg.norm(params["U"].reshape(params["U"].shape[0], -1), axis=1)))


def dist(a: Params, b: Params) -> float:
    return float(np.sqrt(sum(np.sum((a[k] - b[k]) ** 2) for k in a)))


def shift(params: Params, direction: np.ndarray, lam: float) -> dict[str, np.ndarray]:
    """theta + lam * direction, ``direction`` a leading part of the packed vector (e.g. the U block)."""
    H, T, d = M.check_params(params)
    full = np.zeros(M.n_params(H, T, d))
    full[: direction.size] = direction
    return M.unpack(M.pack(params) + lam * full, H, T, d)


@dataclass(frozen=True)
class Margin:
    """gamma = min_i <Z_i, theta_star> with ||theta_star|| = 1 (gamma <= 0: not separable)."""

    gamma: float
    theta_star: np.ndarray
    separable: bool


def svm_margin(Z: np.ndarray, *, max_alpha: float = 1e8) -> Margin:
    """Bias-free hard-margin SVM on the rows of Z (n, p): solve min_{alpha >= 0} a^T G a / 2 - 1^T a
    (G = Z Z^T) with L-BFGS-B, then polish on the support set by the KKT system G_SS a_S = 1."""
    Z = check_array("Z", Z, ndim=2)
    n = Z.shape[0]
    G = Z @ Z.T
    scale = max(float(np.max(np.diag(G))), 1e-300)
    Gs = G / scale  # the dual of Z / sqrt(scale)

    def fg(a: np.ndarray) -> tuple[float, np.ndarray]:
        Ga = Gs @ a
        return 0.5 * float(a @ Ga) - float(a.sum()), Ga - 1.0

    res = minimize(
        fg,
        np.full(n, 1.0 / n),
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, max_alpha)] * n,
        options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 5000},
    )
    a = res.x
    if np.max(a) >= 0.99 * max_alpha:
        return Margin(0.0, np.zeros(Z.shape[1]), False)
    best = _direction(Z, a)
    # polish: exact KKT solve on the support set, kept only if it is feasible and better
    sup = a > 1e-8 * max(1.0, float(np.max(a)))
    if sup.any():
        try:
            aS = np.linalg.lstsq(Gs[np.ix_(sup, sup)], np.ones(int(sup.sum())), rcond=None)[0]
            if np.all(aS >= 0):
                a2 = np.zeros(n)
                a2[sup] = aS
                cand = _direction(Z, a2)
                if cand.gamma > best.gamma:
                    best = cand
        except np.linalg.LinAlgError:
            pass
    return best


def _direction(Z: np.ndarray, a: np.ndarray) -> Margin:
    w = Z.T @ a
    nw = float(np.linalg.norm(w))
    if nw == 0:
        return Margin(0.0, np.zeros(Z.shape[1]), False)
    theta = w / nw
    gamma = float(np.min(Z @ theta))
    return Margin(gamma, theta, gamma > 0)


def ntk_margins(params: Params, X: np.ndarray, y: np.ndarray) -> tuple[Margin, Margin]:
    """(U-block margin, full margin) of the NTK features y_i grad Phi(theta; X_i)."""
    F = M.features(params, X) * y[:, None]
    H, T, d = M.check_params(params)
    return svm_margin(F[:, : H * T * d]), svm_margin(F)


def random_case(
    rng: np.random.Generator, H: int, T: int, d: int, s: float, x_scale: float, n: int
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """theta with N(0, s^2) entries, Gaussian tokens X (n, T, d) of scale x_scale, random labels."""
    params = {"U": s * rng.standard_normal((H, T, d)), "W": s * rng.standard_normal((H, d, d))}
    X = D.random_tokens(rng, n, T, d, x_scale)
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    return params, X, y


def cases(rng: np.random.Generator, count: int) -> Iterator[tuple[int, int, int, float, float]]:
    """Random (H, T, d, s, x_scale) from the ranges of derivations.md Sect. 11 (claim .grad)."""
    for _ in range(check_int("cases", count)):
        yield (
            int(rng.integers(1, 5)),
            int(rng.integers(2, 6)),
            int(rng.integers(2, 5)),
            float(rng.choice([0.1, 1.0, 3.0])),
            float(rng.choice([0.5, 1.0, 2.0])),
        )


# ---- worst-case searches (verify/numerics/worstcase.py): what the searches of several sections share --

#: The label y = +1 of the searches' one-sample data sets.
ONE_LABEL = np.ones(1)


def worst_case_search(
    ratio: Callable[[np.ndarray], float],
    dim: int,
    rng: np.random.Generator,
    starts: int,
    maxiter: int,
    argument: dict[str, object],
) -> WorstCase:
    """:func:`worst_case` from N(0, 1) starts in R^dim, recording ``argument`` (what replays z)."""
    w = worst_case(ratio, lambda g: g.standard_normal(dim), rng, starts=starts, maxiter=maxiter)
    return replace(w, argument=argument)


def split_z(z: np.ndarray, sizes: tuple[int, ...]) -> list[np.ndarray]:
    """A search variable z (sum(sizes),) cut into consecutive blocks of the given sizes (views; the last
    block runs to the end of z, as ``np.split(z, np.cumsum(sizes)[:-1])`` cuts it)."""
    ends = list(itertools.accumulate(sizes[:-1]))
    return [z[a:b] for a, b in zip([0, *ends], [*ends, None], strict=True)]


def unit_tokens(x: np.ndarray, T: int, d: int) -> np.ndarray:
    """One sample (1, T, d) scaled to token radius R = 1."""
    X = x.reshape(1, T, d)
    return X / D.token_radius(X)


def polar_U(u: np.ndarray, root: float, T: int, d: int) -> np.ndarray:
    """U (1, T, d) with its first u.size / d rows along u, the others 0, and ||U||_F = (root / 2)^2: the polar
    form reaches U = 0, where beta_3 has a kink and the Hessian bound is attained, at a smooth maximum (the
    1/2 starts ||U||_F near 1/4, away from the basin of the weaker maximum at ||U|| R^2 -> infinity)."""
    U = np.zeros((1, T, d))
    U[0, : u.size // d] = (root / 2) ** 2 * (u / np.linalg.norm(u)).reshape(-1, d)
    return U


#: Box of the loss-level searches: U entries (polar: ||U||_F) and R below LOSS_BOX, so that |y Phi| stays
#: far below the ~745 where the logistic loss underflows to 0.
LOSS_BOX = 10.0
#: Smallest token radius of the loss-level searches (R -> 0 is a limit of some of their worst cases).
LOSS_R_MIN = 1e-6


def _soft_clamp(v: float, lo: float, hi: float) -> float:
    """lo + softplus(v - lo) - softplus(v - hi): about v between lo and hi, smoothly into (lo, hi)."""
    return lo + float(np.logaddexp(0.0, v - lo) - np.logaddexp(0.0, v - hi))


def bounded_point(
    z: np.ndarray, H: int, T: int, d: int, polar: bool
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """theta and one sample X from z = (U, W, x, r) (``polar``: (u, l, W, x, r)), of size
    :func:`bounded_dim`: U = b tanh(z_U / b) entrywise (``polar``: U = ||U||_F u/||u|| with ||U||_F =
    b tanh(l^2 / b), so that U = 0, a kink of beta_3, is a smooth point), W = z_W / R^2 (attention logits of
    order z_W at any R), X = R x / max_t ||x_t|| with log R = r smoothly clamped (:func:`_soft_clamp`) to
    (log R_min, log b); b = :data:`LOSS_BOX`, R_min = :data:`LOSS_R_MIN`."""
    u, root, W, x, r = split_z(z, (H * T * d, int(polar), H * d * d, T * d, 1))
    R = math.exp(_soft_clamp(float(r[0]), math.log(LOSS_R_MIN), math.log(LOSS_BOX)))
    if polar:
        U = LOSS_BOX * math.tanh(float(root[0]) ** 2 / LOSS_BOX) * u / np.linalg.norm(u)
    else:
        U = LOSS_BOX * np.tanh(u / LOSS_BOX)
    return {"U": U.reshape(H, T, d), "W": W.reshape(H, d, d) / R**2}, R * unit_tokens(x, T, d)


def bounded_dim(H: int, T: int, d: int, polar: bool) -> int:
    return H * T * d + int(polar) + H * d * d + T * d + 1
