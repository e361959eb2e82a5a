"""Benchmark suites (``mlparse sweep``): many ordinary runs (recipe × seed × overrides) launched as one.

- :mod:`mlparse.sweep.suite`: the suite file (schema, line-numbered errors) and its members;
- :mod:`mlparse.sweep.driver`: which members run, the sweep state file, how each member ended;
- :mod:`mlparse.sweep.prepare`: every treebank prepared once before the members start;
- :mod:`mlparse.sweep.status`: a member's state read from its run directory, and the sweep state file;
- :mod:`mlparse.sweep.table`: the rich status table;
- :mod:`mlparse.sweep.local` and :mod:`mlparse.sweep.slurm`: the two launchers (subprocesses; submitit).
"""
