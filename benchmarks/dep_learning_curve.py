"""Learning curve of recipes/demo-dep.yaml on UD English-EWT under a training-time budget (default 20 minutes).

Trains the demo-dep recipe from scratch with ``mlparse run demo-dep --max-minutes M --fresh`` into a
temporary runs folder (the data is prepared first when it is missing), then prints from the run's
``log.jsonl`` the dev LAS of the last check before each minute mark, the minute the dev LAS first
reached the target (default 80), and the dev/test scores of the best checkpoint from
``results.json`` (always the whole dev and test sets; the checks during training read the first
``eval.max_sentences`` dev sentences).  Minutes are the trainer's own clock: updates and dev checks,
not data loading or the final dev/test parse.  Exits with status 1 when the target was not reached.

    python3 benchmarks/dep_learning_curve.py [--minutes 20] [--target 80] [--data-root DIR] [--runs-dir DIR] [--csv FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
RECIPE = "demo-dep"


@dataclass(frozen=True)
class CurvePoint:
    """One dev check: training minutes on the parser's own clock, epoch, dev LAS (0-100)."""

    minutes: float
    epoch: float
    las: float


@dataclass(frozen=True)
class TrainedRun:
    """What a finished run gives the benchmarks: its curve and its final scores (``None`` when missing)."""

    curve: List[CurvePoint]
    dev_las: Optional[float]
    test_las: Optional[float]
    training_minutes: float
    epochs: Optional[float]
    stop_reason: Optional[str]
    hardware: Dict[str, object]


def by_minute(curve: Sequence[CurvePoint], minutes: float) -> List[Tuple[int, Optional[float]]]:
    """(m, dev LAS of the last check at or before minute m) for m = 1 .. ceil(minutes); ``None`` before any check."""
    marks = []
    for mark in range(1, int(-(-minutes // 1)) + 1):
        seen = [point.las for point in curve if point.minutes <= mark]
        marks.append((mark, seen[-1] if seen else None))
    return marks


def first_reaching(curve: Sequence[CurvePoint], target: float) -> Optional[CurvePoint]:
    return next((point for point in curve if point.las >= target), None)


def machine_line(hardware: Dict[str, object]) -> str:
    threads = hardware.get("torch_threads")
    return (f"{platform.processor() or platform.machine()}, {hardware.get('cpu_count')} CPUs"
            f"{f', {threads} torch threads' if threads else ''}, device {hardware.get('device', 'cpu')}")


def read_run(run_dir: Path) -> TrainedRun:
    log = [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines() if line.strip()]
    results = json.loads((run_dir / "results.json").read_text())
    curve = [CurvePoint(entry["elapsed_seconds"] / 60.0, entry["epoch"], entry["dev_score"]) for entry in log]
    dev, test = results.get("dev") or {}, results.get("test") or {}
    return TrainedRun(curve, dev.get("las"), test.get("las"), (results.get("training_seconds") or 0.0) / 60.0,
                      results.get("epochs"), results.get("stop_reason"), results.get("hardware") or {})


def train_demo_dep(minutes: float, runs_dir: Path, data_root: Optional[Path]) -> TrainedRun:
    """Train demo-dep from scratch for ``minutes`` of training time in ``runs_dir`` and read the run back."""
    command = [sys.executable, "-m", "mlparse", "run", RECIPE, "--runs-dir", str(runs_dir),
               "--max-minutes", str(minutes), "--fresh"]
    if data_root is not None:
        command += ["--set", f"data.root={data_root}"]
    print("$ " + " ".join(["python3"] + command[1:]), flush=True)
    subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    (run_dir,) = [path.parent for path in (runs_dir / RECIPE).glob("*/results.json")]
    return read_run(run_dir)


def format_marks(marks: Sequence[Tuple[int, Optional[float]]]) -> str:
    return "  ".join(f"{m}:{'-' if las is None else f'{las:.2f}'}" for m, las in marks)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=20.0, help="training-time budget")
    parser.add_argument("--target", type=float, default=80.0, help="dev LAS to reach")
    parser.add_argument("--data-root", type=Path, default=None, help="data.root of the run (default: the recipe's, data/)")
    parser.add_argument("--runs-dir", type=Path, default=None, help="where the run goes (default: a temporary folder)")
    parser.add_argument("--csv", type=Path, default=None, help="also write every dev check (minutes, epoch, dev LAS) here")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="mlparse-dep-curve-") as scratch:
        run = train_demo_dep(args.minutes, args.runs_dir or Path(scratch), args.data_root)

    if args.csv:
        with args.csv.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["minutes", "epoch", "dev_las"])
            writer.writerows([(f"{p.minutes:.3f}", p.epoch, p.las) for p in run.curve])
    print(f"dev LAS (checks on the recipe's eval.max_sentences) at the last check before each minute mark:")
    print("  " + format_marks(by_minute(run.curve, args.minutes)))
    print(f"training stopped after {run.training_minutes:.1f} min, {run.epochs} epochs ({run.stop_reason}); "
          f"best checkpoint on the whole sets: dev LAS {run.dev_las}, test LAS {run.test_las}; "
          f"machine: {machine_line(run.hardware)}")
    hit = first_reaching(run.curve, args.target)
    if hit is None:
        best = max((p.las for p in run.curve), default=float("nan"))
        print(f"dev LAS {args.target:g} NOT reached within {args.minutes:g} minutes (best check {best:.2f})")
        return 1
    print(f"dev LAS {args.target:g} first reached at {hit.minutes:.1f} min (epoch {hit.epoch:.2f}): {hit.las:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
