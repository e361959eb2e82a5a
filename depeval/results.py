"""Typed results: one :class:`Metric` per CoNLL 2018 metric, gathered in :class:`Scores`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

#: The metrics in the order of the ``-v`` table, by the names the script prints.
METRIC_NAMES = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
                "UAS", "LAS", "CLAS", "MLAS", "BLEX")


def _ratio(num, den):
    """``num / den``, 0.0 when ``den`` is 0; elementwise on NumPy arrays (whose ``den`` must be positive)."""
    if getattr(den, "ndim", 0) == 0 and not den:
        return 0.0
    return num / den


def ratios(correct, gold_total, system_total):
    """(precision, recall, F1) as fractions, exactly as the CoNLL 2018 script computes them.

    The one formula: :meth:`Metric.of` uses it, and so does the resampling of ``mlparse compare``, which
    passes NumPy arrays of resampled totals.
    """
    return (_ratio(correct, system_total), _ratio(correct, gold_total),
            _ratio(2 * correct, system_total + gold_total))


@dataclass(frozen=True)
class Metric:
    """Counts and ratios of one metric, computed exactly as the CoNLL 2018 script does.

    ``precision`` = correct / system_total, ``recall`` = correct / gold_total,
    ``f1`` = 2 correct / (system_total + gold_total), each 0.0 when its
    denominator is 0; ratios are fractions (the reports print 100 times them).
    ``aligned_total`` is the number of aligned words the metric was computed on
    (None for Tokens, Sentences and Words, which are not computed on aligned
    words); ``aligned_accuracy`` = correct / aligned_total (None when
    aligned_total is None, 0.0 when it is 0).
    """

    correct: int
    gold_total: int
    system_total: int
    aligned_total: int | None
    precision: float
    recall: float
    f1: float
    aligned_accuracy: float | None

    @classmethod
    def of(cls, correct: int, gold_total: int, system_total: int, aligned_total: int | None = None) -> "Metric":
        """The metric with its ratios derived from the counts."""
        precision, recall, f1 = ratios(correct, gold_total, system_total)
        if aligned_total is None:
            accuracy = None
        else:
            accuracy = correct / aligned_total if aligned_total else 0.0
        return cls(correct, gold_total, system_total, aligned_total, precision, recall, f1, accuracy)


@dataclass(frozen=True)
class PtbScores:
    """UAS and LAS with punctuation left out by gold tag (the PTB convention; see ``depeval/README.md``).

    ``column`` is the gold column the tags come from (``XPOS`` or ``UPOS``),
    ``punct_tags`` the tags that mark punctuation, ``gold_punct`` how many gold
    words they left out and ``system_punct`` how many system words were left out
    (aligned ones by their gold word's tag, unaligned ones by their own).
    """

    column: str
    punct_tags: tuple[str, ...]
    gold_punct: int
    system_punct: int
    uas: Metric
    las: Metric

    @property
    def convention(self) -> str:
        return f"ptb-punct-{self.column.lower()}"


@dataclass(frozen=True)
class Scores:
    """Every metric of the CoNLL 2018 script for one gold/system pair, plus the optional PTB scores.

    Field names are the script's metric names in lower case; :meth:`metric`
    looks one up by its printed name (``"UFeats"``).  ``ptb`` is set only when
    the PTB convention was asked for; ``scorer_version`` says which scorer made
    these numbers (record it with them).
    """

    tokens: Metric
    sentences: Metric
    words: Metric
    upos: Metric
    xpos: Metric
    ufeats: Metric
    alltags: Metric
    lemmas: Metric
    uas: Metric
    las: Metric
    clas: Metric
    mlas: Metric
    blex: Metric
    scorer_version: str
    ptb: PtbScores | None = None

    def metric(self, name: str) -> Metric:
        """A metric by the name the script prints (``"LAS"``, ``"UFeats"``, ...)."""
        if name not in METRIC_NAMES:
            raise KeyError(f"unknown metric {name!r}; the metrics are {', '.join(METRIC_NAMES)}")
        return getattr(self, name.lower())

    @property
    def convention(self) -> str:
        """``conll18`` (punctuation scored), or ``ptb-punct-xpos`` / ``ptb-punct-upos``."""
        return self.ptb.convention if self.ptb is not None else "conll18"

    def to_dict(self) -> dict:
        """Plain values for JSON: every metric under its printed name, plus version and convention."""
        out: dict = {"scorer_version": self.scorer_version, "convention": self.convention}
        for name in METRIC_NAMES:
            out[name] = asdict(self.metric(name))
        if self.ptb is not None:
            out["ptb"] = {f.name: (asdict(getattr(self.ptb, f.name)) if f.name in ("uas", "las") else getattr(self.ptb, f.name))
                          for f in fields(self.ptb)}
            out["ptb"]["punct_tags"] = list(self.ptb.punct_tags)
        return out
