"""Library API: score a system CoNLL-U file against a gold one, in-process."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from .align import align_words, check_same_text
from .conllu import Treebank, read_conllu
from .errors import DepevalError
from .metrics import compute_metrics
from .ptb import PTB_PUNCT_TAGS, ptb_scores
from .results import Scores
from .version import SCORER_VERSION


def read_file(path: str | os.PathLike) -> Treebank:
    """Read and check one CoNLL-U file (UTF-8).

    Raises OSError when it cannot be read, :class:`DepevalError` when it is not
    UTF-8 or the CoNLL 2018 script would refuse it.
    """
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise DepevalError(f"The file is not valid UTF-8 (byte 0x{data[error.start]:02x})", os.fspath(path), line) from None
    return read_conllu(text, os.fspath(path))


def evaluate(
    gold: Treebank,
    system: Treebank,
    *,
    ptb_punct: str | None = None,
    punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS,
) -> Scores:
    """Every CoNLL 2018 metric of ``system`` against ``gold`` (both already read).

    ``ptb_punct`` (``"xpos"`` or ``"upos"``) adds UAS and LAS without the words whose
    gold tag in that column is one of ``punct_tags`` (``Scores.ptb``).  Raises
    :class:`DepevalError` when the two texts differ.
    """
    check_same_text(gold, system)
    alignment = align_words(gold, system)
    metrics = compute_metrics(gold, system, alignment)
    ptb = ptb_scores(gold, system, alignment, ptb_punct, punct_tags) if ptb_punct else None
    return Scores(**{name.lower(): metric for name, metric in metrics.items()}, scorer_version=SCORER_VERSION, ptb=ptb)


def evaluate_files(
    gold: str | os.PathLike,
    system: str | os.PathLike,
    *,
    ptb_punct: str | None = None,
    punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS,
) -> Scores:
    """Score two CoNLL-U files as ``conll18_ud_eval.py GOLD SYSTEM`` does (see :func:`evaluate`)."""
    gold_bank = read_file(gold)
    system_bank = read_file(system)
    return evaluate(gold_bank, system_bank, ptb_punct=ptb_punct, punct_tags=punct_tags)


def evaluate_text(
    gold: str,
    system: str,
    *,
    ptb_punct: str | None = None,
    punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS,
) -> Scores:
    """Score two CoNLL-U texts (whole file contents); errors name ``<gold>`` and ``<system>``."""
    return evaluate(read_conllu(gold, "<gold>"), read_conllu(system, "<system>"), ptb_punct=ptb_punct, punct_tags=punct_tags)


def _joined(lines: Iterable[str]) -> str:
    return "".join(line.rstrip("\r\n") + "\n" for line in lines)


def evaluate_lines(
    gold: Iterable[str],
    system: Iterable[str],
    *,
    ptb_punct: str | None = None,
    punct_tags: tuple[str, ...] = PTB_PUNCT_TAGS,
) -> Scores:
    """Score two sequences of CoNLL-U lines (with or without line ends), as files holding those lines.

    A sentence ends with an empty line, so a well-formed sequence ends with ``""``.
    """
    return evaluate_text(_joined(gold), _joined(system), ptb_punct=ptb_punct, punct_tags=punct_tags)
