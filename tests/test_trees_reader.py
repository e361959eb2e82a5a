"""Bracketed reader: root conventions, layouts, leaf rules, tolerant repairs, streaming."""

from pathlib import Path

import pytest

from mlparse.trees import reader
from mlparse.trees import (
    ChildlessNodeError,
    Leaf,
    MixedLeafError,
    ReadResult,
    Repair,
    Tree,
    TreeEncodingError,
    UnclosedBracketError,
    iter_bracketed_lines,
    parse_bracketed,
    read_bracketed_file,
)

@pytest.fixture(autouse=True, params=["compiled", "pure-python"])
def reader_path(request, monkeypatch) -> str:
    """Run every test through the compiled scanner (when built) and through the pure-Python parser."""
    if request.param == "compiled" and not reader.compiled_scanner_available():
        pytest.skip("compiled scanner not built (python3 setup.py build_ext --inplace)")
    monkeypatch.setattr(reader, "USE_COMPILED", request.param == "compiled")
    return request.param


DOG = Tree("S", [Tree("NP", [Leaf("DT", "the"), Leaf("NN", "dog")]), Tree("VP", [Leaf("VBZ", "barks")])])


def only(text: str, **options) -> Tree:
    result = parse_bracketed(text, **options)
    assert len(result.trees) == 1, result.trees
    return result.trees[0]


def test_one_line_tree() -> None:
    assert only("(S (NP (DT the) (NN dog)) (VP (VBZ barks)))") == DOG


def test_unlabelled_root_is_kept_as_written() -> None:
    tree = only("( (S (NP (DT the) (NN dog)) (VP (VBZ barks))) )")
    assert tree == Tree("", [DOG])


@pytest.mark.parametrize("root", ["TOP", "ROOT", "VROOT"])
def test_labelled_roots_are_kept(root: str) -> None:
    assert only(f"({root} (S (NP (DT the) (NN dog)) (VP (VBZ barks))))") == Tree(root, [DOG])


def test_multi_line_ptb_layout_with_blank_first_line() -> None:
    text = "\n( (S \n    (NP (DT the)\n      (NN dog) )\n    (VP (VBZ barks) )) )\n( (S\n (VP (VB go))) )\n"
    result = parse_bracketed(text)
    assert result.trees == [Tree("", [DOG]), Tree("", [Tree("S", [Tree("VP", [Leaf("VB", "go")])])])]
    assert result.lines == [2, 6]
    assert result.repairs == []


def test_crlf_tabs_and_several_trees_per_line() -> None:
    text = "(S\t(NP (DT the)\t(NN dog))\r\n\t(VP (VBZ barks)))\r\n(X (Y a)) (X (Y b))\r\n"
    result = parse_bracketed(text)
    assert result.trees[0] == DOG
    assert [t.words() for t in result.trees[1:]] == [["a"], ["b"]]
    assert result.lines == [1, 3, 3]


def test_close_paren_at_line_start_and_leaf_split_over_lines() -> None:
    # CESS puts closing lines in column 0; a leaf may also be split over lines
    text = "(S (NP-SBJ\n *T*-1)\n(VP (VB go)\n))"
    assert only(text) == Tree("S", [Leaf("NP-SBJ", "*T*-1"), Tree("VP", [Leaf("VB", "go")])])


def test_psd_wrapper_with_id_sibling() -> None:
    tree = only("( (IP-MAT (NP-SBJ (PRO-N hann-hann))\n\t  (VBDI kom-koma))\n  (ID 1150.X,.1))")
    assert tree.label == ""
    assert [child.label if isinstance(child, Tree) else child.tag for child in tree.children] == ["IP-MAT", "ID"]
    assert tree.children[1] == Leaf("ID", "1150.X,.1")


def test_first_line_offsets_lines() -> None:
    result = parse_bracketed("\n(S (X a))", first_line=40)
    assert result.lines == [41]


def test_top_level_leaf_becomes_unlabelled_root() -> None:
    assert only("(NN yes)") == Tree("", [Leaf("NN", "yes")])


def test_leaf_inside_unlabelled_bracket() -> None:
    assert only("((NN yes))") == Tree("", [Leaf("NN", "yes")])


