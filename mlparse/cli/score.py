"""``mlparse score PRED --gold GOLD --name NAME``: any parser's predictions as an external run."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from mlparse.cli.app import app
from mlparse.cli.errors import fail, os_error_message


class TaskName(str, Enum):
    constituency = "constituency"
    dependency = "dependency"


class Scoring(str, Enum):
    conll18 = "conll18"
    ptb = "ptb"


@app.command("score")
def score_command(
    pred: Path = typer.Argument(..., help="Predicted trees (bracketed, in any parser's root: (S1 ...), (ROOT ...), "
                                "(TOP ...), ( ...)) or a CoNLL-U file."),
    gold: str = typer.Option(..., "--gold", help="A prepared split FAMILY/LANGUAGE:SPLIT (ptb-sample/english:test) "
                             "or a gold file (bracketed trees that are not a prepared split, raw PTB .mrg files "
                             "included, are normalized as mlparse prepare would)."),
    name: str = typer.Option(..., "--name", help="The system's display name, any text (\"Stanza 1.5\"); the run "
                             "directory is RUNS_DIR/FOLDER/external-<id>, FOLDER the name with each run of spaces and "
                             "other signs made '-' (Stanza-1.5)."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where the external run is written."),
    task: Optional[TaskName] = typer.Option(None, "--task", help="Default: dependency for .conllu files; else the "
                                            "task of the one split prepared for FAMILY/LANGUAGE:SPLIT; else "
                                            "dependency when PRED reads as CoNLL-U, constituency otherwise."),
    data_root: Path = typer.Option(Path("data"), "--data-root", help="Where prepared splits live."),
    evalb_params: Optional[str] = typer.Option(None, "--evalb-params", help="Constituency: the evalb parameter file "
                                               "(default: the one the catalog names for the data, as a trained run)."),
    family: Optional[str] = typer.Option(None, "--family", help="The data set the report files it under (default: "
                                         "GOLD's family, or a gold file's grandparent folder)."),
    language: Optional[str] = typer.Option(None, "--language", help="The report's language column (default: GOLD's "
                                           "language, or a gold file's parent folder)."),
    scoring: Scoring = typer.Option(Scoring.conll18, "--scoring", help="Dependency: conll18 (punctuation scored) or "
                                    "ptb (punctuation left out by gold XPOS)."),
) -> None:
    """Score PRED against GOLD exactly as a trained run on that data is scored, and write it as a run that
    `mlparse report` and `mlparse compare` read like any other."""
    from mlparse.compare.external import score_external
    from mlparse.compare.runs import CompareError

    try:
        scored = score_external(pred, gold, name, runs_dir, task.value if task else None, evalb_params,
                                scoring.value, data_root, family, language)
    except CompareError as error:
        fail(error)
    except OSError as error:
        fail(os_error_message(error, "cannot write"))
    results = scored.results
    scores = results.test or results.dev
    for note in scored.notes:
        typer.echo(f"note: {note}")
    typer.echo(f"{results.system}: {scored.line}  ({scores.scorer}, {scores.sentences} sentences)")
    typer.echo(f"written: {scored.run_dir}")
