"""Live progress of a run, on stderr.

On a terminal: one status line, redrawn in place twice a second (claims done / total, the running
claims with their time so far, elapsed time, an estimate of the time left), with a line per finished
claim printed above it. When the stream is not a terminal, or under ``CI``: only the plain line per
finished claim, in completion order. ``attncheck --quiet`` uses no :class:`Progress` at all.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from typing import TextIO

from verify.core.record import Result

#: Held while a line is written; a fork (a process pool starting) waits for it, so a worker never
#: inherits a stream lock that the redrawing thread held at that instant.
_WRITE = threading.Lock()
os.register_at_fork(before=_WRITE.acquire, after_in_parent=_WRITE.release, after_in_child=_WRITE.release)

_CLEAR = "\r\x1b[K"


def is_live(stream: TextIO) -> bool:
    """True when ``stream`` is a terminal and ``CI`` is unset (or empty)."""
    return stream.isatty() and not os.environ.get("CI")


def _duration(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    """Reports a run of ``total`` claims to ``stream`` (default stderr).

    live: redraw a status line (default: :func:`is_live` of the stream); interval: seconds between
    redraws. Call :meth:`started` / :meth:`finished` per claim and :meth:`close` at the end.
    """

    def __init__(
        self, total: int, stream: TextIO | None = None, *, live: bool | None = None, interval: float = 0.5
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.live = is_live(self.stream) if live is None else live
        self.done = 0
        self._running: dict[str, float] = {}
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
        running = ", ".join(f"{cid} ({_duration(now - t)})" for cid, t in list(self._running.items()))
        return f"[{self.done}/{self.total}] {_duration(elapsed)} elapsed, {left}" + (
            f" | running: {running}" if running else ""
        )

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


__all__ = ["Progress", "is_live"]
