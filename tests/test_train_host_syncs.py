"""The training step and parsing keep the host from waiting for the device: counted on CPU with the
DispatchCounter (operations that would synchronise a GPU), so a regression shows on any machine."""

from __future__ import annotations

from pathlib import Path
import numpy as np
import pytest
import torch

from mlparse.modules.char_lstm import CharLSTM
from mlparse.tasks.treebank import sentence_of
from benchmarks.instrumentation.dispatch_count import DispatchCounter
from benchmarks.instrumentation.step_count import count_parse, count_update
from helpers.run_fixtures import tiny_trees
from helpers.trainers import generic_trainer, tiny_trainer

#: Host synchronisations allowed per training update: reading the update's summed loss, once.
MAX_SYNCS_PER_UPDATE = 1


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
    assert_copies_wait_only_for_the_decoder(figures)


def assert_copies_wait_only_for_the_decoder(figures) -> None:  # type: ignore[no-untyped-def]
    """No upload that is not non_blocking (inputs and gold targets are made by make_batch and make_targets,
    what decoding tells goes up in one non-blocking copy); reads back: the chart (or the torch decoder's
    tables, in one copy) for each sub-batch's loss-augmented decoding, and the update's loss once."""
    assert figures.blocking_uploads == 0, figures.transfer_sites
    assert figures.host_reads <= figures.subbatches + MAX_SYNCS_PER_UPDATE, figures.transfer_sites


@pytest.mark.parametrize("decoder", ["torch", "cython"])
def test_parsing_a_batch_never_waits_for_the_device_in_the_network(tmp_path: Path, decoder: str) -> None:
    trainer = tiny_trainer(tmp_path, decoder)
    figures = count_parse(trainer.model, [sentence_of(t) for t in tiny_trees()], decoder)
    assert figures.host_syncs == 0, figures.sync_operations
    assert figures.blocking_uploads == 0 and figures.host_reads == 1, figures.transfer_sites  # the chart (or tables)


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
    trainer = tiny_trainer(tmp_path, "torch", device="cuda")
    assert trainer.optimizer.param_groups[0]["fused"]
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)
    figures = count_update(trainer, batch)
    assert figures.host_syncs <= MAX_SYNCS_PER_UPDATE
    assert_copies_wait_only_for_the_decoder(figures)


@pytest.mark.parametrize("kind", ["biaffine", "joint"])
def test_dependency_and_joint_updates_wait_for_the_device_at_most_once(tmp_path: Path, kind: str) -> None:
    trainer = generic_trainer(tmp_path, kind)
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)
    figures = count_update(trainer, batch)
    assert figures.subbatches > 1
    assert figures.host_syncs <= MAX_SYNCS_PER_UPDATE, figures.sync_operations
    assert_copies_wait_only_for_the_decoder(figures)
    if kind == "biaffine":  # nothing decoded in its loss: the loss is the one read
        assert figures.host_reads == 1, figures.transfer_sites


@pytest.mark.parametrize("override", ["model.char_encoder=lstm", "model.encoder=bilstm"])
def test_a_biaffine_update_with_a_char_lstm_or_a_bilstm_reads_only_its_loss(tmp_path: Path, override: str) -> None:
    """The CharLSTM and the BiLSTM encoder pack by lengths the batch carries on the host, sorted there, not
    read back or sorted on the device."""
    trainer = generic_trainer(tmp_path, "biaffine", [override])
    assert trainer.model.input.char_lstm is not None or type(trainer.model.input.encoder).__name__ == "BiLSTMEncoder"
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)
    figures = count_update(trainer, batch)
    assert figures.host_reads == 1 and figures.blocking_uploads == 0, figures.transfer_sites
    # torch's own copies on behalf of the model (pack_padded_sequence sorting on the device) are none either;
    # clip_grad_norm_'s moves of its norms (same device: no copy) are the trainer's
    model_code = [site for site in figures.transfer_sites if "inside torch" in site and "mlparse/train/" not in site]
    assert not model_code, figures.transfer_sites


@pytest.mark.parametrize("kind,reads", [("biaffine", 2), ("joint", 3)])
def test_parsing_reads_the_scores_once_and_uploads_without_waiting(tmp_path: Path, kind: str, reads: int) -> None:
    """Arcs read for the host decoder, then the relations of the decoded heads with the heads in one copy
    (the joint parser reads its span chart too); the decoded heads go up without waiting."""
    trainer = generic_trainer(tmp_path, kind)
    figures = count_parse(trainer.model, trainer.train_sentences, "cython")
    assert figures.blocking_uploads == 0, figures.transfer_sites
    assert figures.host_reads == reads, figures.transfer_sites
    assert figures.host_syncs == 0, figures.sync_operations


def test_the_dependency_losses_equal_the_cross_entropies_over_the_words() -> None:
    """Ignored targets instead of boolean indexing: the same sums as cross-entropy over the words alone."""
    from types import SimpleNamespace

    import torch.nn.functional as F

    from mlparse.models.dep_parser import dependency_losses

    torch.manual_seed(3)
    lengths, width, relations = [4, 2, 5], 6, 7
    mask = torch.zeros(len(lengths), width, dtype=torch.bool)
    for b, n in enumerate(lengths):
        mask[b, : n + 1] = True
    arc = torch.randn(len(lengths), width, width).masked_fill(~mask.unsqueeze(1), float("-inf"))
    golds = [SimpleNamespace(heads=[int(h) for h in torch.randint(0, n + 1, (n,))],
                             relations=[int(r) for r in torch.randint(0, relations, (n,))]) for n in lengths]
    table = torch.randn(len(lengths), width, width, relations)  # relation scores of (dependent, head)
    at_heads = lambda heads: table.gather(2, heads[:, :, None, None].expand(-1, -1, 1, relations)).squeeze(2)
    arc_loss, relation_loss = dependency_losses(arc, golds, at_heads)
    heads = torch.zeros(len(lengths), width, dtype=torch.long)
    rels = torch.zeros(len(lengths), width, dtype=torch.long)
    for b, gold in enumerate(golds):
        heads[b, 1 : len(gold.heads) + 1] = torch.tensor(gold.heads)
        rels[b, 1 : len(gold.relations) + 1] = torch.tensor(gold.relations)
    words = mask.clone()
    words[:, 0] = False
    assert torch.allclose(arc_loss, F.cross_entropy(arc[words], heads[words], reduction="sum"))
    assert torch.allclose(relation_loss, F.cross_entropy(at_heads(heads)[words], rels[words], reduction="sum"))
