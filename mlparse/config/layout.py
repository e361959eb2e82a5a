"""Recipe layouts: where a recipe's keys live, and moving the keys of an older layout to their place now.

Layout 1 had the span head's keys in ``model:``; layout 2 (this version's) gives them the ``span:`` section.
Run ids are the hash of layout 1's form (:func:`mlparse.config.hashing.hash_payload`), so a recipe gets the
same id in either layout.  Files are rewritten by :mod:`mlparse.config.upgrade` (``mlparse upgrade``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

from mlparse.config.schema import ConfigError

#: The recipe layout this version writes (implicit: a file says which by where its keys are).  Layout 1 had
#: the span head's keys (:class:`~mlparse.config.schema.SpanConfig`) in ``model:``; layout 2 gives them the ``span:`` section.
RECIPE_LAYOUT = 2
#: The layout whose form the run id hashes (:func:`mlparse.config.hashing.hash_payload`): the one ids were first handed out in.
HASH_LAYOUT = 1
#: Keys that moved between sections, by layout: (old section, key) -> new section.
MOVED_KEYS: Dict[Tuple[str, str], str] = {("model", name): "span" for name in
                                          ("d_label_hidden", "predict_tags", "d_tag_hidden", "tag_loss_scale")}


def migrate_layout(data: Mapping[str, Any], where: str = "recipe") -> Tuple[Dict[str, Any], List[Tuple[str, str, str]]]:
    """Recipe data (one file, or merged) with the keys of an older layout moved to their sections now
    (:data:`MOVED_KEYS`), and the moves made as ``(old section, key, new section)``.

    A key given both in its old and its new section is an error (which one was meant is unclear)."""
    out = dict(data)
    moves: List[Tuple[str, str, str]] = []
    for (old, key), new in MOVED_KEYS.items():
        section = out.get(old)
        if not isinstance(section, Mapping) or key not in section:
            continue
        target = out.get(new)
        if target is not None and not isinstance(target, Mapping):
            continue  # build_section reports the bad section
        if isinstance(target, Mapping) and key in target:
            raise both_given(where, f"{old}.{key}", f"{new}.{key}")
        out[old] = {k: v for k, v in section.items() if k != key}
        out[new] = {**(target or {}), key: section[key]}
        moves.append((old, key, new))
    return out, moves


def split_model_settings(settings: Mapping[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """A ``model:`` mapping that may hold layout-1 keys (a checkpoint's spec saved before layout 2) split into
    its :class:`~mlparse.config.schema.ModelConfig` keys and its :class:`~mlparse.config.schema.SpanConfig` keys."""
    span_keys = {key for (old, key), new in MOVED_KEYS.items() if old == "model" and new == "span"}
    model = {k: v for k, v in settings.items() if k not in span_keys}
    span = {k: v for k, v in settings.items() if k in span_keys}
    return model, span


def both_given(where: str, old: str, new: str) -> ConfigError:
    """The error for a key given both in its old place ``old`` and its place now ``new`` (which was meant is
    unclear)."""
    return ConfigError(f"{where}: {old} and {new} are both given; {old} is the key's old place (recipe layout 1): "
                       f"keep {new} only.")
