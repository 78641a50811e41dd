"""Experiments of ``claims/ntk.py`` (.ntk.concentration*): the NTK Gram and margin of one init draw, and
the sweep in H of their spread across init draws.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from verify.core.context import Mapper, serial_map
from verify.deora2023 import data as D
from verify.deora2023 import model as M
from verify.deora2023.experiments.runs import svm_margin


@dataclass(frozen=True)
class NtkGramPoint:
    """Init draw ``init`` at H heads on the data set of ``data_seed``."""

    data_seed: int
    init: int
    H: int
    shared: float = 0.0


def ntk_gram_point(p: NtkGramPoint) -> tuple[np.ndarray, float]:
    """(NTK Gram K_H at theta_0 on a fixed dataset (n = 40), full NTK margin) for one init draw (heads
    sharing the fraction ``shared`` of their U variance: :func:`verify.deora2023.model.init_params`)."""
    mix = D.Mixture()
    X, y, _ = mix.sample(np.random.default_rng([p.data_seed, 7]), 40)
    rng = np.random.default_rng([p.data_seed, 8, p.H, p.init])
    params = M.init_params(rng, p.H, mix.T, mix.d, shared=p.shared)
    F = M.features(params, X)
    return F @ F.T, svm_margin(F * y[:, None]).gamma


@dataclass(frozen=True)
class NtkSweep:
    """One data set (``seed``) and ``inits`` init draws at every H of ``Hs``."""

    seed: int
    Hs: tuple[int, ...]
    inits: int
    shared: float = 0.0
    mapper: Mapper = field(default=serial_map, compare=False, repr=False)


@functools.cache
def ntk_sweep(s: NtkSweep) -> tuple[np.ndarray, np.ndarray]:
    """Per H: (||std_inits K_H||_F / ||mean_inits K_H||_F, coefficient of variation of the margin)."""
    items = [NtkGramPoint(s.seed, j, H, s.shared) for H in s.Hs for j in range(s.inits)]
    out = s.mapper(ntk_gram_point, items)
    spread, cv = [], []
    for j, _ in enumerate(s.Hs):
        grams = np.array([g for g, _ in out[j * s.inits : (j + 1) * s.inits]])
        margins = np.array([m for _, m in out[j * s.inits : (j + 1) * s.inits]])
        spread.append(float(np.linalg.norm(grams.std(axis=0)) / np.linalg.norm(grams.mean(axis=0))))
        cv.append(float(margins.std() / margins.mean()))
    return np.array(spread), np.array(cv)
