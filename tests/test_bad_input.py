"""Issue 27, acceptance: the last bad inputs, each a one-line error with exit 2 (or, in ``bounds/``, a
one-line ValueError / TypeError: tests/test_bounds_fuzz.py).

Every JSON file attncheck reads (a results file by ``--from`` and ``--timings``, the baseline) goes
through one loader (:mod:`verify.core.jsonload`) and the schema check of its kind; the property-based
test below feeds the command malformed files drawn by hypothesis (nesting beyond the limit, NaN and
Infinity literals, numbers beyond float64 or beyond Python's 4300 digits, wrong types, missing and
extra fields, random text) and requires exit 2 and one line naming the option, never a traceback,
before any claim runs. The ``--json`` lock, symlinked ``--json``, a paper-profile results file given
to the quick baseline and ``tls://`` addresses are pinned here too.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.test_faults import _one_line_error, no_run  # noqa: F401 (a fixture)
from verify import cli
from verify.cli import main
from verify.core.context import PROFILE_ENV, PROFILES
from verify.core.gate import update_baseline
from verify.core.jsonload import MAX_DEPTH, load_json, nesting_depth
from verify.core.record import Result, Verdict
from verify.core.registry import get_claim, registry
from verify.core.results import read_results_doc, results_lock, write_results
from verify.core.runner import error_result

# ---------------------------------------------------------------- valid documents to break


def _valid_results() -> list[Result]:
    """Three installed claims with every kind of value a results file holds (nested series, an mpf)."""
    out = []
    for i, cid in enumerate(sorted(registry())[:3]):
        r = error_result(get_claim(cid), profile="quick", seed=0, note="-")
        out.append(
            dataclasses.replace(
                r,
                verdict=get_claim(cid).record.expect,
                theory=1.0 + i,
                measured=0.5,
                slack=0.301,
                notes=["a note"],
                seeds=[0, 1, 2],
                series={"t": [1, 2, 3], "curves": [[0.5, 0.25], [0.125, 1e-300]], "big": {"$mpf": "1e400"}},
                wall_time=1.5,
                cpu_time=1.25,
            )
        )
    return out


def _valid_docs() -> dict[str, Any]:
    """The parsed valid results file and baseline the mutations start from."""
    with tempfile.TemporaryDirectory() as tmp:
        results = _valid_results()
        write_results(Path(tmp) / "r.json", results, "quick", 0)
        update_baseline(results, Path(tmp) / "b.json")
        return {
            "results": json.loads((Path(tmp) / "r.json").read_text()),
            "baseline": json.loads((Path(tmp) / "b.json").read_text()),
        }


DOCS = _valid_docs()
ROOT = Path(__file__).resolve().parents[1]
_REQUIRED_RESULT = [
    f.name
    for f in dataclasses.fields(Result)
    if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
]


def _is_int(x: Any, low: int = 0) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= low


def _is_finite(x: Any, low: float = -math.inf) -> bool:
    if isinstance(x, bool) or not isinstance(x, int | float):
        return False
    try:
        return math.isfinite(x) and x >= low
    except OverflowError:
        return False


def _is_str(x: Any) -> bool:
    return isinstance(x, str)


def _is_verdict(x: Any) -> bool:
    return isinstance(x, str) and x in {str(v) for v in Verdict}


#: Typed fields, as paths of keys (``*``: every claim / result), with what the schema accepts there.
TYPED: dict[str, list[tuple[tuple[Any, ...], Callable[[Any], bool]]]] = {
    "results": [
        (("schema",), lambda x: x == "attncheck.results/1"),
        (("profile",), lambda x: x == "quick"),
        (("seed",), _is_int),
        (("complete",), lambda x: isinstance(x, bool)),
        (("results",), lambda x: x == []),
        (("results", "*", "slack"), lambda x: x is None or _is_finite(x)),
        (("results", "*", "wall_time"), lambda x: _is_finite(x, 0.0)),
        (("results", "*", "cpu_time"), lambda x: _is_finite(x, 0.0)),
        (("results", "*", "verdict"), _is_verdict),
        (("results", "*", "profile"), lambda x: x == "quick"),
        (("results", "*", "claim_id"), lambda x: isinstance(x, str) and x in registry()),
        (("results", "*", "seeds"), lambda x: isinstance(x, list) and all(_is_int(s) for s in x)),
        (("results", "*", "notes"), lambda x: isinstance(x, list) and all(map(_is_str, x))),
        (("results", "*", "versions"), lambda x: isinstance(x, dict) and all(map(_is_str, x.values()))),
    ],
    "baseline": [
        (("schema",), lambda x: x == "attncheck.baseline/1"),
        (("profile",), lambda x: x in PROFILES),
        (("tolerance",), lambda x: _is_finite(x, 0.0)),
        (("claims",), lambda x: x == {}),
        (("claims", "*", "verdict"), _is_verdict),
        (("claims", "*", "slack"), lambda x: x is None or _is_finite(x)),
        (("claims", "*", "wall_time"), lambda x: _is_finite(x, 0.0)),
        (("claims", "*", "seeds"), lambda x: isinstance(x, list) and all(_is_int(s) for s in x)),
        (("claims", "*", "consistency"), lambda x: isinstance(x, bool)),
        (("versions",), lambda x: isinstance(x, dict) and all(map(_is_str, x.values()))),
    ],
}
REQUIRED = {
    "results": [("schema",), ("profile",), ("seed",), ("results",)]
    + [("results", "*", k) for k in _REQUIRED_RESULT],
    "baseline": [("schema",), ("profile",), ("claims",)]
    + [("claims", "*", k) for k in ("verdict", "slack", "theory", "measured")],
}

# Wrong at every position of either schema: non-finite numbers, an $mpf NaN or malformed, deep nesting.
_NESTED = st.integers(MAX_DEPTH + 1, 3000).map(lambda n: "[" * n + "1" + "]" * n)
POISON_TEXT = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e400", '{"$mpf": "nan"}'])
POISON_TEXT = POISON_TEXT | st.sampled_from(['{"$mpf": 1}', '{"$mpf": "1", "x": 2}', "9" * 5000]) | _NESTED
_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
_SCALARS = _SCALARS | st.sampled_from([10**400, -(10**400), 1e308, -0.0, 5e-324])
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
)
_MARK = "__POISON__"


def _resolve(doc: Any, path: tuple[Any, ...], data: st.DataObject) -> tuple[Any, Any]:
    """The container and key that ``path`` names in ``doc``, every ``*`` drawn."""
    node, keys = doc, []
    for key in path:
        if keys:
            node = node[keys[-1]]
        if key == "*":
            key = data.draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        keys.append(key)
    return node, keys[-1]


def _containers(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for k, v in items:
        if isinstance(v, dict | list) and not (isinstance(v, dict) and "$mpf" in v):
            found += _containers(v, (*at, k))
    return found


@st.composite
def malformed(draw: st.DrawFn, kind: str) -> str:
    """The text of a malformed ``kind`` file ("results" or "baseline")."""
    doc = copy.deepcopy(DOCS[kind])
    data = draw(st.data())
    how = draw(st.sampled_from(["poison", "wrong type", "missing", "extra", "text"]))
    if how == "text":
        return draw(st.text(max_size=40) | _NESTED)
    if how == "missing":
        node, key = _resolve(doc, draw(st.sampled_from(REQUIRED[kind])), data)
        del node[key]
        return json.dumps(doc)
    if how == "extra":
        node = doc
        if draw(st.booleans()):  # in a result / a baseline entry
            container, key = _resolve(doc, ("results" if kind == "results" else "claims", "*"), data)
            node = container[key]
        allowed = set(node)
        key = draw(st.text(max_size=6).filter(lambda k: k not in allowed and k != "schema"))
        node[key] = draw(JSON_VALUES)
        return json.dumps(doc)
    if how == "wrong type":
        path, ok = draw(st.sampled_from(TYPED[kind]))
        node, key = _resolve(doc, path, data)
        node[key] = draw(JSON_VALUES.filter(lambda v: not ok(v)))
        return json.dumps(doc)
    at = draw(st.sampled_from(_containers(doc)))  # poison: in any container, at any place
    node = doc
    for k in at:
        node = node[k]
    if isinstance(node, list) and node and draw(st.booleans()):
        node[draw(st.integers(0, len(node) - 1))] = _MARK
    elif isinstance(node, list):
        node.insert(draw(st.integers(0, len(node))), _MARK)
    else:
        node[draw(st.sampled_from(sorted(node)) | st.text(max_size=4))] = _MARK
    return json.dumps(doc).replace(json.dumps(_MARK), draw(POISON_TEXT))


# ---------------------------------------------------------------- the property


def _main_quietly(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _refuse(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("work started before the input was refused")


TARGETS = {
    # (the kind of file, the argv with {bad}, the option the error names)
    "report --from": ("results", ["report", "--from", "{bad}", "--out", "{tmp}/out"], "--from: "),
    "run --timings": ("results", ["run", "--timings", "{bad}", "--json", "{tmp}/r.json"], "--timings: "),
    "baseline check --baseline": (
        "baseline",
        ["baseline", "check", "--from", "{good}", "--baseline", "{bad}"],
        "--baseline: ",
    ),
}


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_every_malformed_json_input_is_one_line_and_exit_2(target: str, data: st.DataObject) -> None:
    kind, argv, option = TARGETS[target]
    text = data.draw(malformed(kind), label="file")
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(cli, "run_claims", _refuse)
        mp.setattr("reports.build.build_report", _refuse)
        bad, good = Path(tmp) / "bad.json", Path(tmp) / "good.json"
        bad.write_text(text)
        good.write_text(json.dumps(DOCS["results"]))
        code, out, err = _main_quietly([a.format(bad=bad, good=good, tmp=tmp) for a in argv])
        _one_line_error(code, err, option)
        assert len(err) < 1000 and out == ""
        assert not (Path(tmp) / "out").exists() and not (Path(tmp) / "r.json").exists()


def test_the_unbroken_documents_pass(tmp_path: Path) -> None:
    """The control of the property: the documents it mutates are accepted."""
    (tmp_path / "r.json").write_text(json.dumps(DOCS["results"]))
    (tmp_path / "b.json").write_text(json.dumps(DOCS["baseline"]))
    assert len(read_results_doc(tmp_path / "r.json", set(registry())).results) == 3
    code, out, err = _main_quietly(
        ["baseline", "check", "--from", str(tmp_path / "r.json"), "--baseline", str(tmp_path / "b.json")]
    )
    assert code == 0 and err == "" and "baseline check passed" in out


# ---------------------------------------------------------------- case 1: nesting


def test_nesting_depth_ignores_brackets_in_strings() -> None:
    assert nesting_depth('{"a": [1, {"b": "[[[[{{{"}]}') == 3
    assert nesting_depth("[" * 5000 + "]" * 5000) == 5000 and nesting_depth("12") == 0


@pytest.mark.parametrize("depth", [1000, 400])
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_deep_nesting_is_refused_before_parsing(no_run, tmp_path: Path, target: str, depth: int) -> None:  # noqa: F811
    """Issue 27 case 1: a file nested 1000 deep raised RecursionError (exit 1); a valid results file
    whose params hold a list nested 400 deep passed validation and crashed in the report's typesetting."""
    kind, argv, option = TARGETS[target]
    doc = copy.deepcopy(DOCS[kind])
    entry = doc["results"][0] if kind == "results" else next(iter(doc["claims"].values()))
    if depth < 1000:
        entry["params"]["deep"] = json.loads("[" * depth + "1" + "]" * depth)
    bad, good = tmp_path / "bad.json", tmp_path / "good.json"
    bad.write_text("[" * depth + "]" * depth if depth == 1000 else json.dumps(doc))
    good.write_text(json.dumps(DOCS["results"]))
    code, _, err = _main_quietly([a.format(bad=bad, good=good, tmp=tmp_path) for a in argv])
    shown = depth if depth == 1000 else depth + 4  # the document, the list, the entry, its params
    _one_line_error(code, err, option, f"is nested {shown} levels deep; a", f"may nest at most {MAX_DEPTH}")


