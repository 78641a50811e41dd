"""Experiments of ``claims/full_tf.py``: online GD of the full one-layer TF on tokens [X; P]."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verify.core import Ctx, experiment
from verify.numerics.gd import gradient_descent
from verify.numerics.softmax import softmax
from verify.zhang2026 import data as D
from verify.zhang2026 import model as M
from verify.zhang2026.experiments.runs import LEAKY, LIN, Size, circulant_problem


@dataclass(frozen=True)
class Shares:
    """Full one-layer TF after online GD: feature-block share of ||W_V||^2, position-block share of
    ||W_KQ||^2, the position block's attention against S* (max |S(W_KQ[d:, d:]) - S*| at steps // 10 and
    at the end; whether the top-K entries of every column are on G_i), a note, and the attention error
    after every step (``attn_curve``, index t)."""

    act: str
    feature_share: float
    position_share: float
    attn_err_early: float
    attn_err: float
    support: bool
    note: str
    attn_curve: tuple[float, ...] = ()


#: Token mixing of the full-TF teacher: ``position`` is the paper's S* (fixed, input-independent);
#: ``content`` mixes tokens by their features, S(X) = column-softmax(X^T X) (reviewer 4's contrast with
#: Wang et al. 2024, where the attention must read the input): the alternative world of ``fullTF``.
MIXINGS = ("position", "content")


@experiment
def full_tf_shares(
    ctx: Ctx,
    sz: Size,
    eta: float,
    vnorm: float,
    N: int,
    steps: int,
    acts: Sequence[str] = ("linear", "leaky"),
    mixing: str = "position",
) -> list[Shares]:
    """Online GD (a fresh batch of N Gaussian inputs per step, noise-free labels, stream (2, k) with k
    the index of the activation in (linear, leaky)) of the full one-layer TF from zero init, for each
    activation in ``acts``; the teacher mixes tokens by S* (``mixing="position"``) or by
    column-softmax(X^T X) (``"content"``, :data:`MIXINGS`)."""
    if mixing not in MIXINGS:
        raise ValueError(f"mixing must be one of {MIXINGS}, got {mixing!r}")
    S, V, P = circulant_problem(ctx.rng(1), sz, vnorm)
    d, out = sz.d, []
    for k, act in enumerate((LIN, LEAKY)):
        if act.name not in acts:
            continue
        brng, model = ctx.rng(2, k), M.FullTF(act)

        def lg(th: M.Params, act: M.Act = act, brng: np.random.Generator = brng, model: M.FullTF = model):
            X = brng.standard_normal((N, d, sz.D))  # a fresh batch every step (online GD)
            mix = S if mixing == "position" else softmax(np.swapaxes(X, 1, 2) @ X, axis=-2)
            return model.loss_and_grad(th, D.Sample(X, act(np.matmul(V, X) @ mix), P))

        def err(th: dict, *_: object) -> float:
            return float(np.abs(M.attention(th["W_KQ"][d:, d:], P) - S).max())

        tr = gradient_descent(
            M.Params.zeros(sz.M, d + sz.D, d + sz.D), lg, eta, steps, norms=False, record={"err": err}
        )
        Wv, W = tr.params.W_V, tr.params.W_KQ
        fv = float(np.sum(Wv[:, :d] ** 2) / np.sum(Wv**2))
        fk = float(np.sum(W[d:, d:] ** 2) / np.sum(W**2))
        cos = float(np.sum(Wv[:, :d] * V) / (np.linalg.norm(Wv[:, :d]) * np.linalg.norm(V)))
        A = M.attention(W[d:, d:], P)
        top = np.argsort(-A, axis=0, kind="stable")[: sz.K]
        support = all(set(top[:, i].tolist()) == set(np.nonzero(S[:, i])[0].tolist()) for i in range(sz.D))
        e = tr.extras["err"]
        note = (
            f"{act.name}: loss {tr.loss[0]:.3g} -> {tr.loss[-1]:.3g}; cos(W_V[:, :d], V*) = {cos:.4f}; "
            f"max |S(W_KQ[d:, d:]) - S*| = {e[steps // 10]:.3f} (t = {steps // 10}) -> {e[-1]:.3f} "
            f"(t = {steps}); shares: W_V feature block {fv:.3f}, W_KQ position block {fk:.3f}"
        )
        out.append(Shares(act.name, fv, fk, float(e[steps // 10]), float(e[-1]), support, note, tuple(e)))
    return out
