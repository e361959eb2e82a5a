"""One run's training and evaluation, once :mod:`mlparse.train.runner` has opened it: the trainer built (or
resumed), trained under the run's budget with ``log.jsonl`` and ``results.json`` kept current, the best checkpoint
chosen, dev and test parsed and scored, their reports and predictions written, the budget's overrun recorded.
:func:`mlparse.train.runner.train_opened` calls :func:`train_and_evaluate`; nothing else here is public."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import torch
import torch.distributed as dist

from mlparse.budget_rule import ClockRecord
from mlparse.config import RecipeConfig
from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.models.registry import parser_class, parser_from_spec
from mlparse.modules.pretrained_loading import PretrainedError
from mlparse.results import COMPLETE, RunResults
from mlparse.run_dir import RunDir
from mlparse.tasks import DataError, Task
from mlparse.train import checkpoint
from mlparse.train.folds import fold_record
from mlparse.train.jackknife import made_tags as jackknife_tags
from mlparse.train.eval_tags import attach_eval_tags, choose_eval_tags, eval_tags_notes, input_tags_record
from mlparse.train.environment import now_iso
from mlparse.train.run_data import check_lengths, load_splits
from mlparse.train.run_plan import DistInfo, RunError
from mlparse.train.split_record import carved_dev, carved_dev_note, data_sizes, gold_record
from mlparse.train.cpu_share import ThreadGovernor
from mlparse.train.compile_runtime import compile_record
from mlparse.train.convergence import convergence_record
from mlparse.train.threads import ThreadChoice
from mlparse.train.profiling import PROFILE_FILE, UpdateProfiler
from mlparse.train.prediction import predict_in_batches, resolve_decoder
from mlparse.train.run_options import WARMUP_SENTENCES, RunOptions
from mlparse.train.trainer import Reporter, Trainer, TrainState, subbatch_budgets


def train_and_evaluate(config: RecipeConfig, options: RunOptions, run_dir: RunDir, results: RunResults,
                        device: torch.device, info: DistInfo, reporter: Optional[Reporter], budget: Any = None,
                        deadline: Optional[float] = None, threads: Optional[ThreadChoice] = None) -> RunResults:
    """Train and score; ``threads``: the thread choice (one that adapts gets a governor while it trains); ``budget`` (a jack-knifing run's :class:`~mlparse.train.run_budget.BudgetSplit`) bounds the
    parser's training, and ``deadline`` (``time.monotonic()``) is when its training must have ended (its last check
    and model included; parsing dev and test comes after, outside the budget: :mod:`mlparse.budget_rule`)."""
    clock_started = time.monotonic()  # the budget's clock starts as the data are read (mlparse.budget_rule)
    notes: List[str] = []
    task = parser_class(config.model.kind).make_task(config)
    tagged = jackknife_tags(config, budget.tagger_minutes if budget is not None else None) \
        if config.data.tags == "jackknife" else None
    train, dev, test = load_splits(config, task, notes, tagged.tags if tagged is not None else None)
    results.dev_carved, results.data_sizes = carved_dev(config), data_sizes(config)
    results.gold = gold_record(task, config)  # what dev and test are scored against (mlparse compare checks it)
    if results.dev_carved is not None:
        notes.append(carved_dev_note(results.dev_carved))
    eval_tags = choose_eval_tags(config)
    try:
        attach_eval_tags(eval_tags, {"dev": dev, "test": test}, config.biaffine.tag_column)
        for name, split in (("dev", dev), ("test", test)):
            task.check_scorable(split, config, name)
    except DataError as error:
        raise RunError(str(error)) from None
    checkpoint.seed_everything(config.train.seed)
    cls = parser_class(config.model.kind)
    try:
        model = cls.build(config, train.examples).to(device)
    except PretrainedError as error:  # not installed, not found: nothing to do with the examples
        raise RunError(str(error)) from None
    except ValueError as error:  # an example the parser cannot represent: say which one
        raise RunError(task.bad_example(train, error)) from None
    golds = []
    for index, example in enumerate(train.examples):
        try:
            golds.append(model.gold(example))
        except ValueError as error:
            raise RunError(f"{train.where(index)}: {error}") from None
    check_lengths(task, {"train": train, "dev": dev, "test": test}, model.max_words)
    if tagged is not None:
        results.input_tags = tagged.input_record(config.tagger.folds)
        if config.tagger.input_added:
            from mlparse.config.tag_input import ADDED_NOTE

            results.input_tags["input_added"] = True
            notes.append(ADDED_NOTE)
        notes.append(f"the parser reads jack-knifed {tagged.manifest.get('column', '').upper()} tags, in training too "
                     f"({config.tagger.folds} folds; tag accuracy train {tagged.accuracy.get('train')}, dev "
                     f"{tagged.accuracy.get('dev')}, test {tagged.accuracy.get('test')}; {tagged.folder})")
    elif config.data.tags == "none":  # a parser that reads no tags, on purpose: one that may predict them
        results.input_tags = {"source": "none"}
        notes.append("the parser reads no POS tags (data.tags: none)" + (
            "; its tagging head predicts them, scored as tag accuracy" if model.predicts_tags else ""))
    else:
        results.input_tags = input_tags_record(eval_tags.kind, {"dev": dev, "test": test},
                                               config.biaffine.tag_column)
        known = model.vocab.tags.to_list() if eval_tags.files else []  # predicted tags: a parser that reads tags
        notes += eval_tags_notes(eval_tags, {"dev": dev, "test": test}, known, config.task)
    if info.is_main:
        if config.data.folds is not None:
            d = config.data
            atomic_write_json(run_dir.fold, fold_record(str(config.split_path("train")), len(task.read_split(
                config.split_path("train")).examples), d.folds, d.fold, d.folds_by(), d.fold_seed))
        _record_notes(notes, run_dir, results, reporter)
    if info.active:  # different dropout streams per rank; DDP copies rank 0's initial weights
        checkpoint.seed_everything(config.train.seed + 7919 * info.rank)
    max_minutes = budget.parser_minutes if budget is not None and budget.minutes is not None else options.max_minutes
    trainer = Trainer(config, model, task, train, golds, dev, run_dir.checkpoints, device,
                      dist_info=info, reporter=reporter if info.is_main else None, max_minutes=max_minutes,
                      on_log=lambda entries: _progress_update(run_dir, results, entries), deadline=deadline,
                      clock_started=clock_started)
    if trainer.resume(trust=options.trust_checkpoint, warn=options.warn) and info.is_main:
        _progress_update(run_dir, results, trainer.state.log)  # log.jsonl as of the checkpoint resumed from
    profiler = UpdateProfiler(trainer, options.profile, run_dir.path / PROFILE_FILE, device) \
        if options.profile and info.is_main else None
    if threads is not None and threads.adapts and device.type == "cpu":
        trainer.thread_governor = ThreadGovernor(most=threads.most, cores=threads.cores,
                                                 current=torch.get_num_threads())
    state = trainer.fit()
    training_ended = time.monotonic()  # the budget's clock stops with the last model (mlparse.budget_rule)
    results.hardware["subbatching"] = trainer.subbatching  # how batches were cut (train.subbatching resolved)
    if trainer.alarm is not None:  # compiled: graphs, the updates' time that compiled them, the cache they went to
        results.hardware["compile"] = compile_record(trainer.compile_seconds)
    if trainer.thread_governor is not None:  # wall seconds at each thread count, e.g. {"1": 40.2, "2": 260.1}
        results.hardware["torch_threads_seconds"] = trainer.thread_governor.summary()
        torch.set_num_threads(threads.threads if threads is not None else torch.get_num_threads())
    if profiler is not None:
        profiler.finish()  # training ended before the N updates: what was profiled
    if info.active:
        dist.barrier()
    results.training_seconds = round(state.training_seconds, 3)
    results.clock = ClockRecord.measured(max_minutes if max_minutes is not None else config.train.max_minutes,
                                         trainer.clock.last_model_seconds if trainer.clock.last_model_seconds
                                         is not None else state.training_seconds, trainer.clock.startup_seconds,
                                         trainer.clock.last_model_seconds, threads.threads if threads is not None
                                         else torch.get_num_threads()).as_dict()
    results.epochs = round(state.train_sentences / max(1, len(train.examples)), 4)
    results.best_step = state.best_step
    results.stop_reason = state.stop_reason or None
    if results.convergence is not None:
        results.convergence = convergence_record(config, results.stop_reason, results.epochs, results.training_seconds)
    if not info.is_main:
        return results
    best, note = _final_checkpoint(run_dir, device, options, task)
    if best is None:
        raise RunError(f"training made no update, so there is no {run_dir.best} to evaluate ({len(train.examples)} "
                       f"training sentence(s), train.max_epochs={config.train.max_epochs})")
    if note is not None:
        results.best_step = best["state"]["step"]
        _record_notes([note], run_dir, results, reporter)
    final = parser_from_spec(best["spec"]).to(device)
    final.load_state_dict(best["model"])
    decoder = resolve_decoder(config, device)
    eval_budget = subbatch_budgets(config, final, device, decoder)[1]
    warm = task.inputs(dev)[:WARMUP_SENTENCES]  # untimed: the first pass pays for allocation, kernel choice, caches
    predict_in_batches(final, warm, [task.length(e) for e in dev.examples[:len(warm)]], eval_budget, decoder,
                       config.train.overlap)
    parse_seconds, parsed = 0.0, 0
    for split_name, split in (("dev", dev), ("test", test)):
        inputs = task.inputs(split)  # for constituency: the trees' words, with the tags data.eval_tags chose
        start = time.perf_counter()
        predicted = predict_in_batches(final, inputs, [task.length(e) for e in split.examples], eval_budget, decoder,
                                       config.train.overlap)
        parse_seconds += time.perf_counter() - start
        parsed += len(inputs)
        task.write_predictions(run_dir.pred(split_name, task.suffix), split, predicted)
        outcome = task.score(split, predicted, config)
        _write_text(run_dir.report(split_name, task.report_suffix), outcome.report)
        for suffix, report in outcome.extra_reports.items():
            _write_text(run_dir.report(split_name, suffix), report)
        setattr(results, split_name, outcome.scores)
        results.record_dependency_scoring(outcome.protocol)
    results.parse_sentences_per_second = round(parsed / max(parse_seconds, 1e-9), 2)
    if deadline is not None and isinstance(results.budget, dict):
        _record_overrun(results, deadline, training_ended, run_dir, reporter)
    results.status, results.finished_at = COMPLETE, now_iso()
    run_dir.write_results(results)
    return results


def _final_checkpoint(run_dir: RunDir, device: torch.device, options: RunOptions,
                      task: Task) -> Tuple[Optional[Dict[str, Any]], Optional[str]]:
    """The checkpoint to score: ``best.pt``; ``last.pt`` when best.pt is damaged or missing (the note says
    so); (None, None) when training made no update."""
    problem = None
    if run_dir.best.is_file():
        try:
            return checkpoint.load(run_dir.best, map_location=device, trust=options.trust_checkpoint,
                                   warn=options.warn), None
        except checkpoint.UntrustedCheckpoint:
            raise
        except checkpoint.CheckpointError as error:
            if not run_dir.last.is_file():
                raise
            problem = f"{run_dir.best} {error.reason}"
    if not run_dir.last.is_file():
        return None, None
    last = checkpoint.load(run_dir.last, map_location=device, trust=options.trust_checkpoint, warn=options.warn)
    state = last["state"]
    if not state["log"]:
        return None, None
    final = TrainState.from_dict(state)
    metric = f"dev {task.metric_label}"
    return last, (f"{problem or f'{run_dir.best} is missing'}: the final scores are those of {run_dir.last} (step "
                  f"{final.step}, {metric} {final.log[-1]['dev_score']:.2f}), not of the best dev check (step "
                  f"{final.best_step}, {metric} {final.best_score:.2f}), whose weights are lost")


def _record_overrun(results: RunResults, deadline: float, ended: float, run_dir: RunDir,
                    reporter: Optional[Reporter]) -> None:
    """``results.json``'s ``budget.overrun_minutes``: how long after its budget in all (its ``deadline``) a
    jack-knifing run's training ended (``ended``, its last model written; 0 when it ended in time; parsing dev and
    test comes after, outside the budget), with a note when it overran."""
    late = max(0.0, ended - deadline) / 60.0
    results.budget = dict(results.budget or {}, overrun_minutes=round(late, 3))
    if late > 0:
        minutes = (results.budget or {}).get("minutes")
        _record_notes([f"the run's training overran its budget of {minutes:g} minutes by {late:.2f} minutes (what "
                       "came before the parser's training, or its first dev check, took more than was left)"],
                      run_dir, results, reporter)


def _record_notes(notes: List[str], run_dir: RunDir, results: RunResults, reporter: Optional[Reporter]) -> None:
    """Training notes go into ``results.json`` (the report shows them) and to the terminal."""
    if not notes:
        return
    results.notes = list(results.notes or []) + list(notes)
    run_dir.write_results(results)
    for note in notes:
        if reporter is not None:
            reporter.on_note(note)


def _progress_update(run_dir: RunDir, results: RunResults, entries: list) -> None:
    """After each dev check: rewrite log.jsonl, and results.json (still ``running``) with the progress so far."""
    run_dir.write_log(entries)
    if entries:
        last = entries[-1]
        best = max(entries, key=lambda e: e["dev_score"])
        results.training_seconds = last.get("elapsed_seconds")
        results.epochs = last.get("epoch")
        results.best_step = best["step"]
        run_dir.write_results(results)


def _write_text(path: Path, text: str) -> None:
    atomic_write_text(path, text)
