"""``mlparse compare`` output: a plain table, JSON or Markdown; each names the runs it used and what was tested.

One headline test per comparison decides (its p, Holm-corrected over the systems, and the verdict at the level); the
other figures (the t-test's and the permutation test's own p-values, Welch's t-test and ASO) are printed apart from
it, in a table of diagnostics, so that nobody picks the most favourable of several overlapping tests.
"""

from __future__ import annotations

import json
import math
from typing import List

from mlparse.compare.comparison import Comparison, CompareResult
from mlparse.compare.group_significance import GROUPS, RUN_AGAINST_GROUP, SINGLE_RUNS
from mlparse.compare import ALPHA


def _p(value: float) -> str:
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def _test_name(c: Comparison) -> str:
    t = c.test
    if t.kind == SINGLE_RUNS:
        return f"paired {t.method}"
    return f"t-test + permutation over seeds ({t.runs_a} vs {t.runs_b} runs)"


def _score(c: Comparison, which: str) -> str:
    t = c.test
    value, n = (t.score_a, t.runs_a) if which == "a" else (t.score_b, t.runs_b)
    return f"{value:.2f}" if n == 1 else f"{value:.2f} (mean of {n})"


def _rows(result: CompareResult) -> List[List[str]]:
    rows = []
    for c in result.comparisons:
        t = c.test
        ci = f"[{t.ci95[0]:+.2f}, {t.ci95[1]:+.2f}]" if t.ci95 is not None else ""
        rows.append([c.a, c.b, _score(c, "a"), _score(c, "b"), f"{t.delta:+.2f}", _test_name(c), _p(t.p_value),
                     _p(c.p_holm) if c.p_holm is not None else "", c.verdict(), ci])
    return rows


def _header(result: CompareResult) -> List[str]:
    metric = result.comparisons[0].metric.upper()
    return ["A", "B", f"{metric} A", f"{metric} B", "Δ (B−A)", "headline test", "p", "p (Holm)",
            f"at {ALPHA:g}", "95% CI"]


def _diagnostic_rows(result: CompareResult) -> List[List[str]]:
    rows = []
    for c in result.comparisons:
        t, g = c.test, c.seed_groups
        if t.kind == SINGLE_RUNS:
            continue
        df = "∞" if t.df is None or math.isinf(t.df) else f"{t.df:.1f}"
        floor = c.permutation_floor()
        row = [c.a, c.b, f"{_p(t.p_t)} (df {df})" if t.p_t is not None else "",
               f"{_p(t.p_seeds)} (≥ {floor:.4g})" if t.p_seeds is not None and floor is not None else ""]
        if g is not None:
            row.append(_p(g.welch_p_holm) if g.welch_p_holm is not None else (g.missing or "no variance"))
            row.append(f"{g.aso_eps_min_holm:.3f}" if g.aso_eps_min_holm is not None else (g.missing or ""))
        rows.append(row)
    return rows


_DIAGNOSTIC_HEAD = ["A", "B", "t-test p", "permutation p (its floor)", "Welch p (Holm)", "ASO ε_min B>A (Holm)"]
_DIAGNOSTICS = ("diagnostics (not tests to choose from: the headline p above decides): the headline's two parts, and "
                "Welch's t-test and ASO over the run scores where both systems have two seeds or more")


