"""The typer application that every command module registers on."""

import typer

app = typer.Typer(
    name="mlparse",
    help="Multilingual treebank benchmarking: prepare treebanks, train and evaluate parsers, report results.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _group() -> None:
    """Multilingual treebank benchmarking (keeps `mlparse <command>` form even with one command)."""
