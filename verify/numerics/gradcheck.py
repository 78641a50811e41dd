"""Checking hand-derived gradients in NumPy, in the spirit of torch gradcheck and jax check_grads.

* :func:`check_grad` -- a scalar function of named parameter blocks against its analytic gradient:
  central differences at two step sizes that must agree with each other (otherwise the point is near a
  kink and the comparison is refused, not passed); every coordinate on small blocks, random directions
  ``v`` (``<grad, v>`` against the directional difference) on large ones; the report names the block,
  the worst index, the analytic and the numeric value. An optional mpmath oracle ``f_mp`` replaces the
  float64 differences by high-precision ones.
* :func:`check_hvp` -- a Hessian-vector product against central differences of the gradient.
* :func:`check_adjoint` -- a JVP/VJP pair satisfies ``<u, J v> = <J^T u, v>``.

Rule per compared value: ``|analytic - numeric| <= atol + rtol * |numeric|`` (float64 only). A NaN or
an infinity on either side raises ValueError naming the block and the index (the claim's verdict is
then ``error``): a comparison with NaN is never a pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import mpmath
import numpy as np

from bounds.checks import check_int, check_positive

Params = Mapping[str, np.ndarray]

#: Blocks with at most this many entries are checked coordinate by coordinate in mode "auto".
MAX_FULL = 400


@dataclass
class Mismatch:
    block: str
    index: tuple[int, ...] | str
    analytic: float
    numeric: float

    @property
    def error(self) -> float:
        return abs(self.analytic - self.numeric)


@dataclass
class GradReport:
    """Outcome of a derivative check; ``ok`` is the verdict, ``worst`` the largest violation."""

    ok: bool
    checked: int
    worst: Mismatch | None
    max_rel_error: float
    unstable: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.ok:
            return f"ok: {self.checked} values, max scaled error {self.max_rel_error:.2e}"
        w = self.worst
        where = (
            ""
            if w is None
            else (
                f"; worst in block {w.block!r} at {w.index}: analytic {w.analytic:.10e} vs numeric "
                f"{w.numeric:.10e} (|diff| {w.error:.3e})"
            )
        )
        unstable = f"; unstable differences in {self.unstable}" if self.unstable else ""
        return f"FAILED: {self.checked} values, max scaled error {self.max_rel_error:.2e}{where}{unstable}"


def _copy(params: Params) -> dict[str, np.ndarray]:
    return {k: np.array(v, dtype=np.float64, copy=True) for k, v in params.items()}


def _directional(
    f: Callable[[Params], float], params: Params, direction: Mapping[str, np.ndarray], h: float
) -> float:
    plus = {k: v + h * direction.get(k, 0.0) for k, v in params.items()}
    minus = {k: v - h * direction.get(k, 0.0) for k, v in params.items()}
    return (float(f(plus)) - float(f(minus))) / (2.0 * h)


def _directional_mp(
    f_mp: Callable[[Params], object], params: Params, direction: Mapping[str, np.ndarray], dps: int
) -> float:
    with mpmath.workdps(dps):
        h = mpmath.mpf(10) ** (-(dps // 2))
        conv = {k: np.vectorize(mpmath.mpf, otypes=[object])(v) for k, v in params.items()}
        plus = {k: v + h * direction.get(k, 0.0) for k, v in conv.items()}
        minus = {k: v - h * direction.get(k, 0.0) for k, v in conv.items()}
        return float((f_mp(plus) - f_mp(minus)) / (2 * h))


class _Judge:
    """Accumulates comparisons under the rule |a - n| <= atol + rtol |n|."""

    def __init__(self, rtol: float, atol: float) -> None:
        self.rtol, self.atol = rtol, atol
        self.ok, self.checked, self.worst_score = True, 0, 0.0
        self.worst: Mismatch | None = None
        self.unstable: list[str] = []

    def add(self, m: Mismatch, numeric_alt: float | None = None) -> None:
        for side, v in (("analytic", m.analytic), ("numeric", m.numeric), ("numeric at eps/4", numeric_alt)):
            if v is not None and not np.isfinite(v):
                raise ValueError(
                    f"gradient check: non-finite {side} value {v} in block {m.block!r} at {m.index}"
                )
        self.checked += 1
        tol = self.atol + self.rtol * abs(m.numeric)
        if numeric_alt is not None and abs(numeric_alt - m.numeric) > tol:
            self.unstable.append(f"{m.block}{m.index}")
            self.ok = False
        score = m.error / tol
        if score > 1.0:
            self.ok = False
        if score >= self.worst_score:
            self.worst_score, self.worst = score, m

    def report(self) -> GradReport:
        return GradReport(self.ok, self.checked, self.worst, self.worst_score, self.unstable)


def check_grad(
    f: Callable[[Params], float],
    params: Params,
    grad: Params,
    *,
    mode: str = "auto",
    eps: float = 1e-6,
    rtol: float = 1e-6,
    atol: float = 1e-8,
    n_dirs: int = 8,
    seed: int = 0,
    f_mp: Callable[[Params], object] | None = None,
    mp_dps: int = 40,
) -> GradReport:
    """Compare ``grad`` (analytic, same blocks and shapes as ``params``) with central differences of f.

    mode: "full" (every coordinate), "directional" (``n_dirs`` random unit directions per block and
    one over all blocks jointly) or "auto" (full for blocks of <= MAX_FULL entries). Each numeric value
    is computed at steps ``eps`` and ``eps / 4``; the two must agree within the tolerance, so a kink
    between them fails the check instead of passing by luck. With ``f_mp`` (f written for object
    arrays of mpf) the numeric side is a ``mp_dps``-digit central difference instead.
    """
    if mode not in ("auto", "full", "directional"):
        raise ValueError(f"mode must be one of ('auto', 'full', 'directional'), got {mode!r}")
    eps, rtol = check_positive("eps", eps), check_positive("rtol", rtol)
    atol = check_positive("atol", atol)
    n_dirs = check_int("n_dirs", n_dirs, low=1)
    if set(grad) != set(params):
        raise ValueError(f"grad blocks {sorted(grad)} must equal params blocks {sorted(params)}")
    for k in params:
        if np.shape(grad[k]) != np.shape(params[k]):
            raise ValueError(f"grad[{k!r}] has shape {np.shape(grad[k])}, params {np.shape(params[k])}")
        bad = np.argwhere(~np.isfinite(np.asarray(grad[k], dtype=np.float64)))
        if bad.size:
            idx = tuple(int(i) for i in bad[0])
            raise ValueError(f"gradient check: non-finite analytic gradient in block {k!r} at {idx}")
    p = _copy(params)
    judge = _Judge(rtol, atol)
    rng = np.random.default_rng(seed)

    def numeric(direction: Mapping[str, np.ndarray]) -> tuple[float, float | None]:
        if f_mp is not None:
            return _directional_mp(f_mp, p, direction, mp_dps), None
        return _directional(f, p, direction, eps), _directional(f, p, direction, eps / 4)

    for name, block in p.items():
        g = np.asarray(grad[name], dtype=np.float64)
        if mode == "full" or (mode == "auto" and block.size <= MAX_FULL):
            for idx in np.ndindex(block.shape):
                e = np.zeros_like(block)
                e[idx] = 1.0
                num, alt = numeric({name: e})
                judge.add(Mismatch(name, idx, float(g[idx]), num), alt)
        else:
            for j in range(n_dirs):
                v = rng.standard_normal(block.shape)
                v /= np.linalg.norm(v)
                num, alt = numeric({name: v})
                judge.add(Mismatch(name, f"dir{j}", float(np.sum(g * v)), num), alt)
    joint = {k: rng.standard_normal(v.shape) for k, v in p.items()}
    norm = np.sqrt(sum(float(np.sum(v * v)) for v in joint.values()))
    joint = {k: v / norm for k, v in joint.items()}
    num, alt = numeric(joint)
    analytic = sum(float(np.sum(np.asarray(grad[k]) * joint[k])) for k in p)
    judge.add(Mismatch("<all blocks>", "joint", analytic, num), alt)
    return judge.report()


def check_hvp(
    grad_fn: Callable[[Params], Params],
    params: Params,
    hvp: Callable[[Params, Params], Params],
    *,
    n_dirs: int = 4,
    eps: float = 1e-5,
    rtol: float = 1e-5,
    atol: float = 1e-7,
    seed: int = 0,
) -> GradReport:
    """Compare ``hvp(params, v)`` with ``(grad(params + h v) - grad(params - h v)) / 2h``, entrywise,
    for ``n_dirs`` random directions ``v`` over all blocks, at steps ``eps`` and ``eps / 4``."""
    eps, rtol, atol = check_positive("eps", eps), check_positive("rtol", rtol), check_positive("atol", atol)
    n_dirs = check_int("n_dirs", n_dirs, low=1)
    p = _copy(params)
    rng = np.random.default_rng(seed)
    judge = _Judge(rtol, atol)

    def fd(v: Mapping[str, np.ndarray], h: float) -> dict[str, np.ndarray]:
        gp = grad_fn({k: x + h * v[k] for k, x in p.items()})
        gm = grad_fn({k: x - h * v[k] for k, x in p.items()})
        return {k: (np.asarray(gp[k]) - np.asarray(gm[k])) / (2 * h) for k in p}

    for j in range(n_dirs):
        v = {k: rng.standard_normal(x.shape) for k, x in p.items()}
        hv = hvp(p, v)
        n1, n2 = fd(v, eps), fd(v, eps / 4)
        for k in p:
            a = np.asarray(hv[k], dtype=np.float64)
            for idx in np.ndindex(a.shape):
                judge.add(Mismatch(k, (j, *idx), float(a[idx]), float(n1[k][idx])), float(n2[k][idx]))
    return judge.report()


def check_adjoint(
    jvp: Callable[[np.ndarray], np.ndarray],
    vjp: Callable[[np.ndarray], np.ndarray],
    in_shape: tuple[int, ...],
    out_shape: tuple[int, ...],
    *,
    n_dirs: int = 4,
    rtol: float = 1e-12,
    seed: int = 0,
) -> GradReport:
    """Check ``<u, J v> == <J^T u, v>`` for random ``u`` (out_shape) and ``v`` (in_shape)."""
    rtol = check_positive("rtol", rtol)
    rng = np.random.default_rng(seed)
    judge = _Judge(rtol, 0.0 + np.finfo(np.float64).tiny)
    for j in range(check_int("n_dirs", n_dirs, low=1)):
        u, v = rng.standard_normal(out_shape), rng.standard_normal(in_shape)
        jv, jtu = np.asarray(jvp(v)), np.asarray(vjp(u))
        lhs, rhs = float(np.sum(u * jv)), float(np.sum(jtu * v))
        scale = np.linalg.norm(u) * np.linalg.norm(jv) + np.linalg.norm(jtu) * np.linalg.norm(v)
        # compare at the scale of the inner products' terms, not of their (possibly tiny) value
        judge.rtol = rtol * max(1.0, scale / max(abs(rhs), 1e-300))
        judge.add(Mismatch("<adjoint>", f"dir{j}", lhs, rhs))
    return judge.report()


def assert_grad_ok(report: GradReport) -> None:
    """Raise ``AssertionError`` with the report's summary when the check failed."""
    if not report.ok:
        raise AssertionError(report.summary())
