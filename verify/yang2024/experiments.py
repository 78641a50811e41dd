"""Experiments of the yang2024 claims: GD and Adam runs, Monte-Carlo estimates, the sweep workers.

GD follows eqs. (7a)/(7b) with eta_w = gamma^2 eta_Q; the default step rule is
eta_Q = 1 / (gamma^2 max_k lambda_max(B_k^(0)T B_k^(0))), i.e. eta_w = 1/max_k lambda_max, the inverse
smoothness of the w-block at initialisation (the paper's L is NOT RECOVERED). The trajectory's
``loss`` is Delta(t) = L - L* computed directly. Problems and runs are cached per process
(``functools.cache``: same arguments give the same, bit-identical object), so claims that share a run
do not pay for it twice; cached arrays are read-only. Sweep points are frozen dataclasses and their
workers are module-level functions (``ctx.map`` may run them in other processes).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import mpmath
import numpy as np
from scipy.sparse.linalg import LinearOperator, eigsh

from bounds import yang2024 as B
from bounds.checks import check_choice, check_int, check_positive
from verify.core import Ctx
from verify.core.format import fmt_sci
from verify.numerics.gd import RunState, Trajectory, gradient_descent
from verify.numerics.worstcase import WorstCase, worst_case
from verify.yang2024 import data as D
from verify.yang2024 import model as M

EPS = float(np.finfo(np.float64).eps)
#: rng keys (ctx.rng(KEY_..., ...)) of the problem draw and of the initialisation
KEY_PROBLEM, KEY_INIT = 100, 101
#: a run whose Delta exceeds DIVERGED * max(Delta(0), 1) is stopped as diverged (traj.state says so)
DIVERGED = 1e6
#: the default gamma (eta_w = gamma^2 eta_Q) and the ladder tried when GD diverges at it
GAMMA = 3.0
GAMMA_LADDER = (3.0, 10.0, 30.0)


@functools.cache
def problem_for(seed: int, config: D.Config, tokens: str = "gaussian") -> D.Problem:
    """The problem of ``seed`` (ctx.rng(KEY_PROBLEM)): same seed and config, same problem."""
    c = config
    return D.make_problem(c.K, c.N, c.d, c.m, c.tau, Ctx(seed=seed).rng(KEY_PROBLEM), tokens)


def init_for(seed: int, problem: D.Problem, H: int, beta: float, key: int = 0) -> M.Params:
    """Q^(0) ~ N(0, beta^2) from ctx.rng(KEY_INIT, H, key), w^(0) = 0 (same draw for every beta)."""
    return M.Transformer(H).init(problem, beta, Ctx(seed=seed).rng(KEY_INIT, H, key))


def random_theta(problem: D.Problem, H: int, rng: np.random.Generator) -> M.Params:
    """Q Gaussian (beta = 1), w ~ 0.3 N(0, 1) (the inputs of yang2024.lemma5 and yang2024.grad)."""
    th = M.Transformer(H).init(problem, 1.0, rng)
    return th.replace(w=0.3 * rng.standard_normal(th.w.shape))


def step_sizes(params: M.Params, problem: D.Problem, gamma: float) -> tuple[float, float]:
    """(eta_Q, lambda_max) with eta_Q = 1/(gamma^2 max_k lambda_max(B_k^T B_k)) at params."""
    Bm = M.Transformer(params.Q.shape[0]).B_matrices(params, problem)
    lam_max = float(np.max(np.linalg.svd(Bm, compute_uv=False)[:, 0]) ** 2)
    return 1.0 / (check_positive("gamma", gamma) ** 2 * lam_max), lam_max


@dataclass(frozen=True)
class InitRate:
    """The Theorem 1 quantities at initialisation: theta^(0), zeta_0, eta_Q, max_k lambda_max, rho,
    Delta(0)."""

    theta0: M.Params
    zeta0: float
    eta_Q: float
    lam_max: float
    rho: mpmath.mpf
    delta0: float


def init_rate(seed: int, config: D.Config, H: int, gamma: float = GAMMA) -> InitRate:
    """zeta_0, the default step sizes and rho = bounds.rate_factor at the beta = 1 init of H heads."""
    p = problem_for(seed, config)
    th = init_for(seed, p, H, 1.0)
    eta_Q, lam_max = step_sizes(th, p, gamma)
    model = M.Transformer(H)
    z0 = model.zeta(th, p)
    return InitRate(th, z0, eta_Q, lam_max, B.rate_factor(eta_Q, gamma, z0), model.excess_loss(th, p))


@dataclass
class Run:
    """A GD run: problem, zeta_0, eta_Q, gamma, trajectory (loss = Delta), snapshots [(t, theta_t)]
    at the requested steps."""

    problem: D.Problem
    zeta0: float
    eta_Q: float
    gamma: float
    traj: Trajectory
    snapshots: list[tuple[int, M.Params]] = field(default_factory=list)

    @property
    def diverged(self) -> bool:
        """True when the divergence guard (or a non-finite loss) stopped the run."""
        return self.traj.state == RunState.DIVERGED


def _freeze(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def run_gd(
    seed: int,
    config: D.Config,
    H: int,
    *,
    beta: float = 1.0,
    gamma: float = GAMMA,
    steps: int = 2000,
    track_B: bool = False,
    snapshot_every: int = 0,
    step_factor: float = 1.0,
    stop_below: float | None = None,
) -> Run:
    """GD from the paper's initialisation (Sec. 2.3) with eta_w = gamma^2 eta_Q (cached).

    track_B: also record min_k lambda_min(B_k^(t) B_k^(t)T) at every step (the PL premise, extras
    "lam_min_BBt") and ||dL/dw||^2 (extras "gw_sq"), and keep the gradient norms and drift (the
    trajectory's ``grad_norm`` and ``drift`` are empty otherwise). snapshot_every: keep theta_t every
    that many steps (and the last one). step_factor: eta_Q = step_factor / (gamma^2 max_k lambda_max)
    (1: the default rule). stop_below: stop once Delta is below it (the run's state is then
    ``converged``).
    """
    stop = None if stop_below is None else float(stop_below)
    return _run_gd(
        int(seed), config, int(H), float(beta), float(gamma), int(steps), bool(track_B), int(snapshot_every),
        float(step_factor), stop,
    )  # fmt: skip


@functools.cache
def _run_gd(
    seed: int,
    config: D.Config,
    H: int,
    beta: float,
    gamma: float,
    steps: int,
    track_B: bool,
    snapshot_every: int,
    step_factor: float,
    stop_below: float | None,
) -> Run:
    steps = check_int("steps", steps, low=0)
    problem = problem_for(seed, config)
    model = M.Transformer(H, excess=True)
    theta0 = init_for(seed, problem, H, beta)
    zeta0 = model.zeta(theta0, problem)
    eta_Q = step_sizes(theta0, problem, gamma)[0] * check_positive("step_factor", step_factor)
    snaps: list[tuple[int, M.Params]] = []
    record = {}
    last_S: list[np.ndarray] = []
    if track_B:

        def lam_min(th: object, g: object, loss: float, t: int) -> float:
            C = last_S[0].transpose(2, 1, 0)  # (K, N, H) at theta_t, from the gradient call
            BBt = problem.Zbar @ (C @ C.transpose(0, 2, 1)) @ problem.Zbar  # B_k B_k^T
            return float(np.min(np.linalg.eigvalsh(BBt)[:, 0]))

        record["lam_min_BBt"] = lam_min
        record["gw_sq"] = lambda th, g, loss, t: float(np.sum(g["w"] ** 2))
    if snapshot_every:

        def snap(th: dict[str, np.ndarray], g: object, loss: float, t: int) -> float:
            if t % snapshot_every == 0 or t == steps or (stop_below is not None and loss < stop_below):
                snaps.append((t, M.Params(**{k: _freeze(v.copy()) for k, v in th.items()})))
            return 0.0

        record["snap"] = snap

    delta0 = model.excess_loss(theta0, problem)

    def loss_and_grad(th: M.Params) -> tuple[float, M.Params]:
        value, g, S = model.loss_grad_attention(th, problem, attention=track_B)
        if S is not None:  # the attention at theta_t, for the PL recorder
            last_S[:] = [S]
        if not value <= DIVERGED * max(delta0, 1.0):  # divergence guard: the loop stops cleanly
            return math.inf, g
        return value, g

    etas = {"Q": eta_Q, "w": gamma**2 * eta_Q}
    # gradient norms and drift: only the tracked runs' claims read them (thm1 notes the Q drift)
    traj = gradient_descent(
        theta0, loss_and_grad, etas, steps, record=record, stop_below=stop_below, norms=track_B
    )
    for arr in (traj.loss, traj.grad_norm, traj.drift, *traj.extras.values()):
        _freeze(arr)
    return Run(problem, zeta0, eta_Q, gamma, traj, snaps)


def canonical_run(
    seed: int, config: D.Config, H: int, steps: int, gamma: float = GAMMA, step_factor: float = 1.0
) -> Run:
    """The shared GD run (default step rule times ``step_factor``, 41 snapshots): claims with the same
    (config, H, steps, gamma, step_factor) share it through the cache of :func:`run_gd`."""
    return run_gd(
        seed, config, H, gamma=gamma, steps=steps, snapshot_every=max(1, steps // 40), step_factor=step_factor
    )


def stable_run(seed: int, config: D.Config, H: int, steps: int) -> Run:
    """The canonical run at the smallest gamma of :data:`GAMMA_LADDER` for which GD does not diverge:
    the default step rule only controls the w-block, and with few heads the Q-block can be stiffer (the
    paper's eta_Q <= 1/L with its L NOT RECOVERED). Larger gamma = smaller eta_Q, same eta_w."""
    for gamma in GAMMA_LADDER:
        r = canonical_run(seed, config, H, steps, gamma)
        if not r.diverged:
            break
    return r


def tracked_run(
    seed: int, config: D.Config, H: int, steps: int, gamma: float = GAMMA, step_factor: float = 1.0
) -> Run:
    """A GD run recording the PL premise min_k lambda_min(B_k^(t) B_k^(t)T) at every step, with five
    snapshots (t = 0, T/4, ..., T) for the step-size check (:func:`hessian_lmax`)."""
    return run_gd(
        seed, config, H, gamma=gamma, steps=steps, track_B=True, snapshot_every=max(1, steps // 4),
        step_factor=step_factor,
    )  # fmt: skip


def hessian_lmax(params: M.Params, problem: D.Problem, gamma: float, h: float = 1e-6) -> float:
    """Largest Ritz value (Lanczos, scipy eigsh) of the Hessian of L at params in the coordinates
    (Q, alpha = w / gamma) in which Theorem 1's GD has the single step eta_Q; Hessian-vector products
    by central differences of the hand gradients at step h. A Ritz value is at most lambda_max of the
    Hessian, which is at most the smoothness constant L of the theorem (NOT RECOVERED): eta_Q times it
    above 1 proves that eta_Q <= 1/L fails."""
    model = M.Transformer(params.Q.shape[0], excess=True)
    nQ = params.Q.size

    def grad(x: np.ndarray) -> np.ndarray:
        th = M.Params(Q=x[:nQ].reshape(params.Q.shape), w=gamma * x[nQ:].reshape(params.w.shape))
        g = model.loss_and_grad(th, problem)[1]
        return np.concatenate([g.Q.ravel(), gamma * g.w.ravel()])

    x0 = np.concatenate([params.Q.ravel(), params.w.ravel() / gamma])

    def hvp(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64).ravel()
        return (grad(x0 + h * v) - grad(x0 - h * v)) / (2 * h)

    op = LinearOperator((x0.size, x0.size), matvec=hvp, dtype=np.float64)
    v0 = np.ones(x0.size) / math.sqrt(x0.size)  # deterministic start
    return float(eigsh(op, k=1, which="LA", v0=v0, tol=1e-6, return_eigenvectors=False)[0])


def fixed_Q_floor(Q: np.ndarray, problem: D.Problem) -> float:
    """min over w of Delta(Q, w) = 1/2 sum_k ||(I - P_k) Zbar A_k||^2, P_k the orthogonal projector onto
    range(B_k), B_k = Zbar C_k (N, H): the loss floor at fixed Q (DERIVED: Lemma 5 is a least-squares
    problem in each w_{:,k}). rank B_k <= H, so for H < N the floor is positive unless Zbar A_k happens to
    lie in range(B_k); for H >= N with rank C_k = N it is 0 (L* attained)."""
    C = M.Transformer(Q.shape[0]).attention(Q, problem).transpose(2, 1, 0)  # (K, N, H)
    Bm = np.matmul(problem.Zbar, C)
    target = (problem.Zbar @ problem.A).T[:, :, None]  # (K, N, 1)
    r = Bm @ (np.linalg.pinv(Bm) @ target) - target
    return 0.5 * float(np.sum(r * r))


def fmt_count(T: mpmath.mpf) -> str:
    """An iteration count from bounds (mpf, possibly infinite when rho = 1) for the notes."""
    return fmt_sci(T) if mpmath.isfinite(T) else "inf"


def diverged_notes(runs: list[tuple[int, Run]]) -> list[str]:
    """One failed-assumption line per diverged run of ``[(H, run)]``."""
    return [
        f"GD diverged at H = {H}, gamma = {r.gamma:g} ({r.traj.stopped}): eta_Q is above the "
        "paper's 1/L (NOT RECOVERED) there"
        for H, r in runs
        if r.diverged
    ]


def adam(
    params: M.Params,
    loss_and_grad: Callable[[M.Params], tuple[float, M.Params]],
    lr: float,
    steps: int,
    *,
    betas: tuple[float, float] = (0.9, 0.999),
    eps: float = 1e-8,
    every: int = 1,
    record: dict[str, Callable[[M.Params, int], float]] | None = None,
    until: Callable[[list[float], dict[str, list[float]]], bool] | None = None,
) -> tuple[M.Params, list[int], list[float], dict[str, list[float]]]:
    """Adam (Kingma & Ba) on the closed-form loss, as in the paper's experiments (Sec. 4).

    Returns (theta_T, recorded steps, loss at those steps, {name: values of record(theta, t)}).
    until(losses, records): read after each recorded step; True ends the run there (that step is then
    T; the iterates up to it are those of the full run, bit for bit). The update runs in place in two
    work arrays per block, the same operations in the same order as m1 = b1 m1 + (1 - b1) g,
    m2 = b2 m2 + (1 - b2) g^2, theta -= lr m1_hat / (sqrt(m2_hat) + eps), so bit-identical to it
    (2.4x faster at the paper's Q: no fresh arrays per step).
    """
    lr = check_positive("lr", lr)
    steps = check_int("steps", steps, low=0)
    b1, b2 = betas
    th = {k: np.array(v, dtype=np.float64, copy=True) for k, v in params.blocks().items()}
    m1 = {k: np.zeros_like(v) for k, v in th.items()}
    m2 = {k: np.zeros_like(v) for k, v in th.items()}
    work = {k: (np.empty_like(v), np.empty_like(v)) for k, v in th.items()}
    ts: list[int] = []
    losses: list[float] = []
    rec: dict[str, list[float]] = {k: [] for k in (record or {})}
    for t in range(steps + 1):
        theta = M.Params.from_blocks(th)
        loss, grads = loss_and_grad(theta)
        g = grads.blocks()
        if t % every == 0 or t == steps:
            ts.append(t)
            losses.append(float(loss))
            for name, fn in (record or {}).items():
                rec[name].append(float(fn(theta, t)))
            if until is not None and until(losses, rec):
                break
        if t == steps:
            break
        for k in th:
            a, b = work[k]
            np.multiply(m1[k], b1, out=m1[k])
            m1[k] += np.multiply(g[k], 1 - b1, out=a)
            np.multiply(m2[k], b2, out=m2[k])
            np.multiply(g[k], g[k], out=a)
            a *= 1 - b2
            m2[k] += a
            mh = np.divide(m1[k], 1 - b1 ** (t + 1), out=a)
            vh = np.divide(m2[k], 1 - b2 ** (t + 1), out=b)
            denom = np.add(np.sqrt(vh, out=vh), eps, out=vh)
            mh *= lr
            mh /= denom
            th[k] -= mh
    return M.Params.from_blocks(th), ts, losses, rec


def ridge_limit(problem: D.Problem, y: np.ndarray) -> np.ndarray:
    """y-hat* = (y, Z_Q^T lambda-hat) from the ridge of eq. (20) (not through A)."""
    lam = B.transformer_ridge(problem.Z, y, problem.tau)
    return B.ridge_predictions(problem.Z, problem.Z_Q, y, lam)


def inference_error(params: M.Params, problem: D.Problem, y: np.ndarray) -> np.ndarray:
    """(1/K) ||y-hat - y-hat*||^2 per prompt, (n,)."""
    diff = M.Transformer(params.Q.shape[0]).predict(params, problem, y) - ridge_limit(problem, y)
    return np.sum(diff * diff, axis=1) / problem.K


def inference_ratio(params: M.Params, problem: D.Problem, y: np.ndarray) -> np.ndarray:
    """LHS / RHS of Theorem 2's deterministic bound per prompt of y (n, N): (1/(2K)) ||y-hat - y-hat*||^2
    over bounds.inference_bound(Delta(theta), ||y||^2, K, lambda_min(G)), (n,); y-hat* = A^T y
    (bounds.limit_predictor, the proof's form; equal to the ridge by yang2024.ridge_equiv)."""
    model = M.Transformer(params.Q.shape[0])
    diff = model.predict(params, problem, y) - B.limit_predictor(problem.A, y)
    rhs = B.inference_bound(
        model.excess_loss(params, problem), np.sum(y * y, axis=1), problem.K, problem.lam_min_G
    )
    return 0.5 * np.sum(diff * diff, axis=1) / problem.K / rhs


def copy_error(params: M.Params, problem: D.Problem, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(max_{k<=N} |y-hat_k - y_k| per prompt of y (n, N), its ratio to bounds.copy_bound(Delta, ||y||^2,
    lambda_min(G)), Delta(theta)): the copy bound of Theorem 2."""
    model = M.Transformer(params.Q.shape[0])
    err = np.max(np.abs(model.predict(params, problem, y)[:, : problem.N] - y), axis=1)
    Delta = model.excess_loss(params, problem)
    return err, err / B.copy_bound(Delta, np.sum(y * y, axis=1), problem.lam_min_G), Delta


def _search_argument(problem: D.Problem, H: int) -> dict[str, float]:
    """The sizes that replay a search's z on ``problem_for(seed, Config(K, N, d, m, tau))``."""
    p = problem
    return {"K": p.K, "N": p.N, "d": p.d, "m": p.m, "tau": p.tau, "H": H}


def theta_prompt_search(
    rng: np.random.Generator,
    problem: D.Problem,
    H: int,
    ratio: Callable[[M.Params, D.Problem, np.ndarray], np.ndarray],
    starts: int,
    maxiter: int,
) -> WorstCase:
    """Worst case of ``ratio(theta, problem, y[None])[0]`` over every theta = (Q, w) of H heads and one
    prompt y (N,): z = (Q, w, y) flattened, unconstrained (both bounds of Theorem 2 are homogeneous in y
    and hold for any theta); starts N(0, 1) (Q at the paper's init scale beta = 1)."""
    p = problem
    sizes = (H * p.d * p.d, H * p.K)

    def r(z: np.ndarray) -> float:
        Q, w, y = np.split(z, np.cumsum(sizes))
        return float(ratio(M.Params(Q=Q.reshape(H, p.d, p.d), w=w.reshape(H, p.K)), p, y[None])[0])

    found = worst_case(r, lambda g: g.standard_normal(sum(sizes) + p.N), rng, starts=starts, maxiter=maxiter)
    return replace(found, argument=_search_argument(p, H))


def one_head_search(
    rng: np.random.Generator,
    problem: D.Problem,
    starts: int,
    maxiter: int,
    first: np.ndarray | None = None,
    H: int = 1,
) -> WorstCase:
    """Worst case of the one-head orthant floor / Delta(Q, w) over every theta = (Q, w) of H heads (1: the
    statement; more: its alternative world): at fixed Q, Delta is a least-squares problem in w with
    minimum :func:`fixed_Q_floor`, so z = Q (H, d, d) flattened and w is the exact minimiser (the ratio is
    maximised over w in closed form); starts N(0, 1), the first of them replaced by ``first`` (a Q, e.g.
    the end of a GD run on the same problem) when given. A Delta below eps times the floor (H >= N
    reaches L* exactly) counts as eps times the floor: the ratio is then 1 / eps."""
    d = problem.d
    floor = B.orthant_floor(problem.Zbar, problem.A)
    pending = [] if first is None else [np.asarray(first, dtype=np.float64).ravel()]
    found = worst_case(
        lambda z: floor / max(fixed_Q_floor(z.reshape(H, d, d), problem), EPS * floor),
        lambda g: pending.pop() if pending else g.standard_normal(H * d * d),
        rng,
        starts=starts,
        maxiter=maxiter,
    )
    return replace(found, argument=_search_argument(problem, H))


def thin(x: np.ndarray, n: int = 200) -> list[float]:
    """At most ``n`` evenly spaced values of x (for figure series)."""
    idx = np.unique(np.linspace(0, len(x) - 1, min(n, len(x))).astype(int))
    return [float(v) for v in np.asarray(x)[idx]]


def thin_t(x: np.ndarray, n: int = 200) -> list[float]:
    """The indices :func:`thin` keeps, as floats (the t axis)."""
    return [float(v) for v in np.unique(np.linspace(0, len(x) - 1, min(n, len(x))).astype(int))]


def roundoff(loss: np.ndarray, problem: D.Problem, H: int) -> np.ndarray:
    """First-order round-off of Delta = 1/2 tr(R^T G R) per step: R = A-hat - A carries an absolute
    error ||dR||_F <= u = 4 eps sqrt(H) ||A||_F, so |dDelta| <= ||G||_2 (||R||_F u + u^2 / 2) with
    ||R||_F <= sqrt(2 Delta / lambda_min(G))."""
    g = float(np.linalg.eigvalsh(problem.G)[-1])
    u = 4 * EPS * math.sqrt(H) * float(np.linalg.norm(problem.A))
    return g * (np.sqrt(2 * np.maximum(loss, 0) / problem.lam_min_G) * u + u * u / 2)


def monotone_violation(loss: np.ndarray, floor: np.ndarray) -> tuple[float, int]:
    """(max_t (Delta(t+1) - Delta(t) - floor_t) / Delta(t) over steps with Delta(t) > 0, number of
    steps whose change is below the round-off floor). Negative: decreasing everywhere."""
    d0, d1, fl = loss[:-1], loss[1:], floor[:-1]
    mask = d0 > 0
    under = int(np.sum(np.abs(d1 - d0) <= fl))
    if not np.any(mask):
        return 0.0, under
    return float(np.max((d1[mask] - d0[mask] - fl[mask]) / d0[mask])), under


def regime_end(lam_min: np.ndarray, floor: float) -> int:
    """First t at which the PL premise lambda_min(B^(t) B^(t)T) >= floor fails (len if never)."""
    bad = np.nonzero(lam_min < floor)[0]
    return int(bad[0]) if bad.size else len(lam_min)


def empirical_rate(L: np.ndarray) -> float:
    """Per-step geometric rate of L over the second half of its positive prefix."""
    T = len(L) - 1
    pos = np.nonzero(L > 0)[0]
    T = int(min(T, pos[-1]))
    h = T // 2
    return float((L[T] / L[h]) ** (1.0 / (T - h))) if T - h > 0 else float("nan")


def descent_iterations(
    seed: int, config: D.Config, H: int, factor: float, target: float, cap: int
) -> int | None:
    """GD (7a)/(7b) from the paper's initialisation (beta = 1) at eta_Q = ``factor`` times the default rule
    at that H (eta_w = GAMMA^2 eta_Q): the first t with Delta(t) < target Delta(0), or None when Delta
    rises at some step before it (GD is no descent method at this step: Theorem 1's eta_Q <= 1/L makes
    it one), the run diverges, or ``cap`` steps pass first."""
    problem = problem_for(seed, config)
    model = M.Transformer(H, excess=True)
    theta0 = init_for(seed, problem, H, 1.0)
    eta_Q = check_positive("factor", factor) * step_sizes(theta0, problem, GAMMA)[0]
    last = [math.inf]

    def guarded(th: M.Params) -> tuple[float, M.Params]:
        value, g, _ = model.loss_grad_attention(th, problem, attention=False)
        if not value <= last[0]:  # a rise (or NaN) ends the run as "diverged"
            return math.inf, g
        last[0] = value
        return value, g

    stop = target * model.excess_loss(theta0, problem)
    etas = {"Q": eta_Q, "w": GAMMA**2 * eta_Q}
    traj = gradient_descent(theta0, guarded, etas, check_int("cap", cap, low=0), stop_below=stop, norms=False)
    return len(traj.loss) - 1 if traj.state == RunState.CONVERGED else None


@dataclass(frozen=True)
class Tuned:
    """GD at the step tuned per H (:func:`tuned_descent`): the chosen factor of the default rule and its
    iterations to the target (both None when no factor reached it as a descent run within the cap) and
    each factor tried with its outcome (None: no descent run, or not faster than a larger factor)."""

    factor: float | None
    iterations: int | None
    tried: tuple[tuple[float, int | None], ...]


def tuned_descent(
    seed: int, config: D.Config, H: int, factors: tuple[float, ...], target: float, cap: int
) -> Tuned:
    """The factor of ``factors`` whose descent run (:func:`descent_iterations`) reaches Delta < target
    Delta(0) in the fewest iterations (ties: the larger factor). Searched from the largest factor down,
    each run capped one step below the fewest iterations found so far (a run that cannot beat them cannot
    be chosen): the choice is the exhaustive search's, at a fraction of its cost."""
    best, chosen, tried = None, None, []
    for c in sorted(factors, reverse=True):
        n = descent_iterations(seed, config, H, c, target, cap if best is None else best - 1)
        tried.append((c, n))
        if n is not None:
            best, chosen = n, c
    return Tuned(chosen, best, tuple(tried))


def lemma5_monte_carlo(
    problem: D.Problem, Ahat: np.ndarray, draws: int, rng: np.random.Generator, chunk: int = 20_000
) -> tuple[float, float]:
    """(mean, SE) of 1/2 sum_k (y-hat_k - y_k)^2 over ``draws`` prompts, lambda ~ N(0, I_m) and noise
    on the representation (literal eq. 1), predictions y-hat = Ahat^T y."""
    total, total2, done = 0.0, 0.0, 0
    while done < draws:
        n = min(chunk, draws - done)
        lam = D.sample_tasks(n, problem.m, rng, "id")
        y = D.sample_labels(problem, lam, rng, noise="representation")
        r = y[:, : problem.N] @ Ahat - y
        ell = 0.5 * np.sum(r * r, axis=1)
        total, total2, done = total + float(ell.sum()), total2 + float(np.sum(ell * ell)), done + n
    mean = total / draws
    return mean, math.sqrt(max(total2 / draws - mean * mean, 0.0) / (draws - 1))


@dataclass(frozen=True)
class Lemma4MC:
    """Monte Carlo of Lemma 4: objective means and SEs at the grid lambdas (grid,), the pooled argmin
    (m,) and the argmins of the batches (batches, m)."""

    mean: np.ndarray
    se: np.ndarray
    argmin: np.ndarray
    batch_argmins: np.ndarray


def lemma4_monte_carlo(
    problem: D.Problem, y: np.ndarray, lams: np.ndarray, draws: int, batches: int, rng: np.random.Generator
) -> Lemma4MC:
    """Objective (24) over ``draws`` feature-noise draws eps-tilde_i ~ N(0, tau I) in ``batches``
    batches: its mean at each lambda of ``lams`` (grid, m) and the argmin of the quadratic."""
    p, grid = problem, lams.shape[0]
    M_ = np.zeros((p.m, p.m))
    b = np.zeros(p.m)
    s1 = np.zeros(grid)
    s2 = np.zeros(grid)
    done, batch, lam_b = 0, -(-draws // batches), []
    while done < draws:
        n = min(batch, draws - done)
        F = p.Z[None] + math.sqrt(p.tau) * rng.standard_normal((n, p.m, p.N))  # noisy features
        r = y[None, None, :] - np.einsum("gm,nmi->ngi", lams, F)
        obj = 0.5 * np.sum(r * r, axis=2) / p.N  # (n, grid)
        s1 += obj.sum(0)
        s2 += np.sum(obj * obj, axis=0)
        Mb, bb = np.einsum("nmi,nli->ml", F, F), np.einsum("nmi,i->m", F, y)
        lam_b.append(np.linalg.solve(Mb / n, bb / n))
        M_ += Mb
        b += bb
        done += n
    mean = s1 / draws
    se = np.sqrt(np.maximum(s2 / draws - mean**2, 0) / (draws - 1))
    return Lemma4MC(mean, se, np.linalg.solve(M_ / draws, b / draws), np.array(lam_b))


@dataclass(frozen=True)
class Prop1Point:
    """One seed of the Proposition 1 sweep: heads Hs, scales betas; rank_tol: sigma_min / ||C_k|| a
    rank-N C_k must exceed."""

    seed: int
    config: D.Config
    Hs: tuple[int, ...]
    betas: tuple[float, ...]
    rank_tol: float


@dataclass(frozen=True)
class Prop1Row:
    """Outcome at one (seed, H, beta): smallest relative sigma_min of C_k (its N-th singular value over
    its largest; 0 when H < N), zeta_0, whether rank N holds (above rank_tol), whether the tokens
    satisfy Assumption 3."""

    seed: int
    H: int
    beta: float
    rel_sigma_min: float
    zeta0: float
    ok: bool
    a3: bool


def prop1_seed(pt: Prop1Point) -> list[Prop1Row]:
    """Per (H, beta) of one seed: the rank test of Proposition 1 (rank N relative to machine precision;
    impossible when H < N, where C_k (N, H) has rank <= H) and zeta_0."""
    problem = problem_for(pt.seed, pt.config)
    a3 = D.satisfies_assumption3(problem.V)
    rows = []
    for H in pt.Hs:
        model = M.Transformer(H)
        Z0 = init_for(pt.seed, problem, H, 1.0).Q  # one draw per (seed, H), scaled by beta
        for beta in pt.betas:
            C = model.attention(beta * Z0, problem).transpose(2, 1, 0)  # (K, N, H)
            z0 = B.zeta0(np.matmul(problem.Zbar, C))
            rel = 0.0
            if H >= problem.N:
                s = np.linalg.svd(C, compute_uv=False)
                rel = float(np.min(s[:, problem.N - 1] / s[:, 0]))
            rows.append(Prop1Row(pt.seed, H, beta, rel, z0, rel > pt.rank_tol, a3))
    return rows


def min_sigma(problem: D.Problem, H: int, seed: int) -> float:
    """min_k sigma_min(C_k) at the beta = 1 init of H heads."""
    model = M.Transformer(H)
    C = model.attention(init_for(seed, problem, H, 1.0).Q, problem).transpose(2, 1, 0)
    s = np.linalg.svd(C, compute_uv=False)
    return float(np.min(s[:, problem.N - 1]))


#: Output scalings of the heads: the paper's eq. (8) (sum of the heads) and the NTK parametrisation
#: (the sum divided by sqrt(H), so that B_k = Zbar C_k / sqrt(H))
OUTPUT_SCALES = ("1", "1/sqrt(H)")


@dataclass(frozen=True)
class Zeta0Point:
    """zeta_0 of one (seed, H, beta) init at ``config``, for the output scaling ``output_scale`` (one of
    OUTPUT_SCALES)."""

    seed: int
    config: D.Config
    H: int
    beta: float
    output_scale: str = "1"


def zeta0_point(pt: Zeta0Point) -> float:
    p = problem_for(pt.seed, pt.config)
    model, th = M.Transformer(pt.H), init_for(pt.seed, p, pt.H, pt.beta)
    if check_choice("output_scale", pt.output_scale, OUTPUT_SCALES) == "1":
        return model.zeta(th, p)
    return B.zeta0(model.B_matrices(th, p) / np.sqrt(pt.H))


@dataclass(frozen=True)
class Fig3Draws:
    """Closed-form expectations over lambda and noise, one row per representation draw and one column
    per N (draws, len(Ns)): the Fig. 3 gap (1/K) E||y-hat* - y-hat_best||^2 and each estimator's error
    against the truth (1/K) E||Z_Q^T (lambda-estimate - lambda)||^2 (transformer: penalty m tau;
    'best': N tau)."""

    Ns: tuple[int, ...]
    gap: np.ndarray
    err_transformer: np.ndarray
    err_best: np.ndarray


@functools.cache
def fig3_draws(seed: int, K: int, m: int, tau: float, Ns: tuple[int, ...], draws: int) -> Fig3Draws:
    """``draws`` nested representation draws from ctx.rng(20): one Z-tilde (m, K) per draw, prompt =
    its first N columns for every N (so N and m compare on the same draws); cached, read-only."""
    Ns = tuple(check_int("N", n, low=1, high=K - 1) for n in Ns)
    rng = Ctx(seed=seed).rng(20)
    out = np.zeros((3, check_int("draws", draws), len(Ns)))
    for i in range(draws):
        Zt = rng.standard_normal((m, K))
        for j, N in enumerate(Ns):
            Z, Z_Q = Zt[:, :N], Zt[:, N:]
            out[:, i, j] = (
                B.fig3_gap(Z, Z_Q, tau),
                B.expected_error(Z, Z_Q, tau, m * tau),
                B.expected_error(Z, Z_Q, tau, N * tau),
            )
    return Fig3Draws(Ns, *(_freeze(a) for a in out.copy()))


def paired_diffs(
    values: np.ndarray, pairs: list[tuple[int, int]], z: float
) -> list[tuple[int, int, float, float]]:
    """For column pairs (a, b): (a, b, mean of values[:, b] - values[:, a], z times its standard error
    over the rows): paired differences with a normal confidence half-width."""
    out = []
    for a, b in pairs:
        d = values[:, b] - values[:, a]
        out.append((a, b, float(d.mean()), z * float(d.std(ddof=1)) / math.sqrt(d.size)))
    return out


def paired_steps(values: np.ndarray, order: list[int], z: float) -> list[tuple[int, int, float, float]]:
    """:func:`paired_diffs` of successive columns (a, b) of ``order``."""
    return paired_diffs(values, list(itertools.pairwise(order)), z)


def first_fall(curve: list[float], ts: list[int], factor: float) -> int | None:
    """The first recorded step at which ``curve`` is at most curve[0] / factor (None if never)."""
    c = np.asarray(curve)
    hit = np.nonzero(c <= c[0] / factor)[0]
    return ts[hit[0]] if hit.size else None
