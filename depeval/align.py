"""Aligning gold and system words whose tokenizations may differ (the CoNLL 2018 rules).

Both files must spell the same text (token FORMs concatenated, Zs characters
removed); every token is then a span of that text.  Words are aligned left to
right over the whole file, sentence boundaries playing no part:

* Where neither current word belongs to a multiword token, a gold and a system
  word are aligned when their token spans are equal; otherwise the one that
  starts first (gold on a tie) is left unaligned.
* Where either current word belongs to a multiword token, a *multiword region*
  is formed.  It starts at that word (at the gold one when both are multiword)
  and ends, for now, where its token ends.  When the other side's current word
  is a plain word that starts earlier, that single word is left out.  Words are
  then taken in order of their start (gold first on a tie) for as long as either
  side's next word still lies inside the region: a multiword-token word when its
  token starts before the region's end, a plain word when it ends at or before it.
  Taking a multiword-token word whose token ends later moves the region's end
  there.  Inside the region, gold and system words are aligned by a longest
  common subsequence of their lower-cased FORMs, read off from the start
  (equal forms are paired at once; otherwise the gold word is dropped when that
  keeps the subsequence as long, else the system word).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from .conllu import FORM, Treebank
from .errors import DepevalError

#: ``system_to_gold`` value of a system word aligned to no gold word.
NOT_ALIGNED = -2


@dataclass(slots=True)
class Alignment:
    """Aligned word pairs, in order: ``gold[k]`` is aligned with ``system[k]`` (word indices).

    ``system_to_gold[s]`` is the gold word aligned with system word ``s``, or
    ``NOT_ALIGNED``; it has one entry per system word.
    """

    gold: list[int]
    system: list[int]
    system_to_gold: list[int]


def _lcs_pairs(gold_forms: list[str], system_forms: list[str]) -> list[tuple[int, int]]:
    """Positions paired by the scorer's longest-common-subsequence walk (see the module text)."""
    if gold_forms == system_forms:
        return [(k, k) for k in range(len(gold_forms))]
    n, m = len(gold_forms), len(system_forms)
    # suffix[g][s]: LCS length of gold_forms[g:] and system_forms[s:] (row n and column m are 0).
    suffix = [[0] * (m + 1) for _ in range(n + 1)]
    for g in range(n - 1, -1, -1):
        row, below, form = suffix[g], suffix[g + 1], gold_forms[g]
        for s in range(m - 1, -1, -1):
            if form == system_forms[s]:
                row[s] = below[s + 1] + 1
            else:
                row[s] = below[s] if below[s] >= row[s + 1] else row[s + 1]
    pairs = []
    g = s = 0
    while g < n and s < m:
        if gold_forms[g] == system_forms[s]:
            pairs.append((g, s))
            g += 1
            s += 1
        elif suffix[g][s] == suffix[g + 1][s]:
            g += 1
        else:
            s += 1
    return pairs


class _Sides:
    """The spans of both files' words, and the region walk over them."""

    def __init__(self, gold: Treebank, system: Treebank) -> None:
        self.gold, self.system = gold, system

    def region(self, gi: int, si: int) -> tuple[int, int, int, int]:
        """The multiword region opened at ``gi``/``si``: (gold first, system first, gold past, system past)."""
        g_start, g_end, g_multi = self.gold.starts, self.gold.ends, self.gold.multiword
        s_start, s_end, s_multi = self.system.starts, self.system.ends, self.system.multiword
        n_gold, n_system = len(g_start), len(s_start)
        if g_multi[gi]:
            limit = g_end[gi]
            if not s_multi[si] and s_start[si] < g_start[gi]:
                si += 1
        else:
            limit = s_end[si]
            if g_start[gi] < s_start[si]:
                gi += 1
        g_first, s_first = gi, si
        while True:
            gold_inside = gi < n_gold and (g_start[gi] < limit if g_multi[gi] else g_end[gi] <= limit)
            system_inside = si < n_system and (s_start[si] < limit if s_multi[si] else s_end[si] <= limit)
            if not (gold_inside or system_inside):
                return g_first, s_first, gi, si
            if gi < n_gold and (si >= n_system or g_start[gi] <= s_start[si]):
                if g_multi[gi] and g_end[gi] > limit:
                    limit = g_end[gi]
                gi += 1
            else:
                if s_multi[si] and s_end[si] > limit:
                    limit = s_end[si]
                si += 1


def align_words(gold: Treebank, system: Treebank) -> Alignment:
    """Align the words of two treebanks that spell the same text (see the module text)."""
    sides = _Sides(gold, system)
    g_start, g_end, g_multi = gold.starts, gold.ends, gold.multiword
    s_start, s_end, s_multi = system.starts, system.ends, system.multiword
    n_gold, n_system = len(g_start), len(s_start)
    paired_gold: list[int] = []
    paired_system: list[int] = []
    gi = si = 0
    while gi < n_gold and si < n_system:
        if g_multi[gi] or s_multi[si]:
            g_first, s_first, gi, si = sides.region(gi, si)
            if gi > g_first and si > s_first:
                gold_forms = [gold.columns[k][FORM].lower() for k in range(g_first, gi)]
                system_forms = [system.columns[k][FORM].lower() for k in range(s_first, si)]
                for g, s in _lcs_pairs(gold_forms, system_forms):
                    paired_gold.append(g_first + g)
                    paired_system.append(s_first + s)
        elif g_start[gi] == s_start[si] and g_end[gi] == s_end[si]:
            paired_gold.append(gi)
            paired_system.append(si)
            gi += 1
            si += 1
        elif g_start[gi] <= s_start[si]:
            gi += 1
        else:
            si += 1
    system_to_gold = [NOT_ALIGNED] * n_system
    for g, s in zip(paired_gold, paired_system):
        system_to_gold[s] = g
    return Alignment(paired_gold, paired_system, system_to_gold)


def _token_line(bank: Treebank, offset: int) -> int | None:
    """The line of the token holding character ``offset`` of the text (None past its end)."""
    if offset >= len(bank.text):
        return None
    return bank.token_lines[bisect_right(bank.token_starts, offset) - 1]


def check_same_text(gold: Treebank, system: Treebank) -> None:
    """Raise the scorer's error when the two files' token texts differ (names the first 20 differing characters)."""
    if gold.text == system.text:
        return
    gold_text, system_text = gold.text, system.text
    index = 0
    shortest = min(len(gold_text), len(system_text))
    while index + 4096 <= shortest and gold_text[index:index + 4096] == system_text[index:index + 4096]:
        index += 4096
    while index < shortest and gold_text[index] == system_text[index]:
        index += 1
    raise DepevalError(
        "The concatenation of tokens in gold file and in system file differ!\n"
        f"First 20 differing characters in gold file: '{gold_text[index:index + 20]}' "
        f"and system file: '{system_text[index:index + 20]}'",
        gold.source, _token_line(gold, index), system_source=system.source, system_line=_token_line(system, index),
    )
