"""Deora, Ghaderi, Taheri, Thrampoulidis -- On the Optimization and Generalization of Multi-head
Attention (TMLR 2024, arXiv 2310.12680). Reference model, data and claims; spec:
shared/papers/deora2023.md (most statements RECONSTRUCTED, with DERIVED replacements)."""

from verify.core.papers import PaperInfo

PAPER = PaperInfo(
    key="deora2023",
    title="On the Optimization and Generalization of Multi-head Attention",
    authors="Deora, Ghaderi, Taheri, Thrampoulidis",
    venue="TMLR 2024",
    year=2024,
    arxiv="2310.12680",
    short="multi-head attention: optimization and generalization of GD",
)
