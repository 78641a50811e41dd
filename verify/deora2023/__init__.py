"""Deora, Ghaderi, Taheri, Thrampoulidis -- On the Optimization and Generalization of Multi-head
Attention (TMLR 2024, arXiv 2310.12680). Reference model, data and claims; spec:
shared/papers/deora2023.md (most statements RECONSTRUCTED, with DERIVED replacements)."""
