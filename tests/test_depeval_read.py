"""depeval's reading of CoNLL-U: every message of the CoNLL 2018 script, its order of checks, and the location."""

from __future__ import annotations

import pytest

from depeval import DepevalError, evaluate_text, read_conllu, read_file


def row(word_id, form, head, deprel="dep", lemma="_", upos="X", xpos="_", feats="_"):
    return f"{word_id}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}\t_\t_\n"


def mwt(span, form):
    return f"{span}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_\n"


GOOD = row(1, "a", 0, "root") + row(2, "b", 1) + "\n"


def refused(text: str) -> DepevalError:
    with pytest.raises(DepevalError) as caught:
        read_conllu(text, "f.conllu")
    return caught.value


@pytest.mark.parametrize("text, message, line", [
    ("1\ta\t_\n\n", "The CoNLL-U line does not contain 10 tab-separated columns: '1\ta\t_'", 1),
    ("# c\n" + row(1, "a", 0) + "x\n\n", "The CoNLL-U line does not contain 10 tab-separated columns: 'x'", 3),
    (row(1, " ", 0), "There is an empty FORM in the CoNLL-U file", 1),
    (row(1, "\u00a0\u3000", 0), "There is an empty FORM in the CoNLL-U file", 1),
    (mwt("1-x", "ab") + row(1, "a", 0) + "\n", "Cannot parse multi-word token ID '1-x'", 1),
    (mwt("1-2-3", "ab") + "\n", "Cannot parse multi-word token ID '1-2-3'", 1),
    (row("one", "a", 0) + "\n", "Cannot parse word ID 'one'", 1),
    (row(1, "a", 0) + row(3, "b c", 1) + "\n", "Incorrect word ID '3' for word 'bc', expected '2'", 2),
    (mwt("1-2", "ab") + row(1, "a", 0) + row(2, "b", 1) + row(2, "c", 1) + "\n",
     "Incorrect word ID '2' for word 'c', expected '3'", 4),
    (row(1, "a", "x") + "\n", "Cannot parse HEAD 'x'", 1),
    (row(1, "a", "-1") + "\n", "HEAD cannot be negative", 1),
    (row(1, "a", 0) + row(2, "b", 3) + "\n", "HEAD '3' points outside of the sentence", 2),
    (row(1, "a", 0) + row(2, "b", 3) + row(3, "c", 2) + "\n", "There is a cycle in a sentence", 2),
    (row(1, "a", 1) + "\n", "There is a cycle in a sentence", 1),
    (row(1, "a", 0) + row(2, "b", 0) + "\n", "There are multiple roots in a sentence", 1),
    (GOOD + "\n", "There are multiple roots in a sentence", 4),
    (GOOD + row(1, "c", 0), "The CoNLL-U file does not end with empty line", 4),
    (mwt("1-2", "ab") + row(1, "a", 0) + "\n", "The CoNLL-U line does not contain 10 tab-separated columns: ''", 3),
    (mwt("1-2", "ab") + row(1, "a", 0), "The CoNLL-U line does not contain 10 tab-separated columns: ''", None),
    (row(1, "a", 0) + "# inside\n\n", "The CoNLL-U line does not contain 10 tab-separated columns: '# inside'", 2),
    (mwt("1-2", "ab") + row(1, "a", 0) + row(2, "b", "x") + "\n", "Cannot parse HEAD 'x'", 3),
])
def test_each_refusal_has_the_scripts_message_and_the_line(text, message, line):
    error = refused(text)
    assert (error.message, str(error), error.line, error.source) == (message, message, line, "f.conllu")


def test_heads_are_checked_word_by_word_following_each_chain():
    # Word 1 leads to word 2, whose head is outside: that is found before word 3's cycle.
    assert refused(row(1, "a", 2) + row(2, "b", 9) + row(3, "c", 3) + "\n").message.startswith("HEAD '9'")
    # Word 1 is its own head: the cycle is found before word 2's bad head.
    assert refused(row(1, "a", 1) + row(2, "b", 9) + "\n").message == "There is a cycle in a sentence"
    # Negative heads of basic words are refused while reading, before any tree check.
    assert refused(row(1, "a", 1) + row(2, "b", -2) + "\n").message == "HEAD cannot be negative"
    # A word of a multiword token is read without checks: its bad head shows only as out of range.
    assert refused(mwt("1-1", "a") + row(1, "a", -2) + "\n").message == "HEAD '-2' points outside of the sentence"


