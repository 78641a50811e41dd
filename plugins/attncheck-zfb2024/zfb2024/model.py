"""The one-layer linear self-attention model (3.3)-(3.4) of arXiv v3, with hand-derived gradients.

* :func:`embed` -- E = [[x_1 ... x_n x_q], [y_1 ... y_n 0]] (3.4), a leading batch axis;
* :func:`predict` -- y_hat = [E + W^PV E (E^T W^KQ E) / rho]_{d+1, n+1} (3.3), rho = n (N for a
  training prompt, M for a test prompt);
* :func:`loss_and_grad` -- the empirical loss (3.7) and its gradient in both (d+1) x (d+1) matrices;
* :func:`quadratic_form` -- Lemma 5.1's H = X (x) (E E^T / N) / 2 and u = Vec(U) (column-wise);
* :func:`population_loss_and_grad` -- the population loss (3.8) in closed form at every (W^PV, W^KQ)
  (Gaussian covariates, w ~ N(0, I_d); derivation in ``derivations.md``) and its gradient.
"""

from __future__ import annotations

import numpy as np


def embed(X: np.ndarray, y: np.ndarray, xq: np.ndarray, *, yq: np.ndarray | None = None) -> np.ndarray:
    """(3.4): X (B, n, d), y (B, n), xq (B, d) -> E (B, d + 1, n + 1); the query's label slot holds 0
    (``yq``: the alternative embedding that writes the query's label there instead)."""
    B, n, d = X.shape
    if y.shape != (B, n) or xq.shape != (B, d):
        raise ValueError(f"y must be (B, n) = {(B, n)} and xq (B, d) = {(B, d)}, got {y.shape}, {xq.shape}")
    E = np.zeros((B, d + 1, n + 1))
    E[:, :d, :n] = X.transpose(0, 2, 1)
    E[:, d, :n] = y
    E[:, :d, n] = xq
    if yq is not None:
        E[:, d, n] = yq
    return E


def predict(Wpv: np.ndarray, Wkq: np.ndarray, E: np.ndarray, rho: float) -> np.ndarray:
    """(3.3): y_hat = [E + W^PV E (E^T W^KQ E) / rho]_{d+1, n+1} for each prompt (B,)."""
    if not rho > 0:
        raise ValueError(f"rho must be > 0, got {rho}")
    q = E[:, :, -1]  # (B, d+1): the query column
    keys = np.einsum("bjn,bj->bn", E, q @ Wkq.T)  # E^T W^KQ q
    att = np.einsum("bin,bn->bi", E, keys) / rho  # E E^T W^KQ q / rho
    return E[:, -1, -1] + att @ Wpv[-1]


