"""Jack-knifed part-of-speech tags for a parser (``data.tags: jackknife``).

The standard setup of parsers that read predicted tags (Li et al. 2019 on the PTB; Kitaev & Klein's
Table 4) gives the parser, in training too, tags of a tagger that never saw the sentence: the training
file is cut into ``tagger.folds`` folds (:mod:`mlparse.train.folds`, on the whole file), the tagger
trained on all folds but k tags fold k, and a tagger trained on the whole training file tags dev and
test.  Each tagger is an ordinary run of the recipe ``tagger.recipe`` (``model.kind: tagger``) whose
data section is the parser's, with ``data.folds``/``data.fold`` for the fold taggers, so it resumes,
holds its run lock and is reused by its run id.

The folds are contiguous blocks of the training file by default (``data.fold_assignment: auto``, which is
``blocks`` here): a fold tagger then holds out whole documents, and the words of its held-out block are about
as new to it as dev's are to the tagger of dev and test.  Interleaved folds (``modulo``: every N-th sentence)
let each fold tagger train on the neighbouring sentences of the documents it tags, so it tags train better
than the other tagger tags dev and test (on UD English-EWT 5.2% of the held-out words were unknown to their
fold tagger, against 8.3% of dev's).  The manifest records that rate for every tagger (:func:`unknown_rate`).

The tags are written beside the prepared data, in ``<prepared folder>/tags/<column>-<key>/``:
``train.tags``, ``dev.tags``, ``test.tags`` (tag lines: line k holds the tags of sentence k) and
``manifest.json`` (the taggers' run ids and folders, the fold of every training sentence, the accuracy
of the tags on each split, the share of words unknown to the tagger that tagged them).  ``key`` hashes the
taggers' recipes (and time budgets) and the split files' contents, so the same taggers on the same data reuse
the files, and anything else makes new ones.

The taggers train through the ``train`` callback that :func:`make_tags` is given (the runner's: one after the
other in its process, or side by side in processes of their own, :mod:`mlparse.train.tagger_pool`); without
a time budget each stops on its own patience (counted in dev checks, so in updates), so the same recipe gives
the same tags on a quiet or a loaded machine.
"""

from __future__ import annotations

import hashlib
import json
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Container, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from mlparse.config import RecipeConfig, from_dict, load_recipe
from mlparse.data.manifest import sha256_file
from mlparse.io_utils import atomic_write_json, atomic_write_text
from mlparse.results import COMPLETE, RunResults
from mlparse.run_dir import RunDir, run_id_for
from mlparse.tasks.base import DataError, Split
from mlparse.tasks.tagging import TaggedSentence, tag_accuracy, tagged_sentences
from mlparse.train.folds import fold_of

MANIFEST = "manifest.json"
SPLITS = ("train", "dev", "test")
#: Version of the tagged folder's layout (in the manifest and the key).  2: unknown-word rates in the manifest.
FORMAT_VERSION = 2
#: Token-equivalents of one tagging forward pass.
TAGGING_BUDGET = 5000
#: The data keys a tagger takes from the parser's recipe: where the data is, nothing about how it is used.
LOCATION_KEYS = ("family", "language", "root", "train", "dev", "test")


class TaggerFailed(RuntimeError):
    """A tagger run did not finish: the parser run stops with this message (the tagger's own error)."""


@dataclass
class JackknifedTags:
    """The tagged files of a parser recipe: ``folder``, the ``tags`` of every split (sentence by sentence)
    and the ``manifest`` (see the module docstring)."""

    folder: Path
    tags: Dict[str, List[List[str]]]
    manifest: Dict[str, Any] = field(default_factory=dict)

    @property
    def accuracy(self) -> Dict[str, float]:
        return dict(self.manifest.get("accuracy", {}))

    def input_record(self, folds: int) -> Dict[str, Any]:
        """``results.json``'s ``input_tags`` for a run that read these tags: source, folds, accuracy, the folder
        (whose tagger of dev and test ``mlparse export`` bundles) and that tagger's run directory."""
        full = [t for t in self.manifest.get("taggers", []) if t.get("fold") is None]
        return {"source": "jackknife", "folds": folds, "accuracy": self.accuracy, "folder": str(self.folder),
                "tagger_run_dir": full[0]["run_dir"] if full else None}


