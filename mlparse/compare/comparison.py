"""A whole ``mlparse compare``: the runs' per-sentence statistics, one paired test per run against the first,
Holm-Bonferroni across them, and seed-group tests where runs come in groups of seeds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mlparse.compare.resampling import METHODS, TestResult, holm
from mlparse.compare.runs import CompareError, RunRef, group_runs
from mlparse.compare.seed_groups import GroupTest, compare_groups
from mlparse.compare.statistics import SentenceStats, metric_task, stats_from_rows

#: The seed used when none is given (recorded in every result).
DEFAULT_SEED = 12345
DEFAULT_SAMPLES = 10_000


@dataclass(frozen=True)
class CompareOptions:
    split: str = "test"
    metric: Optional[str] = None  # None: the task's main metric (f1, las)
    method: str = "randomization"
    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    runs_dir: Optional[Path] = None  # where seed groups are looked for
    aso_iterations: int = 1000  # deepsig's bootstrap iterations for ASO


@dataclass(frozen=True)
class Comparison:
    """B against A on one split and metric (the JSON object of ``--format json``)."""

    a: str
    b: str
    split: str
    metric: str
    test: TestResult
    p_holm: Optional[float] = None  # with more than two systems
    groups: Optional[GroupTest] = None  # when A or B is a group of seeds

    def to_json(self) -> Dict[str, Any]:
        t = self.test
        score_a, score_b = round(t.score_a, 4), round(t.score_b, 4)  # as results.json rounds them
        out: Dict[str, Any] = {
            "a": self.a, "b": self.b, "split": self.split, "metric": self.metric, "method": t.method,
            "samples": t.samples, "seed": t.seed, "score_a": score_a, "score_b": score_b,
            "delta": round(score_b - score_a, 4), "p_value": t.p_value}
        if t.ci95 is not None:
            out["ci95"] = [round(t.ci95[0], 4), round(t.ci95[1], 4)]
        if self.p_holm is not None:
            out["p_holm"] = self.p_holm
        if self.groups is not None:
            out["seed_groups"] = self.groups.to_json()
        return out


def read_predictions(ref: RunRef, split: str) -> List[Any]:
    """The run's predictions on ``split``, as its task scores them."""
    path = ref.pred(split)
    if not path.is_file():
        raise CompareError(f"{ref.path}: no predictions {path.name} (a run scored before predictions were kept?)")
    from mlparse.tasks import task_class

    if task_class(ref.task).scorer == "depeval":  # CoNLL-U; else bracketed trees
        from mlparse.trees.dependency import ConlluError, DependencyPrediction, read_conllu

        try:
            document = read_conllu(path)
        except ConlluError as error:
            raise CompareError(str(error)) from None
        return [DependencyPrediction([int(h or 0) for h in s.heads], list(s.deprels)) for s in document.sentences]
    from mlparse.tasks import treebank

    try:
        return list(treebank.read_split(path).trees)
    except (treebank.DataError, ValueError) as error:
        raise CompareError(str(error)) from None


def run_statistics(ref: RunRef, split: str) -> Dict[str, List[Tuple[int, int, int]]]:
    """Per-sentence counts of every metric of ``ref`` on ``split``, from its task's scorer."""
    from mlparse.tasks import DataError, task_for

    task = task_for(ref.task)
    try:
        gold = task.read_split(ref.gold(split))
        predictions = read_predictions(ref, split)
        if len(predictions) != len(gold.examples):
            raise CompareError(f"{ref.pred(split)}: {len(predictions)} sentences, but the gold file "
                               f"{ref.gold(split)} has {len(gold.examples)}")
        if task.writes_trees and any(p.tags() != g.tags() for p, g in zip(predictions, gold.trees)):
            # the run parsed predicted tags (data.eval_tags: predicted): score on gold-tagged copies, as it was
            gold.input_tags = [p.tags() for p in predictions]
        return task.sentence_counts(gold, predictions, ref.config)
    except (DataError, ValueError) as error:
        if isinstance(error, CompareError):
            raise
        raise CompareError(f"{ref.path}: {error}") from None


def metric_rows(ref: RunRef, split: str, metric: str) -> List[Tuple[int, int, int]]:
    """Per-sentence counts of ``metric``; a clear error where the scorer does not count it for this data
    (CLAS over relations that are not UD's: :mod:`mlparse.tasks.dependency_protocol`)."""
    rows = run_statistics(ref, split)
    if metric not in rows:
        raise CompareError(f"{ref.label}: {metric.upper()} is not scored on this data (it is defined over UD "
                           f"relations, and {ref.gold(split)} has others); compare {', '.join(rows)} instead")
    return rows[metric]


