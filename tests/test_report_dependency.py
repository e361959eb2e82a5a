"""Dependency leaderboards: UAS and LAS tables per data set and scoring convention, beside constituency runs,
published rows only where data set and convention match; old ``dev_f1`` logs still read."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from mlparse.report import plots as plots_module
from mlparse.report.output import report_plots
from mlparse.run_index.collect import collect_runs
from mlparse.report.leaderboard import build_leaderboards
from mlparse.report.model import build_report
from mlparse.report.output import render, write_report
from mlparse.report.published import load_published
from mlparse.report.render_markdown import render_markdown
from helpers.report_fixtures import BIAFFINE, CONLL18, PTB, dependency_run, write_raw, write_run

#: A hand-written table of UD scores (no paper in published.yaml has one): to check that published rows
#: sit beside runs scored the same way, and only those.
SMALL_UD_PUBLISHED_YAML = """\
papers:
  roe2019: {short: Roe 2019, authors: Ann Roe, year: 2019, title: A Dependency Parser, venue: ACL 2019}
datasets:
  ud: {name: Universal Dependencies, scoring: conll18}
tables:
  - id: roe2019-table3
    paper: roe2019
    table: 3
    caption: UD test sets
    task: dependency
    split: test
    columns:
      - {dataset: ud, language: UD_English-EWT, metric: uas}
      - {dataset: ud, language: UD_English-EWT, metric: las}
      - {dataset: ud, language: UD_Hungarian-Szeged, metric: uas}
      - {dataset: ud, language: UD_Hungarian-Szeged, metric: las}
    rows:
      - {system: Old parser, values: [88.0, 85.0, 81.0, 76.0]}
      - {system: Other, values: [89.0, 86.9, null, null], notes: {UD_English-EWT: gold tokens}}
"""


def write_mixed_runs(runs: Path) -> None:
    """Two UD treebanks scored the CoNLL 2018 way, EWT once more under the PTB convention, a running and a
    failed dependency run, and a constituency run whose log has the older ``dev_f1`` lines."""
    dependency_run(runs, "ewt", "UD_English-EWT", dev={"uas": 90.0, "las": 87.5, "clas": 84.0},
                   test={"uas": 89.2, "las": 86.4, "clas": 83.1}, log=[70.0, 85.0, 87.5])
    dependency_run(runs, "szeged", "UD_Hungarian-Szeged", test={"uas": 80.1, "las": 75.3, "clas": 71.0})
    dependency_run(runs, "ewt-ptb", "UD_English-EWT", scorer=PTB, test={"uas": 91.0, "las": 88.9})
    dependency_run(runs, "szeged-big", "UD_Hungarian-Szeged", status="running", system="mlparse biaffine (big)",
                   dev={"uas": 72.0, "las": 70.0}, log=[60.0, 70.0])
    folder = dependency_run(runs, "ewt-lstm", "UD_English-EWT", status="failed", error="out of memory",
                            system="mlparse biaffine (BiLSTM)")
    write_raw(runs, "ewt-lstm", "r1", "eval:\n  dependency_scoring: ptb\n", name="recipe.yaml")
    assert (folder / "recipe.yaml").is_file()
    write_run(runs, "hebrew", "r1", language="hebrew", dev={"f1": 90.0}, test={"f1": 91.4}, log=[80.0, 90.0],
              legacy_log=True)


@pytest.fixture()
def mixed_report(tmp_path: Path):
    runs = tmp_path / "runs"
    write_mixed_runs(runs)
    yaml_path = tmp_path / "published.yaml"
    yaml_path.write_text(SMALL_UD_PUBLISHED_YAML, encoding="utf-8")
    return build_report(runs, published=load_published(yaml_path))


EXPECTED_LEADERBOARDS = """\
## Leaderboards

### constituency · spmrl · test · F1

| System | Kind | Source | Hebrew |
|---|---|---|---:|
| **mlparse span** | measured | hebrew/r1 | **91.40** |

### dependency · ud (CoNLL 2018 scoring) · test · UAS

| System | Kind | Source | UD_English-EWT | UD_Hungarian-Szeged | Avg |
|---|---|---|---:|---:|---:|
| Old parser | published | Roe 2019, Table 3 [1] | 88.00 | 81.00 | 84.50 |
| Other | published | Roe 2019, Table 3 [1] | 89.00† | – | – |
| **mlparse biaffine (big)** | measured | szeged-big/r1 | – | (running) | – |
| **mlparse biaffine (self-attentive, words + tags)** | measured | ewt/r1, szeged/r1 | **89.20** | **80.10** | **84.65** |
| Δ best measured − best published | delta |  | +0.20 | -0.90 | +0.15 |

- † Other, UD_English-EWT: gold tokens

