"""Yang, Huang, Liang, Chi (NeurIPS 2024): in-context learning with representations.

``data``: dictionary, representations, prompts; ``model``: the one-layer multi-head softmax model with
hand-derived gradients of the closed-form population loss; ``train``: GD runs (shared loop) and Adam;
``claims``: the spec's checkable claims.
"""
