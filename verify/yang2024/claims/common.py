"""What two or more yang2024 claim modules share: the step and the PL premise of the Theorem 1 runs
(thm1, thm1_pl, thm2_iters) and the paper's words on what the trained transformer computes (ridge,
thm2)."""

from __future__ import annotations

from verify.core import Rule

#: eta_Q = STEP_FACTOR / (gamma^2 max_k lambda_max(B_k^(0)T B_k^(0))) in the Theorem 1 runs (see thm1.rate)
STEP_FACTOR = 0.5
PL_FRACTION = Rule(0.5, "the PL premise lambda_min(B_k^(t) B_k^(t)T) >= fraction zeta_0", "paper Thm 1 (43b)")

#: The paper's own words on what the trained transformer computes (the limit claims quote them).
AFTER_THEOREM_2 = (
    "Yang, Huang, Liang, Chi, arXiv 2408.10147, public full text of 27 Sep 2024 (the paper "
    "itself), Sec. 3.2 after Theorem 2: '(22) shows that after training, the transformer learns "
    "to output the given labels of the first N tokens in each prompt, and ... predicts the labels"
    " of the rest K - N tokens by implementing the ridge regression given in (20)'; Sec. 4: "
    "'after sufficient training, the output of the transformer y-hat converges to y-hat*' (eqs. "
    "(20)-(22) are lost in the copy)"
)
