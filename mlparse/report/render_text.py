"""Terminal report: rich tables (measured rows bold cyan, published plain, Δ coloured)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from mlparse.compare.marks import legend_lines
from mlparse.report.details import detail_columns, detail_table, run_messages
from mlparse.report.leaderboard import MEASURED, Leaderboard
from mlparse.report.macro import print_macro
from mlparse.report.model import (Report, citation_text, fmt_delta, fmt_score, footnotes, language_label,
                                  marked_cell_text, source_text, summary_line)


def leaderboard_table(board: Leaderboard, report: Report) -> Table:
    table = Table(title=board.title, title_justify="left", header_style="bold", show_lines=False)
    table.add_column("System", min_width=12, max_width=34)
    table.add_column("Source", style="dim", min_width=8, max_width=30)
    for language in board.languages:
        table.add_column(language_label(language), justify="right", no_wrap=True, min_width=5)
    if board.show_average:
        table.add_column("Avg", justify="right", no_wrap=True, min_width=5)
    for row in board.rows:
        measured = row.kind == MEASURED
        cells = []
        for language in board.languages:
            cell = row.cells.get(language)
            cells.append(Text(marked_cell_text(cell), style="yellow" if cell and cell.state else ""))
        if board.show_average:
            cells.append(Text(fmt_score(row.average)))
        source = f"run {row.source}" if measured else f"[{report.citation_number(row.citation)}]" + (
            f" {row.group}" if row.group else "") if row.citation is not None else row.source
        table.add_row(Text(row.system), source, *cells,
                      style="bold cyan" if measured else None, end_section=False)
    if board.delta:
        values = [board.delta.get(language) for language in board.languages]
        if board.show_average:
            values.append(board.delta_average)
        cells = [Text(fmt_delta(v), style="green" if v is not None and v >= 0 else "red") for v in values]
        table.add_section()
        table.add_row(Text("Δ best measured − best published", style="italic"), "", *cells)
    return table


INFO_HEADERS = ("System", "Speed", "Train time", "Hardware")


#: Columns repeated in every part of a run table split to fit the terminal.
KEY_HEADERS = ("Run", "State")


def _column_width(header: str, cells: list) -> int:
    """Width of a column that shows every cell unwrapped: the longest text plus padding and a border."""
    return max([len(header), *(len(str(cell)) for cell in cells)]) + 3


def _pack_columns(indices: list, widths: dict, room: int) -> list:
    """Split ``indices`` into consecutive groups whose widths add up to at most ``room`` (one group at least each)."""
    groups: list = []
    current: list = []
    used = 0
    for i in indices:
        if current and used + widths[i] > room:
            groups.append(current)
            current, used = [], 0
        current.append(i)
        used += widths[i]
    if current:
        groups.append(current)
    return groups


def runs_tables(report: Report, width: int = 0) -> list:
    """The run details as tables (scores; system, speed and hardware) that fit a terminal ``width`` wide.

    Scores are never cut or wrapped: when they do not fit beside the run name, they are spread
    over several tables, each repeating the run name and state (``width`` 0: no limit).
    """
    headers, rows = detail_table(report)
    columns = detail_columns(report)
    styles = [None if record.state == "complete" else "yellow" for record in report.records]
    widths = {i: _column_width(header, [row[i] for row in rows]) for i, header in enumerate(headers)}
    key = [i for i, header in enumerate(headers) if header in KEY_HEADERS]
    scores = [i for i, header in enumerate(headers) if header not in INFO_HEADERS and header not in KEY_HEADERS]
    room = (width - 1 - sum(widths[i] for i in key)) if width else 0
    groups = _pack_columns(scores, widths, room) if room > 0 else [scores]
    parts = [("Runs: scores (* shown on the leaderboards)" + (f", part {n + 1}/{len(groups)}" if len(groups) > 1 else ""),
              key + group) for n, group in enumerate(groups)]
    parts.append(("Runs: system, speed, hardware", [i for i, header in enumerate(headers)
                                                    if header in INFO_HEADERS or header == "Run"]))
    tables = []
    for title, picked in parts:
        table = Table(title=title, title_justify="left", header_style="bold")
        for i in picked:
            fixed = columns[i].numeric or headers[i] in KEY_HEADERS
            table.add_column(headers[i], justify="right" if columns[i].numeric else "left", no_wrap=fixed,
                             min_width=widths[i] - 3 if fixed else None)
        for row, style in zip(rows, styles):
            table.add_row(*[row[i] for i in picked], style=style)
        tables.append(table)
    return tables


def print_report(report: Report, console: Console) -> None:
    console.print(Text("mlparse report", style="bold"))
    console.print(Text(summary_line(report), style="dim"))
    console.print()
    if not report.leaderboards:
        console.print("No scores to show (no runs with results, and no published table selected).")
    for board in report.leaderboards:
        console.print(leaderboard_table(board, report))
        for note in footnotes(board) + legend_lines(board):
            console.print(Text(note, style="dim"))
        console.print()
    print_macro(report, console)
    console.print(Text("Source \"run …\": measured by mlparse (bold cyan); \"[n]\": published, see References",
                       style="dim"))
    console.print()
    if report.records:
        for table in runs_tables(report, console.width):
            console.print(table)
    else:
        console.print(f"No runs found under {report.runs_dir}.")
    for record in report.records:
        for message in run_messages(record):
            style = "red" if message.startswith(("error", "warning")) else "dim"
            console.print(Text(f"{record.label}: {message}", style=style))
    for warning in report.warnings:
        console.print(Text(f"warning: {warning}", style="red"))
    if report.citations:
        console.print()
        console.print(Text("References", style="bold"))
        for number, citation in enumerate(report.citations, 1):
            console.print(f"[{number}] {citation_text(citation)}", markup=False, highlight=False)


def render_text(report: Report, width: int = 160) -> str:
    """The terminal report as plain text (for ``--out`` with ``--format table``)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, force_terminal=False)
    print_report(report, console)
    return buffer.getvalue()
