"""demo-dep on UD English-EWT under four tag protocols, each a 20-minute run **in all** (taggers included): gold
UPOS; jack-knifed UPOS (the bundled tagger, contiguous-block folds); no tag input; UPOS predicted by the parser
itself (a tagging head, no tag input); and, as a fifth row not run by default, jack-knifing with 5 folds in
place of 10 (``jackknife-5``: half as many taggers, each with twice the minutes).  Prints one table: tag accuracy (train/dev/test), parser updates,
dev LAS by minute of the parser's own training clock, dev LAS at equal parser updates, final dev and test LAS.

    python3 benchmarks/tag_protocols.py [--minutes 20] [--rows jackknife,gold,joint,none] --runs-dir DIR
    python3 benchmarks/tag_protocols.py --read --runs-dir DIR      # the table of rows already trained there

Each row is ``mlparse run demo-dep --max-minutes M --fresh --runs-dir DIR/<row>`` with the row's ``--set``s,
one after the other (meaningful only on a machine with nothing else running; the load average is printed).
The data must be prepared (``mlparse prepare ud --source ../shared/treebanks/ud``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.dep_learning_curve import CurvePoint, by_minute, read_run  # noqa: E402

RECIPE = "demo-dep"
ROWS: Dict[str, List[str]] = {
    "gold": [],
    "jackknife": ["--set", "data.tags=jackknife"],
    "jackknife-5": ["--set", "data.tags=jackknife", "--set", "tagger.folds=5"],
    "none": ["--set", "data.tags=none"],
    "joint": ["--set", "data.tags=none", "--set", "biaffine.predict_tags=true"],
}
TITLES = {"gold": "gold UPOS", "jackknife": "jack-knifed UPOS (10 block folds)",
          "jackknife-5": "jack-knifed UPOS (5 block folds)", "none": "no tag input",
          "joint": "UPOS predicted by the parser (tagging head)"}


def run_row(row: str, minutes: float, runs_dir: Path) -> None:
    command = [sys.executable, "-m", "mlparse", "run", RECIPE, *ROWS[row], "--max-minutes", str(minutes), "--fresh",
               "--runs-dir", str(runs_dir / row)]
    print(f"$ {' '.join(['python3'] + command[1:])}   (load average {os.getloadavg()[0]:.2f})", flush=True)
    started = time.monotonic()
    subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    print(f"  {row}: {(time.monotonic() - started) / 60.0:.2f} minutes in all", flush=True)


def run_dir_of(runs_dir: Path, row: str) -> Optional[Path]:
    found = sorted((runs_dir / row / RECIPE).glob("*/results.json"))
    return found[-1].parent if found else None


def tag_accuracy(results: dict, row: str) -> str:
    if row == "gold":
        return "gold"
    if row == "none":
        return "none read"
    if row.startswith("jackknife"):
        accuracy = (results.get("input_tags") or {}).get("accuracy") or {}
        return " / ".join(f"{accuracy[s]:.2f}" if s in accuracy else "-" for s in ("train", "dev", "test"))
    dev, test = (results.get("dev") or {}), (results.get("test") or {})
    shown = [dev.get("tagging_accuracy"), test.get("tagging_accuracy")]
    return "- / " + " / ".join("-" if value is None else f"{value:.2f}" for value in shown)


def las_at_updates(curve: Sequence[dict], step: int) -> Optional[float]:
    seen = [entry["dev_score"] for entry in curve if entry["step"] <= step]
    return seen[-1] if seen else None


def table(runs_dir: Path, rows: Sequence[str], minutes: float) -> str:
    found = {row: run_dir_of(runs_dir, row) for row in rows}
    logs = {row: [json.loads(line) for line in (path / "log.jsonl").read_text().splitlines() if line.strip()]
            for row, path in found.items() if path is not None}
    common = min((log[-1]["step"] for log in logs.values() if log), default=0)
    marks = [m for m in (1, 2, 4, 8, 12, 16, 20) if m <= minutes]
    header = (["tags", "tag accuracy train / dev / test", "updates (epochs)"] + [f"dev LAS {m} min" for m in marks]
              + [f"dev LAS at {common:,} updates", "final dev LAS", "final test LAS", "minutes: taggers and tagging / parser training"])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row, path in found.items():
        if path is None:
            lines.append(f"| {TITLES[row]} | not run |" + " |" * (len(header) - 2))
            continue
        run = read_run(path)
        results = json.loads((path / "results.json").read_text())
        by = dict(by_minute(run.curve, minutes))
        budget = results.get("budget") or {}
        taggers = f"{budget.get('tagger_phase_minutes', 0):.1f}" if budget.get("taggers") else "-"
        split = f"{taggers} / {run.training_minutes:.1f}"  # the parser's training minutes, as it trained
        cells = [TITLES[row], tag_accuracy(results, row),
                 f"{logs[row][-1]['step']:,} ({run.epochs or 0:.1f})" if logs.get(row) else "-"]
        cells += ["-" if by.get(m) is None or m > run.training_minutes + 0.5 else f"{by[m]:.2f}"  # after its end: -
                  for m in marks]
        at = las_at_updates(logs.get(row, []), common)
        cells += ["-" if at is None else f"{at:.2f}", f"{run.dev_las:.2f}" if run.dev_las is not None else "-",
                  f"{run.test_las:.2f}" if run.test_las is not None else "-", split]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def chosen_rows(parser: argparse.ArgumentParser, text: str, known: Sequence[str]) -> List[str]:
    """The rows of ``--rows`` (comma-separated), each one of ``known``; an unknown one is the parser's error."""
    rows = [row.strip() for row in text.split(",") if row.strip()]
    unknown = [row for row in rows if row not in known]
    if unknown:
        parser.error(f"unknown rows {unknown}; rows are {', '.join(known)}")
    return rows


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=20.0, help="each row's budget in all")
    parser.add_argument("--rows", default="jackknife,gold,joint,none", help="of " + ", ".join(ROWS))
    parser.add_argument("--runs-dir", type=Path, required=True, help="each row's runs go to DIR/<row>")
    parser.add_argument("--read", action="store_true", help="only print the table of the rows in --runs-dir")
    args = parser.parse_args(argv)
    rows = chosen_rows(parser, args.rows, ROWS)
    if not args.read:
        for row in rows:
            run_row(row, args.minutes, args.runs_dir)
    print(table(args.runs_dir, rows, args.minutes))
    print("(dev LAS by minute: the last dev check, first 1,000 dev sentences, before that minute of the parser's own "
          "training clock; final scores: the best checkpoint on all of dev and test)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
