"""The report's significance marks: leaderboard cells of systems significantly worse than their column's best system.

A system is a configuration with all its complete seeds (:mod:`mlparse.run_index.systems`), whichever rows the
report shows (one per configuration, or one per seed with ``--select all-seeds``).  In every language column the
best system is the one with the highest mean; every other system of the column is tested against it with
:func:`mlparse.compare.group_significance.group_test`, every seed of both: the seed means, by a t-test whose variance
holds the seeds' spread and the test sentences' (a paired bootstrap, :data:`SAMPLES` samples, :data:`SEED`), together
with the exact permutation test over seeds (the larger p; a single run against a group counts as one more seed, under
the same rule); two single runs (external systems, say) by the paired randomization test, which sees no seed
variance.  The p-values of one column are Holm-corrected, and a cell is marked when its
system's corrected p-value is below :data:`ALPHA` and it is worse.  Seeds of one system are never tested against
each other: rows of the best system carry no mark.

A system is left untested (``Cell.significance`` None) when one of its runs has no predictions of the split, was
scored on another gold file than the best system, or its gold file has changed since it was scored
(:mod:`mlparse.compare.gold`; the report says which file, with both checksums, unless ``rescore``); published rows
have no predictions and are never tested.  :func:`legend_lines` says, under each leaderboard, which tests were made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from mlparse.compare import ALPHA  # the level (re-exported: mlparse.compare.marks.ALPHA)

#: The test behind a mark.
SAMPLES = 10_000
SEED = 12345
#: The mark (renderers print the legend under a leaderboard that has tested cells).
MARK = "▾"

#: Leaderboard metric -> the metric of mlparse.compare.statistics.
_METRICS = {"f1": "f1", "recall": "lr", "precision": "lp", "uas": "uas", "las": "las", "clas": "clas", "mlas": "mlas",
            "blex": "blex"}


@dataclass
class MarkOutcome:
    """What marking the leaderboards did: how many cells were tested, and what the reader should know that belongs to
    no single run (a package that cannot be imported).  What belongs to a run (its gold file refused, or not
    checkable) goes to that run's ``warnings`` and ``notes``."""

    tested: int = 0
    warnings: List[str] = field(default_factory=list)


class _RunStats:
    """Per-sentence counts of runs, read once, with the gold checks of :mod:`mlparse.compare.gold`."""

    def __init__(self, split: str, rescore: bool, records: Sequence[Any]) -> None:
        self.split, self.rescore = split, rescore
        self._records = {Path(record.run_dir): record for record in records}
        self._cache: Dict[Tuple[Path, str], Optional[Tuple[str, Any]]] = {}

    def _tell(self, run_dir: Path, kind: str, message: str) -> None:
        record = self._records.get(Path(run_dir))
        if record is not None and message not in getattr(record, kind):
            getattr(record, kind).append(message)

    def get(self, run_dir: Path, metric: str) -> Optional[Tuple[str, Any]]:
        """(gold sha256, SentenceStats) of a run, or None when it cannot be tested."""
        from mlparse.compare.comparison import metric_rows
        from mlparse.compare.runs import CompareError, load_ref
        from mlparse.compare.statistics import stats_from_rows

        key = (Path(run_dir), metric)
        if key not in self._cache:
            self._cache[key] = None
            try:
                ref = load_ref(run_dir)
                if not ref.pred(self.split).is_file():
                    return None
                status = ref.gold_status(self.split, self.rescore)
                refusal, note = status.refusal(), status.note()
                if refusal is not None:
                    self._tell(run_dir, "warnings", f"significance marks: {refusal}; its system is not tested")
                    return None
                if note is not None:
                    self._tell(run_dir, "notes", f"significance marks: {note}")
                self._cache[key] = (status.current, stats_from_rows(metric, metric_rows(ref, self.split, metric)))
            except (CompareError, OSError, ValueError, KeyError):
                pass
        return self._cache[key]


def _system_stats(runs: Sequence[Any], metric: str, reader: _RunStats) -> Optional[Tuple[str, List[Any]]]:
    """(gold sha256, every run's SentenceStats) of a system; None unless every run can be tested on one gold file."""
    found = [reader.get(run.run_dir, metric) for run in runs]
    if not found or any(item is None for item in found):
        return None
    golds = {item[0] for item in found}  # type: ignore[index]
    if len(golds) > 1:
        return None
    return golds.pop(), [item[1] for item in found]  # type: ignore[index]


