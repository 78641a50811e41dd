"""Data model of Yang et al. 2024 (Sec. 2, eq. 1): dictionary, representations, tasks, prompts.

Shapes: tokens ``V_all`` (d, K) unit-norm columns, prompt tokens ``V = V_all[:, :N]``; representations
``Zt`` (m, K) with ``Z = Zt[:, :N]`` and ``Z_Q = Zt[:, N:]``; tasks ``lam`` (n, m); labels ``y`` (n, K)
with ``y_k = lam^T (f(v_k) + eps_k)``, ``eps_k ~ N(0, tau I_m)`` (variance tau, noise on the
representation). :class:`Problem` is the paper's "batch": everything the closed-form population loss
needs (G, Z-bar, A, L*), computed once through ``bounds.yang2024`` (Lemma 5).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_array, check_choice, check_int, check_positive

#: The suite's "small" configuration and the paper's Sec. 4 configuration ("paper").
SMALL = {"K": 40, "N": 6, "d": 8, "m": 4, "tau": 0.1}
PAPER = {"K": 200, "N": 30, "d": 100, "m": 20, "tau": 0.01}

TOKENS = ("gaussian", "orthonormal", "hypercube", "duplicate")


@dataclass(frozen=True)
class Config:
    """A problem size (K, N, d, m, tau); hashable, so cached runs key on it."""

    K: int
    N: int
    d: int
    m: int
    tau: float

    @classmethod
    def named(cls, name: str) -> Config:
        """The "small" (:data:`SMALL`) or "paper" (:data:`PAPER`) configuration."""
        sizes = {"small": SMALL, "paper": PAPER}
        check_choice("config", name, tuple(sizes))
        c = sizes[name]
        return cls(int(c["K"]), int(c["N"]), int(c["d"]), int(c["m"]), float(c["tau"]))


@dataclass
class Problem:
    """One dictionary with its representations and the Lemma 5 quantities.

    V_all: (d, K); Zt: (m, K); N prompt tokens (the first N); tau > 0. Derived: G = Z^T Z + m tau I
    (N, N), Zbar = G^{1/2}, A (N, K), Lstar, lam_min_G.
    """

    V_all: np.ndarray
    Zt: np.ndarray
    N: int
    tau: float
    G: np.ndarray = field(init=False, repr=False)
    Zbar: np.ndarray = field(init=False, repr=False)
    A: np.ndarray = field(init=False, repr=False)
    Lstar: float = field(init=False)
    lam_min_G: float = field(init=False)

    def __post_init__(self) -> None:
        self.V_all = check_array("V_all", self.V_all, ndim=2)
        K = self.V_all.shape[1]
        self.Zt = check_array("Zt", self.Zt, shape=(None, K))
        self.N = check_int("N", self.N, low=1, high=K - 1)
        self.tau = check_positive("tau", self.tau)
        Z, Z_Q = self.Z, self.Z_Q
        self.G = B.gram(Z, self.tau)
        self.Zbar = B.zbar(self.G)
        self.A = B.target_matrix(Z, Z_Q, self.tau)
        self.Lstar = B.loss_floor(Z, Z_Q, self.tau)
        self.lam_min_G = float(np.linalg.eigvalsh(self.G)[0])
        self.V = np.ascontiguousarray(self.V_all[:, : self.N])
        self.VT = np.ascontiguousarray(self.V.T)
        self.V_allT = np.ascontiguousarray(self.V_all.T)

    @property
    def K(self) -> int:
        return self.V_all.shape[1]

    @property
    def d(self) -> int:
        return self.V_all.shape[0]

    @property
    def m(self) -> int:
        return self.Zt.shape[0]

    @property
    def Z(self) -> np.ndarray:
        return self.Zt[:, : self.N]

    @property
    def Z_Q(self) -> np.ndarray:
        return self.Zt[:, self.N :]


def unit_tokens(d: int, K: int, rng: np.random.Generator) -> np.ndarray:
    """K Gaussian directions normalised to unit norm: (d, K)."""
    V = rng.standard_normal((check_int("d", d), check_int("K", K)))
    return V / np.linalg.norm(V, axis=0, keepdims=True)


def make_tokens(d: int, K: int, N: int, rng: np.random.Generator, kind: str = "gaussian") -> np.ndarray:
    """Dictionary (d, K) of unit-norm tokens. kind: "gaussian" (meets Assumption 3 a.s.);
    "orthonormal" (prompt tokens e_1..e_N, needs N <= d); "hypercube" (prompt tokens distinct
    +-1/sqrt(d) vectors, needs 2^d >= N); "duplicate" (Gaussian with v_2 = v_1). The non-prompt tokens
    are Gaussian unit vectors in every case."""
    check_choice("kind", kind, TOKENS)
    N = check_int("N", N, low=2, high=K - 1)
    V = unit_tokens(d, K, rng)
    if kind == "orthonormal":
        if N > d:
            raise ValueError(f"orthonormal prompt tokens need N <= d, got N={N}, d={d}")
        V[:, :N] = np.eye(d)[:, :N]
    elif kind == "hypercube":
        if d < 63 and 2**d < N:
            raise ValueError(f"hypercube prompt tokens need 2^d >= N, got d={d}, N={N}")
        rows: set[tuple[int, ...]] = set()
        while len(rows) < N:
            rows.add(tuple(rng.choice([-1, 1], size=d).tolist()))
        V[:, :N] = np.array(sorted(rows), dtype=np.float64).T / np.sqrt(d)
    elif kind == "duplicate":
        V[:, 1] = V[:, 0]
    return V


def satisfies_assumption3(V: np.ndarray) -> bool:
    """Assumption 3: some coordinate j has N pairwise distinct entries v_{1j}, ..., v_{Nj}. V: (d, N)."""
    V = check_array("V", V, ndim=2)
    n = V.shape[1]
    return any(np.unique(row).size == n for row in V)


def make_problem(
    K: int, N: int, d: int, m: int, tau: float, rng: np.random.Generator, tokens: str = "gaussian"
) -> Problem:
    """Tokens as :func:`make_tokens`; representations f(v_k) ~ N(0, I_m) iid (Sec. 4 setup)."""
    V = make_tokens(d, K, N, rng, tokens)
    Zt = rng.standard_normal((check_int("m", m), K))
    return Problem(V, Zt, N, tau)


def sample_tasks(n: int, m: int, rng: np.random.Generator, domain: str = "id") -> np.ndarray:
    """(n, m) tasks: "id" lambda ~ N(0, I_m) (Assumption 1, training); "ood" lambda ~ N(1_m, 4 I_m)."""
    check_choice("domain", domain, ("id", "ood"))
    z = rng.standard_normal((check_int("n", n), check_int("m", m)))
    return z if domain == "id" else 1.0 + 2.0 * z


def prompts(problem: Problem, n: int, rng: np.random.Generator, domain: str) -> np.ndarray:
    """Prompt labels y (n, N) of ``n`` fresh tasks of ``domain`` ("id" / "ood"), scalar noise."""
    lam = sample_tasks(n, problem.m, rng, domain)
    return sample_labels(problem, lam, rng, noise="scalar")[:, : problem.N]


def sample_labels(
    problem: Problem,
    lam: np.ndarray,
    rng: np.random.Generator,
    noise: str = "representation",
    tokens: int | None = None,
) -> np.ndarray:
    """Labels y (n, K) of eq. (1) for tasks lam (n, m); (n, tokens) for the first ``tokens`` only.

    noise="representation" draws eps_k ~ N(0, tau I_m) for every token and prompt (literal eq. 1);
    noise="scalar" draws lam^T eps_k directly as N(0, tau ||lam||^2), the same distribution given lam
    (cheaper by a factor m).
    """
    check_choice("noise", noise, ("representation", "scalar"))
    lam = check_array("lam", lam, shape=(None, problem.m))
    k = problem.K if tokens is None else check_int("tokens", tokens, low=1, high=problem.K)
    clean = lam @ problem.Zt[:, :k]
    n, K = clean.shape
    if noise == "scalar":
        scale = np.sqrt(problem.tau) * np.linalg.norm(lam, axis=1, keepdims=True)
        return clean + scale * rng.standard_normal((n, K))
    eps = rng.standard_normal((n, problem.m, K)) * np.sqrt(problem.tau)
    return clean + np.einsum("nm,nmk->nk", lam, eps)
