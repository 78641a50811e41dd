"""Experiments of :mod:`verify.wu2023.claims.ntk`: the NTK at init against its limit K_inf, the worst-case
ratio of the bounds on lambda_min(K_inf), and the kernel-regime rate along GD."""

from __future__ import annotations

import numpy as np

from bounds import wu2023 as B
from bounds.checks import check_choice
from verify.wu2023.experiments.runs import Point, make_setup, run_gd


def ntk_limit_err(p: Point) -> float:
    """|K(theta_0) - K_inf|_F / |K_inf|_F, K_inf of the token means (``bounds.wu2023.limiting_ntk``)."""
    s = p.setup()
    K = s.model.ntk(s.theta0, s.batch)
    Kinf = B.limiting_ntk(s.batch.X.mean(axis=1))["K"]
    return float(np.linalg.norm(K - Kinf) / np.linalg.norm(Kinf))


def ntk_mineig_ratio(Xbar: np.ndarray, tol: float, bound: str) -> float:
    """bound / (lambda_min + tol |K_inf|_2) for a lower bound of ``wu2023.ntk.mineig`` on the token means
    Xbar (N, d): ``bound`` "linear", lambda_min(K_inf) >= sigma_min(Xbar)^2 / 2, or "hermite",
    lambda_min(K_O) >= mu_2^2 min|xbar|^2 lambda_min(U o U)."""
    check_choice("bound", bound, ("linear", "hermite"))
    K = B.limiting_ntk(Xbar)
    slack = tol * float(np.linalg.norm(K["K"], 2))
    if bound == "linear":
        return B.ntk_mineig_linear(Xbar) / (float(np.linalg.eigvalsh(K["K"])[0]) + slack)
    return B.ntk_mineig_hermite(Xbar, 2) / (float(np.linalg.eigvalsh(K["K_O"])[0]) + slack)


def ntk_rate_run(seed: int, key: int, N: int, d: int, d_s: int, d_m: int, steps: int) -> dict[str, float]:
    """NTK init, tau0 = d_m^-1, "paper" tokens, GD with gamma = 1/lambda_max(K_inf), ``steps`` steps:
    the step t >= 1 where l_t / ``bounds.wu2023.ntk_rate_bound``_t is largest, l_t and the bound there,
    the steps run and lambda_min of K_inf and of K(theta_0)."""
    s = make_setup(seed, key, N=N, d=d, d_s=d_s, d_m=d_m, tau0_power=1.0, init="ntk")
    ev = np.linalg.eigvalsh(B.limiting_ntk(s.batch.X.mean(axis=1))["K"])
    g = 1.0 / ev[-1]
    tr = run_gd(s, g, steps)
    bound = B.ntk_rate_bound(tr.loss[0], g, ev[0], np.arange(tr.loss.size))
    t = 1 + int(np.argmax(tr.loss[1:] / bound[1:]))
    lam0 = float(np.linalg.eigvalsh(s.model.ntk(s.theta0, s.batch))[0])
    return {
        "t": float(t), "loss": float(tr.loss[t]), "bound": float(bound[t]), "ran": float(tr.loss.size - 1),
        "lam_inf": float(ev[0]), "lam_0": lam0,
    }  # fmt: skip
