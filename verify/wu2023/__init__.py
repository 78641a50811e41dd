"""Wu, Liu, Chrysos, Cevher 2023 (arXiv 2311.01575): encoder-only shallow transformer, GD convergence.

``model`` is the reference model with hand-derived gradients, ``data`` the data generators,
``claims`` the registered claims, ``errata.md`` what the code does differently from the spec.
"""
