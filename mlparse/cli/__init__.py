"""Command-line interface.  One module per command, each thin: parse arguments, call
library code, render with rich.  Heavy imports (torch) happen inside the commands so
that ``mlparse --help`` stays fast.
"""

from mlparse.cli import analyze, compare, demo, depeval, ensemble, export, parse, prepare, report, run, score, sweep, upgrade  # noqa: F401  (each registers its command)
from mlparse.cli.app import app
from mlparse.train.threads import prefer_passive_waiting


def main() -> None:
    prefer_passive_waiting()  # before any command imports torch (mlparse/train/threads.py says why)
    app()