### dependency · ud (CoNLL 2018 scoring) · test · LAS

| System | Kind | Source | UD_English-EWT | UD_Hungarian-Szeged | Avg |
|---|---|---|---:|---:|---:|
| Old parser | published | Roe 2019, Table 3 [1] | 85.00 | 76.00 | 80.50 |
| Other | published | Roe 2019, Table 3 [1] | 86.90† | – | – |
| **mlparse biaffine (big)** | measured | szeged-big/r1 | – | (running) | – |
| **mlparse biaffine (self-attentive, words + tags)** | measured | ewt/r1, szeged/r1 | **86.40** | **75.30** | **80.85** |
| Δ best measured − best published | delta |  | -0.50 | -0.70 | +0.35 |

- † Other, UD_English-EWT: gold tokens

### dependency · ud (PTB scoring, punctuation excluded) · test · UAS

| System | Kind | Source | UD_English-EWT |
|---|---|---|---:|
| **mlparse biaffine (BiLSTM)** | measured | ewt-lstm/r1 | (failed) |
| **mlparse biaffine (self-attentive, words + tags)** | measured | ewt-ptb/r1 | **91.00** |

### dependency · ud (PTB scoring, punctuation excluded) · test · LAS

| System | Kind | Source | UD_English-EWT |
|---|---|---|---:|
| **mlparse biaffine (BiLSTM)** | measured | ewt-lstm/r1 | (failed) |
| **mlparse biaffine (self-attentive, words + tags)** | measured | ewt-ptb/r1 | **88.90** |

