"""Dependency sentences: CoNLL-U reading, writing predictions back byte for byte, the tree check."""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest

from mlparse.trees.dependency import (
    ConlluError,
    DependencyPrediction,
    format_sentence,
    parse_conllu,
    read_conllu,
    render_conllu,
    sentence_from_words,
    tree_problem,
    write_conllu,
)
from mlparse.trees.errors import TreeEncodingError
from mlparse.trees.token_layer import token_problem

# Two sentences: comments, a multiword token, an empty node, odd spacing in MISC, XPOS "_",
# a FORM with a space, CRLF on one line; three blank lines between them, two at the end.
DOC = (
    "# newdoc id = d1\n"
    "# sent_id = 1\n"
    "# text = I can't go.\n"
    "1\tI\tI\tPRON\tPRP\tCase=Nom|Number=Sing\t4\tnsubj\t4:nsubj\t_\n"
    "2-3\tcan't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
    "2\tca\tcan\tAUX\tMD\tVerbForm=Fin\t4\taux\t4:aux\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t4\tadvmod\t4:advmod\t_\n"
    "4\tgo\tgo\tVERB\tVB\tVerbForm=Inf\t0\troot\t0:root\tSpaceAfter=No\n"
    "4.1\twent\tgo\tVERB\tVBD\t_\t_\t_\t4:conj\t_\n"
    "5\t.\t.\tPUNCT\t.\t_\t4\tpunct\t4:punct\t_\n"
    "\n"
    "  \n"
    "\n"
    "# sent_id = 2\n"
    "1\tNew York\tNew York\tPROPN\t_\t_\t0\troot\t0:root\tNote= two  spaces \r\n"
    "2\t!\t!\tPUNCT\t_\t_\t1\tpunct\t1:punct\t_\n"
    "\n"
    "\n"
)


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def gold(document):
    return [DependencyPrediction(s.heads, s.deprels) for s in document.sentences]


def test_words_skip_multiword_tokens_and_empty_nodes_and_keep_their_place(tmp_path):
    document = read_conllu(write(tmp_path, "a.conllu", DOC), "a.conllu")
    first, second = document.sentences
    assert first.words == ("I", "ca", "n't", "go", ".")
    assert first.lemmas == ("I", "can", "not", "go", ".")
    assert first.upos == ("PRON", "AUX", "PART", "VERB", "PUNCT")
    assert first.xpos == ("PRP", "MD", "RB", "VB", ".")
    assert first.feats[0] == "Case=Nom|Number=Sing" and first.feats_dict(0) == {"Case": "Nom", "Number": "Sing"}
    assert first.feats_dict(2) is None
    assert first.heads == (4, 4, 4, 0, 4)
    assert first.deprels == ("nsubj", "aux", "advmod", "root", "punct")
    assert (first.source, first.line, len(first)) == ("a.conllu", 1, 5)
    assert first.word_lines == (3, 5, 6, 7, 9)  # the range 2-3 and the empty node 4.1 are lines 4 and 8
    assert second.words == ("New York", "!") and second.xpos == ("_", "_")
    assert (second.line, second.heads) == (14, (0, 1))
    assert document.gaps == ("", "\n  \n\n", "\n\n")


@pytest.mark.parametrize("engine", ["fast", "conllu"])
def test_gold_round_trip_is_byte_identical(tmp_path, engine):
    for name, data in [("plain", DOC), ("no_final_newline", DOC.rstrip("\n")), ("crlf", DOC.replace("\n", "\r\n")),
                       ("bom", codecs.BOM_UTF8 + DOC.encode("utf-8")), ("empty", ""), ("blank", "\n\n")]:
        path = write(tmp_path, f"{name}.conllu", data)
        original = path.read_bytes()
        document = read_conllu(path, engine=engine)
        assert render_conllu(document).encode("utf-8") == original, name
        assert render_conllu(document, gold(document)).encode("utf-8") == original, name
        out = tmp_path / f"{name}.out.conllu"
        write_conllu(out, document, gold(document))
        assert out.read_bytes() == original, name


def test_a_byte_order_mark_is_not_part_of_the_first_word(tmp_path):
    text = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"
    document = read_conllu(write(tmp_path, "bom.conllu", codecs.BOM_UTF8 + text.encode("utf-8")))
    assert document.bom and document.sentences[0].words == ("Hi",)
    assert not read_conllu(write(tmp_path, "nobom.conllu", text)).bom


