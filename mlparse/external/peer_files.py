"""The files an external parser reads: train, dev and test under the run's tag protocol, in the peer's folder.

Every file the peer sees is written here, also under gold tags, so that the peer never writes beside the
prepared data and the inputs are what the run records.  Dependency data stays CoNLL-U, every line where it
was (comments, multiword-token ranges, empty nodes); on word lines:

- the tag protocol's UPOS: the data's (``gold``), mlparse's jack-knifed tags (``jackknife``), or ``_`` with
  XPOS ``_`` too (``none``: the peer gets no tags);
- the columns the recipe does not give the peer (``external.columns``; LEMMA, UPOS, XPOS, FEATS) become ``_``,
  so that every system of a comparison reads the same information;
- the prediction inputs of dev and test (``{input}``) have HEAD, DEPREL and DEPS blanked
  (``external.predict_targets: blank``), so that the peer cannot read the answers.

Constituency data stays one bracketed tree per line; the preterminals carry the protocol's tags (``none``:
:data:`NO_TAG`); what the peer predicts are flat trees ``(TOP (tag word) ...)`` (``predict_targets: blank``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from mlparse.io_utils import atomic_write_text

#: CoNLL-U's columns, by the names ``external.columns`` uses.
COLUMN_INDEX = {"id": 0, "form": 1, "lemma": 2, "upos": 3, "xpos": 4, "feats": 5, "head": 6, "deprel": 7, "deps": 8,
                "misc": 9}
#: The columns ``external.columns`` chooses among (the others are always kept: the words and the trees).
CHOSEN = ("lemma", "upos", "xpos", "feats")
#: The preterminal label of a tree given to a peer without tags (``data.tags: none``).
NO_TAG = "XX"


class PeerDataError(ValueError):
    """The data cannot be written for the peer (tags that do not fit its sentences): names the file and line."""


@dataclass(frozen=True)
class PeerFiles:
    """The peer's files in ``folder``: what it trains on and checks while training, and what it predicts."""

    train: Path
    dev: Path  # with trees: the peer's own dev checks while it trains
    predict_inputs: Dict[str, Path]  # dev, test -> the prediction input ({input})
    probe: Path  # {probe}: the training file's first sentence alone (a test file a trainer insists on)
    repo: Optional[str] = None  # {repo}: the peer's source checkout (absolute), when its commands use it

    def values(self) -> Dict[str, str]:
        found = {"train": str(self.train), "dev": str(self.dev), "probe": str(self.probe)}
        return dict(found, repo=self.repo) if self.repo is not None else found


def conllu_for_peer(text: str, where: str, keep: Sequence[str], tags: Optional[List[List[str]]] = None,
                    no_tags: bool = False, blank_targets: bool = False) -> str:
    """CoNLL-U ``text`` as the peer reads it (see the module text); ``where`` names the file in errors.  ``tags``:
    one list of UPOS per sentence (its words with whole-number ids), put into the UPOS column."""
    blank = [COLUMN_INDEX[c] for c in CHOSEN if c not in keep or (no_tags and c in ("upos", "xpos"))]
    targets = (COLUMN_INDEX["head"], COLUMN_INDEX["deprel"], COLUMN_INDEX["deps"]) if blank_targets else ()
    out: List[str] = []
    sentence, word = 0, 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            if word:
                if tags is not None and word != len(tags[sentence]):
                    raise PeerDataError(f"{where}:{number}: sentence {sentence + 1} has {word} words but "
                                        f"{len(tags[sentence])} tags")
                sentence, word = sentence + 1, 0
            out.append(line)
            continue
        if line.startswith("#"):
            out.append(line)
            continue
        cells = line.split("\t")
        if len(cells) != 10:
            raise PeerDataError(f"{where}:{number}: a CoNLL-U word line has 10 tab-separated columns, this one "
                                f"{len(cells)}")
        if "-" in cells[0]:  # a multiword token's range: its form only
            out.append(line)
            continue
        whole = cells[0].isdigit()
        if whole and tags is not None:
            if sentence >= len(tags) or word >= len(tags[sentence]):
                raise PeerDataError(f"{where}:{number}: more words than tags (sentence {sentence + 1})")
            cells[COLUMN_INDEX["upos"]] = tags[sentence][word]
        elif tags is not None:  # an empty node has no predicted tag: its gold one is not given either
            cells[COLUMN_INDEX["upos"]] = "_"
        for index in blank:
            cells[index] = "_"
        for index in targets:
            cells[index] = "_"
        word += 1 if whole else 0
        out.append("\t".join(cells))
    if word:
        if tags is not None and word != len(tags[sentence]):
            raise PeerDataError(f"{where}: the last sentence has {word} words but {len(tags[sentence])} tags")
        sentence += 1
    if tags is not None and sentence != len(tags):
        raise PeerDataError(f"{where}: {sentence} sentences but tags for {len(tags)}")
    return "\n".join(out)


