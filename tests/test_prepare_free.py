"""The free treebanks prepared in full: nothing lost without a reason, and the round trips hold.

Slow (about half a minute on two cores): every tree of every free treebank is prepared once
(two processes), then the written split files are read back and checked.
"""

import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Dict, Tuple

import pytest

from mlparse.data.catalog import load_family
from mlparse.data.manifest import Manifest
from mlparse.data.prepare import prepare_family
from mlparse.trees.reader import read_bracketed_file
from mlparse.trees.transforms import binarize, collapse_unary, expand_unary, unbinarize

pytestmark = [pytest.mark.slow, pytest.mark.treebanks]


def readme_top_level_trees(readme: str) -> Dict[str, int]:
    """Folder -> number of top-level trees, read from the shared README's constituency table."""
    counts = {}
    for line in readme.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 6 or not re.fullmatch(r"`[a-z-]+/`", cells[0]):
            continue
        sentences = cells[4]
        top_level = re.search(r"\(([\d,]+) top-level trees\)", sentences)
        numbers = [top_level.group(1)] if top_level else re.findall(r"[\d,]+", sentences)
        if numbers:
            counts[cells[0].strip("`/")] = sum(int(n.replace(",", "")) for n in numbers)
    return counts


def _prepare_one(args: Tuple[str, str, str]) -> str:
    language, source, out = args
    prepare_family("free", source=Path(source), languages=[language], out=Path(out))
    return language


@pytest.fixture(scope="module")
def prepared(treebanks, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("free")
    languages = list(load_family("free").languages)
    jobs = [(language, str(treebanks), str(out)) for language in languages]
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert sorted(pool.map(_prepare_one, jobs)) == sorted(languages)
    return out / "free"


def test_sentences_plus_exclusions_equal_the_readme_count(prepared, treebanks):
    expected = readme_top_level_trees((treebanks / "README.md").read_text(encoding="utf-8"))
    family = load_family("free")
    for language, spec in family.languages.items():
        manifest = Manifest.load(prepared / language / "manifest.json")
        written = sum(len((prepared / language / f"{s}.trees").read_text(encoding="utf-8").splitlines())
                      for s in manifest.splits)
        sentences = sum(stats.sentences for stats in manifest.splits.values())
        assert written == sentences
        assert sentences + len(manifest.exclusions) == expected[spec.folder], language
        assert all(issue.file and issue.line > 0 and issue.reason for issue in manifest.exclusions)
        assert set(manifest.splits) == {"train", "dev", "test"}
        assert manifest.splits["train"].sentences > 5 * manifest.splits["dev"].sentences


def _round_trip(path: str) -> Tuple[str, int, int]:
    trees = read_bracketed_file(path).trees
    bad_binary = sum(1 for t in trees if unbinarize(binarize(t)) != t)
    bad_unary = sum(1 for t in trees if expand_unary(collapse_unary(t)) != t)
    return path, bad_binary + bad_unary, len(trees)


def test_round_trips_are_the_identity_on_every_prepared_tree(prepared):
    # largest first, one file per task, so that the two workers finish together
    files = [str(p) for p in sorted(prepared.glob("*/*.trees"), key=lambda p: -p.stat().st_size)]
    assert len(files) == 3 * len(load_family("free").languages)
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_round_trip, files, chunksize=1))
    assert [(Path(p).parent.name, bad) for p, bad, _ in results if bad] == []
    manifests = [Manifest.load(path) for path in prepared.glob("*/manifest.json")]
    assert sum(n for _, _, n in results) == sum(s.sentences for m in manifests for s in m.splits.values())
