"""Published reference scores: the YAML loads, is self-consistent, and matches the paper texts."""

from __future__ import annotations

import re
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from mlparse.report.leaderboard import best_previous_delta
from mlparse.report.published import PublishedDataError, load_published

PAPERS_DIR = Path(__file__).resolve().parents[2] / "shared" / "papers"
PAPER_FILES = {"kitaev2018": "000_", "mrini2020": "001_"}


@pytest.fixture(scope="module")
def published():
    return load_published()


def test_loads_every_required_table(published) -> None:
    ids = {table.citation.table_id for table in published.tables}
    assert {"kitaev2018-table5", "kitaev2018-table6", "kitaev2018-table7-dev", "kitaev2018-table7-test",
            "mrini2020-table3"} <= ids
    spmrl = published.table("kitaev2018-table7-test")
    languages = {language for dataset, language, _ in spmrl.columns}
    assert len(languages) == 9 and {dataset for dataset, _, _ in spmrl.columns} == {"spmrl"}
    assert all(row.citation.paper.year == 2018 for row in spmrl.rows)


def test_reported_averages_match_the_values(published) -> None:
    checked = 0
    for row in published.rows():
        if row.reported_average is None:
            continue
        values = [metrics["f1"] for metrics in row.scores.values()]
        # The paper prints two decimals; Coavoux & Crabbé's dev Avg (87.16) is itself truncated.
        assert abs(sum(values) / len(values) - row.reported_average) <= 0.0101, row.system
        checked += 1
    assert checked == 6


def test_f1_agrees_with_recall_and_precision(published) -> None:
    checked = 0
    for row in published.rows():
        for (dataset, language), metrics in row.scores.items():
            if {"recall", "precision", "f1"} <= set(metrics):
                r, p = metrics["recall"], metrics["precision"]
                # Inputs carry one or two decimals; harmonic mean must agree to that rounding.
                assert abs(2 * r * p / (r + p) - metrics["f1"]) <= 0.1, (row.system, language)
                checked += 1
    assert checked >= 10


def test_table5_relative_column_matches(published) -> None:
    table = published.table("kitaev2018-table5")
    base = next(row for row in table.rows if row.reported_relative == 0.0)
    for row in table.rows:
        delta = row.scores[("ptb", "english")]["f1"] - base.scores[("ptb", "english")]["f1"]
        assert round(delta, 2) == row.reported_relative


def test_our_delta_reproduces_table7_delta_row(published) -> None:
    """The paper's Δ row (Kitaev & Klein − best previous), recomputed by the report's Δ code."""
    table = published.table("kitaev2018-table7-test")
    ours, previous = table.rows[-1], table.rows[:-1]
    columns = [(dataset, language) for dataset, language, _ in table.columns]
    ours_scores = {key: ours.scores[key]["f1"] for key in columns}
    previous_scores = [{k: v["f1"] for k, v in row.scores.items()} for row in previous]
    delta = best_previous_delta(ours_scores, previous_scores, columns)
    assert [round(delta[key], 2) for key in columns] == table.reported_delta


def test_malformed_yaml_names_the_entry(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "papers: {p: {short: P, authors: A, year: 2000, title: T, venue: V}}\n"
        "tables:\n  - {id: t1, paper: p, table: 1, task: constituency, split: test,\n"
        "     columns: [{dataset: ptb, language: english, metric: f1}],\n"
        "     rows: [{system: S, values: [1.0, 2.0]}]}\n",
        encoding="utf-8",
    )
    with pytest.raises(PublishedDataError, match=r"t1.*row 0"):
        load_published(bad)


# --------------------------------------------------------------------------- against the papers

def _clean(cell: str) -> str:
    cell = re.sub(r"<sup>.*?</sup>", "", cell)
    return re.sub(r"</?b>", "", cell).strip()


def _numbers(line: str) -> Tuple[str, List[Optional[float]]]:
    cells = [_clean(cell) for cell in line.split("\t")]
    return cells[0], [None if cell in ("–", "-", "") else float(cell) for cell in cells[1:]]


def _table_region(lines: List[str], number: int) -> Tuple[int, int]:
    end = next(i for i, line in enumerate(lines) if line.startswith(f"Table {number}:"))
    starts = [i for i, line in enumerate(lines[:end]) if line.startswith(f"Table {number - 1}:")]
    return (starts[-1] if starts else 0), end


def _paper_rows(lines: List[str], region: Tuple[int, int], labels: List[str], start: int) -> List[Tuple[int, List]]:
    found = []
    position = start
    for label in labels:
        for index in range(position, region[1]):
            if "\t" in lines[index] and _clean(lines[index].split("\t")[0]) == label:
                found.append((index, _numbers(lines[index])[1]))
                position = index + 1
                break
        else:
            raise AssertionError(f"row {label!r} not found in the paper's table")
    return found


@pytest.mark.parametrize("table_id", [
    "kitaev2018-table5", "kitaev2018-table6", "kitaev2018-table7-dev", "kitaev2018-table7-test",
    "mrini2020-table3", "mrini2020-table4",
])
def test_every_number_matches_the_paper_text(published, table_id: str) -> None:
    table = published.table(table_id)
    paper_key = table.citation.paper.key
    files = sorted(PAPERS_DIR.glob(f"{PAPER_FILES[paper_key]}*.txt")) if PAPERS_DIR.is_dir() else []
    if not files:
        pytest.skip(f"paper texts not found in {PAPERS_DIR}")
    lines = files[0].read_text(encoding="utf-8").splitlines()
    region = _table_region(lines, table.citation.table)
    labels = [row.paper_label or row.system for row in table.rows]
    start = region[0]
    if table_id.endswith("-test") and table.citation.table == 7:  # the test block follows the dev block
        start = next(i for i in range(*region) if lines[i].startswith("<b>Test"))
    found = _paper_rows(lines, region, labels, start)
    for row, (_, paper_values) in zip(table.rows, found):
        ours: List[Optional[float]] = [row.scores.get((d, l), {}).get(m) for d, l, m in table.columns]
        if len(paper_values) == len(ours) + 1:  # the paper's Avg or Δ column
            extra_value = paper_values.pop()
            assert extra_value == (row.reported_average if row.reported_average is not None
                                   else row.reported_relative), row.system
        assert paper_values == ours, row.system
    if table.reported_delta is not None:
        _, delta_values = _paper_rows(lines, region, ["Δ: Ours - Best Previous"], found[-1][0])[0]
        assert delta_values[:len(table.columns)] == table.reported_delta
        assert all(value is None for value in delta_values[len(table.columns):])  # the empty Avg cell
