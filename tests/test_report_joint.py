"""A joint (span + dependency) run in the report: its F1 in the constituency leaderboard beside Mrini et al.'s
Table 3, its UAS and LAS in the dependency leaderboards of its data set and scoring convention."""

from __future__ import annotations

from pathlib import Path

from mlparse.run_index.collect import collect_runs
from mlparse.report.leaderboard import build_leaderboards
from mlparse.report.published import load_published
from helpers.report_fixtures import write_run

JOINT_SCORER = "evalb COLLINS.prm + depeval conll18-v1.2+depeval-1.0 (ptb)"
JOINT = "mlparse joint LAL (CharLSTM)"


def test_a_joint_run_sits_in_the_constituency_and_the_dependency_leaderboards(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    scores = {"f1": 91.5, "recall": 91.0, "precision": 92.0, "uas": 93.25, "las": 91.75, "scorer": JOINT_SCORER}
    write_run(runs, "lal-english", "r1", task="joint", model="joint", dataset="ptb", language="english",
              system=JOINT, dev=scores, test=scores, log=[80.0, 90.0])
    write_run(runs, "english", "r1", dataset="ptb", language="english", system="mlparse span (CharLSTM)",
              test={"f1": 93.0, "scorer": "evalb COLLINS.prm"})
    records = collect_runs(runs)
    assert {r.recipe: r.scoring for r in records} == {"english": None, "lal-english": "ptb"}
    boards = {(b.task, b.dataset, b.scoring, b.metric): b
              for b in build_leaderboards(records, load_published(), published_mode="all")}

    def value(board, system):
        return next(row.cells["english"].value for row in board.rows if row.system == system)

    f1 = boards[("constituency", "ptb", None, "f1")]
    assert value(f1, JOINT) == 91.5 and value(f1, "mlparse span (CharLSTM)") == 93.0
    assert any(row.system.startswith("Mrini et al. (2020)") for row in f1.rows)  # Table 3 beside it
    assert value(boards[("dependency", "ptb", "ptb", "uas")], JOINT) == 93.25
    assert value(boards[("dependency", "ptb", "ptb", "las")], JOINT) == 91.75
    assert [row.system for row in boards[("dependency", "ptb", "ptb", "las")].rows] == [JOINT]  # no span run there
    assert ("dependency", "ptb-sd", "ptb", "las") in boards  # Table 4 (Stanford dependencies): its own board
