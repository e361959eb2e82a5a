"""depeval: an exact port of the CoNLL 2018 UD shared task evaluation script (v1.2).

Library use (no subprocess)::

    import depeval
    scores = depeval.evaluate_files("gold.conllu", "system.conllu")
    scores.las.f1, scores.uas.precision, scores.metric("MLAS").aligned_accuracy
    print(depeval.format_report(scores, verbose=True), end="")   # the script's -v table

``ptb_punct="xpos"`` adds UAS/LAS without punctuation (the PTB convention,
``scores.ptb``).  Inputs the script refuses raise :class:`DepevalError` with the
script's message.  This package imports nothing from mlparse and nothing heavy.
"""

from .align import Alignment, align_words, check_same_text
from .api import evaluate, evaluate_files, evaluate_lines, evaluate_text, read_file
from .conllu import Treebank, read_conllu
from .errors import DepevalError
from .ptb import PTB_PUNCT_TAGS, ptb_scores
from .report import format_report
from .results import METRIC_NAMES, Metric, PtbScores, Scores, ratios
from .sentences import SENTENCE_METRICS, SentenceCounts, evaluate_sentences, sentence_counts
from .words import WordHit, kept_words, word_hits
from .version import SCORER_VERSION, __version__

__all__ = [
    "WordHit",
    "kept_words",
    "word_hits",
    "METRIC_NAMES",
    "PTB_PUNCT_TAGS",
    "SCORER_VERSION",
    "Alignment",
    "DepevalError",
    "Metric",
    "SENTENCE_METRICS",
    "SentenceCounts",
    "PtbScores",
    "Scores",
    "Treebank",
    "__version__",
    "align_words",
    "check_same_text",
    "evaluate",
    "evaluate_files",
    "evaluate_lines",
    "evaluate_sentences",
    "evaluate_text",
    "format_report",
    "ptb_scores",
    "read_conllu",
    "ratios",
    "read_file",
    "sentence_counts",
]