def made_tags(config: RecipeConfig, minutes: Optional[float] = None) -> JackknifedTags:
    """The jack-knifed tags (of taggers bounded by ``minutes``) that a run made (or found) before training, read and
    checked against the data; :class:`~mlparse.train.run_plan.RunError` when they cannot be read."""
    from mlparse.train.run_plan import RunError

    try:
        tagged = load_tags(config, minutes)
    except DataError as error:
        raise RunError(f"jack-knifed tags: {error}") from None
    if tagged is None:
        raise RunError("jack-knifed tags: their folder has no manifest.json (removed while this run started?); "
                       "the same command makes them again")
    return tagged


def tag_column(config: RecipeConfig) -> str:
    """Which tags the parser of ``config`` reads: the trees' preterminals (pos) or a CoNLL-U column (its class's
    :meth:`~mlparse.models.base.Parser.input_tag_column`, as the kind declares it: a kind that runs outside mlparse
    has no parser class)."""
    from mlparse.config import kinds

    return kinds.declaration(config.model.kind).input_tag_column(config)


#: Torch threads of a tagger whose recipe names none (``train.num_threads``): the same in every process that
#: trains it, so that its tags do not depend on where it ran (:func:`tagger_threads`).
TAGGER_THREADS = 1


def tagger_threads(tagger: RecipeConfig) -> int:
    """The torch threads a tagger trains with: its recipe's ``train.num_threads``, else :data:`TAGGER_THREADS`.
    Fixed per recipe, so that a tagger trained in the parser's process, beside others or in a sweep gives the
    same tags (float sums may differ with the thread count)."""
    return int(tagger.train.num_threads or TAGGER_THREADS)


def tagger_configs(config: RecipeConfig, minutes: Optional[float] = None) -> List[RecipeConfig]:
    """The taggers of a parser recipe: fold 0 .. folds-1, then the tagger trained on all of train (last).

    ``minutes``: each tagger's training-time bound (the share of a bounded run's budget,
    :mod:`mlparse.train.run_budget`); None: ``tagger.max_minutes`` (none by default: each stops on its patience)."""
    base = _tagger_base(config)
    return [tagger_config(config, fold, minutes, base) for fold in list(range(config.tagger.folds)) + [None]]


def _tagger_base(config: RecipeConfig) -> RecipeConfig:
    """The recipe ``tagger.recipe`` names, checked to be a tagger's."""
    base = load_recipe(config.tagger.recipe)
    from mlparse.models.registry import parser_class

    if not parser_class(base.model.kind).tags_words:
        raise DataError(f"tagger.recipe {config.tagger.recipe!r} is a {base.model.kind} recipe, not a tagger "
                        "(model.kind: tagger)")
    return base


def tagger_config(config: RecipeConfig, fold: Optional[int], minutes: Optional[float] = None,
                  base: Optional[RecipeConfig] = None) -> RecipeConfig:
    """One tagger of :func:`tagger_configs`: the fold tagger that holds out ``fold``, or (None) the tagger of all of
    train; ``base``: the loaded ``tagger.recipe`` (loaded here when None)."""
    base = base if base is not None else _tagger_base(config)
    folds = config.tagger.folds
    data = base.to_dict()
    data.pop("base", None)
    for key in LOCATION_KEYS:
        data["data"][key] = getattr(config.data, key)
    # the folds' assignment resolved (auto: blocks); the tagger of all of train has no fold, and keeps auto
    data["data"].update(folds=folds if fold is not None else None, fold=fold,
                        fold_assignment=config.data.folds_by() if fold is not None else "auto",
                        fold_seed=config.data.fold_seed, max_train_sentences=None)
    data["tagger"]["column"] = tag_column(config)
    data["name"] = f"tagger-{Path(str(config.data.family)).name}-{Path(str(config.data.language)).name}"
    bound = minutes if minutes is not None else config.tagger.max_minutes
    if bound is not None:
        data["train"]["max_minutes"] = bound
    tagger = from_dict(data, source=f"tagger.recipe {config.tagger.recipe}")
    tagger.train.num_threads = tagger_threads(tagger)  # not part of the run id
    return tagger


