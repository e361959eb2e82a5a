"""Word/tag/character vocabularies."""

from __future__ import annotations

from mlparse.data.vocab import CHAR_BOW, CHAR_EOW, CHAR_START, CHAR_STOP, START, STOP, UNK, ParserVocab, Vocab

SENTENCES = [[("DT", "the"), ("NN", "dog")], [("DT", "the"), ("NN", "cat"), (".", ".")]]


def test_vocab_specials_and_unknown() -> None:
    vocab = Vocab(["b", "a", "b"])
    assert vocab.itos[:4] == ["<pad>", UNK, START, STOP]
    assert len(vocab) == 6  # duplicates kept once
    assert vocab.index("a") == 5 and vocab.token(5) == "a"
    assert vocab.index("zzz") == 1
    again = Vocab.from_list(vocab.to_list(), vocab.num_specials)
    assert again.itos == vocab.itos and again.stoi == vocab.stoi


def test_parser_vocab_build_counts_and_ids() -> None:
    vocab = ParserVocab.build(SENTENCES)
    assert vocab.word_counts == {"the": 2, "dog": 1, "cat": 1, ".": 1}
    ids = vocab.word_ids(["the", "unseen"])
    assert ids[0] == vocab.words.index(START) and ids[-1] == vocab.words.index(STOP)
    assert ids[1] == vocab.words.index("the") and ids[2] == vocab.words.index(UNK)
    tags = vocab.tag_ids(["NN", "XX"])
    assert tags[1] == vocab.tags.index("NN") and tags[2] == 1
    counts = vocab.count_table()
    assert counts[vocab.words.index("the")] == 2 and counts[vocab.words.index(START)] == 0
    assert len(counts) == len(vocab.words)


def test_char_ids_mark_word_boundaries_and_sentence_ends() -> None:
    vocab = ParserVocab.build(SENTENCES)
    chars = vocab.char_ids(["dog", "é"])
    bow, eow = vocab.chars.index(CHAR_BOW), vocab.chars.index(CHAR_EOW)
    assert chars[0] == [bow, vocab.chars.index(CHAR_START), eow]
    assert chars[-1] == [bow, vocab.chars.index(CHAR_STOP), eow]
    assert chars[1] == [bow] + [vocab.chars.index(c) for c in "dog"] + [eow]
    assert chars[2][1] == 1  # unseen character -> unknown


def test_min_count_and_round_trip() -> None:
    vocab = ParserVocab.build(SENTENCES, word_min_count=2)
    assert "the" in vocab.words and "dog" not in vocab.words
    restored = ParserVocab.from_dict(vocab.to_dict())
    assert restored.words.itos == vocab.words.itos and restored.tags.itos == vocab.tags.itos
    assert restored.chars.itos == vocab.chars.itos and restored.word_counts == vocab.word_counts


def test_cached_char_ids_equal_char_ids_and_the_cache_is_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    vocab = ParserVocab.build([[("NN", "dog"), ("VB", "barks")]])
    words = ["dog", "cat", "dog", "\x00start", "barks"]
    assert vocab.char_ids_cached(words) == vocab.char_ids(words)
    assert vocab.char_ids_cached(words) == vocab.char_ids(words)  # from the cache the second time
    monkeypatch.setattr(ParserVocab, "CHAR_CACHE_LIMIT", 3)
    for k in range(10):
        vocab.char_ids_cached([f"w{k}"])
        assert len(vocab._char_cache) <= 3 + 1 + 2  # limit, the newest word, start and stop
    assert vocab.char_ids_cached(["zebra"]) == vocab.char_ids(["zebra"])
