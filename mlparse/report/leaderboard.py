"""Leaderboards: one table per (task, split, dataset, scoring, evalb parameters, metric), columns keyed by language.

Measured rows come from runs: one row per configuration, a group of runs that differ only by seed
(:mod:`mlparse.run_index.seeds`), named by what differs from its recipe (:mod:`mlparse.run_index.configurations`)
and shown as the mean over its complete seeds with the standard deviation and n (``best``: only each
recipe's configuration with the best dev mean; ``all-seeds``: one row per seed instead); a run found in two
folders counts once.  Published rows
come from :mod:`mlparse.report.published`.  Scores from different
data sets never share a table, so a score on the free WSJ sample never sits in
the same column as a full-PTB score; constituency and dependency scores never
share one either, nor dependency scores counted under different conventions
(CoNLL 2018: every word; PTB: punctuation left out), nor constituency scores of
different evalb parameter files (COLLINS.prm, spmrl.prm: the file ``results.json``'s
scorer names; a run whose results.json names none keeps the table without one).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from mlparse.data.catalog import CatalogError, evalb_params_for
from mlparse.run_index.collect import RunRecord
from mlparse.run_index.configurations import Configurations, distinct_runs
from mlparse.report.published import Citation, ColumnKey, PublishedRow, PublishedScores, has_convention
from mlparse.run_index.seeds import SeedGroup, group_by_seed, mean_std
from mlparse.run_index.systems import system_name
from mlparse.results import COMPLETE
from mlparse.tasks import dev_metric, find_task

MEASURED, PUBLISHED = "measured", "published"
#: The key prefix of a seed group whose recipe.yaml could not be read (:func:`mlparse.run_index.seeds.group_by_seed`).
UNKNOWN_CONFIGURATION = "run:"
SELECT_MODES = ("latest", "best", "all-seeds")
PUBLISHED_MODES = ("matching", "all", "none")

METRIC_NAMES = {"f1": "F1", "recall": "LR", "precision": "LP", "uas": "UAS", "las": "LAS", "clas": "CLAS",
                "complete_match": "CM", "tagging_accuracy": "tag accuracy"}
#: How a dependency leaderboard's title names its scoring convention.
SCORING_NAMES = {"conll18": "CoNLL 2018 scoring", "ptb": "PTB scoring, punctuation excluded",
                 "unknown": "scoring unknown"}

#: What a leaderboard holds: (task, dataset, dependency scoring convention, evalb parameter file); the last two
#: None where they do not apply or are not recorded.
BoardKey = Tuple[str, str, Optional[str], Optional[str]]


@dataclass
class SeedScore:
    """One seed's score behind a measured cell."""

    run: str  # "recipe/run-id"
    seed: Optional[int]
    value: Optional[float]


@dataclass
class Cell:
    """One score; ``state`` marks a run that is not complete (its value, if any, is provisional).

    A measured cell of several seeds holds their mean as ``value``, the sample standard deviation as
    ``std`` and their number as ``n``; ``seeds`` lists every seed's score (also for n = 1)."""

    value: Optional[float] = None
    state: Optional[str] = None
    run: Optional[str] = None  # "recipe/run-id" for measured cells (the group's latest run)
    note: Optional[str] = None  # published footnote
    std: Optional[float] = None  # sample standard deviation over the seeds (n >= 2)
    n: int = 1  # how many seeds' scores ``value`` is the mean of
    seeds: List[SeedScore] = field(default_factory=list)
    # against the column's best system (mlparse.compare.marks): the Holm-corrected p-value, whether significantly
    # worse, and which test (mlparse.compare.group_significance: groups | run-vs-group | single-runs); None when not
    # tested (published rows, no predictions, the best system itself, one system in the column)
    significance: Optional[float] = None
    worse: Optional[bool] = None
    significance_test: Optional[str] = None
    significance_runs: Optional[List[int]] = None  # [runs of the column's best system, runs of this one]
    significance_tests: Optional[int] = None  # the column's tests against its best system, which Holm corrected over


