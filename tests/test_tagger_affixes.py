"""Affix and shape features (mlparse/data/affixes.py), their embedding, UNK replacement, and a tagger that reads them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from mlparse.config import ConfigError, load_recipe
from mlparse.data.affixes import FEATURES, AffixVocab, word_shape
from mlparse.models.dep_parser import UNK_ID
from mlparse.models.registry import parser_from_spec
from mlparse.models.tagger import TaggerParser
from mlparse.modules.affix_embedding import AffixEmbedding
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.tasks.tagging import TaggedSentence, tagged_sentences
from mlparse.train import checkpoint
from mlparse.train.runner import RunOptions, run_recipe
from helpers.tagger_fixtures import tagger_recipe

AFFIXES = ["suffix1", "suffix2", "suffix3", "suffix4", "prefix2", "shape"]


@pytest.mark.parametrize("word, shape", [("Mr.", "Xx."), ("1,000", "d,d"), ("dog", "x"), ("McDonald's", "XxXx'x"),
                                         ("ABabABabABab1", "XxXxXx"), ("ABCabcABCabc1", "XxXxd"), ("", "")])
def test_a_shape_writes_each_run_of_one_kind_of_character_once(word: str, shape: str) -> None:
    assert word_shape(word) == shape


def test_features_read_the_ends_of_a_word_lowercased() -> None:
    assert [FEATURES[name]("Walking") for name in AFFIXES] == ["g", "ng", "ing", "king", "wa", "Xx"]
    assert FEATURES["suffix4"]("a") == "a" and FEATURES["prefix3"]("Ox") == "ox"
    assert FEATURES["lower"]("WALKING") == FEATURES["lower"]("Walking") == "walking"


def test_the_vocabulary_keeps_values_seen_often_enough_and_maps_the_rest_to_unknown() -> None:
    words = ["walking", "talking", "walked", "dog", "dogs", "Dog"]
    vocab = AffixVocab.build(words, ["suffix3", "shape"], min_count=2)
    suffixes, shapes = vocab.tables
    assert suffixes[:2] == ["<pad>", "<unk>"] and "ing" in suffixes and "ked" not in suffixes
    assert "dog" in suffixes  # "dog" and "Dog" lower-case to one value, seen twice
    assert shapes == ["<pad>", "<unk>", "x"]  # "Xx" was seen once
    ids = vocab.ids(["jogging", "Zed", "walked"])
    assert ids.shape == (3, 2) and ids.dtype == np.int64
    assert ids[0, 0] == suffixes.index("ing") and ids[1].tolist() == [1, 1] and ids[2, 0] == 1
    again = AffixVocab.from_dict(vocab.to_dict())
    assert again.ids(["jogging", "Zed", "walked"]).tolist() == ids.tolist()
    with pytest.raises(ValueError, match="unknown affix feature"):
        AffixVocab.build(words, ["suffix9"])


def test_the_embedding_concatenates_one_vector_per_feature_from_its_own_table() -> None:
    torch.manual_seed(0)
    embedding = AffixEmbedding([5, 3], d_emb=4)
    ids = torch.tensor([[[1, 2], [4, 0]]])  # [B=1, T=2, F=2]
    out = embedding(ids)
    assert out.shape == (1, 2, 8)
    rows = embedding.embedding.weight
    assert torch.equal(out[0, 0], torch.cat([rows[1], rows[5 + 2]]))  # feature 1's ids start after feature 0's 5
    assert torch.equal(out[0, 1], torch.cat([rows[4], rows[5 + 0]]))


def affix_tagger(**tagger) -> TaggerParser:
    sentences = [TaggedSentence(("the", "dog", "walked", "the", "dog", "rare"), {"upos": ("D", "N", "V", "D", "N", "A")})]
    settings = {"affixes": AFFIXES, "d_affix_emb": 4, "affix_min_count": 1, **tagger}
    config = load_recipe("tagger", ["model.char_encoder=none", "model.encoder=bilstm", "model.word_min_count=1", "tagger.lstm_hidden=8",
                                    "tagger.lstm_layers=1", "tagger.d_word_emb=8"]
                         + [f"tagger.{k}={v}" for k, v in settings.items()])
    return TaggerParser.build(config, sentences)


def test_a_tagger_batch_holds_the_affix_ids_of_its_words_and_the_input_reads_them() -> None:
    tagger = affix_tagger()
    batch = tagger.make_batch([["the", "dog"], ["walked"]])
    assert batch.affixes is not None and batch.affixes.shape == (2, 3, len(AFFIXES))
    assert batch.affixes[0, 0].tolist() == [0] * len(AFFIXES)  # the start position: padding ids
    assert batch.affixes[0, 2].tolist() == tagger.affixes.ids(["dog"])[0].tolist()
    assert batch.affixes[1, 2].tolist() == [0] * len(AFFIXES)  # padding
    assert tagger.input.lexical(batch).shape[-1] == 8 + 4 * len(AFFIXES)
    assert "affixes" in TaggerParser.describe(load_recipe("tagger", [f"tagger.affixes=[{','.join(AFFIXES)}]"]))


def test_training_words_become_unknown_with_probability_a_over_a_plus_their_count() -> None:
    torch.manual_seed(0)
    tagger = affix_tagger(unk_replacement=0.5)  # "the" and "dog" seen twice: 0.2; "rare" once: 1/3
    chance = tagger.input.unk_replacement
    vocab = tagger.vocab
    assert chance[vocab.words.index("the")].item() == pytest.approx(0.5 / 2.5)
    assert chance[vocab.words.index("rare")].item() == pytest.approx(0.5 / 1.5)
    assert chance[:vocab.words.num_specials].sum().item() == 0.0
    batch = tagger.make_batch([["rare"] * 60] * 50)  # 3,000 occurrences of a word seen once
    seen = []
    embedding = tagger.input.word_embedding
    handle = embedding.register_forward_hook(lambda module, args, out: seen.append(args[0]))
    tagger.train()
    tagger.input.lexical(batch)
    tagger.eval()
    tagger.input.lexical(batch)
    handle.remove()
    trained, evaluated = seen
    words = batch.mask.clone()
    words[:, 0] = False  # the start position is never replaced
    rate = (trained[words] == UNK_ID).float().mean().item()
    assert rate == pytest.approx(1 / 3, abs=0.03)
    assert (trained[~words] == batch.words[~words]).all()
    assert torch.equal(evaluated, batch.words)  # never at evaluation


def test_an_affix_tagger_trains_saves_and_reloads_to_the_same_tags(tmp_path: Path) -> None:
    recipe = tagger_recipe(tmp_path)
    config = load_recipe(recipe, [f"tagger.affixes=[{','.join(AFFIXES)}]", "tagger.d_affix_emb=4",
                                  "tagger.affix_min_count=1", "tagger.unk_replacement=0.25"])
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    assert results.status == COMPLETE and results.dev.tagging_accuracy == 100.0
    saved = checkpoint.load(RunDir.for_recipe(tmp_path / "runs", config).best)
    assert saved["spec"]["affixes"]["names"] == AFFIXES
    again = parser_from_spec(saved["spec"])
    again.load_state_dict(saved["model"])
    gold = tagged_sentences(config.split_path("dev")).examples
    assert again.predict([s.words for s in gold]) == [list(s.tags("upos")) for s in gold]


def test_affix_settings_are_checked_and_leave_other_runs_ids_alone() -> None:
    with pytest.raises(ConfigError, match="tagger.affixes: unknown affix feature"):
        load_recipe("tagger", ["tagger.affixes=[suffix1,infix]"])
    with pytest.raises(ConfigError, match="tagger.unk_replacement"):
        load_recipe("tagger", ["tagger.unk_replacement=-1"])
    plain = load_recipe("tagger", ["tagger.affixes=[]"])
    assert plain.hash() == load_recipe("tagger", ["tagger.affixes=[]", "tagger.d_affix_emb=32"]).hash()
    assert plain.hash() != load_recipe("tagger", ["tagger.affixes=[shape]"]).hash()
