"""What a parser class declares about its kind, without torch: :class:`ParserKind`.

:class:`mlparse.models.base.Parser` derives from it, so every parser class is the owner of its kind: its
``kind``, the ``task`` it solves, the recipe ``sections`` it owns, its recipe :meth:`~ParserKind.check`,
its task for a recipe, the tags it reads and where a package's tags come from.  The recipe layer
(:mod:`mlparse.config.kinds`) asks these without building a parser.  A built-in parser takes them from
its declaration in :mod:`mlparse.models.declarations` (``class SpanParser(SpanKind, Parser)``), so that
loading a recipe does not import torch; a parser from outside mlparse declares them on its own class.
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Tuple


class ParserKind:
    """A parser kind's declarations (class attributes and class methods only)."""

    kind: ClassVar[str] = ""
    #: The name of the task it solves (:func:`mlparse.tasks.task_for`): constituency, dependency, joint, tagging.
    task: ClassVar[str] = ""
    #: The recipe sections that hold this kind's own settings (``biaffine``); they count in the run id only
    #: for this kind.
    sections: ClassVar[Tuple[str, ...]] = ()
    #: Whether this kind is a part-of-speech tagger (a tagger can be bundled with a parser in a package).
    tags_words: ClassVar[bool] = False
    #: Whether its parser has a Label Attention Layer (Mrini et al. 2020), whose heads ``mlparse analyze --heads``
    #: reads.
    label_attention: ClassVar[bool] = False
    #: Whether ``mlparse analyze`` probes its encoder's attention (content and position ablations of Kitaev & Klein
    #: 2018, Section 4).
    attention_probes: ClassVar[bool] = False
    #: Whether a run of this kind trains outside mlparse (another toolkit's parser, run by its own commands): the
    #: runner then hands the run, its data and tags made, to :mod:`mlparse.external`.
    runs_outside: ClassVar[bool] = False

    @classmethod
    def recipe_task(cls, config: Any) -> str:
        """The task a recipe of this kind solves: the class's ``task`` (a kind that solves several reads the recipe)."""
        return cls.task

    @classmethod
    def check(cls, config: Any, source: str) -> None:
        """Refuse a recipe (``config``, named ``source`` in messages) whose values this kind cannot train on, with
        a :class:`mlparse.config.ConfigError`; called by :func:`mlparse.config.validate`. Default: nothing."""

    @classmethod
    def make_task(cls, config: Any = None) -> Any:
        """The task (:class:`mlparse.tasks.base.Task`) of this kind for the recipe ``config`` (None: defaults)."""
        from mlparse.tasks import task_for

        return task_for(cls.recipe_task(config) if config is not None else cls.task, config)

    @classmethod
    def input_tag_column(cls, config: Any) -> str:
        """Which tags a parser of this kind reads for the recipe ``config`` (``data.tags: jackknife`` tags that
        column): ``pos`` (the trees' preterminals) for a task of trees, else ``upos``."""
        return "pos" if cls.make_task(config).writes_trees else "upos"

    @classmethod
    def tags_source(cls, spec: Dict[str, Any], bundled: bool) -> str:
        """Where the POS tags of a model package of this kind come from (``PackageInfo.tags``): ``tagging head``,
        ``bundled tagger``, ``input``, ``none`` (trees with placeholder tags) or ``""`` (no tags written)."""
        model = spec.get("model_config") or spec.get("config") or {}
        head = spec.get("span_config") or model  # a tagging head's switch: the span head's settings where a spec has them
        if head.get("predict_tags") and not model.get("use_tags"):
            return "tagging head"
        if bundled:
            return "bundled tagger"
        if model.get("use_tags"):
            return "input"
        return "none" if cls.make_task().writes_trees else ""
