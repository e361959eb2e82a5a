"""Every Universal Dependencies treebank under a folder: found, selected by ``--language``, prepared (in parallel).

A treebank folder is any folder holding ``*-ud-{train,dev,test}.conllu`` (its name, ``UD_English-EWT``, is the
treebank's name).  The source may be one such folder, a release root holding many (``ud-treebanks-v2.N/``) or a
folder above those: folders are searched :data:`MAX_DEPTH` levels down, and a treebank folder is not searched
inside.  The catalog's entries (``treebanks/ud.yaml``) are overrides: a folder whose name matches an entry's
``folder`` glob gets that entry; every other folder gets the family's defaults.

``--language`` values (:func:`select`): a treebank name (any case), a glob over names (``UD_English-*``), a
language code (``en``, the file prefix before ``_``) or a language name (``english``: ``UD_English-*``).  A value that matches nothing is an error naming what was
found.  Each treebank is prepared by :func:`mlparse.data.ud.prepare_ud_language`; with ``jobs > 1`` in that many
processes.  A treebank released without its text is skipped with the reason, one whose preparation fails (when
several are prepared) is listed with its error, and the others are prepared all the same.

A name is one treebank: two folders of one source that have the same name (``a/UD_X`` and ``b/UD_X``, or two
folders that one catalog entry's glob matches) are refused, both named, rather than one of them left out
unseen (an error when that treebank alone is prepared, else a failure listed beside the others).  Without
``--source``, a name found both in ``$MLPARSE_DATA`` and in ``../shared/treebanks`` is taken from the first.
"""

from __future__ import annotations

import fnmatch
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from mlparse.data.catalog import FamilySpec, LanguageSpec, generic_language
from mlparse.data.issues import PrepareError
from mlparse.data.prepared import LanguageResult, PrepareReport, ProgressHook
from mlparse.data.sources import SourceNotFoundError, candidate_bases, describe_candidates, matches
from mlparse.data.splits import SplitError
from mlparse.data.ud import NoTextError, prepare_ud_language
from mlparse.data.ud_metadata import FILE_NAME, file_prefix, language_code, language_name

#: How many folder levels below a source are searched for treebank folders.
MAX_DEPTH = 3


@dataclass(frozen=True)
class FoundTreebank:
    """A treebank folder: its spec (catalog entry or defaults), where it is, and its language code."""

    spec: LanguageSpec
    root: Path
    code: Optional[str]
    origin: str  # which source it came from (--source, $MLPARSE_DATA, ../shared/treebanks)
    others: Tuple[Path, ...] = ()  # other folders of the same source with the same name: refused, not prepared

    def duplicate_error(self) -> Optional[str]:
        """Why the treebank is not prepared when another folder of its source has its name, else None."""
        if not self.others:
            return None
        folders = " and ".join(str(path) for path in (self.root, *self.others))
        return (f"ud/{self.name}: {len(self.others) + 1} folders have this name ({self.origin}): {folders}; a name "
                "is one prepared treebank, so neither is prepared: give --source the one you mean, or rename the other")

    @property
    def name(self) -> str:
        return self.spec.name


def _conllu_names(folder: Path) -> List[str]:
    try:
        return [entry.name for entry in os.scandir(folder) if entry.is_file() and FILE_NAME.match(entry.name)]
    except OSError:
        return []


def treebank_folders(base: Path, depth: int = MAX_DEPTH) -> List[Path]:
    """Folders at or below ``base`` (``depth`` levels) holding ``*-ud-<split>.conllu``, sorted by path."""
    if _conllu_names(base):
        return [base]
    if depth == 0:
        return []
    try:
        children = sorted(Path(entry.path) for entry in os.scandir(base) if entry.is_dir() and not entry.name.startswith("."))
    except OSError:
        return []
    found: List[Path] = []
    for child in children:
        found.extend(treebank_folders(child, depth - 1))
    return found


def spec_for(family: FamilySpec, folder: Path) -> LanguageSpec:
    """The catalog entry whose folder glob (or name) matches the folder's name, else the family's defaults."""
    for name, spec in family.languages.items():
        if name.lower() == folder.name.lower() or (spec.folder and matches(spec.folder, folder.name)):
            return spec
    return generic_language(family, folder.name)


def discover(family: FamilySpec, source: Optional[Path]) -> Tuple[Dict[str, FoundTreebank], str]:
    """Every treebank folder of the sources, by name (the first source holding a name wins), and where
    was looked (for messages)."""
    candidates = candidate_bases(source, family.source.search_shared)
    if source is not None and not Path(source).expanduser().is_dir():
        raise SourceNotFoundError(f"--source {source} is not a folder")
    found: Dict[str, FoundTreebank] = {}
    for candidate in candidates:
        if not candidate.path.is_dir():
            continue
        here: Dict[str, FoundTreebank] = {}
        for folder in treebank_folders(candidate.path):
            spec = spec_for(family, folder)
            if spec.name in found:  # an earlier source has it
                continue
            if spec.name in here:  # two folders of this source: both named, neither prepared
                here[spec.name] = replace(here[spec.name], others=here[spec.name].others + (folder,))
                continue
            here[spec.name] = FoundTreebank(spec, folder, language_code(file_prefix(_conllu_names(folder))),
                                            candidate.origin)
        found.update(here)
    return dict(sorted(found.items())), describe_candidates(candidates)


