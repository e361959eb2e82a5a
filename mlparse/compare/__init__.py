"""Comparisons between runs: per-sentence statistics taken from the scorers' own APIs, paired
randomization and bootstrap tests, seed-group tests, and external runs (``mlparse score``).

Layers: :mod:`statistics` (per-sentence counts and the corpus metric recomputed from them through the
scorers' formulas), :mod:`resampling` (the tests, vectorised with NumPy), :mod:`runs` (what a run
argument names, its gold file and checksum), :mod:`comparison` (a whole ``mlparse compare``),
:mod:`seed_groups` (Welch and ASO over groups of seeds), :mod:`external` (``mlparse score``),
:mod:`render` (table, JSON, Markdown), :mod:`marks` (the report's significance marks) and
:mod:`breakdowns` (``mlparse analyze errors``: where scores differ, Kummerfeld et al.'s error classes).
"""

#: The level at which the report's marks and ``mlparse compare``'s verdict call a difference significant.
ALPHA = 0.05
