"""The run index: the runs under a runs folder, as the report and ``mlparse compare`` both read them.

:mod:`collect` (find and load run folders tolerantly) → :mod:`seeds` (runs that differ only by seed, grouped)
→ :mod:`configurations` (a group named by what differs from its recipe) → :mod:`systems` (every configuration
with complete runs, named as the report names its rows).  It sits below the report and the comparisons, so
that neither imports the other to find runs.
"""
