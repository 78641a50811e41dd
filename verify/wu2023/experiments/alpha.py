"""Experiments of :mod:`verify.wu2023.claims.alpha`: alpha^2 = sigma_min(F_pre^0)^2 at init against
d_m lambda_min(G) (one draw per point, and conditioned on W_Q, W_K), under LeCun, He and Xavier init on
shared standard-normal draws."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bounds import wu2023 as B
from verify.wu2023 import data as D
from verify.wu2023 import model as M
from verify.wu2023.experiments.runs import Point, make_setup, rng_for

#: Xavier (Glorot) normal initialisation, not one of the paper's (the default of many transformer codes):
#: every weight matrix of variance 2 / (fan_in + fan_out), so W_V's, 2 / (d + d_m), falls like 1/d_m (the
#: alternative world of ``wu2023.alpha.width``, which draws only the features F_pre: no tau1 needed).
XAVIER = "xavier"


def xavier_variances(d: int, d_m: int) -> B.InitVariances:
    """The entry variances of Xavier normal init: W_Q, W_K, W_V 2/(d + d_m), w_O 2/(d_m + 1), tau1 = 1."""
    w = 2 / (d + d_m)
    return B.InitVariances(w, w, w, 2 / (d_m + 1), 1.0)


def shared_init(
    seed: int, key: int, model: M.ShallowTransformer, variances: B.InitVariances | None = None
) -> M.Params:
    """Standard-normal draws shared across inits (scaled by each init's standard deviations, or by
    ``variances`` when given)."""
    rng = rng_for(seed, key, 2, model.d_m)
    v = variances or B.init_variances(model.init, model.d, model.d_m)
    g = {b: rng.standard_normal((model.d_m, model.d)) for b in ("W_Q", "W_K", "W_V")}
    return M.Params(
        W_Q=g["W_Q"] * np.sqrt(v.eta_Q),
        W_K=g["W_K"] * np.sqrt(v.eta_K),
        W_V=g["W_V"] * np.sqrt(v.eta_V),
        w_O=rng.standard_normal(model.d_m) * np.sqrt(v.eta_O),
    )


def conc_point(p: Point) -> tuple[float, float]:
    """(alpha^2 / d_m, lambda_min(G)) at init, G from the realised softmax."""
    s = p.setup()
    c = s.model.forward(s.theta0, s.batch)
    v = B.init_variances(p.init, p.d, p.d_m)
    G = B.expected_gram(c.S @ c.Xs, v.eta_V)
    return M.sigma_min_sq(c.h) / p.d_m, float(np.linalg.eigvalsh(G)[0])


@dataclass(frozen=True, kw_only=True)
class ConcPoint(Point):
    """A concentration point: the softmax of the point's set-up at width ``ref_width`` (its W_Q, W_K), and
    ``draws`` draws of W_V of width ``d_m`` given it."""

    ref_width: int
    draws: int


def conc_gap(p: ConcPoint) -> float:
    """The lemma's concentration conditioned on W_Q, W_K (derivation Sect. 5.3): with the softmax of the
    set-up at width ``p.ref_width`` held fixed (so G is fixed), the mean over ``p.draws`` draws of W_V
    (d_m, d) (stream (seed, key, 3, d_m)) of r = |alpha^2 / (d_m lambda_min(G)) - 1|. Averaging draws
    removes the random sign inside the absolute value; holding the softmax removes the change of G from
    width to width, which is not the lemma's fluctuation."""
    s = make_setup(
        p.seed, p.key, N=p.N, d=p.d, d_s=p.d_s, d_m=p.ref_width, tau0_power=p.tau0_power, init=p.init,
        regime=p.regime,
    )  # fmt: skip
    c = s.model.forward(s.theta0, s.batch)
    Z = (c.S @ c.Xs).reshape(-1, p.d)
    eta_V = B.init_variances(p.init, p.d, p.d_m).eta_V
    lam = float(np.linalg.eigvalsh(B.expected_gram(Z.reshape(p.N, p.d_s, p.d), eta_V))[0])
    rng = rng_for(p.seed, p.key, 3, p.d_m)
    r = []
    for _ in range(p.draws):
        W = rng.standard_normal((p.d_m, p.d)) * math.sqrt(eta_V)
        F = np.maximum(Z @ W.T, 0.0).reshape(p.N, p.d_s, p.d_m).mean(axis=1)
        r.append(abs(M.sigma_min_sq(F) / (p.d_m * lam) - 1.0))
    return float(np.mean(r))


def alpha_he_lecun(p: Point) -> tuple[float, float]:
    """(alpha^2 LeCun, alpha^2 He) on the point's data with shared standard-normal draws."""
    batch = D.gaussian_data(rng_for(p.seed, p.key, 0), p.N, p.d_s, p.d, p.regime)
    out = []
    for init in ("lecun", "he"):
        model = M.ShallowTransformer(d=p.d, d_s=p.d_s, d_m=p.d_m, tau0_power=p.tau0_power, init=init)
        out.append(M.sigma_min_sq(model.features(shared_init(p.seed, p.key, model), batch)))
    return out[0], out[1]


def alpha_sq(p: Point) -> float:
    """alpha^2 = sigma_min(F_pre^0)^2 at the point's init (one of the model's, or ``XAVIER``), on the data
    and standard-normal draws of :func:`alpha_he_lecun` (so its LeCun value is that function's, bit for
    bit)."""
    batch = D.gaussian_data(rng_for(p.seed, p.key, 0), p.N, p.d_s, p.d, p.regime)
    xavier = p.init == XAVIER
    model = M.ShallowTransformer(
        d=p.d, d_s=p.d_s, d_m=p.d_m, tau0_power=p.tau0_power, init="lecun" if xavier else p.init
    )
    v = xavier_variances(p.d, p.d_m) if xavier else None
    return M.sigma_min_sq(model.features(shared_init(p.seed, p.key, model, v), batch))
