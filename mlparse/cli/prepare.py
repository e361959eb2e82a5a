"""``mlparse prepare FAMILY``: read a treebank, normalize it, write split files and manifest.json."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from mlparse.cli.app import app
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message
from mlparse.data.catalog import CatalogError, family_names
from mlparse.data.issues import Issue, PrepareError
from mlparse.data.manifest import Manifest
from mlparse.data.prepare import PrepareReport, ProgressHook, prepare_family
from mlparse.data.sources import SourceNotFoundError
from mlparse.data.splits import SplitError

console = CliConsole()
error_console = CliConsole(stderr=True)


class RichProgress(ProgressHook):
    """A transient rich progress bar per treebank, measured in bytes read."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.progress: Optional[Progress] = None
        self.task = None

    def start(self, description: str, total: int) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        self.progress.start()
        self.task = self.progress.add_task(description, total=total)

    def advance(self, amount: int) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, amount)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def summary_table(report: PrepareReport) -> Table:
    """One row per language and split: the figures of the manifest."""
    table = Table(title=f"mlparse prepare {report.family}")
    for column in ("language", "split", "sentences", "tokens", "max len", "labels", "repairs", "exclusions"):
        table.add_column(column, justify="left" if column in ("language", "split") else "right")
    for result in report.results:
        manifest = result.manifest
        for index, (split, stats) in enumerate(manifest.splits.items()):
            first = index == 0
            table.add_row(
                result.language if first else "",
                split,
                f"{stats.sentences:,}",
                f"{stats.tokens:,}",
                str(stats.max_length),
                str(len(stats.labels)),
                f"{len(manifest.repairs):,}" if first else "",
                f"{len(manifest.exclusions):,}" if first else "",
            )
        for split in manifest.missing_splits:
            table.add_row("", split, "[yellow]missing[/]", "", "", "", "", "")
    return table


@app.command(
    "prepare",
    help=(
        "Prepare a treebank family (ptb, ptb-sample, spmrl, ud, free): read the source, normalize "
        "every tree (catalog pipeline in treebanks/<family>.yaml) and write "
        "<out>/<family>/<language>/{train,dev,test}.trees (or .conllu) plus manifest.json; a treebank "
        "with heads (a head table, or heads marked by the treebank) also gets its dependency version, "
        "{train,dev,test}.conllu beside the .trees. "
        "Without --source, ptb-sample, free and ud are looked for in $MLPARSE_DATA and then in "
        "../shared/treebanks."
    ),
)
def prepare_command(
    family: str = typer.Argument(..., help="Treebank family: " + ", ".join(("ptb", "ptb-sample", "spmrl", "ud", "free"))),
    source: Optional[Path] = typer.Option(None, "--source", "-s", help="Folder holding the treebank (or its parent folder)."),
    language: Optional[List[str]] = typer.Option(
        None, "--language", "-l", help="Language(s) to prepare (repeat or comma-separate); default: every one found. "
        "For ud: treebank names (UD_Finnish-TDT), globs (UD_English-*), language codes (en, fi) or language names (english)."
    ),
    out: Path = typer.Option(Path("data"), "--out", "-o", help="Output folder."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Treebanks prepared in parallel processes (ud)."),
) -> None:
    if out.exists() and not out.is_dir():
        fail(f"--out {out} is a file; give a folder", 2)
    try:
        report = prepare_family(family, source=source, languages=language, out=out, progress=RichProgress(console),
                                jobs=jobs)
    except (CatalogError, PrepareError, SourceNotFoundError, SplitError) as error:
        fail(error, 2)
    except OSError as error:
        fail(os_error_message(error, "cannot read or write"), 1)
    console.print(summary_table(report))
    console.print(f"found: {', '.join(report.found)}", highlight=False)
    for name, where in report.not_found.items():
        console.print(Text.assemble(("not found: ", "yellow"), f"{name}: {where}"), soft_wrap=True)
    for result in report.results:
        _show_issues(result.manifest.exclusions, "left out", result.out_dir)
        _show_dependencies(result.manifest)
        console.print(f"wrote {result.out_dir}", highlight=False, soft_wrap=True)
    _show_release(report)


def _show_release(report: PrepareReport) -> None:
    """Treebanks without train, with a carved dev split, skipped (no text) or failed; exit 1 if any failed."""
    if report.test_only:
        console.print(Text.assemble(("test-only (no train split): ", "yellow"), ", ".join(report.test_only)),
                      soft_wrap=True)
    for result in report.results:
        carved = result.manifest.ud.dev_carved if result.manifest.ud is not None else None
        if carved:
            console.print(f"{result.language}: no dev split; dev carved from train: {carved['rule']} "
                          f"({carved['dev_sentences']:,} of {carved['train_sentences_before']:,} sentences)",
                          highlight=False, soft_wrap=True)
    for name, reason in report.skipped.items():
        console.print(Text.assemble(("skipped: ", "yellow"), f"{name}: {reason}"), soft_wrap=True)
    for name, reason in report.failed.items():
        error_console.print(Text.assemble(("failed: ", "red"), f"{name}: {reason}"), soft_wrap=True)
    if report.failed:
        raise typer.Exit(1)


def _show_dependencies(manifest: Manifest) -> None:
    """The dependency version's files and where its heads come from (nothing without one)."""
    heads = manifest.heads
    if heads is None:
        return
    files = ", ".join(stats.dependencies for stats in manifest.splits.values() if stats.dependencies)
    line = f"dependency version: {files} (heads: {heads.table}, relations: {heads.relations})"
    if heads.phrases_without_head is not None:
        line += (f"; {heads.phrases_without_head:,} phrase(s) mark no head (the last child heads them), "
                 f"{heads.phrases_with_several_heads:,} mark several (the first heads them)")
    console.print(line, highlight=False, soft_wrap=True)


#: Excluded trees listed on the terminal per language (all of them are in manifest.json).
SHOWN_ISSUES = 5


def _show_issues(issues: List[Issue], what: str, out_dir: Path) -> None:
    """The first few trees left out, each with file:line and reason, so that none goes unnoticed."""
    if not issues:
        return
    console.print(Text.assemble((f"{len(issues):,} tree(s) {what}", "yellow"),
                                f" (all listed in {out_dir / 'manifest.json'}):"), soft_wrap=True)
    for issue in issues[:SHOWN_ISSUES]:
        console.print(Text(f"  {issue}"), soft_wrap=True)
    if len(issues) > SHOWN_ISSUES:
        console.print(Text(f"  ... and {len(issues) - SHOWN_ISSUES:,} more"))


__all__ = ["prepare_command", "family_names"]
