"""The attention analysis as Markdown: the paper's Table 1 (ablations) and Table 2 (windows)."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from mlparse.analysis.attention_probes import ABLATION, WINDOW, AttentionAnalysis, ProbeResult, layer_description


def _f1(value: Optional[float]) -> str:
    return "–" if value is None else f"{value:.2f}"


def _delta(value: float) -> str:
    return f"{value:+.2f}"


def ablation_rows(analysis: AttentionAnalysis) -> List[Tuple[str, str, str, str]]:
    """(content, position, F1, ΔF1) rows, the unperturbed model first."""
    every = layer_description(range(analysis.num_layers), analysis.num_layers)
    rows = [(every, every, _f1(analysis.baseline.f1), "")]
    for probe in analysis.probes:
        if probe.kind == ABLATION:
            rows.append((probe.content, probe.position, _f1(probe.scores.f1), _delta(probe.delta_f1)))
    return rows


def window_rows(analysis: AttentionAnalysis) -> List[Tuple[str, str, str]]:
    """(distance, strict F1 (Δ), relaxed F1 (Δ)) rows, then ∞ for the unperturbed model."""
    by_distance: Dict[int, Dict[bool, ProbeResult]] = {}
    for probe in analysis.probes:
        if probe.kind == WINDOW and probe.window is not None:
            by_distance.setdefault(probe.window, {})[bool(probe.relaxed)] = probe
    rows = []
    for distance in sorted(by_distance):
        cells = []
        for relaxed in (False, True):
            probe = by_distance[distance].get(relaxed)
            cells.append("" if probe is None else f"{_f1(probe.scores.f1)} ({_delta(probe.delta_f1)})")
        rows.append((str(distance), cells[0], cells[1]))
    rows.append(("∞", _f1(analysis.baseline.f1), ""))
    return rows


def _table(header: Tuple[str, ...], rows: List[Tuple[str, ...]]) -> List[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def to_markdown(analysis: AttentionAnalysis) -> str:
    """A Markdown page with both tables and what was measured."""
    trained = "none"
    if analysis.trained_window is not None:
        trained = f"{'relaxed' if analysis.trained_window_relaxed else 'strict'} window {analysis.trained_window}"
    lines = [f"# Attention analysis: {analysis.run_dir}", "",
             f"{analysis.split} split, {analysis.sentences} sentences from `{analysis.data}`, scored with the evalb "
             f"port ({analysis.evalb_params}, strict). {analysis.num_layers} layers, "
             f"{'factored' if analysis.factored else 'unfactored'} attention; window at training: {trained}. "
             "Every change is made at test time only; Δ is F1 minus the unperturbed model's F1.", ""]
    ablations = ablation_rows(analysis)
    if len(ablations) > 1:
        lines += ["## Content and position attention (Kitaev & Klein 2018, Table 1)", ""]
        lines += _table(("Content attention", "Position attention", "F1", "Δ F1"), ablations) + [""]
    lines += ["## Windowed attention (Kitaev & Klein 2018, Table 2)", ""]
    lines += _table(("Distance", "F1 strict (Δ)", "F1 relaxed (Δ)"), window_rows(analysis)) + [""]
    return "\n".join(lines)
