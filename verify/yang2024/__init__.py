"""Yang, Huang, Liang, Chi (NeurIPS 2024): in-context learning with representations.

Read from a text extraction of the arXiv version of 27 Sep 2024 (the camera-ready): its prose, the
statements of the theorems and assumptions, the figure captions and the experiment settings survived,
but nearly every displayed formula was lost. Each claim carries a provenance tag (see Provenance below).

Data (eq. 1; ``data``). A dictionary of K unit-norm tokens v_k in R^d (``V_all`` (d, K)) with
representations z_k = f(v_k) in R^m (``Zt`` (m, K)); f is arbitrary. A task lambda in R^m has labels::

    y_k = lambda^T (z_k + eps_k),    eps_k ~ N(0, tau I_m) iid,    k = 1..K

so the noise sits on the representation (given lambda, lambda^T eps_k ~ N(0, tau |lambda|^2)). Every
prompt holds the same first N < K tokens V = (v_1..v_N) (d, N) and their labels y (N,); the model
predicts all K labels. Z = (z_1..z_N) (m, N), Z_Q the other K - N columns. Tokens are Gaussian
directions (unit norm: Sec. 2, 'K unit-norm distinct tokens'; Sec. 4 draws them Gaussian),
z_k ~ N(0, I_m) independent of v_k, lambda ~ N(0, I_m) (out-of-domain: N(1_m, 4 I_m)).

Model (eq. 8; ``model``). H heads; trained parameters Q_h (d, d) and w_h (K,) (``Params``: ``Q``
(H, d, d), ``w`` (H, K)); no 1/sqrt(d) scaling, residual, LayerNorm or MLP::

    s_k^h = softmax(V^T Q_h v_k)          (N,)   softmax over the N prompt positions
    a_k   = sum_h w_{h,k} s_k^h           (N,)   A-hat = (a_1..a_K)  (N, K)
    y-hat_k = y^T a_k                     the prediction is linear in the prompt labels

C_k = (s_k^1..s_k^H) (N, H), B_k = Zbar C_k. Init: Q_h entries iid N(0, beta^2), w = 0 (beta = 1).

Loss. The population loss L = 1/2 E sum_k (y-hat_k - y_k)^2 in the closed form of Lemma 5::

    G = Z^T Z + m tau I_N,  Zbar = G^(1/2),  A = G^-1 (Z^T Zt + m tau [I_N, 0]) = [I_N, G^-1 Z^T Z_Q]
    L = 1/2 tr((A-hat - A)^T G (A-hat - A)) + L*,   Delta = L - L*  (curves report Delta)

with L* = inf L (the "+ m tau" of fresh target noise included). Training: gradient descent (7a/7b)
with eta_w = gamma^2 eta_Q and hand-derived gradients. The paper's smoothness constant L and its gamma
threshold are NOT RECOVERED, so the default rule is eta_w = 1/max_k lambda_max(B_k^T B_k) at init and
gamma = 3; thm1.rate, thm1.PL and thm2.iters run at half of it (see the errata). Fig. 2a (exp.fig2)
uses Adam on the same loss (lr 1e-4 at the paper's configuration). The 4-layer transformer of Figs. 2b
and 5 is not run.

Notation in claim ids and parameters:

- zeta_0 = min_k lambda_min(B_k B_k^T) at init; rho = 1 - eta_Q gamma^2 zeta_0 / 2 (Theorem 1).
- y-hat* = A^T y: copy the N prompt labels, predict the rest by ridge lambda-hat = (Z Z^T + m tau I)^-1
  Z y; the paper's "best" ridge lambda-hat_tau has penalty N tau. Y_delta bounds |y|^2 with
  probability 1 - delta when |lambda| <= B (``B_norm``).
- ``config`` "small" (K=40, N=6, d=8, m=4, tau=0.1) or "paper" (K=200, N=30, d=100, m=20,
  tau=0.01, Sec. 4); ``H_over_N`` sets H = H_over_N N, ``H_offsets`` H near N, ``deficits`` H = N - k;
  ``betas`` the init scale; ``gamma(s)``; ``steps`` a GD budget; ``prompts``, ``draws`` test prompts and
  Monte Carlo draws; ``Ns`` prompt lengths; ``eps``, ``delta`` Theorem 2's accuracy and probability.

Assumptions, numbered as in the camera-ready (a review calls A2 "Assumption 3"): A1 the entries of
lambda are independent, mean 0, variance 1; A2 every B_k at init has full row rank N, i.e. zeta_0 > 0
(our form; needs H >= N); A3 some coordinate of the prompt tokens takes N distinct values; A4 at
inference |lambda| <= B. Proposition 1: A1, A3 and H >= N with a Gaussian init give A2 almost surely.

Provenance of the formulas (theory side in ``bounds.yang2024``):

- EXACT: the data model, the fixed prompt tokens, the trained parameters and the form of eq. 8, the
  init, two-step-size GD with eta_w = gamma^2 eta_Q and eta_Q <= 1/L, A1, A3, A4, Proposition 1, the
  definitions of Z, Zbar, C_k, B_k, the statements "the closer m is to N, the better" (end of Sec.
  3.2, Fig. 3), "multi-head is necessary" and "larger H yields slower convergence rate" (Sec. 3.3),
  Sec. 4's settings.
- DERIVED by us (checked numerically): Lemma 5's closed form, A and L*, the gradients, the ridge forms
  and y-hat* = A^T y, the inference and copy bounds of Theorem 2, Lemma 4, the Fig. 3 gap, the LMMSE
  comparison, the H = 1 and H < N floors, zeta_0 ~ H.
- RECONSTRUCTED by us: the weight matrices behind eq. 8, the loss prefactor 1/2, A2's exact form,
  Theorem 1's rate (1 - eta_Q gamma^2 zeta_0 / 2)^t, the ridge and Theorem 2 normalisations, Y_delta and
  the sufficient iteration count T.
- NOT RECOVERED: L, the bound alpha-bar, the gamma threshold (eq. 15), the iteration count of eq. 21,
  the training lengths and tau of Figs. 2, 4, 5.

A violated DERIVED or RECONSTRUCTED claim is a mismatch of our reconstruction, not a finding against
the paper. ``verify/yang2024/errata.md`` (printed under the paper's table in the report) lists every
departure from the paper and the numbers behind each documented verdict, with the findings against the
paper's own (EXACT) statements kept apart.
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
