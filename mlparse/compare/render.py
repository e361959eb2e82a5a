"""``mlparse compare`` output: a plain table, JSON (one object per comparison) or Markdown."""

from __future__ import annotations

import json
from typing import List, Sequence

from mlparse.compare.comparison import Comparison


def _p(value: float) -> str:
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def _rows(comparisons: Sequence[Comparison]) -> List[List[str]]:
    rows = []
    for c in comparisons:
        t = c.test
        ci = f"[{t.ci95[0]:+.2f}, {t.ci95[1]:+.2f}]" if t.ci95 is not None else ""
        row = [c.a, c.b, f"{t.score_a:.2f}", f"{t.score_b:.2f}", f"{t.delta:+.2f}", _p(t.p_value),
               _p(c.p_holm) if c.p_holm is not None else "", ci]
        if c.groups is not None:
            g = c.groups
            row.append(_p(g.welch_p) if g.welch_p is not None else (g.missing or "n<2"))
            row.append(f"{g.aso_eps_min_b_over_a:.3f}" if g.aso_eps_min_b_over_a is not None else "")
        rows.append(row)
    return rows


def _header(comparisons: Sequence[Comparison]) -> List[str]:
    metric = comparisons[0].metric.upper()
    head = ["A", "B", f"{metric} A", f"{metric} B", "Δ (B−A)", "p", "p (Holm)", "95% CI"]
    if any(c.groups is not None for c in comparisons):
        head += ["Welch p (seeds)", "ASO ε (B>A)"]
    return head


def _caption(comparisons: Sequence[Comparison]) -> str:
    c = comparisons[0]
    return (f"{c.metric.upper()} on {c.split}; {c.test.method}, {c.test.samples} samples, seed {c.test.seed}; "
            f"two-sided p-values")


def to_json(comparisons: Sequence[Comparison]) -> str:
    return json.dumps([c.to_json() for c in comparisons], indent=2, ensure_ascii=False) + "\n"


def to_table(comparisons: Sequence[Comparison]) -> str:
    head, rows = _header(comparisons), _rows(comparisons)
    rows = [r + [""] * (len(head) - len(r)) for r in rows]
    widths = [max(len(x) for x in column) for column in zip(head, *rows)]
    lines = [_caption(comparisons)]
    for row in [head] + rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
    return "\n".join(lines) + "\n"


def to_markdown(comparisons: Sequence[Comparison]) -> str:
    head, rows = _header(comparisons), _rows(comparisons)
    rows = [r + [""] * (len(head) - len(r)) for r in rows]
    lines = [f"{_caption(comparisons)}.", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


RENDERERS = {"table": to_table, "json": to_json, "markdown": to_markdown}
