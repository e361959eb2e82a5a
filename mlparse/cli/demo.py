"""``mlparse demo``: prepare the WSJ sample (or a synthetic treebank) and show its summary."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from mlparse.cli.app import app
from mlparse.cli.prepare import RichProgress
from mlparse.data.catalog import CatalogError
from mlparse.data.demo_data import find_and_prepare
from mlparse.data.issues import PrepareError
from mlparse.data.prepare import load_manifest

console = Console()


def manifest_table(prepared_dir: Path) -> Table:
    manifest = load_manifest(prepared_dir)
    table = Table(title=f"{manifest.family}/{manifest.language} ({prepared_dir})")
    for column in ("split", "sentences", "tokens", "max len", "labels", "labels (unary chains collapsed)", "POS tags"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, stats in manifest.splits.items():
        table.add_row(split, f"{stats.sentences:,}", f"{stats.tokens:,}", str(stats.max_length),
                      str(len(stats.labels)), str(len(stats.collapsed_labels)), str(len(stats.pos)))
    return table


@app.command(
    "demo",
    help=(
        "Prepare the demo data: the WSJ sample from --source, $MLPARSE_DATA, ../shared/treebanks/ptb-sample "
        "or ~/nltk_data/corpora/treebank/combined; if none is found, a synthetic treebank from a small "
        "English PCFG. Prints the manifest summary."
    ),
)
def demo_command(
    source: Optional[Path] = typer.Option(None, "--source", "-s", help="Folder holding the WSJ sample."),
    out: Path = typer.Option(Path("data"), "--out", "-o", help="Output folder."),
) -> None:
    try:
        data = find_and_prepare(source, out, progress=RichProgress(console))
    except (CatalogError, PrepareError) as error:
        Console(stderr=True).print(f"[bold red]error:[/] {error}", highlight=False)
        raise typer.Exit(code=2)
    if data.synthetic:
        console.print("[yellow]No WSJ sample found[/] (looked in: " + "; ".join(data.looked_in) + ").", highlight=False)
        console.print("Using a synthetic treebank generated from a small English PCFG instead.")
    console.print(manifest_table(data.prepared_dir))
