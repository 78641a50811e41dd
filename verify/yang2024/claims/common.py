"""What two or more yang2024 claim modules share: the paper's full text as every quote cites it and the
passages several claims quote (Theorem 1: thm1, thm1_pl; after Theorem 2: ridge, thm2), the step and the
PL premise of the Theorem 1 runs (thm1, thm1_pl, thm2_iters), the numerical rank of C_k (lemma5,
prop1)."""

from __future__ import annotations

from verify.core import Choice, Rule

#: The source of every quote from the paper itself; the quote goes on with the place it cites.
FULL_TEXT = "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper itself), "
#: Theorem 1 as the public full text states it (its constants are lost in the copy).
THEOREM_1 = (
    "Sec. 3.1, Theorem 1: 'Suppose Assumptions 1, 2 hold. We let w_k^(0) = 0 and set the learning rates as "
    "in (16)', eq. (16) 'eta_Q <= 1/L and eta_w = gamma^2 eta_Q'; 'the training loss converges to its "
    "minimum value at a linear rate' (L, zeta_0, the gamma threshold (15) and the rate (18) are lost in the "
    "copy)"
)
#: The paper's own words on what the trained transformer computes (the limit claims quote them).
AFTER_THEOREM_2 = FULL_TEXT + (
    "Sec. 3.2 after Theorem 2: '(22) shows that after training, the transformer learns to output the given "
    "labels of the first N tokens in each prompt, and ... predicts the labels of the rest K - N tokens by "
    "implementing the ridge regression given in (20)'; Sec. 4: 'after sufficient training, the output of the "
    "transformer y-hat converges to y-hat*' (eqs. (20)-(22) are lost in the copy)"
)

#: eta_Q = STEP_FACTOR / (gamma^2 max_k lambda_max(B_k^(0)T B_k^(0))) in the Theorem 1 runs (see thm1.rate)
STEP_FACTOR = 0.5
PL_FRACTION = Rule(0.5, "the PL premise lambda_min(B_k^(t) B_k^(t)T) >= fraction zeta_0", "paper Thm 1 (43b)")
#: numerical rank N of C_k (yang2024.Lstar_attained, yang2024.prop1)
RANK_ULPS = Choice(
    Rule(1e3, "rank N means sigma_min > rank_ulps eps ||C_k||_2", "attncheck"),
    range=(10.0, 1e6),
    reason="numerical rank N: sigma_min above 10 to 1e6 ulps of ||C_k||_2",
)
