"""``mlparse prepare ud``: CoNLL-U sentences that are trees are copied through, the others excluded.

Each file is read block by block with :mod:`mlparse.trees.dependency`, so that every problem
names its file and line.  A block that is not valid CoNLL-U (see
:func:`~mlparse.trees.dependency.parse_sentence`) or whose words do not form a tree a parser can
learn from (see :func:`~mlparse.trees.dependency.tree_problem`: one root, heads in range, no
cycle, HEAD and DEPREL given, at least one word), or whose multiword tokens cannot stand where they are
(:func:`~mlparse.trees.token_layer.token_problem`: a range over existing words that follow it, no overlap,
the tokens spelling ``# text``), is an exclusion with file, line and reason (the range's own line for a
multiword token).
Kept sentences are written as read (multiword tokens, empty nodes, comments included), with
``\\n`` line endings and one blank line after each; a UTF-8 byte-order mark is dropped.

The manifest's ``ud`` section (:class:`~mlparse.data.manifest.UdInfo`) keeps the README metadata, the
language code, whether the treebank is test-only and the dev split carved from train, if any.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Dict, List, NamedTuple, Sequence, Tuple

from mlparse.data.issues import Issue, PrepareError
from mlparse.data.manifest import SourceFile, SplitStats, sha256_bytes
from mlparse.data.output import write_prepared
from mlparse.data.prepared import LanguageResult, ProgressHook, build_manifest
from mlparse.data.specs import LanguageSpec
from mlparse.data.splits import SPLITS, SplitPlan, plan_splits
from mlparse.data.ud_dev import carve_dev
from mlparse.data.ud_metadata import forms_are_hidden, read_metadata, readme_says_no_text
from mlparse.trees.dependency import ConlluError, DependencySentence, iter_blocks, parse_sentence, split_lines, tree_problem
from mlparse.trees.errors import TreeEncodingError
from mlparse.trees.token_layer import token_problem
from mlparse.trees.reader import ENCODING_GUESS, decode_text


def read_conllu_source(data: bytes, display: str, encoding: str = "utf-8") -> Tuple[List[DependencySentence], List[Issue]]:
    """The sentences of one file's bytes that are trees, and an exclusion for each block that is not."""
    try:
        text = decode_text(data, encoding, display)
    except TreeEncodingError as error:
        detail = error.detail.replace(ENCODING_GUESS, "")
        raise PrepareError(f"{display}:{error.line}:{error.column}: {detail} (CoNLL-U is UTF-8; the catalog entry, "
                           "treebanks/ud.yaml, sets the reader encoding)") from None
    kept: List[DependencySentence] = []
    exclusions: List[Issue] = []
    for line, _, block in iter_blocks(split_lines(text)):
        try:
            sentence = parse_sentence(block, display, line)
        except ConlluError as error:
            exclusions.append(Issue(display, error.line, error.detail))  # says what is malformed
            continue
        reason = tree_problem(sentence)
        if reason:
            exclusions.append(Issue(display, line, f"not a usable dependency tree: {reason}"))
            continue
        misplaced = token_problem(sentence)
        if misplaced:
            exclusions.append(Issue(display, misplaced[0], f"impossible token layer: {misplaced[1]}"))
            continue
        kept.append(sentence)
    return kept, exclusions


def block_text(sentence: DependencySentence) -> str:
    """The sentence's lines as read, each ended by ``\\n`` (whatever ending the source had)."""
    return "".join(line.rstrip("\r\n") + "\n" for line in sentence.lines)


class NoTextError(PrepareError):
    """The treebank was released without its text (word forms replaced by underscores): it is skipped."""


class KeptSentence(NamedTuple):
    """What is kept of a sentence until its split is written: its block and what the statistics count
    (lighter than the :class:`DependencySentence`, for treebanks of a million words)."""

    text: str  # the block as written, each line ended by "\n"
    words: int
    upos: Tuple[str, ...]
    deprels: Tuple[str, ...]

    @classmethod
    def of(cls, sentence: DependencySentence) -> "KeptSentence":
        return cls(block_text(sentence), len(sentence), sentence.upos, sentence.deprels)


