"""Speed of the ``evalb`` console script, as a whole process, on WSJ trees, beside the original C program.

Flattens the 3,914 trees of ``shared/treebanks/ptb-sample`` (multi-line ``.mrg``
files) to one tree per line, repeats them 6 times (23,484 sentences) and times
``evalb -p COLLINS.prm`` (subprocess) on

* the file against itself, and
* the file against a perturbed copy (relabelled and removed brackets; words and
  tags untouched, so every sentence is scored).

Each case runs the port and the original C EVALB (``--reference``, else ``$EVALB_REFERENCE``, else
``evalb_reference`` on PATH: the original ``evalb.c`` built with ``gcc -O2``, kept outside the
repository) in pairs, ``--runs`` times, alternating.  It prints per case the median over the pairs of
port/original wall time (the target: at most 1.0x) and of CPU time (user + system of the child, less
sensitive to other jobs on the machine), and whether the reports are byte-identical.  With
``--callgrind`` it also counts both programs' instructions under valgrind (the same count whatever
the load).  The pure-Python fallback (``EVALB_PURE_PYTHON=1``) is timed once per case.

The port's modules are byte-compiled first (``compileall``), as an installed package is: without
``__pycache__`` (``PYTHONDONTWRITEBYTECODE``) every run would compile them again.

Usage: python3 benchmarks/evalb_speed.py [--repeat 6] [--runs 9] [--treebanks DIR] [--reference PATH] [--callgrind]
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def default_treebanks() -> Path:
    env = os.environ.get("MLPARSE_SHARED_TREEBANKS")
    return Path(env) if env else REPO.parent / "shared" / "treebanks"


def flatten_sexprs(text: str) -> list[str]:
    """Top-level bracketed trees of ``text``, each on one line with single spaces."""
    trees: list[str] = []
    depth = 0
    current: list[str] = []
    for token in text.replace("(", " ( ").replace(")", " ) ").split():
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        current.append(token)
        if depth == 0 and current:
            if current[0] == "(":
                trees.append(" ".join(current).replace("( ", "(").replace(" )", ")"))
            current = []
    if depth != 0:
        raise ValueError("unbalanced brackets in the input")
    return trees


def read_wsj(root: Path) -> list[str]:
    files = sorted((root / "ptb-sample" / "wsj").glob("*/wsj_*.mrg"))
    if not files:
        raise SystemExit(f"no .mrg files under {root / 'ptb-sample' / 'wsj'}")
    trees: list[str] = []
    for path in files:
        trees.extend(flatten_sexprs(path.read_text(encoding="utf-8")))
    return trees


def perturb(tree: str, rng: random.Random) -> str:
    """Relabel about 1 in 6 phrase brackets and remove about 1 in 8 (words and tags kept)."""
    tokens = tree.replace("(", " ( ").replace(")", " ) ").split()
    out: list[str] = []
    dropped: list[bool] = []  # per open bracket: was it removed
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "(":
            label = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1] not in "()" else ""
            is_leaf = i + 3 < len(tokens) and tokens[i + 2] not in "()" and tokens[i + 3] == ")"
            if not is_leaf and label and depth_ok(dropped) and rng.random() < 0.125:
                dropped.append(True)
                i += 2
                continue
            if not is_leaf and label and rng.random() < 0.16:
                label = rng.choice(["NP", "VP", "PP", "S", "SBAR", "ADJP"])
            dropped.append(False)
            out.append("(" + label if label else "(")
            i += 2 if label else 1
            continue
        if tok == ")":
            if not dropped.pop():
                out.append(")")
        else:
            out.append(tok)
        i += 1
    return " ".join(out).replace("( ", "(").replace(" )", ")")


def depth_ok(stack: list[bool]) -> bool:
    return len(stack) > 0  # never remove the root


@dataclass
class Timing:
    """Wall and CPU (user + system) seconds of each run of one command, and its last stdout."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    output: bytes = b""


def run_once(cmd: list[str], env: dict | None, timing: Timing) -> None:
    """Run ``cmd`` once, adding its wall and CPU time (from the child's resource usage) to ``timing``."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    output = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)  # reaped here, so the child's resource usage is its own
    timing.wall.append(time.perf_counter() - start)
    timing.cpu.append(usage.ru_utime + usage.ru_stime)
    proc.returncode = os.waitstatus_to_exitcode(status)
    timing.output = output


def time_pairs(commands: dict[str, tuple[list[str], dict | None]], runs: int) -> dict[str, Timing]:
    """Every command ``runs`` times, interleaved run by run (each round runs them all, in turn)."""
    timings = {name: Timing() for name in commands}
    for _ in range(runs):
        for name, (cmd, env) in commands.items():
            run_once(cmd, env, timings[name])
    return timings


def paired_median(numerator: list[float], denominator: list[float]) -> float:
    """The median of the per-round ratios."""
    return statistics.median(a / b for a, b in zip(numerator, denominator))


def instructions(cmd: list[str], env: dict | None) -> int | None:
    """Instructions executed by ``cmd`` under ``valgrind --tool=callgrind`` (None without valgrind)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/out"] + cmd,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    found = re.search(rb"Collected : (\d+)", proc.stderr)
    return int(found.group(1)) if found else None


