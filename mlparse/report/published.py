"""Published reference scores (facts from the papers) with their citations.

The scores live in ``published.yaml`` beside this module, typed in from the
paper texts; each :class:`PublishedRow` carries the :class:`Citation` of the
table it came from (paper, table number, split, metric).  Dependency scores
name their data set in ``datasets``, with the scoring convention its numbers
follow, so that they only ever sit beside runs on that data set scored the
same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import yaml

from mlparse.tasks import find_task

PUBLISHED_YAML = Path(__file__).with_name("published.yaml")

#: A leaderboard column: (dataset, language), e.g. ("spmrl", "hebrew").
ColumnKey = Tuple[str, str]

#: The metrics a published column may hold, per task.
TASK_METRICS: Dict[str, Tuple[str, ...]] = {
    "constituency": ("recall", "precision", "f1", "complete_match", "tagging_accuracy"),
    "dependency": ("uas", "las", "clas"),
}
METRICS = tuple(metric for metrics in TASK_METRICS.values() for metric in metrics)
#: Dependency scoring conventions, as ``depeval`` names them (the end of a run's ``scorer``): ``conll18``
#: counts every word (the CoNLL 2018 shared task), ``ptb`` leaves out punctuation by its gold POS tag.
SCORING_CONVENTIONS = ("conll18", "ptb")


class PublishedDataError(ValueError):
    """``published.yaml`` is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class Paper:
    key: str
    short: str  # "Kitaev & Klein 2018"
    authors: str
    year: int
    title: str
    venue: str

    def reference(self) -> str:
        return f"{self.authors}. {self.year}. {self.title}. {self.venue}."


@dataclass(frozen=True)
class PublishedDataset:
    """A data set that published dependency scores were measured on."""

    key: str  # as in a run's results.json ``dataset``, e.g. "ptb-sd"
    name: str  # "PTB-SD"
    scoring: str  # conll18 | ptb: which words the papers' UAS/LAS count
    description: str = ""


@dataclass(frozen=True)
class Citation:
    """Where a published number comes from."""

    paper: Paper
    table: int
    table_id: str  # unique id of the table block in published.yaml
    caption: str
    split: str  # dev | test
    metrics: Tuple[str, ...]  # the metrics the table reports

    def short(self) -> str:
        """``Kitaev & Klein 2018, Table 7 (test)``."""
        return f"{self.paper.short}, Table {self.table} ({self.split})"


@dataclass
class PublishedRow:
    """One system's row in one published table."""

    system: str
    task: str  # constituency | dependency
    split: str
    citation: Citation
    scores: Dict[ColumnKey, Dict[str, float]]  # (dataset, language) → metric → value (percent)
    group: Optional[str] = None
    paper_label: Optional[str] = None
    reported_average: Optional[float] = None
    reported_relative: Optional[float] = None
    notes: Dict[str, str] = field(default_factory=dict)  # language → footnote


@dataclass
class PublishedTable:
    """One block (one split) of a published table, in the paper's row order."""

    citation: Citation
    task: str
    columns: List[Tuple[str, str, str]]  # (dataset, language, metric), the paper's column order
    rows: List[PublishedRow]
    reported_delta: Optional[List[Optional[float]]] = None


@dataclass
class PublishedScores:
    papers: Dict[str, Paper]
    tables: List[PublishedTable]
    datasets: Dict[str, PublishedDataset] = field(default_factory=dict)

    def scoring(self, task: str, dataset: str) -> Optional[str]:
        """The scoring convention of a published data set (None for constituency scores)."""
        return self.datasets[dataset].scoring if has_convention(task) and dataset in self.datasets else None

    def rows(self, task: Optional[str] = None, split: Optional[str] = None) -> List[PublishedRow]:
        """All rows, in file order, optionally restricted to a task and split."""
        return [
            row
            for table in self.tables
            for row in table.rows
            if (task is None or row.task == task) and (split is None or row.split == split)
        ]

    def table(self, table_id: str) -> PublishedTable:
        for table in self.tables:
            if table.citation.table_id == table_id:
                return table
        raise KeyError(table_id)


def has_convention(task: str) -> bool:
    """Whether ``task``'s scores follow a dependency scoring convention, so that its leaderboards and published
    columns are kept apart by convention (:attr:`mlparse.tasks.base.Task.has_dependency_convention`)."""
    owner = find_task(task)
    return bool(owner is not None and owner.has_dependency_convention)


def _require(mapping: Mapping[str, Any], key: str, where: str) -> Any:
    if not isinstance(mapping, Mapping) or key not in mapping:
        raise PublishedDataError(f"{where}: missing key {key!r}")
    return mapping[key]


def _number(value: Any, where: str) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PublishedDataError(f"{where}: expected a number or null, got {value!r}")
    return float(value)


