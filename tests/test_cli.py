"""The registry, the runner and the ``attncheck`` command, on toy claims."""

from __future__ import annotations

import io
import json

import pytest

from tests.support import without_times
from verify.cli import main, parse_seeds, read_results
from verify.core import Kind, Provenance, Source, Verdict, claim, match_claims, run_claim, run_claims
from verify.core.progress import Progress


def test_run_claim_judges_and_records(toy_claims) -> None:
    r = run_claim("toy.upper")
    assert r.verdict == Verdict.HOLDS and r.slack == pytest.approx(0.30103, abs=1e-5)
    assert r.params == {"x": 0.5, "n": 4} and r.seeds == [0] and r.versions["numpy"]
    assert run_claim("toy.upper", x=2.0).verdict == Verdict.VIOLATED
    assert run_claim("toy.upper", profile="paper").params["n"] == 64
    assert run_claim("toy.vacuous").verdict == Verdict.VACUOUS
    crash = run_claim("toy.crash")
    assert crash.verdict == Verdict.ERROR and "boom" in crash.notes[0]
    with pytest.raises(RuntimeError, match="boom"):
        run_claim("toy.crash", raise_errors=True)


def test_run_claim_bad_input(toy_claims) -> None:
    with pytest.raises(ValueError, match=r"has no parameters \['y'\]"):
        run_claim("toy.upper", y=1)
    with pytest.raises(ValueError, match=r"profile must be one of \('quick', 'paper'\)"):
        run_claim("toy.upper", profile="huge")
    with pytest.raises(ValueError, match="seed must be an integer"):
        run_claim("toy.upper", seed=-1)
    with pytest.raises(KeyError, match="unknown claim id"):
        run_claim("toy.nope")


def test_registry_rejects_bad_declarations() -> None:
    with pytest.raises(ValueError, match="docstring"):
        claim("toy.nodoc", Source("-", Provenance.DERIVED), kind=Kind.UPPER, statement="s")(lambda ctx: None)

    def f(ctx, *, n):
        """doc"""

    with pytest.raises(ValueError, match="no quick default"):
        claim("toy.nodefault", Source("-", Provenance.DERIVED), kind=Kind.UPPER, statement="s")(f)
    with pytest.raises(ValueError, match=r"'<paper>\.<name>'"):
        claim("nodot", Source("-", Provenance.DERIVED), kind=Kind.UPPER, statement="s")


def test_match_claims_globs_and_refuses_empty_patterns(toy_claims) -> None:
    assert [c.id for c in match_claims(["toy.[uv]*"])] == ["toy.upper", "toy.vacuous"]
    with pytest.raises(LookupError, match="matches no claim"):
        match_claims(["toy.zzz*"])


def test_cli_list(toy_claims, capsys) -> None:
    assert main(["list"]) == 0
    assert "toy.rate" in capsys.readouterr().out
    assert main(["list", "--json"]) == 0
    records = {d["id"]: d for d in json.loads(capsys.readouterr().out)}
    assert records["toy.vacuous"]["kind"] == "condition"
    assert records["toy.finding"]["expect"] == "violated"


