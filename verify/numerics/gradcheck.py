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

Round-off floor: a central difference at step ``h`` of a function computed with noise of standard
deviation ``sigma_f`` is off by up to ``3 sigma_f / h`` (each value within three standard deviations), which
exceeds ``atol`` when the loss is large (a loss of 50 has ``sigma_f`` near 1e-14, so 1e-7 at h = 2.5e-7).
A float64 comparison that fails the rule is therefore judged once more with that floor added, ``sigma_f``
measured along the same direction from the function's own higher-order differences (Moré and Wild,
"Estimating computational noise", SIAM J. Sci. Comput. 33(3), 2011). The floor of the eps / 4 difference
may be at most ``MAX_FLOOR`` times the analytic gradient's norm; a check that would need more fails and
says so (the function is too noisy for float64 differences at this step: use ``f_mp``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import mpmath
import numpy as np

from bounds.checks import check_int, check_positive

Params = Mapping[str, np.ndarray]

#: Blocks with at most this many entries are checked coordinate by coordinate in mode "auto".
MAX_FULL = 400

#: Largest round-off floor, as a fraction of the analytic gradient's norm, a comparison may be granted.
MAX_FLOOR = 1e-3

#: Points and difference orders of the noise estimate (Moré and Wild's table, orders 3 to 6).
_NOISE_POINTS, _NOISE_ORDERS = 16, (3, 4, 5, 6)


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
    #: values judged with a round-off floor, and the largest floor granted (or refused, in ``unresolved``)
    floored: int = 0
    max_floor: float = 0.0
    unresolved: list[str] = field(default_factory=list)

    def summary(self) -> str:
        floor = (
            f"; {self.floored} judged at round-off floor up to {self.max_floor:.1e}" if self.floored else ""
        )
        if self.ok:
            return f"ok: {self.checked} values, max scaled error {self.max_rel_error:.2e}{floor}"
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
        unresolved = (
            f"; round-off floor above {MAX_FLOOR:g} of the gradient norm in {self.unresolved}"
            if self.unresolved
            else ""
        )
        return (
            f"FAILED: {self.checked} values, max scaled error {self.max_rel_error:.2e}{where}{unstable}"
            f"{unresolved}{floor}"
        )


def _copy(params: Params) -> dict[str, np.ndarray]:
    return {k: np.array(v, dtype=np.float64, copy=True) for k, v in params.items()}


def _directional(
    f: Callable[[Params], float], params: Params, direction: Mapping[str, np.ndarray], h: float
) -> float:
    plus = {k: v + h * direction.get(k, 0.0) for k, v in params.items()}
    minus = {k: v - h * direction.get(k, 0.0) for k, v in params.items()}
    return (float(f(plus)) - float(f(minus))) / (2.0 * h)


def noise_level(
    f: Callable[[Params], float], params: Params, direction: Mapping[str, np.ndarray], delta: float
) -> float:
    """Standard deviation of f's round-off noise along ``direction`` (Moré and Wild's difference table).

    f at ``x + i delta v`` (i = 0..15); the k-th differences of pure noise have variance
    ``sigma^2 / gamma_k`` with ``gamma_k = (k!)^2 / (2k)!``, while a smooth f contributes only
    ``f^(k) delta^k``. The median of the estimates of orders 3 to 6 is returned.
    """
    values = np.array(
        [
            float(f({k: v + i * delta * direction.get(k, 0.0) for k, v in params.items()}))
            for i in range(_NOISE_POINTS)
        ]
    )
    estimates = []
    for k in _NOISE_ORDERS:
        diff = np.diff(values, k)
        gamma = math.factorial(k) ** 2 / math.factorial(2 * k)
        estimates.append(math.sqrt(gamma * float(np.mean(diff * diff))))
    return float(np.median(estimates))


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
    """Accumulates comparisons under the rule |a - n| <= atol + rtol |n| (+ a measured round-off floor)."""

    def __init__(self, rtol: float, atol: float, max_floor: float = 0.0) -> None:
        self.rtol, self.atol, self.max_floor = rtol, atol, max_floor
        self.ok, self.checked, self.worst_score = True, 0, 0.0
        self.worst: Mismatch | None = None
        self.unstable: list[str] = []
        self.unresolved: list[str] = []
        self.floored, self.floor_used = 0, 0.0

    def add(
        self, m: Mismatch, numeric_alt: float | None = None, floor: Callable[[], float] | None = None
    ) -> None:
        """Judge one value; ``numeric_alt`` is the difference at eps/4, ``floor()`` the round-off floor
        ``3 sigma_f / eps`` of the eps difference (measured only if the plain rule fails)."""
        for side, v in (("analytic", m.analytic), ("numeric", m.numeric), ("numeric at eps/4", numeric_alt)):
            if v is not None and not np.isfinite(v):
                raise ValueError(
                    f"gradient check: non-finite {side} value {v} in block {m.block!r} at {m.index}"
                )
        self.checked += 1
        tol = self.atol + self.rtol * abs(m.numeric)
        spread = 0.0 if numeric_alt is None else abs(numeric_alt - m.numeric)
        if floor is not None and (spread > tol or m.error > tol):
            f_eps = floor()  # the eps/4 difference's floor is 4 f_eps: the pair may differ by 5 f_eps
            if 4.0 * f_eps > self.max_floor:
                self.unresolved.append(f"{m.block}{m.index}")
                self.ok = False
            else:
                self.floored += 1
                self.floor_used = max(self.floor_used, 4.0 * f_eps)
                if spread > tol + 5.0 * f_eps:
                    self.unstable.append(f"{m.block}{m.index}")
                    self.ok = False
                tol += f_eps
        elif spread > tol:
            self.unstable.append(f"{m.block}{m.index}")
            self.ok = False
        score = m.error / tol
        if score > 1.0:
            self.ok = False
        if score >= self.worst_score:
            self.worst_score, self.worst = score, m

    def report(self) -> GradReport:
        return GradReport(
            self.ok,
            self.checked,
            self.worst,
            self.worst_score,
            self.unstable,
            self.floored,
            self.floor_used,
            self.unresolved,
        )


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
    between them fails the check instead of passing by luck. A value failing the rule is judged again with
    the round-off floor measured along its direction (module docstring). With ``f_mp`` (f written for
    object arrays of mpf) the numeric side is a ``mp_dps``-digit central difference instead.
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
    g_norm = math.sqrt(sum(float(np.sum(np.asarray(g, dtype=np.float64) ** 2)) for g in grad.values()))
    judge = _Judge(rtol, atol, MAX_FLOOR * g_norm)
    rng = np.random.default_rng(seed)

    def numeric(direction: Mapping[str, np.ndarray]) -> tuple[float, float | None]:
        if f_mp is not None:
            return _directional_mp(f_mp, p, direction, mp_dps), None
        return _directional(f, p, direction, eps), _directional(f, p, direction, eps / 4)

    def floor(direction: Mapping[str, np.ndarray]) -> Callable[[], float] | None:
        if f_mp is not None:
            return None
        return lambda: 3.0 * noise_level(f, p, direction, eps / 64) / eps

    for name, block in p.items():
        g = np.asarray(grad[name], dtype=np.float64)
        if mode == "full" or (mode == "auto" and block.size <= MAX_FULL):
            for idx in np.ndindex(block.shape):
                e = np.zeros_like(block)
                e[idx] = 1.0
                num, alt = numeric({name: e})
                judge.add(Mismatch(name, idx, float(g[idx]), num), alt, floor({name: e}))
        else:
            for j in range(n_dirs):
                v = rng.standard_normal(block.shape)
                v /= np.linalg.norm(v)
                num, alt = numeric({name: v})
                judge.add(Mismatch(name, f"dir{j}", float(np.sum(g * v)), num), alt, floor({name: v}))
    joint = {k: rng.standard_normal(v.shape) for k, v in p.items()}
    norm = np.sqrt(sum(float(np.sum(v * v)) for v in joint.values()))
    joint = {k: v / norm for k, v in joint.items()}
    num, alt = numeric(joint)
    analytic = sum(float(np.sum(np.asarray(grad[k]) * joint[k])) for k in p)
    judge.add(Mismatch("<all blocks>", "joint", analytic, num), alt, floor(joint))
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
