"""The claims of Zhang, Zhao, Gu, Cao (ICLR 2026), one module per part of the paper; importing this
package registers every ``zhang2026.*`` claim.

Multi-part pass rules. Several claims list more than one pass condition (a slope window AND a constant
AND a max-entry bound ...). Such claims use :class:`verify.core.conditions.Conditions`: an ``upper``
claim with theory 1 and measured the worst normalised violation max_k r_k, judged by the shared upper
rule (holds iff every condition holds); every r_k is listed in the notes.

Rate claims on deterministic curves. A least-squares slope of a smooth deterministic curve has a t-CI of
width ~1e-4, while the finite-T bias of the local slope is ~log(T)/T (here -0.003 linear to -0.012 leaky
ReLU at 10^4 T_0); "CI contains -1" then fails for every finite window. The pass rule of these claims is
a window on the fitted tail slope (the rule ``slope_halfwidth``: closed form or Monte Carlo), which is
what is judged; the t-CI, the local slopes over successive decades (which converge to the exponent) and
a fit of the derived asymptotic form log e = c - p log T + (a log T + b)/T are reported in the notes and
series.
"""

from verify.zhang2026.claims import closed_forms, examples, invariants, reviewers, thm31, thm32, variants

__all__ = ["closed_forms", "examples", "invariants", "reviewers", "thm31", "thm32", "variants"]
