"""A peer's version as its version command printed it (mlparse/external/versions.py)."""

from __future__ import annotations

from mlparse.external.versions import printable, same_version, version_line


def test_a_version_matches_only_as_a_whole_number() -> None:
    assert same_version("1.1.4", "1.1.4") and same_version("1.1.4", "supar 1.1.4 (torch 2.13.0)")
    assert not same_version("1.1", "1.1.4")  # a prefix is another version
    assert not same_version("1.1.4", "11.1.4") and not same_version("1.1.4", "1.1.45")
    assert same_version("0.2.0", "benepar 0.2.0") and not same_version("0.2.0", "benepar 0.2.0.post1")


def test_the_version_line_is_the_last_with_a_number_not_a_warning_after_it() -> None:
    assert version_line(["1.15.0", "UserWarning: pkg_resources is deprecated"]) == "1.15.0"
    assert version_line(["loading", "stanza 1.15.0", "done"]) == "stanza 1.15.0"
    assert version_line(["no number here"]) == "no number here"


def test_control_characters_never_reach_the_terminal() -> None:
    assert version_line(["1.2.3\x00\x1b[31m"]) == "1.2.3??[31m"
    assert printable("a\tb\x07") == "a?b?"


def test_a_ud_treebank_is_named_as_its_files_are(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``{lang}`` and ``{treebank}`` from the prepared manifest: the Stanza recipe trains on any UD treebank."""
    import json

    from mlparse.config import load_recipe
    from mlparse.external.commands import expand
    from mlparse.external.versions import treebank_names

    folder = tmp_path / "ud" / "UD_Basque-BDT"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"ud": {"language_code": "eu", "file_prefix": "eu_bdt"}}))
    config = load_recipe("external/stanza-parser", [f"data.root={tmp_path}", "data.language=UD_Basque-BDT"])
    names = treebank_names(config)
    assert names == {"lang": "eu", "treebank": "eu_bdt"}
    words = expand(config.external.train, {"python": "py", "train": "t", "dev": "d", "seed": 1, "workdir": "w",
                                           "threads": 2, **names})
    assert words[words.index("--lang") + 1] == "eu" and words[words.index("--shorthand") + 1] == "eu_bdt"
    missing = load_recipe("external/stanza-parser", [f"data.root={tmp_path}", "data.language=UD_Nothing-XYZ"])
    assert treebank_names(missing) == {"lang": "UD_Nothing-XYZ", "treebank": "UD_Nothing-XYZ"}


def test_gold_columns_are_refused_beside_predicted_or_no_tags() -> None:
    """Under jack-knifed tags (or none) a peer reading gold XPOS, FEATS or LEMMA would not be under the protocol."""
    import pytest

    from mlparse.config import ConfigError, load_recipe

    for tags in ("jackknife", "none"):
        with pytest.raises(ConfigError, match=r"external.columns keeps xpos, feats under data.tags: " + tags):
            load_recipe("external/supar-biaffine-dep", [f"data.tags={tags}", "external.columns=[form, upos, xpos, feats]"])
        load_recipe("external/supar-biaffine-dep", [f"data.tags={tags}", "external.columns=[form, upos]"])
    load_recipe("external/supar-biaffine-dep", ["data.tags=gold", "external.columns=[form, upos, xpos, feats]"])


def test_predict_targets_keep_is_named_in_the_system() -> None:
    from mlparse.config import load_recipe
    from mlparse.models.declarations import ExternalKind

    kept = load_recipe("external/supar-biaffine-dep", ["external.predict_targets=keep"])
    blank = load_recipe("external/supar-biaffine-dep")
    assert "gold trees in its prediction input" in ExternalKind.describe(kept, "gold")
    assert "gold trees" not in ExternalKind.describe(blank, "gold")
