"""The result types of a breakdown: counted rows grouped into tables, and two runs side by side.

A :class:`Row` holds counts, never rates, so that tables add up and two runs can be differenced
exactly: ``matched`` items out of ``gold`` (recall) and ``test`` (precision).  A dependency row of
per-word accuracies uses ``gold == test`` (each aligned word is one item on both sides).  A table whose
rows are not such items (the error classes: repairs and the errors they fixed) says so with
``rates=False``; its JSON rows then carry its own columns only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


def _percent(num: float, den: float) -> Optional[float]:
    return None if den == 0 else 100.0 * num / den


def json_name(column: str) -> str:
    """A column's key in JSON rows: ``pct:share`` -> ``share`` (the percentage), others as they are."""
    return column.split(":", 1)[1] if column.startswith(("pct:", "pctt:")) else column


def _json_value(value: Optional[float], column: str) -> Any:
    """Counts as integers, percentages as floats, None as it is."""
    if value is None or column.startswith(("pct:", "pctt:")) or column in ("precision", "recall", "f1"):
        return value
    return int(value)


@dataclass
class Row:
    """One row: a key (``NP``, ``11-20``, ``nsubj``) and its counts; ``extra`` holds further counts by name."""

    key: str
    matched: int = 0
    gold: int = 0
    test: int = 0
    extra: Dict[str, int] = field(default_factory=dict)
    #: hits among the ``test`` items when they are binned apart from the gold ones (dependency rows: a system
    #: arc goes to its own row); None: ``matched`` serves both sides
    matched_test: Optional[int] = None

    @property
    def recall(self) -> Optional[float]:
        return _percent(self.matched, self.gold)

    @property
    def precision(self) -> Optional[float]:
        return _percent(self.matched if self.matched_test is None else self.matched_test, self.test)

    @property
    def f1(self) -> Optional[float]:
        if self.gold + self.test == 0:
            return None
        if self.matched_test is None:
            return 100.0 * 2 * self.matched / (self.gold + self.test)
        p, r = self.precision or 0.0, self.recall or 0.0
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    def value(self, column: str) -> Optional[float]:
        """A column by name: ``precision``, ``recall``, ``f1``, a count, or a percentage of ``gold`` (``pct:NAME``)
        or of ``test`` (``pctt:NAME``)."""
        if column in ("precision", "recall", "f1"):
            return getattr(self, column)
        if column.startswith("pct:"):
            return _percent(self.extra.get(column[4:], 0), self.gold)
        if column.startswith("pctt:"):
            return _percent(self.extra.get(column[5:], 0), self.test)
        if column in ("matched", "gold", "test"):
            return float(getattr(self, column))
        return float(self.extra.get(column, 0))

    def to_json_dict(self, columns: Optional[List[str]] = None) -> Dict[str, Any]:
        """Every count and rate; with ``columns``, the key and those columns only (by :func:`json_name`)."""
        if columns is not None:
            data_only: Dict[str, Any] = {"key": self.key}
            data_only.update({json_name(column): _json_value(self.value(column), column) for column in columns})
            return data_only
        data: Dict[str, Any] = {"key": self.key, "matched": self.matched, "gold": self.gold, "test": self.test}
        if self.matched_test is not None:
            data["matched_test"] = self.matched_test
        data.update({"precision": self.precision, "recall": self.recall, "f1": self.f1})
        data.update(self.extra)
        return data


@dataclass
class Table:
    """A breakdown table: ``columns`` are what is shown (:meth:`Row.value` names), ``rows`` in display order."""

    name: str
    title: str
    columns: List[str]
    rows: List[Row] = field(default_factory=list)
    note: str = ""
    #: rows count items matched out of gold and test, so precision, recall and F1 mean something; False: the
    #: rows are something else (error classes), and JSON rows carry ``columns`` only
    rates: bool = True

    def json_columns(self) -> Optional[List[str]]:
        """What a JSON row of this table holds beside its key: every field (None) or its columns only."""
        return None if self.rates else list(self.columns)

    def row(self, key: str) -> Row:
        """The row for ``key``, appended when missing."""
        for row in self.rows:
            if row.key == key:
                return row
        row = Row(key)
        self.rows.append(row)
        return row

    def to_json_dict(self) -> Dict[str, Any]:
        own = self.json_columns()
        return {"name": self.name, "title": self.title,
                "columns": self.columns if own is None else [json_name(c) for c in own], "note": self.note,
                "rows": [row.to_json_dict(own) for row in self.rows]}


@dataclass
class Breakdown:
    """Every table of one run's predictions on one split."""

    run: str  # the run directory (or the prediction file) it comes from
    system: str  # display name
    task: str  # constituency | dependency
    split: str
    gold: str  # the gold file
    pred: str  # the prediction file
    sentences: int
    tables: List[Table] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    def table(self, name: str) -> Optional[Table]:
        return next((t for t in self.tables if t.name == name), None)

    def to_json_dict(self) -> Dict[str, Any]:
        return {"run": self.run, "system": self.system, "task": self.task, "split": self.split, "gold": self.gold,
                "pred": self.pred, "sentences": self.sentences, "notes": self.notes,
                "tables": [t.to_json_dict() for t in self.tables]}


@dataclass
class SideBySide:
    """Two breakdowns on the same gold split: each table's rows joined by key, B minus A per column."""

    a: Breakdown
    b: Breakdown

    def joined(self, name: str) -> List[tuple]:
        """``(key, row of A or None, row of B or None)`` in A's order, then keys only B has."""
        table_a, table_b = self.a.table(name), self.b.table(name)
        rows_a = {r.key: r for r in table_a.rows} if table_a else {}
        rows_b = {r.key: r for r in table_b.rows} if table_b else {}
        keys = list(rows_a) + [k for k in rows_b if k not in rows_a]
        return [(k, rows_a.get(k), rows_b.get(k)) for k in keys]

    def to_json_dict(self) -> Dict[str, Any]:
        tables = []
        for table in self.a.tables:
            rows = []
            own = table.json_columns()
            name = (lambda column: column) if own is None else json_name
            for key, row_a, row_b in self.joined(table.name):
                delta = {}
                for column in table.columns:
                    va = row_a.value(column) if row_a else None
                    vb = row_b.value(column) if row_b else None
                    delta[name(column)] = None if va is None or vb is None else vb - va
                rows.append({"key": key, "a": row_a.to_json_dict(own) if row_a else None,
                             "b": row_b.to_json_dict(own) if row_b else None, "delta": delta})
            tables.append({"name": table.name, "title": table.title,
                           "columns": table.columns if own is None else [json_name(c) for c in own], "rows": rows})
        return {"a": {k: v for k, v in self.a.to_json_dict().items() if k != "tables"},
                "b": {k: v for k, v in self.b.to_json_dict().items() if k != "tables"},
                "delta": "b - a", "tables": tables}
