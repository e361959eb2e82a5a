"""The span parser: shapes, gradients, hinge loss, decoders agree, a tiny model overfits."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from benchmarks.instrumentation.dense_reference import dense_hinge_cython
from mlparse.models.span_parser import SentenceTooLongError, SpanParser
from mlparse.structs.chart import gold_spans
from mlparse.tasks.treebank import sentence_of
from mlparse.tasks.evalb_scoring import score_trees
from helpers.span_fixtures import make_model


def test_forward_shapes_and_empty_label_zero() -> None:
    model, trees, labels = make_model()
    sentences = [sentence_of(t) for t in trees[:3]]
    batch = model.make_batch(sentences)
    scores, tag_logits = model(batch)
    n = max(len(s) for s in sentences)
    assert scores.shape == (3, n + 1, n + 1, len(labels))
    assert torch.all(scores[..., 0] == 0)
    assert tag_logits is None
    assert batch.mask.shape == (3, n + 2) and batch.mask.sum().item() == sum(len(s) + 2 for s in sentences)


@pytest.mark.parametrize("variant", [
    {}, {"factored": False}, {"char_encoder": "concat", "d_char_emb": 1}, {"use_words": False},
    {"use_tags": True, "char_encoder": "none"}, {"predict_tags": True, "d_tag_hidden": 16},
])
def test_backward_reaches_every_parameter(variant: dict) -> None:
    model, trees, labels = make_model(**variant)
    golds = [gold_spans(t, labels) for t in trees]
    sentences = [sentence_of(t) for t in trees]
    out = model.loss(sentences, golds)
    assert out.loss.item() > 0 and out.sentences == len(trees)
    out.loss.backward()
    grads = {name: p.grad for name, p in model.named_parameters() if p.requires_grad}
    missing = [name for name, g in grads.items() if g is None or not torch.isfinite(g).all()]
    assert not missing, missing
    # Every tensor gets a non-zero gradient, with one exception: without a tagging head, the bias of
    # the last LayerNorm adds the same vector at every position, which cancels in the fencepost
    # differences that span scores are made of (its gradient is float noise).
    largest = max(float(g.abs().max()) for g in grads.values())
    zero = {name for name, g in grads.items() if float(g.abs().max()) <= 1e-6 * largest}
    cancelling = f"encoder.layers.{model.config.num_layers - 1}.feed_forward_norm.joint.bias"
    assert zero == (set() if variant.get("predict_tags") else {cancelling}), zero
    # Embedding tables: exactly the rows of the ids in the batch (start and stop tokens included,
    # padding and unused specials not) get a gradient; position rows only up to the longest sentence.
    batch = model.make_batch(sentences)
    used_chars = {int(c) for b, t in batch.mask.nonzero().tolist() for c in batch.chars[b, t, : batch.char_lengths[b, t]]}
    # CharConcat skips each word's begin/end markers and fills the slots of short words with the
    # learned padding letter (id 0): its rows are the letters themselves, plus padding.
    letters = {int(c) for b, t in batch.mask.nonzero().tolist() for c in batch.chars[b, t, 1: batch.char_lengths[b, t] - 1]}
    short = any(int(n) - 2 < model.config.char_concat_letters for n in batch.char_lengths[batch.mask])
    expected_rows = {
        "embedding.word_embedding.weight": {int(w) for w in batch.words[batch.mask]},
        "embedding.tag_embedding.weight": {int(t) for t in batch.tags[batch.mask]},
        "embedding.char_lstm.embedding.weight": used_chars,
        "embedding.char_concat.embedding.weight": letters | ({0} if short else set()),  # no word is cut (asserted below)
        "embedding.position_table": set(range(batch.mask.shape[1])),
    }
    assert max(len(word) for sentence in sentences for _, word in sentence) <= 2 * model.config.char_concat_letters
    tables = [name for name in expected_rows if name in grads]
    assert len(tables) == 1 + model.config.use_words + model.config.use_tags + (model.config.char_encoder != "none")
    for name in tables:
        rows = {int(r) for r in (grads[name].abs().sum(dim=1) > 0).nonzero().flatten()}
        assert rows == expected_rows[name], name
    if variant.get("predict_tags"):
        assert out.part("tag") > 0


def test_hinge_loss_zero_when_gold_wins_by_margin() -> None:
    model, trees, labels = make_model()
    golds = [gold_spans(t, labels) for t in trees]
    n = max(len(t.leaves()) for t in trees)
    scores = torch.full((len(trees), n + 1, n + 1, len(labels)), -2.0)
    scores[..., 0] = 0.0  # EMPTY
    for b, gold in enumerate(golds):
        for (i, j), label in gold.items():
            scores[b, i, j, label] = 2.0  # every wrong choice loses by 2 > the Hamming cost 1
    lengths = [len(t.leaves()) for t in trees]
    assert dense_hinge_cython(scores, lengths, golds).item() == 0.0
    scores_low = scores * 0.25  # margins 0.5 < 1: the augmented decoder finds a violation
    assert dense_hinge_cython(scores_low, lengths, golds).item() > 0


def test_cython_and_torch_decoders_agree_on_loss_and_parses() -> None:
    model, trees, labels = make_model()
    model.eval()
    golds = [gold_spans(t, labels) for t in trees]
    sentences = [sentence_of(t) for t in trees]
    a = model.loss(sentences, golds, decoder="cython").loss.item()
    b = model.loss(sentences, golds, decoder="torch").loss.item()
    assert a == pytest.approx(b, rel=1e-5)
    assert [t.to_bracketed() for t in model.parse(sentences, "cython")] == [t.to_bracketed() for t in model.parse(sentences, "torch")]


def test_tiny_model_overfits_to_f1_100() -> None:
    model, trees, labels = make_model()
    golds = [gold_spans(t, labels) for t in trees]
    sentences = [sentence_of(t) for t in trees]
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(80):
        optimizer.zero_grad()
        out = model.loss(sentences, golds)
        out.loss.backward()
        optimizer.step()
        if out.part("hinge") == 0.0:
            break
    model.eval()
    predicted = model.parse(sentences)
    assert score_trees(trees, predicted, "COLLINS.prm").scores.f1 == 100.0
    assert [t.to_bracketed() for t in predicted] == [t.to_bracketed() for t in trees]


def test_predicted_trees_carry_input_tags_unless_tagging_head() -> None:
    model, trees, _ = make_model()
    model.eval()
    sentence = [("XX", w) for _, w in sentence_of(trees[1])]
    (tree,) = model.parse([sentence])
    assert tree.tags() == ["XX"] * len(sentence) and tree.words() == [w for _, w in sentence]
    tagger, _, _ = make_model(predict_tags=True, d_tag_hidden=16)
    tagger.eval()
    (tagged,) = tagger.parse([sentence])
    assert all(tag in tagger.vocab.tags and tag not in ("<pad>", "<unk>", "<start>", "<stop>") for tag in tagged.tags())


def test_too_long_sentence_is_a_clear_error() -> None:
    model, _, _ = make_model(max_len=10)
    with pytest.raises(SentenceTooLongError, match="longer than this model's maximum of 8"):
        model.parse([[("NN", "w")] * 9])
    assert len(model.parse([[("NN", "w")] * 8])) == 1


def test_spec_round_trip_restores_the_same_model() -> None:
    model, trees, _ = make_model()
    model.eval()
    clone = SpanParser.from_spec(model.spec())
    clone.load_state_dict(model.state_dict())
    clone.eval()
    sentences = [sentence_of(t) for t in trees]
    a, _ = model(model.make_batch(sentences))
    b, _ = clone(clone.make_batch(sentences))
    assert torch.equal(a, b)
    assert dataclasses.asdict(clone.config) == dataclasses.asdict(model.config)


def test_make_batch_matches_element_by_element_indexing() -> None:
    model = make_model()[0]
    vocab = model.vocab
    sentences = [[("DT", "the"), ("NN", "dog")], [("XX", "ünseen"), ("NN", "a-very-long-unknown-word"), (".", ".")],
                 [("NNP", "John")]]
    batch = model.make_batch(sentences)
    width = max(map(len, sentences)) + 2
    assert batch.lengths == [2, 3, 1]
    for b, sentence in enumerate(sentences):
        t = len(sentence) + 2
        assert batch.mask[b].tolist() == [True] * t + [False] * (width - t)
        assert batch.words[b, :t].tolist() == vocab.word_ids([w for _, w in sentence])
        assert batch.tags[b, :t].tolist() == vocab.tag_ids([tag for tag, _ in sentence])
        assert batch.words[b, t:].eq(0).all() and batch.tags[b, t:].eq(0).all()
        for position, ids in enumerate(vocab.char_ids([w for _, w in sentence])):
            assert batch.chars[b, position, :len(ids)].tolist() == ids
            assert batch.chars[b, position, len(ids):].eq(0).all()
            assert int(batch.char_lengths[b, position]) == len(ids)
        assert batch.char_lengths[b, t:].eq(0).all()
    assert batch.words.dtype == batch.chars.dtype == torch.long and batch.mask.dtype == torch.bool
