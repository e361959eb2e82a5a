"""Jack-knifed tags whose files went missing (issue 34): a tag file deleted behind its manifest is made again, a
damaged one and a finished fold tagger without checkpoints are errors that say what to delete, and doing so
recovers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mlparse.results import COMPLETE
from mlparse.train.jackknife import load_tags
from mlparse.train.runner import RunError, RunOptions, run_recipe
from helpers.dep_fixtures import SENTENCES
from helpers.tagger_fixtures import jackknife_recipe


def test_missing_and_damaged_tag_files_and_checkpoints_name_the_way_out(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=2, sentences=SENTENCES)
    options = RunOptions(runs_dir=tmp_path / "runs", fresh=True)
    assert run_recipe(config, options).status == COMPLETE
    tagged = load_tags(config)
    assert tagged is not None
    folder, train_tags = tagged.folder, (tagged.folder / "train.tags").read_text(encoding="utf-8")

    (folder / "train.tags").unlink()  # manifest kept: the files behind it are made again from the same taggers
    assert load_tags(config) is None
    assert run_recipe(config, options).status == COMPLETE
    assert (folder / "train.tags").read_text(encoding="utf-8") == train_tags

    lines = train_tags.splitlines(keepends=True)
    (folder / "train.tags").write_text("".join(lines[:2] + lines[3:]), encoding="utf-8")  # one line cut out
    with pytest.raises(RunError) as error:
        run_recipe(config, options)
    message = str(error.value)
    assert f"{folder / 'train.tags'}:3: " in message
    assert message.endswith(f"; delete {folder} and the run makes its tags again (its taggers are reused)")
    shutil.rmtree(folder)  # the way out it names
    assert run_recipe(config, options).status == COMPLETE
    assert (folder / "train.tags").read_text(encoding="utf-8") == train_tags

    fold_tagger = Path(load_tags(config).manifest["taggers"][0]["run_dir"])
    shutil.rmtree(fold_tagger / "checkpoints")
    shutil.rmtree(folder)
    with pytest.raises(RunError) as error:
        run_recipe(config, options)
    message = str(error.value)
    assert f"{fold_tagger / 'checkpoints' / 'last.pt'}: not found, though the tagger's run {fold_tagger} is " \
           "complete" in message
    assert f"delete {fold_tagger} and run again, which trains that tagger again" in message
    shutil.rmtree(fold_tagger)  # the way out it names
    assert run_recipe(config, options).status == COMPLETE
    assert (fold_tagger / "checkpoints" / "best.pt").is_file() and load_tags(config) is not None
