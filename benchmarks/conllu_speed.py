"""CoNLL-U reading speed on the largest UD file here (English-EWT train), measured side by side.

Prints sentences/second (CPU time of this process, one core, best of ``--repeats`` runs taken
in turn) for ``conllu.parse`` on the whole text (the package with its default field parsers),
mlparse's reader with the ``conllu`` engine (the reference: the package reads each block) and
with the ``fast`` engine (the default), and for writing the sentences back; ratios are against
the same run's numbers.  Usage::

    python3 benchmarks/conllu_speed.py [--repeats N] [path/to/file.conllu]
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import time
from importlib.metadata import version
from pathlib import Path
from typing import Callable, Dict

import conllu

from mlparse.trees.dependency import DependencyPrediction, parse_conllu, render_conllu

DEFAULT = (Path(__file__).resolve().parents[1].parent / "shared" / "treebanks" / "ud" / "UD_English-EWT"
           / "en_ewt-ud-train.conllu")


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu(fn: Callable[[], object]) -> float:
    gc.collect()
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not args.file.is_file():
        print(f"{args.file} not found; skipping")
        return 0
    text = args.file.read_text(encoding="utf-8")
    fast = parse_conllu(text, args.file.name)
    reference = parse_conllu(text, args.file.name, engine="conllu")
    assert fast.sentences == reference.sentences, "the fast and the conllu engines disagree"
    n = len(fast.sentences)
    words = sum(len(s) for s in fast.sentences)
    gold = [DependencyPrediction(s.heads, s.deprels) for s in fast.sentences]
    assert render_conllu(fast, gold) == text, "the gold round trip is not byte-identical"
    runs: Dict[str, Callable[[], object]] = {
        "conllu.parse (whole text)": lambda: conllu.parse(text),
        "read, engine='conllu'": lambda: parse_conllu(text, engine="conllu"),
        "read, engine='fast'": lambda: parse_conllu(text),
        "write back (gold heads)": lambda: render_conllu(fast, gold),
    }
    best = {name: float("inf") for name in runs}
    for _ in range(args.repeats):
        for name, fn in runs.items():
            best[name] = min(best[name], cpu(fn))
    print(f"{args.file.name}: {n} sentences, {words} words, {len(text.encode('utf-8')) / 1e6:.1f} MB "
          f"(CPU time, one core, best of {args.repeats})")
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"Python {platform.python_version()}, conllu {version('conllu')}")
    base = best["read, engine='fast'"]
    for name, seconds in best.items():
        print(f"  {name:28s} {seconds:6.2f} s  {n / seconds:8.0f} sentences/s  ({seconds / base:.1f}x the fast reader's time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
