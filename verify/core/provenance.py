"""The run record: what a results file says about the run that wrote it, recorded when it runs.

``run_record()`` is taken when a run starts and ``finished()`` completes it; ``write_results`` stores
it in the results file (``"run"``) and the report prints it from there, so ``attncheck report --from
old.json`` states the run that made the results, not today's checkout. Fields (all JSON values)::

    {"attncheck": version, "commit": full hash or "unknown", "dirty": bool or null,
     "command": the command line, "profile": ..., "seed": first seed, "seeds": the --seeds set or null,
     "jobs": int, "backend": "serial" | "processes" | "dask <address>",
     "machine": {"platform", "python", "cpus", "blas"}, "started": UTC ISO time,
     "wall_time": seconds, "complete": bool}
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

#: The fields of a run record, in the order the report prints them.
FIELDS = (
    "attncheck", "commit", "dirty", "command", "profile", "seed", "seeds", "jobs", "backend", "machine",
    "started", "wall_time", "complete",
)  # fmt: skip


def _git(*args: str, where: Path) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=where, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def checkout(where: Path | None = None) -> tuple[str, bool | None]:
    """(full commit hash, dirty) of the git checkout holding attncheck; ("unknown", None) outside one."""
    where = where or Path(__file__).resolve().parent
    head = _git("rev-parse", "HEAD", where=where)
    if not head or not head.strip():
        return "unknown", None
    status = _git("status", "--porcelain", "--untracked-files=no", where=where)
    return head.strip(), None if status is None else bool(status.strip())


def _blas() -> str:
    try:
        from threadpoolctl import threadpool_info

        info = [i for i in threadpool_info() if i.get("user_api") == "blas"]
    except Exception:  # threadpoolctl cannot inspect this process: say so, never fail a run
        return "unknown"
    return (
        ", ".join(f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})" for i in info)
        or "none"
    )


def run_record(
    *, profile: str, seed: int, seeds: Sequence[int] | None, jobs: int, dask: str | None,
    argv: Sequence[str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The record of a run starting now (``finished`` adds its wall time and whether it completed)."""
    commit, dirty = checkout()
    try:
        version = metadata.version("attncheck")
    except metadata.PackageNotFoundError:
        version = "not installed"
    argv = list(sys.argv if argv is None else argv)
    backend = f"dask {dask}" if dask else ("processes" if jobs > 1 else "serial")
    return {
        "attncheck": version,
        "commit": commit,
        "dirty": dirty,
        "command": shlex.join(["attncheck", *argv[1:]]),
        "profile": profile,
        "seed": seed,
        "seeds": None if seeds is None else [int(s) for s in seeds],
        "jobs": jobs,
        "backend": backend,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count() or 0,
            "blas": _blas(),
        },
        "started": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "wall_time": 0.0,
        "complete": False,
    }


def finished(record: dict[str, Any], *, wall_time: float, complete: bool) -> dict[str, Any]:
    """``record`` with its elapsed wall time and whether every claim finished."""
    return record | {"wall_time": round(float(wall_time), 3), "complete": bool(complete)}


__all__ = ["FIELDS", "checkout", "finished", "run_record"]
