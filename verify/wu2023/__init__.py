"""Wu, Liu, Chrysos, Cevher (NeurIPS 2023): gradient descent on an encoder-only shallow transformer.

Only the abstract, the opening of the introduction, summaries of its sections and the five NeurIPS
reviews with the authors' replies could be read; the body of the paper (theorems, constants,
appendix) could not. Each claim therefore carries a provenance tag saying where its formula comes
from (see Provenance below).

Model (Eq. 1.2 as we read it; ``model``). An example X is d_s tokens of dimension d, stacked as rows
(shape (d_s, d)). Weights W_Q, W_K, W_V have shape (d_m, d) and w_O shape (d_m,)::

    S    = softmax_rows( tau0 (X W_Q^T)(X W_K^T)^T )     (d_s, d_s)
    h(X) = (1/d_s) relu(S X W_V^T)^T 1                   (d_m,)   ReLU, then average pooling
    f(X) = tau1 w_O^T h(X)                               scalar

- tau0 = d_m^-1/2 (Theorem 1) or d_m^-1 (Theorem 2; the attention then tends to uniform weights
  1/d_s, so the model approaches average pooling). Parameter ``tau0_power`` is 0.5 or 1.
- tau1 = 1 under LeCun and He init, d_m^-1/2 under NTK init.
- Inits, i.i.d. zero-mean Gaussian entries: LeCun W_Q, W_K, W_V variance 1/d and w_O 1/d_m; He twice
  LeCun; NTK variance 1 everywhere.
- The fixed matrix W_H after attention (the identity) is left out (flag ``use_WH``). All four blocks
  are trained by full-batch GD with one step gamma.
- Loss: l = 1/2 sum_n (f(X_n) - y_n)^2 (``loss_norm="mean"`` divides by N). Unless a claim says
  otherwise the step is gamma = 1/lambda_max(K_0): the paper's gamma = 1 diverges with the sum loss
  at the widths run here.

Notation in claim ids and parameters:

- N examples, d token dimension, d_s tokens per example, d_m width; ``regime`` "paper" (tokens
  N(0, I/d)) or "active" (tokens N(0, I)); ``widths``, ``Ns`` sweeps; ``steps`` a GD budget;
  ``frac`` a loss target (l <= frac l_0, l_0 the initial loss).
- F_pre (N, d_m): rows h(X_n); alpha = sigma_min(F_pre) at init. K = J J^T the (N, N) empirical NTK,
  K_0 at init, K_inf its infinite-width limit (NTK init, tau0 = d_m^-1).
- eta_V the variance of W_V; G the expected feature Gram, E[F_pre F_pre^T | W_Q, W_K] = d_m G;
  lambda_0 = lambda_min(G / eta_V), the data's non-degeneracy in the width functions; Zbar (N, d)
  the attention-weighted token means.
- Proposition 1: rho, z its Lipschitz constants, C_Q, C_K, C_V, C_O its radii, C1, C2 its
  conditions, reported as ratios (>= 1 means the condition holds).

Assumptions, numbered as the reviews list them (the paper's wording is not known):
A1 bounded data; A2 the tokens of each example are linearly independent; A3 two different examples
are dissimilar, as a tail bound with a constant c-hat on the inner product of their covariances
X_i^T X_i and X_j^T X_j (the paper checks it on IMDB and MNIST); A4 (tau0 = d_m^-1 only) a covariance
matrix is positive definite. Their exact forms and thresholds are NOT RECOVERED. ``assump3.tail`` uses
our tail form; ``assump3`` and ``assump3.digits`` use our pooled-input form of A3
(N sigma_min(Zbar)^2 / |Zbar|_F^2 bounded away from 0), which needs d >= N.

Provenance of the formulas (theory side in ``bounds.wu2023``):

- EXACT (abstract, introduction, section summaries): the two scalings; LeCun, He and NTK inits;
  softmax, ReLU, pooling and a linear output; "quadratic over-parameterisation suffices" (Theorem 1);
  "wider is faster". The experiment's settings (N = 100, LeCun, tau0 = d_m^-1/2, full-batch GD at
  gamma = 1 for 400 epochs, several widths) are the paper's sentences as a reproducibility page quotes
  them; ``emp.width`` runs them with the mean loss (paper profile at N = 100).
- EXACT-from-reviews: Theorem 2 needs only linear width and d growing like N^4; the assumption list;
  alpha = sigma_min(F_pre^0).
- QUESTION (a reviewer's question, not the paper's statement; a violation answers the reviewer): are
  the theorem widths tight (``thm1.tight``, ``thm2.tight``; ``thm1.tight.dgrow`` with d = 4N), is the
  step inversely proportional to N (``review.stepsize``). Our DERIVED answers to the other questions
  (pooling, d >= N, log plots) keep their tag.
- THIRD-PARTY, each naming its source (``source=``): "tau0 = d_m^-1/2 converges faster at larger
  widths" and "LeCun/He faster than NTK init" (``scaling.rate``, ``init.rate``: the liner.com summary,
  class B); the Fig. 9 caption at tau0 = d_m^-1, as the same summary reproduces it: linear convergence
  (``fig9.linear``), weights that change very slowly after about epoch 50 (``fig9.weights``) and an NTK
  that stays nearly constant later (``fig9.ntk``) and is more stable for wider models
  (``fig9.ntk.width``), the last three judged over draws (a typical run); "cubic width and d >= N"
  (``thm1.order.cubic``: Arda, Cayci and Eryilmaz 2026 via a summary, class A via B), judged on our
  reconstructed width beside the abstract's "quadratic" (``thm1.order``).
- RECONSTRUCTED by us: the exact Eq. 1.2 and tau1; the variance table; the loss normalisation;
  Proposition 1 (constants 8, 16, 1/4; rate (1 - gamma tau1^2 alpha^2 / 4)^t); the Theorem 1 and 2
  width functions (Prop. 1's conditions at Gaussian norm values); the NTK-regime rate; the A3 tail form.
- DERIVED by us (proved for the reconstructed model, checked numerically): the gradients; the
  softmax's 1/2-Lipschitz bound; the closed-form G (arc-cosine kernel) and its Hermite floor
  lambda_min(G) >= eta_V sigma_min(Zbar)^2 / 4, the origin of d >= N; the PL and NTK-floor
  inequalities; rho and z; K_inf and its eigenvalue bounds; the attention and Q/K decay rates.
- NOT RECOVERED: the paper's constants, radii and probabilities, Corollary 1, its comparison table,
  its data distributions. Where needed the code uses labelled choices of ours (e.g. C_b = |W_b^0|_2).

A violated DERIVED or RECONSTRUCTED claim is a mismatch of our reconstruction, not a finding against
the paper. ``verify/wu2023/errata.md`` lists every departure from the paper and the numbers behind each
documented verdict, with findings against the paper's own statements kept apart from those.
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