def test_text_mismatch_names_the_first_20_differing_characters_and_both_lines():
    gold = row(1, "abc", 0) + row(2, "defghijklmnopqrstuvwxyz0123", 1) + "\n"
    system = row(1, "abc", 0) + row(2, "dXfghijklmnopqrstuvwxyz0123", 1) + "\n"
    with pytest.raises(DepevalError) as caught:
        evaluate_text(gold, system)
    assert caught.value.message == (
        "The concatenation of tokens in gold file and in system file differ!\n"
        "First 20 differing characters in gold file: 'efghijklmnopqrstuvwx' and system file: 'Xfghijklmnopqrstuvwx'"
    )
    assert caught.value.location() == "<gold>, line 2; <system>, line 2"
    with pytest.raises(DepevalError) as caught:
        evaluate_text(GOOD, GOOD + row(1, "c", 0) + "\n")
    assert caught.value.message.endswith("in gold file: '' and system file: 'c'")
    assert caught.value.location() == "<gold>, at the end of the file; <system>, line 4"


def test_comments_empty_nodes_spaces_and_line_ends():
    text = ("# sent_id = 1\n# text = New York\n" + row(1, "New York", 0, "root") + row("1.1", "gone", "_")
            + row(2, "!", 1, "punct") + "\n")
    bank = read_conllu(text.replace("\n", "\r\n"))
    assert bank.text == "NewYork!" and bank.n_words == 2  # the empty node is ignored, the space dropped
    assert (bank.token_starts, bank.token_ends, bank.lines) == ([0, 7], [7, 8], [3, 5])
    assert (bank.sentence_starts, bank.sentence_ends) == ([0], [8])
    # A lone carriage return ends a line too, as in Python's text mode.
    assert refused(row(1, "a\rb", 0) + "\n").message == "The CoNLL-U line does not contain 10 tab-separated columns: '1\ta'"
    # A byte order mark is part of the first line, which is then no comment.
    assert refused("\ufeff# c\n" + GOOD).message.endswith("columns: '\ufeff# c'")


def test_words_of_a_multiword_token_keep_their_forms_and_span_the_token():
    bank = read_conllu(mwt("1-2", "del") + row(1, "de", 2, "case") + row(2, "el", 0, "root") + row(3, "x y", 2) + "\n")
    assert [c[1] for c in bank.columns] == ["de", "el", "xy"]
    assert (bank.starts, bank.ends, bank.multiword) == ([0, 0, 3], [3, 3, 5], [True, True, False])
    assert bank.parents == [1, -1, 1] and bank.functional_children == [None, [0], None]


def test_features_and_relations_are_reduced_to_their_universal_part():
    bank = read_conllu(row(1, "a", 0, "nsubj:pass", feats="Typo=Yes|Number=Sing|Gender[psor]=Fem|Case=Nom") + "\n")
    assert bank.columns[0][5] == "Case=Nom|Number=Sing" and bank.columns[0][7] == "nsubj:pass" and bank.columns[0][10] == "nsubj"


def test_a_long_chain_of_heads_is_no_problem():
    # The original follows heads recursively and fails past Python's recursion limit; the port has no limit.
    n = 5000
    text = row(1, "w", 0) + "".join(row(k, "w", k - 1) for k in range(2, n + 1)) + "\n"
    assert evaluate_text(text, text).las.f1 == 1.0


def test_files_that_are_not_utf8_are_refused_with_the_line(tmp_path):
    path = tmp_path / "latin1.conllu"
    path.write_bytes(GOOD.encode() + row(1, "caf\xe9", 0).encode("latin-1") + b"\n")
    with pytest.raises(DepevalError) as caught:
        read_file(path)
    assert caught.value.message == "The file is not valid UTF-8 (byte 0xe9)" and caught.value.line == 4
