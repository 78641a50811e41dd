"""Fuzz test of the theory side's input validation (issue 14, item 6).

Every public callable of the four ``bounds`` modules is found by introspection: a new function (or
class) fails :func:`test_every_public_callable_is_covered` until it has a valid call in :data:`VALID`
(or is listed in :data:`RESULT_TYPES`), so nothing escapes the fuzzing. Each parameter is then replaced,
one at a time, by bad values -- a fixed list per kind (None, str, NaN, +-inf, negative, zero, 10**400,
a bool where a number is due, a fraction where an int is due, wrong shapes, ...) and values drawn by
hypothesis per parameter -- and the call must either

* raise ``ValueError`` / ``TypeError`` whose message names the parameter (as a whole word), or
* return a result in which every number is finite; ``mpmath.inf`` only from the functions whose
  ``finite_result`` wrapper documents it (:data:`MAY_BE_INF`).

A :class:`~bounds.checks.ResultRangeError` (the formula has no finite float64 value: it names every
parameter) is accepted only when the bad value is extreme, outside [1e-6, 1e6] in magnitude, where
float64 overflow, underflow, or a ridge penalty lost against a squared norm (1e12 against O(1) valid
values: a system singular in float64) can leave no finite value; at moderate input it would be a
validation gap (a 0/0 on zeros, say), so it fails the test. Anything else (ZeroDivisionError,
IndexError, a LinAlgError that names nothing, a NumPy RuntimeWarning, a hang) fails too.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import re
import time
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from bounds.checks import ResultRangeError

MODULES = ("wu2023", "yang2024", "deora2023", "zhang2026")

_rng = np.random.default_rng(0)
_X = _rng.standard_normal((3, 2, 4))
_Z = _rng.standard_normal((5, 3))
_ZQ = _rng.standard_normal((5, 2))
_G = _Z.T @ _Z + np.eye(3)
_A = np.concatenate([np.eye(3), _rng.standard_normal((3, 2))], axis=1)
_B = _rng.standard_normal((5, 3, 4))
_Y = _rng.standard_normal((2, 3))
_SUM = dict(N=16, d=32, d_s=4, sum_c2=16.0, sum_x6=128.0, y_sq=16.0, lam0=0.03, trG=0.5)
_NORMS = {"Q": 1.0, "K": 2.0, "V": 3.0, "O": 4.0}


def _summary(**change: Any) -> Any:
    from bounds.wu2023 import DataSummary

    return DataSummary(**{**_SUM, **change})


#: One valid call per public callable: module -> name -> keyword arguments (``s=None``: a DataSummary).
VALID: dict[str, dict[str, dict[str, Any]]] = {
    "wu2023": {
        "DataSummary": dict(_SUM),
        "alpha_sq_floor": dict(Zbar=_X.mean(axis=1), eta_V=0.5, d_m=64),
        "assumption1": dict(X=_X),
        "assumption2": dict(X=_X),
        "assumption3_covariance": dict(X=_X),
        "assumption3_pooled": dict(Zbar=_X.mean(axis=1)),
        "assumption4": dict(Xbar=_X.mean(axis=1)),
        "expected_gram": dict(Z=_X, eta_V=0.5),
        "expected_loss0": dict(y=np.ones(3), F=_rng.standard_normal((3, 6)), tau1=1.0, eta_O=0.5),
        "gaussian_norm_bound": dict(eta=0.5, rows=9, cols=16, t=1.0),
        "hermite_floor": dict(Z=_X, eta_V=0.5),
        "init_variances": dict(init="he", d=8, d_m=64),
        "kappa0": dict(u=np.array([-0.5, 0.0, 0.5])),
        "kappa1": dict(u=np.array([-0.5, 0.0, 0.5])),
        "limiting_ntk": dict(Xbar=_X.mean(axis=1), scale_O=1.0, scale_V=2.0),
        "ntk_mineig_hermite": dict(Xbar=_X.mean(axis=1), r=4, scale_O=1.0),
        "ntk_mineig_linear": dict(Xbar=_X.mean(axis=1), scale_O=1.0, scale_V=2.0),
        "ntk_rate_bound": dict(loss0=2.0, gamma=0.1, lam0=1.0, t=np.arange(4)),
        "prop1_quantities": dict(
            X=_X, norms0=dict(_NORMS), alpha=2.0, loss0=3.0, tau0=0.5, tau1=1.0, radii=dict(_NORMS)
        ),
        "proxy_ratios": dict(d_m=1e6, s=None, tau0_power=0.5, init="lecun", delta=0.5),
        "rate_bound": dict(loss0=3.0, gamma=0.1, tau1=1.0, alpha=2.0, t=np.arange(4)),
        "rate_factor": dict(gamma=0.1, tau1=1.0, alpha=2.0),
        "relu_hermite_sq": dict(r=4),
        "required_width": dict(s=None, tau0_power=1.0, init="he", delta=0.5, which="c1", max_log10=20.0),
        "rho_z": dict(c=np.ones(3), X2=np.full(3, 2.0), lam_bar=dict(_NORMS), tau0=0.5, tau1=1.0, d_s=2),
        "slope_window": dict(claimed=2.0, half=0.5),
        "sum_loss_gamma": dict(gamma=1.0, N=10, loss_norm="mean"),
        "summarise": dict(X=_X, y=np.ones(3), G_unit=np.eye(3)),
        "tau0": dict(d_m=64, power=0.5),
        "thm1_width": dict(s=None, init="lecun", delta=0.5, which="c2"),
        "thm2_min_dim": dict(N=16),
        "thm2_width": dict(s=None, init="ntk", delta=0.5, which="both"),
        "token_stats": dict(X=_X),
    },
    "yang2024": {
        "best_ridge": dict(Z=_Z, y=_Y, tau=0.1),
        "closed_form_loss": dict(Ahat=_A + 0.1, A=_A, G=_G, Lstar=0.5),
        "const_terms": dict(Z=_Z, Z_Q=_ZQ, tau=0.1),
        "copy_bound": dict(delta=0.01, y_norm2=np.array([1.0, 2.0]), lam_min_G=0.5),
        "expected_error": dict(Z=_Z, Z_Q=_ZQ, tau=0.1, penalty=0.3),
        "fig3_gap": dict(Z=_Z, Z_Q=_ZQ, tau=0.1),
        "gram": dict(Z=_Z, tau=0.1),
        "inference_bound": dict(delta=0.01, y_norm2=np.array([1.0, 2.0]), K=5, lam_min_G=0.5),
        "iterations_needed": dict(delta0=1.0, Y=10.0, K=5, lam_min_G=0.5, eps=1e-3, rho=mpmath.mpf("0.99")),
        "lemma4_objective": dict(Z=_Z, y=_Y[0], lam=_rng.standard_normal((4, 5)), tau=0.1),
        "limit_predictor": dict(A=_A, y=_Y),
        "loss_floor": dict(Z=_Z, Z_Q=_ZQ, tau=0.1),
        "orthant_floor": dict(Zbar=_G, A=_A),
        "prob_bound": dict(B=1.0, Z_norm2=2.0, tau=0.1, N=3, delta=0.05),
        "rate_bound": dict(delta0=1.0, rho=mpmath.mpf("0.9"), t=np.arange(4)),
        "rate_factor": dict(eta_Q=1.0, gamma=0.5, zeta_0=0.1),
        "ridge": dict(Z=_Z, y=_Y, penalty=0.3),
        "ridge_predictions": dict(Z=_Z, Z_Q=_ZQ, y=_Y, lam=_rng.standard_normal((2, 5))),
        "target_matrix": dict(Z=_Z, Z_Q=_ZQ, tau=0.1),
        "transformer_ridge": dict(Z=_Z, y=_Y, tau=0.1),
        "zbar": dict(G=_G),
        "zeta0": dict(B=_B),
    },
    "deora2023": {
        "beta2_ball": dict(T=4, R=1.5, U0_fro=2.0, r=0.5, H=8),
        "beta3": dict(T=4, R=1.5, max_value_norm=2.0),
        "beta3_ball": dict(T=4, R=1.5, ubar0=2.0, r=0.5),
        "convex_limit": dict(L_ref=0.1, D0=2.0, eta=0.5, K=100, L0=0.7, LK=0.05),
        "dtrain_bound": dict(L_ref=0.1, D0=2.0, eta=0.5, K=100, c=0.3, L0=0.7, LK=0.05),
        "dtrain_dbar_sq": dict(D0=2.0, eta=0.5, a=0.2, K=100, L_ref=0.1, L0=0.7),
        "dtrain_worst_case": dict(H=10**40, T=4, R=1.0, ubar0=1.0, D0=1.0, eta=0.5, K=10, L_ref=0.1, L0=0.7),
        "g_eps_U": dict(B0=1.0, eps=0.1, gamma_U=0.5),
        "g_eps_full": dict(B0=1.0, eps=0.1, gamma=0.5),
        "gen_bound": dict(Gamma=1.5, beta2=2.0, eta=0.1, n=100, sum_mean_losses=3.0),
        "gen_premise": dict(Gamma=1.5, beta2=2.0, eta=0.1, K=10, n=100),
        "grad_bound_sq": dict(T=4, R=1.5, mean_sq_value_norm=2.0),
        "hess_bound": dict(T=4, R=1.5, max_value_norm=2.0, H=8),
        "ideal_attention_margin": dict(S=2.0, T=6),
        "kappa3_bound": dict(range_v=2.0, range_b=3.0),
        "mixture_margin_U": dict(zeta=0.5, S=2.0, T=6, variant="A"),
        "mixture_margin_noisy_lower": dict(zeta=0.5, S=2.0, T=6, sigma=0.1, n=10, delta=0.05),
        "ntk_train_rate": dict(K=100, B0=1.0, gamma=0.5, eta=0.1, L0=0.7, U_only=True),
        "paper_form_gen_rate": dict(g=2.0, eta=0.1, K=100, n=50, beta2=3.0),
        "paper_form_train_bound": dict(L_ref=0.1, dist=2.0, eta=0.5, K=100),
        "qc_a": dict(c=0.3),
        "qc_inner_lower": dict(L=1.0, L_prime=0.5, c=0.3),
        "qc_segment_max": dict(L_max_endpoints=1.0, c=0.3),
        "realizability_heads": dict(lam=2.0, beta3_lam=3.0, gamma=0.5),
        "required_heads": dict(T=4, R=1.0, ubar0=1.0, D0=1.0, eta=0.5, K=10, L_ref=0.1, L0=0.7, c=0.5),
        "sb_grad_bound": dict(beta2=2.0, L=0.5),
        "smoothness_bounds": dict(beta2=2.0, beta3_value=3.0, H=8, L=0.5),
        "taylor_remainder_bound": dict(lam=2.0, H=8, beta3_lam=3.0),
        "variance_bound": dict(value_range=2.0),
        "weak_convexity_modulus": dict(beta3_value=3.0, H=8),
    },
    "zhang2026": {
        "c1_first_step": dict(eta=0.05, sx2=1.0),
        "dimension_condition": dict(M=4, K=2),
        "deqk_excess": dict(t=10, eta=0.05, sx2=1.0, v2=2.0),
        "eps_asymptotic": dict(T=1e4, D=8, K=2, eta=0.05, sx2=1.0, v2=2.0),
        "eta_heuristic": dict(D=8, K=2, sx2=1.0, v2=2.0),
        "eta_paper": dict(M=4, D=8, const=1.0),
        "kappa": dict(D=8, K=2, eta=0.05, sx2=1.0, v2=2.0),
        "kq_level_ratio": dict(D=8, K=2),
        "onset_T0": dict(D=8, K=2, eta=0.05, sx2=1.0, v2=2.0),
        "ood_B_exact": dict(tr_vsv=4.0, sx2=1.0, v2=4.0, excess_id=0.01, D=8, C1=0.9, vmu2=2.0),
        "ood_B_op_bound": dict(v_op=2.0, delta_op=0.5, ex2=3.0),
        "ood_upper": dict(A_T=1.0, B_T=0.25),
        "tail_constant": dict(D=8, K=[1, 2, 3, 2, 1, 2, 3, 2], eta=0.05),
    },
}

#: Public classes that are result records (built by the functions above, never bounds themselves).
RESULT_TYPES = {("wu2023", "InitVariances"), ("wu2023", "Prop1")}
#: Documented to return ``mpmath.inf`` (a condition that never holds in range, rho = 1, c(H) >= 1,
#: Prop. 1's degenerate ratios); must equal the functions wrapped with ``finite_result(may_be_inf=True)``.
MAY_BE_INF = {
    ("wu2023", "prop1_quantities"),
    ("wu2023", "required_width"),
    ("wu2023", "thm1_width"),
    ("wu2023", "thm2_width"),
    ("yang2024", "iterations_needed"),
    ("deora2023", "dtrain_worst_case"),
}
#: Documented to raise NotImplementedError for valid input (the paper's formula is NOT RECOVERED).
NOT_RECOVERED = {("zhang2026", "dimension_condition")}


def _public(mod_name: str) -> dict[str, Callable[..., Any]]:
    """Every public function and class defined in ``bounds.<mod_name>`` (constants excluded)."""
    mod = importlib.import_module(f"bounds.{mod_name}")
    return {
        name: obj
        for name, obj in vars(mod).items()
        if not name.startswith("_")
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and getattr(obj, "__module__", None) == mod.__name__
    }


CASES = [(m, n) for m in MODULES for n in sorted(_public(m)) if (m, n) not in RESULT_TYPES]
PARAMS = [(m, n, p) for m, n in CASES if n in VALID[m] for p in VALID[m][n]]


def _valid_kwargs(mod_name: str, name: str) -> dict[str, Any]:
    kw = dict(VALID[mod_name][name])
    if "s" in kw and kw["s"] is None:
        kw["s"] = _summary()
    return kw


def _numbers(x: Any) -> list[Any]:
    """Every scalar in a result (dataclasses, dicts, tuples, lists and arrays flattened)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return _numbers([getattr(x, f.name) for f in dataclasses.fields(x)])
    if isinstance(x, dict):
        return _numbers(list(x.values()))
    if isinstance(x, list | tuple):
        return [v for item in x for v in _numbers(item)]
    if isinstance(x, np.ndarray):
        return list(x.ravel())
    return [x]


