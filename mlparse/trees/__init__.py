"""Tree model, bracketed reader/writer and transforms."""

from mlparse.trees.errors import (
    ChildlessNodeError,
    ExtraCloseBracketError,
    MixedLeafError,
    TextOutsideTreeError,
    TreeEncodingError,
    TreeReadError,
    UnclosedBracketError,
)
from mlparse.trees.reader import (
    ReadResult,
    Repair,
    iter_bracketed_lines,
    parse_bracketed,
    paused_gc,
    read_bracketed_file,
    read_text,
)
from mlparse.trees.transforms import (
    EMPTY_LABEL,
    JOIN,
    ROOT_LABELS,
    binarize,
    collapse_unary,
    ensure_top,
    expand_unary,
    is_cess_empty,
    is_psd_empty,
    is_ptb_empty,
    map_labels,
    map_leaves,
    rebuild,
    remove_leaves,
    split_lemma,
    strip_empty_elements,
    strip_function_tag,
    strip_functional_tags,
    strip_spmrl_feature,
    strip_spmrl_features,
    strip_top,
    unbinarize,
)
from mlparse.trees.tree import LabeledSpan, Leaf, Node, Tree
from mlparse.trees.writer import check_writable, format_tree, unwritable_reason, write_trees, write_trees_to

__all__ = [
    "Leaf", "Tree", "Node", "LabeledSpan",
    # errors
    "TreeReadError", "UnclosedBracketError", "ExtraCloseBracketError", "ChildlessNodeError",
    "TextOutsideTreeError", "MixedLeafError", "TreeEncodingError",
    # reader / writer
    "Repair", "ReadResult", "parse_bracketed", "read_bracketed_file", "iter_bracketed_lines", "read_text", "paused_gc",
    "format_tree", "write_trees", "write_trees_to", "check_writable", "unwritable_reason",
    # transforms
    "EMPTY_LABEL", "JOIN", "ROOT_LABELS", "rebuild",
    "is_ptb_empty", "is_psd_empty", "is_cess_empty", "strip_empty_elements", "remove_leaves",
    "strip_function_tag", "strip_functional_tags", "strip_spmrl_feature", "strip_spmrl_features",
    "map_labels", "map_leaves", "split_lemma",
    "ensure_top", "strip_top", "collapse_unary", "expand_unary", "binarize", "unbinarize",
]
