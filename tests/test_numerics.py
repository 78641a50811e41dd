"""Shared numerics: softmax, gradient checker, slope fit, binomial test -- and that each can fail."""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from verify.numerics import gradcheck
from verify.numerics.fit import fit_loglog
from verify.numerics.gradcheck import assert_grad_ok, check_adjoint, check_grad, check_hvp, noise_level
from verify.numerics.softmax import softmax, softmax_vjp
from verify.numerics.stats import (
    RECHECK,
    clopper_pearson,
    difference_limits,
    mean_half_width,
    paired_change_limits,
    rechecked_z,
)

# ---------------------------------------------------------------- softmax


@given(arrays(np.float64, (3, 5), elements=st.floats(-1e4, 1e4)), st.sampled_from([-1, -2, 0, 1]))
def test_softmax_finite_and_normalised_at_extreme_logits(z: np.ndarray, axis: int) -> None:
    p = softmax(z, axis=axis)
    assert np.all(np.isfinite(p))
    assert np.all(p >= 0)
    np.testing.assert_allclose(p.sum(axis=axis), 1.0, rtol=1e-12)


@pytest.mark.parametrize("axis", [-1, -2, 0])
def test_softmax_in_place_matches(axis: int) -> None:
    z = np.random.default_rng(2).standard_normal((3, 4, 5)) * 50
    expected = softmax(z, axis=axis)
    work = z.copy()
    out = softmax(work, axis=axis, overwrite=True)
    assert out is work
    np.testing.assert_array_equal(out, expected)
    with pytest.raises(TypeError, match="float64 ndarray"):
        softmax([1.0, 2.0], overwrite=True)


def test_softmax_of_pm_1e4_is_one_hot() -> None:
    p = softmax(np.array([[1e4, -1e4, 0.0]]))
    np.testing.assert_array_equal(p, [[1.0, 0.0, 0.0]])


@pytest.mark.parametrize("axis", [-1, -2])
def test_softmax_vjp_matches_finite_differences(axis: int) -> None:
    rng = np.random.default_rng(1)
    z, g = rng.standard_normal((4, 6)), rng.standard_normal((4, 6))
    f = lambda p: float(np.sum(g * softmax(p["z"], axis=axis)))  # noqa: E731
    grad = softmax_vjp(softmax(z, axis=axis), g, axis=axis)
    assert_grad_ok(check_grad(f, {"z": z}, {"z": grad}))


# ---------------------------------------------------------------- gradient checker

A = np.random.default_rng(0).standard_normal((4, 3))


def _loss(p: dict[str, np.ndarray]) -> float:
    return float(np.sum(np.tanh(A @ p["W"] @ p["v"])) + 0.5 * np.sum(p["W"] ** 2))