def _caption(result: CompareResult) -> List[str]:
    c, o = result.comparisons[0], result.options
    kinds = {x.test.kind for x in result.comparisons}
    lines = [f"{c.metric.upper()} on {c.split}; two-sided p-values; seed {o.seed}; one headline test per comparison, "
             f"its p (Holm-corrected over the systems) and its verdict at {ALPHA:g}"]
    if kinds & {GROUPS, RUN_AGAINST_GROUP}:
        lines.append(f"headline with seeds: the larger p of a t-test on the seed means (every run of both systems; "
                     f"variance = the seeds' (Welch) + the test sentences' (paired bootstrap, {o.samples} samples); a "
                     "single run against several seeds counts as one more seed) and of the exact permutation test "
                     "over seeds")
        from mlparse.compare.seed_permutation import floors_text, unreachable_text

        sizes = [(x.test.runs_a, x.test.runs_b) for x in result.comparisons if x.test.kind != SINGLE_RUNS]
        lines.append(floors_text(sizes, ALPHA))
        why = unreachable_text(sizes, len(result.comparisons), ALPHA) if SINGLE_RUNS not in kinds else None
        if why is not None:
            lines.append(f"no verdict can be significant with these seeds: {why}")
    if SINGLE_RUNS in kinds:
        lines.append(f"paired {o.method} over sentences, {o.samples} samples: two single runs (no seed variance seen)")
    if len(result.comparisons) > 1:
        lines.append(f"p (Holm): corrected over the {len(result.comparisons)} systems compared with A")
    if any(x.seed_groups is not None for x in result.comparisons):
        lines.append(f"diagnostics: Welch's t-test and ASO (deepsig, ε_min at 95% confidence) over the run scores, "
                     f"Holm-corrected; ASO takes B as almost stochastically better than A where ε_min < "
                     f"{o.aso_threshold:g}")
    return lines


def _runs_used(result: CompareResult) -> List[str]:
    named = {}
    for c in result.comparisons:
        named.setdefault(c.a, c.runs_a)
        named.setdefault(c.b, c.runs_b)
    return [f"{name}: {', '.join(runs)}" for name, runs in named.items() if list(runs) != [name]]  # not a run alone


def _pair_rows(result: CompareResult) -> List[List[str]]:
    return [[p.a, p.b, f"{p.test.score_a:.2f}", f"{p.test.score_b:.2f}", f"{p.test.delta:+.2f}", _p(p.test.p_value),
             _p(p.p_holm)] for c in result.comparisons for p in c.pairs]


_PAIR_HEAD = ["run A", "run B", "A", "B", "Δ (B−A)", "p", "p (Holm, pairs of one comparison)"]


def to_json(result: CompareResult) -> str:
    return json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n"


def _table(head: List[str], rows: List[List[str]]) -> List[str]:
    rows = [r + [""] * (len(head) - len(r)) for r in rows]
    widths = [max(len(x) for x in column) for column in zip(head, *rows)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [head] + rows]


def _diagnostic_head(result: CompareResult) -> List[str]:
    seeds = any(c.seed_groups is not None for c in result.comparisons)
    return _DIAGNOSTIC_HEAD if seeds else _DIAGNOSTIC_HEAD[:4]


def to_table(result: CompareResult) -> str:
    lines = _caption(result) + _table(_header(result), _rows(result))
    if _diagnostic_rows(result):
        lines += ["", f"{_DIAGNOSTICS}:"] + _table(_diagnostic_head(result), _diagnostic_rows(result))
    if _runs_used(result):
        lines += ["", "runs used:"] + [f"  {line}" for line in _runs_used(result)]
    if any(c.pairs for c in result.comparisons):
        lines += ["", f"per pair of runs (paired {result.options.method}, {result.options.samples} samples):"]
        lines += _table(_PAIR_HEAD, _pair_rows(result))
    if result.notes:
        lines += [""] + [f"note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def _markdown_table(head: List[str], rows: List[List[str]]) -> List[str]:
    rows = [r + [""] * (len(head) - len(r)) for r in rows]
    return (["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            + ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows])


def to_markdown(result: CompareResult) -> str:
    lines = [f"{line}." for line in _caption(result)] + [""] + _markdown_table(_header(result), _rows(result))
    if _diagnostic_rows(result):
        lines += ["", f"{_DIAGNOSTICS[0].upper()}{_DIAGNOSTICS[1:]}:", ""]
        lines += _markdown_table(_diagnostic_head(result), _diagnostic_rows(result))
    if _runs_used(result):
        lines += ["", "Runs used:", ""] + [f"- {line}" for line in _runs_used(result)]
    if any(c.pairs for c in result.comparisons):
        lines += ["", f"Per pair of runs (paired {result.options.method}, {result.options.samples} samples):", ""]
        lines += _markdown_table(_PAIR_HEAD, _pair_rows(result))
    if result.notes:
        lines += [""] + [f"- Note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


RENDERERS = {"table": to_table, "json": to_json, "markdown": to_markdown}
