"""``mlparse depeval GOLD SYSTEM``: dependency scores exactly as the CoNLL 2018 script computes them.

A thin wrapper of the ``depeval`` package (the same output as its ``depeval``
console script); errors are printed the mlparse way.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from mlparse.cli.app import app
from mlparse.cli.errors import fail, os_error_message


class TagColumn(str, Enum):
    xpos = "xpos"
    upos = "upos"


@app.command("depeval")
def depeval_command(
    gold: Path = typer.Argument(..., help="The gold CoNLL-U file."),
    system: Path = typer.Argument(..., help="The predicted CoNLL-U file."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Every metric: precision, recall, F1, aligned accuracy."),
    counts: bool = typer.Option(False, "--counts", "-c", help="Raw counts (correct, gold, predicted, aligned) instead."),
    ptb_punct: bool = typer.Option(False, "--ptb-punct",
                                   help="Not CoNLL 2018: UAS and LAS without words whose gold tag is `` '' : , . "
                                   "(the PTB convention of Li et al. 2019 and Mrini et al. 2020)."),
    punct_tags: Optional[List[str]] = typer.Option(
        None, "--punct-tags", metavar="TAG[,TAG...]",
        help="With --ptb-punct: the gold tags marking punctuation instead of the PTB ones, a comma list or the option "
        "repeated (CTB: PU; UD: PUNCT with --punct-column upos); give the comma tag on its own: --punct-tags ,"),
    punct_column: TagColumn = typer.Option(TagColumn.xpos, "--punct-column",
                                           help="With --ptb-punct: the gold column holding those tags."),
) -> None:
    """Score SYSTEM against GOLD as the CoNLL 2018 UD shared task script (v1.2) does, byte for byte.

    Prints LAS, MLAS and BLEX F1 (or the full table with -v); --ptb-punct prints UAS and LAS without punctuation instead, and says so.
    """
    import depeval
    from depeval.ptb import PTB_PUNCT_TAGS, parse_punct_tags

    if punct_tags and not ptb_punct:
        fail("--punct-tags needs --ptb-punct (the CoNLL 2018 scoring counts every word)")
    try:
        tags = parse_punct_tags(punct_tags) if punct_tags else PTB_PUNCT_TAGS
    except ValueError as error:
        fail(str(error))
    try:
        scores = depeval.evaluate_files(gold, system, ptb_punct=punct_column.value if ptb_punct else None,
                                        punct_tags=tags)
    except depeval.DepevalError as error:
        fail(error.describe())
    except OSError as error:
        fail(os_error_message(error, "cannot read"))
    sys.stdout.write(depeval.format_report(scores, verbose, counts))
    sys.stdout.flush()
