"""Comparisons between runs (issue 24): per-sentence statistics taken from the scorers' own APIs, paired
randomization and bootstrap tests, seed-group tests, and external runs (``mlparse score``).

Layers: :mod:`statistics` (per-sentence counts and the corpus metric recomputed from them through the
scorers' formulas), :mod:`resampling` (the tests, vectorised with NumPy), :mod:`runs` (what a run
argument names, its gold file and checksum), :mod:`comparison` (a whole ``mlparse compare``),
:mod:`seed_groups` (Welch and ASO over groups of seeds), :mod:`external` (``mlparse score``),
:mod:`render` (table, JSON, Markdown) and :mod:`marks` (the report's significance marks).
"""