def split_stats(file: str, sentences: Sequence[KeptSentence], source_files: List[str]) -> SplitStats:
    """Counts of one written split (relations as labels, UPOS as POS)."""
    stats = SplitStats(file=file, source_files=list(source_files))
    upos: Counter = Counter()
    deprels: Counter = Counter()
    for sentence in sentences:
        stats.sentences += 1
        stats.tokens += sentence.words
        stats.max_length = max(stats.max_length, sentence.words)
        upos.update(sentence.upos)
        deprels.update(sentence.deprels)
    stats.pos = dict(upos.most_common())
    stats.labels = dict(deprels.most_common())
    return stats


def prepare_ud_language(spec: LanguageSpec, root: Path, out: Path, progress: ProgressHook) -> LanguageResult:
    """Read, check and write one treebank folder (see the module doc).

    The manifest's ``ud`` section holds the README metadata and the language code; a treebank whose README
    says ``Includes text: no``, or whose word forms are all underscores, raises :class:`NoTextError` before
    anything is written.  Without a dev split, one is carved from train (:mod:`mlparse.data.ud_dev`);
    without a train split the treebank is marked test-only.
    """
    plan = plan_splits(root, spec.files, spec.split.scheme, spec.split.options)
    encoding = spec.reader.options.get("encoding", "utf-8")
    ordered = plan.ordered_files()
    info = read_metadata(root, spec.name, [path.name for path, _ in ordered])
    reason = readme_says_no_text(info)
    if reason:
        raise NoTextError(f"ud/{spec.name}: {reason}")
    kept: Dict[str, List[KeptSentence]] = {}
    files_of: Dict[str, List[str]] = {}
    exclusions: List[Issue] = []
    sources: List[SourceFile] = []
    progress.start(f"{spec.family}/{spec.name}", sum(path.stat().st_size for path, _ in ordered))
    try:
        for path, split in ordered:
            display = path.relative_to(root).as_posix()
            data = path.read_bytes()
            sentences, excluded = read_conllu_source(data, display, encoding)
            if forms_are_hidden(form for sentence in sentences for form in sentence.words):
                raise NoTextError(f"ud/{spec.name}: {display}: released without its text (every word form of "
                                  "its first sentences is '_')")
            sources.append(SourceFile(display, sha256_bytes(data), len(data), split))
            exclusions.extend(excluded)
            kept.setdefault(split, []).extend(KeptSentence.of(sentence) for sentence in sentences)
            files_of.setdefault(split, []).append(display)
            progress.advance(len(data))
    finally:
        progress.stop()
    definition = dict(plan.definition)
    if kept.get("train") and not kept.get("dev"):
        kept["train"], dev, info.dev_carved = carve_dev(kept["train"])
        if dev:
            kept["dev"], files_of["dev"] = dev, list(files_of["train"])
            definition["dev"] = {"carved_from": "train", **info.dev_carved}
    info.test_only = not kept.get("train")
    present = [split for split in SPLITS if kept.get(split)]
    if not present:
        raise PrepareError(f"ud/{spec.name}: no valid sentence in {root}")
    files = {}
    stats: Dict[str, SplitStats] = {}
    for split in present:
        blocks = [sentence.text for sentence in kept[split]]
        # each block ends with "\n"; write_prepared adds the blank line after it
        files[f"{split}.conllu"] = blocks
        stats[split] = split_stats(f"{split}.conllu", kept[split], files_of[split])
        stats[split].sha256 = sha256_bytes("".join(block + "\n" for block in blocks).encode("utf-8"))
    plan = SplitPlan(plan.files, definition, plan.tree_split, plan.missing, plan.unused)
    manifest = build_manifest(
        spec, root, plan, stats, [], exclusions, sources,
        missing=[s for s in SPLITS if s not in present], ud=info,
    )
    out_dir = out / spec.family / spec.name
    write_prepared(out_dir, files, manifest.to_json(), stale=[f"{s}.conllu" for s in SPLITS])
    return LanguageResult(spec.name, out_dir, manifest)
