"""The built-in parser kinds' declarations (:class:`~mlparse.models.kind.ParserKind`), light enough for the
recipe layer: each parser class derives from its own (``class BiaffineParser(BiaffineKind, Parser)``), so the
class is the kind's owner and a recipe is checked without importing torch."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from mlparse.config.schema import ConfigError
from mlparse.data.affixes import check_features
from mlparse.models.kind import ParserKind


def check_sizes(source: str, section: str, values: Any, keys: Tuple[str, ...]) -> None:
    """Each of ``keys`` of the recipe section ``section`` (its dataclass ``values``) is a positive size."""
    for key in keys:
        if getattr(values, key) <= 0:
            raise ConfigError(f"{source}: {section}.{key} must be positive, got {getattr(values, key)}.")


def check_dropouts(source: str, section: str, values: Any, keys: Tuple[str, ...]) -> None:
    """Each of ``keys`` of the recipe section ``section`` is a dropout probability, in [0, 1)."""
    for key in keys:
        if not 0.0 <= getattr(values, key) < 1.0:
            raise ConfigError(f"{source}: {section}.{key} is a dropout probability, in [0, 1), got {getattr(values, key)}.")


class SpanKind(ParserKind):
    """The span parser (Kitaev & Klein 2018): :class:`mlparse.models.span_parser.SpanParser`."""

    kind = "span"
    task = "constituency"
    sections = ("span",)  # the span scoring head (and its tagging head)
    attention_probes = True

    @classmethod
    def check(cls, config: Any, source: str) -> None:
        """The self-attentive encoder with learned positions only (``model.encoder`` and ``model.positions`` are
        the dependency parser's choices)."""
        m = config.model
        for key, default in (("encoder", "transformer"), ("positions", "learned")):
            if getattr(m, key) != default:
                raise ConfigError(f"{source}: model.{key}: {getattr(m, key)} is for the dependency parser "
                                  f"(model.kind: biaffine); the {cls.kind} parser uses {default}.")


class JointKind(SpanKind):
    """The joint span + dependency parser (Mrini et al. 2020): :class:`mlparse.models.joint_parser.JointParser`."""

    kind = "joint"
    task = "joint"
    sections = ("span", "joint")  # the span head, and the Label Attention Layer with the dependency head
    label_attention = True
    attention_probes = False  # mlparse analyze --heads reads its Label Attention Layer instead

    @classmethod
    def check(cls, config: Any, source: str) -> None:
        """The span parser's rules, and sizes and dropouts of the ``joint:`` section."""
        super().check(config, source)
        j = config.joint
        check_sizes(source, "joint", j, ("lal_heads", "lal_d_head", "lal_d_ff", "d_arc", "d_relation"))
        if j.lal_combine == "concat" and j.lal_d_head % 2:
            raise ConfigError(f"{source}: joint.lal_d_head must be even: span vectors take the forward and backward "
                              f"halves of every head's output (Mrini et al. §3.1), got {j.lal_d_head}.")
        check_dropouts(source, "joint", j, ("lal_residual_dropout", "lal_attention_dropout", "mlp_dropout"))


class BiaffineKind(ParserKind):
    """The biaffine dependency parser (Li et al. 2019): :class:`mlparse.models.dep_parser.BiaffineParser`."""

    kind = "biaffine"
    task = "dependency"
    sections = ("biaffine",)

    @classmethod
    def input_tag_column(cls, config: Any) -> str:
        return str(config.biaffine.tag_column)

    @classmethod
    def check(cls, config: Any, source: str) -> None:
        """No CharConcat (a span-parser input); sizes and dropouts of the ``biaffine:`` section."""
        b = config.biaffine
        if config.model.char_encoder == "concat":
            raise ConfigError(f"{source}: model.char_encoder: concat is a span-parser input; the dependency parser "
                              "takes lstm or none.")
        check_sizes(source, "biaffine", b, ("d_word_emb", "d_tag_emb", "d_arc", "d_relation", "lstm_hidden", "lstm_layers"))
        check_dropouts(source, "biaffine", b, ("mlp_dropout", "embedding_dropout", "lstm_dropout"))
        if b.predict_tags and config.model.use_tags:
            raise ConfigError(f"{source}: biaffine.predict_tags predicts the {b.tag_column.upper()} column from the "
                              "words; a parser that reads that column (model.use_tags: true) would copy it: set "
                              "data.tags: none (it turns model.use_tags off).")
        if b.d_tag_hidden is not None and b.d_tag_hidden <= 0:
            raise ConfigError(f"{source}: biaffine.d_tag_hidden must be positive (or null for one linear layer), "
                              f"got {b.d_tag_hidden}.")
        if b.tag_loss_scale <= 0:
            raise ConfigError(f"{source}: biaffine.tag_loss_scale must be positive, got {b.tag_loss_scale}.")

    @classmethod
    def tags_source(cls, spec: Dict[str, Any], bundled: bool) -> str:
        """A tagging head's (``biaffine.predict_tags``) when it has one, else as every kind."""
        head, model = spec.get("biaffine_config") or {}, spec.get("model_config") or {}
        if head.get("predict_tags") and not model.get("use_tags"):
            return "tagging head"
        return super().tags_source(spec, bundled)


class TaggerKind(ParserKind):
    """The part-of-speech tagger: :class:`mlparse.models.tagger.TaggerParser`."""

    kind = "tagger"
    task = "tagging"
    sections = ("tagger",)
    tags_words = True

    @classmethod
    def check(cls, config: Any, source: str) -> None:
        """No CharConcat; a tagger reads words only (gold ``data.tags``, no ``model.use_tags``)."""
        d, m = config.data, config.model
        if m.char_encoder == "concat":
            raise ConfigError(f"{source}: model.char_encoder: concat is a span-parser input; the tagger takes lstm or none.")
        if d.tags != "gold" or d.eval_tags != "gold":
            raise ConfigError(f"{source}: a tagger (model.kind: tagger) reads words, not tags: data.tags must be gold.")
        if m.use_tags:
            raise ConfigError(f"{source}: a tagger (model.kind: tagger) cannot take POS tags as input "
                              "(set model.use_tags: false).")
        t = config.tagger
        try:
            check_features(t.affixes)
        except ValueError as error:
            raise ConfigError(f"{source}: tagger.affixes: {error}") from None
        check_sizes(source, "tagger", t, ("d_affix_emb", "affix_min_count"))
        if t.unk_replacement < 0:
            raise ConfigError(f"{source}: tagger.unk_replacement must be 0 (off) or more, got {t.unk_replacement}.")

    @classmethod
    def tags_source(cls, spec: Dict[str, Any], bundled: bool) -> str:
        return "tagging head"


class ExternalKind(ParserKind):
    """Another toolkit's parser (SuPar, Stanza, benepar), trained and run by its own commands over mlparse's prepared
    files: the runner hands a run of a kind that ``runs_outside`` to :mod:`mlparse.external`.  Its task is the
    recipe's ``external.task``."""

    kind = "external"
    task = "dependency"  # the default of external.task; a recipe's own is recipe_task's
    sections = ("external",)
    runs_outside = True

    @classmethod
    def recipe_task(cls, config: Any) -> str:
        return str(config.external.task)

    @classmethod
    def check(cls, config: Any, source: str) -> None:
        """The commands are well-formed templates, the tag protocol is one a peer can get, the bounds positive."""
        from mlparse.config.external_checks import check_external

        check_external(config, source)

    @staticmethod
    def describe(config: Any, eval_tags: Any = None) -> str:
        """``SuPar 1.1.4 (biaffine-dep, BiLSTM 3×400, words + UPOS; gold UPOS)``: the system, the version its recipe
        names, the recipe's settings and the tags it was given (``eval_tags``: gold, jack-knifed; None: none)."""
        e = config.external
        head = " ".join(part for part in (e.system, e.version) if part) or "external parser"
        column = "UPOS" if e.task == "dependency" else "POS"
        tags = f"{eval_tags} {column}" if eval_tags and config.data.tags != "none" else "no tags"
        targets = "gold trees in its prediction input" if e.predict_targets == "keep" else ""  # not the protocol's
        return f"{head} ({'; '.join(part for part in (e.settings, tags, targets) if part)})"
