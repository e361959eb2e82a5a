"""``mlparse run`` of a recipe of kind ``external``: another toolkit's parser trained, run and scored as a run.

:mod:`mlparse.run_dispatch` opens the run as every run is opened (:func:`mlparse.train.runner.run_held`: the
lock, the recipe and a ``running`` results.json written, the data prepared, jack-knifed tags made) and hands it
to :func:`run_opened`, then :func:`run_external`, which:

1. writes the peer's input files under the tag protocol into ``RUN_DIR/peer/data`` (:mod:`.peer_files`);
2. finds the peer (``{python}``: :func:`~mlparse.external.commands.peer_python`) and checks its version;
3. runs its training under the run's budget (``--max-minutes``, ``train.max_minutes``, a jack-knifing run's
   parser share): stopped at the budget it is a finished training (the peer keeps its best model), said in
   ``stop_reason``; a training that fails is a failed run quoting the peer's last lines and naming its log;
4. resumes after a kill: a training that finished is not run again; an unfinished one is continued by
   ``external.resume`` when its checkpoint (``external.resume_when``) exists, and restarted otherwise (said);
5. runs its prediction on dev and test (each bounded by ``external.predict_minutes``), checks that every
   sentence came back with its words and a tree, and scores it with evalb or depeval as ``mlparse score`` does;
6. writes ``results.json`` (``status: complete``) last: a failure leaves ``failed`` with the reason, never
   scores of a half-done run.

``RUN_DIR/peer/`` keeps the peer's files: ``data/`` (what it read), ``train.log`` and ``predict.log`` (its
output, one header per command), ``commands.json`` (the commands run) and ``state.json`` (:mod:`.peer_state`: its training's
attempts and seconds, for resuming).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from mlparse.external.commands import PeerMissing, check_setup, expand, peer_python, placeholders, shown, used_placeholders
from mlparse.budget_rule import ClockRecord
from mlparse.external.peer_files import NO_TAG, PeerDataError, PeerFiles, write_peer_files
from mlparse.external.peer_model import ModelVerdict, judge_model
from mlparse.external.peer_state import PeerState, differences, stale, training_conditions
from mlparse.external.process import HEADER, STOPPED, Outcome, run_bounded, tail
from mlparse.external.versions import printable, same_version, treebank_names, version_line
from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.results import COMPLETE, RunResults
from mlparse.train.convergence import PEER_OWN_STOP, convergence_record
from mlparse.train.environment import now_iso
from mlparse.train.run_plan import RunError

#: The peer's folder in a run directory, and what it holds.
PEER_DIR = "peer"
STATE_FILE = "state.json"
COMMANDS_FILE = "commands.json"
TRAIN_LOG = "train.log"
PREDICT_LOG = "predict.log"
DATA_DIR = "data"
#: Seconds the version command may take.
VERSION_SECONDS = 120.0


@dataclass
class OutsideRun:
    """What the runner hands over: the run so far and how long the peer may train."""

    config: Any  # RecipeConfig of kind external
    run_dir: Any  # RunDir
    results: RunResults  # status running, recipe, hashes, hardware already filled
    reporter: Any = None  # on_note(text)
    tags: Optional[Dict[str, List[List[str]]]] = None  # jack-knifed tags of train, dev, test (data.tags: jackknife)
    tags_record: Optional[Dict[str, Any]] = None  # results.json's input_tags for them
    minutes: Optional[float] = None  # the peer's training budget (None: none)
    deadline: Optional[float] = None  # time.monotonic() by which dev and test must be parsed (jack-knifing runs)
    threads: int = 1  # what {threads} stands for
    environ: Dict[str, str] = field(default_factory=lambda: dict(os.environ))

    def note(self, text: str) -> None:
        if self.reporter is not None:
            self.reporter.on_note(text)


def peer_environment(config: Any) -> Dict[str, str]:
    """The environment of the peer's commands: this process's, with the recipe's ``external.environment``."""
    return dict(os.environ, **{k: str(v) for k, v in config.external.environment.items()})


