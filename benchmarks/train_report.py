"""The figures and the printed tables of ``benchmarks/train_vs_peers.py``: a worker's timed updates summed
(:class:`Figures`), medians over rounds, ratios to the peer, and each pair's markdown table with its notes
(useful FLOPs, the matmul rates, what each worker said about itself, pair b's profiles)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

if TYPE_CHECKING:
    from train_vs_peers import Pair


@dataclass(frozen=True)
class Figures:
    """One worker's timed updates, summed."""

    sentences_per_second: float
    words_per_second: float
    median_seconds: float
    updates: int
    words: int
    first: Optional[float]


def figures_of(result: dict, skip_first: bool = False) -> Optional[Figures]:
    """The figures of a worker's JSON answer (over the updates after the first when ``skip_first``);
    None without a timed update."""
    start = 1 if skip_first else 0
    times, sentences, words = result["times"][start:], result["sentences"][start:], result["words"][start:]
    if not times or sum(times) <= 0:
        return None
    seconds = sum(times)
    return Figures(sum(sentences) / seconds, sum(words) / seconds, statistics.median(times), len(times), sum(words),
                   result.get("first"))


def median_figures(runs: Sequence[Figures]) -> Figures:
    """Each figure's median over the rounds."""
    firsts = [run.first for run in runs if run.first is not None]
    return Figures(statistics.median(r.sentences_per_second for r in runs),
                   statistics.median(r.words_per_second for r in runs),
                   statistics.median(r.median_seconds for r in runs),
                   int(statistics.median(r.updates for r in runs)), int(statistics.median(r.words for r in runs)),
                   statistics.median(firsts) if firsts else None)


def round_ratios(ours: Sequence[Optional[Figures]], peer: Sequence[Optional[Figures]]) -> Optional[float]:
    """The median over the rounds where both ran of our words/s over the peer's."""
    ratios = [a.words_per_second / b.words_per_second for a, b in zip(ours, peer) if a is not None and b is not None]
    return statistics.median(ratios) if ratios else None


def pair_statistics(pair: Pair, results: Dict[str, List[Optional[dict]]], files: dict) -> Optional[dict]:
    """What the FLOP count needs: the mean words per training sentence, characters per word (span pairs) and
    the model's output classes (relations or labels) as mlparse's worker reported them."""
    answers = [r for label, runs in results.items() for r in runs if r and r.get("classes")]
    if not answers:
        return None
    stats = dict(files["stats_ewt"] if pair.key in ("a", "b") else files["stats_ptb"])
    stats["classes"] = answers[0]["classes"]
    return stats


def print_pair(pair: Pair, results: Dict[str, List[Optional[dict]]], files: dict, rate: float,
               bf16_rate: Optional[float] = None) -> None:
    """The pair's markdown table and its notes; ``rate``: the float32 matmul rate every row's share is of,
    ``bf16_rate``: the bfloat16 one at the same shape, for the rows of a system with bf16 products."""
    stats = pair_statistics(pair, results, files)
    per_word = pair.flops(stats) if stats else None
    per_round = {label: [figures_of(r, pair.skip_first) if r else None for r in runs]
                 for label, runs in results.items()}
    total_words = files["stats_ewt" if pair.key in ("a", "b") else "stats_ptb"]["words"]
    print(f"\n### {pair.key}. {pair.title}\n")
    print("| system | sentences/s | words/s | s / update (median) | updates | first update s | epoch share | "
          "words/s vs peer | useful GFLOP/s | % of matmul rate |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for system in pair.systems:
        ratio = round_ratios(per_round[system.label], per_round[pair.peer]) if pair.peer else None
        print(table_row(system.label, per_round[system.label], results[system.label], ratio, per_word, rate,
                        total_words))
    print()
    for note in pair.notes:
        print(f"- {note}")
    if stats and per_word:
        extra = f", {stats['chars_per_word']:.2f} characters a word" if "chars_per_word" in stats else ""
        print(f"- useful FLOPs: {per_word / 1e6:.1f} MFLOP a word (training: 6 x the forward's multiply-adds), "
              f"{stats['mean_length']:.1f} words a sentence{extra}, {stats['classes']} output classes")
    print(f"- matmul rate: {rate / 1e9:.1f} GFLOP/s at {pair.shape[0]} x {pair.shape[1]} x {pair.shape[2]} "
          f"({pair.shape_note}), {files['threads']} threads, the best of 5 timings before the pair and 5 after")
    if bf16_rate:
        print(f"- bfloat16 matmul rate at the same shape: {bf16_rate / 1e9:.1f} GFLOP/s; the share above is of the "
              f"float32 rate for every row")
        for system in pair.systems:
            runs = [f for f in per_round[system.label] if f is not None]
            if "train.cpu_bf16=true" in system.sets and runs and per_word:
                useful = median_figures(runs).words_per_second * per_word
                print(f"- {system.label}: {100 * useful / bf16_rate:.1f}% of the bfloat16 rate")
    print(f"- epoch share: the training set's words ({total_words}) the timed updates covered")
    print_worker_details(pair, results)


def table_row(label: str, figures: Sequence[Optional[Figures]], answers: Sequence[Optional[dict]],
              ratio: Optional[float], per_word: Optional[float], rate: float, total_words: int) -> str:
    """One system's markdown row: medians over its rounds; a worker stopped at its time limit marks the label,
    and one without a timed update (after the first, in pair d) still shows its first update's seconds."""
    if any(a and a.get("partial") for a in answers):
        label += " (stopped at its time limit)"
    runs = [f for f in figures if f is not None]
    if not runs:
        firsts = [a["first"] for a in answers if a and a.get("first") is not None]
        first = fmt(statistics.median(firsts), ".1f") if firsts else "-"
        return f"| {label} | - | - | - | 0 | {first} | - | - | - | - |"
    f = median_figures(runs)
    useful = f.words_per_second * per_word if per_word else None
    return (f"| {label} | {f.sentences_per_second:.1f} | {f.words_per_second:.0f} | {f.median_seconds:.2f} | "
            f"{f.updates} | {fmt(f.first, '.1f')} | {100 * f.words / total_words:.0f}% | {fmt(ratio, '.2f', 'x')} | "
            f"{fmt(useful / 1e9 if useful else None, '.1f')} | "
            f"{fmt(100 * useful / rate if useful else None, '.1f', '%')} |")


def print_worker_details(pair: Pair, results: Dict[str, List[Optional[dict]]]) -> None:
    """Per system: what its worker said about itself (sub-batching, budget, versions), and pair b's profiles."""
    for system in pair.systems:
        last = next((r for r in reversed(results[system.label]) if r), None)
        if last is None:
            continue
        said = [f"{key} {last[key]}" for key in ("subbatching", "budget", "version", "threads", "parameters")
                if last.get(key) is not None]
        if pair.key == "d" and last.get("to_first") is not None:
            said.append(f"worker start to the end of the first update {last['to_first']:.1f} s")
        print(f"- {system.label}: {', '.join(said)}")
        if last.get("profile"):
            print(f"\n  per-update profile of {system.label} (torch.profiler, self CPU time, "
                  f"{pair.profile} updates after the timed ones):\n")
            print("\n".join(f"      {line}" for line in last["profile"]))
            print()


def fmt(value: Optional[float], spec: str, suffix: str = "") -> str:
    return "-" if value is None else f"{value:{spec}}{suffix}"
