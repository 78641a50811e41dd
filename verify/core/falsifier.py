"""A claim's falsifier on demand: its alternative world run, with that world's resolution
(:mod:`verify.core.resolution`; ``attncheck alternatives``)."""

from __future__ import annotations

import time
from typing import Any

from verify.core.record import Verdict, to_jsonable
from verify.core.registry import get_claim
from verify.core.resolution import bisect_override, entry, numeric_override
from verify.core.runner import run_claim


def resolve_alternative(claim: Any, *, profile: str = "quick", seed: int = 0) -> dict[str, Any]:
    """Run ``claim``'s alternative world (a re-judged one: the paper run, which judges it) and measure
    its resolution (:mod:`verify.core.resolution`; a numeric override costs
    :data:`~verify.core.resolution.OVERRIDE_STEPS` more runs).

    Returns ``{"claim", "world", "rejudged", "verdict", "expected", "premises", "resolution", "runs",
    "wall_time"}``; verdict is None when the run judged no alternative (a binomial claim's re-judged
    one is not judged); premises is False for a claim that leaves its premises at this profile's sizes
    (expected ``out_of_regime``: judged, and falsified, in the paper profile).
    """
    c = get_claim(claim) if isinstance(claim, str) else claim
    alt = c.record.alternative
    if alt is None:
        raise ValueError(f"claim {c.id!r} names no alternative world")
    start, runs = time.perf_counter(), 1
    out = {
        "claim": c.id,
        "world": alt.describe(),
        "rejudged": alt.rejudged,
        "expected": str(alt.expect),
        "premises": c.record.expected(profile) != Verdict.OUT_OF_REGIME,
    }
    if alt.rejudged:
        r = run_claim(c, profile=profile, seed=seed)
        judged = r.alternative or {}
        verdict, res = judged.get("verdict"), judged.get("resolution")
        if r.alternative is None:
            kind = "factor" if alt.factor is not None else "exponent shift"
            res = entry(kind, None, None, f"the alternative was not judged (the paper world: {r.verdict})")
    else:
        r = run_claim(c, profile=profile, seed=seed, world="alternative")
        verdict = str(r.verdict)
        paper = c.record.params_for(profile)
        why = numeric_override(alt, paper)
        if isinstance(why, str):  # categorical: the override itself is what was declared
            one = dict(alt.overrides) if len(alt.overrides) == 1 else {}
            extra = {"parameter": next(iter(one))} if one else {}
            res = entry("parameter", None, to_jsonable(next(iter(one.values()), None)), why, **extra)
        else:
            name, value = why
            if r.verdict != alt.expect:
                note = f"the alternative world gives {r.verdict}, not {alt.expect}: not resolved"
                res = entry("parameter", None, value, note, parameter=name, paper=paper[name])
            else:

                def verdict_at(x: Any) -> tuple[Verdict, str]:
                    nonlocal runs
                    runs += 1
                    p = run_claim(c, profile=profile, seed=seed, world="alternative", **{name: x})
                    return p.verdict, next((n for n in p.notes if not n.startswith("alternative world")), "")

                res = bisect_override(name, paper[name], value, alt.expect, verdict_at)
    out |= {"verdict": verdict, "resolution": res, "runs": runs, "wall_time": time.perf_counter() - start}
    return to_jsonable(out)


__all__ = ["resolve_alternative"]
