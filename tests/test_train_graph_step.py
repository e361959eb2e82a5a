"""``train.step: graph``: the span parser's loss-augmented decoding on the device (mlparse/structs/cky_device.py),
checked against the reference decoders, under torch.compile(fullgraph=True), and for host waits."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
import torch

from benchmarks.instrumentation.dispatch_count import DispatchCounter
from benchmarks.instrumentation.step_count import count_update
from helpers.span_fixtures import make_model
from helpers.trainers import tiny_trainer
from mlparse.models.targets import span_targets
from mlparse.structs import cky, cky_device
from mlparse.structs.brute_force import brute_force_decode
from mlparse.structs.chart import gold_spans
from mlparse.structs.chart_tree import hamming_cost
from mlparse.tasks.treebank import sentence_of


def _random_case(rng: random.Random, batch: int, padded: int, labels: int, ties: bool):
    scores = torch.randn(batch, padded + 1, padded + 1, labels, dtype=torch.float64)
    if ties:
        scores = scores.round()
    lengths = [rng.randint(1, padded) for _ in range(batch)]
    gold = torch.zeros(batch, padded + 1, padded + 1, dtype=torch.long)
    for b, n in enumerate(lengths):
        for _ in range(3):
            i = rng.randint(0, n - 1)
            gold[b, i, rng.randint(i + 1, n)] = rng.randint(0, labels - 1)
    return scores, lengths, gold


def _spans(chosen: torch.Tensor, labels: torch.Tensor, b: int) -> list:
    side = chosen.shape[1]
    return sorted((i, j, int(labels[b, i, j])) for i in range(side) for j in range(side) if chosen[b, i, j])


def _same_updates(eager, graph, updates: int = 3, span: bool = True, weights: bool = True) -> list:  # type: ignore[no-untyped-def]
    """Train both trainers ``updates`` updates from the same seeds: the losses of every update and the gradients of
    the first must agree, and with ``weights`` the weights after the last (for a span parser all but the last
    LayerNorm's bias, which adds one vector at every position and cancels in the fencepost differences: its
    gradient is float noise, which Adam scales up to full steps). Returns the batch."""
    batch = list(range(len(eager.train_sentences)))
    for update in range(updates):
        torch.manual_seed(1)
        a = eager.train_step(batch)
        torch.manual_seed(1)
        assert graph.train_step(batch) == pytest.approx(a, rel=1e-4)
        if update == 0:  # the gradients stay on the parameters until the next update
            largest = max(float(p.grad.abs().max()) for p in eager.model.parameters() if p.grad is not None)
            for (name, p), q in zip(eager.model.named_parameters(), graph.model.parameters()):
                assert (p.grad is None) == (q.grad is None), name
                if p.grad is not None:
                    assert torch.allclose(p.grad, q.grad, rtol=1e-3, atol=1e-5 * largest), name
    cancelling = f"encoder.layers.{eager.model.config.num_layers - 1}.feed_forward_norm.joint.bias" if span else ""
    for (name, p), q in zip(eager.model.named_parameters(), graph.model.parameters()):
        if weights and name != cancelling:
            assert torch.allclose(p, q, rtol=1e-4, atol=1e-6), name
    return batch


@pytest.mark.parametrize("ties", [False, True])
def test_device_decoding_finds_the_cython_decoders_tree_and_hamming_cost(ties: bool) -> None:
    rng = random.Random(7)
    torch.manual_seed(7)
    for _ in range(25):
        scores, lengths, gold = _random_case(rng, 3, rng.randint(1, 9), rng.randint(1, 5), ties)
        chosen, labels, hamming = cky_device.decode(scores, torch.tensor(lengths), gold)
        for b, n in enumerate(lengths):
            golds = {(i, j): int(gold[b, i, j]) for i in range(n + 1) for j in range(n + 1) if gold[b, i, j]}
            reference = cky.decode(scores[b].numpy(), gold=golds, length=n)
            assert _spans(chosen, labels, b) == sorted(reference.spans)
            assert int(hamming[b]) == hamming_cost(reference.spans, golds)


def test_device_decoding_is_the_best_tree_by_brute_force() -> None:
    rng = random.Random(3)
    torch.manual_seed(3)
    for _ in range(15):
        n = rng.randint(1, 6)
        scores = torch.randn(1, n + 1, n + 1, 3, dtype=torch.float64)
        chosen, labels, _ = cky_device.decode(scores, torch.tensor([n]), torch.zeros(1, n + 1, n + 1, dtype=torch.long))
        best = brute_force_decode(scores[0].numpy(), gold={})  # no gold span: every label but EMPTY gets +1
        value = sum(float(scores[0, i, j, lab]) + 1.0 for i, j, lab in _spans(chosen, labels, 0) if lab)
        assert value == pytest.approx(best.score)
        assert _spans(chosen, labels, 0) == sorted(best.spans)  # first optimum: no ties in random scores


def test_tree_slots_list_every_span_once_and_mark_the_unused() -> None:
    n, padded = 3, 5
    chosen, _, _ = cky_device.decode(torch.randn(1, padded + 1, padded + 1, 2, dtype=torch.float64),
                                     torch.tensor([n]), torch.zeros(1, padded + 1, padded + 1, dtype=torch.long))
    batch, left, right, used = cky_device.tree_slots(chosen, torch.tensor([2 * n - 1]))
    assert batch.shape == (2 * padded - 1,) and int(used.sum()) == 2 * n - 1
    spans = sorted(zip(left[used].tolist(), right[used].tolist()))
    assert spans == sorted((i, j) for i in range(padded + 1) for j in range(padded + 1) if chosen[0, i, j])
    assert (0, n) in spans and all((i, i + 1) in spans for i in range(n))


def test_the_device_hinge_is_the_host_decoders_loss_with_the_same_gradients() -> None:
    model, trees, labels = make_model()
    golds = [gold_spans(t, labels) for t in trees]
    sentences = [sentence_of(t) for t in trees]
    found = {}
    for decoder in ("cython", "device"):
        torch.manual_seed(0)
        model.zero_grad(set_to_none=True)
        model.eval()  # no dropout: both see the same scores
        out = model.loss(sentences, golds, decoder=decoder)
        out.loss.backward()
        found[decoder] = (out.loss.item(), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None})
    assert found["device"][0] == pytest.approx(found["cython"][0], rel=1e-5)
    assert found["device"][0] > 0
    assert found["device"][1].keys() == found["cython"][1].keys()
    for name, grad in found["cython"][1].items():
        assert torch.allclose(found["device"][1][name], grad, rtol=1e-4, atol=1e-6), name


def test_the_device_hinge_compiles_as_one_graph_and_gives_the_eager_loss() -> None:
    """From the encoder's projections to the loss, no graph break (fullgraph) on a CPU backend; what the
    compiled graph and its backward give equals the eager computation."""
    model, trees, labels = make_model()
    model.eval()
    golds = [gold_spans(t, labels) for t in trees]
    batch = model.make_batch([sentence_of(t) for t in trees])
    targets = span_targets(golds, batch.lengths, torch.device("cpu"), decoder_labels=True, tag_mask=False)
    with torch.no_grad():
        h, _ = model.encode(batch)
    projected = h.detach().requires_grad_(True)

    def hinge(projected: torch.Tensor, gold: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return model._hinge_on_device(model.scorer.project(projected), gold, lengths)

    torch._dynamo.reset()
    compiled = torch.compile(hinge, fullgraph=True, backend="aot_eager")
    eager_loss = hinge(projected, targets.labels, targets.lengths)
    (eager_grad,) = torch.autograd.grad(eager_loss, projected)
    compiled_loss = compiled(projected, targets.labels, targets.lengths)
    (compiled_grad,) = torch.autograd.grad(compiled_loss, projected)
    assert compiled_loss.item() == pytest.approx(eager_loss.item(), rel=1e-6)
    assert torch.allclose(compiled_grad, eager_grad, rtol=1e-5, atol=1e-7)


def test_the_device_hinge_never_waits_for_the_host() -> None:
    model, trees, labels = make_model()
    golds = [gold_spans(t, labels) for t in trees]
    batch = model.make_batch([sentence_of(t) for t in trees])
    targets = span_targets(golds, batch.lengths, torch.device("cpu"), decoder_labels=True, tag_mask=False)
    projected = model.scorer.project(model.encode(batch)[0])
    with DispatchCounter() as counter:
        loss = model._hinge_on_device(projected, targets.labels, targets.lengths)
        loss.backward()
    assert counter.host_syncs == 0, dict(counter.syncs)


def test_a_graph_step_update_reads_the_device_once_and_trains_like_the_eager_step(tmp_path: Path) -> None:
    eager = tiny_trainer(tmp_path / "eager", "cython")
    graph = tiny_trainer(tmp_path / "graph", "cython", train={"step": "graph"})
    assert graph.model.loss_decoder == "device" and eager.model.loss_decoder == "cython"
    same = copy.deepcopy(eager.config)
    same.train.step = "graph"
    assert same.hash() == eager.config.hash()  # train.step is not part of the run id
    batch = _same_updates(eager, graph)
    figures = count_update(graph, batch)
    assert figures.host_syncs <= 1, figures.sync_operations  # the update's loss, read once
    assert figures.host_reads <= 1, figures.transfer_sites  # no chart or table read back per sub-batch


@pytest.mark.parametrize("kind", ["joint", "biaffine"])
def test_a_graph_step_of_the_joint_and_biaffine_parsers_reads_only_the_updates_loss(tmp_path: Path, kind: str) -> None:
    """The joint parser's span half decodes on the device like the span parser's; the biaffine parser decodes
    nothing in training (cross-entropy), so its step is the same either way."""
    from helpers.trainers import generic_trainer

    eager = generic_trainer(tmp_path / "eager", kind)
    graph = generic_trainer(tmp_path / "graph", kind, ["train.step=graph"])
    if kind == "joint":
        assert graph.model.loss_decoder == "device"
    batch = list(range(len(eager.train_sentences)))
    # the first update's loss to rounding; the second's looser: the eager CharLSTM runs the packed CPU kernel, the
    # graph step nn.LSTM in fixed shapes, and Adam's first steps move a weight by about the learning rate whatever
    # the size of its gradient, so rounding-level differences of a near-zero gradient show after one update
    for tolerance in (1e-6, 1e-3):
        torch.manual_seed(1)
        a = eager.train_step(batch)
        torch.manual_seed(1)
        assert graph.train_step(batch) == pytest.approx(a, rel=tolerance)
    figures = count_update(graph, batch)
    assert figures.subbatches > 1
    assert figures.host_syncs <= 1 and figures.host_reads <= 1, (figures.sync_operations, figures.transfer_sites)


def test_the_char_lstm_in_fixed_shapes_gives_the_packed_vectors_and_gradients() -> None:
    import numpy as np

    from mlparse.modules.char_lstm import CharLSTM

    torch.manual_seed(0)
    lstm = CharLSTM(num_chars=20, d_char_emb=6, d_out=8, char_dropout=0.0)
    lstm.train()
    lengths = np.array([[0, 3, 5, 1], [2, 4, 0, 0]], dtype=np.int64)
    chars = torch.zeros(2, 4, 5, dtype=torch.long)
    for (b, t), n in np.ndenumerate(lengths):
        chars[b, t, :n] = torch.randint(1, 20, (int(n),))
    packed = lstm(chars, torch.from_numpy(lengths), lengths)
    packed.pow(2).sum().backward()
    packed_grads = [p.grad.clone() for p in lstm.parameters()]
    lstm.zero_grad()
    lstm.static_shapes = True
    with DispatchCounter() as counter:
        static = lstm(chars, torch.from_numpy(lengths))
    assert counter.host_syncs == 0, dict(counter.syncs)
    static.pow(2).sum().backward()
    torch.testing.assert_close(static, packed, rtol=1e-5, atol=1e-6)
    for grad, expected in zip((p.grad for p in lstm.parameters()), packed_grads):
        torch.testing.assert_close(grad, expected, rtol=1e-4, atol=1e-6)
    lstm.eval()  # parsing keeps the packed pass
    torch.testing.assert_close(lstm(chars, torch.from_numpy(lengths), lengths), packed.detach(), rtol=1e-5, atol=1e-6)


def test_the_compiled_graph_step_trains_like_the_eager_step_in_few_graphs(tmp_path: Path, monkeypatch) -> None:
    """train.step: graph with train.compile: encoder compiles the span parser's forward and loss with fullgraph=True
    (a graph break would raise); on a CPU backend its updates equal the eager step's within float tolerance."""
    from mlparse.train.compile import BACKEND_VARIABLE, compiled_graphs

    monkeypatch.setenv(BACKEND_VARIABLE, "aot_eager")
    torch._dynamo.reset()
    eager = tiny_trainer(tmp_path / "eager", "cython")
    graph = tiny_trainer(tmp_path / "graph", "cython", train={"step": "graph", "compile": "encoder"})
    assert graph.graph_step is not None and graph.compiled is None
    assert graph.model.embedding.char_lstm is not None and graph.model.embedding.char_lstm.static_shapes
    before = compiled_graphs()
    _same_updates(eager, graph)
    assert 0 < compiled_graphs() - before <= 4  # the sub-batches' lengths fall in a few buckets
    # (the dispatch counter cannot run inside a compiled graph: the eager graph step above is the one counted)


