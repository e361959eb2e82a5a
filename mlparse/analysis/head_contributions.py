"""Which label attention heads make each predicted span (Mrini et al. 2020, §4.5-§4.6, Figures 6 and 8).

Without the position-wise feed-forward layer, head i of a Label Attention Layer owns the slice
``i*d : (i+1)*d`` of every word vector (Figure 4) and so its own part of every span vector (the
forward/backward halves are taken per head, §3.1).  The contribution of head i to a span is the mean
absolute value of its part of the span vector, normalised over the heads so that a span's
contributions sum to 1 (Figure 6: normalisation and averaging).  Over the predicted spans of a split:

- per predicted label, the average contribution of every head (Figure 8's bars);
- per predicted label, how often each head is the top contributor, in percent (§4.5: "44.9% of the NP
  spans get their top contribution from head 35");
- for one sentence and span on request, the top heads' attention over the words (§4.6).

Predicted spans are the non-empty labelled spans of the decoded binary chart (a collapsed unary chain
such as ``S::VP`` is one label).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

from mlparse.data.batching import pack_by_tokens
from mlparse.modules.label_attention import head_span_vectors
from mlparse.structs import cky
from mlparse.structs.chart_tree import EMPTY

Sentence = Sequence[Tuple[str, str]]


class HeadAnalysisError(ValueError):
    """A model whose heads cannot be read this way, with a message meant for the user."""


@dataclass
class LabelHeads:
    """One predicted label: its spans, the heads' average contributions ([H], summing to 1) and, for the
    heads that are the top contributor of at least one span, the share of the spans they top (percent)."""

    label: str
    spans: int
    average: List[float]
    top: List[Tuple[int, float]]  # (head, percent of the label's spans), most first


@dataclass
class SpanAttention:
    """The head-to-word attention behind one span of one sentence (§4.6)."""

    sentence: int  # 1-based
    start: int  # fenceposts
    end: int
    words: List[str]
    label: Optional[str]  # the predicted label of the span, None when it is not a predicted constituent
    contributions: List[float]  # [H]
    heads: List[Dict[str, Any]]  # the top heads: {"head", "contribution", "attention": [(word, weight)] by weight}


@dataclass
class HeadAnalysis:
    run_dir: str
    split: str
    sentences: int
    heads: int
    labels: List[LabelHeads] = field(default_factory=list)  # most frequent first
    attention: Optional[SpanAttention] = None
    charts: List[str] = field(default_factory=list)  # PNG files written
    notes: List[str] = field(default_factory=list)

    def to_json_dict(self) -> Dict[str, Any]:
        return asdict(self)


def check_readable(parser: Any) -> None:
    """Refuse a model whose head contributions cannot be read: not a label attention model, heads mixed by
    a projection or by the position-wise feed-forward layer."""
    config = getattr(parser, "joint_config", None)
    if config is None:
        raise HeadAnalysisError(f"this is a {getattr(parser, 'kind', '?')} model; --heads reads the heads of a "
                                "Label Attention Layer (model.kind: joint)")
    if config.lal_combine != "concat":
        raise HeadAnalysisError("the heads' outputs are mixed by one projection (joint.lal_combine: projection), so "
                                "no part of a word vector belongs to one head")
    if config.lal_feed_forward:
        raise HeadAnalysisError("the model has a position-wise feed-forward layer after the label attention heads "
                                "(joint.lal_feed_forward: true), which mixes their outputs: head contributions can "
                                "only be read without it (Mrini et al. 2020, §2); train with joint.lal_feed_forward: false")


def span_contributions(h: torch.Tensor, n_heads: int, batch_index: torch.Tensor, left: torch.Tensor,
                       right: torch.Tensor) -> torch.Tensor:
    """Normalised head contributions of the listed spans: ``h: Tensor[B, T, H*d]`` (label attention outputs),
    ``batch_index, left, right: LongTensor[S]`` -> ``Tensor[S, H]``, each row summing to 1."""
    parts = head_span_vectors(h, n_heads, left, right, batch_index).abs().mean(-1)  # [S, H]
    return parts / parts.sum(-1, keepdim=True).clamp_min(1e-30)


@torch.no_grad()
def analyze_heads(parser: Any, sentences: Sequence[Sentence], run_dir: str = "", split: str = "dev",
                  budget: int = 5000, span: Optional[Tuple[int, int, int]] = None, top_heads: int = 5,
                  progress: Optional[Callable[[int], None]] = None) -> HeadAnalysis:
    """Head contributions over the predicted spans of ``sentences``; ``span = (sentence (1-based), start, end)``
    adds the head-to-word attention of that span."""
    check_readable(parser)
    parser.eval()
    n_heads = parser.lal.n_heads
    totals: Dict[int, np.ndarray] = {}
    tops: Dict[int, np.ndarray] = {}
    counts: Dict[int, int] = {}
    attention: Optional[SpanAttention] = None
    if span is not None and not 1 <= span[0] <= len(sentences):
        raise HeadAnalysisError(f"--sentence {span[0]}: the split has {len(sentences)} sentences")
    lengths = [len(s) for s in sentences]
    cost = parser.memory_cost(training=False, decoder="cython")
    parser.lal.record_attention = True
    try:
        for group in pack_by_tokens(lengths, budget, cost):
            batch = parser.make_batch([sentences[k] for k in group])
            h, _ = parser.encode(batch)
            chart = parser.scorer.chart(parser.scorer.project(h), batch.lengths).float().cpu().numpy()
            rows, lefts, rights, labels = [], [], [], []
            for b, n in enumerate(batch.lengths):
                for i, j, label in cky.decode(chart[b], length=n).spans:
                    if label != EMPTY:
                        rows.append(b), lefts.append(i), rights.append(j), labels.append(label)
            if rows:
                shares = span_contributions(h, n_heads, *(torch.tensor(v, device=h.device) for v in (rows, lefts, rights)))
                shares_np = shares.double().cpu().numpy()
                for label, share in zip(labels, shares_np):
                    totals.setdefault(label, np.zeros(n_heads))
                    tops.setdefault(label, np.zeros(n_heads))
                    totals[label] += share
                    tops[label][int(np.argmax(share))] += 1
                    counts[label] = counts.get(label, 0) + 1
            if span is not None and span[0] - 1 in group:
                b = group.index(span[0] - 1)
                attention = _span_attention(parser, h, b, span, sentences[span[0] - 1],
                                            dict(((i, j), l) for r, i, j, l in zip(rows, lefts, rights, labels) if r == b),
                                            top_heads)
            if progress is not None:
                progress(len(group))
    finally:
        parser.lal.record_attention = False
        parser.lal.last_attention = None
    result = HeadAnalysis(run_dir=run_dir, split=split, sentences=len(sentences), heads=n_heads, attention=attention)
    for label in sorted(counts, key=lambda l: (-counts[l], parser.labels.label(l))):
        share = tops[label] / counts[label] * 100.0
        order = [int(k) for k in np.argsort(-share, kind="stable") if share[k] > 0]
        result.labels.append(LabelHeads(parser.labels.label(label), counts[label],
                                        [float(x) for x in totals[label] / counts[label]],
                                        [(k, round(float(share[k]), 2)) for k in order]))
    return result


def _span_attention(parser: Any, h: torch.Tensor, b: int, span: Tuple[int, int, int], sentence: Sentence,
                    predicted: Dict[Tuple[int, int], int], top_heads: int) -> SpanAttention:
    number, start, end = span
    n = len(sentence)
    if not 0 <= start < end <= n:
        raise HeadAnalysisError(f"--span {start},{end}: sentence {number} has {n} words, so a span runs over "
                                f"fenceposts 0 <= start < end <= {n}")
    index = torch.tensor([b], device=h.device)
    shares = span_contributions(h, parser.lal.n_heads, index, torch.tensor([start], device=h.device),
                                torch.tensor([end], device=h.device))[0].double().cpu().numpy()
    weights = parser.lal.last_attention[b].double().cpu().numpy()  # [H, T]: start, words, stop
    names = ["<start>"] + [word for _, word in sentence] + ["<stop>"]
    heads = []
    for k in [int(x) for x in np.argsort(-shares, kind="stable")[:top_heads]]:
        row = weights[k, : n + 2]
        order = np.argsort(-row, kind="stable")
        heads.append({"head": k, "contribution": round(float(shares[k]), 4),
                      "attention": [(names[t], round(float(row[t]), 4)) for t in order]})
    label = predicted.get((start, end))
    return SpanAttention(number, start, end, [word for _, word in sentence[start:end]],
                         parser.labels.label(label) if label is not None else None,
                         [round(float(x), 4) for x in shares], heads)


def chart_heads(analysis: HeadAnalysis, labels: int = 3, per_label: int = 3) -> List[int]:
    """The heads Figure 8 shows: the top ``per_label`` heads of each of the ``labels`` most frequent labels."""
    chosen: List[int] = []
    for entry in analysis.labels[:labels]:
        for head, _ in entry.top[:per_label]:
            if head not in chosen:
                chosen.append(head)
    return sorted(chosen)


def bar_charts(analysis: HeadAnalysis, labels: int = 3, per_label: int = 3) -> Dict[str, bytes]:
    """Figure 8: one PNG per frequent label, the average contribution of the selected heads (file name -> bytes).

    Raises ImportError when matplotlib is missing."""
    import io

    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    heads = chart_heads(analysis, labels, per_label)
    charts = {}
    for entry in analysis.labels[:labels]:
        figure, axis = plt.subplots(figsize=(max(3.0, 0.5 * len(heads) + 1.5), 2.8))
        axis.bar([str(k) for k in heads], [entry.average[k] for k in heads], color="#4c72b0")
        axis.set_xlabel("head")
        axis.set_ylabel("average contribution")
        axis.set_title(f"{entry.label} ({entry.spans} predicted spans)")
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=100)
        plt.close(figure)
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in entry.label)
        charts[f"heads-{analysis.split}-{safe}.png"] = buffer.getvalue()
    return charts


def to_markdown(analysis: HeadAnalysis, top: int = 5) -> str:
    lines = [f"# Label attention heads: {analysis.split}", "",
             f"{analysis.sentences} sentences, {analysis.heads} heads, {sum(e.spans for e in analysis.labels)} "
             "predicted labelled spans. A head's contribution to a span: the mean absolute value of its part of "
             "the span vector, normalised over the heads (Mrini et al. 2020, Figure 6).", "",
             "## Top-contributing heads per predicted label", "",
             "| Label | Spans | Top heads (share of the label's spans) |", "|---|---:|---|"]
    for entry in analysis.labels:
        heads = ", ".join(f"{head} ({percent:.1f}%)" for head, percent in entry.top[:top])
        lines.append(f"| {entry.label} | {entry.spans} | {heads} |")
    chosen = chart_heads(analysis)
    if chosen:
        lines += ["", "## Average contribution of selected heads (Figure 8)", "",
                  "| Label | " + " | ".join(f"head {k}" for k in chosen) + " |",
                  "|---|" + "---:|" * len(chosen)]
        for entry in analysis.labels[:3]:
            lines.append(f"| {entry.label} | " + " | ".join(f"{entry.average[k]:.4f}" for k in chosen) + " |")
    if analysis.charts:
        lines += ["", "Charts: " + ", ".join(analysis.charts)]
    if analysis.attention is not None:
        a = analysis.attention
        lines += ["", f"## Head-to-word attention: sentence {a.sentence}, span ({a.start}, {a.end}) "
                      f"\"{' '.join(a.words)}\" (predicted {a.label or 'no constituent'})", "",
                  "| Head | Contribution | Most attended words |", "|---:|---:|---|"]
        for head in a.heads:
            words = ", ".join(f"{word} {weight:.2f}" for word, weight in head["attention"][:5])
            lines.append(f"| {head['head']} | {head['contribution']:.4f} | {words} |")
    for note in analysis.notes:
        lines += ["", f"Note: {note}"]
    return "\n".join(lines) + "\n"
