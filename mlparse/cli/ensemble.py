"""``mlparse ensemble MEMBER…``: evaluate the ensemble of trained runs (training recipe members first)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from mlparse.cli.app import app
from mlparse.cli.budget import checked_minutes
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message, print_warning

console = CliConsole(stderr=True)


@app.command("ensemble")
def ensemble_command(
    members: List[str] = typer.Argument(..., help="Finished run directories, recipes (names or files; trained first, "
                                        "as `mlparse run` would), or one ensemble recipe (a YAML file with an "
                                        "ensemble: section)."),
    out: Optional[Path] = typer.Option(None, "--out", help="The ensemble's run directory (default: "
                                       "RUNS_DIR/<name>/<id>/)."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where member runs and the ensemble go."),
    name: str = typer.Option("", "--name", help="The ensemble's name in reports (default: ensemble-<member recipes>)."),
    folds: Optional[int] = typer.Option(None, "--folds", help="Jack-knife: member j trains on every fold of the "
                                        "training file but j mod N; one recipe becomes N members."),
    fold_assignment: str = typer.Option("modulo", "--fold-assignment", help="modulo (sentence i is in fold i mod N), "
                                        "blocks (N contiguous blocks of the file) or permutation (a seeded "
                                        "permutation, data.fold_seed)."),
    average: str = typer.Option("probability", "--average", help="How the members' arc, relation and tag "
                                "distributions are combined: probability (their mean, Li et al. 2019) or "
                                "log-probability (the mean of their logarithms). Span charts are averaged as scores."),
    max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Training-time bound of each recipe member."),
    overrides: List[str] = typer.Option([], "--set", help="Override a key of every recipe member (repeatable)."),
    trust_checkpoint: bool = typer.Option(False, "--trust-checkpoint", help="As for `mlparse run`."),
) -> None:
    """Combine trained parsers of one task: the average of their arc and relation probabilities decoded once
    by MST/Eisner (dependency), or of their span-score charts decoded once by CKY (constituency).

    The ensemble is scored on dev and test like a run: RUNS_DIR/<name>/<id>/ holds its predictions, scorer
    reports, ensemble.yaml and results.json (naming its members with their own scores); `mlparse report`
    shows it as "ensemble of N".
    """
    checked_minutes(max_minutes, "--max-minutes")
    from mlparse.io_utils import WriteError
    from mlparse.train.ensemble_run import EnsembleError, EnsemblePlan, is_ensemble_recipe, read_ensemble_recipe, run_ensemble
    from mlparse.tasks.evalb_scoring import EvaluationError
    from mlparse.train.runner import RunError, RunOptions

    from mlparse.cli.run import write_failure_message

    try:
        if len(members) == 1 and is_ensemble_recipe(Path(members[0])):
            plan = read_ensemble_recipe(Path(members[0]))
            plan.name = name or plan.name
            plan.folds = folds if folds is not None else plan.folds
            plan.overrides = list(overrides)
        else:
            plan = EnsemblePlan(members=list(members), name=name, folds=folds, fold_assignment=fold_assignment,
                                average=average, overrides=list(overrides))
        options = RunOptions(runs_dir=runs_dir, max_minutes=max_minutes, trust_checkpoint=trust_checkpoint,
                             warn=print_warning)

        results, run = run_ensemble(plan, options, out, _Reporter,
                                    on_member=lambda path: console.print(f"member: {path}", highlight=False,
                                                                         soft_wrap=True))
    except (EnsembleError, RunError, EvaluationError, ValueError) as error:
        fail(error, 1)
    except WriteError as error:
        fail(write_failure_message(error), 1)
    except OSError as error:
        fail(os_error_message(error, "cannot read or write"), 1)
    except KeyboardInterrupt:
        fail("interrupted; the same command resumes the member runs and evaluates the ensemble again", 130)
    console.print(f"{results.system}", highlight=False, soft_wrap=True)
    for member in results.members:
        console.print(f"  member {member['run_dir']}: dev {_score(member.get('dev'))} test {_score(member.get('test'))}",
                      highlight=False, soft_wrap=True)
    for split in ("dev", "test"):
        scores = getattr(results, split)
        console.print(f"ensemble {split}: {_score(scores.__dict__ if scores is not None else None)}", highlight=False)
    console.print(f"parse speed {results.parse_sentences_per_second} sentences/s")
    console.print(f"results: {run.results}", highlight=False, soft_wrap=True)


def _score(scores: Optional[dict]) -> str:
    if not scores:
        return "–"
    parts = [f"F1 {scores['f1']:.2f}"] if scores.get("f1") is not None else []  # joint runs have both
    if scores.get("las") is not None:
        parts.append(f"LAS {scores['las']:.2f} UAS {scores.get('uas') or 0:.2f}")
    return " ".join(parts) or "–"


class _Reporter:
    """Member training: one line per dev check."""

    def on_step(self, info) -> None:  # type: ignore[no-untyped-def]
        pass

    def on_note(self, message: str) -> None:
        console.print(f"note: {message}", highlight=False, soft_wrap=True)

    def on_eval(self, info, improved: bool, lr_decayed: bool) -> None:  # type: ignore[no-untyped-def]
        console.print(f"  epoch {info.epoch:.2f} step {info.step}: dev {info.metric} {info.dev_score:.2f}"
                      f"{' (best)' if improved else ''}", highlight=False)
