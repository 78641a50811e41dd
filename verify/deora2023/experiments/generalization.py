"""Experiments of ``claims/generalization.py`` (.gen.derived*): GD on many training sets at once with the
expansiveness of Theorem D-gen, and the gap's interval on a shared test set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from bounds import deora2023 as B
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.model import Params


@dataclass(frozen=True)
class GenDatasets:
    """Training sets 0..datasets-1 of the base seed ``seed``, of size n, each trained K steps at eta from the
    shared theta_0 and tested on (X_test, y_test); ``gamma_datasets``: the first that many also measure
    the expansiveness along their run. Data sets of different base seeds are independent (their streams
    are keyed by both)."""

    seed: int
    n: int
    K: int
    eta: float
    params0: Params
    X_test: np.ndarray
    y_test: np.ndarray
    datasets: int
    gamma_datasets: int


def gen_datasets(p: GenDatasets) -> list[dict[str, object]]:
    """GD on the training sets of the mixture from the shared data-independent theta_0, all at once
    (:func:`verify.deora2023.model.loss_and_grad_batched`; each set's values are the bits of its batch of
    one). Per set: the losses L_hat(theta_k) (k <= K), the test loss L(theta_K), beta_2 along the run
    (train + spare samples), the per-sample test losses l(theta_K; z_t) on the shared test set
    (``test_losses``, whose mean is ``test``) and, for the first ``gamma_datasets``, Gamma = prod_{k<K} of the
    expansiveness max(1 + eta kappa_k, eta lambda_max_k - 1) (:func:`expansiveness`)."""
    n, K, eta, mix = p.n, p.K, p.eta, D.Mixture()
    data = []
    for j in range(p.datasets):
        rng = np.random.default_rng([p.seed, j, 31, n])
        data.append((*mix.sample(rng, n)[:2], mix.sample(rng, n)[0]))  # X, y and replacements z'_i for beta_2
    X, y, Xs = (np.stack(a) for a in zip(*data, strict=True))
    U, W = (np.repeat(np.asarray(p.params0[k])[None], p.datasets, axis=0) for k in ("U", "W"))
    losses, beta2, expans = [], np.zeros(p.datasets), [[] for _ in range(p.gamma_datasets)]
    for k in range(K + 1):
        L, g = M.loss_and_grad_batched(U, W, X, y, norms=True)
        losses.append(L)
        gn = g["norms"]  # grad_norms_batched(U, W, X) from the same pass
        beta2 = np.maximum(beta2, np.maximum(gn.max(axis=1), M.grad_norms_batched(U, W, Xs).max(axis=1)))
        if k == K:
            break
        for j, ex in enumerate(expans):
            ex.append(expansiveness({"U": U[j], "W": W[j]}, X[j], y[j], eta, gn[j]))
        U, W = U - eta * g["U"], W - eta * g["W"]
    test, per = M.loss_and_grad_batched(U, W, p.X_test[None], p.y_test[None], grad=False, per_sample=True)
    losses = np.array(losses).T
    return [
        {"losses": losses[j], "test": float(test[j]), "test_losses": per["losses"][j],
         "beta2": float(beta2[j]), "Gamma": float(np.prod(expans[j])) if j < p.gamma_datasets else None}
        for j in range(p.datasets)
    ]  # fmt: skip


def expansiveness(theta: Params, X: np.ndarray, y: np.ndarray, eta: float, gn: np.ndarray) -> float:
    """max(1 + eta kappa, eta lambda_max - 1) at theta with kappa = max(0, -lambda_min(M)) and lambda_max <=
    ||GN|| + ||M|| (M the curvature blocks, GN = F^T diag(l''/n) F); gn: ||grad Phi_i|| (n,). ||GN|| (an
    eigen-solve of the n x n Gram) is computed only when its upper bound tr GN = sum_i l''_i ||grad Phi_i||^2
    / n could make the second term the larger: otherwise the first is the max, the same value exactly."""
    Bk = M.curvature_blocks(theta, X, y)
    ev = np.linalg.eigvalsh((Bk + np.swapaxes(Bk, -1, -2)) / 2)
    low, norm_M = 1.0 + eta * max(0.0, -float(ev.min())), float(np.max(np.abs(ev)))
    _, _, l2 = M.logistic(y * M.phi(theta, X))
    if eta * (float(l2 @ gn**2) / y.size + norm_M) - 1.0 <= low:
        return low
    Fs = M.features(theta, X) * np.sqrt(l2 / y.size)[:, None]
    return max(low, eta * (float(np.linalg.eigvalsh(Fs @ Fs.T)[-1]) + norm_M) - 1.0)


@dataclass(frozen=True)
class GenGap:
    """At one n: K, the mean gap L(theta_K) - L_hat(theta_K) over the training sets, the ends ``lo``, ``hi``
    of its two-sided t interval (each a one-sided ``ci_quantile`` limit; :func:`gen_gap`), its standard
    error ``se`` and degrees of freedom ``dof``, the standard error ``se_indep`` the gaps would have
    if they were independent (information), beta_2, Gamma, the Theorem D-gen bound ``theory`` and whether
    its premise holds."""

    K: int
    gap: float
    lo: float
    hi: float
    se: float
    dof: float
    se_indep: float
    beta2: float
    Gamma: float
    theory: float
    premise: bool


def shared_test_se(test_losses: np.ndarray, train_losses: np.ndarray) -> tuple[float, float, float]:
    """(se, dof, se_indep) of the mean gap mean_j (mean_t A[j, t] - b[j]) of m training sets j evaluated
    on ONE shared test set of T samples t: A (m, T) the per-sample test losses l(theta_j; z_t), b (m,)
    the training losses L_hat_j(theta_j).

    The gaps are not independent: the test set is common to all of them, so its sampling error shifts
    every gap alike and does not average out over j. With the crossed (Hoeffding / two-way random
    effects) decomposition A[j, t] - b[j] = mu + r_j + c_t + e_jt (r: the training set's effect, b
    included; c: the test sample's; e: the interaction; uncorrelated, j and t independent draws),

        Var(mean gap) = s_r^2 / m + s_c^2 / T + s_e^2 / (m T),

    estimated without bias by v = S_row / m + S_col / T - MS_E / (m T): S_row the sample variance of
    the m gaps (the row means), S_col that of the T column means mean_j A[j, t], MS_E the residual mean
    square of the two-way table (degrees of freedom (m - 1)(T - 1)); E S_row = s_r^2 + s_e^2 / T,
    E S_col = s_c^2 + s_e^2 / m, E MS_E = s_e^2. S_row / m alone (``se_indep``^2, the gaps treated as
    independent) misses s_c^2 / T. v is floored at S_row / m (never narrower than the independent
    reading), and its degrees of freedom are Welch-Satterthwaite's over the three mean squares."""
    A = np.asarray(test_losses, dtype=np.float64)
    b = np.asarray(train_losses, dtype=np.float64)
    m, T = A.shape
    if m < 2 or T < 2 or b.shape != (m,):
        raise ValueError(
            f"test_losses must be (m, T) with m, T >= 2 and train_losses (m,), got {A.shape}, {b.shape}"
        )
    rows, cols = A.mean(axis=1) - b, A.mean(axis=0)
    resid = A - A.mean(axis=1, keepdims=True) - cols[None, :] + A.mean()
    s_row, s_col = float(rows.var(ddof=1)), float(cols.var(ddof=1))
    ms_e = float(np.sum(resid**2)) / ((m - 1) * (T - 1))
    parts = (s_row / m, s_col / T, -ms_e / (m * T))
    dofs = (m - 1, T - 1, (m - 1) * (T - 1))
    v = sum(parts)
    if v <= parts[0]:
        return math.sqrt(parts[0]), float(m - 1), math.sqrt(parts[0])
    dof = v**2 / sum(p**2 / f for p, f in zip(parts, dofs, strict=True))
    return math.sqrt(v), float(dof), math.sqrt(parts[0])


def gen_gap(out: list[dict[str, object]], n: int, K: int, eta: float, ci_quantile: float) -> GenGap:
    """Summarise the :func:`gen_datasets` results of one n against Theorem D-gen: the mean gap and its t
    interval gap -+ t_{ci_quantile, dof} se, se and dof from :func:`shared_test_se` (the training sets
    share one test set)."""
    test = np.stack([o["test_losses"] for o in out])
    train = np.array([o["losses"][K] for o in out])
    gaps = np.array([o["test"] - o["losses"][K] for o in out])
    beta2 = max(o["beta2"] for o in out)
    Gamma = max(o["Gamma"] for o in out if o["Gamma"] is not None)
    mean_losses = np.mean([o["losses"][:K] for o in out], axis=0)
    theory = B.gen_bound(Gamma, beta2, eta, n, float(mean_losses.sum()))
    se, dof, se_indep = shared_test_se(test, train)
    half = float(stats.t.ppf(ci_quantile, dof)) * se
    gap = float(gaps.mean())
    return GenGap(
        K, gap, gap - half, gap + half, se, dof, se_indep, beta2, Gamma, theory,
        bool(B.gen_premise(Gamma, beta2, eta, K, n)),
    )  # fmt: skip
