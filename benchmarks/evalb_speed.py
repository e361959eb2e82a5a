"""Speed of the ``evalb`` console script, as a whole process, on WSJ trees.

Flattens the 3,914 trees of ``shared/treebanks/ptb-sample`` (multi-line ``.mrg``
files) to one tree per line, repeats them 6 times (23,484 sentences) and times
``evalb -p COLLINS.prm`` (subprocess, wall clock, best of several runs) on

* the file against itself, and
* the file against a perturbed copy (relabelled and removed brackets; words and
  tags untouched, so every sentence is scored).

It also times the pure-Python fallback (``EVALB_PURE_PYTHON=1``) and, when a
binary ``evalb_reference`` (the original C program) is on PATH, the original,
printing the port/original ratio and whether the reports are byte-identical.
The target is a port within 2x of the original's time.

Usage: python3 benchmarks/evalb_speed.py [--repeat 6] [--runs 5] [--treebanks DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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


def time_commands(commands: dict[str, tuple[list[str], dict | None]], runs: int) -> dict[str, tuple[float, bytes]]:
    """Best wall time of each command, the commands interleaved run by run (fair on a busy machine)."""
    best = {name: float("inf") for name in commands}
    output = {name: b"" for name in commands}
    for _ in range(runs):
        for name, (cmd, env) in commands.items():
            start = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            best[name] = min(best[name], time.perf_counter() - start)
            output[name] = proc.stdout
    return {name: (best[name], output[name]) for name in commands}


def find_port_script() -> list[str]:
    """The installed ``evalb`` script beside this Python, else ``python -m evalb.cli``."""
    script = Path(sys.executable).parent / "evalb"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "evalb.cli"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--treebanks", type=Path, default=default_treebanks())
    args = ap.parse_args()

    trees = read_wsj(args.treebanks)
    rng = random.Random(13)
    gold = trees * args.repeat
    test = [perturb(t, rng) for t in gold]
    n = len(gold)
    print(f"WSJ sample: {len(trees)} trees x {args.repeat} = {n} sentences")

    params = REPO / "evalb" / "params" / "COLLINS.prm"
    port = find_port_script()
    reference = shutil.which("evalb_reference")
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
            timed = time_commands(commands, args.runs)
            t_port, out_port = timed["port"]
            t_pure, out_pure = time_commands({"pure": (port + cmd, pure_env)}, 1)["pure"]
            row = {"case": name, "port": t_port, "pure": t_pure, "same_pure": out_pure == out_port}
            if reference:
                t_ref, out_ref = timed["ref"]
                row.update(ref=t_ref, same_ref=out_ref == out_port)
            summary = [ln for ln in out_port.decode().splitlines() if ln.startswith("Bracketing FMeasure")]
            row["f1"] = summary[0].split("=")[1].strip() if summary else "?"
            rows.append(row)

    print(f"{'case':<10} {'F1':>7} {'port s':>8} {'sent/s':>9} {'pure-Py s':>10} {'fast/pure':>9}", end="")
    print(f" {'original s':>10} {'port/orig':>9} {'identical':>9}" if reference else "")
    for r in rows:
        line = (
            f"{r['case']:<10} {r['f1']:>7} {r['port']:8.3f} {n / r['port']:9.0f} {r['pure']:10.3f} "
            f"{r['pure'] / r['port']:8.1f}x"
        )
        if reference:
            line += f" {r['ref']:10.3f} {r['port'] / r['ref']:8.2f}x {('yes' if r['same_ref'] else 'NO'):>9}"
        print(line)
        if not r["same_pure"]:
            print("  WARNING: the pure-Python fallback printed a different report")
    if not reference:
        print("(no evalb_reference on PATH: the original program was not timed)")
    worst = max(r["port"] for r in rows)
    print(f"port: {n / worst:,.0f} sentences/s whole process (slowest case, {worst:.3f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
