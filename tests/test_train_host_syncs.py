"""The training step and parsing keep the host from waiting for the device: counted on CPU with the
DispatchCounter (operations that would synchronise a GPU), so a regression shows on any machine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from mlparse.config import load_recipe
from mlparse.models.span_parser import build_parser
from mlparse.modules.char_lstm import CharLSTM
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.train.checkpoint import CheckpointFiles
from mlparse.train.corpus import Split, golds_of, sentence_of
from mlparse.train.dispatch_count import DispatchCounter
from mlparse.train.step_count import count_parse, count_update
from mlparse.train.trainer import Trainer
from test_run_fixtures import tiny_trees, write_tiny_recipe

#: Host synchronisations allowed per training update: reading the update's summed loss, once.
MAX_SYNCS_PER_UPDATE = 1


def tiny_trainer(tmp_path: Path, decoder: str, **model: object) -> Trainer:
    config = load_recipe(write_tiny_recipe(tmp_path, model=dict(model), train={"decoder": decoder, "subbatch_tokens": 30}))
    trees = tiny_trees()
    torch.manual_seed(0)
    parser = build_parser(config.model, trees)
    split = Split(path=tmp_path / "train.trees", trees=trees)
    return Trainer(config, parser, ConstituencyTask(), split, golds_of(trees, parser.labels), split,
                   CheckpointFiles(tmp_path / "checkpoints"), torch.device("cpu"))


@pytest.mark.parametrize("decoder", ["torch", "cython"])
@pytest.mark.parametrize("tagging", [False, True])
def test_a_training_update_waits_for_the_device_at_most_once(tmp_path: Path, decoder: str, tagging: bool) -> None:
    trainer = tiny_trainer(tmp_path, decoder, predict_tags=tagging)
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)  # the optimizer's state exists from here on
    figures = count_update(trainer, batch)
    assert figures.subbatches > 1  # several sub-batches: the loss is still read once
    assert figures.host_syncs <= MAX_SYNCS_PER_UPDATE, figures.sync_operations
    assert figures.operations > 0


@pytest.mark.parametrize("decoder", ["torch", "cython"])
def test_parsing_a_batch_never_waits_for_the_device_in_the_network(tmp_path: Path, decoder: str) -> None:
    trainer = tiny_trainer(tmp_path, decoder)
    figures = count_parse(trainer.model, [sentence_of(t) for t in tiny_trees()], decoder)
    assert figures.host_syncs == 0, figures.sync_operations


def test_char_lstm_with_host_lengths_gives_the_same_vectors_without_a_sync() -> None:
    torch.manual_seed(0)
    lstm = CharLSTM(num_chars=20, d_char_emb=6, d_out=8, char_dropout=0.0)
    lengths = np.array([[0, 3, 5, 1], [0, 2, 0, 0]], dtype=np.int64)
    chars = torch.zeros(2, 4, 5, dtype=torch.long)
    for (b, t), n in np.ndenumerate(lengths):
        chars[b, t, :n] = torch.randint(1, 20, (int(n),))
    device_lengths = torch.from_numpy(lengths.copy())
    with DispatchCounter() as counter:
        given = lstm(chars, device_lengths, lengths)
    assert counter.host_syncs == 0, dict(counter.syncs)
    torch.testing.assert_close(given, lstm(chars, device_lengths), rtol=0, atol=0)
    assert given[0, 0].abs().sum() == 0 and given[1, 2:].abs().sum() == 0  # padding positions stay zero
    single = lstm(chars[:1, 2:3], device_lengths[:1, 2:3])  # a word alone: batching does not change it
    torch.testing.assert_close(given[0, 2], single[0, 0])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_on_a_gpu_the_optimizer_is_fused_and_an_update_waits_at_most_once(tmp_path: Path) -> None:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"decoder": "torch", "subbatch_tokens": 30, "device": "cuda"}))
    trees = tiny_trees()
    parser = build_parser(config.model, trees).to("cuda")
    split = Split(path=tmp_path / "train.trees", trees=trees)
    trainer = Trainer(config, parser, ConstituencyTask(), split, golds_of(trees, parser.labels), split,
                      CheckpointFiles(tmp_path / "checkpoints"), torch.device("cuda", 0))
    assert trainer.optimizer.param_groups[0]["fused"]
    batch = list(range(len(trees)))
    trainer.train_step(batch)
    assert count_update(trainer, batch).host_syncs <= MAX_SYNCS_PER_UPDATE
