"""Test-time attention analysis of a trained span parser (Kitaev & Klein 2018, §4, Tables 1 and 2).

A *probe* perturbs the encoder's attention at test time only and re-scores a split:

* **ablation** (Table 1): the content or the position part of ``q . k`` is dropped in chosen
  layers.  The paper's rows for its 8-layer model (content in all / no / the first or last
  4 or 6 layers, position in all or no layers) are generalised to ``L`` layers as the first or
  last ``L/2`` and ``3L/4`` layers (rounded, duplicates dropped).
* **window** (Table 2): attention limited to ``|i - j| <= d`` in every layer, *strict*, or
  *relaxed* where the start token, first word, last word and stop token attend to and are
  attended by every position.

A model trained with a window (``model.attention_window``) keeps it in the ablation probes;
the window probes replace it.  The model is restored to its trained state afterwards.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch

from mlparse.data.batching import map_in_batches
from mlparse.models.memory import subbatch_cost
from mlparse.models.span_parser import SpanParser
from mlparse.modules.attention import AttentionWindow
from mlparse.results import SplitScores
from mlparse.tasks.evalb_scoring import score_parses
from mlparse.trees.tree import Tree

#: The window distances of the paper's Table 2.
PAPER_WINDOWS: Tuple[int, ...] = (5, 10, 15, 20, 30, 40)

ABLATION, WINDOW, BASELINE = "ablation", "window", "baseline"


@dataclass(frozen=True)
class Probe:
    """One test-time change of the encoder's attention.

    ``content_layers`` / ``position_layers``: 0-based layers where that part of the attention
    stays on (the others have it dropped).  ``window``: a test-time window for every layer
    (None: the model's own).
    """

    name: str
    kind: str  # baseline | ablation | window
    content_layers: Tuple[int, ...]
    position_layers: Tuple[int, ...]
    window: Optional[AttentionWindow] = None

    def ablation(self, num_layers: int) -> Dict[int, frozenset]:
        """``{layer: parts dropped}`` for :meth:`PartitionedTransformerEncoder.set_ablation`."""
        out: Dict[int, frozenset] = {}
        for layer in range(num_layers):
            dropped = set()
            if layer not in self.content_layers:
                dropped.add("content")
            if layer not in self.position_layers:
                dropped.add("position")
            if dropped:
                out[layer] = frozenset(dropped)
        return out


@dataclass
class ProbeResult:
    """Scores of one probe; ``delta_f1`` is F1 minus the unperturbed model's F1."""

    name: str
    kind: str
    content: str  # "all 8 layers", "first 4 layers only", "disabled", ...
    position: str
    window: Optional[int]
    relaxed: Optional[bool]
    scores: SplitScores
    delta_f1: float


@dataclass
class AttentionAnalysis:
    """What ``mlparse analyze`` writes to ``RUN_DIR/analysis/<split>.json``."""

    run_dir: str
    split: str
    data: str  # the gold file
    sentences: int
    evalb_params: str
    num_layers: int
    factored: bool
    trained_window: Optional[int]
    trained_window_relaxed: bool
    baseline: SplitScores
    probes: List[ProbeResult] = field(default_factory=list)
    seconds: float = 0.0

    def to_json_dict(self) -> Dict[str, object]:
        return asdict(self)


def _span(first: int, count: int) -> Tuple[int, ...]:
    return tuple(range(first, first + count))


def layer_description(layers: Sequence[int], num_layers: int) -> str:
    """``all 8 layers``, ``disabled``, ``first 4 layers only``, ``last 6 layers only`` or ``layers 1, 3``."""
    chosen = tuple(sorted(layers))
    if len(chosen) == num_layers:
        return f"all {num_layers} layers" if num_layers > 1 else "the layer"
    if not chosen:
        return "disabled"
    count = len(chosen)
    noun = "layer" if count == 1 else f"{count} layers"
    if chosen == _span(0, count):
        return f"first {noun} only"
    if chosen == _span(num_layers - count, count):
        return f"last {noun} only"
    return "layers " + ", ".join(str(k + 1) for k in chosen)


def ablation_probes(num_layers: int) -> List[Probe]:
    """Table 1 of the paper for ``num_layers`` layers (baseline first; duplicates dropped)."""
    every = _span(0, num_layers)
    probes = [Probe("full attention", BASELINE, every, every),
              Probe("position disabled", ABLATION, every, ()),
              Probe("content disabled", ABLATION, (), every)]
    for fraction in (0.5, 0.75):
        count = int(round(num_layers * fraction))
        if 0 < count < num_layers:
            probes.append(Probe(f"content in first {count} only", ABLATION, _span(0, count), every))
            probes.append(Probe(f"content in last {count} only", ABLATION, _span(num_layers - count, count), every))
    unique: List[Probe] = []
    seen = set()
    for probe in probes:
        key = (probe.content_layers, probe.position_layers)
        if key not in seen:
            seen.add(key)
            unique.append(probe)
    return unique


def window_probes(num_layers: int, distances: Sequence[int] = PAPER_WINDOWS) -> List[Probe]:
    """Table 2 of the paper: strict and relaxed windows of each distance, in every layer."""
    every = _span(0, num_layers)
    probes = []
    for distance in distances:
        if distance < 1:
            raise ValueError(f"a window distance must be at least 1, got {distance}")
        for relaxed in (False, True):
            window = AttentionWindow(distance, relaxed=relaxed)
            probes.append(Probe(f"{'relaxed' if relaxed else 'strict'} window {distance}", WINDOW, every, every, window))
    return probes


def parse_with(parser: SpanParser, sentences: Sequence[Sequence[Tuple[str, str]]], budget: int, decoder: str) -> List[Tree]:
    """Parse in sub-batches under ``budget`` token-equivalents (trees in input order)."""
    return map_in_batches(list(sentences), [len(s) for s in sentences], budget,
                          lambda group: parser.parse(group, decoder=decoder),
                          cost=subbatch_cost(parser.config, parser.span_config, len(parser.labels), training=False, decoder=decoder))


def run_probes(
    parser: SpanParser,
    gold: Sequence[Tree],
    params: str,
    probes: Sequence[Probe],
    budget: int = 5000,
    decoder: Optional[str] = None,
    progress: Optional[Callable[[Probe], None]] = None,
) -> Tuple[SplitScores, List[ProbeResult]]:
    """Score ``gold``'s sentences under each probe; returns (unperturbed scores, one result per non-baseline probe).

    The parser is put in eval mode and left as trained (no ablation, its own window) afterwards.
    """
    if any(p.kind == ABLATION for p in probes) and not parser.config.factored:
        raise ValueError("content/position ablation needs a factored model (model.factored: true)")
    decoder = decoder or ("torch" if parser.device().type == "cuda" else "cython")
    sentences = [[(leaf.tag, leaf.word) for leaf in tree.leaves()] for tree in gold]
    layers = parser.config.num_layers
    predicted_tags = parser.span_config.predict_tags
    encoder = parser.encoder
    trained = parser.trained_window()
    parser.eval()

    def score(probe: Probe) -> SplitScores:
        encoder.set_ablation(probe.ablation(layers))
        encoder.set_window(probe.window if probe.window is not None else trained)
        try:
            with torch.no_grad():
                trees = parse_with(parser, sentences, budget, decoder)
        finally:
            encoder.set_ablation(None)
            encoder.set_window(trained)
        if progress is not None:
            progress(probe)
        return score_parses(gold, trees, params, predicted_tags=predicted_tags).scores

    baseline_probe = Probe("full attention", BASELINE, _span(0, layers), _span(0, layers))
    baseline = score(baseline_probe)
    results = []
    for probe in probes:
        if probe.kind == BASELINE:
            continue
        scores = score(probe)
        results.append(ProbeResult(
            name=probe.name, kind=probe.kind,
            content=layer_description(probe.content_layers, layers),
            position=layer_description(probe.position_layers, layers),
            window=probe.window.size if probe.window else None,
            relaxed=probe.window.relaxed if probe.window else None,
            scores=scores, delta_f1=round((scores.f1 or 0.0) - (baseline.f1 or 0.0), 4)))
    return baseline, results


def analyze(
    parser: SpanParser,
    gold: Sequence[Tree],
    params: str,
    *,
    run_dir: str,
    split: str,
    data: str,
    windows: Sequence[int] = PAPER_WINDOWS,
    ablations: bool = True,
    budget: int = 5000,
    decoder: Optional[str] = None,
    progress: Optional[Callable[[Probe], None]] = None,
) -> AttentionAnalysis:
    """Both tables for one split: ablations (factored models only) then windows."""
    layers = parser.config.num_layers
    probes = planned_probes(parser, windows, ablations)
    start = time.perf_counter()
    baseline, results = run_probes(parser, gold, params, probes, budget, decoder, progress)
    return AttentionAnalysis(
        run_dir=run_dir, split=split, data=data, sentences=len(gold), evalb_params=params, num_layers=layers,
        factored=parser.config.factored, trained_window=parser.config.attention_window,
        trained_window_relaxed=parser.config.attention_window_relaxed, baseline=baseline, probes=results,
        seconds=round(time.perf_counter() - start, 3))


def planned_probes(parser: SpanParser, windows: Sequence[int] = PAPER_WINDOWS, ablations: bool = True) -> List[Probe]:
    """The probes :func:`analyze` runs (ablations only for factored models), baseline excluded."""
    layers = parser.config.num_layers
    probes: List[Probe] = []
    if ablations and parser.config.factored:
        probes += [p for p in ablation_probes(layers) if p.kind != BASELINE]
    probes += window_probes(layers, windows)
    return probes
