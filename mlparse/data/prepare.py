"""``mlparse prepare``: catalog entry → located files → read → pipeline → split files + manifest.

:func:`prepare_family` is the library entry point; the CLI only renders its result.
Output: ``<out>/<family>/<language>/{train,dev,test}.trees`` (one normalized tree per
line, root ``TOP``) or ``.conllu`` for the ``ud`` family, and ``manifest.json``.  A language
whose catalog entry names ``heads`` also gets the dependency version of its trees,
``{train,dev,test}.conllu`` beside the ``.trees`` (:mod:`mlparse.data.dependencies`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from mlparse.data.catalog import FamilySpec, LanguageSpec, load_family
from mlparse.data.dependencies import HeadSource, conllu_block, head_source, sentence_dependencies
from mlparse.data.formats import FORMATS
from mlparse.data.issues import Issue, PrepareError
from mlparse.data.manifest import (
    MANIFEST_NAME,
    HeadsInfo,
    Manifest,
    SourceFile,
    SplitStats,
    TreeStatsAccumulator,
    sha256_bytes,
)
from mlparse.data.output import write_prepared
from mlparse.data.prepared import LanguageResult, PrepareReport, ProgressHook, build_manifest
from mlparse.data.sources import (
    Candidate,
    SourceNotFoundError,
    candidate_bases,
    describe_candidates,
    find_files,
    find_language_root,
    matches,
)
from mlparse.data.splits import SPLITS, SplitPlan, plan_splits
from mlparse.data.steps import build_pipeline, run_fused
from mlparse.data.ud import prepare_ud_language
from mlparse.data.ud_release import prepare_release
from mlparse.trees.reader import paused_gc


@dataclass
class Located:
    spec: LanguageSpec
    root: Path
    candidate: Candidate


def select_languages(family: FamilySpec, requested: Optional[Sequence[str]]) -> List[str]:
    """Catalog language names for ``--language`` values (case-insensitive; commas allowed)."""
    if not requested:
        return list(family.languages)
    wanted = [part.strip() for item in requested for part in item.split(",") if part.strip()]
    by_lower = {name.lower(): name for name in family.languages}
    unknown = [name for name in wanted if name.lower() not in by_lower]
    if unknown:
        raise PrepareError(
            f"unknown language(s) for {family.name}: {', '.join(unknown)}; "
            f"the catalog ({family.path.name}) has: {', '.join(family.languages)}"
        )
    return list(dict.fromkeys(by_lower[name.lower()] for name in wanted))


def probe_patterns(spec: LanguageSpec) -> List[str]:
    """Globs whose presence shows that a folder holds this treebank."""
    if spec.files:
        return [spec.files]
    patterns = []
    for split in SPLITS:
        value = spec.split.options.get(split)
        patterns.extend(value if isinstance(value, list) else [value] if value else [])
    return patterns


def _language_root(base: Path, spec: LanguageSpec, family: FamilySpec) -> Optional[Path]:
    root = find_language_root(base, spec.folder)
    if root is not None or not spec.folder or not base.is_dir():
        return root
    # base is none of the family's folders and holds none: it may be the treebank folder itself
    folders = [s.folder for s in family.languages.values() if s.folder]
    if any(matches(folder, base.name) for folder in folders):
        return None
    if any(find_language_root(base, folder) is not None for folder in folders):
        return None
    return base


def locate_languages(
    family: FamilySpec, languages: Sequence[str], source: Optional[Path]
) -> Tuple[List[Located], Dict[str, str]]:
    candidates = candidate_bases(source, family.source.search_shared)
    if source is not None and not Path(source).expanduser().is_dir():
        raise SourceNotFoundError(f"--source {source} is not a folder")
    found: List[Located] = []
    not_found: Dict[str, str] = {}
    for name in languages:
        spec = family.languages[name]
        patterns = probe_patterns(spec)
        hit = None
        for candidate in candidates:
            root = _language_root(candidate.path, spec, family)
            if root is not None and any(find_files(root, pattern) for pattern in patterns):
                hit = Located(spec, root, candidate)
                break
        if hit:
            found.append(hit)
        else:
            folder = f"a folder {spec.folder!r} holding " if spec.folder else ""
            not_found[name] = f"looked for {folder}{' or '.join(patterns)} in {describe_candidates(candidates)}"
    return found, not_found


def prepare_family(
    family_name: str,
    *,
    source: Optional[Path] = None,
    languages: Optional[Sequence[str]] = None,
    out: Path = Path("data"),
    progress: Optional[ProgressHook] = None,
    jobs: int = 1,
) -> PrepareReport:
    """Prepare every requested (default: every found) language of a family; see the module doc.

    A family whose catalog says ``discover`` (UD) prepares every treebank folder found, catalog entry or not
    (:mod:`mlparse.data.ud_release`), ``jobs`` at a time."""
    family = load_family(family_name)
    if family.source.discover:
        return prepare_release(family, source=source, languages=languages, out=out,
                               progress=progress or ProgressHook(), jobs=jobs)
    names = select_languages(family, languages)
    found, not_found = locate_languages(family, names, source)
    if not found or (languages and not_found):
        missing = not_found if languages else {name: not_found[name] for name in names}
        lines = [f"{family.name}/{name}: {where}" for name, where in missing.items()]
        hint = f"\n{family.source.required_hint}" if family.source.required_hint else ""
        raise SourceNotFoundError("treebank not found:\n  " + "\n  ".join(lines) + hint)
    report = PrepareReport(family.name, [item.spec.name for item in found], not_found)
    for item in found:
        if item.spec.output == "conllu":
            result = prepare_ud_language(item.spec, item.root, out, progress or ProgressHook())
        else:
            result = prepare_tree_language(item.spec, item.root, out, progress or ProgressHook())
        report.results.append(result)
    return report


@dataclass
class Normalized:
    """What :func:`read_and_normalize` gives: each split's tree lines (and, with heads, its
    CoNLL-U blocks, one per tree line), statistics, and the issues and source files."""

    lines: Dict[str, List[str]]
    stats: Dict[str, TreeStatsAccumulator]
    repairs: List[Issue]
    exclusions: List[Issue]
    sources: List[SourceFile]
    conllu: Dict[str, List[str]] = field(default_factory=dict)
    without_head: int = 0  # phrases of the kept trees marking no head (treebank heads)
    several_heads: int = 0  # ... marking several


def read_and_normalize(
    spec: LanguageSpec, root: Path, plan: SplitPlan, progress: ProgressHook, heads: Optional[HeadSource] = None
) -> Normalized:
    """Read every planned file, run the pipeline, route trees to splits.

    With ``heads`` (:func:`~mlparse.data.dependencies.head_source` of the spec) every kept
    tree also gets its CoNLL-U block; a tree whose dependency version cannot be made is left
    out of both, as an exclusion.
    """
    steps = build_pipeline(spec.pipeline)
    reader = FORMATS[spec.reader.format]
    out = Normalized({split: [] for split in SPLITS}, {split: TreeStatsAccumulator(f"{split}.trees") for split in SPLITS},
                     [], [], [], {split: [] for split in SPLITS} if heads is not None else {})
    lines, stats, exclusions = out.lines, out.stats, out.exclusions
    ordered = plan.ordered_files()
    progress.start(f"{spec.family}/{spec.name}", sum(path.stat().st_size for path, _ in ordered))
    tree_index = 0
    try:
        with paused_gc():  # trees hold no cycles: the collector would only walk them
            for path, split in ordered:
                display = path.relative_to(root).as_posix()
                data = path.read_bytes()
                out.sources.append(SourceFile(display, sha256_bytes(data), len(data), split))
                reading = reader(path, display, spec.reader.options)
                out.repairs.extend(reading.repairs)
                exclusions.extend(reading.exclusions)
                for k, (tree, line) in enumerate(zip(reading.trees, reading.lines)):
                    target = plan.tree_split(tree_index) if plan.tree_split else split
                    tree_index += 1
                    result, reason = run_fused(steps, tree)  # the tree is fresh from the reader
                    if result is None:
                        exclusions.append(Issue(display, line, reason))
                        continue
                    block = None
                    if heads is not None:
                        marked = reading.heads[k] if reading.heads else None
                        try:
                            block = conllu_block(result, sentence_dependencies(result, heads, marked), display)
                        except ValueError as error:
                            exclusions.append(Issue(display, line, f"no dependency version: {error}"))
                            continue
                    try:
                        stats[target].add(result)
                    except ValueError as error:  # e.g. a label that already holds the unary joiner
                        exclusions.append(Issue(display, line, f"unusable tree: {error}"))
                        continue
                    lines[target].append(result.to_bracketed())
                    if block is not None:
                        out.conllu[target].append(block)
                        if marked is not None:
                            out.without_head += marked.without_head
                            out.several_heads += marked.several_heads
                progress.advance(len(data))
    finally:
        progress.stop()
    return out


def _heads_info(heads: HeadSource, normalized: Normalized) -> HeadsInfo:
    if heads.table is not None:
        return HeadsInfo(heads.name, heads.relations)
    return HeadsInfo(heads.name, heads.relations, normalized.without_head, normalized.several_heads)


def prepare_tree_language(spec: LanguageSpec, root: Path, out: Path, progress: ProgressHook) -> LanguageResult:
    plan = plan_splits(root, spec.files, spec.split.scheme, spec.split.options)
    heads = head_source(spec)
    normalized = read_and_normalize(spec, root, plan, progress, heads)
    lines, stats, sources = normalized.lines, normalized.stats, normalized.sources
    present = [split for split in SPLITS if lines[split]]
    if not present:
        raise PrepareError(f"{spec.family}/{spec.name}: no tree survived preparation in {root}")
    split_stats: Dict[str, SplitStats] = {}
    files: Dict[str, List[str]] = {f"{split}.trees": lines[split] for split in present}
    for split in present:
        split_stats[split] = stats[split].finish()
        payload = "".join(line + "\n" for line in lines[split]).encode("utf-8")
        split_stats[split].sha256 = sha256_bytes(payload)
        split_stats[split].source_files = [s.path for s in sources if s.split in (split, "*")]
        if heads is not None:
            # each block ends with its last word line's newline; the writer's newline is the blank line
            files[f"{split}.conllu"] = normalized.conllu[split]
            split_stats[split].dependencies = f"{split}.conllu"
    manifest = build_manifest(spec, root, plan, split_stats, normalized.repairs, normalized.exclusions, sources,
                              missing=[s for s in SPLITS if s not in present],
                              heads=_heads_info(heads, normalized) if heads is not None else None)
    out_dir = out / spec.family / spec.name
    write_prepared(
        out_dir,
        files,
        manifest.to_json(),
        stale=[f"{split}.{suffix}" for split in SPLITS for suffix in ("trees", "conllu")],
    )
    return LanguageResult(spec.name, out_dir, manifest)


def load_manifest(prepared_dir: Path) -> Manifest:
    path = prepared_dir / MANIFEST_NAME
    if not path.is_file():
        raise PrepareError(f"{prepared_dir} is not a prepared treebank (no {MANIFEST_NAME}); run `mlparse prepare` first")
    return Manifest.load(path)
