"""DistributedDataParallel on the CPU (gloo): one update is the same however its batch is split.

The trainer normalises the loss by the whole batch (``scale = world / len(batch)`` on every rank,
and DDP averages the ranks' gradients), so one update must not depend on how many processes
share the batch, on an uneven share (3 + 2 sentences), or on how each share is cut into
sub-batches.  Two processes are started once with ``torch.multiprocessing`` and run every case;
the single-process cases run here.  Gradients are compared as well as weights: Adam's first step
is close to ``lr * sign(gradient)`` and would hide a gradient that is wrong by a constant factor.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Dict, List, Sequence

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

from mlparse.config import RecipeConfig, load_recipe
from mlparse.data.batching import epoch_batches, pack_by_tokens
from mlparse.models.span_parser import build_parser
from mlparse.train import checkpoint
from mlparse.tasks.treebank import TreeSplit, golds_of, sentence_of
from mlparse.train.run_plan import DistInfo, RunError, RunPlan
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.train.trainer import Trainer
from helpers.run_fixtures import tiny_trees, write_tiny_recipe

WORLD = 2
UNEVEN = [0, 1, 3, 4, 6]  # 5 sentences: 3 + 2 over two processes
EVEN = [0, 1, 3, 4]  # 2 + 2
ONE_GROUP, SMALL_GROUPS = 1000, 11  # token budgets: the whole share in one sub-batch, or one sentence in each

#: name -> (processes, batch, sub-batch token budget)
CASES = {
    "uneven-1p": (1, UNEVEN, ONE_GROUP),
    "uneven-1p-subbatches": (1, UNEVEN, SMALL_GROUPS),
    "uneven-2p": (2, UNEVEN, ONE_GROUP),
    "uneven-2p-subbatches": (2, UNEVEN, SMALL_GROUPS),
    "even-1p": (1, EVEN, ONE_GROUP),
    "even-2p": (2, EVEN, ONE_GROUP),
    "even-2p-subbatches": (2, EVEN, SMALL_GROUPS),
}
#: A whole epoch through Trainer.fit: 7 sentences in batches of 3 give batches of 3, 3 and 1; the
#: last one leaves the second process without a sentence.
EPOCH_SENTENCES, EPOCH_BATCH = 7, 3


def make_config(tmp_path: Path, **train: object) -> RecipeConfig:
    # adam_eps 1e-3: some parameters (the last LayerNorm bias, which cancels in the fencepost
    # differences) have an analytically zero gradient; with eps 1e-9 Adam would turn their float
    # noise, which differs between one and two processes, into full-size steps.
    recipe = write_tiny_recipe(tmp_path, train={"device": "cpu", "adam_eps": 1e-3, "evals_per_epoch": 1, **train})
    return load_recipe(recipe)


def make_trainer(config: RecipeConfig, trees: Sequence, tmp_path: Path, name: str, info: DistInfo) -> Trainer:
    """A trainer built the way the runner builds one (same seed, so every process starts from the same weights)."""
    checkpoint.seed_everything(config.train.seed)
    model = build_parser(config.model, list(trees), config.model.word_min_count, span=config.span)
    split = TreeSplit(tmp_path / "train.trees", list(trees))
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    return Trainer(config, model, ConstituencyTask(), split, golds_of(split.trees, model.labels), split,
                   checkpoint.CheckpointFiles(folder), torch.device("cpu"), dist_info=info)


def one_update(config: RecipeConfig, batch: List[int], tmp_path: Path, name: str, info: DistInfo) -> Dict:
    """Weights and gradients after one update over ``batch``, and this process's mean loss."""
    trainer = make_trainer(config, tiny_trees(), tmp_path, name, info)
    loss = trainer.train_step(batch)
    return {"loss": loss,
            "weights": {k: p.detach().clone() for k, p in trainer.model.named_parameters()},
            "grads": {k: p.grad.detach().clone() for k, p in trainer.model.named_parameters()}}


def one_epoch(config: RecipeConfig, tmp_path: Path, name: str, info: DistInfo) -> Dict:
    trainer = make_trainer(config, tiny_trees()[:EPOCH_SENTENCES], tmp_path, name, info)
    state = trainer.fit()
    return {"step": state.step, "train_sentences": state.train_sentences,
            "weights": {k: p.detach().clone() for k, p in trainer.model.named_parameters()}}


def _worker(rank: int, tmp: str) -> None:
    """One of the two processes: every two-process case, then one epoch; rank 0 saves what it got."""
    tmp_path = Path(tmp)
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"file://{tmp_path / 'rendezvous'}", rank=rank, world_size=WORLD,
                            timeout=datetime.timedelta(seconds=120))
    try:
        info = DistInfo(rank=rank, world=WORLD)
        out = {}
        for name, (processes, batch, budget) in CASES.items():
            if processes == WORLD:
                config = make_config(tmp_path / f"rank{rank}", subbatch_tokens=budget)
                out[name] = one_update(config, batch, tmp_path / f"rank{rank}", name, info)
        config = make_config(tmp_path / f"rank{rank}", batch_size=EPOCH_BATCH, max_epochs=1)
        out["epoch"] = one_epoch(config, tmp_path / f"rank{rank}", "epoch", info)
        if rank == 0:
            torch.save(out, tmp_path / "ddp.pt")
        # Both ranks leave together, as the runner's last barrier makes them: a rank that tears its process
        # group down while the other still talks to it dies in gloo ("terminate called without an active
        # exception", SIGABRT), which failed this test about one run in four.
        dist.barrier()
    finally:
        dist.destroy_process_group()