def check_folds(config: RecipeConfig) -> None:
    """A :class:`DataError` when the training file has fewer sentences than ``tagger.folds``: said before the
    taggers are planned or trained (``tagger.folds + 1`` recipes take a while to build when the folds are many)."""
    path = tagger_split_path(tagger_config(config, None), "train")
    sentences = len(tagged_sentences(path).examples)
    if sentences < config.tagger.folds:
        raise DataError(f"tagger.folds={config.tagger.folds}, but {path} has only {sentences} sentences: each fold "
                        f"tagger holds out at least one (set tagger.folds to at most {sentences})")


#: How a tagger of :func:`tagger_configs` is chosen on the command line (``mlparse run RECIPE --tagger ALL``) besides
#: its fold number: the tagger trained on all of train, which tags dev and test.
ALL = "all"


def tagger_role(index: int, folds: int) -> str:
    """What tagger ``index`` of :func:`tagger_configs` does, in words (notes, errors, sweep labels)."""
    return (f"fold tagger {index + 1} of {folds} (fold {index} held out)" if index < folds
            else "tagger on all of train (tags dev and test)")


def tagger_index(config: RecipeConfig, which: str) -> int:
    """The index in :func:`tagger_configs` of the tagger ``which`` names: a fold number 0 .. folds-1, or
    :data:`ALL`; a :class:`DataError` for anything else or a recipe without jack-knifed tags."""
    if config.data.tags != "jackknife":
        raise DataError(f"--tagger {which}: the recipe {config.name} has no jack-knifed tags (data.tags is "
                        f"{config.data.tags}; set data.tags=jackknife)")
    folds = config.tagger.folds
    if str(which).strip().lower() == ALL:
        return folds
    try:
        fold = int(str(which))
    except ValueError:
        fold = -1
    if not 0 <= fold < folds:
        raise DataError(f"--tagger takes a fold number from 0 to {folds - 1} (tagger.folds={folds}) or {ALL} (the "
                        f"tagger of dev and test), got {which!r}")
    return fold


def tags_key(config: RecipeConfig, taggers: Sequence[RecipeConfig]) -> str:
    """12 hex digits over the taggers' run ids and time budgets and the split files' contents."""
    paths = {split: tagger_split_path(taggers[-1], split) for split in SPLITS}
    payload = {"format": FORMAT_VERSION, "taggers": [run_id_for(t) for t in taggers],
               # a tagger given more time trains on in the same run: its tags are made again
               "minutes": [t.train.max_minutes for t in taggers],
               "data": {split: sha256_file(path) for split, path in paths.items()}}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:12]


def tagger_split_path(tagger: RecipeConfig, split: str) -> Path:
    return tagger.split_path(split)


def tags_folder(config: RecipeConfig, taggers: Sequence[RecipeConfig]) -> Path:
    """Where the tagged files of ``config`` live: ``<folder of train>/tags/<column>-<key>``."""
    train = tagger_split_path(taggers[-1], "train")
    return train.parent / "tags" / f"{tag_column(config)}-{tags_key(config, taggers)}"


