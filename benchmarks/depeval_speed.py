"""Speed of depeval on a UD dev file, side by side with the original CoNLL 2018 script when it is available.

Scores a UD dev file (default: English-EWT from ``shared/treebanks/ud``) against

* itself, and
* a perturbed copy (about 10% of relations and UPOS tags changed, 5% of words
  re-attached to another word that is not below them; tokenization untouched),

and times, best of several runs interleaved (fair on a busy machine):

* in-process CPU time of ``depeval.evaluate_files`` and, when ``DEPEVAL_REFERENCE``
  names the original ``conll18_ud_eval.py``, of its ``load_conllu_file`` +
  ``evaluate`` (the cyclic GC collected between runs, so neither pays for the
  other's objects);
* the whole ``-v`` process (wall clock) of both, checking the outputs are byte-identical.

Without the original only depeval's figures are printed.  Usage:
``DEPEVAL_REFERENCE=/path/conll18_ud_eval.py python3 benchmarks/depeval_speed.py [--file F] [--runs 5]``
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import depeval  # noqa: E402


def default_file() -> Path:
    env = os.environ.get("MLPARSE_SHARED_TREEBANKS")
    root = Path(env) if env else REPO.parent / "shared" / "treebanks"
    return root / "ud" / "UD_English-EWT" / "en_ewt-ud-dev.conllu"


def perturb(text: str, rng: random.Random) -> str:
    """Relations, UPOS and heads changed; every sentence stays a tree (see the module text)."""
    out = []
    for block in text.split("\n\n"):
        rows = [line.split("\t") if "\t" in line else line for line in block.split("\n")]
        words = [r for r in rows if isinstance(r, list) and r[0].isdigit()]
        heads = {int(r[0]): int(r[6]) for r in words}
        for r in words:
            if rng.random() < 0.1:
                r[7] = rng.choice(["nsubj", "obj", "obl", "det", "case", "amod", "punct", "nmod:poss"])
            if rng.random() < 0.1:
                r[3] = rng.choice(["NOUN", "VERB", "ADJ", "PROPN"])
            if rng.random() < 0.05 and heads[int(r[0])] != 0:
                below, grew = {int(r[0])}, True
                while grew:
                    grew = False
                    for word, head in heads.items():
                        if head in below and word not in below:
                            below.add(word)
                            grew = True
                choices = [w for w in heads if w not in below]
                if choices:
                    heads[int(r[0])] = rng.choice(choices)
                    r[6] = str(heads[int(r[0])])
        out.append("\n".join("\t".join(r) if isinstance(r, list) else r for r in rows))
    return "\n\n".join(out)


def load_reference(path: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("conll18_ud_eval_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def cpu_time(function, runs: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        result = function()
        best = min(best, time.process_time() - start)
        del result
    return best


def wall_time(command: list[str], runs: int) -> tuple[float, bytes]:
    best, output = float("inf"), b""
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(os.environ, PYTHONPATH=str(REPO)))
        best = min(best, time.perf_counter() - start)
        output = done.stdout
    return best, output


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=default_file())
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    if not args.file.is_file():
        print(f"skipped: no file {args.file} (set MLPARSE_SHARED_TREEBANKS or --file)")
        return 0
    reference_path = os.environ.get("DEPEVAL_REFERENCE")
    reference = load_reference(reference_path) if reference_path else None
    gold_text = args.file.read_text(encoding="utf-8")
    words = depeval.read_conllu(gold_text).n_words
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.processor() or platform.platform()}; "
          f"Python {platform.python_version()}")
    print(f"{args.file.name}: {words:,} words; best of {args.runs} runs")
    port = [sys.executable, "-m", "depeval.cli", "-v"]
    with tempfile.TemporaryDirectory() as tmp:
        system_path = Path(tmp) / "system.conllu"
        system_path.write_text(perturb(gold_text, random.Random(3)), encoding="utf-8")
        header = f"{'case':<10} {'LAS':>6} {'depeval CPU s':>13} {'words/s':>9}"
        if reference:
            header += f" {'original CPU s':>14} {'speed-up':>8} {'depeval wall s':>14} {'original wall s':>15} {'speed-up':>8} {'identical':>9}"
        print(header)
        for name, system in (("self", args.file), ("perturbed", system_path)):
            ours = cpu_time(lambda: depeval.evaluate_files(args.file, system), args.runs)
            las = depeval.evaluate_files(args.file, system).las.f1
            line = f"{name:<10} {100 * las:6.2f} {ours:13.3f} {words / ours:9,.0f}"
            if reference:
                theirs = cpu_time(lambda: reference.evaluate(reference.load_conllu_file(str(args.file)),
                                                             reference.load_conllu_file(str(system))), args.runs)
                ours_wall, ours_out = wall_time(port + [str(args.file), str(system)], args.runs)
                ref_wall, ref_out = wall_time([sys.executable, reference_path, "-v", str(args.file), str(system)], args.runs)
                line += (f" {theirs:14.3f} {theirs / ours:7.2f}x {ours_wall:14.3f} {ref_wall:15.3f} {ref_wall / ours_wall:7.2f}x"
                         f" {('yes' if ours_out == ref_out else 'NO'):>9}")
            print(line)
    if not reference:
        print("(DEPEVAL_REFERENCE is not set: the original script was not timed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