def mark_leaderboards(boards: Sequence[Any], records: Sequence[Any], split: str, samples: int = SAMPLES,
                      seed: int = SEED, rescore: bool = False) -> MarkOutcome:
    """Set ``Cell.significance`` (the Holm-corrected p-value against the column's best system), ``Cell.worse`` and
    ``Cell.significance_test`` on every tested cell of ``boards`` (see the module text).  ``records``: the report's
    runs, each run id once."""
    from mlparse.compare.group_significance import MissingPackage, group_test
    from mlparse.compare.resampling import holm
    from mlparse.run_index.systems import index_systems, system_of_runs

    outcome = MarkOutcome()
    systems = system_of_runs(index_systems(records))
    reader = _RunStats(split, rescore, records)
    for board in boards:
        metric = _METRICS.get(board.metric)
        if metric is None:
            continue
        for language in board.languages:
            cells = [row.cells[language] for row in board.measured_rows() if language in row.cells]
            cells = [cell for cell in cells if cell.state is None and cell.value is not None and cell.run in systems]
            members: Dict[str, Tuple[Any, List[Any]]] = {}  # system name -> (system, its cells)
            for cell in cells:
                system = systems[cell.run]
                members.setdefault(f"{system.recipe}\0{system.key}", (system, []))[1].append(cell)
            tested = {}
            for key, (system, _) in members.items():
                found = _system_stats(system.runs, metric, reader)
                if found is not None:
                    tested[key] = found
            if len(tested) < 2:
                continue
            means = {key: sum(s.corpus_score() for s in stats) / len(stats) for key, (_, stats) in tested.items()}
            best = max(means, key=lambda key: (means[key], key))
            others = [key for key in tested if key != best and tested[key][0] == tested[best][0]]
            try:
                results = [group_test(tested[best][1], tested[key][1], samples, seed) for key in others]
            except MissingPackage as error:
                if str(error) not in outcome.warnings:
                    outcome.warnings.append(f"significance marks: {error}")
                continue
            for key, result, p_holm in zip(others, results, holm([r.p_value for r in results])):
                for cell in members[key][1]:
                    cell.significance = p_holm
                    cell.worse = p_holm < ALPHA and result.delta < 0
                    cell.significance_test = result.kind
                    cell.significance_runs = [result.runs_a, result.runs_b]
                    cell.significance_tests = len(others)
                    outcome.tested += 1
    return outcome


def legend_lines(board: Any) -> List[str]:
    """The legend under a leaderboard when any of its cells was tested: the mark, the tests made, the samples, the
    correction, the level, and the smallest p-value the permutation test over seeds can give for the numbers of
    runs tested (computed, :func:`mlparse.compare.seed_permutation.floors_text`)."""
    from mlparse.compare.group_significance import GROUPS, RUN_AGAINST_GROUP, SINGLE_RUNS
    from mlparse.compare.seed_permutation import floors_text

    tested = [cell for row in board.rows for cell in row.cells.values()
              if getattr(cell, "significance", None) is not None]
    kinds = {getattr(cell, "significance_test", None) for cell in tested}
    kinds.discard(None)
    if not kinds:
        return []
    tests = []
    if GROUPS in kinds:
        tests.append("systems with several seeds: every seed of both, the larger p-value of a t-test on the seed "
                     f"means (its variance the seeds' (Welch) plus the test sentences' (paired bootstrap, {SAMPLES:,} "
                     "samples)) and of the exact permutation test over seeds")
    if RUN_AGAINST_GROUP in kinds:
        tests.append("a single run against a system with several seeds: the same two tests and the same rule (the "
                     "larger p), the run taken as one more seed of the group (test sentences' variance from "
                     f"{SAMPLES:,} paired bootstrap samples)")
    if SINGLE_RUNS in kinds:
        tests.append(f"two single runs: the paired randomization test over sentences ({SAMPLES:,} shuffles), which "
                     "sees no seed variance")
    sizes = [tuple(cell.significance_runs) for cell in tested
             if getattr(cell, "significance_test", None) in (GROUPS, RUN_AGAINST_GROUP)
             and getattr(cell, "significance_runs", None)]
    floors = f"; {floors_text(sizes, ALPHA)}" if sizes else ""
    return [f"{MARK} worse than the column's best system (highest mean) at p < {ALPHA} after Holm's correction over "
            f"the column's tests; " + "; ".join(tests) + floors + ". Seeds of one system are never tested against "
            "each other; systems without predictions of every run, scored on other gold or whose gold file changed, "
            "and published rows, are not tested"] + unmarkable_lines(board)


def unmarkable_lines(board: Any) -> List[str]:
    """A line naming the columns of ``board`` where no mark can appear with the seeds they have: every test of the
    column is one with seeds (its p is at least the permutation test's floor,
    :func:`mlparse.compare.seed_permutation.permutation_floor`), and Holm's correction over the column's tests
    takes even the smallest floor to ``ALPHA`` or above (3 seeds a system: 0.1, 0.2 over two tests); with the
    fewest seeds a system that can go below it.  Empty when every tested column could carry a mark."""
    from mlparse.compare.group_significance import GROUPS, RUN_AGAINST_GROUP
    from mlparse.compare.seed_permutation import unreachable_text

    found: Dict[str, List[str]] = {}
    for language in board.languages:
        tested = [row.cells[language] for row in board.rows if language in row.cells
                  and getattr(row.cells[language], "significance", None) is not None]
        if not tested or any(getattr(cell, "significance_test", None) not in (GROUPS, RUN_AGAINST_GROUP)
                             or not getattr(cell, "significance_runs", None) for cell in tested):
            continue  # untested, or a test over sentences (two single runs), which has no such floor
        counts = [getattr(cell, "significance_tests", None) for cell in tested]
        tests = max((count for count in counts if count), default=len(tested))
        why = unreachable_text([tuple(cell.significance_runs) for cell in tested], tests, ALPHA)
        if why is not None:
            found.setdefault(why, []).append(language)
    parts = [f"{', '.join(languages)}: {why}" for why, languages in found.items()]
    return [f"No {MARK} can appear with these seeds in " + "; in ".join(parts)] if parts else []
