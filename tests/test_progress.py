"""The progress display: a redrawn status line on a terminal, plain lines otherwise (and under CI)."""

from __future__ import annotations

import io

from verify.core import Source
from verify.core.progress import Progress, is_live
from verify.core.record import Kind, Provenance, Result, Verdict


def _result(cid: str) -> Result:
    return Result(
        claim_id=cid, paper="toy", reference="", kind=Kind.UPPER, provenance=Provenance.EXACT,
        statement="", profile="quick", params={}, seeds=[0], theory=1.0, measured=0.5, slack=0.3,
        verdict=Verdict.HOLDS, expected=Verdict.HOLDS, wall_time=1.25,
    )  # fmt: skip


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_without_a_terminal_progress_is_plain_lines_in_completion_order() -> None:
    out = io.StringIO()
    assert not is_live(out)
    p = Progress(2, out)
    p.started("toy.a")
    p.started("toy.b")
    p.finished(_result("toy.b"))
    p.finished(_result("toy.a"))
    p.close()
    assert out.getvalue() == "[1/2] toy.b: holds (1.2s)\n[2/2] toy.a: holds (1.2s)\n"


def test_under_ci_a_terminal_gets_plain_lines_too(monkeypatch) -> None:
    monkeypatch.setenv("CI", "true")
    assert not is_live(_Tty())
    monkeypatch.setenv("CI", "")
    assert is_live(_Tty())


def test_on_a_terminal_the_status_line_is_redrawn_and_cleared() -> None:
    out = _Tty()
    p = Progress(3, out, live=True, interval=60)
    p.started("toy.slow")
    assert "[0/3]" in p.status() and "estimating" in p.status() and "running: toy.slow" in p.status()
    p.finished(_result("toy.slow"))
    assert "left" in p.status() and "running" not in p.status()
    p.close()
    text = out.getvalue()
    assert "\r\x1b[K" in text and "[1/3] toy.slow: holds" in text and text.endswith("\r\x1b[K")


STATUS: list[str] = []
LIVE: list[Progress] = []


def _point(x: int) -> int:
    STATUS.append(LIVE[0].status())
    return x


def test_the_status_line_shows_the_sweep_points_of_the_running_claim() -> None:
    from verify.core import Ctx, Evidence, Kind, Provenance, claim, run_claims
    from verify.core.registry import _unregister, get_claim

    @claim("toyp.sweep", Source("toy", Provenance.EXACT), kind=Kind.UPPER, statement="toy")  # fmt: skip
    def sweep(ctx: Ctx) -> Evidence:
        """toy"""
        return Evidence(theory=10.0, measured=float(sum(ctx.map(_point, range(3)))))

    LIVE[:] = [Progress(1, io.StringIO(), live=False)]
    STATUS.clear()
    try:
        run_claims([get_claim("toyp.sweep")], progress=LIVE[0])
    finally:
        _unregister("toyp.sweep")
    assert [s.split("running: ")[1] for s in STATUS] == [f"toyp.sweep (0s, {k}/3 points)" for k in range(3)]


def _claim_like(n: int) -> int:
    from verify.core import Ctx

    return sum(Ctx().map(abs, range(n)))


def test_a_pool_worker_counts_its_sweep_points_where_the_parent_reads_them() -> None:
    from multiprocessing.sharedctypes import RawArray

    from verify.core.parallel import _completed
    from verify.core.progress import points

    counts = RawArray("q", 4)
    assert sorted(i for i, _ in _completed(_claim_like, [(3,), (5,)], 2, counts)) == [0, 1]
    assert points(counts, 0) == (3, 3) and points(counts, 2) == (5, 5)
