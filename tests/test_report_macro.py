"""The report's UD macro averages: over treebanks and over languages with their counts, CoNLL 2018 size groups,
and the treebanks a system lacks named (never averaged over fewer silently)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mlparse.report.macro import language_of, macro_tables, size_group
from mlparse.report.model import build_report
from mlparse.report.render_json import report_dict
from mlparse.report.render_markdown import render_markdown
from mlparse.report.render_text import render_text
from helpers.report_fixtures import dependency_run

OTHER = "mlparse biaffine (BiLSTM, words + tags)"


def sizes(train: int, dev: int) -> dict:
    return {"train": {"sentences": train // 20, "words": train}, "dev": {"sentences": dev // 20, "words": dev},
            "test": {"sentences": 100, "words": 2000}}


def write_runs(runs: Path) -> None:
    # treebank: (LAS of the first system, LAS of the second or None, sizes, carved dev)
    table = {
        "UD_English-EWT": (90.0, 88.0, sizes(200_000, 25_000), None),
        "UD_English-GUM": (80.0, 82.0, sizes(80_000, 10_000), None),
        "UD_Finnish-TDT": (70.0, None, sizes(160_000, 18_000), None),
        "UD_Irish-IDT": (60.0, 50.0, sizes(9_000, 0), {"rule": "r"}),  # small: dev carved from train
        "UD_Buryat-BDT": (20.0, 10.0, sizes(150, 0), None),  # low-resource
    }
    for treebank, (first, second, data, carved) in table.items():
        dependency_run(runs, f"ud-{treebank}", treebank, test={"uas": first + 5, "las": first},
                       dev={"uas": first + 5, "las": first}, data_sizes=data, dev_carved=carved)
        if second is not None:
            dependency_run(runs, f"bilstm-{treebank}", treebank, system=OTHER, data_sizes=data, dev_carved=carved,
                           test={"uas": second + 5, "las": second}, dev={"uas": second + 5, "las": second})


def test_macro_averages_over_treebanks_languages_and_size_groups(tmp_path: Path) -> None:
    write_runs(tmp_path)
    report = build_report(tmp_path, published_mode="none")
    (las,) = [t for t in macro_tables(report) if t.metric == "las"]
    assert las.group_of == {"UD_Buryat-BDT": "low-resource", "UD_English-EWT": "big", "UD_English-GUM": "big",
                            "UD_Finnish-TDT": "big", "UD_Irish-IDT": "small"}
    first, second = sorted(las.rows, key=lambda row: row.system != "mlparse biaffine (self-attentive, words + tags)")
    assert (first.treebanks.value, first.treebanks.n, first.treebanks.total) == (64.0, 5, 5)
    # languages: English (90 + 80) / 2 = 85, Finnish 70, Irish 60, Buryat 20
    assert first.languages.value == pytest.approx((85 + 70 + 60 + 20) / 4) and first.languages.n == 4
    assert first.groups["big"].value == 80.0 and first.groups["big"].n == 3
    assert first.groups["small"].value == 60.0 and first.groups["low-resource"].value == 20.0
    # the second system has no Finnish run: named, and every average says over how many
    assert second.treebanks.missing == ["UD_Finnish-TDT"]
    assert (second.treebanks.value, second.treebanks.n, second.treebanks.total) == (57.5, 4, 5)
    assert (second.languages.n, second.languages.total, second.languages.missing) == (3, 4, ["Finnish"])
    assert (second.groups["big"].n, second.groups["big"].total) == (2, 3)


def test_every_format_shows_the_counts_and_the_missing_treebanks(tmp_path: Path) -> None:
    write_runs(tmp_path)
    report = build_report(tmp_path, published_mode="none")
    markdown = render_markdown(report)
    assert "## Macro averages (Universal Dependencies)" in markdown
    assert "| mlparse biaffine (self-attentive, words + tags) | 64.00 (5 treebanks) | 58.75 (4 languages) |" in markdown
    assert "57.50 (4 of 5 treebanks)" in markdown
    assert f"{OTHER}: missing 1 of 5 treebanks (no complete run): UD_Finnish-TDT" in markdown
    assert "big: UD_English-EWT, UD_English-GUM, UD_Finnish-TDT; small: UD_Irish-IDT; low-resource: UD_Buryat-BDT" in markdown
    text = render_text(report, width=250)
    assert "macro averages" in text and "57.50 (4 of 5 treebanks)" in text
    tables = json.loads(json.dumps(report_dict(report)))["macro_averages"]
    assert {t["metric"] for t in tables} == {"uas", "las"}


def test_a_failed_run_counts_as_missing(tmp_path: Path) -> None:
    dependency_run(tmp_path, "ud-UD_English-EWT", "UD_English-EWT", test={"uas": 90.0, "las": 88.0})
    failed = dependency_run(tmp_path, "ud-UD_Finnish-TDT", "UD_Finnish-TDT", status="failed", error="out of memory")
    (failed / "recipe.yaml").write_text("eval: {dependency_scoring: conll18}\n", encoding="utf-8")  # as a run writes it
    (las,) = [t for t in macro_tables(build_report(tmp_path, published_mode="none")) if t.metric == "las"]
    (row,) = las.rows
    assert (row.treebanks.value, row.treebanks.n, row.treebanks.total, row.treebanks.missing) == \
        (88.0, 1, 2, ["UD_Finnish-TDT"])
    assert las.group_of == {"UD_English-EWT": "unknown", "UD_Finnish-TDT": "unknown"}  # no sizes recorded


def test_no_macro_section_without_ud_runs(tmp_path: Path) -> None:
    dependency_run(tmp_path, "ptb-dep", "english", dataset="ptb", test={"uas": 95.0, "las": 93.0})
    report = build_report(tmp_path, published_mode="none")
    assert macro_tables(report) == [] and "Macro averages" not in render_markdown(report)


@pytest.mark.parametrize("train, dev, carved, group", [
    (10_000, 5_000, None, "big"), (9_999, 5_000, None, "small"), (10_000, 4_999, None, "small"),
    (50_000, 6_000, {"rule": "r"}, "small"), (999, 0, None, "low-resource"), (0, 0, None, "low-resource")])
def test_size_groups_follow_conll_2018(train: int, dev: int, carved, group: str) -> None:
    assert size_group(sizes(train, dev), carved) == group


def test_language_of_a_treebank_name() -> None:
    assert [language_of(n) for n in ("UD_English-EWT", "UD_Basque-BDT-r1.4", "UD_Old_French-SRCMF", "mine")] == \
        ["English", "Basque", "Old_French", "mine"]
