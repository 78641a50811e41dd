"""Live progress of a run, on stderr.

On a terminal: one status line, redrawn in place twice a second (claims done / total, the running
claims with their time so far and their sweep points done / total, elapsed time, an estimate of the
time left), with a line per finished claim printed above it. When the stream is not a terminal, or
under ``CI``: only the plain line per finished claim, in completion order. ``attncheck --quiet`` uses
no :class:`Progress` at all.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from verify.core.record import Result

#: Held while a line is written; a fork (a process pool starting) waits for it, so a worker never
#: inherits a stream lock that the redrawing thread held at that instant.
_WRITE = threading.Lock()
os.register_at_fork(before=_WRITE.acquire, after_in_parent=_WRITE.release, after_in_child=_WRITE.release)

_CLEAR = "\r\x1b[K"

#: The sweep points (done, total) of the claim running in this process, at ``_COUNTS[_AT]`` and
#: ``_COUNTS[_AT + 1]``: ``Ctx.map`` adds the total, the mappers count each point done. A pool worker
#: running a whole claim counts into shared memory (:mod:`verify.core.parallel`), which the parent reads.
_COUNTS: Any = [0, 0]
_AT = 0


def track_points(counts: Any = None, at: int = 0) -> None:
    """Count this process's sweep points from 0 into ``counts[at]`` (done), ``counts[at + 1]`` (total);
    default: a fresh pair of this process."""
    global _COUNTS, _AT
    _COUNTS, _AT = ([0, 0], 0) if counts is None else (counts, at)
    _COUNTS[_AT] = _COUNTS[_AT + 1] = 0


def count_points(*, done: int = 0, total: int = 0) -> None:
    """Add sweep points done and / or to do to this process's count."""
    _COUNTS[_AT] += done
    _COUNTS[_AT + 1] += total


def points(counts: Any = None, at: int = 0) -> tuple[int, int]:
    """(done, total) sweep points: this process's count, or ``counts[at:at + 2]`` when given."""
    c, a = (_COUNTS, _AT) if counts is None else (counts, at)
    return int(c[a]), int(c[a + 1])


def is_live(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal and ``CI`` is unset (or empty)."""
    return stream.isatty() and not os.environ.get("CI")


def _duration(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """Reports a run of ``total`` claims to ``stream`` (default stderr).

    live: redraw a status line (default: :func:`is_live` of the stream); interval: seconds between
    redraws. Call :meth:`started` / :meth:`finished` per claim and :meth:`close` at the end. The runner
    sets ``points`` (claim id -> sweep points done / total) where it can read them.
    """

    def __init__(
        self, total: int, stream: TextIO | None = None, *, live: bool | None = None, interval: float = 0.5
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.live = is_live(self.stream) if live is None else live
        self.done = 0
        self._running: dict[str, float] = {}
        self.points: Callable[[str], tuple[int, int]] | None = None
        self._start = time.monotonic()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self.live:
            self._thread = threading.Thread(target=self._tick, args=(interval,), daemon=True)
            self._thread.start()

    def started(self, claim_id: str) -> None:
        self._running[claim_id] = time.monotonic()
        self._redraw()

    def finished(self, result: Result) -> None:
        self._running.pop(result.claim_id, None)
        self.done += 1
        line = f"[{self.done}/{self.total}] {result.claim_id}: {result.verdict} ({result.wall_time:.1f}s)"
        with _WRITE:
            self.stream.write((_CLEAR if self.live else "") + line + "\n")
            self.stream.flush()
        self._redraw()

    def status(self, now: float | None = None) -> str:
        """The status line: ``[done/total] elapsed, ~left | running: id (time), ...``."""
        now = time.monotonic() if now is None else now
        elapsed = now - self._start
        left = (
            f"~{_duration(elapsed / self.done * (self.total - self.done))} left"
            if self.done
            else "estimating"
        )
        running = ", ".join(self._claim(cid, now - t) for cid, t in list(self._running.items()))
        return f"[{self.done}/{self.total}] {_duration(elapsed)} elapsed, {left}" + (
            f" | running: {running}" if running else ""
        )

    def _claim(self, claim_id: str, seconds: float) -> str:
        done, total = self.points(claim_id) if self.points else (0, 0)
        return f"{claim_id} ({_duration(seconds)}" + (f", {done}/{total} points)" if total else ")")

    def close(self) -> None:
        """Stop redrawing and clear the status line."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.live:
            with _WRITE:
                self.stream.write(_CLEAR)
                self.stream.flush()

    def _redraw(self) -> None:
        if not self.live or self._stop.is_set():
            return
        width = shutil.get_terminal_size().columns - 1
        with _WRITE:
            self.stream.write(_CLEAR + self.status()[:width])
            self.stream.flush()

    def _tick(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self._redraw()


__all__ = ["Progress", "count_points", "is_live", "points", "track_points"]
