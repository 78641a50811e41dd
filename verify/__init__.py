"""Experiment side of attncheck: reference models, data, claims, and the claim tests.

``verify.core`` is the claim framework, ``verify.numerics`` the shared numerics, and each paper has
a package ``verify.<paper>`` (model, data, ``claims.py``, ``errata.md``).
"""
