"""zfb2024: the paper's model, notation and assumptions in your own words (the docs page prints
this docstring above the claims). Example: least squares f(w) = |X w - y|^2 / (2 N) with
X (N, d), y (N,), w (d,); its gradient X^T (X w - y) / N."""

from verify.core import PaperInfo

PAPER = PaperInfo(
    key="zfb2024",
    title="Trained Transformers Learn Linear Models In-Context",
    authors="Zhang, Frei, Bartlett",
    venue="JMLR 25(49) 2024",
    year=2024,
    arxiv="2306.09927",
    short="linear self-attention learns linear models in context: flow, limit, risk, shifts",
)
