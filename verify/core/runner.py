"""Running claims: parameters from the profile, the claim function, the verdict rule, a Result."""

from __future__ import annotations

import platform
import time
import traceback
from importlib import metadata
from typing import Any

from verify.core.context import Ctx, Mapper, serial_map
from verify.core.judge import judge
from verify.core.record import Evidence, Result, Verdict, to_jsonable
from verify.core.registry import Claim, get_claim
from verify.numerics.threads import single_thread


def library_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for dist in ("attncheck", "numpy", "scipy", "mpmath"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def run_claim(
    c: Claim | str,
    *,
    profile: str = "quick",
    seed: int = 0,
    mapper: Mapper = serial_map,
    raise_errors: bool = False,
    **overrides: Any,
) -> Result:
    """Run one claim at the profile's parameters (``overrides`` replace some) and judge it.

    The claim runs with BLAS limited to one thread (:mod:`verify.numerics.threads`).
    An exception inside the claim becomes verdict ``error`` with the traceback's last line in the
    notes, unless ``raise_errors`` (tests use it to see the traceback). Unknown parameter names in
    ``overrides`` raise ``ValueError`` before anything runs.
    """
    c = get_claim(c) if isinstance(c, str) else c
    ctx = Ctx(profile=profile, seed=seed, mapper=mapper, rules={k: r.value for k, r in c.record.rules})
    params = c.record.params_for(profile)
    unknown = set(overrides) - set(c.param_names())
    if unknown:
        raise ValueError(f"claim {c.id!r} has no parameters {sorted(unknown)}; it takes {c.param_names()}")
    params.update(overrides)
    rec = c.record
    fixed = dict(
        claim_id=c.id, paper=rec.paper, reference=rec.reference, kind=rec.kind,
        provenance=rec.provenance, statement=rec.statement, profile=profile, expected=rec.expect,
    )  # fmt: skip
    start = time.perf_counter()
    try:
        with single_thread():
            ev = c.fn(ctx, **params)
        if not isinstance(ev, Evidence):
            raise TypeError(f"claim {c.id!r} returned {type(ev).__name__}, not Evidence")
        verdict, slack, notes = judge(rec.kind, ev)
        result = Result(
            **fixed,
            params=to_jsonable(params | ev.params),
            seeds=list(ev.seeds or [seed]),
            theory=to_jsonable(ev.theory),
            measured=to_jsonable(ev.measured),
            slack=slack,
            verdict=verdict,
            notes=[*ev.notes, *notes],
            series=to_jsonable(ev.series),
        )
    except Exception as exc:
        if raise_errors:
            raise
        last = traceback.format_exception_only(exc)[-1].strip()
        result = Result(
            **fixed, params=to_jsonable(params), seeds=[seed], theory=None, measured=None,
            slack=None, verdict=Verdict.ERROR, notes=[last],
        )  # fmt: skip
    result.wall_time = time.perf_counter() - start
    result.versions = library_versions()
    return result
