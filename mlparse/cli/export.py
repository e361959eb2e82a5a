"""``mlparse export RUN_DIR OUT_DIR``: a trained run's model as a self-contained package."""

from __future__ import annotations

from pathlib import Path

import typer

from mlparse.cli.app import app
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message

console = CliConsole(stderr=True)


@app.command("export")
def export_command(
    run_dir: Path = typer.Argument(..., help="A finished run directory (its checkpoints/best.pt is exported)."),
    out_dir: Path = typer.Argument(..., help="The package folder to write (must not exist yet)."),
    tagger: Path = typer.Option(None, "--tagger", help="A tagger's run directory (model.kind: tagger) to bundle, so "
                                "that the package tags words and raw text itself. Default: the tagger of dev and "
                                "test of a parser trained on jack-knifed tags (data.tags: jackknife), else none."),
    quantize: bool = typer.Option(False, "--quantize", help="Make the package parse with its linear layers "
                                  "quantized to int8 on the CPU (faster; some trees can differ: docs/benchmarks.md). "
                                  "The weights are stored in float; mlparse.load(..., quantize=False) parses in float."),
) -> None:
    """Write a model package: weights, spec, resolved recipe, treebank and scores, a model card.

    The package loads with mlparse.load(OUT_DIR) or mlparse parse --model OUT_DIR and needs nothing
    else (no run directory, no prepared data).  It is written to a temporary folder renamed into place.
    """
    from mlparse.modules.quantize import DYNAMIC_INT8
    from mlparse.package import PackageError, export_package

    try:
        info = export_package(run_dir, out_dir, tagger, quantization=DYNAMIC_INT8 if quantize else "")
    except PackageError as error:
        fail(error, 1)
    except OSError as error:
        fail(os_error_message(error, "cannot write", out_dir), 1)
    carried = f", with its tagger in {out_dir / info.tagger}" if info.tagger else ""
    carried += ", to parse with int8 linear layers on the CPU" if info.quantization else ""
    console.print(f"{info.kind} {info.task} model ({info.language}, {info.dataset}) exported to {out_dir}{carried}",
                  highlight=False, soft_wrap=True)
