"""Learning curve of recipes/demo.yaml on ptb-sample under a training-time budget (default 20 minutes).

Trains the demo recipe with ``mlparse run demo --max-minutes M`` into a fresh runs folder
(the recipe's own epoch and patience limits still apply), then prints dev F1 against
training time from the run's ``log.jsonl``, the first time the dev F1 reached the target
(default 80), and the dev/test scores of the best checkpoint from ``results.json``.
Exits with status 1 when the target was not reached.  The time is the trainer's own
clock: updates and dev checks, not data loading or the final dev/test parse.

    python3 benchmarks/demo_learning_curve.py [--minutes 20] [--target 80] [--runs-dir DIR] [--csv FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]


def read_log(run_dir: Path) -> List[Dict[str, float]]:
    return [json.loads(line) for line in (run_dir / "log.jsonl").read_text().splitlines() if line.strip()]


def first_reaching(log: List[Dict[str, float]], target: float) -> Optional[Dict[str, float]]:
    return next((entry for entry in log if entry["dev_score"] >= target), None)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=20.0, help="training-time budget")
    parser.add_argument("--target", type=float, default=80.0, help="dev F1 to reach")
    parser.add_argument("--runs-dir", type=Path, default=None, help="where the run goes (default: a temporary folder)")
    parser.add_argument("--csv", type=Path, default=None, help="also write the curve (minutes, epoch, dev F1) here")
    parser.add_argument("--every", type=int, default=4, help="print every k-th dev check (all are in the CSV)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="mlparse-curve-") as scratch:
        runs_dir = args.runs_dir or Path(scratch)
        command = [sys.executable, "-m", "mlparse", "run", "demo", "--runs-dir", str(runs_dir),
                   "--max-minutes", str(args.minutes), "--fresh"]
        print("$ " + " ".join(command[1:]), flush=True)
        subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        (run_dir,) = [path.parent for path in (runs_dir / "demo").glob("*/results.json")]
        log = read_log(run_dir)
        results = json.loads((run_dir / "results.json").read_text())

    rows = [(entry["elapsed_seconds"] / 60.0, entry["epoch"], entry["dev_score"], entry["lr"]) for entry in log]
    if args.csv:
        with args.csv.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["minutes", "epoch", "dev_f1", "lr"])
            writer.writerows([(f"{m:.3f}", e, f, lr) for m, e, f, lr in rows])
    print(f"{'minutes':>8}{'epoch':>8}{'dev F1':>8}{'lr':>10}")
    for k, (minutes, epoch, f1, lr) in enumerate(rows):
        if k % args.every == args.every - 1 or k == len(rows) - 1 or f1 == max(r[2] for r in rows):
            print(f"{minutes:>8.2f}{epoch:>8.2f}{f1:>8.2f}{lr:>10.2e}")
    hit = first_reaching(log, args.target)
    dev, test = results.get("dev") or {}, results.get("test") or {}
    print(f"training stopped after {results.get('training_seconds', 0) / 60:.1f} min, {results.get('epochs')} epochs; "
          f"best checkpoint: dev F1 {dev.get('f1')}, test F1 {test.get('f1')}; "
          f"hardware: {results.get('hardware', {}).get('cpu_count')} CPUs")
    if hit is None:
        print(f"dev F1 {args.target} NOT reached within {args.minutes:g} minutes (best {max(r[2] for r in rows):.2f})")
        return 1
    print(f"dev F1 {args.target} first reached at {hit['elapsed_seconds'] / 60:.1f} min (epoch {hit['epoch']:.2f}): "
          f"{hit['dev_score']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
