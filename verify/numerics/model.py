"""The one small protocol every paper's reference model follows.

A model object holds the paper's fixed configuration (widths, scalings, activation, loss); its
parameters travel in a typed container (a frozen dataclass of float64 arrays, subclassing
:class:`ParamBlocks`) and its data in a batch object of the paper's own type. Then one GD loop
(:mod:`verify.numerics.gd`), one gradient checker and one benchmark harness serve all papers::

    loss = model.loss(params, batch)
    loss, grads = model.loss_and_grad(params, batch)   # grads: same type as params
    out = model.forward(params, batch)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, fields, replace
from typing import Any, Protocol, Self, TypeVar, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class ParamBlocks:
    """Base of a paper's parameter container: named float64 array blocks (e.g. ``w_q, w_k, w_v``).

    ``blocks()`` gives the blocks as a dict in field order (the GD loop's view), ``from_blocks``
    rebuilds the container, ``replace(**blocks)`` changes some blocks.
    """

    def blocks(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in _names(type(self))}

    @classmethod
    def from_blocks(cls, blocks: dict[str, Any]) -> Self:
        return cls(**blocks)

    def replace(self, **blocks: Any) -> Self:
        return replace(self, **blocks)


@functools.cache
def _names(cls: type[ParamBlocks]) -> tuple[str, ...]:
    """The block names of a container class, in field order (``blocks()`` is on GD's hot path)."""
    return tuple(f.name for f in fields(cls))


P = TypeVar("P", bound=ParamBlocks)
B = TypeVar("B")


@runtime_checkable
class Model(Protocol[P, B]):
    """forward(params, batch) -> output; loss(params, batch) -> float; loss_and_grad(params, batch)
    -> (loss, grads) with hand-derived gradients, grads of the same type as params."""

    def forward(self, params: P, batch: B) -> Any: ...

    def loss(self, params: P, batch: B) -> float: ...

    def loss_and_grad(self, params: P, batch: B) -> tuple[float, P]: ...


__all__ = ["Model", "ParamBlocks"]
