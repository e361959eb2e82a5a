"""The ensemble of N demo-size models against its best member, on dev and test, side by side.

For each recipe (default: ``demo``, the span parser on ptb-sample, and ``demo-dep``, the biaffine parser
on UD English-EWT) this runs ``mlparse ensemble RECIPE × N --max-minutes M``: N ordinary runs of the
recipe with ``train.seed`` = seed, seed + 1, …, each trained for M minutes (or resumed / reused when the
run exists already), then their ensemble scored on the whole dev and test sets.  It prints each member's
scores, the best member (chosen on dev), the ensemble and the difference, with the machine and the
load average measured before and after.

    python3 benchmarks/ensemble_gain.py [--minutes 4] [--members 3] [--threads 1] [--runs-dir DIR]
                                        [--recipes demo,demo-dep] [--folds N]

Run it where ``data/`` holds the prepared data (``mlparse prepare ptb-sample``, ``mlparse prepare ud``).
With ``--folds N`` the members are jack-knifed instead (member k leaves out fold k; N members).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))  # benchmarks/timing.py
from timing import load_average, machine  # noqa: E402


def metric_of(scores: Optional[Dict[str, Any]]) -> Optional[float]:
    if not scores:
        return None
    return scores.get("las") if scores.get("las") is not None else scores.get("f1")


def run_ensemble(recipe: str, members: int, minutes: float, threads: int, runs_dir: Path,
                 folds: Optional[int]) -> Dict[str, Any]:
    name = f"gain-{recipe.replace('/', '-')}" + (f"-folds{folds}" if folds else "")
    command = [sys.executable, "-m", "mlparse", "ensemble", *([recipe] if folds else [recipe] * members),
               "--runs-dir", str(runs_dir), "--name", name, "--max-minutes", str(minutes),
               "--set", f"train.num_threads={threads}"] + (["--folds", str(folds)] if folds else [])
    print("$ " + " ".join(command[1:]), flush=True)
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    start = time.monotonic()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"mlparse ensemble {recipe} failed (exit {done.returncode})")
    (folder,) = [p for p in (runs_dir / name).iterdir() if (p / "results.json").is_file()]
    results = json.loads((folder / "results.json").read_text())
    results["_wall_minutes"] = (time.monotonic() - start) / 60
    results["_folder"] = str(folder)
    return results


def report(recipe: str, results: Dict[str, Any]) -> List[str]:
    metric = "LAS" if results["task"] == "dependency" else "F1"
    lines = [f"## {recipe}: {results['system']} ({results['dataset']} {results['language']}), {metric}",
             f"ensemble run: {results['_folder']} ({results['_wall_minutes']:.1f} min of wall time in this call)", "",
             f"| model | training s | dev {metric} | test {metric} |", "|---|---|---|---|"]
    members = results["members"]
    for k, member in enumerate(members, start=1):
        seconds = "–"
        member_results = Path(member["run_dir"]) / "results.json"
        if member_results.is_file():
            seconds = f"{json.loads(member_results.read_text()).get('training_seconds') or 0:.0f}"
        lines.append(f"| member {k} ({member['run_id']}) | {seconds} | {metric_of(member['dev']):.2f} | "
                     f"{metric_of(member['test']):.2f} |")
    best = max(members, key=lambda m: metric_of(m["dev"]) or float("-inf"))
    dev, test = metric_of(results["dev"]), metric_of(results["test"])
    lines.append(f"| best member on dev ({best['run_id']}) | | {metric_of(best['dev']):.2f} | {metric_of(best['test']):.2f} |")
    lines.append(f"| ensemble of {len(members)} | | {dev:.2f} | {test:.2f} |")
    lines.append(f"| ensemble − best member | | {dev - metric_of(best['dev']):+.2f} | {test - metric_of(best['test']):+.2f} |")
    if results["task"] == "dependency":
        lines.append(f"(UAS: best member {best['dev']['uas']:.2f} / {best['test']['uas']:.2f}, ensemble "
                     f"{results['dev']['uas']:.2f} / {results['test']['uas']:.2f})")
    lines.append(f"parse speed of the ensemble: {results['parse_sentences_per_second']} sentences/s (dev + test)")
    return lines


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=4.0, help="training minutes per member")
    parser.add_argument("--members", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch threads per run")
    parser.add_argument("--runs-dir", type=Path, default=Path("runs-ensemble-gain"))
    parser.add_argument("--recipes", default="demo,demo-dep")
    parser.add_argument("--folds", type=int, default=None, help="jack-knife over N folds instead of seeds")
    args = parser.parse_args(argv)
    print(f"machine: {machine()}; before: {load_average()}; {args.members} members × {args.minutes:g} minutes, "
          f"{args.threads} torch thread(s) each; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    out: List[str] = []
    for recipe in args.recipes.split(","):
        results = run_ensemble(recipe, args.members, args.minutes, args.threads, args.runs_dir, args.folds)
        out += report(recipe, results) + [""]
    print("\n".join(out))
    print(f"after: {load_average()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
