"""Data for Deora et al.: the tokenized-mixture model (derivation Sect. 9.1, RECONSTRUCTED), generic random
token sequences, and the problem type the experiments take (with the model's :class:`Batch`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_choice, check_int, check_real
from verify.deora2023 import model as M
from verify.deora2023.model import Batch  # the model's data type, re-exported with the data

VARIANTS = ("O", "A")
#: Token noise: "iid" z_t independent over the T positions (the model); "shared": one z per sequence,
#: added to every token (noise correlated across positions, the same per-token law).
NOISES = ("iid", "shared")


@dataclass(frozen=True)
class Mixture:
    """Tokenized mixture. T tokens of dimension d; m_r = ceil(zeta T) relevant tokens x_t = mu_y + z_t,
    the others x_t = nu_j + z_t with j uniform on [M]; z_t ~ N(0, sigma^2 I_d); all means of norm S.
    Variant "O": mu_+, mu_-, nu_1..nu_M orthogonal (needs d >= M + 2). Variant "A": mu_- = -mu_+,
    nu's orthogonal to mu_+ (needs d >= M + 1). Means are scaled coordinate vectors. ``noise``: one of
    :data:`NOISES` (default "iid", the model of derivation Sect. 9.1)."""

    T: int = 6
    d: int = 8
    zeta: float = 1 / 3
    S: float = 1.0
    sigma: float = 0.05
    M: int = 4
    variant: str = "O"
    noise: str = "iid"

    def __post_init__(self) -> None:
        check_int("T", self.T, low=2)
        check_int("d", self.d)
        check_real("zeta", self.zeta, low=0.0, high=1.0, low_open=True)
        check_real("S", self.S, low=0.0, low_open=True)
        check_real("sigma", self.sigma, low=0.0)
        check_int("M", self.M)
        check_choice("variant", self.variant, VARIANTS)
        check_choice("noise", self.noise, NOISES)
        need = self.M + (2 if self.variant == "O" else 1)
        if self.d < need:
            raise ValueError(f"variant {self.variant} with M={self.M} needs d >= {need}, got d={self.d}")

    @property
    def m_r(self) -> int:
        return int(np.ceil(self.zeta * self.T - 1e-12))

    @property
    def zeta_eff(self) -> float:
        """zeta redefined as m_r / T (derivations.md Sect. 9.1)."""
        return self.m_r / self.T

    def means(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(mu_+, mu_-, nu) with nu of shape (M, d)."""
        E = np.eye(self.d) * self.S
        if self.variant == "O":
            return E[0], E[1], E[2 : 2 + self.M]
        return E[0], -E[0], E[1 : 1 + self.M]

    def sample(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(X (n, T, d), y (n,), relevant mask (n, T) bool)."""
        n = check_int("n", n)
        mu_p, mu_m, nu = self.means()
        y = rng.choice(np.array([-1.0, 1.0]), size=n)
        order = np.argsort(rng.random((n, self.T)), axis=1)
        rel = np.zeros((n, self.T), dtype=bool)
        np.put_along_axis(rel, order[:, : self.m_r], True, axis=1)
        j = rng.integers(0, self.M, size=(n, self.T))
        X = nu[j]
        mu = np.where(y[:, None] > 0, 1.0, 0.0) * mu_p + np.where(y[:, None] < 0, 1.0, 0.0) * mu_m
        X = np.where(rel[:, :, None], mu[:, None, :], X)
        if self.sigma > 0:
            shape = X.shape if self.noise == "iid" else (n, 1, self.d)
            X = X + self.sigma * rng.standard_normal(shape)
        return X, y, rel


@dataclass(frozen=True)
class Planted:
    """A planted-model data law (RECONSTRUCTED: the paper's planted model is NOT RECOVERED, only its sizes
    are quoted). T Gaussian tokens x_t ~ N(0, I_d / d) (norm about 1); the label is the sign of a
    one-head attention teacher Phi*(X) = <U*, softmax(X W* X^T) X> with W* entries N(0, 4/d) (non-uniform
    attention) and U* entries N(0, 1/(T d)), drawn once per ``teacher_rng``."""

    T: int = 6
    d: int = 8

    def teacher(self, rng: np.random.Generator) -> dict[str, np.ndarray]:
        W = 2.0 * rng.standard_normal((1, self.d, self.d)) / np.sqrt(self.d)
        U = rng.standard_normal((1, self.T, self.d)) / np.sqrt(self.T * self.d)
        return {"U": U, "W": W}

    def sample(
        self, teacher_rng: np.random.Generator, rng: np.random.Generator, n: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(X (n, T, d), y (n,)) with y = sign Phi*(X) (+1 at 0)."""
        X = rng.standard_normal((check_int("n", n), self.T, self.d)) / np.sqrt(self.d)
        phi = M.phi(self.teacher(teacher_rng), X)
        return X, np.where(phi >= 0, 1.0, -1.0)


def random_tokens(rng: np.random.Generator, n: int, T: int, d: int, scale: float = 1.0) -> np.ndarray:
    """Gaussian token sequences X (n, T, d) with entries N(0, scale^2 / d)."""
    n, T, d = check_int("n", n), check_int("T", T), check_int("d", d)
    return check_real("scale", scale, low=0.0, low_open=True) / np.sqrt(d) * rng.standard_normal((n, T, d))


def token_radius(X: np.ndarray) -> float:
    """R = max_t ||x_t|| over a batch (n, T, d) (the realised A2 constant)."""
    return float(np.max(np.linalg.norm(np.asarray(X, dtype=np.float64), axis=-1)))


@dataclass
class Problem:
    """A training set (X (n, T, d), y (n,), relevant-token mask rel (n, T)) of the mixture ``mix`` and
    an initialisation params0 (blocks U (H, T, d), W (H, d, d))."""

    X: np.ndarray
    y: np.ndarray
    rel: np.ndarray
    params0: Mapping[str, np.ndarray]
    mix: Mixture

    @property
    def batch(self) -> Batch:
        return Batch(self.X, self.y)

    @property
    def R(self) -> float:
        return token_radius(self.X)

    @property
    def H(self) -> int:
        return self.params0["U"].shape[0]
