"""Teachers S* (Examples 2.1-2.4 and variants), value matrices V*, and input distributions.

S* convention (the paper's Sect. 2 notation): column i of S* (D, D) holds the weights of the output
token i on the input tokens, supported on G_i; uniform teachers have exactly K entries 1/K per column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from bounds.checks import check_array, check_choice, check_int, check_positive

EXAMPLES = ("conv_pool", "gcn_cycle", "selection", "group_sparse", "circulant")
INPUTS = ("gaussian", "t5", "gumbel", "gumbel_raw", "exp", "exp_centred")


@dataclass(frozen=True)
class Population:
    """The population "batch": teacher V* (M, d), S* (D, D), positions P (D, D) orthogonal, and iid input
    entries of mean ``mu`` and variance ``sx2`` (the closed-form losses need only these moments). The
    batched model takes n problems with a leading run axis on V, S and P (:meth:`one` for one problem)."""

    V: np.ndarray
    S: np.ndarray
    P: np.ndarray
    sx2: float = 1.0
    mu: float = 0.0

    def one(self) -> Population:
        """This problem as a batch of one run."""
        return replace(self, V=self.V[None], S=self.S[None], P=self.P[None])


@dataclass(frozen=True)
class Sample:
    """A finite batch: inputs X (N, d, D), labels Y (N, M, D), positions P (D, D); with a leading run axis
    on each, n samples for the batched model (:meth:`one` for one sample)."""

    X: np.ndarray
    Y: np.ndarray
    P: np.ndarray

    def one(self) -> Sample:
        """This sample as a batch of one run."""
        return replace(self, X=self.X[None], Y=self.Y[None], P=self.P[None])

    @cached_property
    def tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """The batched sample's X and Y by :func:`tokens_first`, laid out once for every step of a run."""
        return tokens_first(self.X, self.Y)