def _parse_table(entry: Mapping[str, Any], papers: Dict[str, Paper], datasets: Dict[str, PublishedDataset],
                 where: str) -> PublishedTable:
    table_id = str(_require(entry, "id", where))
    where = f"{where} ({table_id})"
    paper_key = _require(entry, "paper", where)
    if paper_key not in papers:
        raise PublishedDataError(f"{where}: unknown paper {paper_key!r}; known: {sorted(papers)}")
    task = str(_require(entry, "task", where))
    if task not in TASK_METRICS:
        raise PublishedDataError(f"{where}: unknown task {task!r}; known: {sorted(TASK_METRICS)}")
    split = str(_require(entry, "split", where))
    if split not in ("dev", "test"):
        raise PublishedDataError(f"{where}: unknown split {split!r}; choose dev or test")
    columns = []
    for index, column in enumerate(_require(entry, "columns", where)):
        spec = tuple(str(_require(column, k, f"{where} column {index}")) for k in ("dataset", "language", "metric"))
        if spec[2] not in TASK_METRICS[task]:
            raise PublishedDataError(f"{where} column {index}: metric {spec[2]!r} is not a {task} metric; "
                                     f"known: {', '.join(TASK_METRICS[task])}")
        if has_convention(task) and spec[0] not in datasets:
            raise PublishedDataError(f"{where} column {index}: data set {spec[0]!r} is not described under "
                                     f"'datasets' (its name and scoring convention); known: {sorted(datasets)}")
        columns.append(spec)
    citation = Citation(
        paper=papers[paper_key],
        table=int(_require(entry, "table", where)),
        table_id=table_id,
        caption=str(entry.get("caption", "")),
        split=split,
        metrics=tuple(dict.fromkeys(column[2] for column in columns)),
    )
    rows = []
    for index, raw in enumerate(_require(entry, "rows", where)):
        row_where = f"{where} row {index}"
        values = _require(raw, "values", row_where)
        if not isinstance(values, list) or len(values) != len(columns):
            raise PublishedDataError(f"{row_where}: 'values' must list {len(columns)} entries (one per column)")
        scores: Dict[ColumnKey, Dict[str, float]] = {}
        for (dataset, language, metric), value in zip(columns, values):
            number = _number(value, row_where)
            if number is not None and not 0.0 <= number <= 100.0:
                raise PublishedDataError(f"{row_where}: {dataset}/{language} {metric} {number} is not a percentage")
            if number is not None:
                scores.setdefault((dataset, language), {})[metric] = number
        for (dataset, language), metrics in scores.items():
            if metrics.get("las", -1.0) > metrics.get("uas", 101.0):  # a labelled attachment is also unlabelled
                raise PublishedDataError(f"{row_where}: {dataset}/{language} LAS {metrics['las']} exceeds "
                                         f"UAS {metrics['uas']} (columns swapped?)")
        rows.append(
            PublishedRow(
                system=str(_require(raw, "system", row_where)),
                task=task,
                split=split,
                citation=citation,
                scores=scores,
                group=raw.get("group"),
                paper_label=raw.get("paper_label"),
                reported_average=_number(raw.get("reported_average"), row_where),
                reported_relative=_number(raw.get("reported_relative"), row_where),
                notes={str(k): str(v) for k, v in (raw.get("notes") or {}).items()},
            )
        )
    delta = entry.get("reported_delta")
    if delta is not None:
        if not isinstance(delta, list) or len(delta) != len(columns):
            raise PublishedDataError(f"{where}: 'reported_delta' must list {len(columns)} entries")
        delta = [_number(value, where) for value in delta]
    return PublishedTable(citation=citation, task=task, columns=columns, rows=rows, reported_delta=delta)


def load_published(path: Path = PUBLISHED_YAML) -> PublishedScores:
    """Load and validate the reference scores; raises :class:`PublishedDataError` naming the entry."""
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise PublishedDataError(f"{path}: invalid YAML: {error}") from None
    where = str(path)
    papers = {}
    for key, raw in (_require(data, "papers", where) or {}).items():
        pw = f"{where} paper {key}"
        papers[key] = Paper(
            key=key,
            short=str(_require(raw, "short", pw)),
            authors=str(_require(raw, "authors", pw)),
            year=int(_require(raw, "year", pw)),
            title=str(_require(raw, "title", pw)),
            venue=str(_require(raw, "venue", pw)),
        )
    datasets = {}
    raw_datasets = data.get("datasets") or {}
    if not isinstance(raw_datasets, Mapping):
        raise PublishedDataError(f"{where}: 'datasets' must map each data set's key to its description")
    for key, raw in raw_datasets.items():
        dw = f"{where} dataset {key}"
        scoring = str(_require(raw, "scoring", dw))
        if scoring not in SCORING_CONVENTIONS:
            raise PublishedDataError(f"{dw}: unknown scoring {scoring!r}; known: {', '.join(SCORING_CONVENTIONS)}")
        datasets[str(key)] = PublishedDataset(key=str(key), name=str(_require(raw, "name", dw)), scoring=scoring,
                                              description=str(raw.get("description", "")))
    tables = [
        _parse_table(entry, papers, datasets, f"{where} table {index}")
        for index, entry in enumerate(_require(data, "tables", where) or [])
    ]
    return PublishedScores(papers=papers, tables=tables, datasets=datasets)
