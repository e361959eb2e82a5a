"""Format readers on small hand-written files in each native layout."""

from pathlib import Path

import pytest

from mlparse.data.formats import read_bracketed_format, read_sinica_format, tree_start_lines
from mlparse.data.issues import PrepareError
from mlparse.data.sinica import SinicaFormatError, parse_icg_line
from mlparse.trees.tree import Leaf, Tree


def write(tmp_path: Path, name: str, text: str, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def test_multiline_ptb_file_keeps_lines_and_unlabelled_root(tmp_path):
    path = write(tmp_path, "wsj_0001.mrg", "\n( (S \n    (NP-SBJ (NN it) )\n    (VP (VBZ works) ) ))\n( (NP (NN end) ) )\n")
    reading = read_bracketed_format(path, "wsj_0001.mrg", {})
    assert [t.label for t in reading.trees] == ["", ""]
    assert reading.lines == [2, 5]
    assert reading.trees[0].children[0].label == "S"


def test_icon_crlf_one_tree_per_line(tmp_path):
    path = write(tmp_path, "train.txt", "(S (NP (NNO uji)) (VP (VBI jalan)))\r\n(S (NP (PRK nya)))\r\n")
    reading = read_bracketed_format(path, "train.txt", {})
    assert [t.words() for t in reading.trees] == [["uji", "jalan"], ["nya"]]
    assert reading.lines == [1, 2]


def test_psd_tab_indented_with_id_sibling(tmp_path):
    text = "( (IP-MAT (NP-SBJ (PRO-N hann-hann))\n\t  (VBDI kom-koma)\n\t  (NP-OB1 *T*-1))\n  (ID 1150.TEST,.1))\n"
    reading = read_bracketed_format(write(tmp_path, "a.psd", text), "a.psd", {})
    (tree,) = reading.trees
    assert tree.label == "" and tree.children[1] == Leaf("ID", "1150.TEST,.1")


def test_cess_latin1_lemma_leaves_and_split_at_repairs_a_missing_bracket(tmp_path):
    # the first tree lacks one ")" in its middle; without split_at it would swallow the second
    text = (
        "(\n  (S\n    (sn-SUJ\n      (ncms000 niño niño)\n    (grup.verb\n      (vmis3s0 comió comer))\n"
        "    (Fp . .)))\n"
        "(\n  (S\n    (sn.e-SUJ *0*)\n    (grup.verb (vmis3s0 llovió llover))\n(Fp . .)))\n"
    )
    path = write(tmp_path, "x.tbf", text, encoding="iso-8859-1")
    options = {"encoding": "iso-8859-1", "tolerant": True, "leaf_atoms": "first"}
    merged = read_bracketed_format(path, "x.tbf", options)
    assert len(merged.trees) == 1  # the second tree was swallowed
    split = read_bracketed_format(path, "x.tbf", {**options, "split_at": r"^\($"})
    assert len(split.trees) == 2
    assert split.trees[0].words() == ["niño", "comió", "."]
    assert split.lines == [1, 8]
    assert [(r.line, "missing" in r.reason) for r in split.repairs] == [(1, True)]
    assert Leaf("sn.e-SUJ", "*0*") in split.trees[1].leaves()


def test_cess_extra_close_bracket_is_dropped_and_recorded(tmp_path):
    path = write(tmp_path, "y.tbf", "(\n  (S (Fp . .)))\n)\n", encoding="iso-8859-1")
    reading = read_bracketed_format(path, "y.tbf", {"encoding": "iso-8859-1", "tolerant": True, "leaf_atoms": "first"})
    assert len(reading.trees) == 1
    assert [(r.file, r.line) for r in reading.repairs] == [("y.tbf", 3)]


FLORESTA = """######
#Floresta test header
######

#1 CP1-1 Uma casa.
(UTT+np (>N+art Uma)
        (H+n casa)
        (.))

#2 CP1-2 Sim
(UTT+adv (H+adv Sim)
#3 CP1-3 Dois
(STA+fcl (P+v-fin foi)) (UTT+adv (H+adv ali))
#4 CP1-4 Folha dois
(UTT+prop Folha (STA+fcl (P+v-fin caiu)))
#5 CP1-5 Debris
(UTT+np (H+prop' M S} Lisboa))
"""


def test_floresta_blocks_childless_punctuation_repairs_and_exclusions(tmp_path):
    path = write(tmp_path, "f.ptb", FLORESTA, encoding="iso-8859-1")
    options = {
        "encoding": "iso-8859-1",
        "tolerant": True,
        "childless": "leaf",
        "comment_prefix": "#",
        "text_fixes": [{"pattern": r"' [^()\n]*?\}(?= )", "replace": "", "reason": "debris"}],
    }
    reading = read_bracketed_format(path, "f.ptb", options)
    assert [t.words() for t in reading.trees] == [["Uma", "casa", "."], ["Sim"], ["foi"], ["ali"], ["Lisboa"]]
    assert reading.trees[0].leaves()[-1] == Leaf(".", ".")
    assert reading.lines == [6, 11, 13, 13, 17]
    reasons = sorted((r.line, r.reason.split(":")[0]) for r in reading.repairs)
    assert reasons == [(11, "added 1 missing ')' at end of tree"), (17, "debris")]
    # the tree with a word beside subtrees is excluded with its line, nothing silently lost
    assert [(e.line, e.reason.startswith("unreadable tree")) for e in reading.exclusions] == [(15, True)]


def test_malformed_file_in_strict_mode_names_file_line_and_column(tmp_path):
    path = write(tmp_path, "bad.mrg", "( (S (NP (DT the) (NN dog)) (VP (VBZ barks)) )\n")
    with pytest.raises(PrepareError, match=r"bad\.mrg:1:1: .*never closed|bad\.mrg:1:\d+:"):
        read_bracketed_format(path, "bad.mrg", {})


def test_wrong_encoding_is_a_clear_error(tmp_path):
    path = write(tmp_path, "latin.tbf", "(S (n niño))\n", encoding="iso-8859-1")
    with pytest.raises(PrepareError, match=r"latin\.tbf:1:\d+: .*not valid utf-8") as caught:
        read_bracketed_format(path, "latin.tbf", {})
    message = str(caught.value)  # one hint, the catalog's: the reader's generic guess is left out
    assert "encoding: iso-8859-1" in message and "may be in another encoding" not in message


def test_unknown_reader_option_is_refused(tmp_path):
    with pytest.raises(PrepareError, match="unknown option"):
        read_bracketed_format(write(tmp_path, "a", "(S (X y))"), "a", {"colour": 1})


def test_tree_start_lines_counts_by_depth():
    assert tree_start_lines("(A (b c))\n(D\n (e f)) (G (h i))\n)", first_line=10) == [10, 11, 12]


SINICA = (
    "#1:1.[17] NP(Head:Neu:二)#。(PERIODCATEGORY)\r\n"
    "#3:.[205] S(theme:NP(Head:N(DUMMY1:Nba:小林|Head:Caa:與|DUMMY2:Nhaa:你))|Head:VC1:去過)#，(COMMACATEGORY)\r\n"
    "#4:88.2.[1] VP(Head:VA4[+ASP]:睡著了|goal:NP‧的(head:Nab:書|Head:DE:的))#\r\n"
    "#5:5.[9] S(theme:NP(Head:Nab:x)#。(PERIODCATEGORY)\r\n"
)


def test_sinica_icg_conversion():
    _, tree = parse_icg_line(SINICA.splitlines()[1])
    expected = Tree("", [
        Tree("S", [Tree("NP", [Tree("N", [Leaf("Nba", "小林"), Leaf("Caa", "與"), Leaf("Nhaa", "你")])]),
                   Leaf("VC1", "去過")]),
        Leaf("COMMACATEGORY", "，"),
    ])
    assert tree == expected
    _, tree = parse_icg_line(SINICA.splitlines()[2])  # no final punctuation, labels with [+..] and ‧
    assert tree == Tree("", [Tree("VP", [Leaf("VA4[+ASP]", "睡著了"), Tree("NP‧的", [Leaf("Nab", "書"), Leaf("DE", "的")])])])


def test_sinica_errors_and_file_reader(tmp_path):
    with pytest.raises(SinicaFormatError, match="never closed"):
        parse_icg_line(SINICA.splitlines()[3])
    with pytest.raises(SinicaFormatError, match="header"):
        parse_icg_line("S(Head:Nab:x)#")
    reading = read_sinica_format(write(tmp_path, "parsed", SINICA), "parsed", {})
    assert reading.lines == [1, 2, 3]
    assert [(e.file, e.line) for e in reading.exclusions] == [("parsed", 4)]
    assert reading.trees[0].words() == ["二", "。"]


@pytest.mark.parametrize(
    "read, text, options",
    [
        (read_bracketed_format, "( (S (NP (NN it)) (VP (VBZ works))))\n( (NP (NN end)))\n", {}),
        (read_bracketed_format, "(S (NP (NNO uji)))\r\n(S (NP (PRK nya)))\r\n", {"encoding": "UTF-8"}),
        (read_sinica_format, SINICA, {}),
    ],
)
def test_a_utf8_byte_order_mark_is_read_as_such(tmp_path, read, text, options):
    plain = read(write(tmp_path, "plain", text), "plain", options)
    marked = read(write(tmp_path, "marked", "\ufeff" + text), "marked", options)
    assert marked.trees == plain.trees and marked.lines == plain.lines
    assert [(e.line, e.reason) for e in marked.exclusions] == [(e.line, e.reason) for e in plain.exclusions]
    assert not marked.trees[0].leaves()[0].word.startswith("\ufeff")

