"""What preparing one language gives, shared by the tree pipeline (:mod:`mlparse.data.prepare`)
and the CoNLL-U one (:mod:`mlparse.data.ud`): the progress hook they drive, their result, and
the manifest they write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List, Optional

import mlparse.version
from mlparse.data.issues import Issue
from mlparse.data.manifest import HeadsInfo, Manifest, SourceFile, SplitStats, UdInfo
from mlparse.data.specs import LanguageSpec
from mlparse.data.splits import SplitPlan


class ProgressHook:
    """Progress reporting; the CLI passes one that drives a rich progress bar."""

    def start(self, description: str, total: int) -> None:  # total in bytes
        pass

    def advance(self, amount: int) -> None:
        pass

    def stop(self) -> None:
        pass


@dataclass
class LanguageResult:
    language: str
    out_dir: Path
    manifest: Manifest


@dataclass
class PrepareReport:
    """What ``mlparse prepare`` did: the languages found and prepared, and those it could not prepare.

    ``skipped``: treebanks left out on purpose, with the reason (released without text);
    ``failed``: treebanks whose preparation stopped, with the error (only when several were prepared
    at once: a single treebank's error is raised); ``test_only``: prepared treebanks without train."""

    family: str
    found: List[str]
    not_found: Dict[str, str]  # language -> where it was looked for
    results: List[LanguageResult] = field(default_factory=list)
    skipped: Dict[str, str] = field(default_factory=dict)
    failed: Dict[str, str] = field(default_factory=dict)
    test_only: List[str] = field(default_factory=list)


def build_manifest(
    spec: LanguageSpec,
    root: Path,
    plan: SplitPlan,
    splits: Dict[str, SplitStats],
    repairs: List[Issue],
    exclusions: List[Issue],
    sources: List[SourceFile],
    missing: List[str],
    heads: Optional[HeadsInfo] = None,
    ud: Optional[UdInfo] = None,
) -> Manifest:
    return Manifest(
        family=spec.family,
        language=spec.name,
        mlparse_version=mlparse.version.__version__,
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        source_root=str(root.resolve()),
        format=spec.reader.format,
        reader_options=dict(spec.reader.options),
        output_format=spec.output,
        evalb_param=spec.evalb,
        split_definition=plan.definition,
        missing_splits=missing,
        transforms=[step.describe() for step in spec.pipeline],
        splits=splits,
        repairs=repairs,
        exclusions=exclusions,
        source_files=sources,
        notes=spec.notes,
        heads=heads,
        ud=ud,
    )