def test_predictions_replace_head_and_deprel_and_tags_only_when_asked(tmp_path):
    path = write(tmp_path, "a.conllu", DOC)
    document = read_conllu(path)
    predictions = [
        DependencyPrediction([2, 0, 2, 2, 4], ["det", "root", "x", "dep", "punct"]),
        DependencyPrediction([2, 0], ["vocative", "root"], upos=["NOUN", "SYM"], xpos=["NNP", "."]),
    ]
    out = tmp_path / "pred.conllu"
    write_conllu(out, document, predictions)
    before, after = DOC.split("\n"), out.read_bytes().decode("utf-8").split("\n")
    assert len(before) == len(after)
    words = {3: (0, 0), 5: (0, 1), 6: (0, 2), 7: (0, 3), 9: (0, 4), 14: (1, 0), 15: (1, 1)}
    for index, (old, new) in enumerate(zip(before, after)):
        if index not in words:
            assert new == old  # comments, the range, the empty node, blank lines
            continue
        k, i = words[index]
        old_fields, new_fields = old.split("\t"), new.split("\t")
        assert new_fields[6] == str(predictions[k].heads[i]) and new_fields[7] == predictions[k].deprels[i]
        tags = (old_fields[3], old_fields[4]) if predictions[k].upos is None else (predictions[k].upos[i], predictions[k].xpos[i])
        assert (new_fields[3], new_fields[4]) == tags
        changed = {6, 7} if predictions[k].upos is None else {3, 4, 6, 7}
        assert [f for c, f in enumerate(new_fields) if c not in changed] == [f for c, f in enumerate(old_fields) if c not in changed]
    assert after[14].endswith("Note= two  spaces \r")  # the CRLF line keeps its ending and MISC text
    reread = read_conllu(out)
    assert [s.heads for s in reread.sentences] == [(2, 0, 2, 2, 4), (2, 0)]
    assert reread.sentences[1].upos == ("NOUN", "SYM")


@pytest.mark.parametrize(
    "prediction, message",
    [
        (DependencyPrediction([0, 1], ["root", "dep"]), "2 heads for a sentence of 5 words"),
        (DependencyPrediction([4, 4, 4, 0, 9], ["a"] * 5), "head 9 is not a word number in 0..5"),
        (DependencyPrediction([4, 4, 4, 0, 4], ["a", "b", "c d\te", "root", "p"]), "cannot write deprel 'c d\\te'"),
        (DependencyPrediction([4, 4, 4, 0, 4], ["a"] * 5, upos=["X"] * 4), "4 upos tags for a sentence of 5 words"),
    ],
)
def test_unwritable_predictions_are_refused(prediction, message):
    document = parse_conllu(DOC, "a.conllu")
    with pytest.raises(ValueError, match=re.escape("a.conllu:1: " + message)):
        render_conllu(document, [prediction, gold(document)[1]])
    with pytest.raises(ValueError, match="1 predictions for 2 sentences"):
        render_conllu(document, [prediction])


GOOD_LINE = "1\tw\tw\tX\tX\t_\t0\troot\t_\t_"


@pytest.mark.parametrize(
    "lines, line, column, message",
    [
        (["# c", "1\tw\tw\tX\tX\t_\t0\troot\t_"], 2, 1, "a word line has 9 tab-separated columns, CoNLL-U has 10"),
        (["1 w w X X _ 0 root _ _"], 1, 1, "has 1 tab-separated column,"),
        (["1\tw\tw\tX\tX\t_\t0\troot\t_\t_\t_"], 1, 1, "has 11 tab-separated columns"),
        (["1\tw\t\tX\tX\t_\t0\troot\t_\t_"], 1, 5, "column LEMMA is empty"),
        (["x\tw\tw\tX\tX\t_\t0\troot\t_\t_"], 1, 1, "ID 'x' is neither a word number"),
        (["1\tw\tw\tX\tX\t_\tone\troot\t_\t_"], 1, 13, "HEAD 'one' is not a word number or _"),
        (["1\tw\tw\tX\tX\t_\t01\troot\t_\t_"], 1, 13, "HEAD '01' is not a word number"),
        ([GOOD_LINE, "3\tw\tw\tX\tX\t_\t1\tdep\t_\t_"], 2, 1, "word ID 3 where 2 was expected"),
        (["0\tw\tw\tX\tX\t_\t0\troot\t_\t_"], 1, 1, "word ID 0 where 1 was expected"),
        ([GOOD_LINE, "3-2\tww\t_\t_\t_\t_\t_\t_\t_\t_"], 2, 1, "the multiword token range 3-2 runs backwards"),
        ([GOOD_LINE, "1.0\tw\t_\t_\t_\t_\t_\t_\t_\t_"], 2, 1, "ID '1.0' is neither"),
    ],
)
def test_malformed_lines_are_errors_naming_file_line_and_column(tmp_path, lines, line, column, message):
    text = "# sent_id = 1\n" + GOOD_LINE + "\n\n" + "\n".join(lines) + "\n\n"
    path = write(tmp_path, "bad.conllu", text)
    with pytest.raises(ConlluError) as caught:
        read_conllu(path, "treebank/bad.conllu")
    error = caught.value
    assert (error.source, error.line, error.column) == ("treebank/bad.conllu", 3 + line, column)
    assert message in str(error) and str(error).startswith(f"treebank/bad.conllu:{3 + line}:{column}: malformed CoNLL-U: ")
    assert isinstance(error, ValueError)


