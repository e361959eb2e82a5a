"""evalb: an exact port of the EVALB and evalb_spmrl bracket scorers.

Library use (no subprocess, no temporary files)::

    from evalb import score_trees
    result = score_trees(gold_strings, test_strings, "COLLINS", strict=True)
    result.all.fmeasure, result.cutoff.recall, result.sentences[0].matched

This package imports nothing from mlparse and nothing heavy.
"""

from .brackets import BracketError, KeptBracket, SentenceBrackets, equivalent_label, sentence_brackets
from .api import EvalbAbortedError, EvalbError, EvalbStrictError, format_report, read_tree_lines, score_files, score_trees
from .params import BUILTIN_PARAMS, EvalbParams, builtin_param_path, load_params, read_param_file
from .results import EvalbResult, Problem, SentenceResult, SummaryBlock, bracket_scores

__all__ = [
    "BracketError",
    "KeptBracket",
    "SentenceBrackets",
    "equivalent_label",
    "sentence_brackets",
    "BUILTIN_PARAMS",
    "EvalbAbortedError",
    "EvalbError",
    "EvalbParams",
    "EvalbResult",
    "EvalbStrictError",
    "Problem",
    "SentenceResult",
    "SummaryBlock",
    "bracket_scores",
    "builtin_param_path",
    "format_report",
    "load_params",
    "read_param_file",
    "read_tree_lines",
    "score_files",
    "score_trees",
]
