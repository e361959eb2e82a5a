"""Vocabularies of a dependency parser, built from CoNLL-U sentences."""

from __future__ import annotations

import json

import pytest

from mlparse.data.dependency_vocab import DependencyVocab
from mlparse.data.vocab import CHAR_BOW, START, STOP, UNK
from mlparse.trees.dependency import parse_conllu

TEXT = (
    "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n"
    "2\tdog\tdog\tNOUN\tNN\t_\t3\tnsubj\t_\t_\n"
    "3-4\tbarks.\t_\t_\t_\t_\t_\t_\t_\t_\n"
    "3\tbarks\tbark\tVERB\tVBZ\t_\t0\troot\t_\t_\n"
    "4\t.\t.\tPUNCT\t.\t_\t3\tpunct\t_\t_\n"
    "\n"
    "1\tThe\tthe\tDET\tDT\t_\t2\tdet\t_\t_\n"
    "2\tcat\tcat\tNOUN\tNN\t_\t0\troot\t_\t_\n"
    "3\tcat\tcat\tNOUN\tNN\t_\t2\tnmod:poss\t_\t_\n"
)


def sentences():
    return parse_conllu(TEXT).sentences


def test_words_tags_characters_and_relations_come_from_the_words_only():
    vocab = DependencyVocab.build(sentences())
    lexical = vocab.lexical
    assert lexical.word_counts == {"The": 2, "dog": 1, "barks": 1, ".": 1, "cat": 2}  # not the range "barks."
    assert lexical.tags.itos[lexical.tags.num_specials:] == ["DET", "NOUN", "PUNCT", "VERB"]
    assert "." in lexical.chars and "T" in lexical.chars and lexical.chars.index(CHAR_BOW) > 1
    assert vocab.rels.itos == ["<pad>", UNK, "det", "nmod:poss", "nsubj", "punct", "root"]
    first = sentences()[0]
    assert vocab.rel_ids(first.deprels) == [2, 4, 6, 5]
    assert vocab.rel_ids(["obl:tmod"]) == [1]  # unseen in training: unknown
    ids = lexical.tag_ids(vocab.tags_of(first))
    assert ids[0] == lexical.tags.index(START) and ids[-1] == lexical.tags.index(STOP)
    assert [lexical.tags.token(i) for i in ids[1:-1]] == ["DET", "NOUN", "VERB", "PUNCT"]


def test_xpos_tags_and_word_min_count():
    vocab = DependencyVocab.build(sentences(), word_min_count=2, tag_column="xpos")
    assert vocab.lexical.tags.itos[vocab.lexical.tags.num_specials:] == [".", "DT", "NN", "VBZ"]
    assert vocab.tags_of(sentences()[1]) == ("DT", "NN", "NN")
    words = vocab.lexical.words
    assert "The" in words and "cat" in words and "dog" not in words
    assert vocab.lexical.word_ids(["dog"])[1] == words.index(UNK)
    with pytest.raises(ValueError, match="tag_column must be one of upos, xpos, not 'feats'"):
        DependencyVocab.build(sentences(), tag_column="feats")


def test_to_dict_is_plain_json_and_round_trips():
    vocab = DependencyVocab.build(sentences(), tag_column="xpos")
    data = json.loads(json.dumps(vocab.to_dict()))
    assert data == vocab.to_dict()
    again = DependencyVocab.from_dict(data)
    assert again.tag_column == "xpos" and again.rels.itos == vocab.rels.itos and again.rels.stoi == vocab.rels.stoi
    for name in ("words", "tags", "chars"):
        assert getattr(again.lexical, name).itos == getattr(vocab.lexical, name).itos
    assert again.lexical.word_counts == vocab.lexical.word_counts
    assert again.rel_ids(["root", "det", "xcomp"]) == vocab.rel_ids(["root", "det", "xcomp"])
