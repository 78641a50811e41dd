"""Data for the wu2023 claims (spec Sect. 6): Gaussian tokens in two regimes, +-1 labels, and the
scikit-learn bundled digits (no download) for the Assumption 3 check.

Regimes (ours; the paper's data distribution is NOT RECOVERED):
* "paper" (paper-like): tokens i.i.d. N(0, I_d / d), norm about 1;
* "active" (attention-active): tokens i.i.d. N(0, I_d), norm^2 about d, logits O(1) under LeCun
  with tau0 = d_m^-1/2.
"""

from __future__ import annotations

import numpy as np

from bounds.checks import check_choice, check_int

REGIMES = ("paper", "active")
SKLEARN_MISSING = "scikit-learn not installed (pip install 'attncheck[data]')"


def gaussian_tokens(rng: np.random.Generator, N: int, d_s: int, d: int, regime: str = "paper") -> np.ndarray:
    """X: (N, d_s, d) with i.i.d. N(0, 1/d) ("paper") or N(0, 1) ("active") entries."""
    N, d_s, d = check_int("N", N), check_int("d_s", d_s), check_int("d", d)
    check_choice("regime", regime, REGIMES)
    X = rng.standard_normal((N, d_s, d))
    return X / np.sqrt(d) if regime == "paper" else X


def sign_labels(rng: np.random.Generator, N: int) -> np.ndarray:
    """y: (N,) i.i.d. uniform on {-1, +1}."""
    return rng.choice(np.array([-1.0, 1.0]), size=check_int("N", N))


def gaussian_data(
    rng: np.random.Generator, N: int, d_s: int, d: int, regime: str = "paper"
) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) from :func:`gaussian_tokens` and :func:`sign_labels`."""
    X = gaussian_tokens(rng, N, d_s, d, regime)
    return X, sign_labels(rng, N)


def digits_available() -> bool:
    try:
        import sklearn.datasets  # noqa: F401
    except ImportError:
        return False
    return True


def digits_tokens(rng: np.random.Generator, N: int, tokens: str = "rows") -> tuple[np.ndarray, np.ndarray]:
    """N random images of scikit-learn's bundled 8x8 digits (imported lazily; raises ImportError
    without scikit-learn). tokens "rows": 8 row-tokens of dimension 8; "patches": 16 2x2 patches of
    dimension 4. Pixels scaled to [0, 1] and each image centred by its mean pixel, so the tokens are
    not all in the positive orthant. Labels: +1 for even digits, -1 for odd. Returns X (N, d_s, d), y."""
    import sklearn.datasets

    check_choice("tokens", tokens, ("rows", "patches"))
    data = sklearn.datasets.load_digits()
    N = check_int("N", N, high=data.images.shape[0])
    idx = rng.choice(data.images.shape[0], size=N, replace=False)
    img = data.images[idx].astype(np.float64) / 16.0
    img -= img.mean(axis=(1, 2), keepdims=True)
    if tokens == "rows":
        X = img
    else:
        X = img.reshape(N, 4, 2, 4, 2).transpose(0, 1, 3, 2, 4).reshape(N, 16, 4)
    y = np.where(data.target[idx] % 2 == 0, 1.0, -1.0)
    return np.ascontiguousarray(X), y
