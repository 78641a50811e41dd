"""One BLAS thread for the reference models.

The models multiply many small matrices; on a 2-core machine a multi-threaded OpenBLAS makes them
3-10x slower, and a result could depend on the thread count. The runner runs every claim, and the
test session every test, under :func:`single_thread`, so the same seed gives the same bits anywhere.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import scipy.linalg  # noqa: F401  (load SciPy's own BLAS before the controller lists libraries)
from threadpoolctl import ThreadpoolController


@functools.cache
def _controller() -> ThreadpoolController:
    np.dot(np.ones((2, 2)), np.ones((2, 2)))  # make sure numpy's BLAS is loaded
    return ThreadpoolController()


@contextmanager
def single_thread() -> Iterator[None]:
    """Limit every loaded BLAS to one thread inside the block (nests; restores on exit)."""
    with _controller().limit(limits=1, user_api="blas"):
        yield