def find_port_script() -> list[str]:
    """The installed ``evalb`` script beside this Python, else ``python -m evalb.cli``."""
    script = Path(sys.executable).parent / "evalb"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "evalb.cli"]


def find_reference(given: str | None) -> str | None:
    """The original program: ``--reference``, ``$EVALB_REFERENCE``, or ``evalb_reference`` on PATH."""
    for candidate in (given, os.environ.get("EVALB_REFERENCE")):
        if candidate:
            if not os.access(candidate, os.X_OK):
                raise SystemExit(f"the original program {candidate} is not an executable file")
            return candidate
    return shutil.which("evalb_reference")


def compile_port() -> str:
    """Byte-compile the ``evalb`` package that the port's process imports; returns its folder."""
    import evalb

    folder = Path(evalb.__file__).parent
    compileall.compile_dir(str(folder), quiet=1)
    return str(folder)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--runs", type=int, default=9, help="paired runs per case (port, original, alternating)")
    ap.add_argument("--treebanks", type=Path, default=default_treebanks())
    ap.add_argument("--reference", help="the original C EVALB (default: $EVALB_REFERENCE or evalb_reference on PATH)")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions under valgrind")
    args = ap.parse_args()

    trees = read_wsj(args.treebanks)
    rng = random.Random(13)
    gold = trees * args.repeat
    test = [perturb(t, rng) for t in gold]
    n = len(gold)
    print(f"WSJ sample: {len(trees)} trees x {args.repeat} = {n} sentences")

    params = REPO / "evalb" / "params" / "COLLINS.prm"
    port = find_port_script()
    reference = find_reference(args.reference)
    print(f"port: {' '.join(port)} (evalb package {compile_port()}, byte-compiled); "
          f"original: {reference or 'not found'}")
    pure_env = dict(os.environ, EVALB_PURE_PYTHON="1")
    with tempfile.TemporaryDirectory() as tmp:
        gold_path, test_path = Path(tmp) / "gold.txt", Path(tmp) / "test.txt"
        gold_path.write_text("\n".join(gold) + "\n", encoding="utf-8")
        test_path.write_text("\n".join(test) + "\n", encoding="utf-8")
        rows = []
        for name, other in (("self", gold_path), ("perturbed", test_path)):
            cmd = ["-p", str(params), str(gold_path), str(other)]
            commands = {"port": (port + cmd, None)}
            if reference:
                commands["ref"] = ([reference] + cmd, None)
            timed = time_pairs(commands, args.runs)
            port_timing = timed["port"]
            pure = time_pairs({"pure": (port + cmd, pure_env)}, 1)["pure"]
            row = {"case": name, "port": statistics.median(port_timing.wall), "pure": pure.wall[0],
                   "same_pure": pure.output == port_timing.output}
            if reference:
                ref = timed["ref"]
                row.update(ref=statistics.median(ref.wall), same_ref=ref.output == port_timing.output,
                           wall_ratio=paired_median(port_timing.wall, ref.wall),
                           cpu_ratio=paired_median(port_timing.cpu, ref.cpu))
                if args.callgrind:
                    row.update(port_ir=instructions(port + cmd, None), ref_ir=instructions([reference] + cmd, None))
            summary = [ln for ln in port_timing.output.decode().splitlines() if ln.startswith("Bracketing FMeasure")]
            row["f1"] = summary[0].split("=")[1].strip() if summary else "?"
            rows.append(row)

    print(f"medians of {args.runs} paired runs (wall clock; CPU: user + system of the process)")
    print(f"{'case':<10} {'F1':>7} {'port s':>8} {'sent/s':>9} {'pure-Py s':>10} {'fast/pure':>9}", end="")
    print(f" {'original s':>10} {'port/orig':>9} {'CPU p/o':>8} {'identical':>9}" if reference else "")
    for r in rows:
        line = (
            f"{r['case']:<10} {r['f1']:>7} {r['port']:8.3f} {n / r['port']:9.0f} {r['pure']:10.3f} "
            f"{r['pure'] / r['port']:8.1f}x"
        )
        if reference:
            line += (f" {r['ref']:10.3f} {r['wall_ratio']:8.2f}x {r['cpu_ratio']:7.2f}x"
                     f" {('yes' if r['same_ref'] else 'NO'):>9}")
        print(line)
        if r.get("port_ir") and r.get("ref_ir"):
            print(f"  instructions (callgrind): port {r['port_ir']:,}, original {r['ref_ir']:,}: "
                  f"{r['port_ir'] / r['ref_ir']:.2f}x")
        if not r["same_pure"]:
            print("  WARNING: the pure-Python fallback printed a different report")
    if not reference:
        print("(no original program: give --reference, set EVALB_REFERENCE or put evalb_reference on PATH)")
    worst = max(r["port"] for r in rows)
    print(f"port: {n / worst:,.0f} sentences/s whole process (slowest case, {worst:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