@pytest.mark.parametrize("overrides", [[], ["model.char_encoder=lstm", "model.char_input_dropout=0"]])
def test_the_compiled_graph_step_of_the_biaffine_parser_trains_like_its_eager_step(tmp_path: Path, monkeypatch,
                                                                                   overrides: list) -> None:
    from helpers.trainers import generic_trainer
    from mlparse.train.compile import BACKEND_VARIABLE

    monkeypatch.setenv(BACKEND_VARIABLE, "aot_eager")
    torch._dynamo.reset()
    eager = generic_trainer(tmp_path / "eager", "biaffine", overrides)
    graph = generic_trainer(tmp_path / "graph", "biaffine", [*overrides, "train.step=graph", "train.compile=encoder"])
    assert graph.graph_step is not None and graph.compiled is None
    _same_updates(eager, graph, span=False)


def test_the_compiled_graph_step_of_the_joint_parser_trains_like_its_eager_step(tmp_path: Path, monkeypatch) -> None:
    from helpers.trainers import generic_trainer
    from mlparse.train.compile import BACKEND_VARIABLE

    monkeypatch.setenv(BACKEND_VARIABLE, "aot_eager")
    torch._dynamo.reset()
    eager = generic_trainer(tmp_path / "eager", "joint")
    graph = generic_trainer(tmp_path / "graph", "joint", ["train.step=graph", "train.compile=encoder"])
    assert graph.graph_step is not None and graph.model.loss_decoder == "device"
    # Several of the joint parser's parameters get gradients of float noise, which Adam turns into full steps
    # whichever way the noise falls: the Label Attention Layer's last LayerNorm bias (cancelled in span differences;
    # the arcs read it once their zero-initialised scorer has moved, so it is held still in both) and parts of the arc
    # head's bias (a constant over the heads of a softmax; so the weights are not compared, the losses and the first
    # update's gradients are).
    for trainer in (eager, graph):
        trainer.model.lal.feed_forward_norm.bias.requires_grad_(False)
    _same_updates(eager, graph, span=False, weights=False)


def test_a_model_the_graph_step_cannot_compile_trains_eagerly_and_says_why(tmp_path: Path) -> None:
    from helpers.trainers import generic_trainer

    bilstm = generic_trainer(tmp_path / "bilstm", "biaffine", ["model.encoder=bilstm", "train.step=graph"])
    assert bilstm.graph_step is None and "BiLSTM" in bilstm.model.graph_unsupported()
