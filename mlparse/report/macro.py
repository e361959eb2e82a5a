"""Macro averages of the Universal Dependencies leaderboards: over treebanks, over languages, and by training size.

For every dependency leaderboard on ``ud`` data and every measured row (system), :func:`macro_tables` gives

* the mean over treebanks (each treebank counts once, as the CoNLL 2018 ranking did),
* the mean over languages (a language's score is the mean of its treebanks': ``UD_English-EWT`` and
  ``UD_English-GUM`` are one language, English),
* the mean within each size group of CoNLL 2018 (:func:`size_group`),

each with the number of treebanks or languages behind it and the number it should have been.  The treebanks a
table expects are every treebank any row of the leaderboard has a run on; a row that lacks a score on some of
them (no run, a failed or unfinished one) names them as missing, so that an average over fewer treebanks is
never taken silently.

Size groups, after the CoNLL 2018 shared task (which had training and development sets of at least 10,000
and 5,000 words for its "big" treebanks, "small" treebanks with training data but no development data, and
"low-resource" languages with no or only a tiny training sample): ``big``: train ≥ :data:`BIG_TRAIN_WORDS`
words and an official dev split of ≥ :data:`BIG_DEV_WORDS`; ``low-resource``: train <
:data:`LOW_RESOURCE_TRAIN_WORDS` words; ``small``: the others (a dev split carved from train included).
The sizes are those a run records in ``results.json`` (``data_sizes``, ``dev_carved``); for runs written before
these keys existed, those of the prepared data named by the run's ``recipe.yaml``, if it is still there.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import yaml

from mlparse.data.ud_metadata import language_name as language_of
from mlparse.run_index.collect import RunRecord
from mlparse.report.leaderboard import Leaderboard
from mlparse.report.published import has_convention
from mlparse.report.model import Report
from mlparse.run_dir import RECIPE_FILE

BIG_TRAIN_WORDS = 10_000
BIG_DEV_WORDS = 5_000
LOW_RESOURCE_TRAIN_WORDS = 1_000
GROUPS = ("big", "small", "low-resource", "unknown")
UD_DATASET = "ud"

if TYPE_CHECKING:
    from rich.console import Console


@dataclass
class Average:
    """A mean over ``n`` of the ``total`` items it should cover; ``missing`` names the others."""

    value: Optional[float]
    n: int
    total: int
    missing: List[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.n == self.total


@dataclass
class MacroRow:
    system: str
    treebanks: Average
    languages: Average
    groups: Dict[str, Average]  # size group -> mean over its treebanks


@dataclass
class MacroTable:
    """The macro averages of one leaderboard (split, metric, scoring convention)."""

    split: str
    metric: str
    scoring: Optional[str]
    title: str
    treebanks: List[str]
    group_of: Dict[str, str]  # treebank -> size group
    rows: List[MacroRow]


def size_group(sizes: Dict[str, Dict[str, int]], dev_carved: Optional[dict]) -> str:
    """``big``, ``small``, ``low-resource`` (see the module doc), ``unknown`` without sizes."""
    if not sizes:
        return "unknown"
    train = sizes.get("train", {}).get("words", 0)
    dev = sizes.get("dev", {}).get("words", 0)
    if train < LOW_RESOURCE_TRAIN_WORDS:
        return "low-resource"
    if dev_carved is None and train >= BIG_TRAIN_WORDS and dev >= BIG_DEV_WORDS:
        return "big"
    return "small"


def _sizes_from_recipe(record: RunRecord) -> Tuple[Dict[str, Dict[str, int]], Optional[dict]]:
    """Split sizes and carved dev of the prepared data a run's ``recipe.yaml`` names (runs without ``data_sizes``)."""
    try:
        data = (yaml.safe_load((record.run_dir / RECIPE_FILE).read_text(encoding="utf-8")) or {}).get("data") or {}
        manifest = json.loads((Path(data["root"]) / data["family"] / data["language"] / "manifest.json").read_text())
    except (OSError, ValueError, KeyError, TypeError, AttributeError, yaml.YAMLError):
        return {}, None
    sizes = {split: {"sentences": stats.get("sentences", 0), "words": stats.get("tokens", 0)}
             for split, stats in (manifest.get("splits") or {}).items()}
    return sizes, (manifest.get("ud") or {}).get("dev_carved")


def treebank_groups(records: Sequence[RunRecord]) -> Dict[str, str]:
    """Size group of each UD treebank with a run (the latest run that knows its sizes decides)."""
    groups: Dict[str, str] = {}
    for record in sorted(records, key=lambda r: r.sort_time()):
        results = record.results
        if results is None or results.dataset != UD_DATASET:
            continue
        sizes, carved = results.data_sizes, results.dev_carved
        if not sizes:
            sizes, carved = _sizes_from_recipe(record)
        group = size_group(sizes, carved)
        if group != "unknown" or results.language not in groups:
            groups[results.language] = group
    return groups


