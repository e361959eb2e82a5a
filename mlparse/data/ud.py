"""``mlparse prepare ud``: CoNLL-U sentences that are trees are copied through, the others excluded.

Each file is read block by block with :mod:`mlparse.trees.dependency`, so that every problem
names its file and line.  A block that is not valid CoNLL-U (see
:func:`~mlparse.trees.dependency.parse_sentence`) or whose words do not form a tree a parser can
learn from (see :func:`~mlparse.trees.dependency.tree_problem`: one root, heads in range, no
cycle, HEAD and DEPREL given, at least one word) is an exclusion with file, line and reason.
Kept sentences are written as read (multiword tokens, empty nodes, comments included), with
``\\n`` line endings and one blank line after each; a UTF-8 byte-order mark is dropped.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

from mlparse.data.issues import Issue, PrepareError
from mlparse.data.manifest import SourceFile, SplitStats, sha256_bytes
from mlparse.data.output import write_prepared
from mlparse.data.prepared import LanguageResult, ProgressHook, build_manifest
from mlparse.data.specs import LanguageSpec
from mlparse.data.splits import SPLITS, plan_splits
from mlparse.trees.dependency import ConlluError, DependencySentence, iter_blocks, parse_sentence, split_lines, tree_problem
from mlparse.trees.errors import TreeEncodingError
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
        kept.append(sentence)
    return kept, exclusions


def block_text(sentence: DependencySentence) -> str:
    """The sentence's lines as read, each ended by ``\\n`` (whatever ending the source had)."""
    return "".join(line.rstrip("\r\n") + "\n" for line in sentence.lines)


def prepare_ud_language(spec: LanguageSpec, root: Path, out: Path, progress: ProgressHook) -> LanguageResult:
    plan = plan_splits(root, spec.files, spec.split.scheme, spec.split.options)
    encoding = spec.reader.options.get("encoding", "utf-8")
    outputs: Dict[str, List[str]] = {}
    stats: Dict[str, SplitStats] = {}
    exclusions: List[Issue] = []
    sources: List[SourceFile] = []
    ordered = plan.ordered_files()
    progress.start(f"{spec.family}/{spec.name}", sum(path.stat().st_size for path, _ in ordered))
    try:
        for path, split in ordered:
            display = path.relative_to(root).as_posix()
            data = path.read_bytes()
            kept, excluded = read_conllu_source(data, display, encoding)
            sources.append(SourceFile(display, sha256_bytes(data), len(data), split))
            exclusions.extend(excluded)
            outputs.setdefault(split, []).extend(block_text(sentence) for sentence in kept)
            split_stats = stats.setdefault(split, SplitStats(file=f"{split}.conllu"))
            split_stats.source_files.append(display)
            upos: Counter = Counter(split_stats.pos)
            deprels: Counter = Counter(split_stats.labels)
            for sentence in kept:
                split_stats.sentences += 1
                split_stats.tokens += len(sentence)
                split_stats.max_length = max(split_stats.max_length, len(sentence))
                upos.update(sentence.upos)
                deprels.update(sentence.deprels)
            split_stats.pos = dict(upos.most_common())
            split_stats.labels = dict(deprels.most_common())
            progress.advance(len(data))
    finally:
        progress.stop()
    present = [split for split in SPLITS if outputs.get(split)]
    if not present:
        raise PrepareError(f"ud/{spec.name}: no valid sentence in {root}")
    files = {}
    for split in present:
        # each block ends with "\n"; write_prepared adds the blank line after it
        files[f"{split}.conllu"] = outputs[split]
        stats[split].sha256 = sha256_bytes("".join(block + "\n" for block in outputs[split]).encode("utf-8"))
    manifest = build_manifest(
        spec, root, plan, {s: stats[s] for s in present}, [], exclusions, sources,
        missing=[s for s in SPLITS if s not in present],
    )
    out_dir = out / spec.family / spec.name
    write_prepared(out_dir, files, manifest.to_json(), stale=[f"{s}.conllu" for s in SPLITS])
    return LanguageResult(spec.name, out_dir, manifest)
