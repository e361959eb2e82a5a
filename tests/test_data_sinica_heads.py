"""Sinica's own heads and roles, kept as a dependency tree: hand-written lines in ICG notation."""

from __future__ import annotations

import pytest

from mlparse.data.formats import read_sinica_format
from mlparse.data.sinica import SinicaFormatError, parse_icg_line, parse_icg_sentence
from mlparse.structs.dep_tree import is_projective, tree_problem
from mlparse.trees.tree import Leaf, Tree

# Written for these tests (not from the treebank), in the treebank's notation.
POSSESSIVE = "#7:7.[501] S(theme:NP(possessor:N‧的(head:Nhaa:我|Head:DE:的)|Head:Nab:書)|Head:VH11:舊)#，(COMMACATEGORY)"
SEVERAL = "#8:8.[502] VP(Head:VH11(Head:VH11:高|Head:VH11:大)|degree:Dfa:很)#"
NONE = "#9:9.[503] S(agent:NP(property:Nab:石頭|property:Nab:橋)|Head:VA11:倒)#。(PERIODCATEGORY)"


def arcs(line: str):
    sentence = parse_icg_sentence(line)
    heads, relations = sentence.dependencies
    assert tree_problem(heads) is None and is_projective(heads)
    assert len(heads) == len(sentence.tree.leaves()) + 1
    return heads, relations, sentence


def test_heads_follow_the_head_marks_and_relations_are_the_roles():
    heads, relations, sentence = arcs(POSSESSIVE)
    # 我 的 書 舊 ，: the DE phrase is headed by 的 (its lowercase "head" is a role like the others)
    assert sentence.tree.words() == ["我", "的", "書", "舊", "，"]
    assert heads == [-1, 2, 3, 4, 0, 4]
    assert relations == ["", "head", "possessor", "theme", "root", "punct"]
    assert (sentence.ident, sentence.headless, sentence.multi_headed) == ("501", 0, 0)


def test_several_head_marks_take_the_first_and_are_counted():
    heads, relations, sentence = arcs(SEVERAL)  # 高 大 很, no final punctuation
    assert heads == [-1, 0, 1, 1]
    assert relations == ["", "root", "Head", "degree"]
    assert (sentence.headless, sentence.multi_headed) == (0, 1)


def test_no_head_mark_takes_the_last_child_and_is_counted():
    heads, relations, sentence = arcs(NONE)  # 石頭 橋 倒 。
    assert heads == [-1, 2, 3, 0, 3]
    assert relations == ["", "property", "agent", "root", "punct"]
    assert (sentence.headless, sentence.multi_headed) == (1, 0)


def test_the_tree_is_as_before_roles_aside():
    ident, tree = parse_icg_line(POSSESSIVE)
    assert ident == "501"
    assert tree == Tree("", [
        Tree("S", [Tree("NP", [Tree("N‧的", [Leaf("Nhaa", "我"), Leaf("DE", "的")]), Leaf("Nab", "書")]),
                   Leaf("VH11", "舊")]),
        Leaf("COMMACATEGORY", "，"),
    ])


def test_an_empty_role_is_refused_with_its_column():
    with pytest.raises(SinicaFormatError, match="column 12: empty role"):
        parse_icg_line("#1:1.[1] S(:Nab:x|Head:VA11:y)#")


def test_the_file_reader_gives_each_trees_marked_heads(tmp_path):
    path = tmp_path / "parsed"
    path.write_text("\n".join([POSSESSIVE, "not a sentence", SEVERAL, NONE]) + "\n", encoding="utf-8")
    reading = read_sinica_format(path, "parsed", {})
    assert len(reading.heads) == len(reading.trees) == 3
    assert [h.dependencies.heads for h in reading.heads] == [[-1, 2, 3, 4, 0, 4], [-1, 0, 1, 1], [-1, 2, 3, 0, 3]]
    assert [(h.without_head, h.several_heads) for h in reading.heads] == [(0, 0), (0, 1), (1, 0)]
    assert [(e.line, e.reason[:17]) for e in reading.exclusions] == [(2, "not ICG notation:")]