def read_tag_lines(path: Path, split: Split[TaggedSentence]) -> List[List[str]]:
    """The tags of ``path`` (line k: the tags of sentence k), checked against the words of ``split``:
    a line whose tag count differs, or a file with another number of lines, is a :class:`DataError`
    naming the tag file and line and the sentence's place in its split."""
    sentences = split.examples
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise DataError(f"tag file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise DataError(f"{path}: cannot read ({error})") from None
    while lines and not lines[-1].strip():
        lines.pop()
    tags = [line.split() for line in lines]
    for index, (row, sentence) in enumerate(zip(tags, sentences)):
        if len(row) != len(sentence.words):
            raise DataError(f"{path}:{index + 1}: {len(row)} tags for the {len(sentence.words)} words of sentence "
                            f"{index + 1} ({split.where(index)})")
    if len(tags) != len(sentences):
        raise DataError(f"{path}: {len(tags)} lines of tags for the {len(sentences)} sentences of {split.path}")
    return tags


def load_tags(config: RecipeConfig, minutes: Optional[float] = None) -> Optional[JackknifedTags]:
    """The tagged files of ``config`` (taggers bounded by ``minutes``, as :func:`tagger_configs`) when they exist and
    are complete (their manifest written last, every tag file there: one deleted behind the manifest is made again),
    else None.  A damaged tag file is a :class:`DataError` naming it and the way out."""
    taggers = tagger_configs(config, minutes)
    folder = tags_folder(config, taggers)
    manifest_path = folder / MANIFEST
    if not tags_complete(folder):  # incomplete: make_tags makes the files (again)
        return None
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    tags = {}
    for split in SPLITS:
        sentences = tagged_sentences(tagger_split_path(taggers[-1], split))
        try:
            tags[split] = read_tag_lines(folder / f"{split}.tags", sentences)
        except DataError as error:
            raise DataError(f"{error}; delete {folder} and the run makes its tags again (its taggers are "
                            "reused)") from None
    return JackknifedTags(folder, tags, manifest)


def tags_made(config: RecipeConfig, minutes: Optional[float] = None) -> bool:
    """Are the tagged files of ``config`` there and complete (read nothing but their names: :func:`load_tags`
    reads and checks them)?"""
    return tags_complete(tags_folder(config, tagger_configs(config, minutes)))


def tags_complete(folder: Path) -> bool:
    """Its manifest (written last) and every tag file are in ``folder``."""
    return (folder / MANIFEST).is_file() and not missing_tag_files(folder)


def missing_tag_files(folder: Path) -> List[str]:
    """The tag files of a tagged folder that are not there (deleted behind its manifest, say)."""
    return [f"{split}.tags" for split in SPLITS if not (folder / f"{split}.tags").is_file()]


#: How often a process of a several-process run looks whether process 0 has made the jack-knifed tags.
POLL_SECONDS = 2.0


def wait_for_tags(config: RecipeConfig, minutes: Optional[float] = None) -> None:
    """Return once the tagged files of ``config`` (taggers bounded by ``minutes``) are complete (another process
    makes them)."""
    while True:
        try:
            if load_tags(config, minutes) is not None:
                return
        except DataError:  # the folder is being written: look again
            pass
        time.sleep(POLL_SECONDS)


@dataclass
class TrainedTagger:
    """A trained tagger as its run's best checkpoint (else its last) holds it, read once: the model on its device,
    and the words it saw in training (its vocabulary's counts, rare words included: a word it maps to its
    unknown-word vector is still one it trained on)."""

    model: Any
    known_words: Set[str]


def load_tagger(run_dir: RunDir, device: Any = "cpu") -> TrainedTagger:
    """The tagger in ``run_dir`` from one read of its checkpoint; :class:`TaggerFailed` when the checkpoint is gone."""
    from mlparse.models.registry import parser_from_spec
    from mlparse.train import checkpoint

    path = run_dir.best if run_dir.best.is_file() else run_dir.last
    if not path.is_file():
        raise TaggerFailed(f"{path}: not found, though the tagger's run {run_dir.path} is complete (its checkpoints "
                           f"were deleted?): delete {run_dir.path} and run again, which trains that tagger again, or "
                           "put its checkpoints back")
    saved = checkpoint.load(path, map_location=device)
    tagger = parser_from_spec(saved["spec"])
    tagger.load_state_dict(saved["model"])
    tagger.to(device)
    vocab = saved["spec"]["vocab"]
    return TrainedTagger(tagger, set(vocab.get("word_counts") or vocab["words"]))


def _tag(tagger: TrainedTagger, sentences: Sequence[TaggedSentence], budget: int = TAGGING_BUDGET) -> List[List[str]]:
    """The tags ``tagger`` gives ``sentences`` (on its device, in sub-batches of ``budget`` token-equivalents)."""
    import torch

    from mlparse.train.prediction import predict_in_batches

    if not sentences:
        return []
    with torch.no_grad():
        return predict_in_batches(tagger.model, list(sentences), [len(s.words) for s in sentences], budget, "cython",
                                  False)


def unknown_words(known: Container[str], sentences: Sequence[TaggedSentence]) -> Tuple[int, int]:
    """``(unknown, words)``: how many of the words of ``sentences`` are outside ``known`` (a tagger's training
    words), and how many words they have."""
    return (sum(1 for s in sentences for word in s.words if word not in known), sum(len(s.words) for s in sentences))


def unknown_rate(unknown: int, words: int) -> Optional[float]:
    """``unknown`` of ``words`` in percent, rounded to 0.01 (None without words)."""
    return round(100.0 * unknown / words, 2) if words else None


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}%"


