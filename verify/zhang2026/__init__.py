"""Zhang, Zhao, Gu, Cao (ICLR 2026): position-only attention learning bilinear teachers.

The body of the paper (arXiv HTML and PDF) could not be read. What could: the abstract; the four
OpenReview reviews, which quote Lemma C.2, name the assumptions, Examples 2.1-2.4, Eqs. (2.1) and (2.4)
and Figs. 2(a)(b); two LLM-written notes on the paper (THIRD-PARTY); a summary of the predecessor
(Zhang, Meng, Cao, ICLR 2025), whose conventions (tokens [x_j; p_j], orthogonal positional encodings,
merged key-query matrix, column softmax, zero init) this paper extends. See Provenance below.

Teacher (Eq. 2.1; ``data``). Input X (d, D): D tokens of dimension d as columns, entries iid
N(0, sx2) (sx2 = 1 unless a claim sets it). Each column i of S* (D, D) has exactly K nonzero entries,
all 1/K, on its support G_i (so S* is column-stochastic); V* (M, d) holds M filters; sigma acts
entrywise::

    Y = f*(X) + E,    f*(X) = sigma(V* X S*)    (M, D),    E iid N(0, tau^2)

Examples as run (the D x D forms and the sizes are ours): 2.1 convolution + 2x2 average pooling on a
4x4 patch grid (block-diagonal S*, D = 16, K = 4); 2.2 graph convolution on a cycle, (A_G + I)/K
(D = 8, K = 3); 2.3 a fixed selected set g, 1_g 1^T / K (D = 8, K = 2, g drawn per seed); 2.4
group-sparse, e_j* 1^T (D = 8, K = 1).

Student (Eq. 2.4; ``model``). A fixed orthogonal P (D, D) (P^T P = I, our normalisation) and
position-only attention; trained parameters W_V (M, d) and W_KQ (D, D), both zero at init::

    Lam = P^T W_KQ P / sqrt(D)          (D, D)   entry (j, i): key j, query i
    A   = softmax over each column(Lam)  (D, D)   column-stochastic, independent of X
    TF(X) = sigma(W_V X A)              (M, D)

sigma is the identity (linear) or leaky ReLU with slope 0.1; at W_V = 0 we use sigma'(0) := 1 (with
sigma'(0) = 0 a ReLU student never leaves zero init; the paper's convention is NOT RECOVERED).

Loss and training. L = 1/2 E |Y - TF(X)|_F^2; claims report the excess L - 1/2 M D tau^2. GD on the
population loss, one step eta for both matrices, simultaneous updates, from zero (so A(0) is uniform
and the first step moves W_V only). The population loss is in closed form: only second moments enter
for linear sigma, an arc-cosine (dual-kernel) form for leaky ReLU with Gaussian inputs. Long runs use
exact scalar reductions such as (C1, g) below (checked against full-matrix GD); the examples,
protocol, nongauss, asym_init and digits claims run the full model, protocol and nongauss by online
mini-batch SGD (batch 100), the paper's experimental protocol.

Notation in claim ids and parameters:

- W_V = C1 V* (linear sigma); logits C2/sqrt(D) on the support and -C3/sqrt(D) off it, with
  K C2 = (D - K) C3; g = (C2 + C3)/sqrt(D) the gap; eps the attention mass off the support.
- T_0 = K (D - K)^2 / (2 eta sx2 |V*|_F^2), our proxy for the paper's threshold T*; ``tmax_T0`` a
  horizon in units of T_0; T_on the onset of the 1/T regime. ``vnorm`` = |V*|_F (V* Gaussian).
- OOD (Thm 3.2): A_T the teacher's OOD loss, B(T) = 1/2 E |f*(X~) - TF(X~)|_F^2, L_OOD the student's;
  X~ has Exp(1), centred Exp(1) or correlated Gaussian tokens; eps(T) is Thm 3.2's slack over A_T.
- ``N`` Monte Carlo or test samples, ``batch`` an SGD batch, ``steps`` a GD budget, ``tau`` the s.d.
  of the label noise.

Assumptions, numbered by us from the reviews and notes: A1 Gaussian inputs, population loss; A2
Gaussian target noise independent of X; A3 the teacher class above with 1 <= K < D; A4 D >=
poly(M, K) (notes); A5 eta <= O(1/(M D^2.5)) (notes); A6 zero init, GD, fixed orthogonal P,
position-only attention; A7 the conditions on sigma and the scale of V* are NOT RECOVERED.

Provenance of the formulas (theory side in ``bounds.zhang2026``):

- EXACT-from-reviews (abstract and reviews): the teacher class and the examples; the fixed orthogonal
  P and input-independent attention; Lemma C.2 (each row of W_V is a positive multiple of the row of
  V*); Theorem 3.1: A -> S*, W_V -> V*, excess Theta(1/T) with matching bounds, T* ~ D^2 and
  ~ 1/|V*|^2; Thm 3.2 needs more steps as |V*| grows; Gaussian data and noise; Exp(1) OOD inputs.
- THIRD-PARTY (the notes): the 1/sqrt(D) scaling, the loss, zero init, the W_KQ two-level form in
  C2, C3, A4 and A5, the constant K D^4/(eta T), Thm 3.2 as L_OOD <= teacher's OOD loss + eps, the
  OOD slope -1/2, the heatmaps, the full-transformer ablation, the MNIST experiment.
- RECONSTRUCTED by us: the column conventions, P^T P = I, the input and noise laws, the D x D
  examples, T_0 as T* and the [0.5, 2] envelope of thm31.bounds, sigma'(0) := 1, the experiments'
  protocol as run (batch, label noise, sizes, steps; ``protocol``), the OOD label mismatch of
  ``thm32.ood``, and the MNIST stand-in on scikit-learn's 8x8 digits (``digits``).
- QUESTION (a reviewer's question, not the paper's statement): non-Gaussian inputs (``nongauss``,
  reviewer 1) and non-uniform S* (``nonuniformS``, reviewer 4); our derived predictions answer them.
- DERIVED by us (checked numerically): the closed-form losses and gradients, P-invariance, the scalar
  reductions, K C2 = (D - K) C3, C1(1) = eta sx2, |A - S*|_F ~ T^-1/2, the tail constant
  T excess -> sum_i K_i (D - K_i)/(4 eta) = D K (D - K)/(4 eta) (so ~D^2, not D^4), T_0, the D = K
  and K = 0 cases, non-Gaussian inputs and non-uniform S*, the OOD bounds L_OOD <= (sqrt(A_T) +
  sqrt(B))^2 and B <= 1/2 |V*|_op^2 |S* - C1 A|_op^2 E|X~|_F^2, the step-size heuristic.
- NOT RECOVERED: T*, the constants of Theorem 3.1, eps(T) and the moment conditions of Thm 3.2, the
  paper's OOD label model, the experiments' D, d, M, eta, batch and lengths (only K is known: 4 for
  the CNN, 3 for the GCN, 9 for MNIST).

A violated DERIVED or RECONSTRUCTED claim is a mismatch of our reconstruction, not a finding against
the paper. ``verify/zhang2026/errata.md`` (printed under the paper's table in the report) says how
verdicts are reached and lists every departure and documented verdict with its numbers, with the
findings against the paper's own statements (none so far) kept apart.
"""

from verify.core.papers import PaperInfo

PAPER = PaperInfo(
    key="zhang2026",
    title="Transformers Trained via Gradient Descent Can Provably Learn a Class of Teacher Models",
    authors="Zhang, Zhao, Gu, Cao",
    venue="ICLR 2026",
    year=2026,
    arxiv="2603.22801",
    short="position-only attention learns bilinear teachers at rate 1/T",
)
