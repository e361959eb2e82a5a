"""The training loop: batches, gradient accumulation, schedule, dev checks, checkpoints, resume, DDP.

The trainer names no parser and no metric: it talks to the parser interface
(:mod:`mlparse.models.base`) and to the task (:mod:`mlparse.tasks`).

One *update* processes ``train.batch_size`` sentences (250 in the paper),
split into sub-batches under ``train.subbatch_tokens`` (token-equivalents of
the memory cost model, :mod:`mlparse.models.memory`) whose gradients are
accumulated (the loss is normalised by the whole batch, so the update does
not depend on how it was split).  The dev score (the task's main metric: F1 of the
evalb port for constituency, LAS of depeval for dependency) is computed
``train.evals_per_epoch`` times per epoch; the full training state goes to
``checkpoints/last.pt`` after every check and, when the check is the best so far, to
``checkpoints/best.pt`` as well (a copy made after last.pt), both written atomically as plain
data (:mod:`mlparse.train.checkpoint`); :mod:`mlparse.train.resume` picks the file to resume from.

Under DistributedDataParallel each rank takes every ``world``-th sentence of a
batch (3 + 2 sentences of a batch of 5 over two ranks: every rank scales its
summed loss by ``world / len(batch)`` and DDP averages the gradients, which
gives the batch mean whatever the shares); a rank left without a sentence (a
last batch smaller than ``world``) still joins the gradient all-reduce with a
zero-weighted loss, so every batch is trained on as in one process.  Only
rank 0 evaluates and writes, and broadcasts the dev score so that all ranks
keep the same schedule and stop together.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import torch
import torch.distributed as dist
from torch import nn

from mlparse.config import RecipeConfig
from mlparse.data.batching import epoch_batches, pack_by_tokens, pack_least_work
from mlparse.models.base import Parser
from mlparse.tasks.base import EvalOutcome, Task
from mlparse.train import checkpoint
from mlparse.train.cpu_bf16 import apply_cpu_bf16
from mlparse.train.training_clock import TrainingClock
from mlparse.train.compile import compile_encoder, compiled_graphs, uncompile_encoder
from mlparse.train.compile_runtime import BudgetAlarm, BudgetReached, raise_recompile_limit, use_persistent_cache
from mlparse.train.cpu_share import ThreadGovernor
from mlparse.train.graph_step import GraphStep, graph_step_for
from mlparse.train.resume import ResumeError, plan_resume
from mlparse.train.environment import versions
from mlparse.train.mixed_precision import UpdateAutocast
from mlparse.train.overlap import HostWorker
from mlparse.train.prediction import predict_in_batches, resolve_decoder
from mlparse.train.run_plan import DistInfo  # this process among the run's (DDP)
from mlparse.train.schedule import WarmupPlateauSchedule
from mlparse.train.train_state import Reporter, StepInfo, TrainState, normalized_log_entry  # noqa: F401 (importers')
from mlparse.train.update_setup import bf16_autocast, make_adam, subbatch_budgets, subbatching_of  # noqa: F401
from mlparse.train.weight_average import TRAINING_WEIGHTS, WeightAverage

__all__ = ["ResumeError", "Trainer", "TrainState"]


class Trainer:
    """Trains ``model`` on ``train`` with dev checks on ``dev``; writes ``checkpoints.best`` and ``checkpoints.last``."""

    def __init__(
        self,
        config: RecipeConfig,
        model: Parser,
        task: Task,
        train: Any,
        train_golds: Sequence[Any],
        dev: Any,
        checkpoints: checkpoint.CheckpointFiles,
        device: torch.device,
        dist_info: DistInfo = DistInfo(),
        reporter: Optional[Reporter] = None,
        max_minutes: Optional[float] = None,
        on_log: Optional[Callable[[List[Dict[str, Any]]], None]] = None,
        deadline: Optional[float] = None,
        clock_started: Optional[float] = None,
    ) -> None:
        """``max_minutes``: the bound on training time (None: ``train.max_minutes``).  ``deadline`` (a
        ``time.monotonic()`` value; None: none): the time by which training must have ended, its last dev check
        and model included (a jack-knifing run's budget in all, :mod:`mlparse.train.run_budget`).  Both follow
        :mod:`mlparse.budget_rule`: the clock starts at ``clock_started`` (``time.monotonic()`` when the run began
        to read its training data; None: when :meth:`fit` starts) and the last check ends inside the bound."""
        self.config = config
        self.model = model
        self.task = task
        self.train_sentences = task.inputs(train)
        self.train_golds = list(train_golds)
        self.train_lengths = [task.length(e) for e in train.examples]
        self.dev = dev
        dev_inputs = task.inputs(dev)
        self.dev_inputs = dev_inputs[: config.eval.max_sentences] if config.eval.max_sentences else dev_inputs
        self.dev_lengths = [task.length(e) for e in dev.examples[: len(self.dev_inputs)]]
        self.checkpoints = checkpoints
        self.device = device
        self.dist = dist_info
        self.reporter = reporter or Reporter()
        self.max_minutes = max_minutes if max_minutes is not None else config.train.max_minutes
        self.clock_started = clock_started
        #: when training must stop for its time bound, from the times measured (mlparse.budget_rule)
        self.clock = TrainingClock(self.max_minutes, deadline, len(self.dev_inputs))
        self._epoch_cache: Optional[Tuple[int, List[List[int]]]] = None  # (epoch, its batches): _batches_of
        self.on_log = on_log
        self.decoder = resolve_decoder(config, device)
        self.train_cost = model.memory_cost(training=True, decoder=self.decoder)
        self.train_budget, self.eval_budget = subbatch_budgets(config, model, device, self.decoder)
        self.subbatching = subbatching_of(config.train.subbatching, device, model.trains_on_real_positions(device))
        t = config.train
        self.state = TrainState()
        self.network: nn.Module = model
        if dist_info.active:
            self.network = nn.parallel.DistributedDataParallel(
                model, device_ids=[device.index] if device.type == "cuda" else None)
        self.optimizer = make_adam(model.optimizer_groups(config), t.adam_betas, t.adam_eps, device)
        patience_checks = int(round(t.lr_decay_patience_epochs * t.evals_per_epoch))
        self.schedule = WarmupPlateauSchedule(t.lr, t.warmup_steps, patience_checks, t.lr_decay_factor)
        self.stop_checks = int(round(t.patience_epochs * t.evals_per_epoch))
        self.autocast = bf16_autocast(device, t.bf16, warn=dist_info.is_main)
        self.precision = UpdateAutocast(device.type, self.autocast)  # one autocast block per update
        model.training_setup(config, self.decoder)
        cpu_bf16_note = apply_cpu_bf16(model, t.cpu_bf16, device)
        if cpu_bf16_note and dist_info.is_main:
            self.reporter.on_note(cpu_bf16_note)
        #: train.step: graph with train.compile on: the whole forward and loss as one graph (mlparse/train/graph_step.py)
        self.graph_step: Optional[GraphStep] = None
        if t.compile != "off":  # graphs kept across runs; a limit above the length buckets (no silent eager fallback)
            use_persistent_cache()
            raise_recompile_limit(config.model.max_len)
        if t.step == "graph" and t.compile == "off" and device.type == "cpu" and dist_info.is_main:
            self.reporter.on_note(GRAPH_STEP_UNCOMPILED_NOTE)
        if t.step == "graph" and not dist_info.active:
            self.graph_step, why = graph_step_for(model, config, device)
            if dist_info.is_main and t.compile != "off":
                self.reporter.on_note(f"train.step: graph: {why}")
        # None for train.compile: off, or when the whole step is compiled
        self.compiled = compile_encoder(model, t.compile, device) if self.graph_step is None else None
        #: stops an update that the time budget ends inside (a graph compiling): only with compilation on, one process
        self.alarm: Optional[BudgetAlarm] = BudgetAlarm() \
            if (self.compiled is not None or self.graph_step is not None) and not dist_info.active else None
        self.compile_seconds = 0.0  # wall time of the updates that compiled a graph (results.json)
        self.update_compiled = False  # whether the last update compiled a graph (_timed_update)
        #: the moving average of the weights that dev checks and checkpoints use (train.ema_decay; None: off)
        self.average = WeightAverage(model, t.ema_decay) if t.ema_decay > 0 else None
        #: adapts torch's threads to what other processes leave free (set by the runner; None: fixed threads)
        self.thread_governor: Optional[ThreadGovernor] = None

    # -- checkpoints ---------------------------------------------------------
    def checkpoint_payload(self) -> Dict[str, Any]:
        """The full training state as plain data (the checkpoint format of :mod:`mlparse.train.checkpoint`)."""
        weights = self.model.state_dict()
        # with train.ema_decay, "model" (what evaluation and export load) holds the average, TRAINING_WEIGHTS the rest
        trained = {} if self.average is None else {TRAINING_WEIGHTS: weights}
        return {
            "spec": {**self.model.spec(), "versions": {k: str(v) for k, v in versions().items()}},
            "model": weights if self.average is None else self.average.averaged_state(weights),
            "optimizer": self.optimizer.state_dict(), "schedule": self.schedule.state_dict(),
            "state": asdict(self.state), "rng": checkpoint.rng_state(), "recipe_hash": self.config.hash(),
            "recipe": self.config.to_dict(), **trained,
        }

    def save_checkpoints(self, best: bool) -> None:
        """Write ``last.pt``; when this check is the best so far, ``best.pt`` becomes a copy of it (a hard link).

        ``last.pt`` goes first: a run killed between the two writes leaves a ``last.pt`` whose state
        says its own check is the best, and :meth:`resume` rewrites ``best.pt`` from it, so the log,
        the schedule and the final scores come out as in an uninterrupted run.
        """
        if not self.dist.is_main:
            return
        payload = self.checkpoint_payload()
        checkpoint.save(payload, self.checkpoints.last)
        if best:
            checkpoint.save_copy(self.checkpoints.last, self.checkpoints.best, payload)

    def resume(self, trust: bool = False, warn: Optional[checkpoint.Warn] = None) -> bool:
        """Continue from the newest good checkpoint (see :mod:`mlparse.train.resume`); returns whether there was one.

        ``trust`` reads checkpoints that need full unpickling (``--trust-checkpoint``), after ``warn``.
        """
        plan = plan_resume(self.checkpoints, trust=trust, warn=warn if self.dist.is_main else (lambda message: None))
        if plan is None:
            return False
        saved, source = plan.data, plan.source
        differs = self.model.resume_mismatch(saved["spec"])
        if differs is not None:
            raise ResumeError(f"cannot resume from {source}: the checkpoint and the training data disagree "
                              f"on the {differs} (were the data prepared again?); --fresh starts the run over")
        self.model.load_state_dict(saved.get(TRAINING_WEIGHTS, saved["model"]))
        if self.average is not None:
            self.average.load(saved["model"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.schedule.load_state_dict(saved["schedule"])
        self.state = TrainState.from_dict(saved["state"])
        if self.state.done and self.state.stop_reason == "max_minutes" and self._budget_extended():
            self.state.done, self.state.stop_reason = False, ""  # stopped by a smaller time budget: train on
            self.state.stopped_at_budget = None
        if plan.legacy_best is not None:  # a format-1 best.pt written just before a lost last.pt: the best we know
            step, dev_score = plan.legacy_best
            if dev_score > self.state.best_score:
                self.state.best_score, self.state.best_step = dev_score, step
        if self.dist.is_main:
            for note in plan.notes:
                self.reporter.on_note(note)
            if plan.repair_best:
                checkpoint.save_copy(source, self.checkpoints.best, saved)
        if self.dist.active and not self.dist.is_main:
            checkpoint.seed_everything(self.config.train.seed + 7919 * self.dist.rank + self.state.step)
        else:
            checkpoint.set_rng_state(saved["rng"])
        return True

    # -- one update ----------------------------------------------------------
    def train_step(self, batch: Sequence[int]) -> float:
        """One optimizer update over the sentences ``batch`` (indices); returns the mean loss of this rank's sentences."""
        t = self.config.train
        mine = list(batch)[self.dist.rank::self.dist.world]
        scale = self.dist.world / len(batch)  # DDP averages over ranks: the result is the batch mean
        if not mine:  # fewer sentences than ranks: join the all-reduce with a zero gradient
            mine, scale = list(batch)[:1], 0.0
        groups = self.subbatches(mine)
        self.network.train()
        self.optimizer.zero_grad(set_to_none=True)
        total = torch.zeros((), dtype=torch.float32, device=self.device)  # summed on the device, read once below
        # the next sub-batch's inputs and targets are made while this one runs; weights cast to bf16 once
        with HostWorker(t.overlap) as worker, self.precision as precision:
            for k, (inputs, targets) in enumerate(worker.ahead(self._inputs, groups)):
                sync = k == len(groups) - 1
                context = self.network.no_sync() if (self.dist.active and not sync) else _null_context()
                with context:
                    with precision.forward():
                        out = self.network(inputs, targets) if self.graph_step is None else self.graph_step(inputs, targets)
                    with precision.backward():
                        (out.loss * scale).backward()
                total += out.loss.detach().float()
        with self.alarm.shielded() if self.alarm is not None else _null_context():  # whole, or not at all
            return self._apply_update(batch, total, mine, scale)

    def _apply_update(self, batch: Sequence[int], total: torch.Tensor, mine: Sequence[int], scale: float) -> float:
        """Clip, the optimizer step and the state's counts of :meth:`train_step` (shielded from the budget alarm)."""
        t = self.config.train
        if t.clip_grad_norm:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), t.clip_grad_norm)
        self.state.step += 1
        for group in self.optimizer.param_groups:  # each group's own base rate and warm-up, the plateau decays shared
            group["lr"] = self.schedule.lr_of(self.state.step, group.get("base_lr", t.lr),
                                              group.get("warmup_steps", t.warmup_steps))
        self.optimizer.step()
        if self.average is not None:
            self.average.update(self.state.step)
        self.state.train_sentences += len(batch)
        self.state.train_tokens += sum(self.train_lengths[i] for i in batch)
        return float(total) / len(mine) if scale else 0.0  # the update's one wait for the device

    def subbatches(self, sentences: Sequence[int]) -> List[List[int]]:
        """The sub-batches of one update's ``sentences`` (indices) under the training budget, cut as
        ``train.subbatching`` says (:func:`subbatching_of`): the fewest that fit, or the least padded work plus
        ``train.subbatch_overhead`` a sub-batch. The update is the same either way (the loss is summed over the
        sentences and normalised by the whole batch); only how much padding the network computes differs."""
        if self.subbatching == "least_work":
            return pack_least_work(self.train_lengths, self.train_budget, self.train_cost, indices=sentences,
                                   overhead=self.config.train.subbatch_overhead)
        return pack_by_tokens(self.train_lengths, self.train_budget, self.train_cost, indices=sentences)

    def _inputs(self, group: Sequence[int]) -> tuple:
        """``(batch, targets)`` of the training sentences ``group`` on the device: the parser's ``make_batch``
        and ``make_targets`` (run in the overlap worker, ahead of the sub-batch that needs them)."""
        batch = self.model.make_batch([self.train_sentences[i] for i in group])
        return batch, self.model.make_targets([self.train_golds[i] for i in group], batch)

    # -- evaluation ----------------------------------------------------------
    def evaluate_dev(self) -> EvalOutcome:
        """The task's scores of the parser's predictions on dev (its first ``eval.max_sentences``), with the averaged
        weights when ``train.ema_decay`` keeps an average."""
        with self.average.swapped_in() if self.average is not None else _null_context():
            predicted = predict_in_batches(self.model, self.dev_inputs, self.dev_lengths, self.eval_budget,
                                           self.decoder, self.config.train.overlap)
        return self.task.score(self.dev, predicted, self.config)

    def _check(self, epoch_float: float) -> tuple:
        """Dev check on rank 0, broadcast to the others; returns (score, improved, decayed)."""
        score = float("nan")
        if self.dist.is_main:
            score = self.task.main_score(self.evaluate_dev().scores)
        if self.dist.active:
            box = [score]
            dist.broadcast_object_list(box, src=0)
            score = float(box[0])
        if math.isnan(score):
            score = 0.0
        improved = score > self.state.best_score
        self.state.checks += 1
        if improved:
            self.state.best_score, self.state.best_step, self.state.checks_since_best = score, self.state.step, 0
        else:
            self.state.checks_since_best += 1
        decayed = self.schedule.observe(score, self.state.step)
        self.state.log.append({
            "step": self.state.step, "epoch": round(epoch_float, 4), "dev_score": score, "metric": self.task.metric,
            "lr": self.schedule.lr(self.state.step), "train_loss": self.state.recent_loss,
            "elapsed_seconds": round(self.state.training_seconds, 3), "best": improved,
            "subbatch_tokens": {"train": self.train_budget, "eval": self.eval_budget},
        })
        if self.stop_checks > 0 and self.state.checks_since_best >= self.stop_checks:
            self.state.done, self.state.stop_reason = True, "patience"
        patience_updates = self.config.train.patience_updates
        if patience_updates is not None and self.state.step - self.state.best_step >= patience_updates:
            self.state.done, self.state.stop_reason = True, "patience"  # the best check is patience_updates old
        return score, improved, decayed

    # -- the loop ------------------------------------------------------------
    def fit(self) -> TrainState:
        t = self.config.train
        # the budget's clock (mlparse.budget_rule): from when the run began to read its data, start-up included
        session_start = self.clock_started if self.clock_started is not None else time.monotonic()
        base_seconds = self.state.training_seconds
        last_check_step = self.state.step if self.state.log else -1
        window_start, window_sentences, window_tokens = time.monotonic(), 0, 0
        final_saved = False  # the last check saved the state in which training ended
        while not self.state.done:
            if self.state.epoch >= t.max_epochs:
                self.state.done, self.state.stop_reason = True, "max_epochs"
                break
            if t.max_updates is not None and self.state.step >= t.max_updates:
                self.state.done, self.state.stop_reason = True, "max_updates"
                break
            batches = self._batches_of(self.state.epoch)
            evals = max(1, min(t.evals_per_epoch, len(batches)))
            check_at = {max(0, round((k + 1) * len(batches) / evals) - 1) for k in range(evals)}
            index = self.state.batch_in_epoch
            if index >= len(batches):
                self.state.epoch, self.state.batch_in_epoch = self.state.epoch + 1, 0
                continue
            update_start, step_before = time.monotonic(), self.state.step
            if self.clock.startup_seconds is None:
                self.clock.startup_seconds = update_start - session_start
            try:
                self.state.recent_loss = self._timed_update(batches[index], base_seconds, session_start)
            except BudgetReached:
                if self.state.step == step_before:  # inside the update, before its optimizer step: dropped
                    self._stop_inside_update(update_start, base_seconds, session_start)
                    break
                # else at the end of its (shielded) optimizer step: the update stands, the budget check below stops
            if not self.update_compiled:  # a compiling update's minutes say nothing of the next update or dev check
                self.clock.note_update(time.monotonic() - update_start, len(batches[index]))
            if self.thread_governor is not None:
                self.thread_governor.after_update()
            window_sentences += len(batches[index])
            window_tokens += sum(self.train_lengths[i] for i in batches[index])
            self.state.batch_in_epoch = index + 1
            epoch_float = self.state.epoch + self.state.batch_in_epoch / len(batches)
            if self.state.batch_in_epoch >= len(batches):
                self.state.epoch, self.state.batch_in_epoch = self.state.epoch + 1, 0
            self.state.training_seconds = base_seconds + (time.monotonic() - session_start)
            out_of_time = self._out_of_time(check_due=index in check_at)
            at_max_updates = t.max_updates is not None and self.state.step >= t.max_updates
            elapsed = max(1e-9, time.monotonic() - window_start)
            info = StepInfo(self.state.step, epoch_float, self.state.recent_loss, self.schedule.lr(self.state.step),
                            window_sentences / elapsed, window_tokens / elapsed, None,
                            self.state.best_score if self.state.log else None, self.task.metric_label)
            self.reporter.on_step(info)
            if index in check_at or out_of_time or at_max_updates:
                check_start = time.monotonic()
                score, improved, decayed = self._check(epoch_float)
                last_check_step = self.state.step
                if out_of_time and not self.state.done:
                    self.state.done, self.state.stop_reason = True, "max_minutes"
                    self.state.stopped_at_budget = self.max_minutes
                if at_max_updates and not self.state.done:
                    self.state.done, self.state.stop_reason = True, "max_updates"
                if self.state.epoch >= t.max_epochs and not self.state.done:
                    self.state.done, self.state.stop_reason = True, "max_epochs"
                self.state.training_seconds = base_seconds + (time.monotonic() - session_start)
                save_start = time.monotonic()
                self.save_checkpoints(best=improved)
                final_saved = self.state.done
                self.clock.save_seconds = time.monotonic() - save_start
                self.clock.last_model_seconds = base_seconds + (time.monotonic() - session_start)
                if self.dist.is_main and self.on_log is not None:
                    self.on_log(self.state.log)
                self.clock.note_check(time.monotonic() - check_start)
                info.dev_score, info.best_score = score, self.state.best_score
                self.reporter.on_eval(info, improved, decayed)
                window_start, window_sentences, window_tokens = time.monotonic(), 0, 0
        if not final_saved:  # else the check that ended training saved the final state: the clock stops there
            improved = False
            if self.state.step != last_check_step and self.state.step > 0 and not self.state.log:
                improved = self._check(float(self.state.epoch))[1]
            self.save_checkpoints(best=improved)
            self.clock.last_model_seconds = base_seconds + (time.monotonic() - session_start)
            if self.dist.is_main and self.on_log is not None:
                self.on_log(self.state.log)
        return self.state

    def _timed_update(self, batch: Sequence[int], base_seconds: float, session_start: float) -> float:
        """:meth:`train_step`, with the budget alarm armed for what is left of the budget when compiling (the
        alarm's :class:`BudgetReached` comes through); the wall time of updates that compiled a graph is added up,
        and such an update is marked (:attr:`update_compiled`) so that the clock does not predict the next update or
        dev check from it."""
        graphs = compiled_graphs() if self.alarm is not None else 0
        started = time.monotonic()
        left = self.clock.alarm_seconds(base_seconds + (started - session_start), started) \
            if self.alarm is not None else None
        try:
            with self.alarm.armed(left) if self.alarm is not None else _null_context():
                return self.train_step(batch)
        finally:
            self.update_compiled = self.alarm is not None and compiled_graphs() != graphs
            if self.update_compiled:
                self.compile_seconds += time.monotonic() - started

    def _stop_inside_update(self, update_start: float, base_seconds: float, session_start: float) -> None:
        """The budget ended inside an update, before its optimizer step: the update is dropped, the run stops at its
        budget, a compiled model parses eagerly from here (no new graph for the last check) and a note says so."""
        self.optimizer.zero_grad(set_to_none=True)
        self.state.training_seconds = base_seconds + (time.monotonic() - session_start)
        self.state.done, self.state.stop_reason = True, "max_minutes"
        self.state.stopped_at_budget = self.max_minutes
        uncompile_encoder(self.model)
        self.graph_step = None
        self.reporter.on_note(
            f"the time budget ended inside update {self.state.step + 1}, {time.monotonic() - update_start:.0f} s into it; "
            f"the update was dropped ({self.state.step} made; updates that compiled graphs took "
            f"{self.compile_seconds:.0f} s, {compiled_graphs()} graphs so far): with train.compile on, the first update "
            "of every length bucket compiles a graph, on a CPU for minutes; use train.compile: off for short budgets")

    def _batches_of(self, epoch: int) -> List[List[int]]:
        """The batches of ``epoch`` (:func:`~mlparse.data.batching.epoch_batches`), made once per epoch: remade at
        every update, the shuffle (and the buckets' sorting) of EWT took 8-11 ms of a 100 ms tagger update."""
        if self._epoch_cache is None or self._epoch_cache[0] != epoch:
            t = self.config.train
            lengths = self.train_lengths if t.batch_order == "buckets" else None
            self._epoch_cache = (epoch, epoch_batches(len(self.train_sentences), t.batch_size, t.seed, epoch, lengths))
        return self._epoch_cache[1]

    def _budget_extended(self) -> bool:
        """Does this trainer's budget go past the one that stopped the resumed state?"""
        return self.clock.extends(self.state.stopped_at_budget, self.state.training_seconds)

    def _past_budget(self, check_due: bool = False) -> bool:
        """Must training stop now so that its last dev check and model end inside the time budget and before the
        deadline? (:meth:`TrainingClock.must_stop`; ``check_due``: a scheduled dev check comes now.)"""
        return self.clock.must_stop(self.state.training_seconds, check_due)

    def _out_of_time(self, check_due: bool = False) -> bool:
        """Must training stop for its time bound? Under DDP rank 0 decides for everybody (clocks differ; checks
        must not)."""
        if not self.clock.bounded:
            return False
        late = self._past_budget(check_due)
        if self.dist.active:
            box = [late]
            dist.broadcast_object_list(box, src=0)
            late = bool(box[0])
        return late


#: The note of ``train.step: graph`` without ``train.compile`` on a CPU.
GRAPH_STEP_UNCOMPILED_NOTE = ("train.step: graph without train.compile decodes the loss on the device eagerly: on a CPU "
                              "that is slower than train.step: eager (the demo: 112 against 227 sentences/s, "
                              "docs/gpu.md); it pays only compiled, on a GPU")


class _null_context:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None
