"""mlparse's error classes against the original Berkeley Parser Analyser, when a copy of it is available.

``BPA_REFERENCE`` is the folder of a copy of ``jkkummerfeld/berkeley-parser-analyser`` (with its
``sample_data``), kept outside the repository; without it these checks are skipped (the rules are tested on
hand-built trees in ``test_compare_error_classes.py``).  mlparse's error classes re-implement the analyser
(ISC licence; credited in ``mlparse/compare/breakdowns/error_classes.py`` and ``docs/breakdowns.md``): the
classification rules follow its ``classify_english.py`` rule for rule and the repair search its candidate order,
while the code is written here.  The copy is the oracle for these checks; none of its files or data is in the
repository.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks.instrumentation.analyser_reference import compare, compare_perturbed

REFERENCE = os.environ.get("BPA_REFERENCE")

pytestmark = pytest.mark.skipif(not REFERENCE, reason="BPA_REFERENCE (a copy of berkeley-parser-analyser) is not set")


def test_the_analysers_sample_is_classified_as_the_analyser_does() -> None:
    """13 parsers x 10 WSJ sentences: every sentence credits the same errors to every class, step by step."""
    agreement = compare(Path(REFERENCE))
    assert len(agreement.sentences) == 130
    assert [(s.parser, s.line) for s in agreement.differing()] == []
    assert agreement.totals("ours") == agreement.totals("theirs")
    assert sum(agreement.totals("ours").values()) == 743
    assert all(s.ours == s.theirs for s in agreement.sentences)


def test_perturbed_wsj_trees_are_classified_as_the_analyser_does(treebanks: Path) -> None:
    agreement = compare_perturbed(Path(REFERENCE), treebanks / "ptb-sample", 200, seed=5, changes=6)
    assert [(s.line, s.ours, s.theirs) for s in agreement.differing()] == []
    assert agreement.repairs("ours") == agreement.repairs("theirs")
