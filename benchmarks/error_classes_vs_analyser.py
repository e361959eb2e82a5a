"""mlparse's error classes against the original Berkeley Parser Analyser (Kummerfeld et al. 2012).

Runs the analyser's ``classify_english.py`` and ``mlparse analyze errors``' classifier
(:mod:`mlparse.compare.breakdowns.error_classes`) on the same tree pairs and prints, per class, the
bracket errors and repairs each credits, the sentences on which the two agree (the same errors in
every class) and those on which they differ:

1. the analyser's own sample data: 13 parsers' output on 10 WSJ sentences (``sample_data/*.mrg``
   against ``sample_data/wsj01.mrg``);
2. with ``--perturbed N``, N gold trees of the PTB sample (``--treebank``) each with one to
   ``--changes`` random changes (``benchmarks/instrumentation/analyser_reference.py``);
3. with ``--pair GOLD PRED`` (repeatable), a prediction file against its gold file, one tree a line
   (a run's ``test.pred.trees`` and its prepared ``test.trees``), less the predicted trees with no
   single bracket under the root, on which the analyser stops with an error.

The analyser is not part of this repository (nor its WSJ sample parses): give a copy kept outside it,

    git clone https://github.com/jkkummerfeld/berkeley-parser-analyser /tmp/berkeley-parser-analyser
    python3 benchmarks/error_classes_vs_analyser.py --analyser /tmp/berkeley-parser-analyser [--perturbed 500]
        [--pair data/ptb-sample/english/test.trees runs/demo/RUN/test.pred.trees]

Its current version runs on Python 3 (``--python`` picks the interpreter).  Without ``--analyser``
(or ``BPA_REFERENCE``) the script says so and exits with status 0, as ``make bench`` needs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.instrumentation.analyser_reference import (  # noqa: E402
    Agreement, ReferenceMissing, check_reference, compare, compare_perturbed, compare_predictions)
from mlparse.compare.breakdowns.error_classes import CLASSES  # noqa: E402


def class_table(agreement: Agreement) -> List[str]:
    ours, theirs = agreement.totals("ours"), agreement.totals("theirs")
    our_repairs, their_repairs = agreement.repairs("ours"), agreement.repairs("theirs")
    lines = ["| class | errors (mlparse) | errors (analyser) | Δ | repairs (mlparse) | repairs (analyser) |",
             "|---|---:|---:|---:|---:|---:|"]
    for name in CLASSES:
        lines.append(f"| {name} | {ours[name]} | {theirs[name]} | {ours[name] - theirs[name]:+d} | "
                     f"{our_repairs[name]} | {their_repairs[name]} |")
    lines.append(f"| all | {sum(ours.values())} | {sum(theirs.values())} | "
                 f"{sum(ours.values()) - sum(theirs.values()):+d} | {sum(our_repairs.values())} | "
                 f"{sum(their_repairs.values())} |")
    return lines


def report(title: str, agreement: Agreement, show: int) -> None:
    sentences = agreement.sentences
    identical = sum(s.ours == s.theirs for s in sentences)
    print(f"\n## {title}\n")
    print("\n".join(class_table(agreement)))
    print(f"\nsentences agreeing (the same errors in every class): {agreement.agreeing} of {len(sentences)}; "
          f"with the same steps in the same order: {identical}")
    for sentence in agreement.differing()[:show]:
        print(f"- {sentence.parser} line {sentence.line} ({sentence.errors} errors): "
              f"mlparse {sentence.ours}; analyser {sentence.theirs}")


def analyser_version(folder: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--analyser", type=Path, default=os.environ.get("BPA_REFERENCE"),
                        help="a copy of jkkummerfeld/berkeley-parser-analyser (default: $BPA_REFERENCE)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs the analyser")
    parser.add_argument("--perturbed", type=int, default=0, help="also compare N perturbed WSJ trees")
    parser.add_argument("--changes", type=int, default=4, help="at most this many random changes per tree")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--treebank", type=Path, default=REPO.parent / "shared" / "treebanks" / "ptb-sample",
                        help="PTB .mrg files for --perturbed")
    parser.add_argument("--pair", nargs=2, action="append", type=Path, default=[], metavar=("GOLD", "PRED"),
                        help="also compare a prediction file against its gold file")
    parser.add_argument("--show", type=int, default=30, help="list at most this many differing sentences")
    args = parser.parse_args(argv)
    if args.analyser is None:
        print("skipped: give --analyser DIR (a copy of jkkummerfeld/berkeley-parser-analyser) or set BPA_REFERENCE")
        return 0
    try:
        check_reference(args.analyser)
    except ReferenceMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"# mlparse error classes against the Berkeley Parser Analyser ({date.today().isoformat()})\n")
    print(f"analyser: {args.analyser} at {analyser_version(args.analyser)}, run by {args.python}")
    started = time.perf_counter()
    report("The analyser's sample data (13 parsers x 10 WSJ sentences)", compare(args.analyser, python=args.python),
           args.show)
    if args.perturbed:
        if not args.treebank.is_dir():
            print(f"error: no treebank folder {args.treebank} for --perturbed", file=sys.stderr)
            return 2
        agreement = compare_perturbed(args.analyser, args.treebank, args.perturbed, args.seed, args.changes,
                                      python=args.python)
        report(f"{args.perturbed} perturbed WSJ trees of {args.treebank.name} (seed {args.seed}, "
               f"1 to {args.changes} changes each)", agreement, args.show)
    for gold, pred in args.pair:
        agreement, left_out = compare_predictions(args.analyser, gold, pred, python=args.python)
        report(f"{pred} against {gold} (left out: {left_out} predicted tree{'' if left_out == 1 else 's'} with "
               "no single bracket under the root)", agreement, args.show)
    print(f"\n({time.perf_counter() - started:.0f} s, both sides)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
