"""Experiments of :mod:`verify.wu2023.claims.stepsize`: the largest stable GD step of the linearised
model."""

from __future__ import annotations

from verify.wu2023.experiments.runs import Point, lam_max


def stable_step(p: Point) -> float:
    """The largest stable GD step of the linearised model: 2 / lambda_max(K_0) for the sum loss, 2 N /
    lambda_max(K_0) for the mean loss (its Gauss-Newton Hessian is K_0 / N)."""
    s = p.setup()
    return (p.N if p.loss_norm == "mean" else 1) * 2.0 / lam_max(s.model, s.theta0, s.batch)
