"""The one reader of every JSON file attncheck takes as input (results, baseline, timings).

:func:`load_json` reads a file of at most :data:`MAX_BYTES`, refuses nesting deeper than
:data:`MAX_DEPTH` before parsing (Python's parser, and every recursive consumer after it, would
otherwise hit the recursion limit on a file nested 1000 deep), and parses it. Every failure is one
line naming the file: a :class:`JSONInputError` (a ``ValueError``; :class:`MissingJSONFile` when the
path does not exist). NaN and Infinity literals parse, as floats: the caller's schema check refuses
them naming the field. The schema of each kind of file lives with its reader
(:mod:`verify.core.results`, :mod:`verify.core.gate`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

#: The deepest nesting of arrays and objects accepted (attncheck writes at most 8 levels).
MAX_DEPTH = 32
#: The largest file accepted, in bytes (a paper-profile results file is a few MB).
MAX_BYTES = 256 * 2**20

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


class JSONInputError(ValueError):
    """An input JSON file that cannot be read, is too large or too deep, or is not JSON (one line)."""


class MissingJSONFile(JSONInputError):
    """The input path does not exist."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[`` / ``{`` in JSON text, brackets inside strings not counted
    (computed without recursion; on malformed text an upper bound)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text)).encode("ascii")
    if not brackets:
        return 0
    codes = np.frombuffer(brackets, dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.max(np.cumsum(steps)))


def load_json(path: Path, what: str) -> Any:
    """The parsed JSON file at ``path``, a ``what`` (e.g. "results file"); :class:`JSONInputError`
    (one line naming the path and the cause) when it is missing, unreadable, larger than
    :data:`MAX_BYTES`, nested deeper than :data:`MAX_DEPTH` or not JSON."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise MissingJSONFile(f"no such {what} {path}") from None
    except IsADirectoryError:
        raise JSONInputError(f"{path} is a directory, not a {what}") from None
    except OSError as exc:  # permission denied, a path through a file, a FIFO that fails
        raise JSONInputError(f"cannot read {path} ({exc.strerror or exc})") from None
    if len(raw) > MAX_BYTES:
        raise JSONInputError(f"{path} is larger than {MAX_BYTES // 2**20} MB, the most a {what} may be")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JSONInputError(f"{path} is not JSON (not UTF-8: {exc.reason} at byte {exc.start})") from None
    depth = nesting_depth(text)
    if depth > MAX_DEPTH:
        raise JSONInputError(
            f"{path} is nested {depth} levels deep; a {what} may nest at most {MAX_DEPTH} levels"
        )
    try:
        return json.loads(text)
    except ValueError as exc:  # JSONDecodeError, an integer of over 4300 digits
        raise JSONInputError(f"{path} is not JSON ({' '.join(str(exc).split())})") from None
    except RecursionError:  # unreachable below MAX_DEPTH; kept so no traceback can escape
        raise JSONInputError(f"{path} is nested too deeply to parse") from None


__all__ = ["MAX_BYTES", "MAX_DEPTH", "JSONInputError", "MissingJSONFile", "load_json", "nesting_depth"]
