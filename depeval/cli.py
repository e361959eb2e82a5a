"""Console script ``depeval [-v] [-c] [--ptb-punct [--punct-tags TAG[,TAG...]] [--punct-column upos]] GOLD SYSTEM``.

Prints what ``conll18_ud_eval.py`` prints, byte for byte.  Where the script
stops with a ``UDError``, prints its message (and where it was found) on
stderr and exits with status 1, without a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys

from .api import evaluate_files
from .errors import DepevalError
from .ptb import PTB_PUNCT_TAGS, parse_punct_tags
from .report import format_report
from .version import SCORER_VERSION


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="depeval",
        description="Score a system CoNLL-U file against a gold one exactly as the CoNLL 2018 UD shared task "
        "evaluation script (v1.2) does: LAS, MLAS and BLEX F1, or every metric with -v.",
    )
    parser.add_argument("gold_file", help="the CoNLL-U file with the gold data")
    parser.add_argument("system_file", help="the CoNLL-U file with the predicted data")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every metric (precision, recall, F1, aligned accuracy)")
    parser.add_argument("-c", "--counts", action="store_true", help="print raw counts (correct, gold, predicted, aligned) instead")
    parser.add_argument(
        "--ptb-punct", action="store_true",
        help="not CoNLL 2018: print UAS and LAS without the words whose gold tag is one of "
        + " ".join(PTB_PUNCT_TAGS) + " (the PTB convention)",
    )
    parser.add_argument("--punct-tags", action="append", metavar="TAG[,TAG...]",
                        help="with --ptb-punct: the gold tags that mark punctuation instead of the PTB ones, "
                        "a comma list or the option repeated (CTB: --punct-tags PU; UD: --punct-tags PUNCT "
                        "--punct-column upos); give the comma tag on its own: --punct-tags ,")
    parser.add_argument("--punct-column", choices=("xpos", "upos"), default="xpos",
                        help="with --ptb-punct: the gold column holding those tags (default xpos)")
    parser.add_argument("--version", action="version", version=SCORER_VERSION)
    return parser


def _error(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status (0, or 1 when the inputs are refused)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.punct_tags and not args.ptb_punct:
        parser.error("--punct-tags needs --ptb-punct (the CoNLL 2018 scoring counts every word)")
    try:
        punct_tags = parse_punct_tags(args.punct_tags) if args.punct_tags else PTB_PUNCT_TAGS
    except ValueError as error:
        parser.error(str(error))
    try:
        scores = evaluate_files(args.gold_file, args.system_file, ptb_punct=args.punct_column if args.ptb_punct else None,
                                punct_tags=punct_tags)
    except DepevalError as error:
        _error(error.describe())
        return 1
    except OSError as error:
        _error(f"depeval: cannot read {error.filename or args.gold_file}: {error.strerror or error}")
        return 1
    try:
        sys.stdout.write(format_report(scores, args.verbose, args.counts))
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
