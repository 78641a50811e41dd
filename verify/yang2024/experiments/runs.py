"""The shared set-ups of the yang2024 experiments: problems, initialisations, step sizes, GD (the
canonical run, the run at a gamma that does not diverge, the tracked run), predictions, the loss floor at
fixed Q.

GD follows eqs. (7a)/(7b) with eta_w = gamma^2 eta_Q; the default step rule is
eta_Q = 1 / (gamma^2 max_k lambda_max(B_k^(0)T B_k^(0))), i.e. eta_w = 1/max_k lambda_max, the inverse
smoothness of the w-block at initialisation (the paper's L is NOT RECOVERED). The trajectory's
``loss`` is Delta(t) = L - L* computed directly. Problems and runs are cached per process
(``functools.cache``: same arguments give the same, bit-identical object), so claims that share a run
do not pay for it twice; cached arrays are read-only. Everything here serves two or more claim
modules; what serves one lives in the experiments module of the same name.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

import mpmath
import numpy as np

from bounds import yang2024 as B
from bounds.checks import check_int, check_positive
from verify.core import Ctx
from verify.core.format import fmt_sci
from verify.numerics.gd import RunState, Trajectory, gradient_descent
from verify.yang2024 import data as D
from verify.yang2024 import model as M

EPS = float(np.finfo(np.float64).eps)
#: rng keys (ctx.rng(KEY_..., ...)) of the problem draw and of the initialisation
KEY_PROBLEM, KEY_INIT = 100, 101
#: a run whose Delta exceeds DIVERGED * max(Delta(0), 1) is stopped as diverged (traj.state says so)
DIVERGED = 1e6
#: the default gamma (eta_w = gamma^2 eta_Q)
GAMMA = 3.0
#: the gammas tried in turn when GD diverges at the default GAMMA
GAMMA_LADDER = (3.0, 10.0, 30.0)


@functools.cache
def problem_for(seed: int, config: D.Config, tokens: str = "gaussian") -> D.Problem:
    """The problem of ``seed`` (ctx.rng(KEY_PROBLEM)): same seed and config, same problem."""
    c = config
    return D.make_problem(c.K, c.N, c.d, c.m, c.tau, Ctx(seed=seed).rng(KEY_PROBLEM), tokens)


def init_for(seed: int, problem: D.Problem, H: int, beta: float, key: int = 0) -> M.Params:
    """Q^(0) ~ N(0, beta^2) from ctx.rng(KEY_INIT, H, key), w^(0) = 0 (same draw for every beta)."""
    return M.Transformer(H).init(problem, beta, Ctx(seed=seed).rng(KEY_INIT, H, key))


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


def freeze(a: np.ndarray) -> np.ndarray:
    """``a``, made read-only in place (cached arrays are shared between claims)."""
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
    return run_gd_cached(
        int(seed), config, int(H), float(beta), float(gamma), int(steps), bool(track_B), int(snapshot_every),
        float(step_factor), stop,
    )  # fmt: skip


@functools.cache
def run_gd_cached(
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
    """The cached body of :func:`run_gd`, which normalises the argument types so that equal runs share
    one entry: call :func:`run_gd`; tests clear this cache and :func:`completed_runs`. A run without PL
    tracking or stop continues a shorter completed run from the same start when that one holds the
    snapshots it needs (:func:`longest_prefix`): the same steps, from its last iterate."""
    steps = check_int("steps", steps, low=0)
    problem, theta0, zeta0, eta_Q, delta0 = start_of(seed, config, H, beta, gamma, step_factor)
    model = M.Transformer(H, excess=True)
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
                snaps.append((t, M.Params(**{k: freeze(v.copy()) for k, v in th.items()})))
            return 0.0

        record["snap"] = snap

    def loss_and_grad(th: M.Params) -> tuple[float, M.Params]:
        value, g, S = model.loss_grad_attention(th, problem, attention=track_B)
        if S is not None:  # the attention at theta_t, for the PL recorder
            last_S[:] = [S]
        if not value <= DIVERGED * max(delta0, 1.0):  # divergence guard: the loop stops cleanly
            return math.inf, g
        return value, g

    etas = {"Q": eta_Q, "w": gamma**2 * eta_Q}
    plain = not track_B and stop_below is None
    done = completed_runs(seed, config, H, beta, gamma, step_factor) if plain else []
    prev = longest_prefix(done, steps, snapshot_every)
    start = 0 if prev is None else len(prev.traj.loss) - 1
    if prev is not None:  # theta_t of the shorter run below its end; this run records from its end on
        snaps += [(t, th) for t, th in prev.snapshots if t < start and t % snapshot_every == 0]
    # gradient norms and drift: only the tracked runs' claims read them (thm1 notes the Q drift)
    traj = gradient_descent(
        theta0 if prev is None else prev.traj.params, loss_and_grad, etas, steps, record=record,
        stop_below=stop_below, norms=track_B, start=start,
    )  # fmt: skip
    if prev is not None:
        traj = joined(prev.traj, traj)
    for arr in (traj.loss, traj.grad_norm, traj.drift, *traj.extras.values()):
        freeze(arr)
    run = Run(problem, zeta0, eta_Q, gamma, traj, snaps)
    if plain and traj.state == RunState.COMPLETED:
        done.append((snapshot_every, run))
    return run


class Start(NamedTuple):
    """What GD from the paper's initialisation starts from: the problem, theta^(0), zeta_0, eta_Q (the
    default rule times the step factor) and Delta(0)."""

    problem: D.Problem
    theta0: M.Params
    zeta0: float
    eta_Q: float
    delta0: float


def start_of(seed: int, config: D.Config, H: int, beta: float, gamma: float, step_factor: float) -> Start:
    """The :class:`Start` of :func:`run_gd` (seed, config, H, beta, gamma, step_factor)."""
    problem = problem_for(seed, config)
    model = M.Transformer(H, excess=True)
    theta0 = init_for(seed, problem, H, beta)
    eta_Q = step_sizes(theta0, problem, gamma)[0] * check_positive("step_factor", step_factor)
    return Start(problem, theta0, model.zeta(theta0, problem), eta_Q, model.excess_loss(theta0, problem))


@functools.cache
def completed_runs(
    seed: int, config: D.Config, H: int, beta: float, gamma: float, step_factor: float
) -> list[tuple[int, Run]]:
    """The completed runs of :func:`run_gd_cached` without PL tracking or stop from one start, with their
    ``snapshot_every``, which longer runs continue (per process; tests clear it with that cache)."""
    return []


def longest_prefix(done: list[tuple[int, Run]], steps: int, snapshot_every: int) -> Run | None:
    """The longest run of ``done`` shorter than ``steps`` that holds every snapshot a run of ``steps``
    steps every ``snapshot_every`` takes below its end (and records snapshots iff that run does)."""

    def fits(every: int, r: Run) -> bool:
        n = len(r.traj.loss) - 1
        if n >= steps or bool(every) != bool(snapshot_every):
            return False
        return not snapshot_every or set(range(0, n, snapshot_every)) <= {t for t, _ in r.snapshots}

    return max((r for every, r in done if fits(every, r)), key=lambda r: len(r.traj.loss), default=None)


def joined(head: Trajectory, tail: Trajectory) -> Trajectory:
    """``tail`` (the run continued from ``head``'s last iterate, its first entries that iterate's again)
    appended to ``head``."""

    def cat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.concatenate([a, b[1:]])

    return Trajectory(
        loss=cat(head.loss, tail.loss), grad_norm=cat(head.grad_norm, tail.grad_norm),
        drift=cat(head.drift, tail.drift),
        drift_blocks={k: cat(v, tail.drift_blocks[k]) for k, v in head.drift_blocks.items()},
        extras={k: cat(v, tail.extras[k]) for k, v in head.extras.items()}, params=tail.params,
        stopped=tail.stopped, state=tail.state,
    )  # fmt: skip


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
    snapshots (t = 0, T/4, ..., T) for the step-size check of thm1.rate
    (:func:`verify.yang2024.experiments.thm1.hessian_lmax`)."""
    return run_gd(
        seed, config, H, gamma=gamma, steps=steps, track_B=True, snapshot_every=max(1, steps // 4),
        step_factor=step_factor,
    )  # fmt: skip


def diverged_notes(runs: list[tuple[int, Run]]) -> list[str]:
    """One failed-assumption line per diverged run of ``[(H, run)]``."""
    return [
        f"GD diverged at H = {H}, gamma = {r.gamma:g} ({r.traj.stopped}): eta_Q is above the "
        "paper's 1/L (NOT RECOVERED) there"
        for H, r in runs
        if r.diverged
    ]


def ridge_limit(problem: D.Problem, y: np.ndarray) -> np.ndarray:
    """y-hat* = (y, Z_Q^T lambda-hat) from the ridge of eq. (20) (not through A)."""
    lam = B.transformer_ridge(problem.Z, y, problem.tau)
    return B.ridge_predictions(problem.Z, problem.Z_Q, y, lam)


def inference_error(params: M.Params, problem: D.Problem, y: np.ndarray) -> np.ndarray:
    """(1/K) ||y-hat - y-hat*||^2 per prompt, (n,)."""
    diff = M.Transformer(params.Q.shape[0]).predict(params, problem, y) - ridge_limit(problem, y)
    return np.sum(diff * diff, axis=1) / problem.K


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


def search_argument(problem: D.Problem, H: int) -> dict[str, float]:
    """The sizes that replay a search's z on ``problem_for(seed, Config(K, N, d, m, tau))``."""
    p = problem
    return {"K": p.K, "N": p.N, "d": p.d, "m": p.m, "tau": p.tau, "H": H}


def fmt_count(T: mpmath.mpf) -> str:
    """An iteration count from bounds (mpf, possibly infinite when rho = 1) for the notes."""
    return fmt_sci(T) if mpmath.isfinite(T) else "inf"


def thin(x: np.ndarray, n: int = 200) -> list[float]:
    """At most ``n`` evenly spaced values of x (for figure series)."""
    idx = np.unique(np.linspace(0, len(x) - 1, min(n, len(x))).astype(int))
    return [float(v) for v in np.asarray(x)[idx]]


def thin_t(x: np.ndarray, n: int = 200) -> list[float]:
    """The indices :func:`thin` keeps, as floats (the t axis)."""
    return [float(v) for v in np.unique(np.linspace(0, len(x) - 1, min(n, len(x))).astype(int))]