@dataclass
class LeaderboardRow:
    system: str
    kind: str  # measured | published
    source: str  # "recipe/run-id, …" or the citation's short form
    cells: Dict[str, Cell]  # language → cell
    average: Optional[float] = None
    citation: Optional[Citation] = None
    group: Optional[str] = None
    external: bool = False  # measured from another parser's predictions (mlparse score)


@dataclass
class Leaderboard:
    task: str
    split: str
    dataset: str
    metric: str
    languages: List[str]
    rows: List[LeaderboardRow]  # published (paper order) first, then measured (by system)
    delta: Dict[str, float] = field(default_factory=dict)  # language → ours − best previous
    delta_average: Optional[float] = None
    scoring: Optional[str] = None  # dependency: conll18 | ptb | unknown; None for constituency
    evalb_params: Optional[str] = None  # constituency: the evalb parameter file of its runs; None if not recorded

    @property
    def title(self) -> str:
        return (f"{self.task} · {self.dataset_label} · {self.split} · "
                f"{METRIC_NAMES.get(self.metric, self.metric)}")

    @property
    def dataset_label(self) -> str:
        """The data set, with the scoring convention or the evalb parameter file when there is one:
        ``ud (CoNLL 2018 scoring)``, ``spmrl (evalb spmrl.prm)``."""
        rules = ([SCORING_NAMES.get(self.scoring, self.scoring)] if self.scoring is not None else []) + (
            [f"evalb {self.evalb_params}"] if self.evalb_params is not None else [])
        return f"{self.dataset} ({', '.join(rules)})" if rules else self.dataset

    @property
    def dataset_key(self) -> str:
        """The data set as one token for tidy output: ``ud (conll18)``, ``spmrl (spmrl.prm)``; ``spmrl`` when
        neither applies."""
        rules = [rule for rule in (self.scoring, self.evalb_params) if rule is not None]
        return f"{self.dataset} ({', '.join(rules)})" if rules else self.dataset

    @property
    def show_average(self) -> bool:
        return len(self.languages) > 1

    def measured_rows(self) -> List[LeaderboardRow]:
        return [row for row in self.rows if row.kind == MEASURED]

    def published_rows(self) -> List[LeaderboardRow]:
        return [row for row in self.rows if row.kind == PUBLISHED]


def average(values: Mapping[str, Optional[float]], languages: Sequence[str]) -> Optional[float]:
    """Mean over ``languages``; None unless every language has a value (as in the papers' Avg)."""
    picked = [values.get(language) for language in languages]
    if not picked or any(value is None for value in picked):
        return None
    return sum(picked) / len(picked)  # type: ignore[arg-type]


def best_previous_delta(ours: Mapping[ColumnKey, Optional[float]],
                        previous: Iterable[Mapping[ColumnKey, Optional[float]]],
                        columns: Sequence[ColumnKey]) -> Dict[ColumnKey, float]:
    """Per column: ours − the best previous value (only where both exist), as Table 7's Δ row."""
    previous = list(previous)
    delta: Dict[ColumnKey, float] = {}
    for column in columns:
        mine = ours.get(column)
        theirs = [row[column] for row in previous if row.get(column) is not None]
        if mine is not None and theirs:
            delta[column] = mine - max(theirs)  # type: ignore[type-var]
    return delta


def primary_metric(task: str) -> str:
    return dev_metric(task)


def _metric_value(record: RunRecord, split: str, metric: str) -> Optional[float]:
    scores = record.split(split)
    return getattr(scores, metric, None) if scores is not None else None