def test_the_loader_refuses_a_file_too_large(tmp_path: Path, monkeypatch) -> None:
    from verify.core import jsonload

    monkeypatch.setattr(jsonload, "MAX_BYTES", 100)
    (tmp_path / "big.json").write_text(json.dumps({"a": "x" * 200}))
    with pytest.raises(jsonload.JSONInputError, match=r"big\.json is larger than 0 MB, the most a baseline"):
        load_json(tmp_path / "big.json", "baseline")


# ---------------------------------------------------------------- case 4: concurrent writers, symlinks


def test_a_second_writer_of_the_same_json_is_refused(no_run, tmp_path: Path) -> None:  # noqa: F811
    """Issue 27 case 4: the later run silently replaced the other's results. The lock is held here as
    another run would hold it; the run is refused before any claim starts (``no_run``)."""
    out = tmp_path / "out.json"
    cid = sorted(registry())[0]
    with results_lock(out):
        code, _, err = _main_quietly(["run", cid, "--json", str(out)])
    _one_line_error(code, err, f"--json: {out} is being written by another attncheck run")
    assert not out.exists() and list(tmp_path.iterdir()) == []  # the holder removed its lock file


def test_a_symlinked_json_is_followed(toy_claims, tmp_path: Path) -> None:
    """The link's target is written (created if missing), the link stays a link; the lock is the
    target's, so a run writing the target directly is refused too."""
    target = tmp_path / "data" / "results.json"
    target.parent.mkdir()
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    assert _main_quietly(["run", "toy.upper", "--quiet", "--json", str(link)])[0] == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert [r.claim_id for r in read_results_doc(target).results] == ["toy.upper"]
    with results_lock(target):
        code, _, err = _main_quietly(["run", "toy.upper", "--quiet", "--json", str(link)])
    _one_line_error(code, err, f"--json: {link} is being written by another attncheck run")
    assert sorted(p.name for p in target.parent.iterdir()) == ["results.json"]


