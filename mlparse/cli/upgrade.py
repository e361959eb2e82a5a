"""``mlparse upgrade RUN_DIR | CHECKPOINT | RECIPE.yaml``: bring a run's checkpoints (plain data) and recipes
written by an older mlparse to the current format and layout."""

from __future__ import annotations

from pathlib import Path
from typing import List

import typer

from mlparse.cli.app import app
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message, print_error, print_warning

console = CliConsole(stderr=True)


@app.command("upgrade")
def upgrade_command(
    target: Path = typer.Argument(..., help="A run directory (its checkpoints/best.pt and last.pt are converted, its "
                                  "recipe.yaml rewritten in the current layout), one checkpoint file, or a recipe "
                                  "file (.yaml)."),
    trust_checkpoint: bool = typer.Option(
        False, "--trust-checkpoint", help="Also convert a file that holds more than an old mlparse checkpoint "
        "does, by unpickling it in full, which runs any code it carries: only for files you trust."),
) -> None:
    """Rewrite checkpoints of mlparse's first format, and recipes of an older layout, in the current ones, in place.

    The first checkpoint format pickled NumPy's random state as an array, so reading it needs more than
    plain data.  Here it is read with NumPy arrays allowed and nothing else: nothing in the file runs,
    and a file holding any other object is refused.  Each converted file is checked to read back
    the same before it replaces the old one (atomically).  A run directory is converted under its
    lock, so never while `mlparse run` trains it.

    A recipe of layout 1 (the span head's keys in model:) gets them moved to span:, comments and
    everything else kept; its run id does not change.  A run directory's recipe.yaml is rewritten
    the same way.
    """
    from mlparse.io_utils import WriteError
    from mlparse.run_dir import RECIPE_FILE, RunDir
    from mlparse.train.checkpoint import CheckpointError, upgrade_file
    from mlparse.run_lock import RunLock, RunLocked

    recipes: List[Path] = []
    if target.is_dir():
        files: List[Path] = [RunDir(target).best, RunDir(target).last]
        files = [path for path in files if path.is_file()]
        recipes = [path for path in [target / RECIPE_FILE] if path.is_file()]
        if not files and not recipes:
            fail(f"{target} has no checkpoints/best.pt, checkpoints/last.pt or {RECIPE_FILE} (is it a run directory?)", 2)
        lock = RunLock(target)
    elif target.is_file() and target.suffix in (".yaml", ".yml"):
        files, recipes, lock = [], [target], None
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
        failures += _upgrade_recipes(recipes)
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


def _upgrade_recipes(paths: List[Path]) -> int:
    """Rewrite each recipe file in the current layout, saying what moved; the number that failed."""
    from mlparse.config import ConfigError
    from mlparse.config.upgrade import upgrade_recipe_file

    failures = 0
    for path in paths:
        try:
            moved = upgrade_recipe_file(path)
        except ConfigError as error:
            print_error(error)
            failures += 1
            continue
        message = f"rewritten in the current layout ({', '.join(moved)})" if moved else "already in the current layout"
        console.print(f"{path}: {message}", highlight=False, soft_wrap=True)
    return failures
