"""Building blocks of the wu2023 claims: seeded set-ups, GD runs that record the Prop. 1 premises,
and the sweep points (module-level functions, so ``ctx.map`` can ship them to a process pool).

Seeding: every function that draws takes the base ``seed`` and integer keys and uses
``np.random.default_rng([seed, *keys])`` -- the same stream ``Ctx.rng(*keys)`` gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bounds import wu2023 as B
from verify.numerics.gd import Trajectory, gradient_descent
from verify.wu2023 import data as Dt
from verify.wu2023 import model as M


def rng_for(seed: int, *keys: int) -> np.random.Generator:
    return np.random.default_rng([seed, *keys])


@dataclass
class Setup:
    cfg: M.Config
    X: np.ndarray
    y: np.ndarray
    theta0: M.Params


def make_setup(
    seed: int,
    key: int,
    *,
    N: int,
    d: int,
    d_s: int,
    d_m: int,
    tau0_power: float = 0.5,
    init: str = "lecun",
    regime: str = "paper",
    loss_norm: str = "sum",
) -> Setup:
    """Data from stream (seed, key, 0), weights from (seed, key, 1): the data do not depend on the
    width or the init, so sweeps over d_m / init / tau0 compare on the same data."""
    X, y = Dt.gaussian_data(rng_for(seed, key, 0), N, d_s, d, regime)
    cfg = M.Config(d=d, d_s=d_s, d_m=d_m, tau0_power=tau0_power, init=init, loss_norm=loss_norm)
    return Setup(cfg, X, y, M.init_params(cfg, rng_for(seed, key, 1, d_m)))


def shared_init(seed: int, key: int, cfg: M.Config) -> M.Params:
    """Standard-normal draws shared across inits (scaled by each init's standard deviations)."""
    rng = rng_for(seed, key, 2, cfg.d_m)
    v = B.init_variances(cfg.init, cfg.d, cfg.d_m)
    g = {b: rng.standard_normal((cfg.d_m, cfg.d)) for b in ("W_Q", "W_K", "W_V")}
    return {
        "W_Q": g["W_Q"] * np.sqrt(v.eta_Q),
        "W_K": g["W_K"] * np.sqrt(v.eta_K),
        "W_V": g["W_V"] * np.sqrt(v.eta_V),
        "w_O": rng.standard_normal(cfg.d_m) * np.sqrt(v.eta_O),
    }


def lam_max(cfg: M.Config, theta: M.Params, X: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(M.ntk(cfg, theta, X))[-1])


def run_gd(
    s: Setup,
    gamma: float,
    steps: int,
    *,
    track_sigma: bool = False,
    stop_below: float | None = None,
    theta0: M.Params | None = None,
) -> Trajectory:
    """Full-batch GD on all four blocks with one step size; optionally records sigma_min(F_pre^t)^2
    (extras "sig2") from the forward pass the gradient already did."""
    last: dict[str, M.Cache] = {}

    def lg(theta: M.Params) -> tuple[float, M.Params]:
        c = M.forward(s.cfg, theta, s.X)
        last["c"] = c
        return M.loss_and_grad(s.cfg, theta, s.X, s.y, cache=c)

    record = {"sig2": lambda th, g, l, t: M.sigma_min_sq(last["c"].h)} if track_sigma else None
    th0 = s.theta0 if theta0 is None else theta0
    return gradient_descent(th0, lg, gamma, steps, record=record, stop_below=stop_below)


def steps_to(loss: np.ndarray, frac: float) -> int | None:
    """First t with loss_t <= frac * loss_0, None if never."""
    hit = np.nonzero(loss <= frac * loss[0])[0]
    return int(hit[0]) if hit.size else None


def s_deviation(item: tuple[int, int, int, float, int, int]) -> float:
    """max_ij |S_ij - 1/d_s| at LeCun init for one Gaussian ("active") sequence; item = (seed, key,
    d_m, tau0_power, d, d_s)."""
    seed, key, d_m, p, d, d_s = item
    s = make_setup(seed, key, N=1, d=d, d_s=d_s, d_m=d_m, tau0_power=p, regime="active")
    S = M.forward(s.cfg, s.theta0, s.X).S
    return float(np.max(np.abs(S - 1.0 / d_s)))


def qk_ratio(item: tuple[int, int, int, float, str, int, int, int]) -> float:
    """(|J_Q|^2 + |J_K|^2) / |J_V|^2 at init; item = (seed, key, d_m, tau0_power, init, N, d, d_s)."""
    seed, key, d_m, p, init, N, d, d_s = item
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init, regime="paper")
    K = M.ntk_blocks(s.cfg, s.theta0, s.X)
    return float((np.trace(K["W_Q"]) + np.trace(K["W_K"])) / np.trace(K["W_V"]))


def conc_point(item: tuple[int, int, int, float, int, int, int]) -> tuple[float, float]:
    """(alpha^2 / d_m, lambda_min(G)) with G from the realised softmax; item = (seed, key, d_m,
    tau0_power, N, d, d_s)."""
    seed, key, d_m, p, N, d, d_s = item
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=p, regime="active")
    c = M.forward(s.cfg, s.theta0, s.X)
    v = B.init_variances("lecun", d, d_m)
    G = B.expected_gram(c.S @ c.Xs, v.eta_V)
    return M.sigma_min_sq(c.h) / d_m, float(np.linalg.eigvalsh(G)[0])