def check_peer(config: Any) -> None:
    """Before anything is prepared or trained: the peer's Python and checkout are given and there
    (:class:`RunError`, one line saying what to install and what to set, otherwise)."""
    try:
        check_setup(config, peer_environment(config))  # its Python ({python}) and its checkout ({repo})
    except PeerMissing as error:
        raise RunError(str(error)) from None


def run_opened(opened: Any) -> RunResults:
    """Run the peer of an opened run (:class:`mlparse.train.runner.OpenedRun`) under the run's budget, deadline and
    threads, the rule every system follows (:mod:`mlparse.budget_rule`)."""
    split = opened.split
    return run_external(outside_run(opened.config, opened.run_dir, opened.results, opened.reporter,
                                    opened.budget_minutes, opened.deadline, opened.threads.threads,
                                    split.tagger_minutes if split is not None else None))


def outside_run(config: Any, run_dir: Any, results: RunResults, reporter: Any, minutes: Optional[float],
                deadline: Optional[float], threads: int, tagger_minutes: Optional[float] = None) -> OutsideRun:
    """What the trainer's runner hands over for a run of ``config``: the run so far, the jack-knifed tags when the
    run has them (made by taggers bounded by ``tagger_minutes``), the peer's training budget ``minutes`` (a
    jack-knifing run's parser share), the run's ``deadline`` and ``threads`` for ``{threads}``."""
    tags = record = None
    if config.data.tags == "jackknife":
        from mlparse.train.jackknife import made_tags

        tagged = made_tags(config, tagger_minutes)
        tags, record = tagged.tags, tagged.input_record(config.tagger.folds)
    return OutsideRun(config=config, run_dir=run_dir, results=results, reporter=reporter, tags=tags, tags_record=record,
                      minutes=minutes, deadline=deadline, threads=threads, environ=peer_environment(config))


