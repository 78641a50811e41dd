"""Deora, Ghaderi, Taheri, Thrampoulidis -- On the Optimization and Generalization of Multi-head
Attention (TMLR 2024, arXiv 2310.12680). Reference model, data and claims. The paper body was not
available: most statements are RECONSTRUCTED, with DERIVED replacements (see errata.md)."""

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