def test_a_symlink_loop_is_refused(no_run, tmp_path: Path) -> None:  # noqa: F811
    loop = tmp_path / "loop.json"
    loop.symlink_to(loop)
    code, _, err = _main_quietly(["run", sorted(registry())[0], "--json", str(loop)])
    _one_line_error(code, err, f"--json: {loop} is a loop of symlinks")
    assert loop.is_symlink()


# ---------------------------------------------------------------- case 6: a results file of the other profile


def test_baseline_check_from_a_paper_profile_file_is_a_usage_error(no_run, tmp_path: Path) -> None:  # noqa: F811
    """Issue 27 case 6: it printed a row per claim and exited 1."""
    results = [dataclasses.replace(r, profile="paper") for r in _valid_results()]
    write_results(tmp_path / "paper.json", results, "paper", 0)
    update_baseline(_valid_results(), tmp_path / "b.json")
    argv = [
        "baseline",
        "check",
        "--from",
        str(tmp_path / "paper.json"),
        "--baseline",
        str(tmp_path / "b.json"),
    ]
    code, out, err = _main_quietly(argv)
    _one_line_error(code, err, "--from: ", "holds paper-profile results", "is of the quick profile")
    assert out == ""


# ---------------------------------------------------------------- case 7: tls://


@pytest.mark.parametrize("address", ["tls://127.0.0.1:8786", "tls://scheduler.example:1"])
def test_tls_addresses_are_not_offered(no_run, address: str) -> None:  # noqa: F811
    code, _, err = _main_quietly(["run", "--dask", address])
    _one_line_error(
        code, err, f"--dask: tls:// is not supported (no TLS settings can be passed), got {address!r}"
    )
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        main(["run", "--help"])
    assert "tcp://host:port" in help_text.getvalue() and "(no tls://)" in help_text.getvalue()


