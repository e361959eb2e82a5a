"""Parsing on the CPU skips padding (the encoder packs the real positions) and runs the CharLSTM once per
distinct word of a batch: the same numbers, so the same trees, as the padded computation of every occurrence."""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

import numpy as np
import pytest
import torch

from mlparse.data.batching import map_in_batches
from mlparse.data.vocab import ParserVocab
from mlparse.models.span_parser import SpanParser
from mlparse.modules.char_lstm import CharLSTM
from mlparse.modules.encoder import PartitionedTransformerEncoder
from mlparse.trees.reader import parse_bracketed
from helpers.span_fixtures import make_model


def _char_batch(words: List[List[str]], vocab: ParserVocab) -> Tuple[torch.Tensor, torch.Tensor, np.ndarray]:
    rows = [vocab.char_ids_cached(sentence) for sentence in words]
    width, letters = max(map(len, rows)) + 1, max(len(ids) for row in rows for ids in row)
    chars = np.zeros((len(rows), width, letters), dtype=np.int64)
    lengths = np.zeros((len(rows), width), dtype=np.int64)
    for b, row in enumerate(rows):
        for t, ids in enumerate(row):
            chars[b, t, :len(ids)] = ids
            lengths[b, t] = len(ids)
    return torch.from_numpy(chars), torch.from_numpy(lengths), lengths


def test_the_char_lstm_runs_each_distinct_word_once_with_the_same_vectors(one_thread: None) -> None:
    words = [["the", "dog", "saw", "the", "cat"], ["the", "cat"], ["a", "dog", "dog", "dogs", "the", "a"]]
    vocab = ParserVocab.build([[("X", w) for w in sentence] for sentence in words])
    torch.manual_seed(0)
    lstm = CharLSTM(len(vocab.chars), d_char_emb=8, d_out=16).eval()
    chars, lengths, host = _char_batch(words, vocab)
    seen: List[int] = []
    final_states = lstm._final_states  # the LSTM's words, on either CPU kernel
    lstm._final_states = lambda chars, lengths, order: seen.append(len(order)) or final_states(  # type: ignore
        chars, lengths, order)
    with torch.no_grad():
        shared = lstm(chars, lengths, host)
        lstm.share_words = False
        each = lstm(chars, lengths, host)
    # the, dog, saw, cat, a, dogs and the start and stop tokens; then all 13 words and 3 starts and stops
    assert seen == [8, 19]
    assert torch.equal(shared, each)
    assert bool((shared[torch.from_numpy(host == 0)] == 0).all())  # padding positions stay zero


def test_training_runs_every_occurrence() -> None:
    lstm = CharLSTM(10, d_char_emb=4, d_out=8)
    chars = torch.ones(1, 2, 3, dtype=torch.long)
    assert not lstm.shares_words(chars)
    assert lstm.eval().shares_words(chars)


def _wsj_sentences(treebanks: Path, count: int) -> List[List[Tuple[str, str]]]:
    sentences: List[List[Tuple[str, str]]] = []
    for path in sorted((treebanks / "ptb-sample" / "wsj").glob("*/wsj_*.mrg")):
        for tree in parse_bracketed(path.read_text(encoding="utf-8"), source=str(path)).trees:
            sentences.append([(leaf.tag, leaf.word) for leaf in tree.leaves()])
        if len(sentences) >= count:
            return sentences[:count]
    return sentences


def _trees_and_charts(model: SpanParser, sentences: List[List[Tuple[str, str]]], budget: int) -> tuple:
    charts: List[torch.Tensor] = []

    def parse(group: list) -> list:
        batch = model.make_batch(group)
        chart, tags = model(batch)
        charts.append(chart)
        return model.decode(batch, (chart, tags), group)

    with torch.no_grad():
        trees = map_in_batches(sentences, [len(s) for s in sentences], budget, parse, model.memory_cost(False, "cython"))
    return [t.to_bracketed() for t in trees], charts


def test_span_parser_trees_and_charts_are_those_of_the_padded_computation(treebanks: Path, one_thread: None) -> None:
    sentences = _wsj_sentences(treebanks, 150)
    model, _, _ = make_model(num_layers=2, d_model=64, num_heads=4, d_kv=16, d_ff=128, char_encoder="lstm", max_len=300)
    model.vocab = ParserVocab.build(sentences)  # real words and characters, untrained weights sized to them
    model = SpanParser(model.config, model.vocab, model.labels, span=model.span_config).eval()
    packed_calls: List[int] = []
    model.encoder.layers[0].attention.register_forward_hook(lambda *args: packed_calls.append(0))  # padded layout only
    fast_trees, fast_charts = _trees_and_charts(model, sentences, budget=2000)
    padded_layout_calls = len(packed_calls)
    model.encoder.pack_positions = False
    model.embedding.char_lstm.share_words = False
    slow_trees, slow_charts = _trees_and_charts(model, sentences, budget=2000)
    assert padded_layout_calls < len(slow_charts)  # some batches did go through the packed path
    assert fast_trees == slow_trees
    assert all(torch.equal(a, b) for a, b in zip(fast_charts, slow_charts))


def _predictions(parser, sentences: list) -> List[str]:  # type: ignore[no-untyped-def]
    with torch.no_grad():
        return [repr(prediction) for prediction in parser.predict(sentences)]


@pytest.mark.parametrize("kind", ["biaffine", "joint"])
def test_the_dependency_and_joint_parsers_parse_the_same_with_the_fast_paths(kind: str, tmp_path: Path,
                                                                           one_thread: None) -> None:
    from mlparse.config import load_recipe
    from mlparse.models.registry import parser_class
    from mlparse.tasks import task_for
    from helpers.dep_fixtures import write_dep_recipe
    from helpers.joint_fixtures import write_joint_recipe

    model = {"char_encoder": "lstm", "d_char_emb": 8}
    path = write_dep_recipe(tmp_path, model=model) if kind == "biaffine" else write_joint_recipe(tmp_path, model=model)
    config = load_recipe(path)
    task = task_for(config.task)
    split = task.read_split(Path(config.data.train))
    torch.manual_seed(4)
    parser = parser_class(kind).build(config, split.examples).eval()
    with torch.no_grad():  # untrained biaffine weights start at zero: make the scores differ
        for module in parser.modules():
            if type(module).__name__ == "Biaffine":
                module.weight.normal_()
    sentences = task.inputs(split)
    (encoder,) = [module for module in parser.modules() if isinstance(module, PartitionedTransformerEncoder)]
    assert encoder.packs(parser.make_batch(sentences).mask)
    fast = _predictions(parser, sentences)
    encoder.pack_positions = False
    for module in parser.modules():
        if isinstance(module, CharLSTM):
            module.share_words = False
    assert fast == _predictions(parser, sentences)