def select(found: Dict[str, FoundTreebank], requested: Optional[Sequence[str]]) -> List[str]:
    """The treebank names ``--language`` values pick (names, globs, language codes; commas allowed), in
    order; every treebank without values.  A value that picks nothing raises :class:`PrepareError`."""
    if not requested:
        return list(found)
    values = [part.strip() for item in requested for part in item.split(",") if part.strip()]
    chosen: List[str] = []
    unknown: List[str] = []
    for value in values:
        lower = value.lower()
        if any(char in value for char in "*?["):
            hits = [name for name in found if fnmatch.fnmatchcase(name.lower(), lower)]
        else:
            hits = [name for name in found if name.lower() == lower] or \
                   [name for name, item in found.items() if item.code == lower] or \
                   [name for name in found if language_name(name).lower() == lower]
        if not hits:
            unknown.append(value)
        chosen.extend(hits)
    if unknown:
        codes = sorted({item.code for item in found.values() if item.code})
        raise PrepareError(
            f"no UD treebank matches {', '.join(unknown)} (--language takes treebank names, globs such as "
            f"'UD_English-*', language codes and language names); found {len(found)} treebank(s): {', '.join(found) or 'none'}"
            + (f"; codes: {', '.join(codes)}" if codes else "")
        )
    return list(dict.fromkeys(chosen))


def _prepare_one(spec: LanguageSpec, root: Path, out: Path,
                 progress: Optional[ProgressHook] = None) -> Tuple[str, Optional[LanguageResult], str, str]:
    """One treebank (in a worker process, or here): (name, result, outcome, message); outcome ok | skipped | failed."""
    try:
        return spec.name, prepare_ud_language(spec, root, out, progress or ProgressHook()), "ok", ""
    except NoTextError as error:
        return spec.name, None, "skipped", str(error)
    except (PrepareError, SplitError, OSError, UnicodeError) as error:
        return spec.name, None, "failed", str(error)


def prepare_release(
    family: FamilySpec,
    *,
    source: Optional[Path],
    languages: Optional[Sequence[str]],
    out: Path,
    progress: ProgressHook,
    jobs: int = 1,
) -> PrepareReport:
    """Find, select and prepare treebanks (see the module doc); ``progress`` counts bytes of source files."""
    found, looked = discover(family, source)
    if not found:
        hint = f"\n{family.source.required_hint}" if family.source.required_hint else ""
        raise SourceNotFoundError(f"no UD treebank found (a folder holding *-ud-train/dev/test.conllu files) in "
                                  f"{looked}{hint}")
    names = select(found, languages)
    report = PrepareReport(family.name, names, {})
    chosen = [found[name] for name in names]
    duplicated = [item for item in chosen if item.others]
    if duplicated and len(chosen) == 1:
        raise PrepareError(duplicated[0].duplicate_error())
    for item in duplicated:
        report.failed[item.name] = item.duplicate_error()  # type: ignore[assignment]
    chosen = [item for item in chosen if not item.others]
    if jobs <= 1 or len(chosen) == 1:
        for item in chosen:
            if len(chosen) == 1:  # a single treebank: its error is the command's
                try:
                    report.results.append(prepare_ud_language(item.spec, item.root, out, progress))
                except NoTextError as error:
                    report.skipped[item.name] = str(error)
                continue
            _record(report, _prepare_one(item.spec, item.root, out, progress))
    else:
        sizes = {item.name: sum(p.stat().st_size for p in item.root.iterdir() if FILE_NAME.match(p.name))
                 for item in chosen}
        progress.start(f"{family.name}: {len(chosen)} treebanks, {jobs} processes", sum(sizes.values()))
        try:
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(_prepare_one, item.spec, item.root, out) for item in chosen]
                for future in as_completed(futures):
                    outcome = future.result()
                    _record(report, outcome)
                    progress.advance(sizes[outcome[0]])
        finally:
            progress.stop()
        order = {name: k for k, name in enumerate(names)}
        report.results.sort(key=lambda result: order[result.language])
    report.test_only = [r.language for r in report.results if r.manifest.ud is not None and r.manifest.ud.test_only]
    return report


def _record(report: PrepareReport, outcome: Tuple[str, Optional[LanguageResult], str, str]) -> None:
    name, result, kind, message = outcome
    if result is not None:
        report.results.append(result)
    elif kind == "skipped":
        report.skipped[name] = message
    else:
        report.failed[name] = message
