"""Building a :class:`~mlparse.config.schema.RecipeConfig` from plain data, and its cross-field and range checks.

:func:`from_dict` calls :func:`validate` on every recipe it builds: a value that would only fail hours
into a run is refused here, naming the recipe and the key.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Optional

from mlparse.config import kinds
from mlparse.config.schema import (SECTIONS, TOP_LEVEL_KEYS, ConfigError, DataConfig, ModelConfig, PretrainedConfig,
                                   RecipeConfig, build_section, unknown_key_error)
from mlparse.config.layout import migrate_layout


def from_dict(data: Mapping[str, Any], source: str = "recipe") -> RecipeConfig:
    """Validate and build a :class:`RecipeConfig` from merged plain data.

    Data in an older layout (a saved ``recipe.yaml``, data built by code) is migrated first
    (:func:`mlparse.config.layout.migrate_layout`), silently: recipe files say so when they are read
    (:func:`mlparse.config.loading.load_raw`)."""
    data, _ = migrate_layout(data, source)
    for key in data:
        if key not in TOP_LEVEL_KEYS or key == "base":
            raise unknown_key_error(str(key), [k for k in TOP_LEVEL_KEYS if k != "base"], source)
    sections = {name: build_section(name, cls, data.get(name), source) for name, cls in SECTIONS.items()}
    config = RecipeConfig(name=str(data.get("name") or ""), description=str(data.get("description") or ""),
                          deviation=str(data.get("deviation") or ""), **sections)
    validate(config, source)
    return config


def validate(config: RecipeConfig, source: str = "recipe") -> None:
    """Cross-field and range checks: a value that would only fail hours into a run is refused here."""
    m, t, d, e = config.model, config.train, config.data, config.eval
    _check_name(config.name, source)
    if m.d_model % 2:
        raise ConfigError(f"{source}: model.d_model must be even (content ‖ position halves), got {m.d_model}.")
    p = config.pretrained
    if not (m.use_words or m.use_tags or m.char_encoder != "none" or p.model is not None):
        raise ConfigError(f"{source}: the model has no lexical input; enable model.use_words, model.use_tags, a "
                          "model.char_encoder or a pretrained.model.")
    positive = ["model.num_layers", "model.num_heads", "model.d_kv", "model.d_ff", "model.d_model", "span.d_label_hidden",
                "span.d_tag_hidden", "train.lr",
                "train.batch_size", "train.evals_per_epoch", "train.max_epochs",
                "train.adam_eps"] + (["model.d_char_emb"] if m.char_encoder != "none" else [])
    dropouts = [f"model.{name}" for name in ("attention_dropout", "relu_dropout", "residual_dropout", "word_emb_dropout",
                                              "tag_emb_dropout", "morpho_emb_dropout", "char_input_dropout")]
    rules = [(key, lambda v: v > 0 and math.isfinite(v), "must be positive (and finite)") for key in positive] + [
        (key, lambda v: 0.0 <= v < 1.0, "is a dropout probability, in [0, 1)") for key in dropouts] + [
        (key, lambda v: v == "auto" or (isinstance(v, int) and v > 0), "must be positive (token-equivalents) or auto")
        for key in ("train.subbatch_tokens", "eval.subbatch_tokens")] + [
        ("model.max_len", lambda v: v >= 3, "counts the start and stop positions too; it must be at least 3"),
        ("train.lr_decay_factor", lambda v: 0.0 < v <= 1.0, "must be in (0, 1]"),
        ("train.warmup_steps", lambda v: v >= 0, "cannot be negative"),
        ("train.subbatch_overhead", lambda v: v >= 0, "cannot be negative (token-equivalents of one sub-batch)"),
        ("train.ema_decay", lambda v: 0.0 <= v < 1.0, "is a decay in [0, 1) (0: no moving average)"),
        ("model.word_min_count", lambda v: v >= 0, "cannot be negative"),
        ("train.adam_betas", lambda v: len(v) == 2, "must have two numbers")] + [
        (key, lambda v: v is None or v > 0, "must be positive (or null for no limit)")
        for key in ("data.max_train_sentences", "data.max_train_length", "eval.max_sentences", "train.max_updates",
                    "train.patience_updates")] + [
        ("model.attention_window", lambda v: v is None or v >= 1, "is a distance in words: at least 1 (or null for none)")]
    sections = {"model": m, "train": t, "data": d, "eval": e, "span": config.span}
    for key, check, message in rules:
        section, name = key.split(".")
        value = getattr(sections[section], name)
        if not check(value):
            raise ConfigError(f"{source}: {key} {message}, got {value}.")
    check_minutes(t.max_minutes, f"{source}: train.max_minutes")
    _check_punctuation(e, source)
    try:
        declared = kinds.declaration(m.kind)
    except kinds.UnknownParserKind as error:
        raise ConfigError(f"{source}: model.kind: {error}") from None
    declared.check(config, source)  # the kind's own rules (mlparse.models.kind.ParserKind.check)
    if t.compile != "off" and m.encoder != "transformer":
        raise ConfigError(f"{source}: train.compile: {t.compile} compiles the transformer encoder; "
                          f"model.encoder: {m.encoder} has none (use train.compile: off).")
    if m.attention_window_relaxed and m.attention_window is None:
        raise ConfigError(f"{source}: model.attention_window_relaxed needs a model.attention_window (a distance).")
    _check_char_concat(m, source)
    _check_eval_tags(config, source)
    _check_input_tags(config, source)
    _check_folds(d, source)
    _check_pretrained(p, source)


def check_minutes(minutes: Optional[float], name: str) -> None:
    """A time budget (``train.max_minutes``, ``--max-minutes``) is a finite number of minutes, 0 or more (0: one
    update), or None for none: NaN would never stop training and a negative one would act as 0.  ``name`` starts
    the message (the option, or the recipe and key)."""
    if minutes is not None and not (math.isfinite(minutes) and minutes >= 0):
        raise ConfigError(f"{name} is a time budget in minutes: a finite number, 0 or more (0 trains one update), "
                          f"got {minutes:g}.")


def _check_folds(d: DataConfig, source: str) -> None:
    """``data.folds`` and ``data.fold`` come together: N >= 2 folds and a fold 0..N-1."""
    if d.folds is None and d.fold is None:
        return
    if d.folds is None or d.fold is None:
        raise ConfigError(f"{source}: data.folds and data.fold go together (the number of folds and the one held out).")
    if d.folds < 2:
        raise ConfigError(f"{source}: data.folds must be at least 2, got {d.folds}.")
    if not 0 <= d.fold < d.folds:
        raise ConfigError(f"{source}: data.fold must be between 0 and data.folds - 1 = {d.folds - 1}, got {d.fold}.")


def _check_pretrained(p: PretrainedConfig, source: str) -> None:
    """The ``pretrained:`` section: sizes and rates in range, and ``transformers`` importable when it is on."""
    if p.model is None:
        return
    if not p.model.strip():
        raise ConfigError(f"{source}: pretrained.model is empty; name a hub model or a local directory (or null for none).")
    checks = [("top_k", p.top_k >= 1, "must be at least 1"), ("lr", p.lr > 0, "must be positive"),
              ("warmup_steps", p.warmup_steps >= 0, "cannot be negative"),
              ("dropout", 0.0 <= p.dropout < 1.0, "is a dropout probability, in [0, 1)"),
              ("window_overlap", p.window_overlap >= 0, "cannot be negative"),
              ("max_subwords", p.max_subwords is None or p.max_subwords >= 4,
               "counts the special tokens too; it must be at least 4")]
    for key, good, message in checks:
        if not good:
            raise ConfigError(f"{source}: pretrained.{key} {message}, got {getattr(p, key)}.")
    import importlib.util

    if importlib.util.find_spec("transformers") is None:
        raise ConfigError(f"{source}: pretrained.model needs the 'transformers' package: pip install 'mlparse[pretrained]'")


def _check_char_concat(m: ModelConfig, source: str) -> None:
    """CharConcat packs 2·N letter embeddings into the content input (Kitaev & Klein 2018, §5.1): they must fit."""
    if m.char_encoder != "concat":
        return
    if m.char_concat_letters < 1:
        raise ConfigError(f"{source}: model.char_concat_letters must be at least 1, got {m.char_concat_letters}.")
    content = m.d_model // 2 if m.factored else m.d_model
    packed = 2 * m.char_concat_letters * m.d_char_emb
    if packed > content:
        fit = content // (2 * m.char_concat_letters)
        hint = f"set model.d_char_emb to {fit} or less" if fit else "use fewer model.char_concat_letters"
        raise ConfigError(
            f"{source}: model.char_encoder=concat packs 2 x {m.char_concat_letters} letters x model.d_char_emb="
            f"{m.d_char_emb} = {packed} features into the content input of {content} features "
            f"({'d_model/2' if m.factored else 'd_model'}), which is too small; {hint} "
            f"(the paper: 2 x 8 letters x 32 = 512 for d_model 1024).")


def _check_eval_tags(config: RecipeConfig, source: str) -> None:
    """``data.eval_tags`` and the tag files must agree with each other and with ``model.use_tags``."""
    d, m = config.data, config.model
    files = [f"data.{split}_tags" for split in ("dev", "test") if getattr(d, f"{split}_tags")]
    if d.eval_tags == "gold" and d.tags != "files":
        if files:
            raise ConfigError(f"{source}: {' and '.join(files)} {'is' if len(files) == 1 else 'are'} given but "
                              "data.eval_tags is gold; set data.eval_tags=predicted to parse with the tags of the file(s).")
        return
    if not m.use_tags:
        raise ConfigError(f"{source}: data.{'tags=files' if d.tags == 'files' else 'eval_tags=predicted'}, but the model "
                          "takes no POS tags as input "
                          "(model.use_tags is false): there are no input tags to predict.")
    missing = [f"data.{split}_tags" for split in ("dev", "test") if not getattr(d, f"{split}_tags")]
    if missing:
        head = (" The model's own tagging head (span.predict_tags) cannot supply them: it reads the encoder, which "
                "takes the input tags, so its tags are not a prediction made without them; a run of a tagging model "
                "(span.predict_tags: true, model.use_tags: false) can, through its predicted trees."
                if config.span.predict_tags else "")
        raise ConfigError(f"{source}: data.eval_tags=predicted needs {' and '.join(missing)}: a file of predicted "
                          "tags per split (one line of tags per sentence, bracketed trees whose leaves carry them, or "
                          f"a CoNLL-U file of predicted tags).{head}")


def _check_input_tags(config: RecipeConfig, source: str) -> None:
    """``data.tags`` (gold | jackknife | files) against ``model.use_tags`` and the ``tagger`` section."""
    d, m, t = config.data, config.model, config.tagger
    if t.folds < 2:
        raise ConfigError(f"{source}: tagger.folds must be at least 2 (each fold tagger tags the sentences it did not "
                          f"train on), got {t.folds}.")
    if t.max_minutes is not None and not (math.isfinite(t.max_minutes) and t.max_minutes > 0):
        raise ConfigError(f"{source}: tagger.max_minutes must be a positive, finite number of minutes (or null for "
                          f"none), got {t.max_minutes:g}.")
    if not 0.0 <= t.budget_share < 1.0:
        raise ConfigError(f"{source}: tagger.budget_share is the taggers' share of a run's time budget, in [0, 1) "
                          f"(the parser needs some of it), got {t.budget_share}.")
    if t.side_by_side is not None and t.side_by_side < 1:
        raise ConfigError(f"{source}: tagger.side_by_side is how many taggers train at once: at least 1 (or null "
                          f"for as many as the GPUs or cores allow), got {t.side_by_side}.")
    for key in ("d_word_emb", "lstm_hidden", "lstm_layers"):
        if getattr(t, key) <= 0:
            raise ConfigError(f"{source}: tagger.{key} must be positive, got {getattr(t, key)}.")
    for key in ("embedding_dropout", "lstm_dropout"):
        if not 0.0 <= getattr(t, key) < 1.0:
            raise ConfigError(f"{source}: tagger.{key} is a dropout probability, in [0, 1), got {getattr(t, key)}.")
    if d.tags == "jackknife":  # (a tagger refuses data.tags other than gold: its own check)
        if not m.use_tags:
            raise ConfigError(f"{source}: data.tags=jackknife, but the model takes no POS tags as input "
                              "(model.use_tags is false): there are no input tags to predict; add "
                              "--set model.use_tags=true to train it on jack-knifed tags.")
        if d.eval_tags != "gold" or d.dev_tags or d.test_tags:
            raise ConfigError(f"{source}: data.tags=jackknife makes the dev and test tags itself; leave out "
                              "data.eval_tags, data.dev_tags and data.test_tags (those are data.tags=files).")
        if d.folds is not None:
            raise ConfigError(f"{source}: data.tags=jackknife with data.folds: a fold of a jack-knifed parser would "
                              "need taggers that never saw its own held-out fold; not supported.")


def _check_name(name: str, source: str) -> None:
    """The recipe name becomes a folder, ``runs/<name>/``: one plain path component."""
    if name in (".", "..") or (name and not name.strip()) or any(sep in name for sep in ("/", "\\", "\0")):
        raise ConfigError(f"{source}: name {name!r} cannot be a run folder name (runs/<name>/); "
                          "use letters, digits, '-', '_' or '.' without '/'.")



def _check_punctuation(e, source: str) -> None:
    """``eval.punct_tags`` / ``eval.punct_column`` choose what PTB scoring leaves out: only with that scoring,
    and the tags a non-empty list of non-empty tags."""
    if e.punct_tags is None and e.punct_column is None:
        return
    if e.dependency_scoring != "ptb":
        key = "eval.punct_tags" if e.punct_tags is not None else "eval.punct_column"
        raise ConfigError(f"{source}: {key} chooses the punctuation that PTB scoring leaves out; it needs "
                          f"eval.dependency_scoring: ptb (CoNLL 2018 scoring counts every word), got "
                          f"{e.dependency_scoring}.")
    if e.punct_tags is not None and (not e.punct_tags or not all(tag.strip() for tag in e.punct_tags)):
        raise ConfigError(f"{source}: eval.punct_tags must list at least one non-empty tag (or be null for the "
                          f"treebank catalog's), got {e.punct_tags}.")
