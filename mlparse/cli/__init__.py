"""Command-line interface.  One module per command, each thin: parse arguments, call
library code, render with rich.  Heavy imports (torch) happen inside the commands so
that ``mlparse --help`` stays fast.
"""

from mlparse.cli import analyze, compare, demo, depeval, ensemble, export, parse, prepare, report, run, score, sweep, upgrade  # noqa: F401  (each registers its command)
from mlparse.cli.app import app
from mlparse.train.cpu_share import start_watching
from mlparse.train.threads import apply_waiting


def main() -> None:
    apply_waiting()  # before any command imports torch (mlparse/train/threads.py says why)
    start_watching()  # what other processes do while this one starts: a run's thread count
    app()
