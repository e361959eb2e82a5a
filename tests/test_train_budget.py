"""``subbatch_tokens: auto``: budgets from the device's free memory (hand-made figures), the CPU fallback,
recipes' numbers kept, run ids kept, and the chosen budgets recorded in log.jsonl."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import torch

from mlparse.config import load_recipe
from mlparse.config.schema import ConfigError
from mlparse.config.validation import from_dict
from mlparse.data.batching import pack_by_tokens
from mlparse.models.base import Parser
from mlparse.models.memory import parsing_memory, subbatch_cost, training_memory
from mlparse.models.span_parser import build_parser
from mlparse.run_index.collect import read_log
from mlparse.run_dir import RunDir
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.train import budget as budget_module
from mlparse.train.budget import CPU_BUDGETS, SAFETY_FRACTION, resolve_budget
from mlparse.train.checkpoint import CheckpointFiles
from mlparse.tasks.treebank import TreeSplit, golds_of
from mlparse.train.trainer import Trainer, subbatch_budgets
from helpers.run_fixtures import REPO, tiny_trees, write_tiny_recipe

GIB = 1 << 30
CUDA = torch.device("cuda")  # a device name only: nothing is allocated on it
N_LABELS = 60  # about the WSJ sample's label count with collapsed chains


def base_model():  # type: ignore[no-untyped-def]
    """base.yaml's encoder and span head settings, as the memory model takes them."""
    recipe = load_recipe(REPO / "recipes" / "base.yaml")
    return recipe.model, recipe.span


def auto_budget(phase: str, free_gib: float, parameter_bytes: int = 0) -> int:
    memory = (training_memory if phase == "train" else parsing_memory)(*base_model(), N_LABELS, "torch")
    return resolve_budget("auto", phase, CUDA, memory.per_position, parameter_bytes,
                          free_memory=lambda device: int(free_gib * GIB))


@pytest.mark.parametrize("phase", ["train", "eval"])
def test_a_300_and_a_500_word_sentence_fit_a_16_gib_gpu(phase: str) -> None:
    training = phase == "train"
    budget = auto_budget(phase, 16, parameter_bytes=400_000_000 if training else 0)
    cost = subbatch_cost(*base_model(), N_LABELS, training, "torch")
    memory = (training_memory if training else parsing_memory)(*base_model(), N_LABELS, "torch")
    lengths = [300, 500]
    assert pack_by_tokens(lengths, budget, cost) == [[1, 0]]  # one sub-batch holds both
    assert memory.subbatch_bytes(lengths) <= SAFETY_FRACTION * 16 * GIB  # and its estimated peak fits


def test_the_whole_batch_goes_in_one_pass_when_memory_allows() -> None:
    rng = random.Random(0)
    lengths = [rng.randint(5, 70) for _ in range(250)]  # the paper's batch of WSJ-like sentences
    cost = subbatch_cost(*base_model(), N_LABELS, True, "torch")
    assert len(pack_by_tokens(lengths, auto_budget("train", 80, 400_000_000), cost)) == 1
    assert len(pack_by_tokens(lengths, auto_budget("train", 2, 400_000_000), cost)) > 1  # a small GPU: several
    assert len(pack_by_tokens(lengths, CPU_BUDGETS["train"], cost)) > 1  # the CPU keeps its sub-batches


def test_the_budget_follows_free_memory_and_leaves_room_for_the_optimizer() -> None:
    per_position = training_memory(*base_model(), N_LABELS, "torch").per_position
    weights = 400_000_000
    budget = auto_budget("train", 8, weights)
    usable = SAFETY_FRACTION * (8 * GIB - 3 * weights)
    assert budget * per_position <= usable < (budget + 1) * per_position
    assert auto_budget("train", 16, weights) > budget > auto_budget("train", 8, 2 * weights)
    assert auto_budget("train", 0.1, 10 * GIB) == 1  # never below one token-equivalent


