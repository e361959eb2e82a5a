"""The sweep status table (rich): member, state (with the reason of a failure), epoch, best dev score, elapsed."""

from __future__ import annotations

from collections import Counter
from typing import List, Optional

from rich.table import Table
from rich.text import Text

from mlparse.results import COMPLETE, FAILED, RUNNING
from mlparse.sweep.status import QUEUED, STATES, STOPPED, MemberStatus
from mlparse.tasks import metric_label

STATE_STYLES = {QUEUED: "dim", RUNNING: "cyan", COMPLETE: "green", FAILED: "bold red", STOPPED: "yellow"}


def elapsed_text(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    minutes, rest = divmod(int(round(seconds)), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{rest:02d}" if hours else f"{minutes}:{rest:02d}"


def state_text(status: MemberStatus) -> Text:
    text = Text(status.state, style=STATE_STYLES.get(status.state, ""))
    if status.reason and status.state in (FAILED, STOPPED, COMPLETE, QUEUED, RUNNING):
        text.append(f" ({status.reason})" if status.state in (COMPLETE, QUEUED, RUNNING) else f": {status.reason}")
    return text


def summary(rows: List[MemberStatus]) -> str:
    counts = Counter(row.state for row in rows)
    return ", ".join(f"{counts[state]} {state}" for state in STATES if counts[state])


def status_table(suite: str, rows: List[MemberStatus]) -> Table:
    """One row per member."""
    table = Table(title=f"mlparse sweep {suite}: {summary(rows)}", title_justify="left")
    for column in ("member", "state", "epoch", "best dev", "elapsed", "run directory"):
        table.add_column(column, justify="right" if column in ("epoch", "best dev", "elapsed") else "left",
                         overflow="fold")
    for row in rows:
        best = f"{row.best_dev:.2f}" + (f" {metric_label(row.metric)}" if row.metric else "") if row.best_dev is not None else "-"
        table.add_row(row.label, state_text(row), f"{row.epoch:.2f}" if row.epoch is not None else "-", best,
                      elapsed_text(row.elapsed_seconds), row.run_dir)
    return table