def select_groups(records: Sequence[RunRecord], mode: str = "latest") -> List[SeedGroup]:
    """The runs each leaderboard row stands for.

    ``latest``: every configuration (seed group) of every recipe, reduced to its complete runs; ``best``: per
    recipe, the seed group whose complete runs have the best mean dev score.  ``all-seeds``: every
    configuration's complete runs, each a group of its own (one row per seed).  A configuration without a
    complete run is represented by its latest run of any state, so that a running or failed experiment still
    shows up (with its state); under ``best``, a recipe without any complete run is.  A run whose recipe.yaml
    cannot be read may be any configuration: it is shown only when it is its recipe's latest complete run.
    """
    if mode not in SELECT_MODES:
        raise ValueError(f"unknown selection {mode!r}; choose one of {SELECT_MODES}")
    by_recipe: Dict[str, List[SeedGroup]] = {}
    for group in group_by_seed(records):
        by_recipe.setdefault(group.recipe, []).append(group)
    chosen: List[SeedGroup] = []
    for recipe in sorted(by_recipe):
        groups = by_recipe[recipe]
        complete = [group for group in groups if group.complete]
        if not complete:
            latest = max((run for group in groups for run in group.runs), key=lambda run: run.sort_time())
            owner = next(group for group in groups if latest in group.runs)
            chosen.append(SeedGroup(recipe, owner.key, [latest], {latest.label: owner.seeds.get(latest.label)}))
            continue
        if mode == "best":
            def key(group: SeedGroup) -> Tuple[float, float]:
                values = [value for run in group.complete
                          for value in [_metric_value(run, "dev", primary_metric(run.results.task))]  # type: ignore[union-attr]
                          if value is not None]
                return (sum(values) / len(values) if values else float("-inf"),
                        max(run.sort_time() for run in group.complete))
        else:
            def key(group: SeedGroup) -> Tuple[float, float]:
                return (max(run.sort_time() for run in group.complete), 0.0)
        if mode == "best":
            shown = [max(complete, key=key)]
        else:  # every configuration; runs whose recipe.yaml is unreadable only when they are the latest
            newest = max(complete, key=key)
            shown = [g for g in sorted(groups, key=lambda g: g.key) if not g.key.startswith(UNKNOWN_CONFIGURATION)
                     or g is newest]
        for group in shown:
            if not group.complete:
                latest = group.representative
                chosen.append(SeedGroup(recipe, group.key, [latest], {latest.label: group.seeds.get(latest.label)}))
                continue
            runs = sorted(group.complete, key=lambda run: (group.seeds.get(run.label) or 0, run.label))
            if mode == "all-seeds":
                chosen += [SeedGroup(recipe, group.key, [run], {run.label: group.seeds.get(run.label)}) for run in runs]
            else:
                chosen.append(SeedGroup(recipe, group.key, runs, {run.label: group.seeds.get(run.label) for run in runs}))
    return chosen


def select_runs(records: Sequence[RunRecord], mode: str = "latest") -> List[RunRecord]:
    """One run per recipe (per seed with ``all-seeds``): the latest run of each group of :func:`select_groups`."""
    return [group.representative for group in select_groups(records, mode)]


#: The leaderboards of a task whose runs hold the scores of several: a joint (span + dependency) run's F1
#: goes to the constituency leaderboards, its UAS and LAS to the dependency ones.


def scored_by_evalb(task: str) -> bool:
    """Whether ``task``'s leaderboards hold evalb scores, kept apart by evalb parameter file."""
    owner = find_task(task)
    return bool(owner is not None and owner.scorer == "evalb")


def board_keys(record: RunRecord) -> List[BoardKey]:
    """(task, dataset, scoring, evalb parameters) of every leaderboard a run's scores go to (the scoring convention
    only for dependency leaderboards, the evalb parameter file only for those evalb scores)."""
    results = record.results
    assert results is not None
    owner = find_task(results.task)
    if owner is None:  # a task not installed here: its own board
        return [(results.task, results.dataset or "?", record.scoring, record.evalb_params)]
    return [(task, results.dataset or "?", record.scoring if has_convention(task) else None,
             record.evalb_params if scored_by_evalb(task) else None) for task in owner.views()]


