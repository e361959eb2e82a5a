"""Every reader error path: type, exact message, file, line, column and snippet."""

import pickle

import pytest

from mlparse.trees import (
    ChildlessNodeError,
    ExtraCloseBracketError,
    MixedLeafError,
    TextOutsideTreeError,
    TreeReadError,
    UnclosedBracketError,
    parse_bracketed,
)


def error_of(text: str, **options) -> TreeReadError:
    with pytest.raises(TreeReadError) as caught:
        parse_bracketed(text, source="wsj_0001.mrg", **options)
    return caught.value


def test_unclosed_bracket_points_at_the_tree_start() -> None:
    error = error_of("(S (X a))\n\n  (S (NP (DT the) (NN dog)\n     (VP (VBZ barks))\n")
    assert isinstance(error, UnclosedBracketError)
    assert (error.source, error.line, error.column) == ("wsj_0001.mrg", 3, 3)
    assert str(error) == (
        "wsj_0001.mrg:3:3: unbalanced brackets: '(' opened here is never closed "
        "(2 ')' missing at end of input)\n"
        "      (S (NP (DT the) (NN dog)\n"
        "      ^"
    )


def test_extra_close_bracket() -> None:
    error = error_of("(S (X a))\n(S (X b)))\n")
    assert isinstance(error, ExtraCloseBracketError)
    assert (error.line, error.column) == (2, 10)
    assert str(error) == (
        "wsj_0001.mrg:2:10: unbalanced brackets: ')' closes nothing (no tree is open)\n"
        "    (S (X b)))\n"
        "             ^"
    )


def test_childless_node() -> None:
    error = error_of("(S\n\t(NP )\n\t(VP (VB go)))")
    assert isinstance(error, ChildlessNodeError)
    assert (error.line, error.column) == (2, 2)
    assert str(error) == "wsj_0001.mrg:2:2: childless node: (NP ) has no children\n     (NP )\n     ^"


def test_empty_brackets() -> None:
    error = error_of("(S () (X a))")
    assert isinstance(error, ChildlessNodeError)
    assert str(error) == "wsj_0001.mrg:1:4: childless node: () has no children\n    (S () (X a))\n       ^"


def test_text_outside_tree() -> None:
    error = error_of("(S (X a))\nhello (S (X b))")
    assert isinstance(error, TextOutsideTreeError)
    assert str(error) == (
        "wsj_0001.mrg:2:1: text outside any tree: 'hello' is not inside any '(' ... ')'\n"
        "    hello (S (X b))\n"
        "    ^"
    )


def test_several_atoms_in_a_leaf() -> None:
    error = error_of("(S (X a b c d e))")
    assert isinstance(error, MixedLeafError)
    assert str(error) == (
        "wsj_0001.mrg:1:4: malformed leaf: (X a b c ...) has 5 words; a leaf is (tag word) "
        "(use leaf_atoms='first' for (tag word lemma))\n"
        "    (S (X a b c d e))\n"
        "       ^"
    )


def test_atoms_mixed_with_subtrees() -> None:
    error = error_of("(S\n  (X a (Y b)))")
    assert isinstance(error, MixedLeafError)
    assert str(error) == (
        "wsj_0001.mrg:2:3: malformed leaf: (X ...) mixes words ('a') with bracketed children\n"
        "      (X a (Y b)))\n"
        "      ^"
    )


def test_columns_count_after_crlf_and_first_line_offset() -> None:
    with pytest.raises(ChildlessNodeError) as caught:
        parse_bracketed("(S (X a))\r\n(S (NP ))\r\n", source="f", first_line=10)
    assert (caught.value.line, caught.value.column) == (11, 4)
    assert "\r" not in str(caught.value)


def test_snippet_of_a_long_line_is_cut_around_the_error() -> None:
    text = "(S " + "(X a) " * 30 + "(Y ) " + "(X a) " * 30 + ")"
    error = error_of(text)
    assert error.column == 3 + 6 * 30 + 1
    snippet_line, caret_line = str(error).split("\n")[1:]
    assert snippet_line.startswith("    ...") and snippet_line.endswith(" ...")
    assert snippet_line[caret_line.index("^"):].startswith("(Y )")
    assert len(error.snippet) < 80


def test_errors_are_value_errors_and_pickle() -> None:
    error = error_of("(S (X a)")
    assert isinstance(error, ValueError)
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is UnclosedBracketError and str(copy) == str(error)