"""


def test_markdown_leaderboards(mixed_report) -> None:
    markdown = render_markdown(mixed_report)
    section = markdown[markdown.index("## Leaderboards"):markdown.index("**Bold**")]
    assert section == EXPECTED_LEADERBOARDS


def test_board_values_averages_and_delta(mixed_report) -> None:
    boards = {(b.task, b.dataset, b.scoring, b.metric): b for b in mixed_report.leaderboards}
    assert list(boards) == [("constituency", "spmrl", None, "f1"),
                            ("dependency", "ud", "conll18", "uas"), ("dependency", "ud", "conll18", "las"),
                            ("dependency", "ud", "ptb", "uas"), ("dependency", "ud", "ptb", "las")]
    las = boards[("dependency", "ud", "conll18", "las")]
    old, other, big, ours = las.rows
    assert ours.cells["UD_English-EWT"].run == "ewt/r1" and ours.cells["UD_Hungarian-Szeged"].run == "szeged/r1"
    assert ours.average == pytest.approx((86.4 + 75.3) / 2)
    assert old.average == pytest.approx((85.0 + 76.0) / 2) and other.average is None
    assert big.cells["UD_Hungarian-Szeged"].state == "running" and big.average is None
    assert las.delta == pytest.approx({"UD_English-EWT": 86.4 - 86.9, "UD_Hungarian-Szeged": 75.3 - 76.0})
    assert las.delta_average == pytest.approx((86.4 + 75.3) / 2 - (85.0 + 76.0) / 2)
    ptb_las = boards[("dependency", "ud", "ptb", "las")]
    assert not ptb_las.published_rows() and ptb_las.delta == {}  # the published table counts every word
    assert [row.cells["UD_English-EWT"].value for row in ptb_las.measured_rows()] == [None, 88.9]
    (hebrew,) = boards[("constituency", "spmrl", None, "f1")].rows  # no dependency score in a constituency table
    assert hebrew.cells == {"hebrew": hebrew.cells["hebrew"]} and hebrew.cells["hebrew"].value == 91.4


def test_dev_split_and_best_selection_use_las(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    dependency_run(runs, "ewt", "UD_English-EWT", dev={"uas": 91.0, "las": 86.0}, test={"uas": 90.0, "las": 85.0},
                   finished_at="2026-01-01T00:00:00Z")
    write_run(runs, "ewt", "r2", task="dependency", dataset="ud", language="UD_English-EWT", system=BIAFFINE,
              dev={"uas": 90.0, "las": 87.0, "scorer": CONLL18}, test={"uas": 89.0, "las": 86.5, "scorer": CONLL18},
              finished_at="2025-01-01T00:00:00Z")
    records = collect_runs(runs)
    latest = build_leaderboards(records, None, split="dev")
    assert [(b.metric, b.rows[0].cells["UD_English-EWT"].value) for b in latest] == [("uas", 91.0), ("las", 86.0)]
    best = build_leaderboards(records, None, split="test", select="best")  # best dev LAS (87.0), not UAS (91.0)
    assert [(b.metric, b.rows[0].cells["UD_English-EWT"].run) for b in best] == [("uas", "ewt/r2"), ("las", "ewt/r2")]


def test_csv_json_and_text(mixed_report) -> None:
    rows = list(csv.DictReader(io.StringIO(render(mixed_report, "csv"))))
    board = [(row["dataset"], row["language"], row["system"], row["kind"], row["value"], row["state"])
             for row in rows if row["section"] == "leaderboard" and row["metric"] == "las"]
    assert board == [
        ("ud (conll18)", "UD_English-EWT", "Old parser", "published", "85.00", ""),
        ("ud (conll18)", "UD_Hungarian-Szeged", "Old parser", "published", "76.00", ""),
        ("ud (conll18)", "average", "Old parser", "published", "80.50", ""),
        ("ud (conll18)", "UD_English-EWT", "Other", "published", "86.90", ""),
        ("ud (conll18)", "UD_Hungarian-Szeged", "mlparse biaffine (big)", "measured", "", "running"),
        ("ud (conll18)", "UD_English-EWT", BIAFFINE, "measured", "86.40", ""),
        ("ud (conll18)", "UD_Hungarian-Szeged", BIAFFINE, "measured", "75.30", ""),
        ("ud (conll18)", "average", BIAFFINE, "measured", "80.85", ""),
        ("ud (conll18)", "UD_English-EWT", "Δ best measured − best published", "delta", "-0.50", ""),
        ("ud (conll18)", "UD_Hungarian-Szeged", "Δ best measured − best published", "delta", "-0.70", ""),
        ("ud (conll18)", "average", "Δ best measured − best published", "delta", "0.35", ""),
        ("ud (ptb)", "UD_English-EWT", "mlparse biaffine (BiLSTM)", "measured", "", "failed"),
        ("ud (ptb)", "UD_English-EWT", BIAFFINE, "measured", "88.90", ""),
    ]
    ewt = {(row["split"], row["metric"]): row["value"] for row in rows
           if row["section"] == "run" and row["source"] == "ewt/r1"}
    assert ewt[("dev", "clas")] == "84.00" and ewt[("test", "las")] == "86.40" and ewt[("test", "scorer")] == CONLL18

    data = json.loads(render(mixed_report, "json"))
    boards = [(b["dataset"], b["scoring"], b["metric"], b["delta"], b["delta_average"]) for b in data["leaderboards"]]
    assert boards[1] == ("ud", "conll18", "uas", pytest.approx({"UD_English-EWT": 89.2 - 89.0,
                                                               "UD_Hungarian-Szeged": 80.1 - 81.0}),
                         pytest.approx((89.2 + 80.1) / 2 - (88.0 + 81.0) / 2))
    assert [b[:3] for b in boards[3:]] == [("ud", "ptb", "uas"), ("ud", "ptb", "las")]
    runs = {run["recipe"]: run for run in data["runs"]}
    assert [(e["dev_score"], e["metric"]) for e in runs["ewt"]["log"]] == [(70.0, "las"), (85.0, "las"), (87.5, "las")]
    assert [(e["dev_score"], e["metric"]) for e in runs["hebrew"]["log"]] == [(80.0, "f1"), (90.0, "f1")]
    assert all("dev_f1" not in entry for run in data["runs"] for entry in run["log"])
    assert (runs["ewt"]["scoring"], runs["ewt-lstm"]["scoring"], runs["hebrew"]["scoring"]) == ("conll18", "ptb", None)

    text = render(mixed_report, "table")
    assert "dependency · ud (CoNLL 2018 scoring) · test · LAS" in text
    assert "dependency · ud (PTB scoring, punctuation excluded) · test · UAS" in text
    assert "UD_English-EWT" in text and "Ud_english-ewt" not in text
    assert "ud/UD_English-EWT (conll18)" in text  # the run table's data column names the convention


def test_run_table_has_clas_and_the_convention(mixed_report) -> None:
    lines = render_markdown(mixed_report).splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("| Run |"))
    table = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[start:]
             if line.startswith("|")][:8]
    header, rows = table[0], {row[0].rstrip(" *"): row for row in table[2:]}
    data, dev_clas, test_las = header.index("Data"), header.index("Dev CLAS"), header.index("Test LAS")
    assert (rows["ewt/r1"][data], rows["ewt/r1"][dev_clas], rows["ewt/r1"][test_las]) == \
        ("ud/UD_English-EWT (conll18)", "84.00", "86.40")
    assert rows["ewt-ptb/r1"][data] == "ud/UD_English-EWT (ptb)"
    assert rows["ewt-lstm/r1"][data] == "ud/UD_English-EWT (ptb)"  # from its recipe.yaml: it failed unscored
    assert rows["hebrew/r1"][data] == "spmrl/hebrew"


def test_html_has_every_board_and_metric_named_plots(mixed_report, tmp_path: Path, monkeypatch) -> None:
    out = tmp_path / "site" / "report.html"
    write_report(mixed_report, "html", out)
    html = out.read_text(encoding="utf-8")
    assert html.count("<table") == 6  # five leaderboards and the run table
    assert "dependency · ud (PTB scoring, punctuation excluded) · test · LAS" in html
    pngs = sorted(path.name for path in (tmp_path / "site" / "report_plots").glob("*.png"))
    assert pngs == ["bars-constituency-spmrl-test-f1.png",
                    "bars-dependency-ud-conll18-test-las.png", "bars-dependency-ud-conll18-test-uas.png",
                    "bars-dependency-ud-ptb-test-las.png", "bars-dependency-ud-ptb-test-uas.png",
                    "dev-f1-constituency-spmrl.png", "dev-las-dependency-ud-conll18.png"]

    labels = []
    monkeypatch.setattr(plots_module, "_png", lambda figure: labels.append(
        (figure.axes[0].get_ylabel(), [len(line.get_xdata()) for line in figure.axes[0].get_lines()])) or b"")
    titles = [plot.title for plot in plots_module.dev_curve_plots(mixed_report)]
    assert titles == ["Dev F1 during training (constituency, spmrl)",
                      "Dev LAS during training (dependency, ud (conll18))"]
    # F1 axis: the older log's two evaluations (and the best-point star); LAS axis: ewt's 3 and szeged-big's 2
    assert labels == [("dev F1", [2, 1]), ("dev LAS", [3, 1, 2, 1])]


def test_published_dependency_rows_never_sit_in_a_ud_column(tmp_path: Path) -> None:
    """The papers' PTB-SD rows stand beside a PTB-SD run scored without punctuation, and nowhere else."""
    runs = tmp_path / "runs"
    dependency_run(runs, "ptb-sd", "english", dataset="ptb-sd", scorer=PTB, test={"uas": 95.0, "las": 93.1})
    dependency_run(runs, "ptb-sd-conll", "english", dataset="ptb-sd", test={"uas": 94.0, "las": 92.0})
    dependency_run(runs, "ewt", "UD_English-EWT", test={"uas": 89.2, "las": 86.4})
    published = load_published()
    boards = {(b.dataset, b.scoring, b.metric): b for b in build_leaderboards(collect_runs(runs), published)}
    assert set(boards) == {(d, s, m) for d, s in (("ptb-sd", "ptb"), ("ptb-sd", "conll18"), ("ud", "conll18"))
                           for m in ("uas", "las")}
    uas, las = boards[("ptb-sd", "ptb", "uas")], boards[("ptb-sd", "ptb", "las")]
    cited = {row.citation.table_id for row in uas.published_rows()}
    assert cited == {"mrini2020-table4", "li2019-table5"}
    best_uas = max(row.cells["english"].value for row in uas.published_rows())
    best_las = max(row.cells["english"].value for row in las.published_rows())
    assert (best_uas, best_las) == (97.42, 96.26)  # Mrini et al. 2020, Table 4
    assert uas.delta == pytest.approx({"english": 95.0 - 97.42})
    assert las.delta == pytest.approx({"english": 93.1 - 96.26})
    for key in (("ptb-sd", "conll18", "las"), ("ud", "conll18", "las")):
        assert [row.kind for row in boards[key].rows] == ["measured"] and boards[key].delta == {}
    everything = build_leaderboards([], published, published_mode="all") + \
        build_leaderboards([], published, split="dev", published_mode="all")
    assert not [b for b in everything if b.task == "dependency" and b.dataset == "ud"]
    chinese = {(b.dataset, b.scoring) for b in everything if b.task == "dependency" and "chinese" in b.languages}
    assert chinese == {("ctb-dep", "ptb"), ("conll09-zh", "conll18")}  # two data sets, never one column


def test_old_results_without_task_and_old_logs_still_work(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    write_raw(runs, "old", "r1", json.dumps({"dataset": "spmrl", "language": "polish", "test": {"f1": 93.0}}))
    write_raw(runs, "old", "r1", "\n".join(json.dumps({"step": s, "epoch": s / 100, "dev_f1": f, "lr": 1e-3})
                                           for s, f in ((100, 88.0), (200, 92.5))) + "\n", name="log.jsonl")
    report = build_report(runs, published_mode="none")
    ((record,), (board,)) = (report.records, report.leaderboards)
    assert (record.results.task, record.scoring, board.task, board.title) == (
        "constituency", None, "constituency", "constituency · spmrl · test · F1")
    assert [(e.dev_score, e.metric) for e in record.log] == [(88.0, "f1"), (92.5, "f1")]
    assert [plot.name for plot in report_plots(report)] == ["bars-constituency-spmrl-test-f1",
                                                                         "dev-f1-constituency-spmrl"]
