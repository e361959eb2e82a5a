"""A whole ``mlparse compare``: each system against the first, where a system is a run or all complete seeds of a
configuration.

The headline test of B against A, the one test that decides, is
:func:`mlparse.compare.group_significance.group_test` over every run of both (the seed means, with the seeds' and the
test sentences' variance, and the exact permutation test over seeds; two single runs: the paired test over
sentences), Holm-corrected when more than one system is compared with A (:meth:`Comparison.verdict`).  Everything
else is a diagnostic, printed apart from it so that nobody picks the most favourable of several tests: the t-test's
and the permutation test's own p-values, and where both have at least two seeds Welch's t-test and ASO over their
run scores (:mod:`mlparse.compare.seed_groups`, Holm-corrected over the systems); on request, the paired test of
every run of B against every run of A (``per_pair``).  Every run's gold file must still be the one
it was scored on (:mod:`mlparse.compare.gold`), and all of them the same file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mlparse.compare.group_significance import SINGLE_RUNS, GroupTest, group_test
from mlparse.compare import ALPHA
from mlparse.compare.resampling import METHODS, TestResult, holm
from mlparse.compare.runs import CompareError, RunRef, SystemRef, sha256_of
from mlparse.compare.seed_groups import DEFAULT_ASO_THRESHOLD, SeedGroupTest, seed_group_tests
from mlparse.compare.statistics import SentenceStats, metric_task, stats_from_rows

#: The seed used when none is given (recorded in every result).
DEFAULT_SEED = 12345
DEFAULT_SAMPLES = 10_000


@dataclass(frozen=True)
class CompareOptions:
    split: str = "test"
    metric: Optional[str] = None  # None: the task's main metric (f1, las)
    method: str = "randomization"  # the paired test between two single runs, and of --per-pair
    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    aso_iterations: int = 1000  # deepsig's bootstrap iterations for ASO
    aso_threshold: float = DEFAULT_ASO_THRESHOLD
    per_pair: bool = False  # also the paired test of every run of B against every run of A
    rescore: bool = False  # score runs whose gold file changed against the file as it is now, instead of refusing


@dataclass(frozen=True)
class PairTest:
    """One run of B against one run of A (``--per-pair``); ``p_holm`` over all pairs of the comparison."""

    a: str
    b: str
    test: TestResult
    p_holm: float

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"a": self.a, "b": self.b, "method": self.test.method, "score_a": round(self.test.score_a, 4),
                               "score_b": round(self.test.score_b, 4), "delta": round(self.test.delta, 4),
                               "p_value": self.test.p_value, "p_holm": self.p_holm}
        if self.test.ci95 is not None:
            out["ci95"] = [round(self.test.ci95[0], 4), round(self.test.ci95[1], 4)]
        return out


@dataclass(frozen=True)
class Comparison:
    """System B against system A on one split and metric (the JSON object of ``--format json``)."""

    a: str
    b: str
    runs_a: List[str]
    runs_b: List[str]
    split: str
    metric: str
    test: GroupTest
    p_holm: Optional[float] = None  # with more than one system compared with A
    seed_groups: Optional[SeedGroupTest] = None  # a diagnostic, when both have at least two runs
    pairs: List[PairTest] = field(default_factory=list)

    @property
    def headline_p(self) -> float:
        """The p-value that decides: Holm-corrected where several systems are compared with A."""
        return self.p_holm if self.p_holm is not None else self.test.p_value

    def verdict(self, alpha: float = ALPHA) -> str:
        """``B better``, ``B worse`` or ``no difference`` at ``alpha``, from the headline test alone."""
        if self.headline_p >= alpha or self.test.delta == 0:
            return "no difference"
        return "B better" if self.test.delta > 0 else "B worse"

    def permutation_floor(self) -> Optional[float]:
        """The smallest p the permutation test over seeds could give these numbers of runs (None: two single runs)."""
        from mlparse.compare.seed_permutation import permutation_floor

        if self.test.kind == SINGLE_RUNS:
            return None
        return permutation_floor(self.test.runs_a, self.test.runs_b, self.test.seed).p

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"a": self.a, "b": self.b, "runs_a": list(self.runs_a), "runs_b": list(self.runs_b),
                               "split": self.split, "metric": self.metric, "test": self.test.kind}
        out.update({key: value for key, value in self.test.to_json().items() if key not in ("kind", "runs_a", "runs_b")})
        out["headline"] = {"test": self.test.method, "p": self.headline_p, "alpha": ALPHA, "verdict": self.verdict(),
                           "permutation_floor": self.permutation_floor()}
        if self.p_holm is not None:
            out["p_holm"] = self.p_holm
        if self.seed_groups is not None:
            out["seed_groups"] = self.seed_groups.to_json()
        if self.pairs:
            out["pairs"] = [pair.to_json() for pair in self.pairs]
        return out


@dataclass(frozen=True)
class CompareResult:
    """Every comparison with the first system, and what the reader should know (gold that cannot be checked or
    was re-scored, single runs that are seeds of one configuration)."""

    comparisons: List[Comparison]
    notes: List[str] = field(default_factory=list)
    options: CompareOptions = CompareOptions()

    def to_json(self) -> Dict[str, Any]:
        o = self.options
        return {"split": o.split, "metric": self.comparisons[0].metric if self.comparisons else o.metric,
                "samples": o.samples, "seed": o.seed, "paired_method": o.method, "aso_threshold": o.aso_threshold,
                "comparisons": [c.to_json() for c in self.comparisons], "notes": list(self.notes)}


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


def scoring_rule(ref: RunRef) -> str:
    """How ``ref`` was scored, in words: the dependency convention (``conll18``, ``ptb``) of a task that has one, the
    evalb parameter file (its name, and its sha256 when it is a file of one's own) of a task that evalb scores."""
    from mlparse.tasks import task_class

    kind = task_class(ref.task)
    parts = []
    if kind.scorer == "evalb":
        params = Path(str(ref.config.data.evalb_params))
        own = f" (sha256 {sha256_of(params)[:12]})" if params.is_file() else ""  # two files named alike may differ
        parts.append(f"evalb parameters {params.name}{own}")
    if kind.has_dependency_convention:
        parts.append(f"dependency scoring {ref.config.eval.dependency_scoring}")
    return ", ".join(parts) or str(kind.scorer)


def check_same_scoring(refs: Sequence[RunRef]) -> None:
    """Refuse, in one line naming both rules, runs scored under different rules: the same predictions scored with
    and without punctuation, or with COLLINS.prm and spmrl.prm, differ by points that no parser earned."""
    first = scoring_rule(refs[0])
    for ref in refs[1:]:
        other = scoring_rule(ref)
        if other != first:
            raise CompareError(f"{ref.label} was scored under {other} and {refs[0].label} under {first}: "
                               "runs compare only under one scoring rule (score both alike: mlparse score)")


def check_unchanged_gold(refs: Sequence[RunRef], split: str, rescore: bool) -> List[str]:
    """Refuse a run whose gold file changed since it was scored (unless ``rescore``); the notes to print."""
    notes = []
    for ref in refs:
        status = ref.gold_status(split, rescore)
        refusal = status.refusal()
        if refusal is not None:
            raise CompareError(refusal)
        note = status.note()
        if note is not None:
            notes.append(note)
    return notes


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


def _seeds_of_one_configuration(systems: Sequence[SystemRef]) -> List[str]:
    """Notes for single runs given as run directories that are seeds of one configuration."""
    from mlparse.run_index.collect import load_run
    from mlparse.run_index.seeds import configuration_key

    keys: Dict[Tuple[str, str], List[str]] = {}
    for system in systems:
        if len(system.runs) == 1 and not system.runs[0].external:
            key = configuration_key(load_run(system.runs[0].path))
            if key is not None:
                keys.setdefault((system.runs[0].results.recipe, key), []).append(system.name)
    return [f"{', '.join(names)} are seeds of one configuration: the paired test over sentences sees the test set's "
            "noise, not the seeds'; compare configurations (recipe names) to test one against another"
            for names in keys.values() if len(names) > 1]


def compare(systems: Sequence[SystemRef], options: CompareOptions) -> CompareResult:
    """Every system against the first (see the module text)."""
    if len(systems) < 2:
        raise CompareError("give at least two runs or systems to compare")
    if options.method not in METHODS:
        raise CompareError(f"unknown method {options.method!r}; methods: {', '.join(METHODS)}")
    refs = [ref for system in systems for ref in system.runs]
    metric = _metric_for(refs, options.metric)
    check_split(refs, options.split)
    notes = check_unchanged_gold(refs, options.split, options.rescore)
    check_same_gold(refs, options.split)
    check_same_scoring(refs)
    stats: Dict[Any, SentenceStats] = {}
    for ref in refs:
        key = ref.path.resolve()
        if key not in stats:
            stats[key] = stats_from_rows(metric, metric_rows(ref, options.split, metric))

    def of(system: SystemRef) -> List[SentenceStats]:
        return [stats[ref.path.resolve()] for ref in system.runs]

    first, others = systems[0], systems[1:]
    tests = [group_test(of(first), of(other), options.samples, options.seed, options.method) for other in others]
    adjusted = holm([t.p_value for t in tests]) if len(tests) > 1 else [None] * len(tests)
    groups = seed_group_tests([(t.scores_a, t.scores_b) for t in tests], options.seed, options.aso_iterations,
                              options.aso_threshold)
    out = []
    for other, test, p_holm, seed_groups in zip(others, tests, adjusted, groups):
        pairs: List[PairTest] = []
        if options.per_pair:
            made = [(ra.label, rb.label, METHODS[options.method](stats[ra.path.resolve()], stats[rb.path.resolve()],
                                                                 options.samples, options.seed))
                    for ra in first.runs for rb in other.runs]
            pairs = [PairTest(a, b, t, p) for (a, b, t), p in zip(made, holm([t.p_value for _, _, t in made]))]
        out.append(Comparison(first.name, other.name, [r.label for r in first.runs], [r.label for r in other.runs],
                              options.split, metric, test, p_holm, seed_groups, pairs))
    return CompareResult(out, notes + repeated_runs(refs) + _seeds_of_one_configuration(systems), options)
