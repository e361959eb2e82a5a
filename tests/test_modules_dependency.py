"""The dependency parser's building blocks: biaffine scorers, BiLSTM encoder, sinusoidal positions, vector files."""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest
import torch

from mlparse.data.pretrained_vectors import VectorFileError, read_vectors
from mlparse.modules.biaffine import Biaffine, BiaffineDependencyScorer
from mlparse.modules.bilstm_encoder import BiLSTMEncoder
from mlparse.modules.positions import sinusoidal_table


def test_biaffine_matches_the_bilinear_form_entry_by_entry():
    torch.manual_seed(0)
    layer = Biaffine(3, 4, n_out=2, bias_x=True, bias_y=False)
    torch.nn.init.normal_(layer.weight)
    x, y = torch.randn(2, 5, 3), torch.randn(2, 6, 4)
    out = layer(x, y)
    assert out.shape == (2, 2, 5, 6)
    for b in range(2):
        for o in range(2):
            for i in range(5):
                for j in range(6):
                    xi = torch.cat([x[b, i], torch.ones(1)])
                    expected = xi @ layer.weight[o] @ y[b, j]
                    assert torch.allclose(out[b, o, i, j], expected, atol=1e-5)


def test_biaffine_gradients_are_the_broadcast_products():
    """The one-product form (every position at once) has the gradients of the broadcast form it replaced."""
    torch.manual_seed(1)
    layer = Biaffine(6, 5, n_out=3, bias_x=True, bias_y=True)
    torch.nn.init.normal_(layer.weight)
    x, y = torch.randn(4, 7, 6, requires_grad=True), torch.randn(4, 7, 5, requires_grad=True)
    weights = torch.randn(4, 3, 7, 7)
    (layer(x, y) * weights).sum().backward()
    got = [t.grad.clone() for t in (x, y, layer.weight)]
    for t in (x, y, layer.weight):
        t.grad = None
    xb = torch.cat([x, torch.ones(4, 7, 1)], dim=-1)
    yb = torch.cat([y, torch.ones(4, 7, 1)], dim=-1)
    (((xb.unsqueeze(1) @ layer.weight) @ yb.unsqueeze(1).transpose(-1, -2)) * weights).sum().backward()
    for mine, reference in zip(got, (x.grad, y.grad, layer.weight.grad)):
        assert torch.allclose(mine, reference, atol=1e-4)


def test_arc_scores_start_uniform_and_shapes_follow_the_docstring():
    torch.manual_seed(0)
    scorer = BiaffineDependencyScorer(d_model=16, n_relations=7, d_arc=8, d_relation=4, mlp_dropout=0.0)
    h = torch.randn(3, 9, 16)
    arc, relation = scorer(h)
    assert arc.shape == (3, 9, 9) and relation.shape == (3, 9, 9, 7)
    assert torch.count_nonzero(arc) == 0  # zero-initialised biaffine: every head equally likely at first


def test_relation_scores_for_given_heads_equal_the_full_tensor():
    torch.manual_seed(1)
    scorer = BiaffineDependencyScorer(d_model=10, n_relations=5, d_arc=6, d_relation=4, mlp_dropout=0.0)
    torch.nn.init.normal_(scorer.relation.weight)
    scorer.eval()
    h = torch.randn(2, 7, 10)
    heads = torch.randint(0, 7, (2, 7))
    _, relation = scorer(h)
    expected = relation[torch.arange(2)[:, None], torch.arange(7)[None, :], heads]  # [2, 7, 5]
    assert torch.allclose(scorer.relation_scores_for(h, heads), expected, atol=1e-5)


def test_bilstm_output_of_a_sentence_does_not_depend_on_its_padding():
    torch.manual_seed(0)
    encoder = BiLSTMEncoder(d_input=6, d_hidden=5, num_layers=2, dropout=0.0).eval()
    x = torch.randn(1, 4, 6)
    alone = encoder(x, torch.ones(1, 4, dtype=torch.bool))
    padded_x = torch.cat([torch.cat([x, torch.randn(1, 3, 6)], dim=1), torch.randn(1, 7, 6)])
    mask = torch.tensor([[True] * 4 + [False] * 3, [True] * 7])
    padded = encoder(padded_x, mask)
    assert padded.shape == (2, 7, 10)
    assert torch.allclose(padded[0, :4], alone[0], atol=1e-6)
    assert torch.count_nonzero(padded[0, 4:]) == 0


def test_sinusoidal_table_follows_equation_8():
    table = sinusoidal_table(50, 8)
    for position in (0, 1, 17, 49):
        for j in range(4):
            angle = position / 10000 ** (2 * j / 8)
            assert math.isclose(table[position, 2 * j].item(), math.sin(angle), abs_tol=1e-5)
            assert math.isclose(table[position, 2 * j + 1].item(), math.cos(angle), abs_tol=1e-5)
    with pytest.raises(ValueError, match="even"):
        sinusoidal_table(4, 7)


def test_vector_files_in_glove_and_word2vec_layouts(tmp_path):
    glove = tmp_path / "glove.txt"
    glove.write_text("the 0.1 0.2 0.3\ndog 1 2 3\ncat -1 -2 -3\n", encoding="utf-8")
    vectors = read_vectors(glove, wanted=["dog", "The", "bird"])
    assert vectors.dim == 3 and vectors.total == 3
    index = vectors.index()
    assert set(index) == {"dog", "The"}  # "The" through its lower-cased form; "bird" is not in the file
    np.testing.assert_allclose(vectors.vectors[index["The"]], [0.1, 0.2, 0.3], rtol=1e-6)
    word2vec = tmp_path / "w2v.txt.gz"
    with gzip.open(word2vec, "wt", encoding="utf-8") as handle:
        handle.write("2 2\nhello 0.5 0.25\nworld 1 1\n")
    every = read_vectors(word2vec)
    assert every.words == ["hello", "world"] and every.dim == 2


@pytest.mark.parametrize("text, message", [
    ("a 1 2\nb 1\n", r"bad\.txt:2: 1 numbers where the file has 2"),
    ("a 1 x\n", r"bad\.txt:1: not a number"),
    ("a 1 2\nlonely\n", r"bad\.txt:2: a word with no numbers"),
])
def test_vector_file_errors_name_file_and_line(tmp_path, text, message):
    bad = tmp_path / "bad.txt"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(VectorFileError, match=message):
        read_vectors(bad)
