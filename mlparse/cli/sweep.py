"""``mlparse sweep SUITE``: every member of a benchmark suite (recipe × seed × overrides) as ordinary runs."""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.text import Text

from mlparse.cli.app import app
from mlparse.cli.budget import checked_minutes
from mlparse.cli.consoles import CliConsole
from mlparse.cli.errors import fail, os_error_message

console = CliConsole(stderr=True)


def parse_seeds(text: Optional[str]) -> Optional[List[int]]:
    """``"1,2,3"`` → [1, 2, 3]; a clear error for anything else."""
    if text is None:
        return None
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise typer.BadParameter(f"--seeds takes whole numbers separated by commas (1,2,3), got {text!r}") from None
    if not seeds or len(set(seeds)) != len(seeds):
        raise typer.BadParameter(f"--seeds takes distinct whole numbers separated by commas (1,2,3), got {text!r}")
    return seeds


@app.command("sweep")
def sweep_command(
    suite_name: str = typer.Argument(..., metavar="SUITE", help="A suite file, or a bundled suite: spmrl, free, ud, "
                                     "ud-all (every prepared UD treebank with a train split), demo."),
    seeds_text: Optional[str] = typer.Option(None, "--seeds", help="Run every member once per seed, e.g. 1,2,3 "
                                             "(overrides the suite's seeds)."),
    overrides: List[str] = typer.Option([], "--set", help="Override a recipe key of every member (repeatable)."),
    max_minutes: Optional[float] = typer.Option(None, "--max-minutes", help="Training budget of each member "
                                                "(minutes; overrides the suite's)."),
    launcher_name: str = typer.Option("local", "--launcher", help="local: members on this machine, one after "
                                      "another or one per GPU; slurm: one Slurm job per member (submitit)."),
    runs_dir: Path = typer.Option(Path("runs"), "--runs-dir", help="Where run directories go (as for mlparse run)."),
    status_only: bool = typer.Option(False, "--status", help="Show the members' states from their run directories "
                                     "and stop."),
    gpus_per_member: Optional[int] = typer.Option(None, "--gpus-per-member", min=0, help="GPUs of each member, "
                                                  "0 for CPU jobs (suite slurm.gpus_per_member; default: none "
                                                  "for a recipe on train.device cpu, else 1)."),
    partition: Optional[str] = typer.Option(None, "--partition", help="Slurm partition (suite slurm.partition)."),
    time_minutes: Optional[int] = typer.Option(None, "--time", help="Slurm time limit per job, in minutes."),
    cpus_per_task: Optional[int] = typer.Option(None, "--cpus", help="CPUs per Slurm job."),
    mem_gb: Optional[float] = typer.Option(None, "--mem-gb", help="Memory per Slurm job, in GB."),
) -> None:
    """Run a benchmark suite: each member is an ordinary `mlparse run` (same run ids; finished members are
    skipped and unfinished ones resume when the sweep runs again). Every treebank is prepared once before
    the members start; a member that fails does not stop the others. A status table follows the members;
    --status shows it again later, from the run directories alone."""
    from mlparse.config import ConfigError
    from mlparse.sweep.suite import LAUNCHERS, load_suite
    from mlparse.sweep.taggers import with_taggers

    if launcher_name not in LAUNCHERS:
        fail(f"--launcher must be one of {', '.join(LAUNCHERS)}, got {launcher_name!r}", 2)
    checked_minutes(max_minutes, "--max-minutes")
    try:
        seeds = parse_seeds(seeds_text)
    except typer.BadParameter as error:
        fail(error.message, 2)
    try:
        suite = load_suite(suite_name)
        members = with_taggers(suite.members(seeds, overrides))  # jack-knifing members' taggers: members too
    except ConfigError as error:
        fail(error, 2)
    from mlparse.sweep.status import SweepState, member_statuses
    from mlparse.sweep.table import status_table

    if status_only:
        state = SweepState.read(runs_dir, suite.name)
        jobs = _slurm_jobs(state, suite.slurm)
        rows = member_statuses(members, runs_dir, state, jobs)
        CliConsole().print(status_table(suite.name, rows))
        return
    settings = suite.slurm
    for name, value in (("gpus_per_member", gpus_per_member), ("partition", partition),
                        ("time_minutes", time_minutes), ("cpus_per_task", cpus_per_task), ("mem_gb", mem_gb)):
        if value is not None:
            setattr(settings, name, value)
    budget = max_minutes if max_minutes is not None else suite.max_minutes
    launcher = _launcher(launcher_name, settings)
    from mlparse.sweep.driver import SweepRun, SweepStopped

    taggers = sum(1 for member in members if member.tagger is not None)
    of_them = f" ({taggers} of them taggers of jack-knifing members)" if taggers else ""
    each = " each" + (" (the taggers: their recipes' tagger.max_minutes)" if taggers else "")
    console.print(f"sweep {suite.name}: {len(members)} member(s){of_them}, launcher {launcher_name}"
                  f"{', ' + format(budget, 'g') + ' minutes' + each if budget is not None else ''}; runs in {runs_dir}",
                  highlight=False, soft_wrap=True)
    _interrupt_on_sigterm()
    try:
        rows = _run_with_display(SweepRun(suite.name, members, runs_dir, budget, launcher,
                                          announce=lambda text: console.print(Text(text), soft_wrap=True)))
    except KeyboardInterrupt:
        fail(f"interrupted; `mlparse sweep {suite_name}` again resumes the unfinished members", 130)
    except SweepStopped as error:
        fail(f"sweep stopped: {error}", 1)
    except OSError as error:
        fail(os_error_message(error, "cannot read or write"), 1)
    failed = [row for row in rows if row.state == "failed"]
    if failed:
        fail(f"{len(failed)} of {len(rows)} member(s) failed: {', '.join(row.label for row in failed)}", 1)


