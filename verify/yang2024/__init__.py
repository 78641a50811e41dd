"""Yang, Huang, Liang, Chi (NeurIPS 2024): in-context learning with representations.

Data (``data``): K unit-norm tokens v_k in R^d (V_all (d, K)), representations z_k = f(v_k) in R^m
(Zt (m, K); Z = prompt part (m, N), Z_Q the rest), tasks lambda ~ N(0, I_m) (OOD: N(1, 4 I_m)),
labels y_k = lambda^T (z_k + eps_k), eps_k ~ N(0, tau I_m); a prompt holds the first N tokens. EXACT.
Model (``model``): H heads, Params Q (H, d, d), w (H, K); y-hat_k = sum_h w_{h,k} y^T softmax(V^T Q_h
v_k) (eq. 8; the parameterisation is RECONSTRUCTED, the prediction formula EXACT in substance).
Loss: the closed-form population loss of Lemma 5, L = 1/2 tr(R^T G R) + L*, R = A-hat - A,
G = Z^T Z + m tau I (DERIVED, with the + m tau of fresh target noise). Training (``experiments``):
GD from Q ~ N(0, beta^2), w = 0 with eta_w = gamma^2 eta_Q, eta_w = 1/max_k lambda_max(B_k^T B_k) at
init, gamma = 3 (the suite's default step rule; the paper's L is NOT RECOVERED; thm1.rate, thm1.PL
and thm2.iters use half of it, so that eta_Q <= 1/L is not contradicted), and Adam for Fig. 2a.
Theorem 1's rate rho = 1 - eta_Q gamma^2 zeta_0 / 2 and Theorem 2's Y_delta and T are RECONSTRUCTED; the ridge
identities, inference and copy bounds DERIVED. ``claims``: one module per part of the paper; claims
that hold by construction are flagged as consistency checks.
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