@dataclass
class PublishedParams:
    """The evalb parameter file of published constituency scores, per (dataset, language): the file the treebank
    catalog names for that treebank (COLLINS.prm for the PTB, spmrl.prm for SPMRL), the one the papers scored with;
    None where the catalog does not know the data set (CTB), which then sits beside runs of any file."""

    known: Dict[Tuple[str, str], Optional[str]] = field(default_factory=dict)  # looked up once each

    def __call__(self, dataset: str, language: str) -> Optional[str]:
        if (dataset, language) not in self.known:
            try:
                self.known[(dataset, language)] = evalb_params_for(dataset, language)
            except CatalogError:  # a family file that does not load: the scores sit beside runs of any file
                self.known[(dataset, language)] = None
        return self.known[(dataset, language)]


def comparable_params(board: Optional[str], published: Optional[str]) -> bool:
    """Whether a published score of evalb parameter file ``published`` may sit in a leaderboard of ``board``
    (either unknown: yes, as before the file was recorded)."""
    return board is None or published is None or board == published


def _measured_rows(groups: Sequence[SeedGroup], key: BoardKey, split: str, metric: str,
                   warnings: List[str], per_seed: bool = False,
                   configurations: Optional[Configurations] = None) -> List[LeaderboardRow]:
    task, dataset, scoring, params = key
    rows: Dict[str, LeaderboardRow] = {}
    for group in groups:
        record = group.representative
        if record.results is None or key not in board_keys(record):
            continue
        results = record.results
        language = results.language or "?"
        name = system_name(record)
        if configurations is not None:
            name = configurations.name(record, name)
        seed = group.seeds.get(record.label)
        if per_seed:
            name += f" (seed {seed})" if seed is not None else f" ({record.run_id})"
        row = rows.setdefault(name, LeaderboardRow(system=name, kind=MEASURED, source="", cells={},
                                                   external=results.model == "external"))
        seeds = [SeedScore(run.label, group.seeds.get(run.label), _metric_value(run, split, metric))
                 for run in group.runs]
        mean, std, n = mean_std([score.value for score in seeds if score.value is not None])
        value = mean if record.state == COMPLETE else _metric_value(record, split, metric)
        state = None if record.state == COMPLETE and value is not None else (
            record.state if record.state != COMPLETE else f"no {split} scores")
        cell = Cell(value=value, state=state, run=record.label, std=std, n=max(n, 1), seeds=seeds)
        existing = row.cells.get(language)
        if existing is not None:
            keep, drop = (existing, cell) if (existing.value or -1.0) >= (value or -1.0) else (cell, existing)
            where = "/".join(part for part in (task, dataset, scoring, params, language) if part)
            warnings.append(f"{where}: runs {keep.run} and {drop.run} both report "
                            f"system {name!r}; the leaderboard shows {keep.run} (both are in the run details)")
            cell = keep
        row.cells[language] = cell
    for row in rows.values():
        row.source = ", ".join(sorted(score.run for cell in row.cells.values() for score in cell.seeds))
    return [rows[name] for name in sorted(rows)]


def _published_rows(rows: Sequence[PublishedRow], dataset: str, metric: str,
                    accepts: Callable[[str], bool] = lambda language: True) -> List[LeaderboardRow]:
    """The rows of ``rows`` with a score of ``metric`` on ``dataset``, in the languages the leaderboard ``accepts``."""
    result = []
    for row in rows:
        cells = {language: Cell(value=metrics[metric], note=row.notes.get(language))
                 for (row_dataset, language), metrics in row.scores.items()
                 if row_dataset == dataset and metric in metrics and accepts(language)}
        if cells:
            result.append(LeaderboardRow(system=row.system, kind=PUBLISHED, source=row.citation.short(),
                                         cells=cells, citation=row.citation, group=row.group))
    return result


