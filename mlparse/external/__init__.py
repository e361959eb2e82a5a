"""Other toolkits' parsers as systems of the benchmark (``model.kind: external``).

A recipe of kind ``external`` names a parser that lives outside mlparse (SuPar, Stanza, benepar) and the commands
that train it and make it predict (its ``external:`` section, :class:`mlparse.config.schema.ExternalConfig`).
``mlparse run`` then does for it what it does for its own parsers: prepares or finds the data, makes the tags of
the run's tag protocol, writes the peer's input files (:mod:`.peer_files`), runs its training under the run's
budget and its prediction on dev and test (:mod:`.process`), scores what it wrote with evalb or depeval and writes
an ordinary run directory (:mod:`.runner`).  Nothing here imports the peer: it runs in its own Python.

- :mod:`.commands`: the command templates filled in, and which Python ``{python}`` is (their syntax and the
  recipe's checks are the recipe layer's: :mod:`mlparse.config.command_templates`,
  :mod:`mlparse.config.external_checks`).
- :mod:`.peer_files`: the train, dev and test files the peer reads, under the tag protocol.
- :mod:`.process`: a peer's command run to its end or its bound, stopped cleanly, its output in a log.
- :mod:`.runner`: the run itself (resume, failures, scoring, results.json).
"""
