"""What a recipe of ``model.kind: external`` must hold, checked when it is loaded (before anything runs)."""

from __future__ import annotations

import math
from typing import Any

from mlparse.config.schema import ConfigError
from mlparse.config.command_templates import TemplateError, check_template

#: The CoNLL-U columns ``external.columns`` may keep (FORM always stays: they are the words to parse).
COLUMNS = ("form", "lemma", "upos", "xpos", "feats")
#: Columns mlparse does not predict: a peer may read them only when the protocol is the data's gold columns.
GOLD_ONLY = ("lemma", "xpos", "feats")
#: The tag protocols a peer can be given (``data.tags``): the data's tags, mlparse's jack-knifed ones, none.
PROTOCOLS = ("gold", "jackknife", "none")


def check_external(config: Any, source: str) -> None:
    """Refuse an ``external:`` section or data settings a peer cannot run with, naming the key."""
    e, d = config.external, config.data
    if not e.system.strip():
        raise ConfigError(f"{source}: external.system names the parser (SuPar, Stanza, benepar): the report's rows "
                          "and the environment variable of its Python take it.")
    for command in ("train", "predict"):
        if not getattr(e, command).strip():
            raise ConfigError(f"{source}: external.{command} is empty: give the command that "
                              f"{'trains the parser' if command == 'train' else 'makes it predict {input} into {output}'}.")
    for command in ("train", "predict", "resume", "resume_when", "model", "version_command", "model_check"):
        template = getattr(e, command)
        if template.strip():
            try:
                check_template(command, template)
            except TemplateError as error:
                raise ConfigError(f"{source}: external.{command}: {error}") from None
    if e.model_check.strip() and not e.model.strip():
        raise ConfigError(f"{source}: external.model_check needs external.model (the file whose load it checks).")
    if bool(e.resume.strip()) != bool(e.resume_when.strip()):
        raise ConfigError(f"{source}: external.resume and external.resume_when go together (the command that "
                          "continues a training and the checkpoint file it continues from).")
    unknown = [c for c in e.columns if c not in COLUMNS]
    if unknown:
        raise ConfigError(f"{source}: external.columns: {', '.join(map(repr, unknown))} is not a column the peer can "
                          f"be given; columns: {', '.join(COLUMNS)}.")
    if not isinstance(e.environment, dict) or not all(
            isinstance(k, str) and k and "=" not in k and isinstance(v, (str, int, float)) and not isinstance(v, bool)
            for k, v in e.environment.items()):
        raise ConfigError(f"{source}: external.environment is a mapping of variable names to values (text or "
                          f"numbers), got {e.environment!r}.")
    if not isinstance(e.files, dict) or not all(
            isinstance(k, str) and k and "/" not in k and "\\" not in k and k not in (".", "..") and isinstance(v, str)
            for k, v in e.files.items()):
        raise ConfigError(f"{source}: external.files maps file names (no folders) to their text, written into "
                          f"{{workdir}} before the peer trains; got {e.files!r}.")
    reserved = sorted(set(e.files) & {"data", "state.json", "train.log", "predict.log", "commands.json", "version.log"})
    if reserved:
        raise ConfigError(f"{source}: external.files: {', '.join(reserved)} is mlparse's own file in {{workdir}}.")
    if not (math.isfinite(e.predict_minutes) and e.predict_minutes > 0):
        raise ConfigError(f"{source}: external.predict_minutes bounds each prediction: a positive number of minutes, "
                          f"got {e.predict_minutes:g}.")
    if not (math.isfinite(e.stop_seconds) and e.stop_seconds >= 0):
        raise ConfigError(f"{source}: external.stop_seconds is how long a peer stopped at its budget gets to end: "
                          f"0 or more seconds, got {e.stop_seconds:g}.")
    if d.tags not in PROTOCOLS:
        raise ConfigError(f"{source}: data.tags: {d.tags} is not for an external parser; it takes gold (the data's "
                          "tags), jackknife (mlparse's jack-knifed tags) or none.")
    gold_beside = [c for c in e.columns if c in GOLD_ONLY]
    if d.tags in ("jackknife", "none") and gold_beside:
        raise ConfigError(f"{source}: external.columns keeps {', '.join(gold_beside)} under data.tags: {d.tags}, but "
                          f"mlparse predicts only UPOS (its jack-knifed tags), so the peer would read gold "
                          f"{', '.join(c.upper() for c in gold_beside)} where the protocol gives it "
                          f"{'predicted tags' if d.tags == 'jackknife' else 'none'}: keep [form, upos] (or [form]).")
    if d.eval_tags != "gold" or d.dev_tags or d.test_tags:
        raise ConfigError(f"{source}: data.eval_tags / dev_tags / test_tags are not for an external parser; "
                          "data.tags: jackknife gives it predicted tags.")
    if d.folds is not None:
        raise ConfigError(f"{source}: data.folds: an external parser trains on the whole training file.")