def loss_and_grad(
    Wpv: np.ndarray, Wkq: np.ndarray, E: np.ndarray, target: np.ndarray, rho: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """(3.7): L = sum_b (y_hat_b - target_b)^2 / (2 B) and its gradients: with Z = E E^T / rho and q
    the query column, d y_hat / d W^PV = e_{d+1} (Z W^KQ q)^T and d y_hat / d W^KQ = Z W^PV^T e_{d+1} q^T."""
    q = E[:, :, -1]
    Z = np.einsum("bin,bjn->bij", E, E) / rho
    zq = np.einsum("bij,jk,bk->bi", Z, Wkq, q)  # Z W^KQ q
    r = E[:, -1, -1] + zq @ Wpv[-1] - target
    B = E.shape[0]
    g_pv = np.zeros_like(Wpv)
    g_pv[-1] = r @ zq / B
    zp = Z @ Wpv[-1]  # Z W^PV^T e_{d+1}: Z is symmetric
    g_kq = np.einsum("b,bi,bk->ik", r, zp, q) / B
    return float(0.5 * np.mean(r * r)), g_pv, g_kq


def u_matrix(Wpv: np.ndarray, Wkq: np.ndarray) -> np.ndarray:
    """Lemma 5.1's U = [[W^KQ_11, w^PV_21], [(w^KQ_21)^T, w^PV_22]]."""
    d = Wpv.shape[0] - 1
    U = np.empty_like(Wpv)
    U[:d, :d] = Wkq[:d, :d]
    U[:d, d] = Wpv[d, :d]
    U[d, :d] = Wkq[d, :d]
    U[d, d] = Wpv[d, d]
    return U


def quadratic_form(E: np.ndarray, N: int) -> np.ndarray:
    """(5.1): H = X (x) (E E^T / N) / 2 with X = [[0, x_q], [x_q^T, 0]], for one prompt E (d+1, N+1);
    y_hat = u^T H u with u = Vec(U), the column-wise Vec (``U.ravel("F")``)."""
    d = E.shape[0] - 1
    X = np.zeros((d + 1, d + 1))
    X[:d, d] = X[d, :d] = E[:d, -1]
    return 0.5 * np.kron(X, E @ E.T / N)


def _blocks(Wpv: np.ndarray, Wkq: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """The four blocks y_hat reads (3.6): a = w^PV_21, b = w^PV_22, A = W^KQ_11, c = w^KQ_21."""
    d = Wpv.shape[0] - 1
    return Wpv[d, :d], float(Wpv[d, d]), Wkq[:d, :d], Wkq[d, :d]


def population_loss_and_grad(
    Wpv: np.ndarray, Wkq: np.ndarray, lam: np.ndarray, N: int, scale: float = 1.0
) -> tuple[float, np.ndarray, np.ndarray]:
    """(3.8) in closed form: L = E (y_hat - <w, x_q>)^2 / 2 over x_i, x_q ~ N(0, Lambda), w ~ N(0, I_d),
    for every (W^PV, W^KQ), and its gradient (only the blocks of :func:`_blocks` are non-zero).

    With S = sum x_i x_i^T / N, r = a + b w: y_hat = scale [v^T x_q + (a^T x_q)(x_q^T A x_q) / N],
    v = A^T S r + c (r^T S w). ``scale``: N / rho (1 for the paper's rho = N)."""
    a, b, A, c = _blocks(Wpv, Wkq)
    d = A.shape[0]
    t, I = float(np.trace(lam)), np.eye(d)
    G = (1 + 1 / N) * lam @ lam + t / N * lam  # E[S^2] = Gamma Lambda (A.7)
    R = G + t * lam + 2 / N * lam @ lam  # E[S^2] + E[tr(S) S]
    phi = t * t + 2 / N * np.trace(lam @ lam) + 2 * np.trace(G)  # E[(w^T S w)^2]
    la, lc = lam @ a, lam @ c
    # E[v^T Lambda v] = tr(F(B) P) + 2 b a^T R A Lambda c + kappa (a^T G a + b^2 phi)
    Bm = A @ lam @ A.T
    FB = (1 + 1 / N) * lam @ Bm @ lam + np.trace(Bm @ lam) / N * lam  # E[S B S]
    P = np.outer(a, a) + b * b * I
    kappa, aGa, rac = float(c @ lc), float(a @ G @ a), float(a @ R @ A @ lc)
    V = float(np.trace(FB @ P)) + 2 * b * rac + kappa * (aGa + b * b * phi)
    gV_a = 2 * FB @ a + 2 * b * R @ A @ lc + 2 * kappa * G @ a
    gV_b = 2 * b * np.trace(FB) + 2 * rac + 2 * kappa * b * phi
    lpl = lam @ P @ lam
    gV_A = 2 * (1 + 1 / N) * lpl @ A @ lam + 2 / N * np.trace(lam @ P) * lam @ A @ lam
    gV_A += 2 * b * np.outer(R @ a, lc)
    gV_c = 2 * b * lam @ A.T @ R @ a + 2 * lc * (aGa + b * b * phi)
    # (2 / N) m^T h, m = E[v] = A^T Lambda a + b tr(Lambda) c, h = Hh a,
    # Hh = tA Lambda + Lambda (A + A^T) Lambda
    tA = float(np.trace(A @ lam))
    Hh = tA * lam + lam @ (A + A.T) @ lam
    m = A.T @ la + b * t * c
    h = Hh @ a
    mh = float(m @ h)
    g2_a = Hh @ m + lam @ A @ h
    g2_b = t * float(c @ h)
    g2_c = b * t * h
    g2_A = np.outer(la, h) + float(m @ la) * lam + np.outer(lam @ m, la) + np.outer(la, lam @ m)
    # Q6 / N^2, Q6 = E[(a^T x)^2 (x^T C x)^2], C = (A + A^T) / 2, alpha = Lambda a
    C = 0.5 * (A + A.T)
    aa, cl = float(a @ la), C @ lam
    tcc = float(np.trace(cl @ cl))
    lca = lam @ C @ la
    q6 = aa * (tA * tA + 2 * tcc) + 8 * float(la @ C @ lca) + 4 * tA * float(la @ C @ la)
    g6_a = 2 * la * (tA * tA + 2 * tcc) + 16 * lam @ C @ lca + 8 * tA * lca
    g6_C = aa * (2 * tA * lam + 4 * lam @ C @ lam) + 8 * (np.outer(la, lca) + np.outer(lca, la))
    g6_C += 4 * (float(la @ C @ la) * lam + tA * np.outer(la, la))
    # E[y_hat <w, x_q>] = scale (b tr(A Lambda^2) + a^T Lambda^2 c)
    l2 = lam @ lam
    cross = b * float(np.trace(A @ l2)) + float(a @ l2 @ c)
    s2 = scale * scale
    loss = 0.5 * s2 * (V + 2 / N * mh + q6 / N**2) - scale * cross + 0.5 * t
    g_a = 0.5 * s2 * (gV_a + 2 / N * g2_a + g6_a / N**2) - scale * l2 @ c
    g_b = 0.5 * s2 * (gV_b + 2 / N * g2_b) - scale * float(np.trace(A @ l2))
    g_A = 0.5 * s2 * (gV_A + 2 / N * g2_A + g6_C / N**2) - scale * b * l2
    g_c = 0.5 * s2 * (gV_c + 2 / N * g2_c) - scale * l2 @ a
    g_pv, g_kq = np.zeros_like(Wpv), np.zeros_like(Wkq)
    g_pv[d, :d], g_pv[d, d] = g_a, g_b
    g_kq[:d, :d], g_kq[d, :d] = g_A, g_c
    return float(loss), g_pv, g_kq


def bilinear(
    Wpv: np.ndarray, Wkq: np.ndarray, X: np.ndarray, rho: float, *, label_in_query: bool = False
) -> np.ndarray:
    """With w^PV_21 = w^KQ_21 = 0 the prediction on a prompt with covariates X (B, n, d) and noiseless
    labels is bilinear, y_hat = x_q^T M w: M (B, d, d), M_jk = y_hat at (x_q, w) = (e_j, e_k), computed
    by the model (3.3) itself. ``label_in_query``: the alternative embedding that writes the query's
    label into E (y_hat then gains <w, x_q>)."""
    B, _, d = X.shape
    if np.any(Wpv[d, :d] != 0.0) or np.any(Wkq[d, :d] != 0.0):
        raise ValueError("bilinear needs w^PV_21 = w^KQ_21 = 0 (y_hat bilinear in x_q and w)")
    Mx = np.empty((B, d, d))
    basis = np.eye(d)
    for k in range(d):
        for j in range(d):
            xq = np.broadcast_to(basis[j], (B, d))
            yq = np.full(B, basis[j, k]) if label_in_query else None
            Mx[:, j, k] = predict(Wpv, Wkq, embed(X, X[:, :, k], xq, yq=yq), rho)
    return Mx


def task_query_risk(Mx: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """E over w and x_q of (x_q^T M w - <w, x_q>)^2 per prompt (B,): tr((M - I)^T Lambda (M - I)), exact
    for any task law with mean 0 and covariance I_d and any query law with mean 0 and covariance Lambda."""
    e = Mx - np.eye(Mx.shape[1])
    return np.einsum("bji,jl,bli->b", e, lam, e)


def query_vector(Wpv: np.ndarray, Wkq: np.ndarray, X: np.ndarray, y: np.ndarray, rho: float) -> np.ndarray:
    """With w^PV_21 = 0 the prediction is linear in the query, y_hat = v^T x_q: v (B, d), v_j = y_hat at
    x_q = e_j on the prompts (X, y), computed by the model (3.3) itself."""
    B, _, d = X.shape
    if np.any(Wpv[d, :d] != 0.0):
        raise ValueError("query_vector needs w^PV_21 = 0 (y_hat linear in x_q)")
    basis = np.eye(d)
    return np.stack(
        [predict(Wpv, Wkq, embed(X, y, np.broadcast_to(basis[j], (B, d))), rho) for j in range(d)], 1
    )