def check_split(refs: Sequence[RunRef], split: str) -> None:
    """A clear error for a run that was not scored on ``split`` (an external run scored on dev only, say): the
    splits it has, and the split the runs share, if any (its gold and predictions of ``split`` do not exist)."""
    scored = [[name for name in ("dev", "test") if getattr(ref.results, name, None) is not None] for ref in refs]
    for ref, splits in zip(refs, scored):
        if split in splits:
            continue
        has = f"it was scored on {' and '.join(splits)} only" if splits else "it has no scores"
        common = [name for name in ("dev", "test") if all(name in other for other in scored)]
        way = f"; compare on {common[0]}: --split {common[0]}" if common else "; the runs given share no scored split"
        raise CompareError(f"{ref.label} ({ref.path}) has no {split} split: {has}{way}")


def repeated_runs(refs: Sequence[RunRef]) -> List[str]:
    """A note for each run given again (the same directory): compared with itself, it differs by nothing."""
    notes = []
    seen: Dict[Path, RunRef] = {}
    for ref in refs:
        key = ref.path.resolve()
        if key in seen:
            notes.append(f"{ref.label} is given twice ({ref.path}): a run compared with itself differs by nothing "
                         "(delta 0, p = 1)")
        seen.setdefault(key, ref)
    return notes


def check_same_gold(refs: Sequence[RunRef], split: str) -> None:
    """A clear error unless every run's gold file of ``split`` has the same sha256."""
    first = refs[0].gold_sha256(split)
    for ref in refs[1:]:
        other = ref.gold_sha256(split)
        if other != first:
            raise CompareError(f"{ref.label} and {refs[0].label} were not scored on the same gold {split} file: "
                               f"{ref.gold(split)} (sha256 {other[:12]}…) differs from {refs[0].gold(split)} "
                               f"(sha256 {first[:12]}…)")


def _metric_for(refs: Sequence[RunRef], metric: Optional[str]) -> str:
    tasks = {ref.task for ref in refs}
    if len(tasks) > 1:
        raise CompareError(f"cannot compare runs of different tasks ({', '.join(sorted(tasks))})")
    task = tasks.pop()
    from mlparse.tasks import task_class

    chosen = metric or str(task_class(task).metric)
    if metric_task(chosen) != task:
        raise CompareError(f"--metric {chosen} is not a {task} metric")
    return chosen


def _group_scores(refs: Sequence[RunRef], split: str, metric: str) -> List[float]:
    out = []
    for ref in refs:
        scores = ref.results.test if split == "test" else ref.results.dev
        value = getattr(scores, {"lr": "recall", "lp": "precision"}.get(metric, metric), None) if scores else None
        if isinstance(value, (int, float)):
            out.append(float(value))
    return out


def compare(refs: Sequence[RunRef], options: CompareOptions) -> List[Comparison]:
    """Every run against the first (Holm-Bonferroni adjusted when there are more than two)."""
    if len(refs) < 2:
        raise CompareError("give at least two runs to compare")
    if options.method not in METHODS:
        raise CompareError(f"unknown method {options.method!r}; methods: {', '.join(METHODS)}")
    metric = _metric_for(refs, options.metric)
    check_split(refs, options.split)
    check_same_gold(refs, options.split)
    stats: List[SentenceStats] = [stats_from_rows(metric, metric_rows(ref, options.split, metric)) for ref in refs]
    test = METHODS[options.method]
    results = [test(stats[0], other, options.samples, options.seed) for other in stats[1:]]
    adjusted = holm([r.p_value for r in results]) if len(results) > 1 else [None] * len(results)
    groups_a = group_runs(refs[0], options.runs_dir)
    out = []
    for ref, result, p_holm in zip(refs[1:], results, adjusted):
        groups_b = group_runs(ref, options.runs_dir)
        groups = None
        same_group = {r.path.resolve() for r in groups_a} == {r.path.resolve() for r in groups_b}
        if (len(groups_a) > 1 or len(groups_b) > 1) and not same_group:
            groups = compare_groups(_group_scores(groups_a, options.split, metric),
                                    _group_scores(groups_b, options.split, metric), options.seed,
                                    options.aso_iterations)
        out.append(Comparison(refs[0].label, ref.label, options.split, metric, result, p_holm, groups))
    return out
