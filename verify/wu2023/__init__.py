"""Wu, Liu, Chrysos, Cevher 2023 (arXiv 2311.01575): encoder-only shallow transformer, GD convergence.

``model`` is the reference model with hand-derived gradients, ``data`` the data generators,
``claims`` the registered claims, ``errata.md`` what the code does differently from the spec.
"""

from verify.core.papers import PaperInfo

PAPER = PaperInfo(
    key="wu2023",
    title="On the Convergence of Encoder-only Shallow Transformers",
    authors="Wu, Liu, Chrysos, Cevher",
    venue="NeurIPS 2023",
    year=2023,
    arxiv="2311.01575",
    short="encoder-only shallow transformer: GD convergence, widths, NTK",
)
