"""Fault injection: for every judged claim, a wrong bound, a wrong gradient or a perturbed model is
caught (the claim's verdict turns to violated). Each fault patches one function the claim reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest

from verify.core import Verdict, run_claim
from zfb2024 import dynamics, model, theory
from zfb2024.claims import common, shifts


@pytest.fixture(autouse=True)
def _fresh_flows() -> Iterator[None]:
    """The cached reduced flows are rebuilt around every fault (a patched rhs must not leak)."""
    common.reduced_flow.cache_clear()
    yield
    common.reduced_flow.cache_clear()


# the functions the faults replace, as imported (a fault calls the original, never itself)
QUADRATIC_FORM, LOSS_AND_GRAD, POPULATION = (
    model.quadratic_form,
    model.loss_and_grad,
    model.population_loss_and_grad,
)
REDUCED_RHS, LIMIT_THETA = dynamics.reduced_rhs, shifts.limit_theta
RISK_46, LIMIT_RANDOM, PL_MU = theory.risk_46, theory.limit_random, theory.pl_mu


def _scaled(fn: Callable, factor: float) -> Callable:
    return lambda *a, **k: factor * fn(*a, **k)


def _convexified(E: np.ndarray, N: int) -> np.ndarray:
    H = QUADRATIC_FORM(E, N)
    return H + np.abs(np.linalg.eigvalsh(H)).max() * np.eye(H.shape[0])


def _biased_grad(*a, **k):
    loss, g_pv, g_kq = LOSS_AND_GRAD(*a, **k)
    g_pv = g_pv.copy()
    g_pv[-1, 0] += 1e-3 * np.abs(g_pv[-1, -1])
    return loss, g_pv, g_kq


def _wrong_population_grad(Wpv, Wkq, lam, N, scale=1.0):
    """A gradient derived with E[S^2] at N + 1 (the loss itself right)."""
    return POPULATION(Wpv, Wkq, lam, N, scale)[0], *POPULATION(Wpv, Wkq, lam, N + 1, scale)[1:]


def _wrong_rhs(lam, N):
    rhs = REDUCED_RHS(lam, N)

    def wrong(t, z):
        out = rhs(t, z)
        out[-1] *= 1.1  # du/dt 10% off
        return out

    return wrong


def _unscaled_limit(lam, N):
    return np.linalg.inv(theory.gamma(lam, N)), 1.0  # von Oswald's scale: product right, factors wrong


def _slow_gamma(lam, N):
    return lam + np.trace(lam) / np.sqrt(N) * np.eye(lam.shape[0])  # a floor ~ 1/N instead of 1/N^2


def _risk_without_floor(lam, N, M, a, sigma_xy, best):
    return RISK_46(lam, 10**9, M, a, sigma_xy, best)


def _limit_with_off_block(lam, N):
    Wpv, Wkq = LIMIT_THETA(lam, N)
    Wpv[-1, 0] = 0.3  # u12 != 0: the attention reads x_q x_q^T / N
    return Wpv, Wkq


def _unnormalised_random_limit(alpha, beta):
    U, u = LIMIT_RANDOM(alpha, beta)
    return 2.0 * U, u


#: claim -> (module, attribute, fault): every claim judged by the quick run except the reported sigma regime.
FALSIFIERS = {
    "lem51.quadratic_form": (model, "quadratic_form", lambda E, N: 2.0 * QUADRATIC_FORM(E, N)),
    "lem51.negative_eigenvalues": (model, "quadratic_form", _convexified),
    "lem52.offblocks_zero": (model, "loss_and_grad", _biased_grad),
    "lemA1.loss_constant": (theory, "reduced_loss", _scaled(theory.reduced_loss, 1.1)),
    "corA2.min_loss": (theory, "min_loss", _scaled(theory.min_loss, 0.9)),
    "thm41.limit": (theory, "limit", _unscaled_limit),
    "thm41.limit_gd": (model, "population_loss_and_grad", _wrong_population_grad),
    "lemA3.balance": (dynamics, "reduced_rhs", _wrong_rhs),
    "lemA5.u_lower_bound": (theory, "u_lower", _scaled(theory.u_lower, 3.0)),
    "lem54.pl": (theory, "pl_mu", lambda *a: 1.0 / PL_MU(*a)),  # the inverted constant
    "lem54.rate": (theory, "pl_mu", _scaled(theory.pl_mu, 1e4)),
    "thm42.risk_identity": (theory, "risk_46", _risk_without_floor),
    "sec42.task_shift": (theory, "risk_46", _risk_without_floor),
    "cor43.bound": (theory, "cor43_bound", _scaled(theory.cor43_bound, 0.3)),
    "cor43.floor_rate": (theory, "gamma", _slow_gamma),
    "sec42.covariate_shift": (theory, "shift_slope", lambda lam, N, c: c * c),  # the N -> infinity value
    "sec42.query_shift": (theory, "query_shift_risk", _scaled(theory.query_shift_risk, 0.8)),
    "sec42.orthogonal_query": (shifts, "limit_theta", _limit_with_off_block),
    "thm45.limit": (theory, "limit_random", _unnormalised_random_limit),
    "thm45.one_third": (theory, "limit_random", _unnormalised_random_limit),
}


@pytest.mark.parametrize("name", sorted(FALSIFIERS))
def test_a_fault_is_caught(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module, attr, fault = FALSIFIERS[name]
    monkeypatch.setattr(module, attr, fault)
    assert run_claim(f"zfb2024.{name}").verdict == Verdict.VIOLATED