def run_external(run: OutsideRun) -> RunResults:
    """Train, run and score the peer of ``run.config`` (see the module text); returns the complete results."""
    config, results = run.config, run.results
    e = config.external
    task = _task(config)
    # absolute, once: the peer works in its folder, so no path it is given may be relative to where mlparse started
    peer = Path(run.run_dir.path).resolve() / PEER_DIR
    notes: List[str] = []
    try:
        gold = {split: task.read_split(config.split_path(split)) for split in ("dev", "test")}
    except ValueError as error:
        raise RunError(str(error)) from None
    from mlparse.train.split_record import data_sizes, gold_record

    results.gold = gold_record(task, config)
    results.data_sizes = data_sizes(config)
    try:
        files = write_peer_files(config, task, peer / DATA_DIR, run.tags)
    except (PeerDataError, ValueError) as error:
        raise RunError(f"the files for {e.system}: {error}") from None
    for name, text in e.files.items():  # the peer's configuration files, as the recipe holds them
        atomic_write_text(peer / name, text)
    results.input_tags = run.tags_record or {"source": config.data.tags}
    notes.append(_inputs_note(config))
    try:
        python = peer_python(e.system, e.python, e.install, run.environ) if "python" in used_placeholders(e) else ""
    except PeerMissing as error:
        raise RunError(str(error)) from None
    installed = _installed_version(run, python, peer)
    if installed is not None:
        results.versions[e.system] = installed
        if e.version and not same_version(e.version, installed):
            notes.append(f"{e.system} {installed} is installed; the recipe was written for {e.version}")
    values = {"python": python, **files.values(), "seed": config.train.seed, "workdir": str(peer),
              "threads": run.threads, **treebank_names(config)}
    state = PeerState.read(peer / STATE_FILE, peer / TRAIN_LOG)
    conditions = training_conditions(config, run.minutes, files)
    if state.trained_under and stale(state, conditions):
        notes.append(f"{e.system}'s earlier training was made under {differences(state.trained_under, conditions)}: "
                     "it trains again from the beginning")
        _clear_peer_files(peer, set(e.files))
        state = PeerState()
    state.trained_under = conditions
    commands: Dict[str, Any] = {"python": python, "train": _earlier_trainings(peer), "predict": {}}
    outcome = _train(run, state, values, peer, commands, notes)
    _check_model(run, values, state, peer, outcome)
    if run.deadline is not None and isinstance(results.budget, dict):  # training ended: parsing is outside the budget
        late = max(0.0, time.monotonic() - run.deadline) / 60.0
        results.budget = dict(results.budget, overrun_minutes=round(late, 3))
    results.training_seconds = round(state.training_seconds, 3)
    results.clock = ClockRecord.measured(run.minutes, state.training_seconds, None, state.last_model_seconds,
                                         run.threads).as_dict()
    results.stop_reason = (f"max_minutes (the peer was stopped at its budget, {state.how})" if state.stopped
                           else PEER_OWN_STOP)
    if results.convergence is not None:  # --until-converged: the peer's rule, met unless something stopped it
        results.convergence = convergence_record(config, results.stop_reason, None, state.training_seconds)
    predicted_seconds, sentences = 0.0, 0
    scored = {}
    for split in ("dev", "test"):  # both predicted and scored before anything is written or recorded
        seconds, scores, report, prediction = _predict_and_score(run, split, files, values, peer, gold[split],
                                                                 commands, notes)
        predicted_seconds += seconds
        sentences += len(gold[split].examples)
        scored[split] = (scores, report, prediction)
    for split, (scores, report, prediction) in scored.items():
        _write_prediction(run.run_dir, task, split, prediction)
        atomic_write_text(run.run_dir.report(split, task.report_suffix), report.report)
        setattr(results, split, scores)
        results.record_dependency_scoring(report.protocol)
    results.parse_sentences_per_second = round(sentences / max(predicted_seconds, 1e-9), 2)
    notes.append(f"parse speed: {e.system}'s prediction commands over dev and test, its start-up and model loading "
                 "included")
    atomic_write_json(peer / COMMANDS_FILE, commands)
    results.external = {"system": e.system, "version": e.version, "installed_version": installed,
                        "settings": e.settings, "python": python, "folder": str(peer), "log": str(peer / TRAIN_LOG),
                        "attempts": state.attempts, "stopped_at_budget": state.stopped,
                        "budget_minutes": run.minutes}
    results.notes = list(results.notes or []) + notes
    for note in notes:
        run.note(note)
    results.status, results.finished_at = COMPLETE, now_iso()
    run.run_dir.write_results(results)
    return results


def _earlier_trainings(peer: Path) -> List[str]:
    """The training commands of earlier attempts (``commands.json``), kept across a resume."""
    try:
        earlier = json.loads((peer / COMMANDS_FILE).read_text(encoding="utf-8")).get("train", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [str(command) for command in earlier] if isinstance(earlier, list) else []


def _task(config: Any) -> Any:
    from mlparse.config import kinds

    return kinds.declaration(config.model.kind).make_task(config)


def _inputs_note(config: Any) -> str:
    e, d = config.external, config.data
    tags = {"gold": "the data's tags", "jackknife": "mlparse's jack-knifed tags", "none": "no tags"}[d.tags]
    if not _task(config).writes_trees:  # CoNLL-U columns
        kept = [c.upper() for c in ("lemma", "upos", "xpos", "feats") if c in e.columns and
                not (d.tags == "none" and c in ("upos", "xpos"))]
        return (f"{e.system} read FORM{''.join(' + ' + c for c in kept)} ({tags}); the other columns were _ in its "
                f"input{', and HEAD, DEPREL and DEPS in its prediction input' if e.predict_targets == 'blank' else ''}"
                + ("; external.predict_targets: keep gave it the gold HEAD, DEPREL and DEPS in its prediction input, "
                   "so its scores are not under the protocol" if e.predict_targets == "keep" else ""))
    return f"{e.system} read trees whose preterminals carry {tags}" + (f" ({NO_TAG})" if d.tags == "none" else "")


def _installed_version(run: OutsideRun, python: str, peer: Path) -> Optional[str]:
    """The peer's version, from ``external.version_command`` (None without one); a command that fails means the peer
    is not installed where ``{python}`` points: one line saying what to do."""
    e = run.config.external
    if not e.version_command.strip():
        return None
    log = peer / "version.log"
    words = expand(e.version_command, {"python": python})
    before = log.stat().st_size if log.is_file() else 0  # bytes: the new output is sliced before it is decoded
    try:
        outcome = run_bounded(words, log, VERSION_SECONDS, 5.0, cwd=peer, env=run.environ, title="version")
    except OSError as error:
        raise RunError(f"{e.system}: cannot run {shown(words)} ({error.strerror or error})") from None
    text = log.read_bytes()[before:].decode("utf-8", errors="replace")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith((HEADER, STOPPED, "$ "))]
    if not outcome.ok or not lines:
        how = f"; {e.install}" if e.install else ""
        raise RunError(f"{e.system} is not installed for {python or 'this command'}: {shown(words)} "
                       f"{'failed' if not outcome.ok else 'printed nothing'} ({printable(lines[-1]) if lines else 'no output'})"
                       f"{how}")
    return version_line(lines)


