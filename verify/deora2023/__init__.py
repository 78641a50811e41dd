"""Deora, Ghaderi, Taheri, Thrampoulidis (TMLR 2024): optimization and generalization of multi-head attention.

The body of the paper (theorems, displayed formulas, appendix, figures) could not be read. What could:
the abstract; the arXiv listing (v1 Oct 2023, 48 pages; v2 Oct 2024, whose comment says it corrects a
miscalculation in the Hessian upper bound of Proposition 5); an AI-written summary of the paper
(THIRD-PARTY); and the abstract of its predecessor, Taheri and Thrampoulidis (JMLR 2024), whose
framework (realizability at distance g(eps), self-bounded weak convexity, algorithmic stability) the
paper extends to attention. The OpenReview (TMLR) page could not be read. The model and every
statement below are therefore our reconstruction, and every claim is DERIVED or RECONSTRUCTED (see
Provenance below).

Model (RECONSTRUCTED; ``model``). An example X is T tokens x_t in R^d stacked as rows (T, d), with
a label y in {-1, +1}. Head h has an attention matrix W_h (d, d) (key and query merged) and a value
and readout matrix U_h (T, d) (value and linear readout over positions merged)::

    A_h(X) = X W_h X^T                    (T, T)   row t is X W_h^T x_t
    S_h(X) = softmax_rows(A_h(X))         (T, T)   row-stochastic
    Phi(theta; X) = (1/sqrt(H)) sum_h <U_h, S_h(X) X>_F      scalar

theta = (U (H, T, d), W (H, d, d)), p = H (T d + d^2) parameters, all trained. The 1/sqrt(H) scaling
is our choice (the NTK-style scaling of the predecessor's two-layer networks; under 1/H the NTK
features would vanish like 1/sqrt(H)). Init I0 (ours): W_h = 0 (uniform attention), U_h entries iid
N(0, 1/(T d)) so |U_h| ~ 1, heads paired (U_{h+H/2} = -U_h, W_{h+H/2} = W_h), so Phi(theta_0; .) = 0.

Loss and training. Logistic loss l(z) = log(1 + e^-z); empirical risk L(theta) = (1/n) sum_i
l(y_i Phi(theta; X_i)); full-batch GD theta_{k+1} = theta_k - eta grad L(theta_k), eta = 1, with
hand-derived gradients and Hessian-vector products.

Data (RECONSTRUCTED; ``data``): the tokenized mixture. m_r = ceil(zeta T) random positions hold
relevant tokens mu_y + z_t, the others irrelevant tokens nu_j + z_t (j uniform on M_irr means), z_t ~
N(0, sigma^2 I_d), all means of norm S. Variant "O": all means orthogonal; variant "A": mu_- = -mu_+.
Defaults (a claim may set others): T = 6, d = 8, zeta = 1/3, S = 1, sigma = 0.05, M_irr = 4, variant O,
n = 40.

Notation in claim ids and parameters. T tokens, K GD steps (the predecessor uses T for steps), n
samples, H heads; ``Hs``, ``ns`` sweeps. L is the empirical risk, except in gen.* where L is the
population risk and L_hat the empirical one. |.| is the Euclidean norm (Frobenius for matrices).
R = max_t |x_t|; u = max_h |U_h|, ubar0 its value at init. beta_2 bounds |grad Phi| and
beta_3/sqrt(H) bounds |grad^2 Phi|. kappa (kappa_hat when measured) is the weak-convexity modulus,
lambda_min(grad^2 L) >= -kappa L; c = kappa D^2 with D = |theta - theta_ref|, a = c/(2 - c). gamma is
the NTK margin at init and theta_* its max-margin unit direction (gamma_U with the U block only); B0
bounds |Phi(theta_0; X_i)|; lam_eps theta_* reaches loss eps. Gamma is the expansiveness of GD in the
stability argument. ``eta1`` is the one-step init's step on W.

Assumptions (numbered by us; the paper's wording is NOT RECOVERED): A1 the loss is convex,
non-increasing, 1-Lipschitz, 1/4-smooth and self-bounded (|l'| <= l), as the logistic loss is;
A2 |x_t| <= R; A3 realizability: for every eps some theta has L <= eps within g(eps) of theta_0
(the predecessor's form); A4 NTK separability: y_i <grad Phi(theta_0; X_i), theta_* > >= gamma for a
unit theta_*; A5 "primitive conditions" on the init: B0, ubar0 and gamma at theta_0. The paper's
Assumption 2 is realizability (our A3), instantiated by NTK separability (A4) and an initialisation
near realizable parameters (A5): THIRD-PARTY, Yau, Akyurek, Mao, Tenenbaum, Jegelka, Andreas,
"Learning Linear Attention in Polynomial Time", class (A), quoting the authors' words.

Provenance of the formulas (theory side in ``bounds.deora2023``):

- EXACT (abstract, listing): GD converges and generalizes for single-layer multi-head attention under
  realizability; primitive conditions on the init; an instance on a tokenized-mixture model; the
  Hessian bound is Proposition 5 and was corrected in v2. No claim tests these directly.
- THIRD-PARTY (the summary): gradient and Hessian bounds for softmax attention; self-bounded weak
  convexity; guarantees that improve with H and with the quality of the init; NTK separability on the
  mixture after one step from a random init; margins that may be unattainable. THIRD-PARTY, class (A)
  (later papers citing it): Assumption 2 is realizability (above); the generalization bound is by
  on-average argument stability (Li, Guo, Lei, Ying, "Optimal Rates for Generalization of Gradient
  Descent for Deep ReLU Classification", and a further later paper), the kind of bound our D-gen is.
- THIRD-PARTY, class (B*) (an LLM extraction quoting the paper's experiment section,
  acmrep2026.k117.org): DM1 with n = 100, a test set of 300, 5 trials, theta(0) = 0, GD at step 1.0
  for the head-count figure; a planted model with n = 1000 and a test set of 3000; SST2 with RoBERTa
  and AdamW at 5e-6. The claims heads.loss and heads.loss.planted run the first two protocols (DM1
  read as our mixture; the planted model, NOT RECOVERED, as our data.Planted).
- RECONSTRUCTED by us: the model, I0, A1-A5, the mixture, and the paper-form statements judged by
  shape: L(theta_K) <= 2 L(theta_ref) + (5/4)|theta_ref - theta_0|^2/(eta K), rates O~(1/K) in
  training and O~(1/n) in test, lazy movement ~ H^-1/2, the one-step margin gain.
- DERIVED by us (proved for our model, checked numerically): the derivatives; the softmax facts;
  beta_2^2 = T R^2 + T R^6 (1/H) sum_h |U_h|^2 and beta_3 = sqrt(T) R^3 (1 + 2 R^2 u); the three
  self-bounded properties; generalized local quasi-convexity; our Theorem D-train,
  (1/K) sum_k L(theta_k) <= ((1+a)/(1-a)) L(theta_ref) + D_0^2/(2 eta (1-a) K) + (L_0 - L_K)/((1-a) K)
  when GD descends and c < 1, with its worst-case head count; our Theorem D-gen, E[L - L_hat](theta_K)
  <= (4 Gamma beta_2^2 eta / n) sum_{k<K} E L_hat(theta_k) when Gamma beta_2^2 eta K <= n/2;
  realizability from the NTK margin, L(theta_0 + lam_eps theta_*) <= eps with lam_eps =
  2 (B0 + log(1/eps))/gamma once sqrt(H) >= lam_eps beta_3(lam_eps)/gamma, and (B0 + log(1/eps))/gamma_U
  for every H along the U block; the mixture margins gamma_U = zeta S sqrt(T/2) (variant O) and
  zeta S sqrt(T) (variant A) at sigma = 0.
- NOT RECOVERED: every constant, exponent and probability of the paper; its head-count condition;
  its data models DM1 and "planted", its figures and their numbers.

No claim is the paper's own formula, so no verdict is a finding against the paper: a violated claim
is a mismatch of our reconstruction. ``verify/deora2023/derivations.md`` gives the definitions,
statements, proofs and provenance tags of every formula (the claims cite it as "derivation Sect. N");
``verify/deora2023/errata.md`` (printed under the paper's table in the report) lists how seeds combine,
the corrections to our derivations and every finding, with its numbers.
"""

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
