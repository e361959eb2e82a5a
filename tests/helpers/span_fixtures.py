"""A tiny span parser on the hand-written trees and random gold bracketings, shared by the span-parser tests."""

from __future__ import annotations

import random
from typing import Dict, Tuple

import torch

from helpers.run_fixtures import TINY_MODEL, TINY_SPAN, tiny_trees
from mlparse.config import ModelConfig, SpanConfig
from mlparse.config.layout import split_model_settings
from mlparse.data.vocab import ParserVocab
from mlparse.models.span_parser import SpanParser
from mlparse.structs.chart import LabelVocab
from mlparse.tasks.treebank import sentence_of


def make_model(**overrides: object) -> tuple:
    """(a tiny SpanParser, its trees, its labels); ``overrides``: keys of the model: and span: sections."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    trees = tiny_trees()
    vocab = ParserVocab.build([sentence_of(t) for t in trees])
    labels = LabelVocab.from_trees(trees)
    model, span = split_model_settings(overrides)
    config = ModelConfig(**{**TINY_MODEL, **model})  # type: ignore[arg-type]
    return SpanParser(config, vocab, labels, span=SpanConfig(**{**TINY_SPAN, **span})), trees, labels


def random_gold(length: int, n_labels: int, rng: random.Random) -> Dict[Tuple[int, int], int]:
    """A random binary bracketing, about half of its spans labelled, the root always."""
    gold: Dict[Tuple[int, int], int] = {}
    stack = [(0, length)]
    while stack:
        i, j = stack.pop()
        if (i, j) == (0, length) or rng.random() < 0.5:
            gold[i, j] = rng.randrange(1, n_labels)
        if j - i > 1:
            k = rng.randrange(i + 1, j)
            stack += [(i, k), (k, j)]
    return gold
