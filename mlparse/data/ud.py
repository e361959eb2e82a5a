"""CoNLL-U (Universal Dependencies): validate each sentence, copy valid ones through unchanged.

Sentences are read with the ``conllu`` package, one blank-line-separated block at a time
so that every problem can name its file and line.  A sentence is kept when its syntactic
words (integer IDs; multiword ranges ``4-5`` and empty nodes ``8.1`` are skipped) are
numbered 1..n, every HEAD is an integer in 0..n, exactly one word has HEAD 0, and the
heads form no cycle.  Kept sentences are written back byte for byte (ranges, empty nodes,
comments included); the others are exclusions with file, line and reason.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import conllu

from mlparse.data.catalog import LanguageSpec
from mlparse.data.issues import Issue, PrepareError
from mlparse.data.manifest import SourceFile, SplitStats, sha256_bytes
from mlparse.data.output import write_prepared
from mlparse.data.splits import SPLITS, plan_splits


def iter_blocks(text: str) -> Iterator[Tuple[int, str]]:
    """``(first line, block text)`` for each blank-line-separated sentence."""
    current: List[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            yield start, "\n".join(current)
            current = []
    if current:
        yield start, "\n".join(current)


def check_sentence(tokens: "conllu.TokenList") -> Optional[str]:
    """``None`` if the basic dependency tree is well formed, else the reason."""
    words = [token for token in tokens if isinstance(token.get("id"), int)]
    if not words:
        return "no syntactic words"
    n = len(words)
    ids = [token["id"] for token in words]
    if ids != list(range(1, n + 1)):
        return f"word IDs are not 1..{n} in order"
    heads = []
    for token in words:
        head = token.get("head")
        if not isinstance(head, int):
            return f"word {token['id']} has no integer HEAD ({head!r})"
        if not 0 <= head <= n:
            return f"word {token['id']} has HEAD {head} outside 0..{n}"
        heads.append(head)
    roots = [i + 1 for i, head in enumerate(heads) if head == 0]
    if len(roots) != 1:
        return f"{len(roots)} words have HEAD 0 (expected exactly one)"
    state = [0] * (n + 1)  # 0 unvisited, 1 on the current path, 2 known to reach the root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        node = start
        while state[node] == 0:
            state[node] = 1
            path.append(node)
            node = heads[node - 1]
        if state[node] == 1:
            return f"the heads form a cycle through word {node}"
        for visited in path:
            state[visited] = 2
    return None


#: Columns of a CoNLL-U word line: ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC.
CONLLU_COLUMNS = 10


def _bad_columns(block: str, first_line: int) -> Optional[Tuple[int, str]]:
    """``(line, reason)`` of the first word line of a block without exactly ten tab-separated columns."""
    for offset, text in enumerate(block.split("\n")):
        if text.startswith("#") or "\t" not in text:
            continue
        count = len(text.split("\t"))
        if count != CONLLU_COLUMNS:
            return first_line + offset, f"a word line has {count} tab-separated columns, CoNLL-U has {CONLLU_COLUMNS}"
    return None


def read_conllu_file(path: Path, display: str, encoding: str = "utf-8"):
    """Valid blocks, their stats inputs, and exclusions for one file."""
    data = path.read_bytes()
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        raise PrepareError(f"{display}:{line}:{column}: byte 0x{data[error.start]:02x} is not valid {encoding}") from None
    kept: List[str] = []
    exclusions: List[Issue] = []
    words_per_sentence: List[List[Tuple[str, str]]] = []
    for line, block in iter_blocks(text):
        bad_line = _bad_columns(block, line)
        if bad_line is not None:
            exclusions.append(Issue(display, bad_line[0], bad_line[1]))
            continue
        try:
            sentences = conllu.parse(block + "\n\n")
        except Exception as error:  # conllu raises its own ParseException and ValueError
            exclusions.append(Issue(display, line, f"unreadable CoNLL-U: {error}"))
            continue
        if len(sentences) != 1:
            exclusions.append(Issue(display, line, "block does not hold exactly one sentence"))
            continue
        reason = check_sentence(sentences[0])
        if reason:
            exclusions.append(Issue(display, line, f"not a tree: {reason}"))
            continue
        kept.append(block)
        words_per_sentence.append(
            [(str(t.get("upos")), str(t.get("deprel"))) for t in sentences[0] if isinstance(t.get("id"), int)]
        )
    return kept, words_per_sentence, exclusions, sha256_bytes(text.encode(encoding)), len(text.encode(encoding))


def prepare_ud_language(spec: LanguageSpec, root: Path, out: Path, progress) -> "LanguageResult":
    from mlparse.data.prepare import LanguageResult, build_manifest

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
            kept, words, excluded, digest, size = read_conllu_file(path, display, encoding)
            sources.append(SourceFile(display, digest, size, split))
            exclusions.extend(excluded)
            outputs.setdefault(split, []).extend(kept)
            split_stats = stats.setdefault(split, SplitStats(file=f"{split}.conllu"))
            split_stats.source_files.append(display)
            upos: Counter = Counter(split_stats.pos)
            deprels: Counter = Counter(split_stats.labels)
            for sentence in words:
                split_stats.sentences += 1
                split_stats.tokens += len(sentence)
                split_stats.max_length = max(split_stats.max_length, len(sentence))
                upos.update(tag for tag, _ in sentence)
                deprels.update(rel for _, rel in sentence)
            split_stats.pos = dict(upos.most_common())
            split_stats.labels = dict(deprels.most_common())
            progress.advance(size)
    finally:
        progress.stop()
    present = [split for split in SPLITS if outputs.get(split)]
    if not present:
        raise PrepareError(f"ud/{spec.name}: no valid sentence in {root}")
    files = {}
    for split in present:
        # blocks are joined by a blank line; write_prepared adds the final newline of each item
        files[f"{split}.conllu"] = [block + "\n" for block in outputs[split]]
        stats[split].sha256 = sha256_bytes("".join(b + "\n\n" for b in outputs[split]).encode("utf-8"))
    manifest = build_manifest(
        spec, root, plan, {s: stats[s] for s in present}, [], exclusions, sources,
        missing=[s for s in SPLITS if s not in present],
    )
    out_dir = out / spec.family / spec.name
    write_prepared(out_dir, files, manifest.to_json(), stale=[f"{s}.conllu" for s in SPLITS])
    return LanguageResult(spec.name, out_dir, manifest)