def relabelled(trees: Sequence[object], tags: Optional[List[List[str]]], no_tags: bool) -> List[object]:
    """Copies of ``trees`` (mlparse :class:`~mlparse.trees.tree.Tree` objects, not changed) whose preterminals
    carry ``tags`` (one list per tree), or :data:`NO_TAG`, or their own tags when neither is asked for."""
    if tags is not None and len(tags) != len(trees):
        raise PeerDataError(f"{len(trees)} trees but tags for {len(tags)}")
    copies = []
    for index, tree in enumerate(trees):
        copy = tree.copy()  # type: ignore[attr-defined]
        leaves = copy.leaves()
        if tags is not None and len(tags[index]) != len(leaves):
            raise PeerDataError(f"tree {index + 1}: {len(leaves)} words but {len(tags[index])} tags")
        for position, leaf in enumerate(leaves):
            if no_tags:
                leaf.tag = NO_TAG
            elif tags is not None:
                leaf.tag = tags[index][position]
        copies.append(copy)
    return copies


def trees_text(trees: Sequence[object], flat: bool = False) -> str:
    """Trees, one per line; ``flat``: as ``(TOP (tag word) ...)``, their words and tags without their brackets."""
    import io

    from mlparse.trees.tree import Tree
    from mlparse.trees.writer import write_trees_to

    if flat:
        trees = [Tree("TOP", [leaf.copy() for leaf in tree.leaves()]) for tree in trees]  # type: ignore[attr-defined]
    buffer = io.StringIO()
    write_trees_to(buffer, trees)  # type: ignore[arg-type]
    return buffer.getvalue()


def write_peer_files(config: object, task: object, folder: Path,
                     tags: Optional[Dict[str, List[List[str]]]] = None) -> PeerFiles:
    """Write the peer's train, dev and prediction inputs of ``config`` (a recipe of kind external) into ``folder``
    (``tags``: the jack-knifed tags of each split, when the run has them); returns where they are."""
    e, d = config.external, config.data  # type: ignore[attr-defined]
    repo = _checkout(e)
    folder.mkdir(parents=True, exist_ok=True)
    no_tags = d.tags == "none"
    dependency = not task.writes_trees  # type: ignore[attr-defined]  # CoNLL-U in and out; else bracketed trees
    suffix = str(task.suffix)  # type: ignore[attr-defined]
    paths: Dict[str, Path] = {}
    for split in ("train", "dev", "test"):
        source = Path(config.split_path(split))  # type: ignore[attr-defined]
        split_tags = tags.get(split) if tags is not None else None
        full = split != "test"  # the test file with its trees never sits in the peer's folder: only its input
        if dependency:
            text = source.read_text(encoding="utf-8")
            if full:
                atomic_write_text(folder / f"{split}{suffix}", conllu_for_peer(text, str(source), e.columns,
                                                                              split_tags, no_tags))
            if split != "train":
                atomic_write_text(folder / f"{split}.input{suffix}", conllu_for_peer(
                    text, str(source), e.columns, split_tags, no_tags, blank_targets=e.predict_targets == "blank"))
        else:
            try:
                copies = relabelled(task.read_split(source).trees, split_tags, no_tags)  # type: ignore[attr-defined]
            except PeerDataError as error:
                raise PeerDataError(f"{source}: {error}") from None
            if full:
                atomic_write_text(folder / f"{split}{suffix}", trees_text(copies))
            if split != "train":  # what the peer predicts: flat trees (TOP (tag word) ...), unless it needs the trees
                atomic_write_text(folder / f"{split}.input{suffix}", trees_text(copies, e.predict_targets == "blank"))
        paths[split] = folder / f"{split}{suffix}"
    stale = folder / f"test{suffix}"  # written there by versions before this one
    if stale.exists():
        stale.unlink()
    probe = folder / f"probe{suffix}"
    atomic_write_text(probe, first_sentence(paths["train"].read_text(encoding="utf-8"), dependency))
    return PeerFiles(train=paths["train"], dev=paths["dev"],
                     predict_inputs={s: folder / f"{s}.input{suffix}" for s in ("dev", "test")}, probe=probe,
                     repo=repo)


def _checkout(external: object) -> Optional[str]:
    """``{repo}`` of a recipe whose commands use it (:func:`mlparse.external.commands.peer_repo`), None otherwise.
    ``mlparse run`` checks it before anything is prepared (:func:`~mlparse.external.commands.check_setup`); a run
    started from Python, or a checkout removed since, fails here, before the peer's files are written."""
    import os

    from mlparse.external.commands import PeerMissing, peer_repo, used_placeholders

    if "repo" not in used_placeholders(external):
        return None
    e = external
    environ = dict(os.environ, **{k: str(v) for k, v in e.environment.items()})  # type: ignore[attr-defined]
    try:
        return peer_repo(e.system, e.repo, e.install, environ)  # type: ignore[attr-defined]
    except PeerMissing as error:
        raise PeerDataError(str(error)) from None


def first_sentence(text: str, conllu: bool) -> str:
    """The first sentence of a peer's training file (CoNLL-U: its first block; trees: its first line), as a file of
    its own: ``{probe}``, for a peer whose training evaluates a test file every epoch (SuPar's ``--test``), so that
    neither the test trees nor a second pass over dev enter its budget."""
    if conllu:
        return text.lstrip("\n").split("\n\n", 1)[0].rstrip("\n") + "\n\n"
    lines = [line for line in text.splitlines() if line.strip()]
    return (lines[0] + "\n") if lines else ""
