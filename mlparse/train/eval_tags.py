"""Which POS tags a model that takes tags as input (``model.use_tags``) gets on dev and test.

``data.eval_tags: gold`` (the default, as before it was a choice) gives it the tags of the dev/test
files themselves; ``predicted`` (``data.tags: files``) gives it the tags of ``data.dev_tags`` /
``data.test_tags`` (:mod:`mlparse.train.tag_files`: tag lines, trees or CoNLL-U), for trees and for CoNLL-U
data. Parsers in the literature that take tags were given predicted
tags (Kitaev & Klein 2018, Table 4: the Stanford tagger), so gold-tag scores are not comparable with
theirs: the run says which it did, in a note and in ``results.json`` (``eval_tags``), and the
report shows it. Training always uses the training file's own tags.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from mlparse.config import RecipeConfig
from mlparse.tasks import task_class
from mlparse.tasks.base import Split
from mlparse.train.tag_files import read_tags, unknown_tag_count

GOLD, PREDICTED = "gold", "predicted"


@dataclass
class EvalTags:
    """What a run feeds as tags on dev and test: ``kind`` is gold | predicted, or None without tag input."""

    kind: Optional[str] = None
    files: Dict[str, str] = field(default_factory=dict)  # split -> tag file (predicted)


def choose_eval_tags(config: RecipeConfig) -> EvalTags:
    """The recipe's choice (checked by the recipe schema), without reading any file."""
    data = config.data
    if not config.model.use_tags:
        return EvalTags()
    if data.tags == "jackknife":  # predicted by jack-knifed taggers (mlparse/train/jackknife.py), no files given
        return EvalTags(PREDICTED)
    if data.eval_tags != PREDICTED and data.tags != "files":  # data.tags: files is data.eval_tags: predicted
        return EvalTags(GOLD)
    return EvalTags(PREDICTED, {split: str(getattr(data, f"{split}_tags")) for split in ("dev", "test")})


def attach_eval_tags(choice: EvalTags, splits: Dict[str, Split], tag_column: Optional[str] = None) -> None:
    """Give each split of ``splits`` (by name) its predicted tags; raises ``DataError`` naming file and line.

    ``tag_column``: the CoNLL-U column a dependency parser reads (``biaffine.tag_column``): the tags replace it,
    and a CoNLL-U tag file gives that column.  Trees' tags are their preterminals (a CoNLL-U file's XPOS)."""
    for name, path in choice.files.items():
        split = splits[name]
        trees = getattr(split, "trees", None) is not None
        split.input_tags = read_tags(path, split, None if trees else tag_column)
        if not trees and tag_column is not None:
            split.input_tag_column = tag_column


def eval_tags_notes(choice: EvalTags, splits: Dict[str, Split], known_tags: Sequence[str],
                    task: str = "constituency") -> List[str]:
    """What the run tells the user (and keeps in ``results.json``) about its dev/test input tags."""
    if choice.kind == GOLD and task_class(task).scorer == "depeval":  # the tags of CoNLL-U files
        return ["dev and test are parsed with the POS tags of their CoNLL-U files as input (gold tags): the scores "
                "are not comparable with parsers given predicted tags, such as the CoNLL 2018 shared task's systems"]
    if choice.kind == GOLD:
        return ["dev and test are parsed with their gold POS tags as input (data.eval_tags: gold): the scores are "
                "not comparable with parsers given predicted tags, such as the tag rows of Kitaev & Klein (2018, "
                "Table 4, Stanford tagger); data.eval_tags: predicted with data.dev_tags and data.test_tags parses "
                "with a tagger's tags"]
    if choice.kind != PREDICTED:
        return []
    notes = [f"dev and test are parsed with predicted POS tags as input (data.tags: files) from "
             f"{choice.files['dev']} and {choice.files['test']}; training used the training file's own tags"]
    for name, path in choice.files.items():
        tags = splits[name].input_tags or []
        unknown = unknown_tag_count(tags, known_tags)
        if unknown:
            total = sum(len(row) for row in tags)
            notes.append(f"{unknown:,} of the {total:,} {name} tags in {path} are not in the training tag set; "
                         "the model sees them as unknown")
    return notes


def input_tags_record(eval_kind: Optional[str], splits: Dict[str, Any],
                      tag_column: str = "upos") -> Optional[Dict[str, Any]]:
    """``results.json``'s ``input_tags`` for a model that reads tags without jack-knifing: gold, or the tag files'
    (``data.tags: files`` / ``data.eval_tags: predicted``) with their accuracy against the data's tags (the trees'
    preterminals, or a CoNLL-U split's ``tag_column``)."""
    if eval_kind is None:
        return None
    if eval_kind == "gold":
        return {"source": "gold"}
    from mlparse.tasks.tagging import tag_accuracy

    accuracy = {}
    for name, split in splits.items():
        if split.input_tags is None:
            continue
        trees = getattr(split, "trees", None)
        gold = [t.tags() for t in trees] if trees is not None else [getattr(s, tag_column) for s in split.examples]
        correct, total = tag_accuracy(gold, split.input_tags)
        accuracy[name] = round(100.0 * correct / max(1, total), 2)
    return {"source": "files", "accuracy": accuracy}
