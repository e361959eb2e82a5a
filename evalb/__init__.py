"""evalb: an exact port of the EVALB and evalb_spmrl bracket scorers.

Library use (no subprocess, no temporary files)::

    from evalb import score_trees
    result = score_trees(gold_strings, test_strings, "COLLINS", strict=True)
    result.all.fmeasure, result.cutoff.recall, result.sentences[0].matched

This package imports nothing from mlparse and nothing heavy.  Its names are imported on first use
(PEP 562), so that the ``evalb`` console script loads only the modules it runs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

#: Each public name and the module that defines it.
_EXPORTS = {
    "BracketError": "brackets",
    "KeptBracket": "brackets",
    "SentenceBrackets": "brackets",
    "equivalent_label": "brackets",
    "sentence_brackets": "brackets",
    "BUILTIN_PARAMS": "params",
    "EvalbAbortedError": "api",
    "EvalbError": "api",
    "EvalbParams": "params",
    "EvalbResult": "results",
    "EvalbStrictError": "api",
    "Problem": "results",
    "SentenceResult": "results",
    "SummaryBlock": "results",
    "bracket_scores": "results",
    "builtin_param_path": "params",
    "format_report": "api",
    "load_params": "params",
    "read_param_file": "params",
    "read_tree_lines": "api",
    "score_files": "api",
    "score_trees": "api",
}

__all__ = list(_EXPORTS)

if TYPE_CHECKING:
    from .api import EvalbAbortedError, EvalbError, EvalbStrictError, format_report, read_tree_lines, score_files, score_trees
    from .brackets import BracketError, KeptBracket, SentenceBrackets, equivalent_label, sentence_brackets
    from .params import BUILTIN_PARAMS, EvalbParams, builtin_param_path, load_params, read_param_file
    from .results import EvalbResult, Problem, SentenceResult, SummaryBlock, bracket_scores


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evalb' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
