"""How a saved span parser's spec is read back: its settings as this version writes them (keys added since it was
saved take their defaults; a spec from before recipe layout 2 gets its ``span_config``), and the checkpoints this
version refuses with a message (:class:`CheckpointFormatError`). Used by :class:`~mlparse.models.span_parser.SpanParser`
and the joint parser built on it."""

from __future__ import annotations

from typing import Any, Dict

from mlparse.config import ModelConfig, SpanConfig
from mlparse.config.layout import split_model_settings


class CheckpointFormatError(ValueError):
    """A saved model this version cannot rebuild faithfully, with a message meant for the user."""


#: How CharConcat is wired, saved in every spec.  Specs without it predate the paper's packing:
#: their CharConcat spent a letter slot on each begin/end-of-word marker and projected its features.
CHAR_CONCAT_WIRING = "paper-packing"


def current_spec(spec: Dict[str, Any]) -> Dict[str, Any]:
    """``spec`` with its settings as this version writes them, where they can be read: keys added since it
    was saved take their defaults, and a spec saved before recipe layout 2 (the span head's settings inside
    ``model_config``) gets its ``span_config``.  Settings this version does not know are left as they are
    (they then differ from any parser's)."""
    try:  # an older checkpoint lacks settings added since: they take their defaults
        return {**spec, "model_config": model_config_of(spec).__dict__, "span_config": span_config_of(spec).__dict__}
    except TypeError:  # a setting this version does not know
        return spec


def model_config_of(spec: Dict[str, object]) -> ModelConfig:
    """The spec's encoder settings; keys added to :class:`ModelConfig` since it was saved take their defaults
    (the span head's keys of a spec saved before recipe layout 2 are :func:`span_config_of`'s).

    Raises :class:`CheckpointFormatError` for a CharConcat model saved before the paper's packing
    (its weights would be read with another meaning); other older models load as they are.
    """
    model, _ = split_model_settings(spec["model_config"])  # type: ignore[arg-type]
    config = ModelConfig(**model)
    if config.char_encoder == "concat" and spec.get("char_concat_wiring") != CHAR_CONCAT_WIRING:
        raise CheckpointFormatError(
            "this CharConcat model was saved by an older mlparse, whose CharConcat gave a letter slot to each "
            "begin/end-of-word marker (7 letters per side) and projected its features; this version packs "
            "the first and last letters as in Kitaev & Klein (2018, §5.1) and cannot load it: train it again "
            "(`mlparse run RECIPE`: CharConcat recipes get a new run id)")
    return config


def span_config_of(spec: Dict[str, object]) -> SpanConfig:
    """The spec's span head settings: its ``span_config``, or (saved before recipe layout 2) the span keys of
    its ``model_config``; keys added since take their defaults."""
    if "span_config" in spec:
        return SpanConfig(**spec["span_config"])  # type: ignore[arg-type]
    _, span = split_model_settings(spec["model_config"])  # type: ignore[arg-type]
    return SpanConfig(**span)
