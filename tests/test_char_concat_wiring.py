"""CharConcat as wired into the span parser (Kitaev & Klein 2018, §5.1): the first and last 8 letters of a
word, packed into the content input without begin/end-of-word markers or a projection; older checkpoints
and run ids."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from mlparse.config import ConfigError, ModelConfig, SpanConfig, load_recipe
from mlparse.config.layout import split_model_settings
from mlparse.data.vocab import ParserVocab
from mlparse.package import NotAModel, load_package
from mlparse.models.span_parser import CheckpointFormatError, SpanParser
from mlparse.structs.chart import LabelVocab
from mlparse.tasks.treebank import sentence_of
from mlparse.trees.reader import parse_bracketed
from helpers.run_fixtures import TINY_MODEL, TINY_SPAN

REPO = Path(__file__).resolve().parents[1]
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
TREES = [f"(TOP (S (NP (NN {ALPHABET})) (VP (VBZ {ALPHABET.upper()}))))", "(TOP (NP (NN a)))"]


def concat_parser(d_model: int = 64, d_char_emb: int = 2, **overrides: object) -> SpanParser:
    """A CharConcat-only parser (no word or tag embeddings) whose vocabulary holds both alphabets."""
    torch.manual_seed(0)
    trees = [parse_bracketed(text).trees[0] for text in TREES]
    vocab = ParserVocab.build([sentence_of(t) for t in trees])
    model, span = split_model_settings(overrides)
    config = ModelConfig(**{**TINY_MODEL, "d_model": d_model, "use_words": False, "char_encoder": "concat",
                            "d_char_emb": d_char_emb, **model})  # type: ignore[arg-type]
    return SpanParser(config, vocab, LabelVocab.from_trees(trees), span=SpanConfig(**{**TINY_SPAN, **span})).eval()


def content_of(parser: SpanParser, word: str) -> torch.Tensor:
    """The content input of ``word`` in a one-word sentence: ``Tensor[d_content]`` (before positions and LayerNorm)."""
    batch = parser.make_batch([[("NN", word)]])
    content = parser.embedding.content(batch.mask, chars=batch.chars, char_lengths=batch.char_lengths)
    return content[0, 1]


def encoder_input(parser: SpanParser, word: str) -> torch.Tensor:
    """What the encoder gets for the sentence ``[word]``: ``Tensor[T=3, d_model]``."""
    batch = parser.make_batch([[("NN", word)]])
    return parser.embedding(batch.mask, words=batch.words, tags=batch.tags, chars=batch.chars,
                            char_lengths=batch.char_lengths)[0]


def replaced(word: str, index: int) -> str:
    return word[:index] + word[index].upper() + word[index + 1:]


def test_the_8th_letter_and_the_8th_from_last_reach_the_encoder_but_the_middle_does_not() -> None:
    parser = concat_parser()
    z = encoder_input(parser, ALPHABET)
    assert not torch.allclose(encoder_input(parser, replaced(ALPHABET, 7)), z)  # "h", 8th letter
    assert not torch.allclose(encoder_input(parser, replaced(ALPHABET, -8)), z)  # "s", 8th from the end
    torch.testing.assert_close(encoder_input(parser, replaced(ALPHABET, 8)), z)  # "i", 9th letter: lost
    torch.testing.assert_close(encoder_input(parser, replaced(ALPHABET, -9)), z)  # "r", 9th from the end: lost


def test_each_slot_holds_a_letter_not_a_word_boundary_marker() -> None:
    parser = concat_parser()
    table = parser.embedding.char_concat.embedding.weight  # type: ignore[union-attr]
    letters = [parser.vocab.chars.index(c) for c in ALPHABET[:8] + ALPHABET[::-1][:8]]
    expected = torch.cat([table[i] for i in letters])
    torch.testing.assert_close(content_of(parser, ALPHABET), expected)  # 2 x 8 x 2 = 32 = d_model / 2
    short = [parser.vocab.chars.index(c) for c in "ab"]  # a 2-letter word: padding letters fill 6 slots per side
    pad = [0] * 6
    expected_short = torch.cat([table[i] for i in short + pad + short[::-1] + pad])
    torch.testing.assert_close(content_of(parser, "ab"), expected_short)


def test_paper_sizes_pack_without_projection_and_smaller_models_are_zero_filled() -> None:
    paper = concat_parser(d_model=1024, d_char_emb=32, d_kv=4, d_ff=4, d_label_hidden=4)
    concat = paper.embedding.char_concat
    assert concat is not None and concat.d_packed == concat.d_out == 512
    assert [name for name, _ in paper.embedding.named_parameters() if "char" in name] == ["char_concat.embedding.weight"]
    small = concat_parser(d_model=96, d_char_emb=2)  # 32 letter features in a content input of 48
    vector = content_of(small, ALPHABET)
    assert vector.shape == (48,) and bool((vector[32:] == 0).all()) and bool((vector[:32] != 0).any())


def test_a_packed_vector_larger_than_the_content_input_is_refused() -> None:
    with pytest.raises(ValueError, match=r"2 x 8 letters x 4 features = 64 features, more than the content input of 32"):
        concat_parser(d_model=64, d_char_emb=4)
    demo = REPO / "recipes" / "demo.yaml"
    with pytest.raises(ConfigError, match=r"2 x 8 letters x model.d_char_emb=32 = 512 features into the content "
                                          r"input of 64 features .*set model.d_char_emb to 4 or less"):
        load_recipe(demo, ["model.char_encoder=concat"])
    assert load_recipe(demo, ["model.char_encoder=concat", "model.d_char_emb=4"]).model.d_char_emb == 4
    base = REPO / "recipes" / "base.yaml"  # d_char_emb 64 is the CharLSTM size; CharConcat's is 32 (Table 8)
    with pytest.raises(ConfigError, match="set model.d_char_emb to 32 or less"):
        load_recipe(base, ["model.char_encoder=concat"])


def test_checkpoints_of_the_old_wiring_are_refused_clearly_and_others_still_load(tmp_path: Path) -> None:
    parser = concat_parser()
    old_spec = {key: value for key, value in parser.spec().items() if key != "char_concat_wiring"}
    with pytest.raises(CheckpointFormatError, match="older mlparse"):
        SpanParser.from_spec(old_spec)
    path = tmp_path / "best.pt"
    torch.save({"spec": old_spec, "model": parser.state_dict()}, path)
    with pytest.raises(NotAModel, match=rf"^{path}: this CharConcat model was saved by an older mlparse.*train it again"):
        load_package(path, torch.device("cpu"))[0]
    torch.save({"spec": parser.spec(), "model": parser.state_dict()}, path)  # the current wiring loads
    loaded = load_package(path, torch.device("cpu"))[0]
    torch.testing.assert_close(encoder_input(loaded, ALPHABET), encoder_input(parser, ALPHABET))
    lstm = concat_parser(char_encoder="lstm", d_char_emb=8)  # a CharLSTM checkpoint from before still loads
    lstm_spec = {key: value for key, value in lstm.spec().items() if key != "char_concat_wiring"}
    torch.save({"spec": lstm_spec, "model": lstm.state_dict()}, path)
    assert load_package(path, torch.device("cpu"))[0].config.char_encoder == "lstm"


#: Ids handed out by the code before this change (CharConcat with marker slots and a projection).
OLD_DEMO_CONCAT_ID = "3b7cb8e2e18b"  # recipes/demo.yaml with model.char_encoder=concat, model.d_char_emb=4
OLD_DEMO_ID = "110be667da3c"  # recipes/demo.yaml as it was then (sub-batches of 400 token-equivalents)


def test_concat_recipes_get_new_run_ids_and_other_recipes_keep_theirs() -> None:
    demo = REPO / "recipes" / "demo.yaml"
    then = ["train.subbatch_tokens=400"]
    assert load_recipe(demo, then).hash()[:12] == OLD_DEMO_ID
    assert load_recipe(demo, [*then, "model.char_encoder=concat", "model.d_char_emb=4"]).hash()[:12] != OLD_DEMO_CONCAT_ID