def test_numbers_are_kept_and_auto_keeps_the_old_budgets_on_a_cpu() -> None:
    never = lambda device: pytest.fail("free memory read for a number or on a CPU")  # noqa: E731
    assert resolve_budget(400, "train", CUDA, 1000.0, free_memory=never) == 400
    assert resolve_budget("auto", "train", torch.device("cpu"), 1000.0, free_memory=never) == 2000
    assert resolve_budget("auto", "eval", torch.device("cpu"), 1000.0, free_memory=never) == 5000
    assert resolve_budget("auto", "eval", CUDA, None, free_memory=never) == 5000  # a parser without a cost unit


def test_trainer_budgets_on_a_gpu_come_from_its_free_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"subbatch_tokens": "auto"}))
    model = build_parser(config.model, tiny_trees(), span=config.span)
    monkeypatch.setattr(budget_module, "free_device_memory", lambda device: 2 * GIB)
    train, evaluate = subbatch_budgets(config, model, CUDA, "torch")
    assert train == int(SAFETY_FRACTION * (2 * GIB - 3 * budget_module.parameter_bytes(model))
                        / model.position_bytes(True, "torch"))
    assert evaluate == int(SAFETY_FRACTION * 2 * GIB / model.position_bytes(False, "torch"))
    assert subbatch_budgets(config, model, torch.device("cpu"), "cython") == (2000, 5000)
    assert Parser.position_bytes(model, True, "torch") is None  # the interface's default: unknown


def test_auto_is_accepted_numbers_must_be_positive_and_run_ids_are_kept() -> None:
    auto = from_dict({"name": "x", "train": {"subbatch_tokens": "auto"}, "eval": {"subbatch_tokens": "auto"}})
    numbers = from_dict({"name": "x", "train": {"subbatch_tokens": 2000}, "eval": {"subbatch_tokens": 5000}})
    assert auto.hash() == numbers.hash() == from_dict({"name": "x"}).hash()  # ids from before auto are kept
    assert from_dict({"name": "x", "train": {"subbatch_tokens": 400}}).hash() != numbers.hash()
    for bad in ("automatic", 0, -5, True):
        with pytest.raises(ConfigError, match="train.subbatch_tokens"):
            from_dict({"name": "x", "train": {"subbatch_tokens": bad}})


def test_log_lines_record_the_budgets_and_the_report_reads_them(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"subbatch_tokens": "auto", "max_epochs": 1}))
    trees = tiny_trees()
    model = build_parser(config.model, trees, span=config.span)
    split = TreeSplit(path=tmp_path / "train.trees", examples=trees)
    trainer = Trainer(config, model, ConstituencyTask(), split, golds_of(trees, model.labels), split,
                      CheckpointFiles(tmp_path / "checkpoints"), torch.device("cpu"))
    state = trainer.fit()
    assert state.log and all(entry["subbatch_tokens"] == {"train": 2000, "eval": 5000} for entry in state.log)
    run_dir = RunDir(tmp_path / "run")  # what the runner writes keeps them
    run_dir.write_log(state.log)
    written = [json.loads(line) for line in run_dir.log.read_text(encoding="utf-8").splitlines()]
    assert [entry["subbatch_tokens"] for entry in written] == [{"train": 2000, "eval": 5000}] * len(state.log)
    path = tmp_path / "log.jsonl"
    lines = [json.dumps(state.log[0]), json.dumps({**state.log[0], "subbatch_tokens": "lots"})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    entries, warnings = read_log(path)
    assert [e.subbatch_tokens for e in entries] == [{"train": 2000, "eval": 5000}, None] and not warnings


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_auto_budget_on_a_real_gpu_reads_its_free_memory() -> None:
    free = torch.cuda.mem_get_info(CUDA)[0]
    budget = resolve_budget("auto", "eval", CUDA, 1000.0)
    assert budget == pytest.approx(SAFETY_FRACTION * free / 1000.0, rel=0.05)  # other processes may allocate meanwhile
