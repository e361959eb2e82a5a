"""``mlparse score``: any parser's predictions scored like a trained run, written as an external run directory.

The predictions are scored by the task a trained run on that data uses (:mod:`mlparse.tasks`): the evalb
port in strict mode with the catalog's parameter file for the family and language (or ``--evalb-params``),
or depeval under the chosen convention.  Bracketed trees are read as mlparse's own
(:mod:`mlparse.compare.external_trees`): another parser's root wrapper (``(S1 …)``, ``(ROOT …)``, ``( …)``)
is replaced by mlparse's ``TOP`` root, and a gold file that is not a prepared split is normalized as
``mlparse prepare`` would; both are said in the run's notes.  NAME is any display name; the run directory
``<runs-dir>/<folder>/<id>/`` takes its folder from it (:func:`folder_name`) and holds ``results.json``
(``"model": {"kind": "external", "name": NAME}``, scores in the keys of a trained run, the gold file's path
and sha256 under ``gold``), the predictions as ``<split>.pred.trees`` / ``.conllu``, the scorer's report,
the normalized gold file when there is one (``<split>.gold.trees``, what ``gold`` then names) and
:data:`~mlparse.compare.runs.EXTERNAL_FILE`.  Every check runs before anything is written: a different
sentence count, different words or an unreadable tree is an error naming file and line, and CoNLL-U
files (gold and predictions) also pass the checks of depeval's reader, which ``mlparse depeval`` and
``mlparse analyze errors`` read them with (:func:`check_as_depeval_reads`).  Without ``--task`` the task is
inferred (:func:`infer_task`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from mlparse.compare.external_trees import read_gold_trees, read_predicted_trees
from mlparse.compare.runs import EXTERNAL_FILE, CompareError, scoring_recipe, sha256_of
from mlparse.tasks.treebank import TreeSplit

#: ``FAMILY/LANGUAGE:SPLIT``, a prepared split.
_SPEC = re.compile(r"^(?P<family>[^/:\s]+)/(?P<language>[^/:\s]+):(?P<split>[A-Za-z0-9_-]+)$")
#: Characters a run folder keeps from the display name (any other run of characters becomes ``-``).
_FOLDER_CUT = re.compile(r"[^\w.+-]+")


@dataclass(frozen=True)
class GoldSpec:
    path: Path
    split: str
    family: str
    language: str


def parse_gold(gold: str, task: str, data_root: Path = Path("data")) -> GoldSpec:
    """``FAMILY/LANGUAGE:SPLIT`` (a prepared split under ``data_root``) or a gold file path."""
    match = _SPEC.match(gold)
    if match and not Path(gold).exists():
        from mlparse.tasks import task_class

        suffix = task_class(task).suffix
        path = data_root / match["family"] / match["language"] / f"{match['split']}{suffix}"
        if not path.is_file():
            raise CompareError(f"{gold}: no prepared split {path} (run `mlparse prepare {match['family']}` first)")
        return GoldSpec(path, match["split"], match["family"], match["language"])
    path = Path(gold)
    if not path.is_file():
        raise CompareError(f"{gold}: neither a gold file nor FAMILY/LANGUAGE:SPLIT")
    split = path.stem if path.stem in ("train", "dev", "test") else "test"
    parts = path.resolve().parts
    family, language = (parts[-3], parts[-2]) if len(parts) >= 3 else ("file", path.stem)
    return GoldSpec(path, split, family, language)


def infer_task(pred: Path, gold: str, data_root: Path = Path("data")) -> str:
    """The task when ``--task`` is left out: dependency for a ``.conllu`` prediction or gold file; else the task
    of the one split prepared for ``FAMILY/LANGUAGE:SPLIT`` (a UD treebank has only ``<split>.conllu``); else
    dependency when the predictions read as CoNLL-U (a comment or a word line first), constituency otherwise."""
    if pred.suffix == ".conllu" or gold.endswith(".conllu"):
        return "dependency"
    match = _SPEC.match(gold)
    if match and not Path(gold).exists():
        from mlparse.tasks import task_class

        folder = data_root / match["family"] / match["language"]
        prepared = [task for task in ("constituency", "dependency")
                    if (folder / f"{match['split']}{task_class(task).suffix}").is_file()]
        if len(prepared) == 1:
            return prepared[0]
    from mlparse.trees.dependency import looks_like_conllu

    try:
        with open(pred, encoding="utf-8", errors="replace") as handle:
            start = handle.read(4096)
    except OSError:
        return "constituency"  # reading it again later names the error
    return "dependency" if looks_like_conllu(start) else "constituency"


def check_as_depeval_reads(path: Path) -> None:
    """The checks ``mlparse depeval`` and ``mlparse analyze errors`` make when they read the CoNLL-U file
    ``path`` (the CoNLL 2018 script's rules), as a :class:`CompareError` naming its line: made before anything
    is written, so that every run ``mlparse score`` writes reads back in both."""
    import depeval

    from mlparse.compare.breakdowns.compute import located

    if path.read_bytes()[:3] == b"\xef\xbb\xbf":
        raise CompareError(f"{path}:1: the file starts with a UTF-8 byte-order mark, which depeval (as the CoNLL "
                           "2018 script) reads as part of the first line and refuses: save it without one; "
                           "nothing written")
    try:
        depeval.read_file(path)
    except depeval.DepevalError as error:
        raise CompareError(f"{located(error)}; nothing written") from None


def folder_name(name: str) -> str:
    """The run folder of a display name: ``Stanza 1.5`` -> ``Stanza-1.5``, ``Berkeley (2006)`` ->
    ``Berkeley-2006``; a :class:`CompareError` for a name with nothing to make a folder of."""
    folder = _FOLDER_CUT.sub("-", name.strip()).strip("-.")
    if not folder:
        raise CompareError(f"--name {name!r}: give a name with at least one letter or digit (it also names a folder)")
    return folder


def _check_words(pred: Path, gold: Path, pred_words: List[List[str]], gold_words: List[List[str]],
                 pred_lines: List[int], gold_lines: List[int]) -> None:
    if len(pred_words) != len(gold_words):
        where = pred_lines[len(gold_words)] if len(pred_words) > len(gold_words) else (pred_lines[-1] if pred_lines else 1)
        raise CompareError(f"{pred}:{where}: {len(pred_words)} sentences, but the gold file {gold} has "
                           f"{len(gold_words)}; nothing written")
    for k, (p, g) in enumerate(zip(pred_words, gold_words)):
        if list(p) != list(g):
            first = next((i for i, (a, b) in enumerate(zip(p, g)) if a != b), min(len(p), len(g)))
            raise CompareError(f"{pred}:{pred_lines[k]}: sentence {k + 1} has other words than the gold sentence at "
                               f"{gold}:{gold_lines[k]} ({len(p)} vs {len(g)} words; first difference at word "
                               f"{first + 1}: {p[first] if first < len(p) else '(none)'!r} vs "
                               f"{g[first] if first < len(g) else '(none)'!r}); nothing written")


def _check_heads(pred: Path, sentences: Sequence[Any]) -> None:
    """A clear error naming the prediction file's line of the first word whose HEAD breaks its sentence's tree
    (missing, outside the sentence, a second root, a cycle): depeval would name a line of its own text."""
    from mlparse.trees.dependency import head_problem

    for number, sentence in enumerate(sentences, start=1):
        problem = head_problem(sentence)
        if problem is not None:
            word, reason = problem
            raise CompareError(f"{pred}:{sentence.line + sentence.word_lines[word - 1]}: sentence {number} "
                               f"(from line {sentence.line}): {reason}; nothing written")


def _trees_text(trees: Sequence[Any]) -> str:
    """Trees as a file of one bracketed tree per line (each checked to read back the same)."""
    import io

    from mlparse.trees.writer import write_trees_to

    buffer = io.StringIO()
    write_trees_to(buffer, trees)
    return buffer.getvalue()


@dataclass(frozen=True)
class ScoredPredictions:
    """A prediction file read, checked against its gold split and scored (nothing written yet)."""

    outcome: Any  # the task's scoring outcome: scores, report, protocol
    prediction: Any  # what the run directory keeps: the file's bytes (CoNLL-U, as given) or the trees' text
    notes: List[str]  # what was done to the predictions before scoring (root wrappers, tags put back)
    predicted_tags: bool  # trees whose POS tags differ from the gold ones (scored as predicted tags)
    config: Any  # the scoring recipe


def scored_predictions(pred: Path, gold_path: Path, gold_split: Any, task: str, family: str, language: str,
                       split: str, evalb_params: Optional[str] = None, dependency_scoring: str = "conll18",
                       placeholder_tags: Optional[str] = None) -> ScoredPredictions:
    """Read ``pred``, check it against ``gold_split`` (read from ``gold_path``: sentence count, words, well-formed
    dependency trees, what depeval's reader refuses) and score it as a trained run on that data is scored, as a
    :class:`CompareError` naming file and line for anything wrong.  ``placeholder_tags``: a tag that a parser
    given no tags passed through; trees whose tags are all that one get the gold tags back (said in the notes)."""
    from mlparse.tasks import DataError, task_for

    runner = task_for(task)
    notes: List[str] = []
    predicted_tags = False
    try:
        if runner.scorer == "depeval":  # CoNLL-U predictions; else bracketed trees
            from mlparse.trees.dependency import ConlluError, DependencyPrediction, read_conllu

            try:
                document = read_conllu(pred)
            except ConlluError as error:
                raise CompareError(str(error)) from None
            sentences = document.sentences
            _check_words(pred, gold_path, [list(s.words) for s in sentences], [list(s.words) for s in gold_split.examples],
                         [s.line for s in sentences], gold_split.lines or [])
            _check_heads(pred, sentences)
            check_as_depeval_reads(pred)  # what analyze errors and depeval refuse (a byte-order mark, no last blank line)
            predictions: List[Any] = [DependencyPrediction([int(h) for h in s.heads], list(s.deprels)) for s in sentences]
        else:
            predicted = read_predicted_trees(pred)
            predictions, lines = predicted.trees, predicted.lines
            notes += predicted.notes()
            _check_words(pred, gold_path, [t.words() for t in predictions], [t.words() for t in gold_split.trees],
                         lines, gold_split.lines or [])
            if placeholder_tags is not None and predictions and all(
                    tag == placeholder_tags for tree in predictions for tag in tree.tags()):
                _put_back_gold_tags(predictions, gold_split.trees)
                notes.append(f"the parser read no tags and passed its placeholder {placeholder_tags} through: its trees "
                             "were scored with the gold tags put back, as mlparse's parsers without a tagging head are")
            predicted_tags = any(p.tags() != g.tags() for p, g in zip(predictions, gold_split.trees))
        config = scoring_recipe(task, family, language, {split: str(gold_path)}, evalb_params, dependency_scoring,
                                predicted_tags)
        outcome = runner.score(gold_split, predictions, config)
        prediction: Any = pred.read_bytes() if not runner.writes_trees else _trees_text(predictions)  # bytes: as given
    except (DataError, ValueError) as error:
        if isinstance(error, CompareError):
            raise
        raise CompareError(f"{pred}: {error}; nothing written") from None
    return ScoredPredictions(outcome, prediction, notes, predicted_tags, config)


def _put_back_gold_tags(predictions: Sequence[Any], golds: Sequence[Any]) -> None:
    for tree, gold in zip(predictions, golds):
        for leaf, tag in zip(tree.leaves(), gold.tags()):
            leaf.tag = tag


@dataclass(frozen=True)
class ScoredExternal:
    run_dir: Path
    results: Any  # RunResults
    notes: List[str]  # what was done to the input before scoring (root wrappers removed, the gold normalized)
    line: str = ""  # the scorer's figures as `mlparse score` prints them (the metrics that apply to the data)


def score_external(pred: Path, gold: str, name: str, runs_dir: Path, task: Optional[str] = None,
                   evalb_params: Optional[str] = None, dependency_scoring: str = "conll18",
                   data_root: Path = Path("data"), family: Optional[str] = None,
                   language: Optional[str] = None) -> ScoredExternal:
    """Score ``pred`` against ``gold`` and write the external run (see the module text).  ``family`` and
    ``language`` (the report's data set and column) default to the gold split's, or a gold file's two parent
    folders."""
    import mlparse.version
    from mlparse.io_utils import atomic_write_bytes, atomic_write_json, atomic_write_text
    from mlparse.results import COMPLETE, RunResults
    from mlparse.run_dir import RunDir
    from mlparse.tasks import DataError, task_for
    from mlparse.train.environment import now_iso

    name = " ".join(name.split())  # one line: no tabs, newlines or runs of spaces in a display name
    folder = folder_name(name)
    pred = Path(pred)
    if pred.is_dir():
        inside = sorted(pred.glob("*.pred.*"))
        raise CompareError(f"{pred} is a folder, not a prediction file: give the file of predictions (bracketed "
                           f"trees or CoNLL-U){f', such as {inside[0]}' if inside else ''}")
    if not pred.is_file():
        raise CompareError(f"{pred}: no such prediction file")
    task = task or infer_task(pred, gold, data_root)
    spec = parse_gold(gold, task, data_root)
    if family or language:
        spec = GoldSpec(spec.path, spec.split, family or spec.family, language or spec.language)
    gold_sha = sha256_of(spec.path)
    runner = task_for(task)
    predicted_tags = False
    notes: List[str] = []
    normalized_gold = None
    try:  # the gold file's own errors name it
        if runner.scorer == "depeval":
            check_as_depeval_reads(spec.path)
            gold_split = runner.read_split(spec.path)
        else:
            gold_trees = read_gold_trees(spec.path, spec.family, spec.language)
            gold_split = TreeSplit(path=spec.path, examples=gold_trees.trees, lines=gold_trees.lines)
            notes += gold_trees.notes
            normalized_gold = gold_trees.trees if gold_trees.normalized else None
    except (DataError, ValueError) as error:
        raise CompareError(f"{error}; nothing written") from None
    scored = scored_predictions(pred, spec.path, gold_split, task, spec.family, spec.language, spec.split,
                                evalb_params, dependency_scoring)
    notes += scored.notes
    outcome, prediction, predicted_tags, config = scored.outcome, scored.prediction, scored.predicted_tags, scored.config
    try:  # everything is made before the first file is written: a step that fails leaves nothing behind
        line = runner.scorer_line(outcome.scores)
        gold_copy = _trees_text(normalized_gold) if normalized_gold is not None else None
    except (DataError, ValueError) as error:
        raise CompareError(f"{pred}: {error}; nothing written") from None
    used_params = config.data.evalb_params if runner.scorer == "evalb" else None  # the evalb parameter file it used
    params = used_params if runner.scorer == "evalb" else dependency_scoring
    digest = hashlib.sha256(pred.read_bytes() + gold_sha.encode() + task.encode() + str(params).encode()
                            + name.encode())
    run = RunDir(Path(runs_dir) / folder / f"external-{digest.hexdigest()[:12]}")
    suffix = runner.suffix
    gold_entry: Dict[str, Any] = {"path": str(spec.path.resolve()), "sha256": gold_sha}
    if gold_copy is not None:  # what was scored against: the gold as a prepared split would hold it
        copy = run.gold(spec.split, suffix)
        gold_entry = {"path": str(copy.resolve()), "sha256": hashlib.sha256(gold_copy.encode("utf-8")).hexdigest(),
                      "normalized_from": gold_entry}
    gold_record = {spec.split: gold_entry}
    record = {"name": name, "task": task, "family": spec.family, "language": spec.language, "gold": gold_record,
              "evalb_params": used_params, "dependency_scoring": dependency_scoring,
              "predicted_tags": predicted_tags, "source": str(pred.resolve())}
    stamp = now_iso()
    results = RunResults(mlparse_version=mlparse.version.__version__, status=COMPLETE, recipe=folder,
                         run_id=run.path.name, task=task, model="external", system=name, dataset=spec.family,
                         language=spec.language, started_at=stamp, finished_at=stamp, gold=gold_record,
                         notes=[f"external predictions {pred.name}, scored by mlparse score"] + notes)
    setattr(results, spec.split if spec.split in ("dev", "test") else "test", outcome.scores)
    data = results.to_json_dict()
    data["model"] = {"kind": "external", "name": name}
    run.path.mkdir(parents=True, exist_ok=True)
    if gold_copy is not None:
        atomic_write_text(run.gold(spec.split, suffix), gold_copy)
    if isinstance(prediction, bytes):
        atomic_write_bytes(run.pred(spec.split, suffix), prediction)
    else:
        atomic_write_text(run.pred(spec.split, suffix), prediction)
    atomic_write_text(run.report(spec.split, runner.report_suffix), outcome.report)
    atomic_write_json(run.path / EXTERNAL_FILE, record)
    atomic_write_json(run.results, data)
    return ScoredExternal(run.path, results, notes, line)
