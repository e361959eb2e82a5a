"""``mlparse run``: a recipe → a finished run directory (train, pick the best checkpoint, score dev and test).

Steps: take the run's plan (:class:`~mlparse.train.run_plan.RunPlan`: its run directory, lock, process and
device, resolved once, by ``mlparse run`` or here); resume when the run directory holds a run
(``fresh`` starts over); make sure the prepared splits exist (preparing them
when the source is known); check that the task's scorer (evalb, depeval) can
score dev and test (gold against gold) before any training; build the parser
of ``model.kind`` through the registry (vocabularies from the training
examples); train (:class:`~mlparse.train.trainer.Trainer`); load ``best.pt``,
parse dev and test, write predictions, the scorer's reports and ``results.json``.
``results.json`` says ``running`` from the start and is rewritten atomically.
Process 0 holds the plan's lock (:mod:`mlparse.run_lock`) throughout, so a
second launch of the same run is refused at once.  A failed write (a full disk) stops the run
with :class:`mlparse.io_utils.WriteError`; what was written before stays as it was, and the same
command resumes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist

from mlparse.config import ConfigError, RecipeConfig, kinds
from mlparse.io_utils import atomic_write_text
from mlparse.models.registry import parser_class
from mlparse.results import COMPLETE, FAILED, INTERRUPTED, RUNNING, RunResults
from mlparse.run_dir import RunDir, run_id_for
from mlparse.tasks import DataError
from mlparse.train.eval_tags import choose_eval_tags
from mlparse.train.environment import hardware_info, now_iso, versions
from mlparse.train.run_budget import extends_budget
from mlparse.train.run_data import ensure_prepared, load_splits  # noqa: F401  (load_splits: imported from here by callers)
from mlparse.run_lock import RunLocked, acquire_when_free
from mlparse.train.run_plan import DistInfo, RunError, RunPlan
from mlparse.train.cpu_share import others_since_start
from mlparse.train.convergence import PEER_OWN_STOP, convergence_record
from mlparse.train.denormals import flushing_denormals
from mlparse.train.threads import ThreadChoice, choose_threads, wait_policy
from mlparse.train.run_options import WARMUP_SENTENCES, RunOptions  # noqa: F401  (imported from here by callers)
from mlparse.train.train_run import train_and_evaluate
from mlparse.train.trainer import Reporter




def run_recipe(config: RecipeConfig, options: RunOptions, reporter: Optional[Reporter] = None) -> RunResults:
    """Train and evaluate ``config`` (a parser mlparse trains) in ``options.runs_dir``; returns the final results
    (also in ``results.json``).  A recipe of any kind, another toolkit's included: :func:`mlparse.run_dispatch.run_recipe`.

    The run's plan (run directory, lock, device) is :meth:`RunPlan.for_recipe`'s, for the process the
    environment describes; a caller that holds a plan already (``mlparse run``) calls :func:`run_planned`.
    """
    return run_planned(RunPlan.for_recipe(config, options.runs_dir), options, reporter)


def run_planned(plan: RunPlan, options: RunOptions, reporter: Optional[Reporter] = None) -> RunResults:
    """Train and evaluate ``plan.config`` in ``plan.run_dir`` on ``plan.device``; returns the final results.

    Process 0 holds ``plan.lock`` from start to end; :class:`RunError` when another process holds it.
    ``options.runs_dir`` is where the runs this run needs (jack-knifing taggers) go.  A kind that runs another
    toolkit's parser is not trained here: :mod:`mlparse.run_dispatch` hands it to :mod:`mlparse.external`.
    """
    if kinds.declaration(plan.config.model.kind).runs_outside:
        raise RunError(f"model.kind {plan.config.model.kind} runs another toolkit's parser, which "
                       "mlparse.run_dispatch.run_recipe hands to mlparse.external; mlparse's trainer does not")
    with flushing_denormals():  # before the run's first parallel operation starts torch's thread pool
        return run_held(plan, options, reporter, train_opened)


@dataclass
class OpenedRun:
    """A run opened by :func:`run_held`: its lock held, ``results.json`` written ``running``, its data prepared and
    its jack-knifed tags made; what trains it (:func:`train_opened`, or another toolkit's runner) takes it from
    here.  ``split``: a jack-knifing run's :class:`~mlparse.train.run_budget.BudgetSplit` (None: other runs);
    ``deadline``: ``time.monotonic()`` by which its training must end (None: none); ``threads``: the choice of
    torch threads made at its start, the same rule for every system (:mod:`mlparse.budget_rule`)."""

    config: RecipeConfig
    options: RunOptions
    run_dir: RunDir
    results: RunResults
    device: torch.device
    info: DistInfo
    reporter: Optional[Reporter]
    split: Any
    deadline: Optional[float]
    threads: ThreadChoice

    @property
    def budget_minutes(self) -> Optional[float]:
        """The parser's training budget: a jack-knifing run's parser share, else ``--max-minutes``, else
        ``train.max_minutes`` (None: none)."""
        if self.split is not None and self.split.minutes is not None:
            return self.split.parser_minutes
        return self.options.max_minutes if self.options.max_minutes is not None else self.config.train.max_minutes


def train_opened(run: OpenedRun) -> RunResults:
    """Train and score an opened run of a parser mlparse trains."""
    return train_and_evaluate(run.config, run.options, run.run_dir, run.results, run.device, run.info, run.reporter,
                               run.split, run.deadline, run.threads)


def run_held(plan: RunPlan, options: RunOptions, reporter: Optional[Reporter],
             body: Callable[[OpenedRun], RunResults]) -> RunResults:
    """Open ``plan``'s run with its lock held (process 0), then hand it to ``body``; a failure or an interrupt
    leaves ``results.json`` saying so, whichever ``body`` ran."""
    run_dir, lock = plan.run_dir, plan.lock
    if lock is None:  # ranks other than 0
        return _run_recipe(plan, options, reporter, body)
    run_dir.path.mkdir(parents=True, exist_ok=True)
    try:
        if options.wait_for_lock is not None:  # taken or waited for, with no gap for another process to take it
            acquire_when_free(lock, options.wait_for_lock,
                              reporter.on_note if reporter is not None else (lambda text: None))
        else:
            lock.acquire()
    except RunLocked as error:
        raise RunError(str(error)) from None
    try:
        if lock.note is not None and reporter is not None:
            reporter.on_note(lock.note)
        leftovers = run_dir.remove_leftovers()
        if leftovers and reporter is not None:
            reporter.on_note(f"removed {leftovers} temporary file(s) left in {run_dir.path} by an interrupted write")
        return _run_recipe(plan, options, reporter, body)
    finally:
        lock.release()


def _run_recipe(plan: RunPlan, options: RunOptions, reporter: Optional[Reporter],
                body: Callable[[OpenedRun], RunResults]) -> RunResults:
    config, run_dir, info, device = plan.config, plan.run_dir, plan.dist, plan.device
    started = options.started if options.started is not None else time.monotonic()
    split = budget_split(config, options, device) if config.data.tags == "jackknife" else None
    tags_made = False
    tagger_seconds: Optional[float] = None
    if info.active and config.data.tags == "jackknife" and not dist.is_initialized():
        assert split is not None
        _jackknifed_tags_before_the_processes_meet(plan, options, reporter, split)
        tags_made = info.is_main
        tagger_seconds = time.monotonic() - started
    if info.active and not dist.is_initialized():
        dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
    if device.type == "cuda":
        torch.cuda.set_device(device)
    # DDP workers on one machine's CPU share its cores; a training alone adapts to what other processes leave free
    threads = choose_threads(config.train.num_threads, sharing=info.world if info.active and device.type == "cpu" else None,
                             others=None if info.active else others_since_start())
    torch.set_num_threads(threads.threads)
    if reporter is not None and info.is_main:
        reporter.on_note(f"torch threads: {threads.threads} ({threads.reason}); {wait_policy()}")
    if info.is_main and options.fresh:
        run_dir.clear()  # everything but the lock this process holds
    if info.active:
        dist.barrier()
    previous = run_dir.read_results()
    outside = kinds.declaration(config.model.kind).runs_outside
    finished = previous is not None and previous.status == COMPLETE and not options.fresh
    if finished and options.until_converged and previous.stop_reason in ("patience", PEER_OWN_STOP):
        if previous.convergence is None and info.is_main:  # a peer that ended on its own rule inside a budget run:
            previous.convergence = convergence_record(config, previous.stop_reason, None,  # it had converged
                                                      previous.training_seconds)
            run_dir.write_results(previous)
        return previous  # converged already: its patience ran out, more time would not train it on
    if finished and outside and options.until_converged:
        if reporter is not None and info.is_main:  # a peer cannot go on from a finished training: it starts again
            reporter.on_note(f"this run's peer was stopped at its time budget after "
                             f"{(previous.training_seconds or 0) / 60:.1f} minutes; it trains again from the beginning, "
                             "without a time budget, until its own stopping rule ends it")
    elif finished:
        budget = options.max_minutes if options.max_minutes is not None else config.train.max_minutes
        if not extends_budget(previous, budget) or outside:
            return previous  # (another toolkit's parser is not trained on: its run stands as it finished)
        if reporter is not None and info.is_main:
            reporter.on_note(f"this run stopped at its time budget after {(previous.training_seconds or 0) / 60:.1f} "
                             f"minutes; training on from its last checkpoint "
                             f"({'up to ' + format(budget, 'g') + ' minutes' if budget is not None else 'without a time budget'})")
    eval_tags = choose_eval_tags(config)
    results = RunResults(
        mlparse_version=versions()["mlparse"], status=RUNNING, recipe=config.name, recipe_hash=config.hash(),
        run_id=run_id_for(config), task=config.task, model=config.model.kind,
        system=config.system_name(_described(config, eval_tags.kind)),
        dataset=config.data.family,
        language=config.data.language, hardware=hardware_info(str(device)) | {"processes": info.world, "torch_threads_reason": threads.reason},
        versions=versions(), started_at=(previous.started_at if previous and previous.started_at else now_iso()),
        eval_tags=eval_tags.kind, eval_tag_files=eval_tags.files,
        budget=split.record(tagger_seconds) if split is not None else None,
        max_minutes=_bound_trained_under(previous, options.max_minutes if options.max_minutes is not None
                                         else config.train.max_minutes),
    )
    if options.until_converged:
        results.convergence = convergence_record(config)
    try:
        if info.is_main:
            atomic_write_text(run_dir.recipe, config.to_yaml())
            run_dir.write_results(results)
            ensure_prepared(config)
            if config.data.tags == "jackknife" and not tags_made:
                assert split is not None
                jackknifed_tags(config, options, reporter, device, split)
                tagger_seconds = time.monotonic() - started
                results.budget = split.record(tagger_seconds)
                run_dir.write_results(results)
        if split is not None and split.minutes is not None and tagger_seconds is not None and reporter is not None \
                and info.is_main:
            reporter.on_note(split.after_taggers(tagger_seconds))
        if info.active:
            dist.barrier()
        deadline = started + split.minutes * 60.0 if split is not None and split.minutes is not None else None
        return body(OpenedRun(config, options, run_dir, results, device, info, reporter, split, deadline, threads))
    except BaseException as error:
        if info.is_main and isinstance(error, KeyboardInterrupt):  # never left "running" once its process ends
            results.status = INTERRUPTED
            try:
                run_dir.write_results(results)
            except OSError:
                pass
        elif info.is_main:
            results.status, results.error, results.finished_at = FAILED, str(error) or type(error).__name__, now_iso()
            try:
                run_dir.write_results(results)
            except OSError:  # the disk that stopped the run may refuse this too: results.json keeps its last state
                pass
        raise


def _bound_trained_under(previous: Optional[RunResults], bound: Optional[float]) -> Optional[float]:
    """The bound to record (:attr:`RunResults.max_minutes`): ``bound``, or the larger one that an unfinished
    ``previous`` run had already trained under (its training is not undone by resuming it under less)."""
    before = previous.max_minutes if previous is not None and previous.status != COMPLETE else None
    if bound is not None and isinstance(before, (int, float)) and before > bound:
        return float(before)
    return bound


def _described(config: RecipeConfig, eval_kind: Optional[str]) -> str:
    """The parser's description for the system name: its input tags named, and ``[tag input added]`` when
    ``data.tags: jackknife`` gave a tag input to a parser whose recipe reads none (:mod:`mlparse.config.tag_input`)."""
    from mlparse.config.tag_input import ADDED_LABEL

    jackknife = config.data.tags == "jackknife"
    tags = "jack-knifed" if jackknife and eval_kind else eval_kind
    declared = kinds.declaration(config.model.kind)  # a kind run outside mlparse has no parser class to build
    described = (declared if declared.runs_outside else parser_class(config.model.kind)).describe(config, tags)
    return f"{described} [{ADDED_LABEL}]" if jackknife and config.tagger.input_added else described


def budget_split(config: RecipeConfig, options: RunOptions, device: Any) -> Any:
    """How a jack-knifing run of ``config`` trains on ``device`` (:func:`mlparse.train.run_budget.split_for`): its
    taggers, how many side by side, and how its budget (``--max-minutes``, else ``train.max_minutes``) is shared."""
    from mlparse.train.run_budget import split_for

    minutes = options.max_minutes if options.max_minutes is not None else config.train.max_minutes
    try:
        return split_for(config, minutes, _gpus(device))
    except (ConfigError, DataError) as error:  # the tagger recipe cannot be loaded: said before anything trains
        raise RunError(f"jack-knifed tags: {error}") from None


def _gpus(device: Any) -> int:
    """The GPUs taggers may train on beside each other: every visible one when the parser's device is CUDA."""
    return torch.cuda.device_count() if torch.device(device).type == "cuda" else 0


def _tags_on_disk(config: RecipeConfig, minutes: Optional[float]) -> bool:
    """Are the jack-knifed tags of ``config`` made already (then no tagger trains, and the run says it reuses them
    rather than what it would train)? Their files are only looked for here; reading them is make_tags' work."""
    from mlparse.train import jackknife

    try:
        return jackknife.tags_made(config, minutes)
    except (OSError, DataError):  # a split file that cannot be read: making the tags says what is wrong
        return False


def jackknifed_tags(config: RecipeConfig, options: RunOptions, reporter: Optional[Reporter],
                   device: Any = "cpu", split: Any = None) -> Any:
    """The jack-knifed tags of ``config`` (:mod:`mlparse.train.jackknife`): made by ordinary tagger runs under
    ``options.runs_dir`` (resumed, locked, reused), side by side as ``split`` (a
    :class:`~mlparse.train.run_budget.BudgetSplit`; None: :func:`budget_split`'s) allows and bounded as it says,
    or read when they exist.  A tagger that fails stops this run with the tagger's error."""
    from mlparse.train import jackknife
    from mlparse.train.tagger_pool import train_taggers

    try:  # more folds than sentences: said before the taggers are planned (many folds take a while to plan)
        jackknife.check_folds(config)
    except DataError as error:
        raise RunError(f"jack-knifed tags: {error}") from None
    split = split if split is not None else budget_split(config, options, device)
    if reporter is not None and not _tags_on_disk(config, split.tagger_minutes):
        reporter.on_note(split.describe())  # what this run trains, and how its budget is split

    def run(tagger: RecipeConfig, what: str) -> Tuple[RunResults, Path]:
        # parsers on the same data share their taggers (seeds of a sweep, say): one holding this tagger is waited for
        tagger_options = RunOptions(runs_dir=options.runs_dir, trust_checkpoint=options.trust_checkpoint,
                                    warn=options.warn, max_minutes=tagger.train.max_minutes,
                                    wait_for_lock=f"the {what}")
        # a tagger is a run of one process on this process's device, also when this parser runs as several
        plan = RunPlan.for_recipe(tagger, options.runs_dir, dist=DistInfo(), device=device)
        path = plan.run_dir.path
        note(f"jack-knifing: {what}")
        try:
            with jackknife.torch_threads(torch.get_num_threads()):  # the tagger sets its own; the parser keeps its
                return run_planned(plan, tagger_options, reporter), path
        except RunError as error:
            raise RunError(f"the {what} ({path}) failed: {error}") from None

    def train(taggers: Sequence[RecipeConfig], roles: Sequence[str]) -> List[Tuple[RunResults, Path]]:
        return train_taggers(taggers, roles, options.runs_dir, split.side_by_side, run, _gpus(device),
                             options.trust_checkpoint, note)

    note = (lambda text: reporter.on_note(text)) if reporter is not None else (lambda text: None)
    try:
        return jackknife.make_tags(config, train, note, device, split.tagger_minutes)
    except (jackknife.TaggerFailed, DataError) as error:
        raise RunError(f"jack-knifed tags: {error}") from None


def _jackknifed_tags_before_the_processes_meet(plan: RunPlan, options: RunOptions,
                                               reporter: Optional[Reporter], split: Any) -> None:
    """The jack-knifed tags of a run of several processes, made before their process group exists: process 0
    trains the taggers (runs of one process each), the others wait until the tags are on disk.  Waiting in a
    collective instead would time out while the taggers train (30 minutes with gloo); if process 0 fails,
    the launcher (torchrun) stops the others."""
    from mlparse.train import jackknife

    if plan.dist.is_main:
        ensure_prepared(plan.config)
        jackknifed_tags(plan.config, options, reporter, plan.device, split)
    else:
        jackknife.wait_for_tags(plan.config, split.tagger_minutes)
