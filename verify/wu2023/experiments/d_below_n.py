"""Experiments of :mod:`verify.wu2023.claims.d_below_n`: GD on digit images at d < N with Prop. 1's
premises watched."""

from __future__ import annotations

import numpy as np

from bounds import wu2023 as B
from verify.wu2023 import data as D
from verify.wu2023 import model as M
from verify.wu2023.experiments.runs import Setup, prop1_premises, rng_for, run_gd

#: Round-off allowance of the sufficient-decrease premise in :func:`digits_gd_run` (reported only).
PREMISE_RTOL = 1e-12


def digits_gd_run(
    seed: int, key: int, N: int, d_m: int, steps: int, frac: float, gauss: bool, conflict: bool = False
) -> dict:
    """GD on N digit images as 8 row-tokens (d = 8), LeCun, tau0 = d_m^-1/2, sum loss, gamma =
    1/lambda_max(K_0), at most ``steps`` steps, stopped below frac l_0. Data from stream (seed, key, 0),
    weights from (seed, key, 1, d_m). ``conflict``: the last image replaced by a copy of the first with
    the opposite label (alpha = 0 and no zero-loss fit). ``gauss``: the digit tokens replaced by Gaussian
    tokens of the same shape and Frobenius norm (the same labels), the twin that separates "d < N" from
    "images". Returns
    l_T / l_0, the steps run, alpha^2 = sigma_min(F_pre^0)^2 and alpha^2 / (d_m lambda_min(G)) (G from
    the realised softmax), the pooled-input quantity of Assumption 3 (0 when N > d), lambda_min /
    lambda_max of K_0, min_t and final sigma_min(F^t) / alpha (0 when alpha = 0, e.g. repeated
    images), and whether Prop. 1's premises (sufficient decrease, sigma_min(F^t) >= alpha/2) held at
    every step."""
    rng = rng_for(seed, key, 0)
    batch = D.digits_tokens(rng, N, "rows")
    if conflict:
        X, y = batch.X.copy(), batch.y.copy()
        X[-1], y[-1] = X[0], -y[0]
        batch = D.Batch(X, y)
    _, d_s, d = batch.X.shape
    if gauss:
        X = D.gaussian_tokens(rng, N, d_s, d)
        batch = D.Batch(X * np.linalg.norm(batch.X) / np.linalg.norm(X), batch.y)
    model = M.ShallowTransformer(d=d, d_s=d_s, d_m=d_m)
    s = Setup(model, batch, model.init_params(rng_for(seed, key, 1, d_m)))
    ev = np.linalg.eigvalsh(model.ntk(s.theta0, batch))
    c = model.forward(s.theta0, batch)
    Z = c.S @ c.Xs
    lam_G = float(np.linalg.eigvalsh(B.expected_gram(Z, B.init_variances("lecun", d, d_m).eta_V))[0])
    gamma = 1.0 / float(ev[-1])
    loss0 = model.loss(s.theta0, batch)
    tr = run_gd(s, gamma, steps, track_sigma=True, stop_below=frac * loss0)
    sig2 = tr.extras["sig2"]
    sig = np.sqrt(sig2 / sig2[0]) if sig2[0] > 0 else np.zeros_like(sig2)  # alpha = 0: no ratio
    ok, _ = prop1_premises(tr, gamma, PREMISE_RTOL)
    return {
        "ratio": float(tr.loss[-1] / tr.loss[0]),
        "steps": float(tr.loss.size - 1),
        "alpha2": float(sig2[0]),
        "conc": float(sig2[0] / (d_m * lam_G)) if lam_G > 0 else 0.0,
        "zbar": B.assumption3_pooled(Z.mean(axis=1)),
        "inv_cond": float(max(ev[0], 0.0) / ev[-1]),
        "sig_min": float(sig.min()),
        "sig_last": float(sig[-1]),
        "premises": bool(ok[-1]),
    }
