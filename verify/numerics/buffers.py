"""Per-thread work buffers for the hot paths of the reference models (no fresh pages per call).

Each model module owns one :class:`WorkBuffers`; ``get(name, shape)`` returns a C-contiguous float64
view of a per-(thread, name) array that grows as needed and is reused across calls. The caller owns the
contents only until its next ``get`` of the same name, so a hot path must copy (or compute into a new
array) whatever it returns.
"""

from __future__ import annotations

import math
import threading

import numpy as np


class WorkBuffers(threading.local):
    """Named float64 work arrays, one set per thread."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}
        self._views: dict[tuple[str, tuple[int, ...]], np.ndarray] = {}  # kept until the buffer grows

    def get(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """A float64 array of ``shape`` (uninitialised), a view of the buffer ``name``."""
        view = self._views.get((name, shape))
        if view is not None:
            return view
        size = math.prod(shape)
        buf = self._arrays.get(name)
        if buf is None or buf.size < size:
            buf = np.empty(size)
            self._arrays[name] = buf
            self._views = {k: v for k, v in self._views.items() if k[0] != name}
        view = self._views[name, shape] = buf[:size].reshape(shape)
        return view
