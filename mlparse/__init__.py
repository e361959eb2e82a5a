"""mlparse: multilingual treebank benchmarking for neural constituency and dependency parsers."""

__version__ = "0.1.0"