def test_unicode_atoms_and_punctuation_tags() -> None:
    tree = only("(IP (, ,-,) (-LRB- 「) (PU 。) (N-N þjóð-þjóð) (`` ``) ('' ''))")
    assert tree.words() == [",-,", "「", "。", "þjóð-þjóð", "``", "''"]
    assert tree.tags() == [",", "-LRB-", "PU", "N-N", "``", "''"]


def test_cess_three_atom_leaves_keep_first_atom() -> None:
    text = "(\n  (S (sn-SUJ (ncms000 grupo grupo)) (sn.e-SUJ *0*)\n(Fp . .)))"
    tree = only(text, leaf_atoms="first")
    assert tree == Tree("", [Tree("S", [Tree("sn-SUJ", [Leaf("ncms000", "grupo")]),
                                         Leaf("sn.e-SUJ", "*0*"), Leaf("Fp", ".")])])
    with pytest.raises(MixedLeafError):
        parse_bracketed(text)


def test_atoms_beside_subtrees_are_an_error_even_with_first() -> None:
    with pytest.raises(MixedLeafError):
        parse_bracketed("(S (X a (Y b)))", leaf_atoms="first")


def test_broken_floresta_leaf_keeps_last_atom() -> None:
    tree = only("(UTT+np (H+n Autor) (N<PRED+prop' M S} Salazar_e_Caetano))", leaf_atoms="last")
    assert tree.leaves()[-1] == Leaf("N<PRED+prop'", "Salazar_e_Caetano")


def test_tree_start_lines_close_an_unclosed_tree() -> None:
    text = "(\n (S (sn (nc grupo grupo))\n(Fp . .))\n(\n (S (Fp . .)))\n"
    with pytest.raises(UnclosedBracketError) as caught:
        parse_bracketed(text, leaf_atoms="first", tree_start=r"\($", source="c.tbf")
    assert str(caught.value).split("\n")[0] == (
        "c.tbf:1:1: unbalanced brackets: '(' opened here is never closed (1 ')' missing before the tree on line 4)"
    )
    result = parse_bracketed(text, leaf_atoms="first", tree_start=r"\($", source="c.tbf", tolerant=True)
    assert [t.words() for t in result.trees] == [["grupo", "."], ["."]]
    assert result.lines == [1, 4]
    assert result.repairs == [Repair("c.tbf", 1, "added 1 missing ')' before the tree on line 4")]
    # without tree_start the second tree is swallowed by the first
    assert len(parse_bracketed(text, leaf_atoms="first", tolerant=True).trees) == 1


def test_floresta_childless_punctuation() -> None:
    tree = only("(STA+fcl (SUBJ+np (H+prop Maria)) (P+v-fin (H+v-fin come)) (.))", childless="leaf")
    assert tree.leaves()[-1] == Leaf(".", ".")
    assert tree.words() == ["Maria", "come", "."]
    with pytest.raises(ChildlessNodeError):
        parse_bracketed("(STA+fcl (H+prop Maria) (.))")
    with pytest.raises(ChildlessNodeError):  # no label to become the word
        parse_bracketed("(S () (X a))", childless="leaf")


def test_invalid_modes_are_rejected() -> None:
    with pytest.raises(ValueError, match="leaf_atoms"):
        parse_bracketed("(S (X a))", leaf_atoms="lemma")
    with pytest.raises(ValueError, match="childless"):
        parse_bracketed("(S (X a))", childless="drop")


def test_empty_text_has_no_trees() -> None:
    assert parse_bracketed("  \n\r\n") == ReadResult([], [], [])


def test_tolerant_adds_missing_close_at_end() -> None:
    result = parse_bracketed("(S (X a))\n(S (NP (DT the) (NN dog)\n", source="f.mrg", tolerant=True)
    assert result.trees[1] == Tree("S", [Tree("NP", [Leaf("DT", "the"), Leaf("NN", "dog")])])
    assert result.repairs == [Repair("f.mrg", 2, "added 2 missing ')' at end of tree")]
    assert result.lines == [1, 2]


def test_tolerant_drops_extra_close() -> None:
    result = parse_bracketed("(S (X a)))\n(S (X b))\n)", source="f.mrg", tolerant=True)
    assert [t.words() for t in result.trees] == [["a"], ["b"]]
    assert result.repairs == [
        Repair("f.mrg", 1, "dropped 1 extra ')' outside any tree"),
        Repair("f.mrg", 3, "dropped 1 extra ')' outside any tree"),
    ]