def alpha_he_lecun(item: tuple[int, int, int, float, int, int, int]) -> tuple[float, float]:
    """(alpha^2 LeCun, alpha^2 He) with shared standard-normal draws; item as :func:`conc_point`."""
    seed, key, d_m, p, N, d, d_s = item
    X, _ = Dt.gaussian_data(rng_for(seed, key, 0), N, d_s, d, "active")
    out = []
    for init in ("lecun", "he"):
        cfg = M.Config(d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init)
        out.append(M.sigma_min_sq(M.forward(cfg, shared_init(seed, key, cfg), X).h))
    return out[0], out[1]


def ntk_limit_err(item: tuple[int, int, int, int, int, int]) -> float:
    """|K(theta_0) - K_inf|_F / |K_inf|_F under NTK init, tau0 = d_m^-1; item = (seed, key, d_m, N,
    d, d_s); data fixed by (seed, key)."""
    seed, key, d_m, N, d, d_s = item
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=1.0, init="ntk", regime="paper")
    K = M.ntk(s.cfg, s.theta0, s.X)
    Kinf = B.limiting_ntk(s.X.mean(axis=1))["K"]
    return float(np.linalg.norm(K - Kinf) / np.linalg.norm(Kinf))


def prop1_at_init(s: Setup) -> B.Prop1:
    """Prop. 1 quantities of a set-up at its initialisation (sum-loss convention)."""
    c = M.forward(s.cfg, s.theta0, s.X)
    th = s.theta0
    norms = {
        "Q": float(np.linalg.norm(th["W_Q"], 2)),
        "K": float(np.linalg.norm(th["W_K"], 2)),
        "V": float(np.linalg.norm(th["W_V"], 2)),
        "O": float(np.linalg.norm(th["w_O"])),
    }
    loss0 = 0.5 * float(np.sum((c.f - s.y) ** 2))
    return B.prop1_quantities(
        c.Xs, norms, float(np.sqrt(M.sigma_min_sq(c.h))), loss0, tau0=s.cfg.tau0, tau1=s.cfg.tau1
    )


def c_ratios(item: tuple[int, int, int, int, float, int, int]) -> tuple[float, float]:
    """(C1, C2) ratios at init; item = (seed, key, N, d_m, tau0_power, d, d_s)."""
    seed, key, N, d_m, p, d, d_s = item
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=p, regime="paper")
    q = prop1_at_init(s)
    return q.c1, q.c2


def gd_point(item: tuple) -> dict[str, float | None]:
    """One GD run for sweeps; item = (seed, key, N, d, d_s, d_m, tau0_power, init, regime, gamma,
    steps, frac, stop). gamma <= 0 means 1/lambda_max(K_0); stop: end once l < frac l_0. Returns
    the final loss ratio, steps to frac, the gamma used, the max relative weight drift and the NTK
    drift at the end."""
    seed, key, N, d, d_s, d_m, p, init, regime, gamma, steps, frac, stop = item
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=p, init=init, regime=regime)
    K0 = M.ntk(s.cfg, s.theta0, s.X)
    g = 1.0 / float(np.linalg.eigvalsh(K0)[-1]) if gamma <= 0 else gamma
    loss0 = M.loss(s.cfg, s.theta0, s.X, s.y)
    tr = run_gd(s, g, steps, stop_below=frac * loss0 if stop else None)
    reached = steps_to(tr.loss, frac)
    Kt = M.ntk(s.cfg, tr.params, s.X)
    return {
        "ratio": float(tr.loss[-1] / tr.loss[0]),
        "steps": None if reached is None else float(reached),
        "gamma": g,
        "drift": float(np.max(tr.drift) / np.linalg.norm(M.flat(s.theta0))),
        "ntk_drift": float(np.linalg.norm(Kt - K0) / np.linalg.norm(K0)),
        "diverged": tr.stopped is not None and "non-finite" in tr.stopped,
        # per-step change |theta_{t+1} - theta_t| = gamma |grad_t|: first t below 10% of the first step
        "t10": float(np.argmax(tr.grad_norm < 0.1 * tr.grad_norm[0]))
        if np.any(tr.grad_norm < 0.1 * tr.grad_norm[0])
        else None,
    }


def min_width(item: tuple) -> int | None:
    """Smallest d_m in ``widths`` (ascending) from which GD with gamma = 1/lambda_max(K_0) reaches
    l_T <= frac l_0 within ``steps`` (for every larger width of the list too); item = (seed, key, N,
    d, d_s, tau0_power, widths, steps, frac)."""
    seed, key, N, d, d_s, p, widths, steps, frac = item
    ok = []
    for w in widths:
        s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=w, tau0_power=p, regime="paper")
        g = 1.0 / lam_max(s.cfg, s.theta0, s.X)
        loss0 = M.loss(s.cfg, s.theta0, s.X, s.y)
        tr = run_gd(s, g, steps, stop_below=frac * loss0)
        ok.append(bool(tr.loss[-1] <= frac * loss0))
    for i in range(len(widths)):
        if all(ok[i:]):
            return int(widths[i])
    return None