def test_cli_run_exit_codes_and_json(toy_claims, tmp_path, capsys) -> None:
    out = tmp_path / "r.json"
    assert main(["run", "toy.upper", "toy.rate", "toy.vacuous", "toy.finding", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "toy.finding" in text and "1.00e+41" in text
    # the summary: counts per paper, then findings (EXACT-from-reviews toy.finding) apart
    assert (
        "findings against a paper's own statement (EXACT, EXACT-from-reviews, THIRD-PARTY), robust to our "
        "choices: toy.finding" in text
    )
    assert "our reconstruction does not reproduce the paper (DERIVED, RECONSTRUCTED): none" in text
    results = read_results(out)
    verdicts = {r.claim_id: r.verdict for r in results}
    assert verdicts == {
        "toy.finding": "violated",
        "toy.rate": "holds",
        "toy.upper": "holds",
        "toy.vacuous": "vacuous",
    }
    assert main(["run", "toy.crash"]) == 1  # error
    assert main(["run", "toy.nomatch*"]) == 2  # unknown pattern: usage error
    assert "matches no claim" in capsys.readouterr().err
    assert main(["run", "toy.upper", "--seed", "-3"]) == 2
    assert main(["run", "--profile", "huge"]) == 2  # argparse's errors too: one line, no SystemExit
    assert capsys.readouterr().err.splitlines()[-1] == (
        "attncheck: error: --profile: invalid choice: 'huge' (choose from 'quick', 'paper') "
        "(see `attncheck run --help`)"
    )


def test_unexpected_violation_fails_the_run(toy_claims) -> None:
    assert main(["run", "toy.finding"]) == 0  # a documented finding is expected
    assert main(["run", "toy.broken"]) == 1  # an unexpected violation is not


@pytest.mark.parametrize("jobs", [2])
def test_process_pool_gives_the_serial_results(toy_claims, jobs) -> None:
    claims = match_claims(["toy.*"])
    serial = run_claims(claims, seed=3)
    pooled = run_claims(claims, seed=3, jobs=jobs)  # claims spread over workers
    one = run_claims(match_claims(["toy.rate"]), seed=3, jobs=jobs)  # sweep points spread
    assert [without_times(r) for r in pooled] == [without_times(r) for r in serial]
    assert without_times(one[0]) == without_times(next(r for r in serial if r.claim_id == "toy.rate"))


def test_the_seeds_of_one_claim_spread_over_a_process_pool_and_give_the_serial_result() -> None:
    claim = match_claims(["wu2023.softmax.lip"])
    assert str(claim[0].record.seeds) == "every"
    progress = Progress(1, io.StringIO(), live=False)
    spread = run_claims(claim, jobs=2, progress=progress)[0]
    assert progress.points is not None and progress.points(claim[0].id) == (3, 3)  # seeds as points
    assert without_times(spread) == without_times(run_claims(claim)[0]) and len(spread.seeds) == 3


def test_python_dash_m_verify(toy_claims) -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "verify", "list"], capture_output=True, text=True, check=True)
    assert "claim" in out.stdout.splitlines()[0]


def test_dask_local_cluster_gives_the_serial_results() -> None:
    """Real (importable) claims: Dask workers are fresh processes that import them by name."""
    pytest.importorskip("dask.distributed")
    claims = match_claims(["wu2023.alpha.he_lecun", "wu2023.attn.degenerate", "zhang2026.K0"])
    serial = run_claims(claims, seed=2)
    spread = run_claims(claims, seed=2, jobs=2, dask="local")
    assert [without_times(r) for r in spread] == [without_times(r) for r in serial]
    sweep = match_claims(["wu2023.attn.degenerate"])  # one claim: its sweep points go to the workers
    assert without_times(run_claims(sweep, seed=2, jobs=2, dask="local")[0]) == without_times(serial[1])


def test_a_backend_that_cannot_start_is_a_usage_error(toy_claims, monkeypatch, capsys) -> None:
    from verify.core import parallel

    def no_dask(self, address, workers, timeout=None):
        raise RuntimeError("--dask needs the optional extra: pip install 'attncheck[dask]'")

    monkeypatch.setattr(parallel._DaskExecutor, "__init__", no_dask)
    assert main(["run", "toy.upper", "--dask", "local"]) == 2
    assert "optional extra" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "seeds"), [("0-4", (0, 1, 2, 3, 4)), ("3", (3,)), ("0,3,7", (0, 3, 7)), ("0-2,9", (0, 1, 2, 9))]
)
def test_seeds_option_parses(text: str, seeds: tuple[int, ...]) -> None:
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["", "a", "-1", "3-1", "0-2,2", "0-99999999999", "1.5"])
def test_bad_seeds_option_is_a_usage_error(text: str, capsys) -> None:
    assert main(["run", "--seeds", text, "wu2023.pl"]) == 2
    err = capsys.readouterr().err
    assert "--seeds" in err and "Traceback" not in err


def test_seeds_option_sets_every_seeded_claim(toy_claims, tmp_path) -> None:
    out = tmp_path / "r.json"
    assert main(["run", "toy.upper", "--seeds", "5-7", "--json", str(out), "--quiet"]) == 0
    assert read_results(out)[0].seeds == [5]  # a deterministic claim runs at the first seed