def _check_result(mod_name: str, name: str, out: Any) -> None:
    for v in _numbers(out):
        if isinstance(v, mpmath.mpf):
            ok = mpmath.isfinite(v) or (v == mpmath.inf and (mod_name, name) in MAY_BE_INF)
        elif isinstance(v, bool | np.bool_ | str):
            ok = True
        elif isinstance(v, int | np.integer):
            ok = abs(int(v)) <= 2**1024
        else:
            ok = isinstance(v, float | np.floating) and math.isfinite(float(v))
        assert ok, f"{mod_name}.{name} returned {v!r} ({type(v).__name__})"


def _extreme(v: Any) -> bool:
    """A value whose magnitude is outside [1e-6, 1e6] (0 excluded), anywhere inside it."""
    if isinstance(v, bool | np.bool_ | str) or v is None:
        return False
    if isinstance(v, dict):
        return any(_extreme(x) for x in v.values())
    if isinstance(v, list | tuple):
        return any(_extreme(x) for x in v)
    if isinstance(v, np.ndarray):
        return v.dtype.kind in "iuf" and any(_extreme(float(x)) for x in v.ravel())
    try:
        a = abs(mpmath.mpf(v)) if isinstance(v, int | float | np.number | mpmath.mpf) else None
    except (TypeError, ValueError):
        return False
    return a is not None and mpmath.isfinite(a) and a != 0 and (a > 1e6 or a < 1e-6)


