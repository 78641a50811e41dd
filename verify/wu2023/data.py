"""Data for the wu2023 claims: Gaussian tokens in two regimes, +-1 labels, and the scikit-learn
bundled digits (no download) for the Assumption 3 check. The paper's batch type is :class:`Batch`.

Regimes (ours; the paper's data distribution is NOT RECOVERED):
* "paper" (paper-like): tokens i.i.d. N(0, I_d / d), norm about 1;
* "active" (attention-active): tokens i.i.d. N(0, I_d), norm^2 about d, logits O(1) under LeCun
  with tau0 = d_m^-1/2.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from bounds.checks import check_array, check_choice, check_int

REGIMES = ("paper", "active")
#: Token layouts of :func:`digits_tokens`: image rows, 2x2 patches, 4x4 patches.
DIGIT_TOKENS = ("rows", "patches", "patches4")
SKLEARN_MISSING = "scikit-learn not installed (pip install 'attncheck[data]')"


@dataclass(frozen=True)
class Batch:
    """N sequences and their labels: X (N, d_s, d) tokens, y (N,) targets (finite float64); or S
    such data sets on a leading run axis (X (S, N, d_s, d), y (S, N); :meth:`stack`)."""

    X: np.ndarray
    y: np.ndarray

    def __post_init__(self) -> None:
        X = check_array("X", self.X)
        if X.ndim not in (3, 4):
            raise ValueError(f"X must be (N, d_s, d) or (S, N, d_s, d), got shape {X.shape}")
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", check_array("y", self.y, ndim=X.ndim - 2, shape=X.shape[:-2]))

    @property
    def N(self) -> int:
        return self.X.shape[-3]

    @classmethod
    def stack(cls, batches: Sequence[Batch]) -> Batch:
        """S data sets of one shape on a leading run axis."""
        return cls(np.stack([b.X for b in batches]), np.stack([b.y for b in batches]))

    def take(self, idx: np.ndarray) -> Batch:
        """The examples ``idx`` (e.g. a permutation), in that order."""
        return Batch(self.X[idx], self.y[idx])


def gaussian_tokens(rng: np.random.Generator, N: int, d_s: int, d: int, regime: str = "paper") -> np.ndarray:
    """X: (N, d_s, d) with i.i.d. N(0, 1/d) ("paper") or N(0, 1) ("active") entries."""
    N, d_s, d = check_int("N", N), check_int("d_s", d_s), check_int("d", d)
    check_choice("regime", regime, REGIMES)
    X = rng.standard_normal((N, d_s, d))
    return X / np.sqrt(d) if regime == "paper" else X


def sign_labels(rng: np.random.Generator, N: int) -> np.ndarray:
    """y: (N,) i.i.d. uniform on {-1, +1}."""
    return rng.choice(np.array([-1.0, 1.0]), size=check_int("N", N))


def gaussian_data(rng: np.random.Generator, N: int, d_s: int, d: int, regime: str = "paper") -> Batch:
    """Tokens from :func:`gaussian_tokens`, then labels from :func:`sign_labels` (one stream)."""
    X = gaussian_tokens(rng, N, d_s, d, regime)
    return Batch(X, sign_labels(rng, N))


def digits_available() -> bool:
    try:
        import sklearn.datasets  # noqa: F401
    except ImportError:
        return False
    return True


def digits_tokens(rng: np.random.Generator, N: int, tokens: str = "rows") -> Batch:
    """N random images of scikit-learn's bundled 8x8 digits (imported lazily; raises ImportError
    without scikit-learn), drawn without replacement from the 1797. tokens "rows": 8 row-tokens of
    dimension 8 (X: (N, 8, 8)); "patches": 16 2x2 patches of dimension 4 (X: (N, 16, 4));
    "patches4": 4 4x4 patches of dimension 16 (X: (N, 4, 16)). Pixels scaled to [0, 1] and each image
    centred by its mean pixel, so the tokens are not all in the positive orthant. Labels: +1 for even
    digits, -1 for odd."""
    import sklearn.datasets

    check_choice("tokens", tokens, DIGIT_TOKENS)
    data = sklearn.datasets.load_digits()
    N = check_int("N", N, high=data.images.shape[0])
    idx = rng.choice(data.images.shape[0], size=N, replace=False)
    img = data.images[idx].astype(np.float64) / 16.0
    img -= img.mean(axis=(1, 2), keepdims=True)
    if tokens == "rows":
        X = img
    else:
        p = 2 if tokens == "patches" else 4
        k = 8 // p
        X = img.reshape(N, k, p, k, p).transpose(0, 1, 3, 2, 4).reshape(N, k * k, p * p)
    y = np.where(data.target[idx] % 2 == 0, 1.0, -1.0)
    return Batch(np.ascontiguousarray(X), y)
