"""``mlparse parse --model RUN_DIR``: parse sentences with a trained span parser, one tree per line out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from mlparse.cli.app import app

console = Console(stderr=True)


@app.command("parse")
def parse_command(
    model: Path = typer.Option(..., "--model", help="A run directory (its checkpoints/best.pt is used) or a .pt file."),
    input_file: Optional[Path] = typer.Option(None, "--input", help="Tokenized sentences (one per line) or bracketed trees; default stdin."),
    output_file: Optional[Path] = typer.Option(None, "--output", help="Where the trees go (one per line); default stdout."),
    subbatch_tokens: int = typer.Option(5000, "--batch-tokens", help="Token budget of one forward pass."),
) -> None:
    """Parse tokenized text or re-parse bracketed trees (their words and POS tags are used).

    Tokenized input gets POS tags from the model's tagging head when it has one, else the
    placeholder tag UNK.  An empty input line gives an empty output line.
    """
    from mlparse.io_utils import atomic_write_text
    from mlparse.models.inference import ParseInputError, load_parser, parse_input, read_input

    try:
        parser = load_parser(model)
        if input_file is not None:
            if not input_file.is_file():
                raise ParseInputError(f"input file not found: {input_file}")
            text = input_file.read_text(encoding="utf-8")
        else:
            text = sys.stdin.read()
        sentences = read_input(text, parser)
        trees = parse_input(parser, sentences, budget=subbatch_tokens)
    except (ParseInputError, UnicodeDecodeError) as error:
        console.print(f"[red]error:[/red] {error}", highlight=False)
        raise typer.Exit(1)
    output = "".join((tree.to_bracketed() if tree is not None else "") + "\n" for tree in trees)
    if output_file is not None:
        atomic_write_text(output_file, output)
        console.print(f"{sum(t is not None for t in trees)} trees written to {output_file}", highlight=False)
    else:
        sys.stdout.write(output)