def _budget_seconds(run: OutsideRun, state: PeerState) -> Optional[float]:
    """The seconds the peer may still train: its budget less what earlier attempts trained, and no later than a
    jack-knifing run's deadline (None: no bound); its prediction comes after, and an overrun is recorded."""
    bounds = []
    if run.minutes is not None:
        bounds.append(run.minutes * 60.0 - state.training_seconds)
    if run.deadline is not None:
        bounds.append(run.deadline - time.monotonic())
    return max(0.0, min(bounds)) if bounds else None


def _train(run: OutsideRun, state: PeerState, values: Dict[str, Any], peer: Path, commands: Dict[str, Any],
           notes: List[str]) -> Optional[Outcome]:
    """Run (or resume, or restart) the peer's training unless it finished already (``state`` is kept on disk);
    returns how the attempt ended (None: none was run)."""
    e = run.config.external
    state_file = peer / STATE_FILE
    if state.trained:
        notes.append(f"{e.system}'s training had finished ({state.training_seconds / 60:.1f} minutes); it was not run "
                     "again")
        return None
    template = e.train
    if state.attempts:
        checkpoint = _peer_path(peer, e.resume_when, values) if e.resume_when.strip() else None
        if checkpoint is not None and checkpoint.is_file():
            template = e.resume
            notes.append(f"{e.system}'s training was interrupted after {state.training_seconds / 60:.1f} minutes; "
                         f"it was resumed from its checkpoint {checkpoint} ({e.system}'s own resume)")
        else:
            _clear_peer_files(peer, set(e.files))
            why = "it has no resume command" if not e.resume.strip() else f"its checkpoint {checkpoint} was not written"
            notes.append(f"{e.system}'s training was interrupted after {state.training_seconds / 60:.1f} minutes and was "
                         f"restarted from the beginning ({why}); the budget counts from the restart")
            state.training_seconds = 0.0
    seconds = _budget_seconds(run, state)
    if seconds is not None:
        values = dict(values, minutes=f"{seconds / 60.0:.2f}", seconds=int(seconds))
    elif {"minutes", "seconds"} & set(placeholders(template)):
        raise RunError(f"external.train uses {{minutes}}: {e.system} is told how long it may train, so the run needs "
                       "a time budget (--max-minutes or train.max_minutes)")
    words = expand(template, values)
    commands["train"].append(shown(words))
    atomic_write_json(peer / COMMANDS_FILE, commands)  # on record before it runs: a failed run keeps it too
    state.attempts += 1
    state.write(state_file)
    run.note(f"{e.system} trains{'' if seconds is None else f' for at most {seconds / 60:.1f} minutes'}: "
             f"{shown(words)} (its output: {peer / TRAIN_LOG})")
    started = time.monotonic()
    state.running_since = time.time()  # a SIGKILL of mlparse: the next run counts this attempt up to the log's last write
    state.write(state_file)
    try:
        outcome = run_bounded(words, peer / TRAIN_LOG, seconds, e.stop_seconds, cwd=peer, env=run.environ,
                              title=f"training, attempt {state.attempts}")
    except OSError as error:
        state.running_since = None
        state.write(state_file)
        raise RunError(f"{e.system}: cannot run {shown(words)} ({error.strerror or error})") from None
    except BaseException:  # interrupted (Ctrl-C, SIGTERM): the minutes it trained count against its budget
        state.training_seconds += time.monotonic() - started
        state.running_since = None
        state.write(state_file)
        raise
    state.running_since = None
    before = state.training_seconds  # the clock of the earlier attempts (mlparse.budget_rule: start-up counted in each)
    state.training_seconds += outcome.seconds
    if not outcome.stopped and outcome.returncode != 0:
        state.write(state_file)
        raise RunError(_failure(e.system, "training", outcome, peer / TRAIN_LOG))
    state.trained, state.stopped, state.how = True, outcome.stopped, outcome.how
    state.attempt_started_at, state.clock_before = outcome.started_at, before
    state.write(state_file)
    return outcome