def _grad(p: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    h = A @ p["W"] @ p["v"]
    s = 1 - np.tanh(h) ** 2
    return {"W": A.T @ np.outer(s, p["v"]) + p["W"], "v": (A @ p["W"]).T @ s}


@pytest.fixture
def point() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {"W": rng.standard_normal((3, 5)), "v": rng.standard_normal(5)}


@pytest.mark.parametrize("mode", ["full", "directional"])
def test_gradcheck_accepts_the_right_gradient(point: dict[str, np.ndarray], mode: str) -> None:
    report = check_grad(_loss, point, _grad(point), mode=mode)
    assert report.ok, report.summary()


@pytest.mark.parametrize("mode", ["full", "directional"])
@pytest.mark.parametrize(
    "corrupt",
    [
        lambda g: {**g, "W": -g["W"]},  # sign flip
        lambda g: {**g, "v": 2 * g["v"]},  # factor 2
        lambda g: {**g, "W": g["W"].T.reshape(g["W"].shape)},  # transposed block
    ],
    ids=["sign", "factor2", "transpose"],
)
def test_gradcheck_catches_wrong_gradients(point: dict[str, np.ndarray], mode: str, corrupt) -> None:
    report = check_grad(_loss, point, corrupt(_grad(point)), mode=mode)
    assert not report.ok
    assert report.worst is not None
    assert "block" in report.summary()
    with pytest.raises(AssertionError, match="worst in block"):
        assert_grad_ok(report)


def test_gradcheck_refuses_a_kink_between_step_sizes() -> None:
    f = lambda p: float(np.abs(p["x"]).sum())  # noqa: E731
    x = {"x": np.array([2e-6])}  # |x| has a kink at 0, inside [x - eps, x + eps] for eps = 1e-5
    report = check_grad(f, x, {"x": np.array([1.0])}, eps=1e-5)
    assert not report.ok
    assert report.unstable


def _noisy_sin(sigma: float):
    """sum(sin(x)) plus noise of standard deviation sigma, a fixed function of x's bits (as round-off is)."""

    def f(p: dict[str, np.ndarray]) -> float:
        draw = np.random.default_rng(zlib.crc32(p["x"].tobytes())).standard_normal()
        return float(np.sum(np.sin(p["x"])) + sigma * draw)

    return f


@pytest.mark.parametrize("seed", range(5))
def test_noise_level_measures_the_noise_of_f(seed: int) -> None:
    """Moré and Wild's estimate is within a factor 3 of the true sigma (16 points, 200 draws: 0.29-1.97)."""
    rng = np.random.default_rng(seed)
    x, v = {"x": rng.standard_normal(5)}, {"x": rng.standard_normal(5)}
    assert 1 / 3 < noise_level(_noisy_sin(1e-9), x, v, 1e-8) / 1e-9 < 3
    assert noise_level(lambda p: float(np.sum(np.sin(p["x"]))), x, v, 1e-8) < 1e-15  # round-off only


def test_gradcheck_grants_a_measured_round_off_floor_and_still_catches_a_wrong_gradient(monkeypatch) -> None:
    """Noise of 1e-12 makes differences at eps / 4 = 2.5e-7 scatter by about 3e-6, far above atol 1e-8:
    the right gradient is judged at the measured floor and passes, a 1% wrong one still fails."""
    f = _noisy_sin(1e-12)
    x = {"x": np.random.default_rng(0).standard_normal(5)}
    right = check_grad(f, x, {"x": np.cos(x["x"])})
    assert right.ok and right.floored == 6, right.summary()
    assert 1e-6 < right.max_floor < 1e-4
    wrong = check_grad(f, x, {"x": np.cos(x["x"]) * 1.01})
    assert not wrong.ok and "worst in block 'x'" in wrong.summary()
    monkeypatch.setattr(gradcheck, "MAX_FLOOR", 0.0)  # no floor granted: the right gradient fails
    assert not check_grad(f, x, {"x": np.cos(x["x"])}).ok


def test_gradcheck_refuses_a_floor_above_its_share_of_the_gradient() -> None:
    """Noise of 1e-7 needs a floor near 1 against a gradient of norm 2: the check fails and says why."""
    x = {"x": np.random.default_rng(0).standard_normal(5)}
    report = check_grad(_noisy_sin(1e-7), x, {"x": np.cos(x["x"])})
    assert not report.ok and report.unresolved
    assert "round-off floor above 0.001 of the gradient norm" in report.summary()


def test_gradcheck_mpmath_oracle() -> None:
    import mpmath

    f_mp = lambda p: sum(mpmath.exp(v) for v in p["x"].ravel())  # noqa: E731
    f = lambda p: float(np.sum(np.exp(p["x"])))  # noqa: E731
    x = {"x": np.array([0.3, -1.2])}
    assert check_grad(f, x, {"x": np.exp(x["x"])}, f_mp=f_mp, rtol=1e-12, atol=1e-14).ok
    assert not check_grad(f, x, {"x": np.exp(x["x"]) * (1 + 1e-9)}, f_mp=f_mp, rtol=1e-12, atol=1e-14).ok


def test_hvp_check_catches_a_wrong_hessian() -> None:
    M = np.array([[2.0, 1.0], [1.0, 3.0]])
    grad_fn = lambda p: {"x": M @ p["x"] + np.sin(p["x"])}  # noqa: E731
    hvp = lambda p, v: {"x": M @ v["x"] + np.cos(p["x"]) * v["x"]}  # noqa: E731
    wrong = lambda p, v: {"x": M.T @ v["x"] * 1.1}  # noqa: E731
    x = {"x": np.array([0.4, -0.7])}
    assert check_hvp(grad_fn, x, hvp).ok
    assert not check_hvp(grad_fn, x, wrong).ok


def test_adjoint_check() -> None:
    J = np.random.default_rng(0).standard_normal((3, 4))
    assert check_adjoint(lambda v: J @ v, lambda u: J.T @ u, (4,), (3,)).ok
    assert not check_adjoint(lambda v: J @ v, lambda u: 1.01 * J.T @ u, (4,), (3,)).ok


def test_gradcheck_rejects_mismatched_blocks(point: dict[str, np.ndarray]) -> None:
    with pytest.raises(ValueError, match="grad blocks"):
        check_grad(_loss, point, {"W": point["W"]})
    with pytest.raises(ValueError, match="mode must be one of"):
        check_grad(_loss, point, _grad(point), mode="fast")


# ---------------------------------------------------------------- slope fit


@given(st.floats(-2.5, 2.5), st.floats(0.1, 10.0))
def test_slope_fit_recovers_known_exponents(exponent: float, c: float) -> None:
    x = np.geomspace(10, 1e4, 12)
    noise = np.exp(np.random.default_rng(0).normal(0, 0.01, x.size))
    fit = fit_loglog(x, c * x**exponent * noise)
    assert fit.contains(exponent)
    assert not fit.contains(exponent + 0.1)
    assert not fit.contains(exponent - 0.1)


def test_bootstrap_fit_over_seeds() -> None:
    rng = np.random.default_rng(5)
    x = np.array([16.0, 64.0, 256.0, 1024.0])
    y = x[:, None] ** -0.5 * np.exp(rng.normal(0, 0.05, (4, 8)))
    fit = fit_loglog(x, y, seed=1)
    assert fit.method == "bootstrap"
    assert fit.contains(-0.5)
    assert not fit.contains(-1.0)
    assert fit_loglog(x, y, seed=1) == fit  # same seed, same interval


@pytest.mark.parametrize(
    "x, y, msg",
    [
        ([1.0, 2.0, 3.0], [1.0, -1.0, 2.0], "y must be finite and > 0"),
        ([0.0, 2.0, 3.0], [1.0, 1.0, 2.0], "x must be finite and > 0"),
        ([1.0, 2.0], [1.0, 2.0], r"len\(x\) must be an integer in \[3, inf\]"),
    ],
)
def test_slope_fit_bad_input(x, y, msg) -> None:
    with pytest.raises(ValueError, match=msg):
        fit_loglog(np.array(x), np.array(y))


# ---------------------------------------------------------------- binomial test


def test_paired_change_limits_are_the_t_limits_of_the_paired_differences() -> None:
    y = np.array([[10.0, 12.0, 14.0, 11.0], [9.0, 13.0, 11.0, 11.0], [9.0, 13.0, 11.0, 11.0]])
    lims = paired_change_limits(y, 0.95)
    half = mean_half_width(np.array([-1.0, 1.0, -3.0, 0.0]), 0.95)
    assert lims[0] == pytest.approx([-0.75 - half, -0.75 + half]) and half > 0
    assert list(lims[1]) == [0.0, 0.0]  # no change at any seed: a point interval at 0
    for bad in (np.ones(3), np.ones((1, 3)), np.ones((3, 1))):
        with pytest.raises(ValueError, match="y must be"):
            paired_change_limits(bad, 0.95)


def test_difference_limits_are_welch_and_calibrated() -> None:
    """Welch's limits against scipy's Welch test, and at equal means the lower limit is above 0 in about
    5% of samples (unequal sizes and variances)."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(1.0, 1.0, 30), rng.normal(0.0, 3.0, 12)
    lo, hi = difference_limits(x, y, 0.95)
    p_lo = stats.ttest_ind(x, y, equal_var=False, alternative="greater").pvalue
    assert lo < x.mean() - y.mean() < hi
    assert difference_limits(x, y, 1 - p_lo)[0] == pytest.approx(0.0, abs=1e-10)
    lows = [difference_limits(rng.normal(0, 1, 30), rng.normal(0, 3, 12), 0.95)[0] for _ in range(4000)]
    assert 0.04 < np.mean(np.array(lows) > 0) < 0.06
    with pytest.raises(ValueError, match="x and y must be"):
        difference_limits(np.ones(1), np.ones(3), 0.95)


def test_rechecked_z_measures_again_only_above_the_allowance() -> None:
    """Stage 1 (RECHECK times the draws) runs only when stage 0 exceeds the allowance, and decides."""
    calls: list[tuple[int, int]] = []

    def z_of(z0: float, z1: float):
        def f(n: int, stage: int) -> tuple[float, str]:
            calls.append((n, stage))
            return (z0, "first") if stage == 0 else (z1, "second")

        return f

    assert rechecked_z(z_of(3.9, 9.0), 100, 4.0) == (3.9, "first") and calls == [(100, 0)]
    calls.clear()
    z, what = rechecked_z(z_of(4.7, 0.3), 100, 4.0)
    assert z == 0.3 and calls == [(100, 0), (100 * RECHECK, 1)]
    assert what.startswith("second; z 4.70 at 100 draws (first)")
    calls.clear()
    assert rechecked_z(z_of(4.7, 14.0), 100, 4.0)[0] == 14.0  # a real discrepancy stays


def test_clopper_pearson_bounds_are_calibrated() -> None:
    """At the true rate p, the one-sided 95% lower bound exceeds p in at most 5% of samples (and so
    does the upper bound fall below it): a holds (or violated) verdict is wrong at most 5% of the time."""
    rng = np.random.default_rng(0)
    n, p = 50, 0.9
    ks = rng.binomial(n, p, 4000)
    too_high = np.mean([clopper_pearson(int(k), n).lo > p for k in ks])
    too_low = np.mean([clopper_pearson(int(k), n).hi < p for k in ks])
    band = 3 * np.sqrt(0.05 * 0.95 / 4000)
    assert too_high <= 0.05 + band and too_low <= 0.05 + band
    power = np.mean([clopper_pearson(int(k), n).hi < p for k in rng.binomial(n, 0.6, 500)])
    assert power > 0.99


def test_clopper_pearson_bad_input() -> None:
    with pytest.raises(ValueError, match=r"k must be an integer in \[0, 10\]"):
        clopper_pearson(11, 10)
    with pytest.raises(ValueError, match="level must lie in"):
        clopper_pearson(5, 10, level=1.5)


# ---------------------------------------------------------------- gradient descent bookkeeping


def _gd_pair(params, loss_and_grad, eta, steps: int, **kw):
    """The same run with the default bookkeeping and with ``norms=False``."""
    from verify.numerics.gd import gradient_descent

    return (
        gradient_descent(params, loss_and_grad, eta, steps, **kw),
        gradient_descent(params, loss_and_grad, eta, steps, norms=False, **kw),
    )


def _same_run(a, b) -> None:
    """Bit-identical loss trajectory, extras, final params and end state; b has no norms recorded."""
    np.testing.assert_array_equal(a.loss, b.loss)
    assert a.extras.keys() == b.extras.keys()
    for k in a.extras:
        np.testing.assert_array_equal(a.extras[k], b.extras[k])
    pa = a.params.blocks() if hasattr(a.params, "blocks") else a.params
    pb = b.params.blocks() if hasattr(b.params, "blocks") else b.params
    for k in pa:
        np.testing.assert_array_equal(pa[k], pb[k])
    assert (a.state, a.stopped) == (b.state, b.stopped)
    assert len(a.grad_norm) == len(a.drift) == len(a.loss) > 0
    assert b.grad_norm.size == b.drift.size == 0 and all(v.size == 0 for v in b.drift_blocks.values())


def test_gd_without_norms_is_bit_identical_on_a_model() -> None:
    """yang2024's model (ParamBlocks, two blocks, per-block steps): the loss trajectory, a recorder's
    values and the final parameters are the same bits with and without the per-step norms."""
    from verify.yang2024 import data as D
    from verify.yang2024 import model as Ym

    rng = np.random.default_rng(0)
    p = D.make_problem(rng=rng, **D.SMALL)
    model = Ym.Transformer(12, excess=True)
    th0 = model.init(p, 1.0, rng)
    lg = lambda th: model.loss_and_grad(th, p)  # noqa: E731
    rec = {"gw_sq": lambda th, g, loss, t: float(np.sum(g["w"] ** 2))}
    a, b = _gd_pair(th0, lg, {"Q": 1e-3, "w": 9e-3}, 300, record=rec)
    _same_run(a, b)
    a, b = _gd_pair(th0, lg, {"Q": 1e-3, "w": 9e-3}, 300, stop_below=0.5 * a.loss[0])
    _same_run(a, b)
    assert b.stopped is not None and len(b.loss) < 301


def test_gd_without_norms_stops_at_the_same_step() -> None:
    """Divergence (an overflowing gradient, a non-finite loss) ends both runs at the same step."""
    grad_blowup = lambda p: (1.0, {"x": p["x"] * 1e100})  # noqa: E731  (x grows 999-fold per step)
    a, b = _gd_pair({"x": np.ones(3)}, grad_blowup, 1e-97, 40)
    _same_run(a, b)
    assert b.state == "diverged" and 10 < len(b.loss) < 40
    nan_loss = lambda p: (float("nan") if p["x"][0] < 0 else float(p["x"][0]), {"x": np.ones(1)})  # noqa: E731
    a, b = _gd_pair({"x": np.array([2.5])}, nan_loss, 1.0, 10)
    _same_run(a, b)
    assert b.state == "diverged" and len(b.loss) == 3


def _batched_lg(lg1):
    """A batched loss_and_grad that applies ``lg1`` to each run's slice (S runs on a leading axis)."""

    def lg(theta):
        out = [lg1({k: v[s] for k, v in theta.items()}) for s in range(next(iter(theta.values())).shape[0])]
        return np.array([o[0] for o in out]), {k: np.stack([o[1][k] for o in out]) for k in theta}

    return lg


def test_batched_gd_is_each_single_run() -> None:
    """Three runs on a leading axis, one converging early, one diverging, one completing: each run's
    loss, gradient norm, extras, parameters and end state are those of its own gradient_descent (the
    drift to round-off), and the stopped runs do not disturb the others."""
    from verify.numerics.gd import gradient_descent, gradient_descent_batched

    def lg1(th):  # a quadratic whose curvature is the run's own a^2: 0.05, 0.5 and 400 at eta 0.1
        c, q = th["a"][0] ** 2, float(np.sum(th["x"] ** 2))
        return (0.5 * c * q if q < 1e100 else math.nan), {"a": np.zeros(1), "x": c * th["x"]}

    a0 = np.array([[0.05**0.5], [0.5**0.5], [20.0]])  # the third diverges before the second converges
    x0 = np.array([[1.0, -2.0], [0.3, 0.1], [1.0, 1.0]])
    rec = {"x0": lambda th, g, loss, t: th["x"][..., 0]}
    kw = {"steps": 400, "stop_below": 1e-12}
    runs = gradient_descent_batched({"a": a0, "x": x0}, _batched_lg(lg1), 0.1, record=rec, **kw)
    states = []
    for s, tr in enumerate(runs):
        one = gradient_descent({"a": a0[s], "x": x0[s]}, lg1, 0.1, record=rec, **kw)
        for name in ("loss", "grad_norm"):
            np.testing.assert_array_equal(getattr(tr, name), getattr(one, name))
        np.testing.assert_allclose(tr.drift, one.drift, rtol=1e-14)
        np.testing.assert_array_equal(tr.extras["x0"], one.extras["x0"])
        for k in ("a", "x"):
            np.testing.assert_array_equal(tr.params[k], one.params[k])
        assert (tr.state, tr.stopped) == (one.state, one.stopped)
        states.append(str(tr.state))
    assert states == ["completed", "converged", "diverged"]


def test_batched_gd_steps_per_run_and_a_later_start() -> None:
    """One step size per run (S,) moves each run as its own gradient_descent at that step, with runs
    stopping apart (the per-run steps of the live ones); ``start`` continues runs from step t0 as the
    unbatched ``start`` does."""
    from verify.numerics.gd import gradient_descent, gradient_descent_batched

    lg1 = lambda th: (0.5 * float(np.sum(th["x"] ** 2)), {"x": th["x"].copy()})  # noqa: E731
    x0, etas = np.array([[1.0, -2.0], [0.3, 0.1], [4.0, 1.0]]), np.array([0.1, 0.7, 0.25])
    for start in (0, 5):
        runs = gradient_descent_batched(
            {"x": x0}, _batched_lg(lg1), {"x": etas}, 300, stop_below=1e-9, norms=False, start=start
        )
        for s, tr in enumerate(runs):
            one = gradient_descent(
                {"x": x0[s]}, lg1, {"x": etas[s]}, 300, stop_below=1e-9, norms=False, start=start
            )
            np.testing.assert_array_equal(tr.loss, one.loss)
            np.testing.assert_array_equal(tr.params["x"], one.params["x"])
            assert tr.state == one.state
        assert [str(r.state) for r in runs] == ["converged", "converged", "converged"]
        assert len({len(r.loss) for r in runs}) == 3  # each stopped at its own step
    for bad in (np.array([0.1, -1.0, 0.2]), np.array([0.1, 0.2])):
        with pytest.raises(
            ValueError, match=r"eta\['x'\] must be a positive number or 3 positive step sizes"
        ):
            gradient_descent_batched({"x": x0}, _batched_lg(lg1), {"x": bad}, 5)


def test_batched_gd_bad_input() -> None:
    from verify.numerics.gd import gradient_descent_batched

    with pytest.raises(ValueError, match="leading run axis"):
        gradient_descent_batched({"a": np.ones((2, 1)), "b": np.ones((3, 1))}, lambda th: (0, th), 0.1, 1)
    with pytest.raises(ValueError, match="at least one block"):
        gradient_descent_batched({}, lambda th: (0, th), 0.1, 1)


def test_work_buffers_reuse_grow_and_stay_per_thread() -> None:
    import threading

    from verify.numerics.buffers import WorkBuffers

    work = WorkBuffers()
    a = work.get("x", (2, 3))
    assert a.shape == (2, 3) and a.dtype == np.float64 and a.flags.c_contiguous
    assert np.shares_memory(a, work.get("x", (3, 2)))  # same size: the same memory
    assert np.shares_memory(work.get("x", (1, 2)), a)  # smaller: a view of it
    big = work.get("x", (4, 4))  # larger: a new array
    assert big.shape == (4, 4) and not np.shares_memory(big, a)
    assert not np.shares_memory(work.get("y", (4, 4)), big)  # names are separate
    other: list[np.ndarray] = []
    t = threading.Thread(target=lambda: other.append(work.get("x", (4, 4))))
    t.start()
    t.join()
    assert not np.shares_memory(other[0], big)  # threads are separate


def test_mean_half_width_is_the_t_interval_of_the_mean() -> None:
    from scipy import stats

    from verify.numerics.stats import mean_half_width

    x = np.array([1.0, 2.0, 4.0, 7.0])
    lo, hi = stats.t.interval(0.95, 3, loc=x.mean(), scale=stats.sem(x))  # two-sided, scipy's own
    assert mean_half_width(x, 0.975) == pytest.approx((hi - lo) / 2, rel=1e-12)
    one = stats.t.ppf(0.95, 3) * x.std(ddof=1) / 2.0  # one-sided 95%
    assert mean_half_width(x, 0.95) == pytest.approx(one, rel=1e-12)
    assert mean_half_width(x, 0.95) < mean_half_width(x, 0.975)
    with pytest.raises(ValueError, match="x must be"):
        mean_half_width(np.array([1.0]), 0.95)
    with pytest.raises(ValueError, match="q must be"):
        mean_half_width(x, 0.05)
