"""Issue 23 §4: the bundled recipes hold the papers' numbers where the papers give them, and a recipe that is
not the paper's model says so (``deviation:``, shown in the report's system name)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mlparse.config import ConfigError, load_recipe
from mlparse.config.loading import recipes_dir

#: Li et al. (2019) §4: at most 1,000 iterations, dev after each, stop after 100 without improvement;
#: §4.1 sizes; Table 1 (8 layers); Table 2 (0.0012 English, 0.0011 Chinese).
LI_REGIME = {"max_epochs": 1000, "patience_epochs": 100, "evals_per_epoch": 1, "warmup_steps": 0,
             "lr_decay_factor": 1.0}
LI_RECIPES = ["ud/base", "ud/english-ewt", "ud/english-ewt-bert", "ud/chinese", "ud/chinese-v2", "ud/french",
              "ud/hungarian-szeged", "ud/basque-v2"]


@pytest.mark.parametrize("name", LI_RECIPES)
def test_li_et_al_recipes_train_as_section_4(name: str) -> None:
    config = load_recipe(name)
    t, m, b = config.train, config.model, config.biaffine
    assert {key: getattr(t, key) for key in LI_REGIME} == LI_REGIME
    assert (t.adam_betas, t.adam_eps) == ([0.9, 0.98], 1e-9)
    assert (m.num_layers, m.d_model, m.num_heads, m.d_kv, m.d_ff) == (8, 200, 8, 25, 800)
    assert (b.d_word_emb, b.d_tag_emb, b.d_arc, b.d_relation, b.mlp_dropout) == (100, 100, 500, 100, 0.33)
    assert (m.attention_dropout, m.relu_dropout, m.residual_dropout) == (0.1, 0.1, 0.2)
    assert t.batch_size == 300  # about 5,000 tokens on EWT (16.3 words a sentence), Dozat & Manning's batches


def test_table_2_learning_rates() -> None:
    for name in ("ud/english-ewt", "ud/english-ewt-bert", "ud/base"):
        assert load_recipe(name).train.lr == 0.0012, name
    for name in ("ud/chinese", "ud/chinese-v2"):
        assert load_recipe(name).train.lr == 0.0011, name


def test_the_batch_comment_is_true_on_ewt(treebanks: Path) -> None:
    ewt = treebanks / "ud" / "UD_English-EWT"
    files = sorted(ewt.glob("*-ud-train.conllu")) if ewt.is_dir() else []
    if not files:
        pytest.skip("UD_English-EWT's train file is not in ../shared/treebanks")
    words = sentences = 0
    for line in files[0].read_text(encoding="utf-8").splitlines():
        if not line:
            sentences += 1
        elif line.split("\t", 1)[0].isdigit():
            words += 1
    tokens = load_recipe("ud/base").train.batch_size * words / sentences
    assert 4700 < tokens < 5100  # the comment: about 4,900 tokens


def test_pretrained_span_recipes_have_kitaev_and_kleins_4_layers_and_lal_recipes_mrini_et_al_s_3() -> None:
    for name in ("english-bert", "english-xlnet", "chinese-bert"):
        assert load_recipe(name).model.num_layers == 4, name  # K&K §5.2: 4 layers over ELMo
    for name in ("lal/english", "lal/english-xlnet", "lal/chinese", "lal/chinese-bert", "lal/ptb-sample"):
        config = load_recipe(name)
        assert config.model.num_layers == 3 and config.model.kind == "joint", name  # Mrini et al. §4.1, Table 5
        assert (config.joint.lal_d_head, config.joint.lal_residual_dropout, config.joint.lal_feed_forward) == (128, 0.0, True)
    assert load_recipe("lal/english").joint.lal_heads == load_recipe("lal/english-xlnet").joint.lal_heads == 112
    assert load_recipe("lal/chinese").joint.lal_heads == load_recipe("lal/chinese-bert").joint.lal_heads == 64


def test_the_papers_inputs_and_the_ctb_punctuation() -> None:
    xlnet, bert = load_recipe("lal/english-xlnet"), load_recipe("lal/chinese-bert")
    assert xlnet.pretrained.model == "xlnet-large-cased" and xlnet.pretrained.fine_tune  # §4.1: large cased XLNet
    assert bert.pretrained.model == "bert-base-chinese" and bert.pretrained.fine_tune  # §4.1: base BERT for Chinese
    for name in ("lal/chinese", "lal/chinese-bert"):
        config = load_recipe(name)
        assert config.eval.dependency_scoring == "ptb" and config.eval.punct_tags == ["PU"], name


def test_every_recipe_that_is_not_the_papers_model_says_so() -> None:
    expected = {
        "lal/english": "CharLSTM instead of XLNet", "lal/chinese": "CharLSTM instead of BERT",
        "english-bert": "BERT instead of ELMo", "english-xlnet": "XLNet instead of ELMo",
        "ud/english-ewt": "instead of PTB-SD", "ud/chinese-v2": "instead of CoNLL-09 Chinese",
    }
    for name, words in expected.items():
        config = load_recipe(name)
        assert words in config.deviation, name
        assert any(w in config.description for w in ("instead of", "the paper uses")), name  # and the description
    assert load_recipe("lal/chinese-bert").deviation == ""  # the paper's model
    stale = [path for path in recipes_dir().rglob("*.yaml")
             if "no pretrained encoders" in path.read_text(encoding="utf-8")]
    assert stale == []


def test_the_deviation_is_not_inherited_not_hashed_and_shown_in_the_system_name(tmp_path: Path) -> None:
    child = tmp_path / "child.yaml"
    child.write_text("base: lal/english\nname: mine\n", encoding="utf-8")
    config = load_recipe(child)
    assert config.deviation == ""
    assert load_recipe("lal/english").hash() == load_recipe("lal/english", ["deviation=other words"]).hash()
    named = load_recipe("lal/english")
    assert named.system_name("mlparse joint LAL (CharLSTM + words)") == (
        "mlparse joint LAL (CharLSTM + words) [not the paper's: CharLSTM instead of XLNet, Collins heads instead of "
        "Stanford]")
    assert config.system_name("mlparse joint LAL (x)") == "mlparse joint LAL (x)"
    data = yaml.safe_load(named.to_yaml())
    assert data["deviation"] == named.deviation  # the run's recipe.yaml states it