def _peer_path(peer: Path, template: str, values: Dict[str, Any]) -> Path:
    """The file a one-word template names (``model``, ``resume_when``); a relative one is the peer's, in ``peer``
    (its commands run there)."""
    path = Path(" ".join(expand(template, values)))
    return path if path.is_absolute() else peer / path


def _check_model(run: OutsideRun, values: Dict[str, Any], state: PeerState, peer: Path,
                 outcome: Optional[Outcome]) -> None:
    """The model the training leaves (``external.model``) is there, complete (:mod:`.peer_model`) and, where the recipe
    gives one, loads by the peer's own check (``external.model_check``); otherwise the run fails saying why and
    the same command trains again.  Records when the model was written on the budget's clock."""
    e = run.config.external
    if not e.model.strip():
        return
    model = _peer_path(peer, e.model, values)
    verdict = judge_model(model, outcome)
    if verdict.accepted and outcome is not None and e.model_check.strip():
        verdict = _load_check(run, values, peer, verdict)
    if verdict.accepted:
        if outcome is not None and verdict.written_at is not None:  # on the clock: earlier attempts, then this one's
            state.last_model_seconds = state.clock_before + max(0.0, verdict.written_at - state.attempt_started_at)
            state.write(peer / STATE_FILE)
        return
    state.trained = False  # the same command (with more minutes) trains again: resumed where it can be, else restarted
    state.write(peer / STATE_FILE)
    if verdict.reason != "missing":
        raise RunError(f"{e.system}'s model {model} is not used: {verdict.reason}; the same command trains it again "
                       f"(--fresh starts over)")
    if state.stopped:
        raise RunError(f"{e.system}'s training was stopped at its budget after {state.training_seconds / 60:.1f} "
                       f"minutes, before it saved a model ({model}): give it more time (--max-minutes)")
    raise RunError(f"{e.system}'s training ended without the model {model}; {last_lines(peer / TRAIN_LOG)}")


def _load_check(run: OutsideRun, values: Dict[str, Any], peer: Path, verdict: ModelVerdict) -> ModelVerdict:
    """``external.model_check`` run on the model (bounded like a prediction): the verdict stands when it succeeds."""
    e = run.config.external
    words = expand(e.model_check, values)
    try:
        checked = run_bounded(words, peer / TRAIN_LOG, e.predict_minutes * 60.0, e.stop_seconds, cwd=peer,
                              env=run.environ, title="the model's load check")
    except OSError as error:
        raise RunError(f"{e.system}: cannot run {shown(words)} ({error.strerror or error})") from None
    if checked.ok:
        return verdict
    return ModelVerdict(False, f"{e.system}'s own load check ({shown(words)}) "
                               f"{'failed' if not checked.stopped else 'did not end'}; {last_lines(peer / TRAIN_LOG)}",
                        verdict.written_at)


