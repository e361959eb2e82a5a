"""Fine-grained breakdowns of one run's test predictions against gold, and of two runs side by side.

``constituency`` (per label, sentence length, span length: from evalb's own bracket view),
``repair_tree`` + ``repairs`` + ``error_classes`` (Kummerfeld et al. 2012's repair-based error
classes, re-implementing the rules and candidate order of their ISC-licensed Berkeley Parser Analyser), ``dependency`` (relation, arc length, distance to root, UPOS, non-projective arcs: from
depeval's alignment), ``tables`` (the result types, two runs side by side), ``render`` (terminal,
Markdown, JSON), ``inputs`` (a run directory's predictions and gold file) and ``compute`` (one run's
breakdown, or two side by side).
"""
