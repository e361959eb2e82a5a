"""Leaderboards: run selection, data-set separation, averages and the Δ row."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlparse.run_index.collect import collect_runs
from mlparse.report.leaderboard import average, build_leaderboards, select_runs
from mlparse.report.published import load_published
from helpers.report_fixtures import SMALL_PUBLISHED_YAML, write_run


@pytest.fixture()
def small_published(tmp_path: Path):
    path = tmp_path / "published.yaml"
    path.write_text(SMALL_PUBLISHED_YAML, encoding="utf-8")
    return load_published(path)


def test_average_needs_every_language() -> None:
    assert average({"a": 90.0, "b": 94.0}, ["a", "b"]) == 92.0
    assert average({"a": 90.0, "b": None}, ["a", "b"]) is None
    assert average({"a": 90.0}, ["a", "b"]) is None


def test_latest_and_best_selection(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "hebrew", "a", dev={"f1": 91.0}, test={"f1": 90.0}, finished_at="2026-01-01T00:00:00Z")
    write_run(runs, "hebrew", "b", dev={"f1": 89.0}, test={"f1": 88.0}, finished_at="2026-01-02T00:00:00Z")
    write_run(runs, "hebrew", "c", status="running", dev={"f1": 95.0}, started_at="2026-01-03T00:00:00Z")
    records = collect_runs(runs)
    assert [r.run_id for r in select_runs(records, "latest")] == ["b"]  # latest *complete* run
    assert [r.run_id for r in select_runs(records, "best")] == ["a"]  # best dev F1 among complete runs


def test_recipe_without_complete_run_shows_its_state(tmp_path: Path, small_published) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "hebrew", "r1", status="failed", error="boom")
    write_run(runs, "polish", "r1", language="polish", status="running", dev={"f1": 80.0})
    (board,) = build_leaderboards(collect_runs(runs), small_published, split="test")
    (row,) = board.measured_rows()
    assert row.cells["hebrew"].state == "failed" and row.cells["hebrew"].value is None
    assert row.cells["polish"].state == "running"
    assert row.average is None and board.delta == {}  # incomplete runs never enter Δ or averages
    (dev_board,) = build_leaderboards(collect_runs(runs), small_published, split="dev")
    (dev_row,) = dev_board.measured_rows()
    assert dev_row.cells["polish"].value == 80.0 and dev_row.cells["polish"].state == "running"


def test_average_and_delta_columns(tmp_path: Path, small_published) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "hebrew", "r1", language="hebrew", test={"f1": 91.4})
    write_run(runs, "polish", "r1", language="polish", test={"f1": 93.0})
    (board,) = build_leaderboards(collect_runs(runs), small_published, split="test")
    assert board.languages == ["hebrew", "polish"]
    old, other, ours = board.rows
    assert (old.system, old.kind, other.system, ours.kind) == ("Old system", "published", "Other", "measured")
    assert old.average == pytest.approx((90.0 + 93.5) / 2)
    assert other.average is None  # Other has no Polish score
    assert ours.average == pytest.approx((91.4 + 93.0) / 2)
    # Δ = ours − best previous per language: Hebrew max(90.0, 89.5), Polish 93.5 only.
    assert board.delta["hebrew"] == pytest.approx(91.4 - 90.0)
    assert board.delta["polish"] == pytest.approx(93.0 - 93.5)
    assert board.delta_average == pytest.approx(92.2 - 91.75)


def test_datasets_never_share_a_column(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "english", "r1", dataset="ptb", language="english", test={"f1": 93.0})
    write_run(runs, "sample", "r1", dataset="ptb-sample", language="english", test={"f1": 70.0})
    boards = build_leaderboards(collect_runs(runs), load_published(), split="test")
    by_dataset = {board.dataset: board for board in boards}
    assert set(by_dataset) == {"ptb", "ptb-sample"}
    sample = by_dataset["ptb-sample"]
    assert [row.kind for row in sample.rows] == ["measured"] and sample.delta == {}
    ptb = by_dataset["ptb"]
    assert any(row.kind == "published" and row.system == "Kitaev & Klein (2018), CharLSTM" for row in ptb.rows)
    assert [row.cells["english"].value for row in ptb.measured_rows()] == [93.0]
    assert ptb.delta["english"] == pytest.approx(93.0 - 96.38)  # best published PTB test F1 (Mrini et al.)


def test_published_modes(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    published = load_published()
    assert build_leaderboards([], published, published_mode="matching") == []
    everything = build_leaderboards([], published, split="test", published_mode="all")
    assert {(b.task, b.dataset, b.scoring, b.metric) for b in everything} == {
        ("constituency", "ptb", None, "f1"), ("constituency", "ctb", None, "f1"), ("constituency", "spmrl", None, "f1"),
        ("dependency", "ptb-sd", "ptb", "uas"), ("dependency", "ptb-sd", "ptb", "las"),
        ("dependency", "ctb-dep", "ptb", "uas"), ("dependency", "ctb-dep", "ptb", "las"),
        ("dependency", "conll09-zh", "conll18", "uas"), ("dependency", "conll09-zh", "conll18", "las")}
    write_run(runs, "english", "r1", dataset="ptb", language="english", test={"f1": 93.0})
    (only,) = build_leaderboards(collect_runs(runs), published, published_mode="none")
    assert [row.kind for row in only.rows] == ["measured"]


def test_two_recipes_for_one_cell_are_warned(tmp_path: Path, small_published) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "hebrew", "r1", test={"f1": 91.0})
    write_run(runs, "hebrew-big", "r1", test={"f1": 92.0})
    warnings: list = []
    (board,) = build_leaderboards(collect_runs(runs), small_published, warnings=warnings)
    (row,) = board.measured_rows()
    assert row.cells["hebrew"].value == 92.0 and row.cells["hebrew"].run == "hebrew-big/r1"
    assert len(warnings) == 1 and "hebrew/r1" in warnings[0] and "hebrew-big/r1" in warnings[0]


def test_evalb_parameter_files_never_share_a_table(tmp_path: Path) -> None:
    # the same Hebrew trees scored with COLLINS.prm and with the SPMRL file: two tables, each naming its file
    runs = tmp_path / "runs"
    write_run(runs, "hebrew-collins", "r1", system="mlparse span (COLLINS.prm)",
              dev={"f1": 91.0, "scorer": "evalb COLLINS.prm"}, test={"f1": 91.5, "scorer": "evalb COLLINS.prm"})
    write_run(runs, "hebrew-spmrl", "r1", system="mlparse span (spmrl.prm)",
              dev={"f1": 89.0, "scorer": "evalb spmrl.prm"}, test={"f1": 89.5, "scorer": "evalb spmrl.prm"})
    write_run(runs, "hebrew-old", "r1", system="mlparse span (older results.json)", test={"f1": 90.0})
    records = collect_runs(runs)
    assert {r.recipe: r.evalb_params for r in records} == {
        "hebrew-collins": "COLLINS.prm", "hebrew-spmrl": "spmrl.prm", "hebrew-old": None}
    boards = {board.evalb_params: board for board in build_leaderboards(records, load_published(), split="test")}
    assert set(boards) == {"COLLINS.prm", "spmrl.prm", None}
    assert {params: [row.system for row in board.measured_rows()] for params, board in boards.items()} == {
        "COLLINS.prm": ["mlparse span (COLLINS.prm)"], "spmrl.prm": ["mlparse span (spmrl.prm)"],
        None: ["mlparse span (older results.json)"]}
    assert boards["COLLINS.prm"].title == "constituency · spmrl (evalb COLLINS.prm) · test · F1"
    assert boards["spmrl.prm"].title == "constituency · spmrl (evalb spmrl.prm) · test · F1"
    assert boards[None].title == "constituency · spmrl · test · F1"  # a run that does not record its file: as before
    # Kitaev & Klein's SPMRL scores (SPMRL evalb) sit beside the runs scored the same way only, and Δ with them
    assert not boards["COLLINS.prm"].published_rows() and boards["COLLINS.prm"].delta == {}
    assert any(row.system.startswith("Kitaev & Klein (2018)") for row in boards["spmrl.prm"].published_rows())
    best = max(row.cells["hebrew"].value for row in boards["spmrl.prm"].published_rows() if "hebrew" in row.cells)
    assert boards["spmrl.prm"].delta["hebrew"] == pytest.approx(89.5 - best)
    assert boards[None].published_rows()


def test_a_run_scored_with_two_evalb_files_is_warned(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_run(runs, "hebrew", "r1", dev={"f1": 91.0, "scorer": "evalb COLLINS.prm"},
              test={"f1": 91.5, "scorer": "evalb spmrl.prm"})
    (record,) = collect_runs(runs)
    assert record.evalb_params == "spmrl.prm"
    assert any("different evalb parameter files (COLLINS.prm and spmrl.prm)" in warning for warning in record.warnings)
