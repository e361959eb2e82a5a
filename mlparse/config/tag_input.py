"""``data.tags`` against the parser's tag input: ``jackknife`` turns it on, ``none`` turns it off.

``data.tags: none`` is a parser that reads no POS tags (``model.use_tags: false``, set here whatever the recipe
says), the setting of parsers that predict their own tags (UDPipe 2, Stanza: ``biaffine.predict_tags``,
``span.predict_tags``) and need no tagger and no jack-knifing.  It is the same run as ``--set
model.use_tags=false``: the recipe hash leaves ``data.tags: none`` out (:func:`mlparse.config.hashing.hash_payload`).

The rest of this docstring is about ``jackknife``.

Predicted tags only mean something to a parser that reads tags.  A span, biaffine or joint recipe whose
model reads none (``model.use_tags: false``: the Kitaev & Klein and Mrini et al. recipes) and is asked for
jack-knifed tags (``--set data.tags=jackknife``) is run as the same parser *with* a tag input
(``model.use_tags: true``), fed the jack-knifed tags in training and on dev and test.  That is another
model than the recipe's, so the run says so: ``tagger.input_added`` is set (kept in the run's
``recipe.yaml``, left out of the run id, so a recipe that turns ``model.use_tags`` on itself is the same
run), the log has a note, ``results.json``'s ``input_tags`` has ``"input_added": true`` and the system
name ends in ``[tag input added]``.

Applied to the merged recipe data (base chain and ``--set`` overrides) before it is built and checked, so the
checks, the run id and everything after see the resolved recipe.
"""

from __future__ import annotations

from typing import Any, Dict

from mlparse.config import kinds
from mlparse.config.schema import ModelConfig

#: What the run's log and system name say when the tag input was added.
ADDED_NOTE = ("the recipe's parser reads no POS tags (model.use_tags: false); data.tags: jackknife turned its tag "
              "input on (model.use_tags: true), so it reads the jack-knifed tags in training and on dev and test: "
              "a parser with one input more than the recipe's")
ADDED_LABEL = "tag input added"


def turn_on_tag_input(data: Dict[str, Any]) -> bool:
    """Set ``model.use_tags`` (and ``tagger.input_added``) in the merged recipe ``data`` when it asks for
    jack-knifed tags for a parser (not a tagger) that reads none; changes ``data`` in place, returns whether
    it did.  Anything malformed is left for the schema's checks to report."""
    section, model = data.get("data"), data.get("model") or {}
    if not isinstance(section, dict) or section.get("tags") != "jackknife" or not isinstance(model, dict):
        return False
    kind = model.get("kind", ModelConfig.kind)  # the default kind when a recipe names none
    if not isinstance(kind, str) or not kinds.is_known(kind) or model.get("use_tags") is True:
        return False  # an unknown kind is left for the schema's checks
    if kinds.declaration(kind).tags_words:  # a tagger makes tags; it reads none
        return False
    tagger = data.get("tagger") or {}
    if not isinstance(tagger, dict):
        return False
    data["model"] = {**model, "use_tags": True}
    data["tagger"] = {**tagger, "input_added": True}
    return True


def turn_off_tag_input(data: Dict[str, Any]) -> bool:
    """Set ``model.use_tags: false`` in the merged recipe ``data`` when it says ``data.tags: none``; changes ``data``
    in place, returns whether it did.  Anything malformed is left for the schema's checks to report."""
    section, model = data.get("data"), data.get("model") or {}
    if not isinstance(section, dict) or section.get("tags") != "none" or not isinstance(model, dict):
        return False
    if model.get("use_tags") is not True:
        return False
    data["model"] = {**model, "use_tags": False}
    return True


def resolve_tag_input(data: Dict[str, Any]) -> None:
    """``model.use_tags`` as ``data.tags`` asks it in the merged recipe ``data``: on for ``jackknife``
    (:func:`turn_on_tag_input`), off for ``none`` (:func:`turn_off_tag_input`)."""
    turn_on_tag_input(data)
    turn_off_tag_input(data)