def _names(param: str, message: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(param)}(?![A-Za-z0-9_])", message) is not None


def _assert_one_line(shown: str, exc: BaseException) -> None:
    text = str(exc)
    assert text.strip() and "\n" not in text, f"{shown}: the error is not one line: {text!r:.300}"
    assert len(text) < 600, f"{shown}: the error is {len(text)} characters long"


def _call_with(mod_name: str, name: str, param: str, bad: Any) -> None:
    fn = _public(mod_name)[name]
    kw = _valid_kwargs(mod_name, name)
    kw[param] = bad
    shown = f"{mod_name}.{name}({param}={bad!r:.80})"
    try:
        out = fn(**kw)
    except ResultRangeError as exc:
        assert _extreme(bad), f"{shown}: no finite value at a moderate input (a validation gap): {exc}"
        assert _names(param, str(exc)), f"{shown} raised {exc!r} not naming {param}"
        _assert_one_line(shown, exc)
        return
    except (ValueError, TypeError) as exc:
        assert _names(param, str(exc)), f"{shown} raised {type(exc).__name__}({exc}) not naming {param}"
        _assert_one_line(shown, exc)
        return
    except NotImplementedError:
        assert (mod_name, name) in NOT_RECOVERED, f"{shown} raised NotImplementedError"
        return
    _check_result(mod_name, name, out)


