"""A single self-contained HTML page: inline CSS, plots as base64 data URIs, no external references."""

from __future__ import annotations

import base64
from html import escape
from typing import List, Sequence

from mlparse.report.details import detail_columns, detail_table, run_messages
from mlparse.report.leaderboard import MEASURED, Leaderboard
from mlparse.report.model import Report, cell_text, citation_text, fmt_delta, fmt_score, source_text, summary_line
from mlparse.report.plots import Plot

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto;
       max-width: 1200px; color: #1a202c; line-height: 1.4; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { margin-top: 2rem; border-bottom: 1px solid #e2e8f0; }
h3 { font-size: 1.05rem; margin-bottom: .4rem; }
.summary { color: #4a5568; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-size: .9rem; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #e2e8f0; white-space: nowrap; }
th { background: #f7fafc; text-align: left; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.published td { color: #4a5568; }
tr.measured td { background: #ebf8ff; font-weight: 600; color: #1a365d; }
tr.delta td { border-top: 2px solid #2d3748; font-style: italic; }
td.pos { color: #276749; } td.neg { color: #9b2c2c; }
.state { font-weight: normal; color: #b7791f; font-size: .8rem; }
.kind { font-size: .75rem; text-transform: uppercase; letter-spacing: .05em; }
.legend span { display: inline-block; padding: .1rem .5rem; margin-right: .5rem; border-radius: 3px; }
.legend .m { background: #ebf8ff; color: #1a365d; font-weight: 600; } .legend .p { background: #f7fafc; }
ul.messages li { font-family: ui-monospace, monospace; font-size: .8rem; }
li.warning { color: #9b2c2c; } li.error { color: #9b2c2c; font-weight: 600; }
figure { display: inline-block; margin: .5rem 1rem 1rem 0; } figure img { max-width: 100%; }
figcaption { font-size: .85rem; color: #4a5568; }
footer { margin-top: 2rem; font-size: .8rem; color: #718096; }
"""


def _table(headers: Sequence[str], numeric: Sequence[bool], body: List[str]) -> str:
    head = "".join(f'<th class="num">{escape(h)}</th>' if n else f"<th>{escape(h)}</th>"
                   for h, n in zip(headers, numeric))
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def _leaderboard(board: Leaderboard, report: Report) -> str:
    headers = ["System", "Kind", "Source"] + [language.capitalize() for language in board.languages]
    if board.show_average:
        headers.append("Avg")
    numeric = [False, False, False] + [True] * (len(headers) - 3)
    body = []
    notes = []
    for row in board.rows:
        cells = [escape(row.system), f'<span class="kind">{row.kind}</span>', escape(source_text(row, report))]
        for language in board.languages:
            cell = row.cells.get(language)
            if cell is None:
                cells.append("–")
                continue
            text = escape(fmt_score(cell.value)) if cell.value is not None else ""
            if cell.state:
                text += f' <span class="state">({escape(cell.state)})</span>'
            if cell.note:
                text += "†"
                notes.append(f"† {row.system}, {language.capitalize()}: {cell.note}")
            cells.append(text)
        if board.show_average:
            cells.append(fmt_score(row.average))
        tds = "".join(f'<td class="num">{c}</td>' if n else f"<td>{c}</td>" for c, n in zip(cells, numeric))
        body.append(f'<tr class="{"measured" if row.kind == MEASURED else "published"}">{tds}</tr>')
    if board.delta:
        values = [board.delta.get(language) for language in board.languages]
        if board.show_average:
            values.append(board.delta_average)
        tds = "<td>Δ best measured − best published</td><td></td><td></td>" + "".join(
            f'<td class="num {"pos" if v is not None and v >= 0 else "neg"}">{fmt_delta(v)}</td>' for v in values)
        body.append(f'<tr class="delta">{tds}</tr>')
    html = f"<h3>{escape(board.title)}</h3>" + _table(headers, numeric, body)
    if notes:
        html += "<ul>" + "".join(f"<li>{escape(note)}</li>" for note in notes) + "</ul>"
    return html


def _figure(plot: Plot) -> str:
    data = base64.b64encode(plot.png).decode("ascii")
    return (f'<figure><img alt="{escape(plot.title)}" src="data:image/png;base64,{data}">'
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
        headers, rows = detail_table(report)
        numeric = [c.numeric for c in detail_columns(report)]
        body = ["<tr>" + "".join(f'<td class="num">{escape(v)}</td>' if n else f"<td>{escape(v)}</td>"
                                 for v, n in zip(row, numeric)) + "</tr>" for row in rows]
        parts.append(_table(headers, numeric, body) + "<p>* shown on the leaderboards</p>")
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
        parts.append("<h2>Plots</h2>" + "".join(_figure(plot) for plot in plots))
    if report.citations:
        parts.append("<h2>References</h2><ol>" + "".join(
            f"<li>{escape(citation_text(citation))}</li>" for citation in report.citations) + "</ol>")
    parts.append(f"<footer>Generated by {escape(report.generator)}.</footer>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>mlparse report</title><style>{CSS}</style></head><body>\n"
            + "\n".join(parts) + "\n</body></html>\n")
