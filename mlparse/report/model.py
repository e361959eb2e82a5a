"""The assembled report (what every renderer draws) and the number formats they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import mlparse.version
from mlparse.run_index.collect import RunRecord, collect_runs
from mlparse.run_index.configurations import distinct_runs
from mlparse.report.leaderboard import Cell, Leaderboard, LeaderboardRow, build_leaderboards
from mlparse.report.published import Citation, PublishedScores, load_published


@dataclass
class Report:
    runs_dir: Path
    split: str
    select: str
    records: List[RunRecord]
    leaderboards: List[Leaderboard]
    citations: List[Citation]  # cited tables, numbered 1… in order of first use
    selected: List[str]  # labels ("recipe/run-id") of the runs shown on the leaderboards
    warnings: List[str] = field(default_factory=list)  # not tied to one run (the runs keep their own)
    curve_x: str = "step"  # the dev curves' x axis: step | minutes (of training, log.jsonl's elapsed_seconds)
    generator: str = f"mlparse {mlparse.version.__version__}"

    def all_warnings(self) -> List[str]:
        """Every warning: each run's (in run order), then the report's own."""
        return [warning for record in self.records for warning in record.warnings] + self.warnings

    def state_counts(self) -> Dict[str, int]:
        counts: Dict[str, int] = {}
        for record in self.records:
            counts[record.state] = counts.get(record.state, 0) + 1
        return dict(sorted(counts.items()))

    def citation_number(self, citation: Citation) -> int:
        return [c.table_id for c in self.citations].index(citation.table_id) + 1


def build_report(runs_dir: Path, split: str = "test", select: str = "latest", published_mode: str = "matching",
                 published: Optional[PublishedScores] = None, curve_x: str = "step",
                 significance: bool = True, rescore: bool = False) -> Report:
    """Collect runs under ``runs_dir`` and build every leaderboard for ``split``; ``significance`` marks the cells
    of systems significantly worse than their column's best system (:mod:`mlparse.compare.marks`; ``rescore``: runs
    whose gold file changed are tested against it as it is now, instead of being left untested)."""
    if split not in ("dev", "test"):
        raise ValueError(f"unknown split {split!r}; choose dev or test")
    if curve_x not in ("step", "minutes"):
        raise ValueError(f"unknown curve axis {curve_x!r}; choose step or minutes")
    warnings: List[str] = []
    records = distinct_runs(collect_runs(Path(runs_dir)), warnings)  # a run id in two folders is one run
    if published is None and published_mode != "none":
        published = load_published()
    boards = build_leaderboards(records, published, split=split, select=select,
                                published_mode=published_mode, warnings=warnings)
    if significance:
        from mlparse.compare.marks import mark_leaderboards

        warnings += mark_leaderboards(boards, records, split, rescore=rescore).warnings
    citations: Dict[str, Citation] = {}
    for board in boards:
        for row in board.rows:
            if row.citation is not None:
                citations.setdefault(row.citation.table_id, row.citation)
    selected = sorted({run for board in boards for row in board.measured_rows() for cell in row.cells.values()
                       for run in [cell.run, *(score.run for score in cell.seeds)] if run})
    return Report(runs_dir=Path(runs_dir), split=split, select=select, records=records, leaderboards=boards,
                  citations=list(citations.values()), selected=selected, warnings=warnings, curve_x=curve_x)


# ----------------------------------------------------------------------------------- formats

def source_text(row: "LeaderboardRow", report: Report) -> str:
    """Where a leaderboard row comes from: runs, or the cited table (numbered reference)."""
    if row.citation is None:
        return row.source
    text = f"{row.citation.paper.short}, Table {row.citation.table} [{report.citation_number(row.citation)}]"
    return f"{text}, {row.group}" if row.group else text


def citation_text(citation: Citation) -> str:
    paper = citation.paper
    return (f"{paper.short}, Table {citation.table} ({citation.split}): {citation.caption}. "
            f"{paper.reference()}")


def summary_line(report: Report) -> str:
    counts = ", ".join(f"{n} {state}" for state, n in report.state_counts().items()) or "none"
    return (f"runs: {report.runs_dir} ({len(report.records)} found: {counts}) · split: {report.split} · "
            f"rows: {ROWS.get(report.select, report.select)} ({report.select})")


#: What a leaderboard row is under each ``--select``.
ROWS = {"latest": "one per configuration", "best": "the best configuration per recipe",
        "all-seeds": "one per seed of every configuration"}


def language_label(language: str) -> str:
    """A column heading: ``hebrew`` → ``Hebrew``; a name with capitals (``UD_English-EWT``) as it is."""
    return language.capitalize() if language == language.lower() else language


def fmt_score(value: Optional[float]) -> str:
    """Scores in percent, two fixed decimals; ``–`` when absent."""
    return "–" if value is None else f"{value:.2f}"


def fmt_delta(value: Optional[float]) -> str:
    return "" if value is None else f"{value:+.2f}"


def fmt_duration(seconds: Optional[float]) -> str:
    if seconds is None:
        return "–"
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


def fmt_speed(value: Optional[float]) -> str:
    return "–" if value is None else f"{value:.1f} sent/s"


def fmt_hardware(hardware: Dict[str, object]) -> str:
    """A short description: GPU name (or device), then CPU count when known."""
    if not hardware:
        return "–"
    main = next((str(hardware[k]) for k in ("gpu_name", "gpu", "device_name", "device") if hardware.get(k)), "")
    count = hardware.get("gpu_count") or hardware.get("world_size")
    if main and isinstance(count, int) and count > 1:
        main = f"{count}× {main}"
    cpus = hardware.get("cpu_count") or hardware.get("cpus")
    parts = [part for part in (main, f"{cpus} CPU" if cpus else "") if part]
    return ", ".join(parts) if parts else ", ".join(f"{k}={v}" for k, v in sorted(hardware.items()))


def cell_text(value: Optional[float], state: Optional[str]) -> str:
    """A leaderboard cell: the score, with the run state when the run is not complete."""
    if state is None:
        return fmt_score(value)
    return f"{fmt_score(value)} ({state})" if value is not None else f"({state})"


def spread_text(cell: Cell) -> str:
    """`` ± 0.45 (n=3)`` for a mean over seeds; empty for a single run."""
    if cell.n < 2 or cell.std is None or cell.state is not None:
        return ""
    return f" ± {cell.std:.2f} (n={cell.n})"


def marked_cell_text(cell: Optional[Cell]) -> str:
    """A leaderboard cell as plain text: :func:`cell_text` (a mean over seeds with ± its standard deviation and
    n), with † when a footnote goes with it; ``–`` when empty."""
    if cell is None:
        return "–"
    text = cell_text(cell.value, cell.state) + spread_text(cell)
    if cell.worse:
        from mlparse.compare.marks import MARK

        text += f" {MARK}"
    return text + "†" if cell.note else text


def footnotes(board: Leaderboard) -> List[str]:
    """The † footnotes of a leaderboard's cells, row by row in column order: ``† system, Language: note``."""
    return [f"† {row.system}, {language_label(language)}: {cell.note}"
            for row in board.rows for language in board.languages
            for cell in [row.cells.get(language)] if cell is not None and cell.note]
