"""The treebank catalog: every family loads, validation names the bad key, templates expand."""

from pathlib import Path

import pytest

from mlparse.data.catalog import CatalogError, catalog_dir, family_names, load_family, parse_family
from mlparse.data.formats import DEPENDENCY_FORMATS, FORMATS
from mlparse.data.steps import STEPS, build_pipeline

REPO = Path(__file__).resolve().parents[1]


def test_every_family_loads_and_uses_registered_names():
    assert family_names() == ["free", "ptb", "ptb-sample", "spmrl", "ud"]
    for name in family_names():
        family = load_family(name)
        assert family.languages
        for spec in family.languages.values():
            assert spec.reader.format in FORMATS or spec.reader.format in DEPENDENCY_FORMATS
            build_pipeline(spec.pipeline)  # every step name and option is valid
            if spec.output == "trees":
                assert spec.pipeline[-1].name == "ensure_top"
                assert spec.evalb in ("COLLINS.prm", "spmrl.prm")


def test_package_catalog_is_the_repository_treebanks_folder():
    # the package reaches treebanks/ through mlparse/data/catalog, which wheels ship as package data
    assert catalog_dir().resolve() == (REPO / "treebanks").resolve()
    assert (REPO / "mlparse" / "data" / "catalog" / "ptb.yaml").is_file()


def test_spmrl_templates_expand_per_language():
    spmrl = load_family("spmrl")
    assert set(spmrl.languages) == {
        "arabic", "basque", "french", "german", "hebrew", "hungarian", "korean", "polish", "swedish"
    }
    german = spmrl.languages["german"]
    assert german.folder == "GERMAN_SPMRL"
    assert german.split.options["train"] == [
        "gold/ptb/train/train.German.gold.ptb",
        "gold/ptb/train5k/train5k.German.gold.ptb",
    ]
    assert german.evalb == "spmrl.prm"


def _minimal(**language):
    body = {"reader": {"format": "bracketed"}, "split": {"scheme": "files", "train": "x"}, **language}
    return {"family": "t", "languages": {"xx": body}}


def test_unknown_language_key_names_the_valid_keys():
    with pytest.raises(CatalogError, match=r"unknown key\(s\) colour; valid keys: folder"):
        parse_family(_minimal(colour="red"), Path("t.yaml"))


def test_unknown_format_step_and_scheme_are_refused():
    with pytest.raises(CatalogError, match="unknown reader format 'xml'"):
        parse_family(_minimal(reader={"format": "xml"}), Path("t.yaml"))
    with pytest.raises(CatalogError, match="unknown pipeline step 'frobnicate'"):
        parse_family(_minimal(pipeline=["frobnicate"]), Path("t.yaml"))
    with pytest.raises(CatalogError, match="unknown split scheme 'random'"):
        parse_family(_minimal(split={"scheme": "random"}), Path("t.yaml"))


def test_step_options_are_checked():
    family = parse_family(_minimal(pipeline=[{"strip_empty": {"kind": "klingon"}}]), Path("t.yaml"))
    with pytest.raises(CatalogError, match="kind must be one of ptb, psd, cess"):
        build_pipeline(family.languages["xx"].pipeline)
    family = parse_family(_minimal(pipeline=["ensure_top", "strip_functional_tags"]), Path("t.yaml"))
    with pytest.raises(CatalogError, match="must be the last step"):
        build_pipeline(family.languages["xx"].pipeline)


def test_unknown_family_lists_the_known_ones():
    with pytest.raises(CatalogError, match="unknown treebank family 'nope'.*free, ptb, ptb-sample, spmrl, ud"):
        load_family("nope")


def test_every_registered_step_is_documented_in_the_catalog_readme():
    readme = (REPO / "treebanks" / "README.md").read_text(encoding="utf-8")
    for name in STEPS:
        assert f"`{name}`" in readme
