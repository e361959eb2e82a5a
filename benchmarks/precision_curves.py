"""Dev LAS by minute of one recipe trained in float32 and with ``train.cpu_bf16`` (the BiLSTM encoder's products in
bfloat16), one run after the other on the same machine under the same time budget: the side-by-side evidence that
issue 46 asks of a change to the arithmetic (it counts only if dev LAS by minute is at least as good).

Each run is ``mlparse run RECIPE --max-minutes M --fresh`` (plus ``--set`` overrides) into ``--runs-dir``; the
order alternates with ``--bf16-first``. Printed: the dev LAS of the last check before each minute mark for both,
the minute each first reached the other's best, epochs trained and the best checkpoint's dev and test LAS (whole
sets). ``--save`` keeps each run's ``results.json``, ``log.jsonl`` and a ``machine.json`` (machine, commit,
command, what ran beside) so that the table is rebuilt with ``--read``.

    python3 benchmarks/precision_curves.py [--recipe ud/english-ewt-bilstm] [--set data.tags=gold] [--minutes 20]
        [--runs-dir DIR] [--save benchmarks/results/precision] [--beside "what else ran"] [--bf16-first]
    python3 benchmarks/precision_curves.py --read [--save benchmarks/results/precision]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from dep_learning_curve import TrainedRun, by_minute, first_reaching, read_run  # noqa: E402
from tag_protocols_converged import machine  # noqa: E402

SAVED = BENCH / "results" / "precision"
#: The runs compared: label -> the extra override.
VARIANTS: Dict[str, List[str]] = {"float32": ["--set", "train.cpu_bf16=false"], "bf16": ["--set", "train.cpu_bf16=true"]}


def command_of(variant: str, args: argparse.Namespace) -> List[str]:
    sets = [part for value in args.set for part in ("--set", value)]
    return ["python3", "-m", "mlparse", "run", args.recipe, *sets, *VARIANTS[variant], "--max-minutes",
            f"{args.minutes:g}", "--fresh", "--runs-dir", str(Path(args.runs_dir) / variant)]


def train_variant(variant: str, args: argparse.Namespace) -> None:
    """Train one variant and save its results, dev curve and machine record under ``--save``."""
    command = command_of(variant, args)
    print(f"$ {' '.join(command)}", flush=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    subprocess.run([sys.executable, *command[1:]], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    found = sorted((Path(args.runs_dir) / variant).glob("*/*/results.json"), key=lambda p: p.stat().st_mtime)
    run = found[-1].parent
    target = Path(args.save) / variant
    target.mkdir(parents=True, exist_ok=True)
    for name in ("results.json", "log.jsonl"):
        shutil.copyfile(run / name, target / name)
    record = {"machine": machine(), "commit": commit, "command": " ".join(command), "started": started,
              "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "beside": args.beside}
    (target / "machine.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def table(save: Path, minutes: Optional[float] = None) -> str:
    """The side-by-side table from the saved runs."""
    runs: Dict[str, TrainedRun] = {v: read_run(save / v) for v in VARIANTS if (save / v / "results.json").is_file()}
    if not runs:
        return f"no saved runs under {save}"
    span = minutes or max(run.training_minutes for run in runs.values())
    marks = {v: dict(by_minute(run.curve, span)) for v, run in runs.items()}
    names = list(runs)
    lines = ["| minute | " + " | ".join(f"dev LAS, {v}" for v in names) + " |", "|---|" + "---|" * len(names)]
    for mark in sorted(next(iter(marks.values()))):
        cells = [marks[v].get(mark) for v in names]
        lines.append(f"| {mark} | " + " | ".join("-" if c is None else f"{c:.2f}" for c in cells) + " |")
    lines.append("")
    for v, run in runs.items():
        record_path = save / v / "machine.json"
        record = json.loads(record_path.read_text()) if record_path.is_file() else {}
        others = [o for o in runs if o != v]
        reach = ""
        if others:
            best_other = max((p.las for p in runs[others[0]].curve), default=None)
            hit = first_reaching(run.curve, best_other) if best_other is not None else None
            reach = (f"; reached {others[0]}'s best check ({best_other:.2f}) at "
                     f"{'-' if hit is None else f'{hit.minutes:.1f} min'}")
        lines.append(f"- {v}: {run.epochs} epochs in {run.training_minutes:.1f} min ({run.stop_reason}); best "
                     f"checkpoint dev LAS {run.dev_las}, test LAS {run.test_las}{reach}; {record.get('machine', '?')}, "
                     f"commit {record.get('commit', '?')}, {record.get('started', '?')} to {record.get('finished', '?')}"
                     f"; beside: {record.get('beside', '?')}")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--recipe", default="ud/english-ewt-bilstm")
    parser.add_argument("--set", action="append", default=None, help="recipe overrides (default: data.tags=gold)")
    parser.add_argument("--minutes", type=float, default=20.0)
    parser.add_argument("--runs-dir", default="runs-precision")
    parser.add_argument("--save", default=str(SAVED))
    parser.add_argument("--beside", default="nothing else running", help="what else ran on the machine, in words")
    parser.add_argument("--bf16-first", action="store_true", help="train the bf16 variant first")
    parser.add_argument("--read", action="store_true", help="print the table from --save only")
    args = parser.parse_args(argv)
    if args.set is None:
        args.set = ["data.tags=gold"]
    if not args.read:
        order = ["bf16", "float32"] if args.bf16_first else ["float32", "bf16"]
        for variant in order:
            train_variant(variant, args)
    print(table(Path(args.save), None if args.read else args.minutes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