def close(a: Dict[str, torch.Tensor], b: Dict[str, torch.Tensor]) -> float:
    """Largest difference between two sets of tensors, relative to the largest magnitude in ``a``."""
    scale = max(float(t.abs().max()) for t in a.values())
    return max(float((a[k] - b[k]).abs().max()) for k in a) / scale


def test_one_update_is_the_same_however_the_batch_is_split(tmp_path: Path) -> None:
    torch.set_num_threads(1)
    mp.spawn(_worker, args=(str(tmp_path),), nprocs=WORLD, join=True)
    ddp = torch.load(tmp_path / "ddp.pt")
    single = {name: one_update(make_config(tmp_path / "single", subbatch_tokens=budget), batch, tmp_path / "single",
                               name, DistInfo())
              for name, (processes, batch, budget) in CASES.items() if processes == 1}

    lengths = [len(tree.leaves()) for tree in tiny_trees()]
    # the cases split as they say: sub-batches in the *-subbatches cases, one sub-batch otherwise
    for name, (processes, batch, budget) in CASES.items():
        shares = [batch[rank::processes] for rank in range(processes)]
        groups = [len(pack_by_tokens(lengths, budget, indices=share)) for share in shares]
        assert all(g >= 2 for g in groups) if name.endswith("subbatches") else groups == [1] * processes, (name, groups)

    config = make_config(tmp_path / "check")
    checkpoint.seed_everything(config.train.seed)
    trees = tiny_trees()
    model = build_parser(config.model, trees, config.model.word_min_count, span=config.span)
    initial = {k: p.detach().clone() for k, p in model.named_parameters()}
    for batch_name in ("uneven", "even"):
        reference = single[f"{batch_name}-1p"]
        assert close(initial, reference["weights"]) > 1e-3  # the update moved the weights
        for name in CASES:
            if name.startswith(batch_name + "-") and name != f"{batch_name}-1p":
                other = single.get(name) or ddp[name]
                assert close(reference["grads"], other["grads"]) < 1e-5, name
                assert close(reference["weights"], other["weights"]) < 1e-6, name

    # each process reports the mean loss of its own sentences (at the initial weights): process 0
    # holds 3 of the uneven 5
    def mean_loss(indices: List[int]) -> float:
        chosen = [trees[i] for i in indices]
        with torch.no_grad():
            summed = model.loss([sentence_of(tree) for tree in chosen], golds_of(chosen, model.labels)).loss
        return float(summed) / len(indices)

    assert abs(ddp["uneven-2p"]["loss"] - mean_loss(UNEVEN[0::WORLD])) < 1e-5 * mean_loss(UNEVEN[0::WORLD])
    assert abs(single["uneven-1p"]["loss"] - mean_loss(UNEVEN)) < 1e-5 * mean_loss(UNEVEN)

    # a whole epoch: the last batch (one sentence) leaves process 1 without a sentence; it is trained
    # on all the same, and the weights match one process's
    assert [len(b) for b in epoch_batches(EPOCH_SENTENCES, EPOCH_BATCH, config.train.seed, 0)] == [3, 3, 1]
    alone = one_epoch(make_config(tmp_path / "single", batch_size=EPOCH_BATCH, max_epochs=1), tmp_path / "single",
                      "epoch", DistInfo())
    assert ddp["epoch"]["step"] == alone["step"] == 3
    assert ddp["epoch"]["train_sentences"] == alone["train_sentences"] == EPOCH_SENTENCES
    assert close(alone["weights"], ddp["epoch"]["weights"]) < 1e-5


def test_cpu_processes_do_not_depend_on_the_gpus_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the DDP tests rely on: with train.device=cpu, ``--gpus 2`` means two gloo processes on
    the CPU, also on a machine with one GPU; with ``auto`` it means one process per GPU."""
    from mlparse.cli.run import _check_processes

    cpu = make_config(tmp_path)
    auto = load_recipe(tmp_path / "tiny.yaml", ["train.device=auto"])
    cuda = load_recipe(tmp_path / "tiny.yaml", ["train.device=cuda"])

    def plan(config: RecipeConfig, rank: int = 0) -> RunPlan:  # the launcher's (rank 0), or a process's under torchrun
        return RunPlan.for_recipe(config, tmp_path / "runs", DistInfo(rank=rank, world=2, local_rank=rank,
                                                                     launched=rank > 0))

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    _check_processes(plan(cpu), 2)
    assert plan(cpu, rank=1).device == torch.device("cpu")
    with pytest.raises(RunError, match="--gpus 2 but only 1 CUDA device"):
        _check_processes(plan(auto), 2)
    assert plan(auto).device == torch.device("cuda", 0)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    for config in (cpu, auto):
        _check_processes(plan(config), 2)
        assert plan(config, rank=1).device == torch.device("cpu")
    with pytest.raises(RunError, match=r"no CUDA device is available \(use --set train.device=cpu\)"):
        _check_processes(plan(cuda), 2)
