"""benchmarks/tag_protocols_converged.py's bookkeeping: a row saved from a finished run is not trained again (its
record stands), and a row's record names the commit of every session it trained in."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

bench = importlib.import_module("tag_protocols_converged")


def write_run(runs_dir: Path, row: str, run_id: str, status: str) -> Path:
    run = runs_dir / row / bench.RECIPE / run_id
    run.mkdir(parents=True)
    (run / "results.json").write_text(json.dumps({"run_id": run_id, "status": status}), encoding="utf-8")
    (run / "log.jsonl").write_text("", encoding="utf-8")
    return run


def test_a_row_saved_from_its_finished_run_is_not_trained_again(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    runs, save = tmp_path / "runs", tmp_path / "save"
    run = write_run(runs, "none", "abc", "complete")
    assert not bench.saved_and_converged("none", runs, save)  # nothing saved yet
    (save / "none").mkdir(parents=True)
    (save / "none" / "results.json").write_text((run / "results.json").read_text(), encoding="utf-8")
    (save / "none" / "machine.json").write_text(json.dumps({"commit": "first"}), encoding="utf-8")
    assert bench.saved_and_converged("none", runs, save)
    monkeypatch.setattr(bench.subprocess, "run", lambda *a, **k: (_ for _ in ()).throw(AssertionError("trained")))
    bench.train_row("none", runs, save, "nothing")  # skipped: no training, the record untouched
    assert json.loads((save / "none" / "machine.json").read_text()) == {"commit": "first"}
    (run / "results.json").write_text(json.dumps({"run_id": "abc", "status": "running"}), encoding="utf-8")
    assert not bench.saved_and_converged("none", runs, save)  # a run resumed since: train it on


def test_the_record_lists_every_session_of_a_row(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    runs, save = tmp_path / "runs", tmp_path / "save"
    commits = iter(["aaa", "bbb"])
    monkeypatch.setattr(bench, "head_commit", lambda: next(commits))
    monkeypatch.setattr(bench, "machine", lambda: "a test machine")
    trained = []

    def fake_run(command, **kwargs):  # type: ignore[no-untyped-def]
        trained.append(command)
        if len(trained) == 1:  # the run starts, writes its results.json (running), and is interrupted
            write_run(runs, "gold", "r1", "running")
            raise bench.subprocess.CalledProcessError(-2, command)
        (runs / "gold" / bench.RECIPE / "r1" / "results.json").write_text(
            json.dumps({"run_id": "r1", "status": "complete"}), encoding="utf-8")  # resumed and finished

    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    (runs / "gold").mkdir(parents=True)
    with pytest.raises(bench.subprocess.CalledProcessError):
        bench.train_row("gold", runs, save, "tests")  # an interrupted first session: nothing saved
    bench.train_row("gold", runs, save, "tests")
    record = json.loads((save / "gold" / "machine.json").read_text())
    assert [s["commit"] for s in record["sessions"]] == ["aaa", "bbb"] and record["commit"] == "aaa"
    assert bench.commits_of(record) == "aaa then bbb"
    assert bench.commits_of({"commit": "ccc"}) == "ccc"  # a record written before sessions were noted


def test_a_rows_record_keeps_the_sessions_of_its_own_run() -> None:
    sessions = [{"commit": "old", "run": None}, {"commit": "old2", "run": "r0"},  # an earlier run of the row
                {"commit": "a", "run": None}, {"commit": "b", "run": "r1"}, {"commit": "c", "run": "r1"}]
    assert [s["commit"] for s in bench.sessions_of_run(sessions, "r1")] == ["a", "b", "c"]
    assert [s["commit"] for s in bench.sessions_of_run(sessions[:3], "r2")] == ["a"]  # finished in one session
    legacy = [{"commit": "x"}, {"commit": "y"}]
    assert bench.sessions_of_run(legacy, "r1") == legacy


def test_a_saved_row_whose_run_is_not_here_is_trained(tmp_path: Path) -> None:
    save = tmp_path / "save"
    (save / "demo").mkdir(parents=True)
    (save / "demo" / "results.json").write_text(json.dumps({"run_id": "abc", "status": "complete"}), encoding="utf-8")
    assert not bench.saved_and_converged("demo", tmp_path / "runs", save, run=tmp_path / "runs" / "demo" / "demo" / "abc")


def test_a_second_seed_is_a_row_of_its_own_and_threads_leave_the_run_alone(tmp_path: Path) -> None:
    from mlparse.config import load_recipe

    assert bench.row_names(["jackknife", "joint"], "no", seed=2) == ["jackknife@seed2", "joint@seed2"]
    assert bench.row_names(["gold"], "both", seed=1) == ["gold", "gold+chars"]  # the recipe's seed: the plain rows
    assert bench.row_parts("jackknife+chars@seed2") == ("jackknife", True, 2)
    assert bench.row_parts("gold") == ("gold", False, 1)
    command = bench.command_of("joint@seed2", tmp_path, threads=1)
    assert command[-2:] == ["--runs-dir", str(tmp_path / "joint@seed2")]
    sets = [command[i + 1] for i, word in enumerate(command) if word == "--set"]
    assert "train.seed=2" in sets and "train.num_threads=1" in sets and "biaffine.predict_tags=true" in sets
    assert "train.seed=2" not in bench.command_of("joint", tmp_path, threads=1)
    plain = load_recipe(bench.RECIPE, [s for s in sets if s != "train.seed=2"])
    assert load_recipe(bench.RECIPE, sets).hash() != plain.hash()  # another seed, another run
    assert plain.hash() == load_recipe(bench.RECIPE, [s for s in sets if s.startswith(("data.", "biaffine."))]).hash()


def test_the_table_shows_a_seed_rows_seed_patience_and_gap_to_gold(tmp_path: Path) -> None:
    for row, las in (("gold", 84.0), ("jackknife@seed2", 80.5)):
        (tmp_path / row).mkdir()
        (tmp_path / row / "results.json").write_text(json.dumps({
            "epochs": 30, "training_seconds": 3600, "dev": {"las": las - 0.5}, "test": {"las": las},
            "input_tags": {"accuracy": {"train": 95.5, "dev": 95.0, "test": 95.25}},
            "convergence": {"converged": True, "patience_epochs": 3}}), encoding="utf-8")
    lines = bench.table(tmp_path, ["gold", "jackknife@seed2", "joint@seed2"]).splitlines()
    assert lines[3].startswith("| jack-knifed UPOS | no | 2 | 95.50 / 95.00 / 95.25 | yes (patience 3 epochs) | 30.0 |")
    assert "| 80.50 | -3.50 |" in lines[3]
    assert lines[4].startswith("| UPOS from the parser's tagging head | no | 2 | not converged yet |")


def test_a_row_whose_run_fails_ends_the_driver_with_a_message_not_a_traceback(tmp_path: Path, monkeypatch,
                                                                              capsys) -> None:  # type: ignore[no-untyped-def]
    def failing(row, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise bench.subprocess.CalledProcessError(1, ["mlparse", "run"])

    monkeypatch.setattr(bench, "train_row", failing)
    assert bench.main(["--runs-dir", str(tmp_path), "--rows", "gold", "--chars", "no", "--save", str(tmp_path)]) == 1
    assert "row gold: `mlparse run` stopped with exit status 1" in capsys.readouterr().err


def test_a_peers_row_saves_the_peers_own_log_as_its_curve(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """An external run writes no log.jsonl; its peer's own log (SuPar's model.train.log) is saved in its place."""
    runs, save = tmp_path / "runs", tmp_path / "save"
    run = runs / "peer-row" / "recipe" / "p1"
    monkeypatch.setattr(bench, "head_commit", lambda: "aaa")
    monkeypatch.setattr(bench, "machine", lambda: "a test machine")

    def fake_run(command, **kwargs):  # type: ignore[no-untyped-def]
        (run / "peer").mkdir(parents=True)
        (run / "results.json").write_text(json.dumps({"run_id": "p1", "status": "complete"}), encoding="utf-8")
        (run / "peer" / "model.train.log").write_text("Epoch 1 / 5000:\ndev: LAS: 80.00%\n", encoding="utf-8")
        (run / "peer" / "train.log").write_text("progress bars\n" * 1000, encoding="utf-8")

    monkeypatch.setattr(bench.subprocess, "run", fake_run)
    bench.train_row("peer-row", runs, save, "tests", command=["python3", "-m", "mlparse", "run", "x"], run=run)
    saved = sorted(p.name for p in (save / "peer-row").iterdir())
    assert saved == ["machine.json", "peer-model.train.log", "results.json"]  # not its progress bars
    assert "LAS: 80.00%" in (save / "peer-row" / "peer-model.train.log").read_text()
