"""The reader and transforms on the shared treebanks; expected counts come from shared/treebanks/README.md."""

from pathlib import Path
from typing import Callable, List, Tuple

import pytest

from mlparse.trees import (
    Leaf,
    Tree,
    TreeReadError,
    UnclosedBracketError,
    ExtraCloseBracketError,
    binarize,
    collapse_unary,
    ensure_top,
    expand_unary,
    format_tree,
    is_cess_empty,
    is_psd_empty,
    is_ptb_empty,
    parse_bracketed,
    read_bracketed_file,
    strip_empty_elements,
    strip_functional_tags,
    unbinarize,
)

CESS_START = r"\(\s*$"  # every CESS tree starts with a line holding only "("


def count(trees: List[Tree], is_empty: Callable[[Leaf], bool]) -> Tuple[int, int]:
    """(tokens, empty elements), ID/CODE leaves excluded: the README's counting rule."""
    tokens = empties = 0
    for tree in trees:
        for leaf in tree.leaves():
            if leaf.tag in ("ID", "CODE"):
                continue
            if is_empty(leaf):
                empties += 1
            else:
                tokens += 1
    return tokens, empties


def read_all(paths: List[Path], **options) -> List[Tree]:
    trees: List[Tree] = []
    for path in paths:
        trees.extend(read_bracketed_file(path, **options).trees)
    return trees


def test_ptb_sample_counts_and_round_trips(treebanks: Path) -> None:
    files = sorted((treebanks / "ptb-sample" / "wsj").glob("*/wsj_*.mrg"))
    assert len(files) == 199
    trees = read_all(files)
    assert len(trees) == 3914
    assert count(trees, is_ptb_empty) == (94084, 6592)
    assert all(tree.label == "" for tree in trees)
    text = "\n".join(format_tree(tree) for tree in trees)
    assert parse_bracketed(text).trees == trees
    for tree in trees:
        prepared = ensure_top(strip_functional_tags(strip_empty_elements(tree)))
        assert prepared.label == "TOP"
        assert unbinarize(binarize(prepared)) == prepared
        assert expand_unary(collapse_unary(prepared)) == prepared


def test_icon_dev_crlf_one_tree_per_line(treebanks: Path) -> None:
    result = read_bracketed_file(treebanks / "id-icon" / "dev.txt")
    assert len(result.trees) == 1000
    assert count(result.trees, is_ptb_empty) == (18291, 0)
    assert result.lines[:3] == [1, 2, 3]


def test_farpahc_trees_and_empty_elements(treebanks: Path) -> None:
    trees = read_all(sorted((treebanks / "fo-farpahc" / "psd").glob("*.psd")))
    assert len(trees) == 4198
    assert count(trees, is_psd_empty)[1] == 5909
    assert all(any(isinstance(c, Leaf) and c.tag == "ID" for c in tree.children) for tree in trees)


def test_cess_tolerant_reading_repairs_exactly_the_three_broken_files(treebanks: Path) -> None:
    files = sorted((treebanks / "es-cess-esp").glob("*.tbf"))
    options = dict(encoding="iso-8859-1", leaf_atoms="first", tree_start=CESS_START)
    trees: List[Tree] = []
    repaired = {}
    for path in files:
        result = read_bracketed_file(path, tolerant=True, **options)
        trees.extend(result.trees)
        for repair in result.repairs:
            repaired[path.name] = repair.message.split(" ")[0]  # "added" / "dropped"
    assert len(trees) == 6016
    assert count(trees, is_cess_empty) == (188803, 3883)
    assert repaired == {
        "10585_20000313.tbf": "added",
        "16563_20001121.tbf": "added",
        "14827_20000719_3.tbf": "dropped",
    }
    for name, error in [
        ("10585_20000313.tbf", UnclosedBracketError),
        ("16563_20001121.tbf", UnclosedBracketError),
        ("14827_20000719_3.tbf", ExtraCloseBracketError),
    ]:
        with pytest.raises(error) as caught:
            read_bracketed_file(treebanks / "es-cess-esp" / name, **options)
        assert caught.value.source.endswith(name) and caught.value.line > 1


def test_keyaki_file_with_ideographic_space_in_a_label(treebanks: Path) -> None:
    path = treebanks / "ja-keyaki" / "treebank" / "wikipedia_KYOTO_12.psd"
    trees = read_bracketed_file(path).trees
    leaves = [leaf for tree in trees for leaf in tree.leaves()]
    assert Leaf("NP-OB2", "*と*") in leaves  # "(NP-OB2\u3000 *と*)": U+3000 is whitespace
    assert all(not any(ch.isspace() for ch in leaf.tag + leaf.word) for leaf in leaves)


def test_errors_in_real_files_never_escape_as_other_exceptions(treebanks: Path, tmp_path: Path) -> None:
    source = (treebanks / "id-icon" / "dev.txt").read_text(encoding="utf-8")
    broken = tmp_path / "dev.txt"
    lines = source.split("\n")
    lines[10] = lines[10].replace("(", "", 1)  # line 11 loses its first "(": text outside a tree
    broken.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(TreeReadError) as caught:
        read_bracketed_file(broken)
    assert (caught.value.source, caught.value.line) == (str(broken), 11)
