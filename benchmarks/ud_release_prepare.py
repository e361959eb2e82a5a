"""`mlparse prepare ud` over a whole release: one process against ``--jobs N``, measured side by side.

Two sources: the shared UD folders (``../shared/treebanks`` or ``$MLPARSE_SHARED_TREEBANKS``: 12 treebanks, 59 MB), and a synthetic release
of ``--treebanks`` folders (``UD_Synthetic-0000`` ...), each with train/dev/test of ``--words`` words in all
(random trees, chains and stars), written once to a temporary folder.  Each preparation runs
``prepare_family("ud", ...)`` in this process into a fresh output folder; wall-clock seconds, best of
``--repeats``, are printed with the ratio to ``jobs=1`` of the same run and the words per second.  Usage::

    python3 benchmarks/ud_release_prepare.py [--treebanks 300] [--words 20000] [--jobs 2] [--repeats 1]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import List

from mlparse.data.prepare import prepare_family

SHARED = Path(os.environ.get("MLPARSE_SHARED_TREEBANKS")
              or Path(__file__).resolve().parents[1].parent / "shared" / "treebanks")
README = ("# Summary\n\nSynthetic.\n\n=== Machine-readable metadata (DO NOT REMOVE!) ===\nLicense: CC0\n"
          "Includes text: yes\nContributors: Nobody\n===\n")


def sentence(rng: random.Random, n: int, k: int) -> str:
    lines = [f"# sent_id = s{k}"]
    for i in range(1, n + 1):
        head = 0 if i == 1 else rng.randrange(1, i)
        lines.append(f"{i}\tw{rng.randrange(5000)}\t_\t{rng.choice(['NOUN', 'VERB', 'ADJ', 'DET'])}\t_\t_\t{head}\t"
                     f"{'root' if head == 0 else rng.choice(['nsubj', 'obj', 'amod', 'det'])}\t_\t_")
    return "\n".join(lines) + "\n\n"


def synthetic_release(root: Path, treebanks: int, words: int, seed: int = 1) -> int:
    """Write the release; returns the number of words written."""
    rng = random.Random(seed)
    total = 0
    for t in range(treebanks):
        folder = root / f"UD_Synthetic-{t:04d}"
        folder.mkdir(parents=True)
        (folder / "README.md").write_text(README, encoding="utf-8")
        for split, share in (("train", 0.8), ("dev", 0.1), ("test", 0.1)):
            budget, parts, k = int(words * share), [], 0
            while budget > 0:
                n = min(budget, rng.randrange(3, 40))
                parts.append(sentence(rng, n, k))
                budget, total, k = budget - n, total + n, k + 1
            (folder / f"sy_s{t:04d}-ud-{split}.conllu").write_text("".join(parts), encoding="utf-8")
    return total


def timed(source: Path, out: Path, jobs: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        shutil.rmtree(out, ignore_errors=True)
        start = time.perf_counter()
        report = prepare_family("ud", source=source, out=out, jobs=jobs)
        best = min(best, time.perf_counter() - start)
        assert not report.failed, report.failed
    return best


def compare(label: str, source: Path, words: int, jobs: List[int], repeats: int, scratch: Path) -> None:
    times = {j: timed(source, scratch / f"out-{j}", j, repeats) for j in jobs}
    for j, seconds in times.items():
        print(f"{label}: jobs={j}: {seconds:.2f} s, {words / seconds:,.0f} words/s, "
              f"x{times[jobs[0]] / seconds:.2f} against jobs={jobs[0]}")


def main(argv: List[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treebanks", type=int, default=300)
    parser.add_argument("--words", type=int, default=20_000, help="words per synthetic treebank (all splits)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args(argv)
    jobs = [1] + ([args.jobs] if args.jobs > 1 else [])
    print(f"{os.cpu_count()} CPU cores; load average {os.getloadavg()[0]:.2f} at the start")
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        if SHARED.is_dir():
            shared_words = 0
            for path in list((SHARED / "ud").glob("*/*-ud-*.conllu")) + list((SHARED / "ud-legacy").glob("*/*-ud-*.conllu")):
                shared_words += sum(1 for line in path.open(encoding="utf-8") if line[:1].isdigit()
                                    and "\t" in line and line.split("\t", 1)[0].isdigit())
            compare("shared UD folders (12 treebanks)", SHARED, shared_words, jobs, args.repeats, scratch)
        else:
            print(f"shared treebanks not found at {SHARED}: that comparison is skipped")
        written = synthetic_release(scratch / "release", args.treebanks, args.words)
        compare(f"synthetic release ({args.treebanks} treebanks, {written:,} words)", scratch / "release", written,
                jobs, args.repeats, scratch)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main(sys.argv[1:])