def _clear_peer_files(peer: Path, keep: Any = ()) -> None:
    """A restart: everything the peer wrote in its folder goes (its input data, the recipe's files ``keep``, logs
    and the state stay)."""
    for child in peer.iterdir():
        if child.name in (DATA_DIR, STATE_FILE, TRAIN_LOG, PREDICT_LOG, "version.log") or child.name in keep:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _failure(system: str, what: str, outcome: Outcome, log: Path) -> str:
    ending = (f"was stopped at its bound of {outcome.seconds / 60:.1f} minutes ({outcome.how})" if outcome.stopped
              else f"ended with exit status {outcome.returncode}" if outcome.returncode > 0
              else f"was killed by signal {-outcome.returncode}")
    return f"{system}'s {what} {ending}; {last_lines(log)}"


def last_lines(log: Path) -> str:
    """The peer's last lines in ``log``, quoted (control characters replaced) and the log named; a peer that printed
    nothing is said to have printed nothing (not an empty quote)."""
    last = tail(log)
    if not last.strip():
        return f"it printed nothing (its log: {log})"
    return "its last lines:\n" + "\n".join("  | " + printable(line) for line in last.splitlines()) + f"\nits log: {log}"


def _predict_and_score(run: OutsideRun, split: str, files: PeerFiles, values: Dict[str, Any], peer: Path, gold: Any,
                       commands: Dict[str, Any], notes: List[str]) -> Tuple[float, Any, Any, Any]:
    """The peer's prediction of ``split`` and its scores: (seconds, SplitScores, the task's outcome, predictions)."""
    e, config = run.config.external, run.config
    output = peer / f"{split}.pred{_task(config).suffix}"
    if output.exists():
        output.unlink()  # a prediction left by an earlier attempt is never scored
    words = expand(e.predict, dict(values, input=str(files.predict_inputs[split]), output=str(output)))
    commands["predict"][split] = shown(words)
    atomic_write_json(peer / COMMANDS_FILE, commands)
    run.note(f"{e.system} predicts {split}: {shown(words)}")
    try:
        outcome = run_bounded(words, peer / PREDICT_LOG, e.predict_minutes * 60.0, e.stop_seconds, cwd=peer,
                              env=run.environ, title=f"prediction of {split}")
    except OSError as error:
        raise RunError(f"{e.system}: cannot run {shown(words)} ({error.strerror or error})") from None
    if not outcome.ok:
        raise RunError(_failure(e.system, f"prediction of {split}", outcome, peer / PREDICT_LOG))
    if not output.is_file() or output.stat().st_size == 0:
        raise RunError(f"{e.system}'s prediction of {split} wrote nothing to {output}; {last_lines(peer / PREDICT_LOG)}")
    from mlparse.compare.external import scored_predictions
    from mlparse.compare.runs import CompareError

    try:
        scored = scored_predictions(output, config.split_path(split), gold, e.task, config.data.family,
                                    config.data.language, split, config.data.evalb_params,
                                    config.eval.dependency_scoring, placeholder_tags=NO_TAG if config.data.tags == "none"
                                    else None)
    except CompareError as error:
        raise RunError(f"{e.system}'s prediction of {split}: {error}\nits log: {peer / PREDICT_LOG}") from None
    for note in scored.notes:
        if note not in notes:
            notes.append(note)
    return outcome.seconds, scored.outcome.scores, scored.outcome, scored.prediction


def _write_prediction(run_dir: Any, task: Any, split: str, prediction: Any) -> None:
    from mlparse.io_utils import atomic_write_bytes

    path = run_dir.pred(split, task.suffix)
    if isinstance(prediction, bytes):
        atomic_write_bytes(path, prediction)
    else:
        atomic_write_text(path, prediction)
