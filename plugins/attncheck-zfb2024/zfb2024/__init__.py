"""Zhang, Frei, Bartlett (JMLR 25(49), 2024; arXiv 2306.09927 v3): a one-layer linear self-attention
(LSA) model trained by gradient flow on in-context linear regression. The full text (arXiv v3, 50
pages) was read; statement numbers are those of v3 (the JMLR numbering was not checked).

Model ((3.3)-(3.4); ``model``). A prompt of n examples (x_i, y_i) and a query x_q is embedded as
E = [[x_1 ... x_n x_q], [y_1 ... y_n 0]] (d + 1, n + 1); with W^PV, W^KQ (d + 1, d + 1)::

    f_LSA(E) = E + W^PV E (E^T W^KQ E) / rho,     y_hat = [f_LSA(E)]_{d+1, n+1}

rho = n: N for a training prompt, M for a test prompt. Only the last row of W^PV and the first d
columns of W^KQ reach y_hat (3.6); Lemma 5.1's U = [[W^KQ_11, w^PV_21], [(w^KQ_21)^T, w^PV_22]] collects
them (U11, u12, u21, u_{-1}).

Data (Sec. 3.3; ``data``). Lambda fixed positive definite; per prompt w ~ N(0, I_d), x_i, x_q iid
N(0, Lambda), y_i = <w, x_i> (noiseless). Loss (3.8): L = E (y_hat - <w, x_q>)^2 / 2. The central
matrix: Gamma = (1 + 1/N) Lambda + tr(Lambda) I_d / N, with E[S^2] = Gamma Lambda for
S = sum x_i x_i^T / N (A.7).

Assumption 3.3 (init): W^PV(0) = sigma e_{d+1} e_{d+1}^T, W^KQ(0) = sigma [[Theta Theta^T, 0], [0, 0]],
||Theta Theta^T||_F = 1 (balanced: u_{-1}(0)^2 = ||U11(0)||_F^2). Theorem 4.1 asks
sigma^2 ||Gamma||_op sqrt(d) < 2.

Training (``dynamics``). Gradient flow on the reduced dynamics (5.4) by scipy's solve_ivp (DOP853,
rtol 1e-12, atol 1e-14); gradient descent with small steps on all entries of (W^PV, W^KQ) with the
closed-form population gradient (``model.population_loss_and_grad``, derived in derivations.md Sect. 1);
hand-derived gradients, checked by attncheck's gradient checker. Random covariance (Sec. 4.3): the
ODE (C.4) with the exact Exp(1) moments (derivations.md Sect. 4).

Our sizes and draws: Lambda = Q diag(l) Q^T, Q Haar, l iid Uniform(0.5, 2) (kappa <= 4); Theta Theta^T
= M M^T / ||M M^T||_F, M iid N(0, 1); sigma^2 a declared fraction (0.5) of Theorem 4.1's bound; d = 3,
N = 6 unless a claim says otherwise.

Provenance. EXACT: the paper's statement, formulas carried over. DERIVED: ours, from exact statements
(the constant tr(Lambda)/2 of Lemma A.1, the exact finite-N forms of the Sec. 4.2 shifts, the exactness
condition of the orthogonal-query remark). Monte Carlo equalities are judged by an equivalence rule:
the 99% interval of the relative deviation from the closed form must lie below a declared margin
(holds) or above it (violated); ODE equalities at 1e-10.
"""

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
