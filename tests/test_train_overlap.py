"""Host work overlapped with the network (mlparse/train/overlap.py): the next sub-batch made in a worker
thread while the current one trains, sub-batch k decoded while the network runs on k+1.  Same results
with the overlap on and off, the switches, and no thread left behind on errors or KeyboardInterrupt."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import List

import pytest
import torch

from mlparse.models.span_parser import SpanParser
from mlparse.tasks.treebank import sentence_of
from mlparse.train.overlap import ENVIRONMENT_SWITCH, THREAD_NAME, HostWorker, decoded_behind, live_workers
from mlparse.train.trainer import Trainer, predict_in_batches
from helpers.run_fixtures import tiny_trees
from helpers.trainers import tiny_trainer as tiny_span_trainer


def tiny_trainer(tmp_path: Path, overlap: bool, decoder: str = "cython", device: str = "cpu") -> Trainer:
    return tiny_span_trainer(tmp_path, decoder, device, train={"overlap": overlap})


#: The devices to train on: the CPU, and CUDA where present (pinned copies made in the worker thread).
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device"))]


def threads_of(parser: SpanParser, method: str, monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """Records the name of the thread that runs each call of ``parser.<method>``."""
    names: List[str] = []
    original = getattr(parser, method)

    def recorded(*args, **kwargs):  # type: ignore[no-untyped-def]
        names.append(threading.current_thread().name)
        return original(*args, **kwargs)

    monkeypatch.setattr(parser, method, recorded)
    return names


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("decoder", ["cython", "torch"])
def test_training_with_the_overlap_equals_training_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           decoder: str, device: str) -> None:
    """Inputs and gold targets made in the worker (on CUDA through pinned memory, non_blocking) train the same
    weights as made in the calling thread: bit for bit on the CPU, up to CUDA's nondeterministic sums there."""
    weights, losses = [], []
    for overlap in (True, False):
        trainer = tiny_trainer(tmp_path / str(overlap), overlap, decoder, device)
        made_in = threads_of(trainer.model, "make_batch", monkeypatch)
        targets_in = threads_of(trainer.model, "make_targets", monkeypatch)
        batch = list(range(len(trainer.train_sentences)))
        losses.append([trainer.train_step(batch) for _ in range(3)])
        weights.append({k: v.clone() for k, v in trainer.model.state_dict().items()})
        assert len(made_in) >= 6 and len(targets_in) == len(made_in)  # several sub-batches per update
        main = threading.current_thread().name
        for names in (made_in, targets_in):
            assert all(name.startswith(THREAD_NAME) for name in names) if overlap else set(names) == {main}
        assert live_workers() == []
    if device == "cpu":
        assert losses[0] == losses[1]
        for key in weights[0]:
            assert torch.equal(weights[0][key], weights[1][key]), key
    else:
        assert losses[0] == pytest.approx(losses[1], rel=1e-4)
        for key in weights[0]:
            torch.testing.assert_close(weights[0][key], weights[1][key], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("decoder", ["cython", "torch"])
def test_parsing_with_the_overlap_equals_parsing_without(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         decoder: str) -> None:
    trainer = tiny_trainer(tmp_path, True)
    sentences = [sentence_of(t) for t in tiny_trees()] * 3
    lengths = [len(s) for s in sentences]
    decoded_in = threads_of(trainer.model, "decode", monkeypatch)
    with_overlap = predict_in_batches(trainer.model, sentences, lengths, 40, decoder, overlap=True)
    assert len(decoded_in) > 2 and all(name.startswith(THREAD_NAME) for name in decoded_in)
    decoded_in.clear()
    without = predict_in_batches(trainer.model, sentences, lengths, 40, decoder, overlap=False)
    assert set(decoded_in) == {threading.current_thread().name}
    assert [str(t) for t in with_overlap] == [str(t) for t in without]
    assert [str(t) for t in without] == [str(t) for t in trainer.model.predict(sentences, decoder=decoder)]
    assert live_workers() == []


def test_the_environment_switches_the_overlap_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENVIRONMENT_SWITCH, "0")
    with HostWorker(True) as worker:
        assert not worker.enabled
        assert list(worker.ahead(lambda x: threading.current_thread().name, [1, 2])) == [threading.current_thread().name] * 2
    monkeypatch.setenv(ENVIRONMENT_SWITCH, "1")
    with HostWorker(True) as worker:
        assert worker.enabled
        assert all(n.startswith(THREAD_NAME) for n in worker.ahead(lambda x: threading.current_thread().name, [1, 2]))
    with HostWorker(False) as worker:  # the recipe's train.overlap: false: each item made when asked for
        assert not worker.enabled
        made = []
        for item in worker.ahead(lambda x: made.append(x) or x, [1, 2, 3]):
            assert made[-1] == item


def test_the_worker_runs_one_item_ahead_in_order() -> None:
    started = []
    gate = threading.Event()

    def prepare(item: int) -> int:
        started.append(item)
        if item == 1:
            gate.set()  # item 1 begins while the caller still holds item 0
        return item * item

    with HostWorker(True) as worker:
        out = []
        for value in worker.ahead(prepare, range(5)):
            if value == 0:
                assert gate.wait(10)
            out.append(value)
    assert out == [0, 1, 4, 9, 16] and started == list(range(5))


def test_the_worker_keeps_the_callers_grad_mode() -> None:
    weight = torch.ones(2, requires_grad=True)
    with torch.no_grad(), HostWorker(True) as worker:
        (product,) = list(worker.ahead(lambda w: w * 2, [weight]))
    assert not product.requires_grad


class Interrupted(KeyboardInterrupt):
    pass


@pytest.mark.parametrize("where", ["worker", "caller"])
@pytest.mark.parametrize("error", [RuntimeError, Interrupted])
def test_no_thread_is_left_behind_on_errors_or_interrupts(where: str, error: type) -> None:
    def prepare(item: int) -> int:
        if where == "worker" and item == 2:
            raise error("stop")
        return item

    with pytest.raises(error):
        with HostWorker(True) as worker:
            for item in worker.ahead(prepare, range(100)):
                if where == "caller" and item == 2:
                    raise error("stop")
    assert live_workers() == []

    def network(item: int) -> int:  # the caller's part of decoded_behind
        if where == "caller" and item == 2:
            raise error("stop")
        return item

    with pytest.raises(error):
        decoded_behind(network, lambda item, scores: [prepare(item)], range(10), True)
    assert live_workers() == []


def test_an_interrupted_update_or_parse_leaves_no_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trainer = tiny_trainer(tmp_path, True)
    calls = []

    def interrupted_forward(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return SpanParser.forward(trainer.model, *args, **kwargs)

    monkeypatch.setattr(trainer.model, "forward", interrupted_forward)
    with pytest.raises(KeyboardInterrupt):
        trainer.train_step(list(range(len(trainer.train_sentences))))
    assert live_workers() == []
    monkeypatch.undo()
    sentences = [sentence_of(t) for t in tiny_trees()] * 3
    decodes = []

    def interrupted_decode(*args, **kwargs):  # type: ignore[no-untyped-def]
        decodes.append(1)
        if len(decodes) == 2:
            raise KeyboardInterrupt
        return SpanParser.decode(trainer.model, *args, **kwargs)

    monkeypatch.setattr(trainer.model, "decode", interrupted_decode)
    with pytest.raises(KeyboardInterrupt):
        predict_in_batches(trainer.model, sentences, [len(s) for s in sentences], 40, "cython", overlap=True)
    assert live_workers() == [] and trainer.model.training
