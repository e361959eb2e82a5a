"""The run id of a recipe: what :meth:`mlparse.config.schema.RecipeConfig.hash` hashes, and the tables that keep a
recipe's id when mlparse grows.

A run directory is named by the first 12 hex digits of the sha256 of :func:`hash_payload`, so the same recipe
resumes the same run. Three tables keep ids stable across versions: :data:`HASH_NEUTRAL_DEFAULTS` (keys added
later, left out while they hold the default that behaves as before), :data:`AUTO_BUDGETS_ON_CPU` (``auto``
hashed as the number it replaced) and :data:`HASH_REVISIONS` (values whose meaning changed: a revision tag,
so that old checkpoints are not resumed with the new meaning).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict

from mlparse.config import kinds


def hash_payload(config: Any) -> Dict[str, Any]:
    """The plain data :meth:`RecipeConfig.hash` hashes (``config``: a :class:`~mlparse.config.schema.RecipeConfig`,
    which this module sits below): the recipe in layout :data:`mlparse.config.layout.HASH_LAYOUT` (layout 1:
    the ``span:`` keys inside ``model:``, for every kind), with the sections a kind does not read left out."""
    data = config.to_dict()
    data.pop("description", None)
    data.pop("deviation", None)
    data["model"].update(data.pop("span"))  # layout 1, for every kind (a kind that does not read it too: ids as before)
    for runtime_only in ("max_minutes", "num_threads", "overlap", "step", "subbatching", "subbatch_overhead"):
        data["train"].pop(runtime_only, None)
    data["data"]["fold_assignment"] = config.data.folds_by()  # auto hashes as what it means for this recipe
    for (section, key), default in HASH_NEUTRAL_DEFAULTS.items():
        if data[section].get(key) == default:
            data[section].pop(key, None)
    if data["data"].get("tags") == "none":  # no tag input is model.use_tags: false, which the hash holds: the same
        data["data"].pop("tags")  # run as --set model.use_tags=false
    if data["pretrained"]["model"] is None:  # no pretrained encoder: the section does not count (run ids as before)
        data.pop("pretrained")
    kind = config.model.kind
    tagger = data.pop("tagger")  # a tagger's own keys count for a tagger, and all but the time for a
    for runtime_only in ("max_minutes", "budget_share", "side_by_side"):  # parser whose tags jack-knifed taggers
        tagger.pop(runtime_only, None)  # make; otherwise nothing.  How long and where taggers train: not the recipe
    tagger.pop("input_added", None)  # how use_tags came to be true: the same parser either way
    own = kinds.sections_of(kind)
    sections = [f.name for f in dataclasses.fields(config) if dataclasses.is_dataclass(getattr(config, f.name))]
    for section in sections:  # a parser's own section counts only for that parser
        if section not in kinds.SHARED_SECTIONS and section not in own:
            data.pop(section, None)
    if "external" in data:  # where the peer is installed and how long it gets to stop: this machine, not the recipe
        for runtime_only in ("python", "repo", "stop_seconds", "install", "model_check", "stopping"):
            data["external"].pop(runtime_only, None)
    if "tagger" in own:
        data["tagger"] = {k: v for k, v in tagger.items() if k not in TAGGER_JACKKNIFE_KEYS}
    elif config.data.tags == "jackknife":
        data["tagger"] = tagger
    for (section, key), number in AUTO_BUDGETS_ON_CPU.items():  # auto hashes as the number it replaced:
        if data[section].get(key) == "auto":  # recipes written before it keep their run ids
            data[section][key] = number
    for (section, key, value), (tag, revision) in HASH_REVISIONS.items():
        if data[section].get(key) == value:
            data[section][tag] = revision
    return data


#: Switches added after run ids were first handed out, with the default that behaves as before.
HASH_NEUTRAL_DEFAULTS: Dict[tuple, Any] = {
    ("model", "attention_window"): None,
    ("model", "attention_window_relaxed"): False,
    ("model", "kind"): "span",
    ("model", "encoder"): "transformer",
    ("model", "positions"): "learned",
    ("eval", "dependency_scoring"): "conll18",
    ("eval", "punct_tags"): None,
    ("eval", "punct_column"): None,
    ("data", "eval_tags"): "gold",
    ("data", "dev_tags"): None,
    ("data", "test_tags"): None,
    ("data", "folds"): None,
    ("data", "fold"): None,
    ("data", "fold_assignment"): "modulo",  # what every fold was before `blocks`; auto hashes as what it resolves to
    ("data", "fold_seed"): 1,
    ("train", "compile"): "off",
    ("train", "max_updates"): None,
    ("train", "patience_updates"): None,
    ("train", "batch_order"): "shuffled",
    ("train", "ema_decay"): 0.0,
    ("train", "cpu_bf16"): False,
    ("data", "tags"): "gold",
    ("tagger", "affixes"): [],
    ("tagger", "d_affix_emb"): 32,
    ("tagger", "affix_min_count"): 2,
    ("tagger", "unk_replacement"): 0.0,
    ("tagger", "dropout_kind"): "feature",
    ("biaffine", "predict_tags"): False,
    ("biaffine", "d_tag_hidden"): None,
    ("biaffine", "tag_loss_scale"): 1.0,
}

#: The keys of the ``tagger`` section that say how a parser's tags are made, not what a tagger is.
TAGGER_JACKKNIFE_KEYS = ("recipe", "folds", "max_minutes", "budget_share", "side_by_side", "input_added")

#: ``subbatch_tokens: auto`` (mlparse/train/budget.py) on a CPU: the defaults these keys had before ``auto``.
#: Sub-batching does not change an update (the loss is normalised by the whole batch), so ``auto`` hashes as them.
AUTO_BUDGETS_ON_CPU: Dict[tuple, int] = {("train", "subbatch_tokens"): 2000, ("eval", "subbatch_tokens"): 5000}

#: Recipe values whose meaning changed in a later version, with the tag and revision added to the hash of
#: a recipe holding them: such runs get new ids instead of resuming checkpoints made with the old meaning.
#: CharConcat became the paper's packing (no begin/end-of-word marker slots, no projection); the biaffine and
#: joint parsers' arc softmax lost the self-loop (their losses changed, so their runs do not resume old checkpoints).
HASH_REVISIONS: Dict[tuple, tuple] = {
    ("model", "char_encoder", "concat"): ("char_concat_wiring", "paper-packing"),
    # Li et al. Eq. 5: the arc softmax runs over the other positions (self-loop masked; issue 23 §3)
    ("model", "kind", "biaffine"): ("arc_softmax", "no-self-loop"),
    ("model", "kind", "joint"): ("arc_softmax", "no-self-loop"),
}
