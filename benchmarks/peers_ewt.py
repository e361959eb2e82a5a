"""mlparse's BiLSTM biaffine parser beside SuPar's and Stanza's, each trained by ``mlparse run`` under one budget on
UD English-EWT with the same gold UPOS, scored by depeval, in one report with its marks and one ``mlparse compare``.

Runs, one after the other (meaningful only on a machine with nothing else running; the load average is printed):

1. ``mlparse run ud/english-ewt-bilstm --set data.tags=gold --max-minutes M``;
2. ``mlparse run external/supar-biaffine-dep --max-minutes M`` (SuPar 1.1.4 in its own venv, ``--supar-python``);
3. ``mlparse run external/stanza-parser --max-minutes M`` (Stanza in its own venv, ``--stanza-python``);

then ``mlparse report RUNS --format markdown`` and ``mlparse compare`` of the three.  Each peer's Python is handed to
its recipe through ``MLPARSE_SUPAR_PYTHON`` / ``MLPARSE_STANZA_PYTHON``.  A system whose venv is not given is
left out, said in one line.

    python3 benchmarks/peers_ewt.py --runs-dir DIR [--minutes 20] --supar-python PY --stanza-python PY
    python3 benchmarks/peers_ewt.py --runs-dir DIR --read        # report and compare of the runs already there
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]

#: system -> (recipe, its overrides, the environment variable of its Python or None, the recipe's name). mlparse's
#: recipe as a user runs it: on a CPU with AMX it trains with bfloat16 products (train.cpu_bf16, docs/protocol.md).
SYSTEMS: Dict[str, tuple] = {
    "mlparse": ("ud/english-ewt-bilstm", ["--set", "data.tags=gold"], None, "ud-english-ewt-bilstm"),
    "supar": ("external/supar-biaffine-dep", [], "MLPARSE_SUPAR_PYTHON", "supar-biaffine-dep"),
    "stanza": ("external/stanza-parser", [], "MLPARSE_STANZA_PYTHON", "stanza-parser"),
}


def run_system(system: str, minutes: float, runs_dir: Path, env: Dict[str, str]) -> None:
    recipe, overrides, _, _ = SYSTEMS[system]
    command = [sys.executable, "-m", "mlparse", "run", recipe, *overrides, "--max-minutes", f"{minutes:g}",
               "--runs-dir", str(runs_dir)]
    print(f"$ python3 {' '.join(command[1:])}   ({time.strftime('%H:%M:%S')} UTC, load average "
          f"{os.getloadavg()[0]:.2f})", flush=True)
    started = time.monotonic()
    done = subprocess.run(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail = "\n".join(done.stdout.strip().splitlines()[-4:])
    print(f"  {system}: {(time.monotonic() - started) / 60.0:.2f} minutes in all, exit status {done.returncode}\n{tail}",
          flush=True)


def print_clocks(runs_dir: Path, systems: List[str]) -> None:
    """What each system's budget clock measured (results.json ``clock``, mlparse/budget_rule.py), one line each."""
    import json

    print("system | clock s | start-up s | last model s | past the bound s | threads | stop reason")
    for system in systems:
        found = sorted((runs_dir / SYSTEMS[system][3]).glob("*/results.json"), key=lambda p: p.stat().st_mtime)
        if not found:
            print(f"{system} | no results.json")
            continue
        results = json.loads(found[-1].read_text(encoding="utf-8"))
        clock = results.get("clock") or {}
        print(f"{system} | {clock.get('clock_seconds')} | {clock.get('startup_seconds')} | "
              f"{clock.get('last_model_seconds')} | {clock.get('over_bound_seconds')} | {clock.get('threads')} | "
              f"{results.get('stop_reason')}", flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs-dir", type=Path, required=True)
    parser.add_argument("--minutes", type=float, default=20.0, help="each system's training budget")
    parser.add_argument("--supar-python", default=None, help="python of a venv where supar 1.1.4 imports")
    parser.add_argument("--stanza-python", default=None, help="python of a venv where stanza imports")
    parser.add_argument("--systems", default="mlparse,supar,stanza")
    parser.add_argument("--read", action="store_true", help="only the report and the comparison of DIR's runs")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    given = {"supar": args.supar_python, "stanza": args.stanza_python}
    systems = []
    for system in [s.strip() for s in args.systems.split(",") if s.strip()]:
        variable = SYSTEMS[system][2]
        if variable is not None:
            python = given[system] or env.get(variable)
            if not python:
                print(f"{system}: left out (give --{system}-python)")
                continue
            env[variable] = python
        systems.append(system)
    if not args.read:
        for system in systems:
            run_system(system, args.minutes, args.runs_dir, env)
    print_clocks(args.runs_dir, systems)
    report = [sys.executable, "-m", "mlparse", "report", str(args.runs_dir), "--format", "markdown"]
    print("$ python3 " + " ".join(report[1:]), flush=True)
    subprocess.run(report, cwd=REPO, env=env)
    names = [SYSTEMS[system][3] for system in systems]
    compare = [sys.executable, "-m", "mlparse", "compare", *names, "--runs-dir", str(args.runs_dir)]
    print("$ python3 " + " ".join(compare[1:]), flush=True)
    subprocess.run(compare, cwd=REPO, env=env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
