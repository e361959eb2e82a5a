"""Shared test fixtures: where the free treebanks live; one torch thread for tests that compare numbers bit for bit."""

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


#: The tiny model's WordPiece vocabulary: the words of the hand-made test treebanks, some split in pieces.
TINY_WORDPIECES = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "dog", "bark", "##s", ".", "a", "cat", "saw",
                   "john", "hello", "it", "is", "red", "he", "run", "fast", "big", "slept", "on", "mat", "?", "un",
                   "##believ", "##able", "hear", "##ing", "today", "schedule", "##d", "##n"]


@pytest.fixture(scope="module")
def tiny_pretrained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A randomly initialised BERT-like model (4 layers of 32 features, 64 positions) and its WordPiece
    tokenizer, saved with ``save_pretrained`` in a temporary directory (the tests never reach a model
    hub).  Skipped without ``transformers`` (the ``pretrained`` extra, in ``dev``)."""
    transformers = pytest.importorskip("transformers")
    import torch

    folder = tmp_path_factory.mktemp("tiny-bert")
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(TINY_WORDPIECES) + "\n", encoding="utf-8")
    tokenizer = transformers.BertTokenizer(vocab=str(vocab))
    config = transformers.BertConfig(vocab_size=len(TINY_WORDPIECES), hidden_size=32, num_hidden_layers=4,
                                     num_attention_heads=2, intermediate_size=48, max_position_embeddings=64)
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))
    return folder


@pytest.fixture
def one_thread():  # type: ignore[no-untyped-def]
    """One torch thread for the test, restored after it: with several, a matrix product's rows can be shared out
    among threads differently for inputs of different sizes, which can move the last bit of a number."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
