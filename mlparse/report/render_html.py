"""A single self-contained HTML page: inline CSS, plots as base64 data URIs, no external references."""

from __future__ import annotations

import base64
from html import escape
from typing import List, Sequence

from mlparse.compare.marks import MARK, legend_lines
from mlparse.report.details import detail_columns, detail_table, run_messages
from mlparse.report.leaderboard import MEASURED, Leaderboard
from mlparse.report.model import (Report, citation_text, fmt_delta, fmt_score, footnotes, language_label, source_text,
                                  spread_text, summary_line)
from mlparse.report.plots import Plot

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto;
       max-width: 1400px; color: #1a202c; line-height: 1.4; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #e2e8f0; }
h3 { font-size: 1.05rem; margin-bottom: .4rem; }
.summary { color: #4a5568; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .88rem; }
th, td { padding: .3rem .55rem; border-bottom: 1px solid #e2e8f0; white-space: nowrap; vertical-align: top; }
th { background: #f7fafc; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.wrap { white-space: normal; min-width: 11rem; max-width: 17rem; }
td.hw { white-space: normal; min-width: 7rem; max-width: 13rem; }
table.runs { font-size: .82rem; } table.runs th, table.runs td { padding: .28rem .35rem; }
table.runs td.wrap { min-width: 10.5rem; } table.runs td.hw { min-width: 8.5rem; }
thead th { vertical-align: bottom; }
th.group { text-align: center; border-bottom: 1px solid #cbd5e0; }
td.src { white-space: normal; min-width: 12rem; max-width: 22rem; font-size: .8rem; }
.nw { white-space: nowrap; }
td.run { font-family: ui-monospace, monospace; font-size: .76rem; }
tr.published td { color: #4a5568; }
tr.measured td { background: #ebf8ff; font-weight: 600; color: #1a365d; }
tr.measured td.src { font-weight: normal; }
tr.delta td { border-top: 2px solid #2d3748; font-style: italic; }
td.pos { color: #276749; } td.neg { color: #9b2c2c; }
.state { font-weight: normal; color: #b7791f; font-size: .8rem; }
.sd { font-weight: normal; color: #4a5568; font-size: .8rem; white-space: nowrap; }
tr.run-running td.state-cell { color: #b7791f; font-weight: 600; }
tr.run-failed td.state-cell, tr.run-unreadable td.state-cell, tr.run-unknown td.state-cell,
tr.run-no-results td.state-cell { color: #9b2c2c; font-weight: 600; }
tr.run-failed td, tr.run-unreadable td { background: #fff5f5; }
.kind { font-size: .75rem; text-transform: uppercase; letter-spacing: .05em; }
.legend span { display: inline-block; padding: .1rem .5rem; margin-right: .5rem; border-radius: 3px; }
.legend .m { background: #ebf8ff; color: #1a365d; font-weight: 600; } .legend .p { background: #f7fafc; }
ul.notes { font-size: .85rem; color: #4a5568; margin-top: -.5rem; }
ul.messages li { font-family: ui-monospace, monospace; font-size: .8rem; overflow-wrap: anywhere; }
li.warning { color: #9b2c2c; } li.error { color: #9b2c2c; font-weight: 600; } li.note { color: #4a5568; }
.plots { display: flex; flex-wrap: wrap; align-items: flex-start; gap: .5rem 1.5rem; }
figure { margin: .5rem 0 1rem; max-width: 100%; } figure img { max-width: 100%; height: auto; }
figcaption { font-size: .85rem; color: #4a5568; }
footer { margin-top: 2rem; font-size: .8rem; color: #718096; }
"""


def _table(headers: Sequence[str], numeric: Sequence[bool], body: List[str]) -> str:
    head = "".join(f'<th class="num">{escape(h)}</th>' if n else f"<th>{escape(h)}</th>"
                   for h, n in zip(headers, numeric))
    return _wrap_table(f"<tr>{head}</tr>", body)


def _wrap_table(head_rows: str, body: List[str], table_class: str = "") -> str:
    attribute = f' class="{table_class}"' if table_class else ""
    return (f'<div class="scroll"><table{attribute}><thead>{head_rows}</thead><tbody>{"".join(body)}</tbody>'
            "</table></div>")


def _grouped_head(headers: Sequence[str], numeric: Sequence[bool], groups: Sequence[str]) -> str:
    """Two header rows: "Dev LR", "Dev LP", … become a "Dev" group over "LR", "LP", … (saves width)."""
    top, bottom = [], []
    index = 0
    while index < len(headers):
        header, is_number = headers[index], numeric[index]
        group = next((g for g in groups if header.startswith(g + " ")), None)
        if group is None:
            cls = ' class="num"' if is_number else ""
            top.append(f'<th rowspan="2"{cls}>{escape(header)}</th>')
            index += 1
            continue
        span = 0
        while index + span < len(headers) and headers[index + span].startswith(group + " "):
            name = headers[index + span][len(group) + 1:]
            bottom.append(f'<th class="num">{escape(name)}</th>')
            span += 1
        top.append(f'<th colspan="{span}" class="group">{escape(group)}</th>')
        index += span
    return f"<tr>{''.join(top)}</tr><tr>{''.join(bottom)}</tr>"


def _row(cells: Sequence[str], classes: Sequence[str], row_class: str = "") -> str:
    """One ``<tr>``; ``cells`` are HTML already, ``classes`` the ``td`` classes ("" for none)."""
    tds = "".join(f'<td class="{c}">{cell}</td>' if c else f"<td>{cell}</td>" for cell, c in zip(cells, classes))
    return f'<tr class="{row_class}">{tds}</tr>' if row_class else f"<tr>{tds}</tr>"


def _leaderboard(board: Leaderboard, report: Report) -> str:
    """Scores sit next to the system name; the (long, wrapping) source column comes last."""
    languages = [language_label(language) for language in board.languages]
    headers = ["System", "Kind"] + languages + (["Avg"] if board.show_average else []) + ["Source"]
    numeric = [False, False] + [True] * (len(headers) - 3) + [False]
    classes = ["wrap", ""] + ["num"] * (len(headers) - 3) + ["src"]
    body = []
    for row in board.rows:
        cells = [escape(row.system), f'<span class="kind">{row.kind}</span>']
        for language in board.languages:
            cell = row.cells.get(language)
            if cell is None:
                cells.append("–")
                continue
            text = escape(fmt_score(cell.value)) if cell.value is not None else ""
            if spread_text(cell):
                text += f'<span class="sd">{escape(spread_text(cell))}</span>'
            if cell.state:
                text += f' <span class="state">({escape(cell.state)})</span>'
            if cell.worse:
                text += f' <span class="state" title="p = {cell.significance:.4f}">{MARK}</span>'
            if cell.note:
                text += "†"
            cells.append(text)
        if board.show_average:
            cells.append(fmt_score(row.average))
        if row.citation is None:  # run labels: break between them, never inside one
            cells.append(", ".join(f'<span class="nw">{escape(part)}</span>' for part in row.source.split(", ")))
        else:
            cells.append(escape(source_text(row, report)))
        body.append(_row(cells, classes, "measured" if row.kind == MEASURED else "published"))
    if board.delta:
        values = [board.delta.get(language) for language in board.languages]
        if board.show_average:
            values.append(board.delta_average)
        cells = ["Δ best measured − best published", ""] + [fmt_delta(v) for v in values] + [""]
        signs = ["num " + ("pos" if v is not None and v >= 0 else "neg") for v in values]
        body.append(_row(cells, ["wrap", ""] + signs + [""], "delta"))
    html = f"<h3>{escape(board.title)}</h3>" + _table(headers, numeric, body)
    notes = footnotes(board) + legend_lines(board)
    if notes:
        html += '<ul class="notes">' + "".join(f"<li>{escape(note)}</li>" for note in notes) + "</ul>"
    return html


def _run_table(report: Report) -> str:
    """The per-run details; rows carry the run state (failed and unreadable runs stand out)."""
    headers, rows = detail_table(report)
    columns = detail_columns(report)
    classes = ["num" if c.numeric else "" for c in columns]
    for index, header in enumerate(headers):
        if header == "Run":
            classes[index] = "run"
        elif header == "State":
            classes[index] = "state-cell"
        elif header == "System":
            classes[index] = "wrap"
        elif header == "Hardware":
            classes[index] = "hw"
    body = [_row([escape(v) for v in row], classes, f"run-{record.state}")
            for row, record in zip(rows, report.records)]
    numeric = [c.numeric for c in columns]
    return _wrap_table(_grouped_head(headers, numeric, ("Dev", "Test")), body, "runs")


def _figure(plot: Plot) -> str:
    data = base64.b64encode(plot.png).decode("ascii")
    return (f'<figure><img alt="{escape(plot.description or plot.title)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(plot.title)}</figcaption></figure>")


def render_html(report: Report, plots: Sequence[Plot] = ()) -> str:
    parts = [f"<h1>mlparse report</h1><p class=\"summary\">{escape(summary_line(report))}</p>",
             '<p class="legend"><span class="m">measured by mlparse</span><span class="p">published</span>'
             "a state in parentheses marks a run that is not complete</p>", "<h2>Leaderboards</h2>"]
    if not report.leaderboards:
        parts.append("<p>No scores to show (no runs with results, and no published table selected).</p>")
    parts += [_leaderboard(board, report) for board in report.leaderboards]
    parts.append("<h2>Runs</h2>")
    if report.records:
        parts.append(_run_table(report) + "<p>* shown on the leaderboards</p>")
    else:
        parts.append(f"<p>No runs found under {escape(str(report.runs_dir))}.</p>")
    items = []
    for record in report.records:
        for message in run_messages(record):
            kind = message.split(":", 1)[0]
            items.append(f'<li class="{kind}">{escape(record.label)}: {escape(message)}</li>')
    items += [f'<li class="warning">{escape(warning)}</li>' for warning in report.warnings]
    if items:
        parts.append('<h2>Warnings and notes</h2><ul class="messages">' + "".join(items) + "</ul>")
    if plots:
        parts.append('<h2>Plots</h2><div class="plots">' + "".join(_figure(plot) for plot in plots) + "</div>")
    if report.citations:
        parts.append("<h2>References</h2><ol>" + "".join(
            f"<li>{escape(citation_text(citation))}</li>" for citation in report.citations) + "</ol>")
    parts.append(f"<footer>Generated by {escape(report.generator)}.</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>mlparse report</title><style>{CSS}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")
