"""The head table file format: a language's own table as data, and its errors with file and line."""

from __future__ import annotations

import pytest

from mlparse.trees import head_table
from mlparse.trees.head_table import HeadTableError, SearchStep, load_head_table, parse_head_table
from mlparse.trees.heads import tree_dependencies
from mlparse.trees.reader import parse_bracketed

HEAD_FINAL = """\
name: head-final
description: a toy language whose phrases end with their head
punctuation: [PU]
default:
  - {from: right}
rules:
  NP:
    - {from: right, priority: [N, PRO]}
    - {from: right}
  VP:
    - {from: left, any: [V, AUX]}
    - {from: right}
"""


def test_a_language_brings_its_own_table(tmp_path):
    path = tmp_path / "head-final.yaml"
    path.write_text(HEAD_FINAL, encoding="utf-8")
    table = load_head_table(path)
    assert table.name == "head-final" and table.punctuation == {"PU"} and not table.coordination
    assert table.rule("VP") == (SearchStep("left", "any", ("V", "AUX")), SearchStep("right", "first"))
    tree = parse_bracketed("(S (NP (PRO she) (N books) (DET the)) (VP (AUX has) (V read)) (PU .))").trees[0]
    # NP: priority from the right -> N "books" (beats PRO); VP: any from the left -> AUX "has";
    # S (default, from the right, punctuation skipped) -> VP
    heads, relations = tree_dependencies(tree, table)
    assert heads == [-1, 2, 4, 2, 0, 4, 4]
    assert relations == ["", "NP/N/PRO", "S/VP/NP", "NP/N/DET", "root", "VP/AUX/V", "S/VP/PU"]


def error(text: str) -> HeadTableError:
    with pytest.raises(HeadTableError) as caught:
        parse_head_table(text, "lang.yaml")
    return caught.value


@pytest.mark.parametrize("text, line, words", [
    ("name: [x\n", 2, "not valid YAML"),
    ("", 1, "empty"),
    ("- a\n- b\n", 1, "must be a mapping"),
    ("name: t\nrulez: {}\ndefault: [{from: left}]\nrules: {}\n", 2, "unknown key 'rulez'"),
    ("name: t\ndefault: [{from: left}]\n", 1, "missing required key 'rules'"),
    ("name: t\ndefault: [{from: left}]\nrules: [NP]\n", 3, "rules must be a mapping"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP: []\n", 4, "rule NP must be a non-empty list"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {from: up}\n", 5, "'from' must be left or right"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {any: [N]}\n    - {from: left}\n", 5, "missing 'from"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {from: left, to: [N]}\n", 5, "unknown key 'to'"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {from: left, any: [N], priority: [N]}\n"
     "    - {from: left}\n", 5, "either 'priority' or 'any'"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {from: left, any: []}\n    - {from: left}\n",
     5, "any is an empty list"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {from: left, any: [N]}\n",
     5, "the last step must have neither"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {from: left}\n    - {from: right}\n",
     5, "steps after it are never used"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP:\n    - {from: left, any: [N, PRO,\n      N]}\n"
     "    - {from: left}\n", 6, "label 'N' is listed twice"),
    ("name: t\ndefault: [{from: left}]\nrules:\n  NP: [{from: left}]\n  NP: [{from: right}]\n", 5,
     "'NP' is given twice"),
    ("name: t\npunctuation: PU\ndefault: [{from: left}]\nrules: {}\n", 2, "punctuation must be a list"),
    ("name: ' t'\ndefault: [{from: left}]\nrules: {}\n", 1, "name must be a non-empty string"),
])
def test_format_errors_name_the_file_and_line(text, line, words):
    caught = error(text)
    assert caught.line == line, str(caught)
    assert words in str(caught)
    assert str(caught).startswith(f"lang.yaml:{line}: head table: ")


def test_unreadable_files_name_the_file(tmp_path):
    with pytest.raises(HeadTableError, match="missing.yaml: head table: cannot read"):
        load_head_table(tmp_path / "missing.yaml")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("name: caf\u00e9\n".encode("latin-1"))
    with pytest.raises(HeadTableError, match="latin.yaml: head table: not UTF-8"):
        load_head_table(latin)


def test_bundled_tables_by_name(tmp_path, monkeypatch):
    monkeypatch.setattr(head_table, "BUNDLED_TABLES", tmp_path)
    (tmp_path / "mine.yaml").write_text(HEAD_FINAL, encoding="utf-8")  # names itself head-final
    with pytest.raises(HeadTableError, match="names itself 'head-final'"):
        head_table.bundled_head_table.__wrapped__("mine")
    with pytest.raises(HeadTableError, match="no bundled head table 'nope'; bundled: mine"):
        head_table.bundled_head_table.__wrapped__("nope")
    (tmp_path / "head-final.yaml").write_text(HEAD_FINAL, encoding="utf-8")
    assert head_table.bundled_head_table.__wrapped__("head-final").name == "head-final"
