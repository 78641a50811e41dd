"""The claims of zfb2024 (arXiv 2306.09927 v3), one module per part of the paper; importing this
package registers them."""

from zfb2024.claims import flow, gd, lemmas, random_cov, risk, shifts

__all__ = ["flow", "gd", "lemmas", "random_cov", "risk", "shifts"]
