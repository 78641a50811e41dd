"""Exact binomial test for probability claims ("with probability >= 1 - delta")."""

from __future__ import annotations

from dataclasses import dataclass

from scipy import stats

from bounds.checks import check_int, check_prob

#: Significance level of the one-sided test that rejects a probability claim.
ALPHA = 0.01


@dataclass(frozen=True)
class BinomialTest:
    """One-sided exact test of H0: p >= p0 against H1: p < p0 from ``k`` successes in ``n`` trials."""

    k: int
    n: int
    p0: float
    pvalue: float
    alpha: float

    @property
    def rejected(self) -> bool:
        """True when the data are significantly worse than the claimed probability ``p0``."""
        return self.pvalue < self.alpha


def binomial_test(k: int, n: int, p0: float, alpha: float = ALPHA) -> BinomialTest:
    """Exact one-sided binomial test (``scipy.stats.binomtest``, ``alternative='less'``)."""
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=0, high=n)
    p0 = check_prob("p0", p0, open_ends=False)
    alpha = check_prob("alpha", alpha)
    pvalue = float(stats.binomtest(k, n, p0, alternative="less").pvalue)
    return BinomialTest(k=k, n=n, p0=p0, pvalue=pvalue, alpha=alpha)
