"""Collecting run folders: every state, broken and old files, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

from mlparse.run_index.collect import NO_RESULTS, UNKNOWN, UNREADABLE, collect_runs, read_log
from mlparse.results import RunResults
from helpers.report_fixtures import write_raw, write_run


def test_states_of_real_run_folders(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "hebrew", "r1", dev={"f1": 90.0}, test={"f1": 91.0}, log=[80.0, 85.0, 90.0])
    write_run(runs, "hebrew", "r2", status="running", dev={"f1": 70.0})
    write_run(runs, "polish", "r1", status="failed", error="CUDA out of memory")
    write_raw(runs, "broken", "r1", '{"status": "complete", "dev": {')
    write_raw(runs, "array", "r1", "[1, 2, 3]")
    write_raw(runs, "weird", "r1", json.dumps({"status": "paused", "schema_version": 1}))
    write_raw(runs, "starting", "r1", json.dumps({"step": 100, "epoch": 0.5, "dev_f1": 50.0, "lr": 0.001}) + "\n",
              name="log.jsonl")
    records = {record.label: record for record in collect_runs(runs)}
    assert sorted(records) == ["array/r1", "broken/r1", "hebrew/r1", "hebrew/r2", "polish/r1", "starting/r1",
                               "weird/r1"]
    assert records["hebrew/r1"].state == "complete" and records["hebrew/r1"].results.test.f1 == 91.0
    assert [entry.dev_score for entry in records["hebrew/r1"].log] == [80.0, 85.0, 90.0]
    assert records["hebrew/r2"].state == "running"  # its lock held by a live process (this one)
    assert records["polish/r1"].state == "failed" and records["polish/r1"].error == "CUDA out of memory"
    broken = records["broken/r1"]
    assert broken.state == UNREADABLE and broken.results is None
    assert any("broken/r1/results.json:1:" in warning and "invalid JSON" in warning for warning in broken.warnings)
    assert records["array/r1"].state == UNREADABLE
    assert any("expected a JSON object" in warning for warning in records["array/r1"].warnings)
    assert records["weird/r1"].state == UNKNOWN
    assert records["starting/r1"].state == NO_RESULTS and len(records["starting/r1"].log) == 1


def test_older_schema_and_wrong_types_are_tolerated_and_reported(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_raw(runs, "old", "r1", json.dumps({
        "recipe": "old", "dataset": "spmrl", "language": "german",
        "dev": {"f1": "n/a", "recall": 88.5}, "test": [1, 2], "training_seconds": "long",
        "hardware": "a GPU", "extra_field": 1,
    }))
    (record,) = collect_runs(runs)
    assert record.state == "complete"  # scores present and no status field: an old finished run
    assert record.results.schema_version == 0
    assert record.results.dev.recall == 88.5 and record.results.dev.f1 is None
    assert record.results.test is None and record.results.training_seconds is None
    assert record.results.hardware == {}
    text = "\n".join(record.warnings)
    for fragment in ("dev.f1", "test: expected an object", "training_seconds", "hardware"):
        assert fragment in text
    assert any("extra_field" in note for note in record.notes)
    assert any("schema_version" in note for note in record.notes)


def test_newer_schema_is_warned(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_raw(runs, "new", "r1", json.dumps({"schema_version": 99, "status": "complete", "test": {"f1": 90.0}}))
    (record,) = collect_runs(runs)
    assert record.results.test.f1 == 90.0
    assert any("newer" in warning for warning in record.warnings)


def test_log_with_bad_and_partial_lines(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    good = json.dumps({"step": 1, "epoch": 0.1, "dev_f1": 50.0, "lr": 0.001})
    path.write_text("\n".join([good, "not json", json.dumps({"epoch": 1}), "", good.replace("50.0", "60.0"),
                               '{"step": 5, "dev_'])
                    , encoding="utf-8")
    entries, warnings = read_log(path)
    assert [entry.dev_score for entry in entries] == [50.0, 60.0]
    assert any(f"{path}:2:" in warning for warning in warnings)
    assert any(f"{path}:3:" in warning for warning in warnings)
    assert any(f"{path}:6:" in warning and "incomplete last line" in warning for warning in warnings)


def test_undecodable_bytes_are_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "runs" / "bin" / "r1"
    folder.mkdir(parents=True)
    (folder / "results.json").write_bytes(b"\xff\xfe\x00garbage")
    (record,) = collect_runs(tmp_path / "runs")
    assert record.state == UNREADABLE and "cannot read" in record.warnings[0]


def test_temporary_files_of_atomic_writes_are_ignored(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    folder = write_run(runs, "hebrew", "r1", test={"f1": 91.0})
    (folder / ".results.json.abc.tmp").write_text("{", encoding="utf-8")
    (record,) = collect_runs(runs)
    assert record.state == "complete" and not record.warnings


def test_run_notes_are_read_and_bad_ones_warned(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_raw(runs, "a", "r1", json.dumps({"schema_version": 1, "status": "complete", "notes": ["left out 2 trees"]}))
    write_raw(runs, "b", "r1", json.dumps({"schema_version": 1, "status": "complete", "notes": "left out 2 trees"}))
    write_raw(runs, "c", "r1", json.dumps({"schema_version": 1, "status": "complete"}))  # written before notes existed
    good, bad, old = collect_runs(runs)
    assert good.results.notes == ["left out 2 trees"] and not good.warnings
    assert bad.results.notes == [] and any("notes: expected a list of strings" in w for w in bad.warnings)
    assert old.results.notes == [] and not old.warnings and not old.notes


def test_results_from_json_dict_tolerates_bad_notes() -> None:
    assert RunResults.from_json_dict({"notes": ["a", 3, "b"]}).notes == ["a", "b"]
    assert RunResults.from_json_dict({"notes": None}).notes == []
    assert RunResults.from_json_dict({}).notes == []


def test_log_reads_dev_score_and_the_older_dev_f1(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_raw(runs, "ewt", "r1", json.dumps({"schema_version": 1, "status": "running", "task": "dependency"}))
    lines = [
        {"step": 1, "epoch": 0.1, "dev_f1": 50.0, "lr": 0.001},  # written before dev_score and metric
        {"step": 2, "epoch": 0.2, "dev_score": 61.5, "metric": "las", "lr": 0.001},
        {"step": 3, "epoch": 0.3, "dev_score": 62.5, "lr": 0.001},  # no metric: the task's (LAS)
        {"step": 4, "epoch": 0.4, "dev_score": 63.0, "metric": 7, "lr": 0.001},
        {"step": 5, "epoch": 0.5, "dev_score": "n/a", "dev_f1": 64.0, "lr": 0.001},
        {"step": 6, "epoch": 0.6, "dev_score": 65.0, "dev_f1": 1.0, "metric": "las", "lr": 0.001},
    ]
    path = runs / "ewt" / "r1" / "log.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    (record,) = collect_runs(runs)
    assert [(entry.step, entry.dev_score, entry.metric) for entry in record.log] == [
        (1, 50.0, "f1"), (2, 61.5, "las"), (3, 62.5, "las"), (4, 63.0, "las"), (6, 65.0, "las")]
    assert len(record.warnings) == 2
    assert f"{path}:4: metric" in record.warnings[0] and f"{path}:5: needs numeric" in record.warnings[1]


def test_scoring_convention_of_dependency_runs(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    scorer = "depeval conll18-v1.2+depeval-1.0 ({})"

    def results(name: str, **fields) -> None:
        write_raw(runs, name, "r1", json.dumps({"schema_version": 1, "status": "complete", **fields}))

    results("conll", task="dependency", dev={"las": 80.0, "scorer": scorer.format("conll18")},
            test={"las": 79.0, "scorer": scorer.format("conll18")})
    results("ptb", task="dependency", test={"las": 90.0, "scorer": scorer.format("ptb")})
    results("mixed", task="dependency", dev={"las": 80.0, "scorer": scorer.format("conll18")},
            test={"las": 79.0, "scorer": scorer.format("ptb")})
    results("failed", task="dependency", status="failed", error="boom")
    write_raw(runs, "failed", "r1", "eval:\n  dependency_scoring: ptb\n", name="recipe.yaml")
    results("bare", task="dependency", status="failed", error="boom")
    results("spans", dev={"f1": 80.0, "scorer": "evalb COLLINS.prm"})
    results("bad", task="dependency", test={"las": 79.0, "scorer": 3})
    found = {record.recipe: record for record in collect_runs(runs)}
    assert {name: record.scoring for name, record in found.items()} == {
        "conll": "conll18", "ptb": "ptb", "mixed": "ptb", "failed": "ptb", "bare": "unknown", "spans": None,
        "bad": "unknown"}
    assert any("different conventions (conll18 and ptb)" in warning for warning in found["mixed"].warnings)
    assert any("test.scorer: expected a string" in warning for warning in found["bad"].warnings)
    assert not found["conll"].warnings and not found["failed"].warnings