#: Trains the taggers it is given (in order, with a role in words each) and returns each one's results and run
#: directory, in the same order; raises or returns a failed result for a tagger that did not finish.
TrainTaggers = Callable[[Sequence[RecipeConfig], Sequence[str]], List[Tuple[RunResults, Path]]]


def make_tags(config: RecipeConfig, train: TrainTaggers, note: Callable[[str], None] = lambda text: None,
              device: Any = "cpu", minutes: Optional[float] = None) -> JackknifedTags:
    """The jack-knifed tags of ``config``: reused when their folder is complete, else made.

    ``train(taggers, roles)`` trains (or resumes, or finds finished) the tagger runs, one after the other or side by
    side, with each tagger's training bounded by ``minutes`` (None: ``tagger.max_minutes``); a tagger that does not
    finish raises :class:`TaggerFailed` with its error, and no tag file is written.  Then every training sentence
    is tagged by the fold tagger that held it out, dev and test by the tagger of all of train."""
    check_folds(config)
    existing = load_tags(config, minutes)
    if existing is not None:
        note(f"jack-knifed tags reused from {existing.folder}")
        return existing
    taggers = tagger_configs(config, minutes)
    folder = tags_folder(config, taggers)
    splits = {split: tagged_sentences(tagger_split_path(taggers[-1], split)) for split in SPLITS}
    train_sentences = splits["train"].examples
    k = config.tagger.folds
    fold = fold_of(len(train_sentences), k, config.data.folds_by(), config.data.fold_seed)
    roles = [tagger_role(index, k) for index in range(len(taggers))]
    trained = train(taggers, roles)
    for what, (results, path) in zip(roles, trained):
        if results.status != COMPLETE:
            raise TaggerFailed(f"the {what} ({path}) failed: {results.error or results.status}")
    other_bounds = bounds_note(taggers[-1].train.max_minutes, [results for results, _ in trained])
    if other_bounds is not None:
        note(other_bounds)
    with torch_threads(tagger_threads(taggers[-1])):  # the taggers' own threads (more are slower on a loaded CPU)
        return _tag_with(config, taggers, trained, roles, splits, fold, folder, note, device)


def bounds_note(asked: Optional[float], trained: Sequence[RunResults]) -> Optional[str]:
    """What to say when finished tagger runs reused here trained under another time bound than ``asked`` (None: no
    bound): their tags are those of that training, which a new run under ``asked`` would not give."""
    other = [results.max_minutes for results in trained if results.max_minutes != asked]
    if not other:
        return None
    had = ", ".join(sorted({"no bound" if m is None else f"{m:g} minutes" for m in other}))
    return (f"{len(other)} tagger{'s' if len(other) > 1 else ''} of these tags {'were' if len(other) > 1 else 'was'} "
            f"trained earlier under another time bound ({had}) than this run's "
            f"({'none' if asked is None else format(asked, 'g') + ' minutes'}) and reused: the tags are theirs "
            f"(manifest.json records each tagger's max_minutes)")


@contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """torch's intra-op threads set to ``count`` inside the block, as they were after it."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _tag_with(config: RecipeConfig, taggers: Sequence[RecipeConfig], trained: Sequence[Tuple[RunResults, Path]],
              roles: Sequence[str], splits: Dict[str, Split], fold: Any, folder: Path, note: Callable[[str], None],
              device: Any) -> JackknifedTags:
    """:func:`make_tags` once its taggers are trained: every training sentence tagged by the fold tagger that held it
    out (``fold``: the fold of each), dev and test by the last; the files and the manifest written in ``folder``."""
    column = tag_column(config)
    train_sentences = splits["train"].examples
    k = config.tagger.folds
    train_tags: List[Optional[List[str]]] = [None] * len(train_sentences)
    records = []
    held_out = [0, 0]  # unknown words, words: of every fold's held-out block, against its fold tagger
    unknown: Dict[str, Optional[float]] = {}
    folder.mkdir(parents=True, exist_ok=True)
    for index, (tagger, (results, path)) in enumerate(zip(taggers, trained)):
        note(f"jack-knifing: tagging with the {roles[index]}")
        run_dir = RunDir(Path(path))
        trained_tagger = load_tagger(run_dir, device)
        record = {"run_id": run_id_for(tagger), "run_dir": str(run_dir.path), "recipe": tagger.name,
                  "dev_accuracy": results.dev.tagging_accuracy if results.dev else None,
                  "stop_reason": results.stop_reason, "training_seconds": results.training_seconds,
                  "max_minutes": results.max_minutes}  # the bound it trained under (a reused run: its own)
        if index < k:
            held = [i for i in range(len(train_sentences)) if fold[i] == index]
            held_sentences = [train_sentences[i] for i in held]
            for i, tags in zip(held, _tag(trained_tagger, held_sentences)):
                train_tags[i] = tags
            counts = unknown_words(trained_tagger.known_words, held_sentences)
            held_out[0] += counts[0]
            held_out[1] += counts[1]
            record.update(fold=index, tagged_sentences=len(held), unknown_words=unknown_rate(*counts))
        else:
            for split in ("dev", "test"):
                atomic_write_text(folder / f"{split}.tags",
                                  "".join(" ".join(t) + "\n" for t in _tag(trained_tagger, splits[split].examples)))
            for split in ("dev", "test"):
                unknown[split] = unknown_rate(*unknown_words(trained_tagger.known_words, splits[split].examples))
            record.update(fold=None, unknown_words={split: unknown[split] for split in ("dev", "test")})
        del trained_tagger  # one tagger in memory at a time: the next one is read once this one is gone
        records.append(record)
    missing = [i for i, tags in enumerate(train_tags) if tags is None]
    if missing:  # cannot happen while the folds partition the file; never train on missing tags
        raise TaggerFailed(f"{splits['train'].where(missing[0])}: no fold tagger tagged this sentence")
    atomic_write_text(folder / "train.tags", "".join(" ".join(t) + "\n" for t in train_tags))  # type: ignore[arg-type]
    tags = {split: read_tag_lines(folder / f"{split}.tags", splits[split]) for split in SPLITS}
    accuracy = {}
    for split in SPLITS:
        correct, total = tag_accuracy([s.tags(column) for s in splits[split].examples], tags[split])
        accuracy[split] = round(100.0 * correct / max(1, total), 2)
    unknown = {"train": unknown_rate(*held_out), **unknown}
    manifest = {"format": FORMAT_VERSION, "column": column, "folds": k, "fold_assignment": config.data.folds_by(),
                "fold_seed": config.data.fold_seed, "tagger_recipe": config.tagger.recipe,
                "tagger_minutes": taggers[-1].train.max_minutes,  # the bound asked for; each tagger's: its record
                "data": {split: str(splits[split].path) for split in SPLITS},
                "files": {split: f"{split}.tags" for split in SPLITS}, "accuracy": accuracy,
                "unknown_words": unknown, "taggers": records, "train_fold": [int(f) for f in fold]}
    atomic_write_json(folder / MANIFEST, manifest)  # last: a folder without it is incomplete and made again
    note(f"jack-knifed {column.upper()} tags in {folder}: accuracy train {accuracy['train']:.2f} (jack-knifed, "
         f"{k} folds, {config.data.folds_by()}), dev {accuracy['dev']:.2f}, test {accuracy['test']:.2f}; words "
         f"unknown to their tagger: train {_percent(unknown['train'])}, dev {_percent(unknown['dev'])}, test "
         f"{_percent(unknown['test'])}")
    return JackknifedTags(folder, tags, manifest)