def test_tolerant_mode_still_raises_on_what_it_cannot_repair() -> None:
    with pytest.raises(MixedLeafError):
        parse_bracketed("(S (X a b))", tolerant=True)
    with pytest.raises(ChildlessNodeError):  # the unclosed tree ends inside a bare "(NP"
        parse_bracketed("(S (NP", tolerant=True)


def test_read_file_latin1_and_source_name(tmp_path: Path) -> None:
    path = tmp_path / "cess.tbf"
    path.write_bytes("(\n  (S (sn (np0000 Peña Peña))))\n".encode("iso-8859-1"))
    result = read_bracketed_file(path, encoding="iso-8859-1", leaf_atoms="first")
    assert result.trees[0].words() == ["Peña"]
    with pytest.raises(TreeEncodingError) as caught:
        read_bracketed_file(path)
    assert str(caught.value) == (
        f"{path}:2:20: cannot decode: byte 0xf1 is not valid utf-8; "
        "the file may be in another encoding, such as ISO-8859-1 (Latin-1)"
    )


def test_read_file_reports_file_name_in_errors(tmp_path: Path) -> None:
    path = tmp_path / "bad.mrg"
    path.write_text("(S (X a)\n", encoding="utf-8")
    with pytest.raises(UnclosedBracketError) as caught:
        read_bracketed_file(path)
    assert caught.value.source == str(path)
    assert (caught.value.line, caught.value.column) == (1, 1)


def test_iter_bracketed_lines_streams_multi_line_trees() -> None:
    lines = ["\n", "( (S (NP (DT the)\n", "   (NN dog))\n", "  (VP (VBZ barks))))\n", "(X (Y a))\n"]
    assert list(iter_bracketed_lines(lines)) == [(2, Tree("", [DOG])), (5, Tree("X", [Leaf("Y", "a")]))]


def test_iter_bracketed_lines_reports_repairs_and_positions() -> None:
    repairs: list = []
    got = list(iter_bracketed_lines(["(X (Y a)))\n", "(X (Y b)\n"], source="s", tolerant=True, repairs=repairs))
    assert [line for line, _ in got] == [1, 2]
    assert repairs == [Repair("s", 1, "dropped 1 extra ')' outside any tree"),
                       Repair("s", 2, "added 1 missing ')' at end of tree")]
    with pytest.raises(ValueError, match="repairs"):
        list(iter_bracketed_lines(["(X (Y a))"], tolerant=True))
    with pytest.raises(MixedLeafError) as caught:
        list(iter_bracketed_lines(["(X (Y a))\n", "\n", "(X\n", "  (Y a b))\n"], source="s"))
    assert (caught.value.line, caught.value.column) == (4, 3)


def test_deep_tree_does_not_recurse() -> None:
    depth = 5000
    text = "(A " * depth + "(B x)" + ")" * depth
    tree = only(text)
    assert len(tree.labeled_spans()) == depth
    assert tree.to_bracketed() == text.replace("(A (B", "(A (B")


def test_compiled_and_pure_python_paths_agree_on_real_files(treebanks: Path) -> None:
    if not reader.compiled_scanner_available():
        pytest.skip("compiled scanner not built")
    paths = sorted((treebanks / "ptb-sample" / "wsj" / "00").glob("*.mrg"))[:40]
    paths += sorted((treebanks / "fo-farpahc" / "psd").glob("*.psd"))[:1]
    paths += [treebanks / "id-icon" / "test.txt"]
    for path in paths:
        text = path.read_text(encoding="utf-8")
        compiled_trees, compiled_lines = reader._compiled_scan(text, 1, None, False)
        pure = reader._parse(text, str(path), 1, False, None, False)
        assert compiled_trees == pure.trees and compiled_lines == pure.lines, path


def test_reader_works_without_the_compiled_scanner() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['mlparse.trees._scan'] = None\n"
        "from mlparse.trees import reader, parse_bracketed\n"
        "assert not reader.compiled_scanner_available()\n"
        "print(parse_bracketed('( (S (NP (DT the) (NN dog))))').trees[0].words())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['the', 'dog']"
