"""Command-line interface.  One module per command, each thin: parse arguments, call
library code, render with rich.  Heavy imports (torch) happen inside the commands so
that ``mlparse --help`` stays fast.
"""

import importlib

from mlparse.cli.app import app

#: Command modules; each registers its commands on ``app`` when imported.
COMMAND_MODULES = ("prepare", "demo", "run", "parse", "report")

for _name in COMMAND_MODULES:
    try:
        importlib.import_module(f"mlparse.cli.{_name}")
    except ModuleNotFoundError as error:  # a command still being written
        if error.name != f"mlparse.cli.{_name}":
            raise


def main() -> None:
    app()
