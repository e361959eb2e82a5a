"""``mlparse upgrade RUN_DIR``: convert a run's checkpoints of mlparse's old format to the current one (plain data)."""

from __future__ import annotations

from pathlib import Path
from typing import List

import typer
from rich.console import Console

from mlparse.cli.app import app
from mlparse.cli.errors import fail, os_error_message, print_error, print_warning

console = Console(stderr=True)


@app.command("upgrade")
def upgrade_command(
    target: Path = typer.Argument(..., help="A run directory (its checkpoints/best.pt and last.pt are converted) "
                                  "or one checkpoint file."),
    trust_checkpoint: bool = typer.Option(
        False, "--trust-checkpoint", help="Also convert a file that holds more than an old mlparse checkpoint "
        "does, by unpickling it in full, which runs any code it carries: only for files you trust."),
) -> None:
    """Rewrite checkpoints of mlparse's first format in the current one, in place.

    The first format pickled NumPy's random state as an array, so reading it needs more than plain
    data.  Here it is read with NumPy arrays allowed and nothing else: nothing in the file runs,
    and a file holding any other object is refused.  Each converted file is checked to read back
    the same before it replaces the old one (atomically).  A run directory is converted under its
    lock, so never while `mlparse run` trains it.
    """
    from mlparse.io_utils import WriteError
    from mlparse.run_dir import RunDir
    from mlparse.train.checkpoint import CheckpointError, upgrade_file
    from mlparse.train.run_lock import RunLock, RunLocked

    if target.is_dir():
        files: List[Path] = [RunDir(target).best, RunDir(target).last]
        files = [path for path in files if path.is_file()]
        if not files:
            fail(f"{target} has no checkpoints/best.pt or checkpoints/last.pt (is it a run directory?)", 2)
        lock = RunLock(target)
    elif target.is_file():
        files, lock = [target], None
    else:
        fail(f"not found: {target}", 2)
    failures = 0
    try:
        if lock is not None:
            lock.acquire()
        for path in files:
            try:
                old = upgrade_file(path, trust=trust_checkpoint, warn=print_warning)
            except CheckpointError as error:
                print_error(error)
                failures += 1
                continue
            console.print(f"{path}: {'converted from format ' + str(old) if old else 'already in the current format'}",
                          highlight=False, soft_wrap=True)
    except RunLocked as error:
        fail(error, 1)
    except WriteError as error:
        fail(f"cannot write {error.filename}: {error.strerror} (the file is unchanged)", 1)
    except OSError as error:
        fail(os_error_message(error, "cannot read or write"), 1)
    finally:
        if lock is not None:
            lock.release()
    if failures:
        raise typer.Exit(1)