# ---------------------------------------------------------------- a closed pipe


def _attncheck(*argv: str, **kwargs: Any) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "verify", *argv], cwd=ROOT, **kwargs)


def test_a_closed_stdout_ends_quietly_with_141() -> None:
    """``attncheck list --json | head -c 100`` ended in a BrokenPipeError traceback. The JSON (270 kB)
    outgrows the pipe, so the writer is still writing when the reader goes: exit 141, as a Unix tool
    killed by SIGPIPE, and nothing on stderr."""
    proc = _attncheck("list", "--json", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(100)) == 100
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == cli.CLOSED_PIPE and err == ""


def test_a_run_whose_stdout_is_closed_writes_its_results_first(tmp_path: Path) -> None:
    """``attncheck run CLAIM | head -1``: stdout is closed before the table is printed; the results
    file is written before the table, so the run is not lost; exit 141, nothing on stderr."""
    out = tmp_path / "r.json"
    proc = _attncheck(
        "run",
        "wu2023.attn.degenerate",
        "--quiet",
        "--json",
        str(out),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == cli.CLOSED_PIPE and err == ""
    doc = read_results_doc(out)
    assert doc.complete and [r.claim_id for r in doc.results] == ["wu2023.attn.degenerate"]


def test_a_closed_stderr_ends_the_run_with_141() -> None:
    """The progress lines go to a reader that went away (``2>&1 | head -1``): the run stops, 141."""
    proc = _attncheck("run", "wu2023.attn.degenerate", stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    proc.stderr.close()
    assert proc.wait(timeout=120) == cli.CLOSED_PIPE


# ---------------------------------------------------------------- empty paths and addresses

EMPTY = {
    "run --json": (["run", "--json", ""], "--json is empty; give a file path"),
    "run --dask": (["run", "--dask", ""], "--dask must be 'local', 'tcp://host:port' or 'host:port', got ''"),
    "run --timings": (["run", "--timings", ""], "--timings is empty; give a results file"),
    "run --seeds": (["run", "--seeds", ""], "--seeds is empty; give seeds like 0-19 or 0,3,7"),
    "stability --json": (["stability", "--json", ""], "--json is empty; give a file path"),
    "report --out": (["report", "--out", ""], "--out is empty; give a folder"),
    "report --from": (["report", "--from", ""], "--from is empty; give a results file"),
    "docs --out": (["docs", "--out", ""], "--out is empty; give a folder"),
    "docs --out --check": (["docs", "--check", "--out", ""], "--out is empty; give a folder"),
    "new --out": (["new", "smith2027", "--out", ""], "--out is empty; give a folder"),
    "baseline --from": (["baseline", "check", "--from", ""], "--from is empty; give a results file"),
    "baseline --baseline": (["baseline", "update", "--baseline", ""], "--baseline is empty; give a baseline"),
    "pattern": (["run", ""], "pattern '' matches no claim id"),
}


@pytest.mark.parametrize("name", sorted(EMPTY))
def test_an_empty_path_or_address_is_refused(no_run, tmp_path: Path, monkeypatch, name: str) -> None:  # noqa: F811
    """An empty ``--json`` / ``--dask`` / ``--out`` / ``--from`` / ``--baseline`` / ``--timings`` was
    taken for "not given" (a run with no results file, a serial run, a report in the current folder,
    a baseline check that ran every claim, a plugin in ./attncheck-<key>)."""
    monkeypatch.chdir(tmp_path)
    argv, message = EMPTY[name]
    code, out, err = _main_quietly(argv)
    assert _one_line_error(code, err, message) and out == ""
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- long values in error lines

BIG = "9" * 5000


def test_clip_cuts_long_values_only() -> None:
    assert cli.clip("x" * cli.CLIP_LIMIT) == "x" * cli.CLIP_LIMIT
    assert cli.clip(BIG) == "9" * cli.CLIP_HEAD + "... (5000 characters)"
    line = cli.clip_values(f"got {BIG!r}, then {BIG}; short 'ab'", [BIG, "ab"])
    quoted = repr("9" * cli.CLIP_HEAD + "...")
    assert line == f"got {quoted} (5000 characters), then {cli.clip(BIG)}; short 'ab'"


LONG = {
    "--seed": (["run", "--seed", BIG], "--seed must be an integer >= 0, got '99"),
    "--seed=": (["run", f"--seed={BIG}"], "--seed must be an integer >= 0, got '99"),
    "--jobs": (["run", "--jobs", BIG], "--jobs must be an integer >= 1, got '99"),
    "--seeds": (["run", "--seeds", BIG], "--seeds must look like 0-19"),
    "--dask": (["run", "--dask", "tcp://" + BIG], "--dask must be 'local'"),
    "--dask-timeout": (["run", "--dask-timeout", BIG], "--dask-timeout must be a finite number of seconds"),
    "--profile": (["run", "--profile", BIG], "--profile: invalid choice: '99"),
    "pattern": (["run", "x" + BIG], "matches no claim id"),
    "command": ([BIG], "command: invalid choice: '99"),
    "unknown option": (["run", "--x" + BIG], "unrecognized arguments: --x99"),
}


@pytest.mark.parametrize("name", sorted(LONG))
def test_a_long_value_is_cut_in_the_error_line(no_run, name: str) -> None:  # noqa: F811
    """A 5000-digit ``--seed`` was echoed whole: every error line cuts a user value longer than
    ``CLIP_LIMIT`` characters to its first ``CLIP_HEAD`` and its length."""
    argv, fragment = LONG[name]
    code, _, err = _main_quietly(argv)
    line = _one_line_error(code, err, fragment, "...", " (500")
    assert len(line) < 400 and "9" * (cli.CLIP_HEAD + 1) not in line


def test_a_long_profile_variable_is_cut(no_run, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv(PROFILE_ENV, BIG)
    code, _, err = _main_quietly(["run"])
    line = _one_line_error(code, err, f"{PROFILE_ENV} must be quick or paper (or unset), got '99")
    assert line.endswith("...' (5000 characters)")


# ---------------------------------------------------------------- argparse's errors: one line too


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["run", "--seed", "abc"], "--seed must be an integer >= 0, got 'abc' (see `attncheck run --help`)"),
        (["run", "--jobs", "0"], "--jobs must be an integer >= 1, got '0' (see `attncheck run --help`)"),
        (
            ["stability", "--sets", "0"],
            "--sets must be an integer >= 1, got '0' (see `attncheck stability --help`)",
        ),
        (
            ["stability", "--first", "-5"],
            "--first must be an integer >= 0, got '-5' (see `attncheck stability --help`)",
        ),
        (
            ["baseline", "check", "--tolerance", "nan"],
            "--tolerance must be a finite number >= 0 (log10 units), got 'nan' "
            "(see `attncheck baseline --help`)",
        ),
        ([], "the following arguments are required: command (see `attncheck --help`)"),
        (["run", "--bogus"], "unrecognized arguments: --bogus (see `attncheck --help`)"),
        (["baseline", "frob"], "action: invalid choice: 'frob' (choose from 'check', 'update')"),
    ],
)
def test_argparse_errors_are_one_line(no_run, argv: list[str], line: str) -> None:  # noqa: F811
    """They printed argparse's usage block (five lines) above the error."""
    code, out, err = _main_quietly(argv)
    assert _one_line_error(code, err, line) and out == ""


