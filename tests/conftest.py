"""Shared test fixtures: where the free treebanks live."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_treebanks_dir() -> Path:
    """``$MLPARSE_SHARED_TREEBANKS`` or ``../shared/treebanks`` beside the repository."""
    env = os.environ.get("MLPARSE_SHARED_TREEBANKS")
    return Path(env) if env else REPO.parent / "shared" / "treebanks"


@pytest.fixture(scope="session")
def treebanks() -> Path:
    """The shared treebank folder; tests that need it are skipped when it is absent."""
    path = shared_treebanks_dir()
    if not path.is_dir():
        pytest.skip(f"shared treebanks not found at {path}")
    return path