def test_bytes_that_are_not_utf8_are_an_error_with_position(tmp_path):
    path = write(tmp_path, "latin.conllu", GOOD_LINE.replace("\tw\t", "\t\xe9\t").encode("latin-1") + b"\n")
    with pytest.raises(TreeEncodingError) as caught:
        read_conllu(path, "latin.conllu")
    assert (caught.value.line, caught.value.column) == (1, 3) and "0xe9" in str(caught.value)


def sentence(rows, deprel="dep"):
    text = "".join(f"{i}\tw{i}\tw\tX\tX\t_\t{head}\t{'root' if head == 0 else deprel}\t_\t_\n" for i, head in rows)
    return parse_conllu(text).sentences[0]


@pytest.mark.parametrize(
    "rows, message",
    [
        ([(1, 0), (2, 0)], "2 words have HEAD 0 (words 1, 2): a tree has exactly one root"),
        ([(1, 2), (2, 1)], "no word has HEAD 0: a tree has exactly one root"),
        ([(1, 0), (2, 3), (3, 4), (4, 2)], "the heads form a cycle: 2 -> 3 -> 4 -> 2"),
        ([(1, 0), (2, 2)], "the heads form a cycle: 2 -> 2"),
        ([(1, 0), (2, 7)], "word 2 has HEAD 7, outside 0..2"),
        ([(1, 0), (2, -1)], "word 2 has HEAD -1, outside 0..2"),
        ([(1, 0), (2, "_")], "word 2 has no HEAD (_)"),
    ],
)
def test_sentences_that_are_not_trees_are_refused_with_a_reason(rows, message):
    assert tree_problem(sentence(rows)) == message


def test_missing_relations_and_empty_sentences_are_refused():
    assert tree_problem(sentence([(1, 0), (2, 1)], deprel="_")) == "word 2 has no DEPREL (_)"
    only_comments = parse_conllu("# sent_id = x\n# text = \n").sentences[0]
    only_a_range = parse_conllu("1-2\tdu\t_\t_\t_\t_\t_\t_\t_\t_\n").sentences[0]
    for empty in (only_comments, only_a_range):
        assert len(empty) == 0 and tree_problem(empty) == "no syntactic words (an empty sentence)"
    assert tree_problem(sentence([(1, 2), (2, 0), (3, 2)])) is None
    assert tree_problem(parse_conllu(DOC).sentences[0]) is None


def sample(text: str, head: int = 60_000, tail: int = 20_000) -> str:
    """The first sentences of ``text`` (about ``head`` characters) and its last ones (about ``tail``)."""
    if len(text) <= head + tail:
        return text
    first_end = text.index("\n\n", head) + 2
    last_start = text.rindex("\n\n", 0, len(text) - tail) + 2
    return text[:first_end] + text[last_start:]


def test_every_shared_conllu_file_round_trips_and_both_engines_agree(treebanks, tmp_path):
    files = sorted(treebanks.rglob("*.conllu"))
    assert len(files) >= 12
    for path in files:
        data = path.read_bytes()
        text = sample(data.decode("utf-8"))
        part = write(tmp_path, path.name, text)
        document = read_conllu(part, path.name)
        assert len(document) > 10
        assert render_conllu(document, gold(document)).encode("utf-8") == text.encode("utf-8"), path.name
        small = parse_conllu(sample(text, 15_000, 5_000), path.name)
        assert small.sentences == parse_conllu(sample(text, 15_000, 5_000), path.name, engine="conllu").sentences
        assert all(tree_problem(s) is None for s in document.sentences), path.name
        assert all(token_problem(s) is None for s in document.sentences), path.name


def test_tokenized_words_become_a_sentence_that_takes_a_prediction():
    built = sentence_from_words(["Hello", "world", "!"], "in.txt", 3)
    assert (built.words, built.heads, built.upos, built.source, built.line) == (("Hello", "world", "!"), (None,) * 3, ("_",) * 3, "in.txt", 3)
    assert tree_problem(built) == "word 1 has no HEAD (_)"
    text = format_sentence(built, DependencyPrediction([0, 1, 1], ["root", "vocative", "punct"], upos=["INTJ", "NOUN", "PUNCT"]))
    assert text == ("1\tHello\t_\tINTJ\t_\t_\t0\troot\t_\t_\n2\tworld\t_\tNOUN\t_\t_\t1\tvocative\t_\t_\n"
                    "3\t!\t_\tPUNCT\t_\t_\t1\tpunct\t_\t_\n")
    assert tree_problem(parse_conllu(text).sentences[0]) is None
    with pytest.raises(ValueError, match="in.txt:1: cannot write the word 'a\\\\tb'"):
        sentence_from_words(["a\tb"], "in.txt")