def build_leaderboards(records: Sequence[RunRecord], published: Optional[PublishedScores], split: str = "test",
                       select: str = "latest", published_mode: str = "matching",
                       warnings: Optional[List[str]] = None) -> List[Leaderboard]:
    """All leaderboards for ``split``; ordered by task, then data sets with runs (and their scoring
    conventions or evalb parameter files), then the rest; one per metric of the task (dependency: UAS, then LAS).
    A published constituency score sits only in a leaderboard of its evalb parameter file (:class:`PublishedParams`)."""
    if published_mode not in PUBLISHED_MODES:
        raise ValueError(f"unknown published mode {published_mode!r}; choose one of {PUBLISHED_MODES}")
    warnings = warnings if warnings is not None else []
    records = distinct_runs(records, warnings)
    configurations = Configurations(records)
    groups = select_groups(records, select)
    runs = [group.representative for group in groups]
    published_rows = published.rows(split=split) if published is not None and published_mode != "none" else []
    published_params = PublishedParams()

    def published_key(row: PublishedRow, dataset: str) -> Tuple[str, str, Optional[str]]:
        return row.task, dataset, published.scoring(row.task, dataset)  # type: ignore[union-attr]

    def accepts(key: BoardKey, language: str) -> bool:
        return not scored_by_evalb(key[0]) or comparable_params(key[3], published_params(key[1], language))

    keys: Dict[BoardKey, None] = {
        key: None for key in sorted({key for record in runs for key in board_keys(record)},
                                    key=lambda k: (k[0], k[1], k[2] or "", k[3] or ""))}
    if published_mode == "all":  # a published table with no leaderboard of runs to sit in gets its own
        for row in published_rows:
            for dataset in dict.fromkeys(name for name, _ in row.scores):
                base = published_key(row, dataset)
                languages = [language for row_dataset, language in row.scores if row_dataset == dataset]
                if not any(key[:3] == base and any(accepts(key, language) for language in languages) for key in keys):
                    keys.setdefault(base + (None,), None)
    boards = []
    for key in sorted(keys, key=lambda key: (key[0] != "constituency", key[0])):
        task, dataset, scoring, params = key
        owner = find_task(task)  # its metrics, one table each (``--select best`` uses the task's dev metric)
        for metric in owner.board_metrics() if owner is not None else ("f1",):
            # a published data set's numbers follow one convention (and one evalb parameter file): only runs
            # scored the same way sit beside them
            matching = [row for row in published_rows if published_key(row, dataset) == key[:3]]
            pub = _published_rows(matching, dataset, metric, lambda language, key=key: accepts(key, language))
            measured = _measured_rows(groups, key, split, metric, warnings, per_seed=select == "all-seeds",
                                      configurations=configurations)
            if not pub and not measured:
                continue
            languages = list(dict.fromkeys(language for row in pub for language in row.cells))
            languages += sorted({language for row in measured for language in row.cells} - set(languages))
            board = Leaderboard(task=task, split=split, dataset=dataset, metric=metric,
                                languages=languages, rows=pub + measured, scoring=scoring, evalb_params=params)
            for row in board.rows:
                row.average = average({k: c.value for k, c in row.cells.items() if c.state is None}, languages)
            _fill_delta(board)
            boards.append(board)
    return boards


def _fill_delta(board: Leaderboard) -> None:
    """Δ = best measured − best published, per language and for the average."""
    measured = [row for row in board.rows if row.kind == MEASURED]
    published = [row for row in board.rows if row.kind == PUBLISHED]
    if not measured or not published:
        return
    ours: Dict[ColumnKey, Optional[float]] = {}
    for language in board.languages:
        values = [row.cells[language].value for row in measured  # complete runs only
                  if language in row.cells and row.cells[language].state is None
                  and row.cells[language].value is not None]
        ours[(board.dataset, language)] = max(values) if values else None  # type: ignore[type-var]
    previous = [{(board.dataset, k): c.value for k, c in row.cells.items()} for row in published]
    delta = best_previous_delta(ours, previous, [(board.dataset, language) for language in board.languages])
    board.delta = {language: value for (_, language), value in delta.items()}
    our_averages = [row.average for row in measured if row.average is not None]
    their_averages = [row.average for row in published if row.average is not None]
    if board.show_average and our_averages and their_averages:
        board.delta_average = max(our_averages) - max(their_averages)