# ---------------------------------------------------------------- ATTNCHECK_PROFILE


def test_the_cli_honours_attncheck_profile(toy_claims, tmp_path: Path, monkeypatch) -> None:
    """``ATTNCHECK_PROFILE`` was honoured by pytest, silently ignored by the command: it is the default
    of ``--profile``, which overrides it; the summary says which profile ran and why."""
    monkeypatch.setenv(PROFILE_ENV, "paper")
    code, out, _ = _main_quietly(["run", "toy.upper", "--quiet", "--json", str(tmp_path / "r.json")])
    assert code == 0 and out.splitlines()[-1] == f"profile: paper (from {PROFILE_ENV})"
    assert read_results_doc(tmp_path / "r.json").results[0].profile == "paper"
    code, out, _ = _main_quietly(["run", "toy.upper", "--quiet", "--profile", "quick"])
    assert code == 0 and out.splitlines()[-1] == "profile: quick (--profile)"
    monkeypatch.delenv(PROFILE_ENV)
    code, out, _ = _main_quietly(["run", "toy.upper", "--quiet"])
    assert code == 0 and out.splitlines()[-1] == "profile: quick (the default)"
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        main(["run", "--help"])
    assert f"${PROFILE_ENV}" in " ".join(help_text.getvalue().split())