# ---------------------------------------------------------------------------------------------------
# coverage: every public callable, every parameter, every function wrapped
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("mod_name", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_every_public_callable_is_covered(mod_name: str, name: str) -> None:
    assert name in VALID[mod_name], f"bounds.{mod_name}.{name} has no entry in VALID (add a valid call)"
    fn = _public(mod_name)[name]
    assert set(VALID[mod_name][name]) == set(inspect.signature(fn).parameters), "VALID misses a parameter"
    if inspect.isfunction(fn):
        assert hasattr(fn, "may_be_inf"), f"bounds.{mod_name}.{name} is not wrapped in finite_result"
        assert fn.may_be_inf == ((mod_name, name) in MAY_BE_INF), "MAY_BE_INF disagrees with the wrapper"
        if fn.may_be_inf:
            assert "mpmath.inf" in (fn.__doc__ or ""), "an infinite result must be documented"


def test_the_fuzz_covers_enough() -> None:
    """Guards against the introspection silently finding nothing."""
    assert len(CASES) >= 95 and len(PARAMS) >= 300


@pytest.mark.parametrize(("mod_name", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_the_valid_call_is_finite(mod_name: str, name: str) -> None:
    try:
        out = _public(mod_name)[name](**_valid_kwargs(mod_name, name))
    except NotImplementedError:
        assert (mod_name, name) in NOT_RECOVERED
        return
    _check_result(mod_name, name, out)


# ---------------------------------------------------------------------------------------------------
# fixed bad values per kind of parameter
# ---------------------------------------------------------------------------------------------------


def _bad_values(valid: Any) -> list[Any]:
    """Bad replacements for a parameter whose valid value is ``valid``, by its kind."""
    common: list[Any] = [None, "x", object(), np.zeros((2, 2))]
    if isinstance(valid, bool):
        return [*common, 1, 0, 0.0, "True", np.array([True])]
    if isinstance(valid, int):
        return [*common, True, 2.5, 3.0, -1, 0, 10**400, -(10**400), math.nan, math.inf, np.array([3])]
    if isinstance(valid, float | mpmath.mpf):
        return [
            *common,
            True,
            math.nan,
            math.inf,
            -math.inf,
            -1.0,
            -1e-300,
            0.0,
            1.0,
            10**400,
            -(10**400),
            mpmath.mpf("nan"),
            mpmath.mpf("1e400"),
            mpmath.mpf("-1e-400"),
            1j,
            np.array([1.0, 2.0]),
        ]
    if isinstance(valid, str):
        return [*common, "nope", "", 1, 0.5, True, valid.upper() + "_", np.array([valid])]
    if isinstance(valid, dict):
        k0 = next(iter(valid))
        return [
            *common,
            {},
            {**valid, k0: math.nan},
            {**valid, k0: -1.0},
            {**valid, k0: math.inf},
            {**valid, k0: "x"},
            {**valid, k0: 10**400},
            {**valid, "extra": 1.0},
            {k: v for k, v in valid.items() if k != k0},
            list(valid.values()),
        ]
    if isinstance(valid, list):
        return [*common, [], [*valid, 1], [True] * len(valid), [0] * len(valid), [2.5] * len(valid), 10**400]
    if isinstance(valid, np.ndarray):
        return [
            *common,
            np.full(valid.shape, np.nan),
            np.full(valid.shape, np.inf),
            np.full(valid.shape, 10**400, dtype=object),
            np.zeros(valid.shape),
            -valid,
            valid[..., None],
            valid.ravel()[0],
            valid[:-1],
            valid[..., :-1],
            np.zeros((0,) * valid.ndim),
            valid.astype(str),
            valid.astype(complex),
            valid.tolist(),
            valid + 0.5 if valid.dtype.kind in "iu" else valid,
        ]
    if dataclasses.is_dataclass(valid):
        return [*common, _SUM, _summary(lam0=0.0), _summary(lam0=-1.0), _summary(N=10**300, d=10**300)]
    raise AssertionError(f"no bad values for {type(valid).__name__}")


def _kind_value(mod_name: str, name: str, param: str) -> Any:
    v = VALID[mod_name][name][param]
    return _summary() if param == "s" and v is None else v


@pytest.mark.parametrize(("mod_name", "name", "param"), PARAMS, ids=[f"{m}.{n}.{p}" for m, n, p in PARAMS])
def test_each_fixed_bad_value_is_refused_by_name(mod_name: str, name: str, param: str) -> None:
    for bad in _bad_values(_kind_value(mod_name, name, param)):
        _call_with(mod_name, name, param, bad)


# ---------------------------------------------------------------------------------------------------
# values drawn per parameter (hypothesis; derandomized by default)
# ---------------------------------------------------------------------------------------------------

_JUNK = st.sampled_from([None, "x", b"x", (), [], {}, 1j, object()])
_FLOATS = st.floats(allow_nan=True, allow_infinity=True)
_INTS = st.integers() | st.integers(min_value=2**1000, max_value=2**1100) | st.just(-(10**400))
_REALS = (
    _FLOATS
    | st.floats(-1e3, 1e3).map(mpmath.mpf)
    | st.sampled_from([mpmath.mpf("nan"), mpmath.inf, -mpmath.inf, mpmath.mpf("1e400"), mpmath.mpf("1e-400")])
    | st.integers(-(10**400), 10**400)
    | st.complex_numbers()
)
_ELEMENTS = st.floats(allow_nan=True, allow_infinity=True, width=64)


def _array_strategy(valid: np.ndarray) -> st.SearchStrategy:
    any_shape = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)
    return (
        hnp.arrays(np.float64, any_shape, elements=_ELEMENTS)
        | hnp.arrays(np.float64, valid.shape, elements=_ELEMENTS)
        | hnp.arrays(np.float64, valid.shape, elements=st.floats(-1e3, 1e3))
        | hnp.arrays(np.int64, valid.shape)
        | st.lists(_REALS, max_size=4)
        | _JUNK
    )


def _strategy(valid: Any) -> st.SearchStrategy:
    """Values for one parameter, drawn broadly (valid ones included: they must give a finite result)."""
    if isinstance(valid, bool):
        return st.booleans() | st.integers(-2, 2) | st.text(max_size=2) | _JUNK
    if isinstance(valid, int):
        return _INTS | _FLOATS | st.booleans() | _JUNK
    if isinstance(valid, float | mpmath.mpf):
        return _REALS | st.booleans() | _JUNK
    if isinstance(valid, str):
        near = st.sampled_from([valid.upper(), valid + " ", f" {valid}"])
        return st.text(max_size=4) | near | _INTS | _JUNK
    if isinstance(valid, np.ndarray):
        return _array_strategy(valid)
    if isinstance(valid, dict):
        keys = st.sampled_from([*valid, "extra"])
        return (
            st.dictionaries(keys, _REALS, max_size=5)
            | st.fixed_dictionaries({k: _REALS for k in valid})
            | st.lists(_REALS, max_size=4)
            | _JUNK
        )
    if isinstance(valid, list):
        return st.lists(_INTS | _FLOATS | st.booleans(), max_size=10) | _INTS | _JUNK
    if dataclasses.is_dataclass(valid):
        lam0 = st.sampled_from([0.03, 0.0, -1.0, 1e-300, 1e300])
        big = st.sampled_from([1, 4, 10**300])
        return st.builds(_summary, lam0=lam0, N=big, d=big, d_s=big) | st.just(_SUM) | _JUNK
    raise AssertionError(f"no strategy for {type(valid).__name__}")


@pytest.mark.parametrize(("mod_name", "name", "param"), PARAMS, ids=[f"{m}.{n}.{p}" for m, n, p in PARAMS])
@given(data=st.data())
def test_values_drawn_per_parameter_are_refused_by_name_or_finite(
    mod_name: str, name: str, param: str, data: st.DataObject
) -> None:
    bad = data.draw(_strategy(_kind_value(mod_name, name, param)), label=param)
    _call_with(mod_name, name, param, bad)


# ---------------------------------------------------------------------------------------------------
# the cases issue 14 names, spelled out
# ---------------------------------------------------------------------------------------------------


def _fast_error(call: Callable[[], Any], exc: type[BaseException], match: str) -> None:
    t0 = time.perf_counter()
    with pytest.raises(exc, match=match):
        call()
    assert time.perf_counter() - t0 < 1.0, "a bad value must be refused at once, not computed"


def test_huge_inputs_are_refused_at_once_by_name() -> None:
    from bounds import deora2023 as D
    from bounds import wu2023 as W
    from bounds import zhang2026 as Z

    s = _summary()
    _fast_error(lambda: W.relu_hermite_sq(10**400), ValueError, r"^r must be an integer in \[2, 170\]")
    _fast_error(lambda: W.required_width(s, tau0_power=0.5, max_log10=10**400), ValueError, "^max_log10")
    _fast_error(lambda: W.required_width(s, tau0_power=0.5, max_log10=1e6), ValueError, "^max_log10")
    _fast_error(lambda: W.ntk_mineig_hermite(_X.mean(axis=1), 10**400), ValueError, "^r must")
    _fast_error(lambda: W.init_variances("he", 10**400, 8), ValueError, "^d must be an integer")
    _fast_error(lambda: D.hess_bound(4, 1.0, 1.0, 10**400), ValueError, "^H must be an integer")
    _fast_error(lambda: Z.deqk_excess(10**400, 0.1, 1.0, 1.0), ValueError, "^t must be an integer")
    _fast_error(lambda: D.beta3(4, 10**400, 1.0), ValueError, "^R must be finite")
    # a size far beyond any data set but within float64 is computed, not looped over
    assert Z.tail_constant(10**300, 2, 0.05) > 0


def test_overflow_in_a_formula_is_a_value_error_naming_every_parameter() -> None:
    from bounds import deora2023 as D

    with pytest.raises(ResultRangeError, match=r"beta3: no finite float64 value at T=4, R=1e\+100"):
        D.beta3(4, 1e100, 1.0)
    with pytest.raises(ResultRangeError, match=r"hess_bound: .*H=8"):
        D.hess_bound(4, 1e100, 1.0, 8)  # the inner beta3's error is re-raised naming the outer call


def test_init_and_powers_are_enumerations() -> None:
    from bounds import wu2023 as W

    s = _summary()
    for call in (
        lambda init: W.proxy_ratios(1e6, s, tau0_power=0.5, init=init),
        lambda init: W.required_width(s, tau0_power=0.5, init=init),
        lambda init: W.thm1_width(s, init=init),
        lambda init: W.thm2_width(s, init=init),
    ):
        with pytest.raises(ValueError, match=r"^init must be one of \('lecun', 'he', 'ntk'\), got 'glorot'"):
            call("glorot")
    mf = r"^init must be one of \('lecun', 'he', 'ntk', 'mf'\), got 'glorot'"
    with pytest.raises(ValueError, match=mf):
        W.init_variances("glorot", 4, 8)  # the variances know the mean-field world too (fig9.ntk.width)
    with pytest.raises(ValueError, match=r"^init must be one of \('lecun', 'he', 'ntk'\), got 'mf'"):
        W.thm1_width(s, init="mf")  # no theorem width for it
    with pytest.raises(ValueError, match=r"^tau0_power must be one of"):
        W.required_width(s, tau0_power=0.25)
    with pytest.raises(ValueError, match=r"^power must be one of"):
        W.tau0(64, True)  # a bool is not the power 1.0


def test_prop1_nan_norm_is_refused_not_an_infinite_c1() -> None:
    from bounds import wu2023 as W

    for key in ("Q", "O"):
        with pytest.raises(ValueError, match=rf"^norms0\['{key}'\] must be finite"):
            W.prop1_quantities(_X, {**_NORMS, key: math.nan}, alpha=2.0, loss0=3.0, tau0=0.5, tau1=1.0)
    q = W.prop1_quantities(_X, _NORMS, alpha=2.0, loss0=0.0, tau0=0.5, tau1=1.0)  # documented infinities
    assert q.c1 == mpmath.inf and q.c2 == mpmath.inf and q.path == 0.0
    q = W.prop1_quantities(_X, _NORMS, alpha=0.0, loss0=3.0, tau0=0.5, tau1=1.0)
    assert q.path == mpmath.inf and q.c1 == 0.0 and q.c2 == 0.0


def test_steps_are_whole_and_non_negative() -> None:
    from bounds import wu2023 as W
    from bounds import yang2024 as Y

    with pytest.raises(ValueError, match=r"^t must have entries >= 0"):
        W.ntk_rate_bound(1.0, 0.1, 1.0, np.array([0, -1]))
    with pytest.raises(ValueError, match=r"^t must hold whole step counts"):
        Y.rate_bound(1.0, mpmath.mpf("0.5"), np.array([0.0, 1.5]))  # not truncated to 1
    with pytest.raises(ValueError, match=r"^t must hold whole step counts"):
        W.rate_bound(1.0, 0.1, 1.0, 1.0, np.array([2.5]))
    with mpmath.workdps(30):
        rho = 1 + mpmath.mpf("1e-20")
    with pytest.raises(ValueError, match=r"^rho must lie in \[0, 1\]"):
        Y.rate_bound(1.0, rho, np.arange(3))  # checked exactly, not after rounding to 1.0
    assert [float(v) for v in Y.rate_bound(2.0, 0.5, np.array([0, 3]))] == [2.0, 0.25]


def test_tiny_inputs_do_not_trip_internal_cosines() -> None:
    """Found by the drawn values: tokens of size 1e-161 give float64 cosines of 1.0066 (subnormal norms);
    the kernels computed from them clip such round-off instead of refusing a correlation nobody passed."""
    from bounds import wu2023 as W

    Xb = np.full((3, 4), 1.30035692e-161)
    for out in (W.limiting_ntk(Xb)["K"], W.expected_gram(Xb[:, None, :], 0.5)):
        assert np.all(np.isfinite(out))
    with pytest.raises(ValueError, match=r"^u must hold correlations in \[-1, 1\]"):
        W.kappa1(np.array([1.01]))  # a correlation passed in by the caller is still checked


# ---------------------------------------------------------------------------------------------------
# the cases issue 27 names: messages built without float(), one line for any value
# ---------------------------------------------------------------------------------------------------


_HUGE_INT_CASES = [
    (m, n, p)
    for m, n, p in PARAMS
    if isinstance(VALID[m][n][p], int) and not isinstance(VALID[m][n][p], bool)
]


@pytest.mark.parametrize(
    ("mod_name", "name", "param"), _HUGE_INT_CASES, ids=[f"{m}.{n}.{p}" for m, n, p in _HUGE_INT_CASES]
)
def test_a_huge_integer_beside_overflowing_reals_gets_one_line(mod_name: str, name: str, param: str) -> None:
    """Issue 27 case 2: ``hess_bound(T=4, R=1.5, max_value_norm=1e308, H=10**400)`` raised
    OverflowError while its message converted H to float. Every real parameter at 1e308 (the formula
    overflows) and the integer at 10**400 or 10**5000 (beyond ``str()``'s 4300 digits): a one-line
    ValueError / TypeError."""
    kw = _valid_kwargs(mod_name, name)
    for k, v in kw.items():
        if isinstance(v, float) and k != param:
            kw[k] = 1e308
    for huge in (10**400, -(10**400), 10**5000):
        kw[param] = huge
        shown = f"{mod_name}.{name}({param}=<{huge.bit_length()}-bit int>, reals at 1e308)"
        try:
            _public(mod_name)[name](**kw)
        except (ValueError, TypeError) as exc:
            _assert_one_line(shown, exc)
        except NotImplementedError:
            assert (mod_name, name) in NOT_RECOVERED
        else:
            pytest.fail(f"{shown} returned")


_ARRAYS_FOR_SCALARS = [
    np.zeros((2, 2)),
    np.zeros((2, 2, 2)),
    np.ones((40, 40)),
    np.zeros((2, 2), dtype=object),
    np.array([[10**400]], dtype=object),
    [[1.0, 2.0], [3.0, 4.0]],
    [10**5000],
]
_SCALAR_PARAMS = [
    (m, n, p) for m, n, p in PARAMS if isinstance(VALID[m][n][p], int | float | str | mpmath.mpf | bool)
]


@pytest.mark.parametrize(
    ("mod_name", "name", "param"), _SCALAR_PARAMS, ids=[f"{m}.{n}.{p}" for m, n, p in _SCALAR_PARAMS]
)
def test_an_array_for_a_scalar_gets_one_line_naming_it(mod_name: str, name: str, param: str) -> None:
    """Issue 27 case 3: ``tau0(d_m=np.zeros((2, 2)), power=0.5)`` printed the array over several lines."""
    for bad in _ARRAYS_FOR_SCALARS:
        kw = _valid_kwargs(mod_name, name)
        kw[param] = bad
        shown = f"{mod_name}.{name}({param}=<{type(bad).__name__}>)"
        with pytest.raises((ValueError, TypeError)) as info:
            _public(mod_name)[name](**kw)
        _assert_one_line(shown, info.value)
        assert _names(param, str(info.value)), f"{shown}: {info.value} does not name {param}"


def test_the_issue_27_calls_spelled_out() -> None:
    from bounds import deora2023 as D
    from bounds import wu2023 as W
    from bounds.mp import to_float

    with pytest.raises(ValueError, match=r"^deora2023.hess_bound: no finite float64 value at .*H=1.0e\+400"):
        D.hess_bound(T=4, R=1.5, max_value_norm=1e308, H=10**400)
    with pytest.raises(TypeError, match=r"^d_m must be an integer, got an array of shape \(2, 2\)"):
        W.tau0(d_m=np.zeros((2, 2)), power=0.5)
    assert to_float(5e-324) == 5e-324  # the smallest subnormal is inside float64's range
    assert to_float(mpmath.mpf(2) ** -1074) == 5e-324
    with pytest.raises(OverflowError, match="outside float64 range"):
        to_float(mpmath.mpf("1e-330"))  # below it: it would round to 0 or to 2**-1074
