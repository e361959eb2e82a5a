"""Tree model, bracketed reader/writer and transforms."""

from mlparse.trees.tree import LabeledSpan, Leaf, Node, Tree

__all__ = ["Leaf", "Tree", "Node", "LabeledSpan"]