def tokens_first(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A batched sample's inputs X (n, N, d, D) and labels Y (n, N, M, D) with the feature axis before the
    sample axis, contiguous: (n, d, N, D) and (n, M, N, D)."""
    return np.ascontiguousarray(X.transpose(0, 2, 1, 3)), np.ascontiguousarray(Y.transpose(0, 2, 1, 3))


def s_conv_pool(grid: int, pool: int) -> np.ndarray:
    """Ex 2.1: a grid x grid patch image, non-overlapping pool x pool average pooling; column i is
    1_{g(i)}/K over the pooling group of patch i (K = pool^2, D = grid^2). Block-diagonal after sorting."""
    grid, pool = check_int("grid", grid), check_int("pool", pool)
    if grid % pool:
        raise ValueError(f"grid ({grid}) must be a multiple of pool ({pool})")
    r, c = np.divmod(np.arange(grid * grid), grid)
    group = (r // pool) * (grid // pool) + c // pool
    return (group[:, None] == group[None, :]) / float(pool * pool)


def s_gcn_cycle(D: int, K: int = 3) -> np.ndarray:
    """Ex 2.2: (A_G + I)/K for the (K-1)-regular circulant graph j ~ j +- 1..(K-1)/2 (K odd; K = 3 is
    the cycle). Symmetric, K entries 1/K per column."""
    D, K = check_int("D", D, low=3), check_int("K", K)
    if K % 2 == 0 or K > D:
        raise ValueError(f"K must be odd and <= D for the symmetric circulant graph, got K={K}, D={D}")
    S = np.zeros((D, D))
    for s in range(-(K // 2), K // 2 + 1):
        S[(np.arange(D) + s) % D, np.arange(D)] = 1.0 / K
    return S


def s_circulant(D: int, K: int) -> np.ndarray:
    """Uniform-K circulant teacher: column i averages tokens i, i+1, ..., i+K-1 (mod D)."""
    D, K = check_int("D", D), check_int("K", K, low=0, high=D)
    S = np.zeros((D, D))
    for s in range(K):
        S[(np.arange(D) + s) % D, np.arange(D)] = 1.0 / K
    return S


def s_selection(D: int, K: int, g: np.ndarray | None = None) -> np.ndarray:
    """Ex 2.3 (fixed set): S* = 1_g 1_D^T / K, every output averages the same K target tokens g."""
    D, K = check_int("D", D), check_int("K", K, high=D)
    g = np.arange(K) if g is None else np.asarray(g)
    if g.size != K or len(set(g.tolist())) != K:
        raise ValueError(f"g must list {K} distinct positions, got {g}")
    S = np.zeros((D, D))
    S[g, :] = 1.0 / K
    return S


def s_group_sparse(D: int, j_star: int = 0) -> np.ndarray:
    """Ex 2.4: K = 1, S* = e_{j*} 1_D^T (every output reads token j*)."""
    return s_selection(D, 1, np.array([check_int("j_star", j_star, low=0, high=D - 1)]))


def example(name: str, D: int, K: int) -> np.ndarray:
    """S* of a named example at (D, K) (conv_pool needs D = grid^2 and K = pool^2)."""
    check_choice("name", name, EXAMPLES)
    if name == "conv_pool":
        grid, pool = math.isqrt(D), math.isqrt(K)
        if grid * grid != D or pool * pool != K:
            raise ValueError(f"conv_pool needs square D and K, got D={D}, K={K}")
        return s_conv_pool(grid, pool)
    if name == "gcn_cycle":
        return s_gcn_cycle(D, K)
    if name == "selection":
        return s_selection(D, K)
    if name == "group_sparse":
        if K != 1:
            raise ValueError(f"group_sparse has K = 1, got K={K}")
        return s_group_sparse(D)
    return s_circulant(D, K)


def s_weighted(D: int, weights: np.ndarray) -> np.ndarray:
    """Non-uniform S*: column i puts weights[s] on token i+s (mod D); columns sum to sum(weights)."""
    w = check_array("weights", weights, ndim=1)
    S = np.zeros((check_int("D", D, low=w.size), D))
    for s, ws in enumerate(w):
        S[(np.arange(D) + s) % D, np.arange(D)] += ws
    return S


def random_v(M: int, d: int, rng: np.random.Generator, norm: float = 1.0) -> np.ndarray:
    """V* (M, d), Gaussian with ||V*||_F = norm."""
    V = rng.standard_normal((check_int("M", M), check_int("d", d)))
    return V * (check_positive("norm", norm) / np.linalg.norm(V))


def support_sizes(S: np.ndarray) -> np.ndarray:
    """K_i = number of nonzero entries of column i."""
    return np.count_nonzero(S, axis=0)


def is_uniform_teacher(S: np.ndarray, K: int) -> bool:
    """Every column has exactly K nonzero entries, all equal to 1/K."""
    nz = S != 0
    return bool(np.all(nz.sum(axis=0) == K) and np.allclose(S[nz], 1.0 / K, rtol=0, atol=1e-15))


def input_moments(kind: str) -> tuple[float, float]:
    """(mean, variance) of one entry of X for each input distribution."""
    check_choice("kind", kind, INPUTS)
    return {
        "gaussian": (0.0, 1.0),
        "t5": (0.0, 1.0),
        "gumbel": (0.0, 1.0),
        "gumbel_raw": (float(np.euler_gamma), math.pi**2 / 6),
        "exp": (1.0, 1.0),
        "exp_centred": (0.0, 1.0),
    }[kind]


def sample_inputs(kind: str, n: int, d: int, D: int, rng: np.random.Generator) -> np.ndarray:
    """n iid inputs X (n, d, D) with iid entries: gaussian N(0,1); t5 standardised t(5); gumbel centred,
    standardised Gumbel; gumbel_raw standard Gumbel (mean 0.5772, var pi^2/6); exp Exp(1); exp_centred
    Exp(1) - 1."""
    check_choice("kind", kind, INPUTS)
    shape = (check_int("n", n), check_int("d", d), check_int("D", D))
    if kind == "gaussian":
        return rng.standard_normal(shape)
    if kind == "t5":
        return rng.standard_t(5, shape) / math.sqrt(5 / 3)
    if kind == "gumbel":
        return (rng.gumbel(0.0, 1.0, shape) - np.euler_gamma) / (math.pi / math.sqrt(6))
    if kind == "gumbel_raw":
        return rng.gumbel(0.0, 1.0, shape)
    if kind == "exp":
        return rng.exponential(1.0, shape)
    return rng.exponential(1.0, shape) - 1.0


# ---------------------------------------------------------------- digits stand-in for MNIST (scikit-learn)


# A stand-in for the paper's MNIST experiment on scikit-learn's bundled 8x8 digits (no download).
#
# The paper's teacher is the first conv layer of a trained CNN followed by 3x3 average pooling (K = 9) on
# MNIST; neither is available offline. The stand-in keeps the structure: each 8x8 image (pixels / 16) is
# cut into 3x3 patches at stride 1 (a 6x6 patch grid, D = 36 tokens of d = 9 pixels), the teacher's
# filters V* (M, 9) are the top-M principal directions of all patches scaled to rows of norm ``vscale``,
# S* is 3x3 average pooling on the patch grid (4 blocks of K = 9), sigma = id, and the student is trained
# by full-batch GD on all 1797 images from zero init. For sigma = id the empirical loss and its gradients
# depend on the data only through the second-moment tensor (:func:`~verify.zhang2026.model.moment_loss_grad`),
# so every step is exact and costs the same as a population step.

GRID, PATCH, POOL = 6, 3, 3


def load_patches() -> np.ndarray:
    """The digits as patch tokens X (1797, 9, 36); raises ImportError without scikit-learn."""
    from sklearn.datasets import load_digits  # the ``data`` extra; imported only here

    img = load_digits().images / 16.0
    cols = [
        img[:, r : r + PATCH, c : c + PATCH].reshape(len(img), PATCH * PATCH)
        for r in range(GRID)
        for c in range(GRID)
    ]
    return np.stack(cols, axis=2)


def pca_filters(X: np.ndarray, M_out: int, vscale: float) -> np.ndarray:
    """V* (M_out, 9): the top principal directions of all patches (covariance), each row of norm vscale,
    signed so that its pixel sum is positive."""
    allp = X.transpose(0, 2, 1).reshape(-1, X.shape[1])
    _, U = np.linalg.eigh(np.cov(allp.T))
    V = U[:, ::-1][:, : check_int("M", M_out, low=1, high=X.shape[1])].T.copy()
    V *= np.where(V.sum(axis=1) < 0, -1.0, 1.0)[:, None]
    return check_positive("vscale", vscale) * V


def border_rows() -> np.ndarray:
    """Boolean (36,): the patch positions on the border of the 6x6 patch grid."""
    r, c = np.divmod(np.arange(GRID * GRID), GRID)
    return (r == 0) | (r == GRID - 1) | (c == 0) | (c == GRID - 1)