def _mean(values: Dict[str, float], expected: Sequence[str]) -> Average:
    present = [name for name in expected if name in values]
    value = sum(values[name] for name in present) / len(present) if present else None
    return Average(value, len(present), len(expected), [name for name in expected if name not in values])


def _table(board: Leaderboard, group_of: Dict[str, str]) -> MacroTable:
    treebanks = list(board.languages)
    languages = sorted({language_of(name) for name in treebanks})
    rows = []
    for row in board.measured_rows():
        scores = {name: cell.value for name, cell in row.cells.items()
                  if name in treebanks and cell.value is not None and cell.state is None}
        by_language: Dict[str, List[float]] = {}
        for name, value in scores.items():
            by_language.setdefault(language_of(name), []).append(value)
        language_scores = {language: sum(values) / len(values) for language, values in by_language.items()}
        groups = {group: _mean(scores, [name for name in treebanks if group_of.get(name, "unknown") == group])
                  for group in GROUPS if any(group_of.get(name, "unknown") == group for name in treebanks)}
        rows.append(MacroRow(row.system, _mean(scores, treebanks), _mean(language_scores, languages), groups))
    return MacroTable(board.split, board.metric, board.scoring, board.title, treebanks,
                      {name: group_of.get(name, "unknown") for name in treebanks}, rows)


def macro_tables(report: Report) -> List[MacroTable]:
    """One table per dependency leaderboard on UD data with measured rows and more than one treebank (see the
    module doc)."""
    group_of = treebank_groups(report.records)
    return [_table(board, group_of) for board in report.leaderboards
            if has_convention(board.task) and board.dataset == UD_DATASET and board.measured_rows()
            and len(board.languages) > 1]


def average_text(average: Average, unit: str) -> str:
    """``83.41 (4 treebanks)``, or ``80.12 (3 of 4 treebanks)`` when some are missing; ``–`` over none."""
    if average.value is None:
        return f"– (0 of {average.total} {unit})"
    count = f"{average.n} {unit}" if average.complete else f"{average.n} of {average.total} {unit}"
    return f"{average.value:.2f} ({count})"


def macro_headers(table: MacroTable) -> List[str]:
    return ["System", "Treebanks", "Languages"] + [f"{group}" for group in GROUPS if group in table.rows[0].groups]


def macro_cells(table: MacroTable, row: MacroRow) -> List[str]:
    cells = [row.system, average_text(row.treebanks, "treebanks"), average_text(row.languages, "languages")]
    cells += [average_text(row.groups[group], "treebanks") for group in GROUPS if group in row.groups]
    return cells


def macro_notes(table: MacroTable) -> List[str]:
    """The size group of each treebank, and the treebanks each row lacks."""
    grouped: Dict[str, List[str]] = {}
    for name, group in table.group_of.items():
        grouped.setdefault(group, []).append(name)
    notes = ["size groups (CoNLL 2018): " + "; ".join(f"{group}: {', '.join(grouped[group])}"
                                                       for group in GROUPS if group in grouped)]
    for row in table.rows:
        if row.treebanks.missing:
            notes.append(f"{row.system}: missing {len(row.treebanks.missing)} of {row.treebanks.total} treebanks "
                         f"(no complete run): {', '.join(row.treebanks.missing)}")
    return notes


def macro_markdown(report: Report) -> List[str]:
    """The Markdown section (empty without UD dependency runs)."""
    tables = macro_tables(report)
    if not tables:
        return []
    lines = ["## Macro averages (Universal Dependencies)", ""]
    for table in tables:
        headers = macro_headers(table)
        lines += [f"### {table.title}", "", "| " + " | ".join(headers) + " |",
                  "|---|" + "|".join("---:" for _ in headers[1:]) + "|"]
        lines += ["| " + " | ".join(macro_cells(table, row)) + " |" for row in table.rows]
        lines += [""] + [f"- {note}" for note in macro_notes(table)] + [""]
    return lines


def macro_json(report: Report) -> List[dict]:
    return [asdict(table) for table in macro_tables(report)]


def print_macro(report: Report, console: "Console") -> None:
    """The terminal section (nothing without UD dependency runs)."""
    from rich.table import Table
    from rich.text import Text

    for table in macro_tables(report):
        grid = Table(title=f"macro averages · {table.title}", title_justify="left", header_style="bold")
        for k, header in enumerate(macro_headers(table)):
            grid.add_column(header, justify="left" if k == 0 else "right")
        for row in table.rows:
            grid.add_row(*macro_cells(table, row))
        console.print(grid)
        for note in macro_notes(table):
            console.print(Text(note, style="dim"))
        console.print()
