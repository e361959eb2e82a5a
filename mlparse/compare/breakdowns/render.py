"""Breakdowns as text: Markdown tables (also what the terminal shows, through rich) and the JSON document."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from .tables import Breakdown, Row, SideBySide, Table

#: Column headers.
HEADERS = {"precision": "P", "recall": "R", "f1": "F1", "gold": "gold", "test": "test", "sentences": "sentences",
           "pct:uas": "UAS R", "pctt:uas_test": "UAS P", "repairs": "repairs", "errors": "errors",
           "pct:share": "share %"}
#: Columns that are counts (printed as integers).
COUNTS = {"gold", "test", "sentences", "repairs", "errors", "matched"}
#: Columns left out of a side-by-side table (they describe the data, not the system).
CONTEXT = {"gold", "sentences"}


def header(column: str) -> str:
    return HEADERS.get(column, column)


def cell(value: Optional[float], column: str, signed: bool = False) -> str:
    if value is None:
        return "–"
    if column in COUNTS:
        return f"{int(value):+d}" if signed else str(int(value))
    return f"{value:+.2f}" if signed else f"{value:.2f}"


def table_rows(table: Table) -> List[List[str]]:
    return [[row.key] + [cell(row.value(c), c) for c in table.columns] for row in table.rows if _shown(row, table)]


def _shown(row: Row, table: Table) -> bool:
    """Rows with nothing in them are left out, except the fixed rows of error classes."""
    return table.name == "error_classes" or row.gold > 0 or row.test > 0


def side_columns(table: Table) -> List[str]:
    return [c for c in table.columns if c not in CONTEXT]


def side_rows(pair: SideBySide, table: Table) -> List[List[str]]:
    rows = []
    for key, a, b in pair.joined(table.name):
        if table.name != "error_classes" and not any(r is not None and (r.gold or r.test) for r in (a, b)):
            continue
        line = [key] + ([] if table.name == "error_classes" else [cell(a.gold, "gold") if a else "–"])
        for column in side_columns(table):
            va = a.value(column) if a else None
            vb = b.value(column) if b else None
            delta = None if va is None or vb is None else vb - va
            line += [cell(va, column), cell(vb, column), cell(delta, column, signed=True)]
        rows.append(line)
    return rows


def side_header(table: Table) -> List[str]:
    """Every column as A, B and Δ; the gold count once (not for error classes, whose rows share the total)."""
    out = [""] + ([] if table.name == "error_classes" else ["gold"])
    for column in side_columns(table):
        name = header(column)
        out += [f"{name} A", f"{name} B", f"Δ {name}"]
    return out


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown_table(head: List[str], rows: List[List[str]]) -> str:
    rows = [[_escape(cell) for cell in row] for row in rows]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def to_markdown(result: Union[Breakdown, SideBySide]) -> str:
    """The whole breakdown as Markdown: a heading per table."""
    if isinstance(result, SideBySide):
        a, b = result.a, result.b
        out = [f"# Breakdown: {a.system} (A) and {b.system} (B), {a.split}",
               "", f"- A: `{a.run}`", f"- B: `{b.run}`", f"- gold: `{a.gold}` ({a.sentences} sentences); Δ = B − A", ""]
        for table in a.tables:
            out += [f"## {table.title}", "", _markdown_table(side_header(table), side_rows(result, table)), ""]
            if table.note:
                out += [f"_{table.note}_", ""]
        return "\n".join(out)
    out = [f"# Breakdown: {result.system}, {result.split}", "", f"- run: `{result.run}`",
           f"- predictions: `{result.pred}`", f"- gold: `{result.gold}` ({result.sentences} sentences)", ""]
    out += [f"- {note}" for note in result.notes]
    for table in result.tables:
        head = [""] + [header(c) for c in table.columns]
        out += [f"## {table.title}", "", _markdown_table(head, table_rows(table)), ""]
        if table.note:
            out += [f"_{table.note}_", ""]
    return "\n".join(out)


def to_json(result: Union[Breakdown, SideBySide]) -> Dict[str, Any]:
    return result.to_json_dict()


def rich_tables(result: Union[Breakdown, SideBySide]) -> list:
    """The tables as ``rich.table.Table`` objects, for the terminal."""
    from rich.table import Table as RichTable

    out = []
    pair = result if isinstance(result, SideBySide) else None
    first = pair.a if pair else result
    for table in first.tables:  # type: ignore[union-attr]
        head = side_header(table) if pair else [""] + [header(c) for c in table.columns]
        rows = side_rows(pair, table) if pair else table_rows(table)
        rich = RichTable(title=table.title, caption=table.note or None)
        for index, name in enumerate(head):
            rich.add_column(name, justify="left" if index == 0 else "right")
        for row in rows:
            rich.add_row(*row)
        out.append(rich)
    return out