@pytest.mark.parametrize("value", ["bogus", "", "Quick"])
def test_a_bad_attncheck_profile_is_one_line(no_run, monkeypatch, value: str) -> None:  # noqa: F811
    monkeypatch.setenv(PROFILE_ENV, value)
    code, _, err = _main_quietly(["run"])
    _one_line_error(code, err, f"{PROFILE_ENV} must be quick or paper (or unset), got {value!r}")
    code, _, err = _main_quietly(["run", "nosuch*", "--profile", "quick"])  # overridden: not looked at
    _one_line_error(code, err, "pattern 'nosuch*' matches no claim id")


# ---------------------------------------------------------------- the profiles under pytest


@pytest.mark.parametrize(
    ("variable", "line"),
    [
        (
            "HYPOTHESIS_PROFILE",
            "ERROR: HYPOTHESIS_PROFILE must be one of ('ci', 'dev', 'thorough'), got 'bogus'",
        ),
        (PROFILE_ENV, f"ERROR: {PROFILE_ENV} must be one of ('quick', 'paper'), got 'bogus'"),
    ],
)
def test_a_bad_profile_variable_stops_pytest_in_one_line(variable: str, line: str) -> None:
    """``HYPOTHESIS_PROFILE=bogus pytest`` printed a 9-line trace of the conftest's import: it is
    pytest's usage error now, one line naming the allowed values, exit 4, before collection."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"} | {variable: "bogus"}
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", "tests/test_progress.py"]
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 4 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == [line]


# ---------------------------------------------------------------- paths the OS refuses to look at


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--json", "{long}.json"],
        ["report", "--out", "{long}"],
        ["baseline", "update", "--baseline", "{long}.json"],
        ["docs", "--out", "{long}"],
        ["docs", "--check", "--out", "{long}"],
    ],
)
def test_a_name_too_long_is_one_line(no_run, tmp_path: Path, argv: list[str]) -> None:  # noqa: F811
    """A file name beyond the file system's 255 bytes raised OSError (File name too long) from
    pathlib's checks: a traceback. The line cuts the path (over ``CLIP_LIMIT`` characters)."""
    argv = [a.format(long=tmp_path / ("a" * 300)) for a in argv]
    code, _, err = _main_quietly(argv)
    _one_line_error(code, err, f"{argv[-2]}: cannot use {str(tmp_path)[:20]}", "(File name too long)")


def test_docs_check_of_a_file_is_one_line(no_run, tmp_path: Path) -> None:  # noqa: F811
    """``docs --check --out FILE`` reported every page stale under FILE/ (exit 1)."""
    (tmp_path / "f").write_text("x")
    code, _, err = _main_quietly(["docs", "--check", "--out", str(tmp_path / "f")])
    _one_line_error(code, err, f"--out: {tmp_path / 'f'} exists and is not a folder")


@pytest.mark.parametrize(
    "argv", [["run", "--json", "{fifo}"], ["baseline", "update", "--baseline", "{fifo}"]]
)
def test_an_output_that_is_not_a_regular_file_is_refused(no_run, tmp_path: Path, argv: list[str]) -> None:  # noqa: F811
    """``--json /dev/full`` (root) replaced the device with the results file: the write is atomic, by
    renaming over the path. A device or a pipe is refused (a FIFO stands in for a device here)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, err = _main_quietly([a.format(fifo=fifo) for a in argv])
    _one_line_error(code, err, f"{argv[-2]}: {fifo} is not a regular file (a device or a pipe)")
    assert not fifo.is_file() and fifo.exists()
