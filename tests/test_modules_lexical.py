"""Tests for the lexical modules: CharLSTM, CharConcat, LexicalEmbedding."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mlparse.modules import (
    CharConcat,
    CharLSTM,
    LexicalConfig,
    LexicalEmbedding,
    prefix_suffix_from_chars,
    prefix_suffix_ids,
)


def pad_words(sentences: list[list[list[int]]]) -> tuple[torch.Tensor, torch.Tensor]:
    """Character ids per word per sentence -> chars [B, T, C], char_lengths [B, T]."""
    batch = len(sentences)
    length = max(len(s) for s in sentences)
    width = max(len(w) for s in sentences for w in s)
    chars = torch.zeros(batch, length, width, dtype=torch.long)
    lengths = torch.zeros(batch, length, dtype=torch.long)
    for b, sentence in enumerate(sentences):
        for t, word in enumerate(sentence):
            chars[b, t, : len(word)] = torch.tensor(word)
            lengths[b, t] = len(word)
    return chars, lengths


# --- CharLSTM ------------------------------------------------------------------------------


def test_char_lstm_matches_unpadded_run_per_word() -> None:
    torch.manual_seed(0)
    model = CharLSTM(num_chars=12, d_char_emb=6, d_out=10, char_dropout=0.2).eval()
    sentences = [[[1, 2, 3], [4], [5, 6, 7, 8, 9]], [[2, 2], [11, 3, 4, 5]]]
    chars, lengths = pad_words(sentences)
    out = model(chars, lengths)
    assert out.shape == (2, 3, 10)
    for b, sentence in enumerate(sentences):
        for t, word in enumerate(sentence):
            emb = model.embedding(torch.tensor([word]))
            states, _ = model.lstm(emb)  # [1, len, 10]
            expected = torch.cat([states[0, -1, :5], states[0, 0, 5:]])  # fwd last, bwd first
            torch.testing.assert_close(out[b, t], expected, rtol=1e-5, atol=1e-6)
    assert bool((out[1, 2] == 0).all())  # padding word (length 0)


def test_char_lstm_validates_shapes() -> None:
    model = CharLSTM(num_chars=5, d_char_emb=4, d_out=8)
    with pytest.raises(ValueError, match="char_lengths"):
        model(torch.ones(1, 2, 3, dtype=torch.long), torch.ones(1, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="even"):
        CharLSTM(num_chars=5, d_char_emb=4, d_out=7)


@pytest.mark.parametrize("training", [True, False])
def test_char_lstm_packed_kernel_gives_nn_lstms_vectors_and_gradients(training: bool) -> None:
    torch.manual_seed(0)
    model = CharLSTM(num_chars=20, d_char_emb=8, d_out=12, char_dropout=0.2).train(training)
    model.share_words = False
    sentences = [[[1, 2, 3], [4], [5, 6, 7, 8, 9, 10, 11]], [[2, 2], [11, 3, 4, 5], [7], [19, 18]]]
    chars, lengths = pad_words(sentences)
    results = []
    for packed in (False, True):
        model.packed_on_cpu = packed
        model.zero_grad()
        torch.manual_seed(1)  # the same dropout masks
        out = model(chars, lengths)
        if training:
            (out * torch.linspace(-1, 1, out.numel()).view(out.shape)).sum().backward()
        results.append((out.detach(), {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}))
    (reference, reference_grads), (got, grads) = results
    assert torch.allclose(got, reference, atol=1e-6)
    assert got[0, 3:].abs().max() == 0  # padding positions: zero vectors
    assert reference_grads.keys() == grads.keys() and (len(grads) > 0) == training
    for name, grad in reference_grads.items():
        assert torch.allclose(grads[name], grad, atol=1e-6), name


# --- CharConcat ----------------------------------------------------------------------------


def test_prefix_suffix_short_and_long_words() -> None:
    assert prefix_suffix_ids([3, 4], n_chars=4) == ([3, 4, 0, 0], [4, 3, 0, 0])
    word = list(range(1, 11))  # 10 characters, longer than 2 * 4
    assert prefix_suffix_ids(word, n_chars=4) == ([1, 2, 3, 4], [10, 9, 8, 7])
    assert prefix_suffix_ids([], n_chars=2) == ([0, 0], [0, 0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(1, 30), min_size=1, max_size=12), min_size=1, max_size=5))
def test_prefix_suffix_tensor_agrees_with_lists(words: list[list[int]]) -> None:
    chars, lengths = pad_words([words])
    prefix, suffix = prefix_suffix_from_chars(chars, lengths, n_chars=8)
    for t, word in enumerate(words):
        expected_prefix, expected_suffix = prefix_suffix_ids(word, n_chars=8)
        assert prefix[0, t].tolist() == expected_prefix
        assert suffix[0, t].tolist() == expected_suffix


def test_char_concat_output_is_concatenated_embeddings() -> None:
    torch.manual_seed(0)
    model = CharConcat(num_chars=20, d_char_emb=3, n_chars=2)
    chars, lengths = pad_words([[[5], [6, 7, 8]]])
    out = model.forward_chars(chars, lengths)
    assert out.shape == (1, 2, 2 * 2 * 3) and model.d_out == 12
    table = model.embedding.weight
    pad = table[0]  # the learned padding letter fills the empty slots of short words
    torch.testing.assert_close(out[0, 0], torch.cat([table[5], pad, table[5], pad]))  # 1-letter word, padded
    torch.testing.assert_close(out[0, 1], torch.cat([table[6], table[7], table[8], table[7]]))  # suffix reversed


def test_char_concat_paper_size() -> None:
    model = CharConcat(num_chars=10)
    prefix = torch.zeros(2, 3, 8, dtype=torch.long)
    assert model(prefix, prefix).shape == (2, 3, 512)
    with pytest.raises(ValueError):
        model(prefix[..., :4], prefix[..., :4])


# --- LexicalEmbedding ---------------------------------------------------------------------


def lexical_batch() -> dict[str, torch.Tensor]:
    torch.manual_seed(3)
    mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2])
    words = torch.randint(2, 15, (2, 5)) * mask
    tags = torch.randint(1, 6, (2, 5)) * mask
    chars, lengths = pad_words([[[1, 2], [3], [4, 5, 6], [7], [1, 1]], [[2], [3, 3], [4]]])
    return {"mask": mask, "words": words, "tags": tags, "chars": chars, "char_lengths": lengths}


def base_config(**overrides: object) -> LexicalConfig:
    settings_: dict[str, object] = dict(
        num_words=15, num_tags=6, num_chars=10, use_words=True, use_tags=True, char_model="lstm",
        d_content=8, d_position=8, max_len=16, d_char_emb_lstm=4, d_char_emb_concat=2, concat_chars=2,
        layer_norm=False, unk_word_index=1,
    )
    settings_.update(overrides)
    return LexicalConfig(**settings_)  # type: ignore[arg-type]


@pytest.mark.parametrize(("char_model", "concat_chars"), [("lstm", 2), ("concat", 2), ("concat", 1)])
def test_factored_input_is_sum_then_positions(char_model: str, concat_chars: int) -> None:
    batch = lexical_batch()
    embedding = LexicalEmbedding(base_config(char_model=char_model, concat_chars=concat_chars)).eval()
    z = embedding(**batch)
    assert z.shape == (2, 5, 16)
    mask = batch["mask"]
    if char_model == "lstm":
        assert embedding.char_lstm is not None
        chars = embedding.char_lstm(batch["chars"], batch["char_lengths"])
    else:
        assert embedding.char_concat is not None
        chars = embedding.char_concat.forward_chars(batch["chars"], batch["char_lengths"])
        # 2 * n * d_char_emb = 2 * 2 * 2 = 8 = d_content: packed as is; with n = 1 the 4 letter
        # features are followed by 4 zeros, and no parameter besides the letter table is added.
        packed = 2 * concat_chars * 2
        assert chars.shape[-1] == 8 and bool((chars[..., packed:] == 0).all())
        assert [name for name, _ in embedding.char_concat.named_parameters()] == ["embedding.weight"]
    content = embedding.word_embedding(batch["words"]) + embedding.tag_embedding(batch["tags"]) + chars
    torch.testing.assert_close(z[..., :8][mask], content[mask])
    positions = embedding.position_table[:5].expand(2, 5, 8)
    torch.testing.assert_close(z[..., 8:][mask], positions[mask])
    assert bool((z[~mask] == 0).all())


def test_unfactored_input_adds_positions() -> None:
    batch = lexical_batch()
    embedding = LexicalEmbedding(base_config(factored=False, use_tags=False, char_model=None)).eval()
    z = embedding(**batch)
    expected = embedding.word_embedding(batch["words"]) + embedding.position_table[:5]
    mask = batch["mask"]
    torch.testing.assert_close(z[mask], expected[mask])
    assert embedding.position_table.shape == (16, 16)


def test_layer_norm_applied_over_model_vector() -> None:
    batch = lexical_batch()
    z = LexicalEmbedding(base_config(layer_norm=True)).eval()(**batch)
    real = z[batch["mask"]]
    torch.testing.assert_close(real.mean(-1), torch.zeros(real.shape[0]), atol=1e-5, rtol=0)


def test_missing_inputs_and_long_sentences_raise_clear_errors() -> None:
    batch = lexical_batch()
    embedding = LexicalEmbedding(base_config())
    with pytest.raises(ValueError, match="pass tags"):
        embedding(batch["mask"], words=batch["words"], chars=batch["chars"], char_lengths=batch["char_lengths"])
    short = LexicalEmbedding(base_config(max_len=4))
    with pytest.raises(ValueError, match="max_len=4"):
        short(**batch)
    with pytest.raises(ValueError, match="no input"):
        LexicalEmbedding(base_config(use_words=False, use_tags=False, char_model=None))
    with pytest.raises(ValueError, match="char_model"):
        LexicalEmbedding(base_config(char_model="cnn"))


def test_unk_word_dropout_spares_start_stop_and_eval() -> None:
    batch = lexical_batch()
    embedding = LexicalEmbedding(base_config())
    embedding.set_word_counts(torch.zeros(15))  # count 0 -> replaced with probability 1
    mask, words = batch["mask"], batch["words"]
    embedding.train()
    replaced = embedding._unk_dropout(words, mask)
    assert replaced[0].tolist() == [words[0, 0].item(), 1, 1, 1, words[0, 4].item()]
    assert replaced[1].tolist() == [words[1, 0].item(), 1, words[1, 2].item(), 0, 0]
    embedding.set_word_counts(torch.full((15,), 1e9))  # frequent words are (almost) never replaced
    assert torch.equal(embedding._unk_dropout(words, mask), words)
    embedding.set_word_counts(torch.zeros(15))
    embedding.eval()
    assert torch.equal(embedding._unk_dropout(words, mask), words)


def test_lexical_gradients_reach_every_parameter() -> None:
    batch = lexical_batch()
    for char_model in ("lstm", "concat"):
        embedding = LexicalEmbedding(base_config(char_model=char_model, layer_norm=True)).train()
        embedding(**batch).pow(2).sum().backward()
        missing = [n for n, p in embedding.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)]
        assert missing == []


def test_char_concat_skips_boundary_markers() -> None:
    bow, eow = 2, 3
    chars, lengths = pad_words([[[bow, 5, 6, 7, eow], [bow, 9, eow]]])
    prefix, suffix = prefix_suffix_from_chars(chars, lengths, n_chars=2, skip_boundary_markers=True)
    assert prefix[0].tolist() == [[5, 6], [9, 0]]
    assert suffix[0].tolist() == [[7, 6], [9, 0]]
    with_markers = CharConcat(num_chars=10, d_char_emb=2, n_chars=2, skip_boundary_markers=True)
    plain_chars, plain_lengths = pad_words([[[5, 6, 7], [9]]])
    expected = with_markers(*prefix_suffix_from_chars(plain_chars, plain_lengths, n_chars=2))
    torch.testing.assert_close(with_markers.forward_chars(chars, lengths), expected)


def test_lexical_embedding_runs_under_autocast() -> None:
    batch = lexical_batch()
    embedding = LexicalEmbedding(base_config(char_model="lstm", layer_norm=True)).eval()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        z = embedding(**batch)
    assert z.shape == (2, 5, 16) and bool(torch.isfinite(z).all())
