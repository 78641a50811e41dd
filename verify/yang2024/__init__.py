"""Yang, Huang, Liang, Chi (NeurIPS 2024): in-context learning with representations.

``data``: dictionary, representations, prompts; ``model``: the one-layer multi-head softmax model with
hand-derived gradients of the closed-form population loss; ``train``: GD runs (shared loop) and Adam;
``claims``: the spec's checkable claims.
"""

from verify.core.papers import PaperInfo

PAPER = PaperInfo(
    key="yang2024",
    title="In-Context Learning with Representations: Contextual Generalization of Trained Transformers",
    authors="Yang, Huang, Liang, Chi",
    venue="NeurIPS 2024",
    year=2024,
    arxiv="2408.10147",
    short="in-context learning, multi-head softmax attention, ridge regression limit",
)