def _interrupt_on_sigterm() -> None:
    """SIGTERM (a batch system, `kill`) stops the sweep as Ctrl-C does: local members are stopped too."""
    def interrupt(signum, frame):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


def _slurm_jobs(state, settings):  # type: ignore[no-untyped-def]
    """The Slurm states of the jobs the last sweep recorded (None when it ran locally, or squeue cannot say:
    the table then shows what the run directories say, with a note)."""
    if state.launcher != "slurm" or settings.cluster == "local":
        return None
    from mlparse.sweep.slurm_queue import QueueUnavailable, job_number, squeue

    ids = [job_number(entry.get("job")) for entry in state.members.values()]
    try:
        return squeue(job_id for job_id in ids if job_id)
    except QueueUnavailable as error:
        console.print(Text(f"note: {error}; queued and running are read from the run directories alone"),
                      soft_wrap=True)
        return None


def _launcher(name: str, settings):  # type: ignore[no-untyped-def]
    if name == "slurm":
        from mlparse.sweep.slurm import SlurmLauncher, SlurmUnavailable

        try:
            return SlurmLauncher(settings)
        except SlurmUnavailable as error:
            fail(error, 2)
    from mlparse.sweep.local import LocalLauncher

    gpus = settings.gpus_per_member
    return LocalLauncher(gpus_per_member=1 if gpus is None else int(gpus))


def _run_with_display(sweep):  # type: ignore[no-untyped-def]
    """Run the sweep under a live table on a terminal; otherwise print each member's state when it changes,
    and the table at the end."""
    from mlparse.sweep.table import state_text, status_table

    out = CliConsole()
    if sys.stdout.isatty():
        from rich.live import Live

        with Live(status_table(sweep.suite, sweep.rows()), console=out, refresh_per_second=1) as live:
            sweep.on_refresh = lambda rows: live.update(status_table(sweep.suite, rows))
            return sweep.run()
    seen = {}

    def changed(rows) -> None:  # type: ignore[no-untyped-def]
        for row in rows:
            if seen.get(row.label) != row.state:
                seen[row.label] = row.state
                out.print(Text.assemble(f"{row.label}: ", state_text(row)), soft_wrap=True)

    sweep.on_refresh = changed
    rows = sweep.run()
    out.print(status_table(sweep.suite, rows))
    return rows
