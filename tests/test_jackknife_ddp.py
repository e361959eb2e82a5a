"""Jack-knifed tags for a parser run of several processes (``--gpus N``, DistributedDataParallel): process 0 trains
the taggers as runs of one process each before the processes meet, the others wait for the tags on disk.

Before this, the taggers of process 0 took the parser's process count from the environment and entered the
parser's collectives: the run hung (or mixed its barriers up with the taggers')."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

import pytest
import torch.multiprocessing as mp

from helpers.tagger_fixtures import ONE_AT_A_TIME, jackknife_recipe
from mlparse.config import load_recipe
from mlparse.results import COMPLETE
from mlparse.run_dir import RunDir
from mlparse.train.jackknife import load_tags

WORLD = 2
#: Two tiny taggers and a tiny parser take seconds; a hang is what this test exists to catch.
DEADLINE_SECONDS = 240


def overrides(tmp_path: Path) -> list:
    """What :func:`jackknife_recipe` sets on the tiny dependency recipe it writes."""
    return ["data.tags=jackknife", "tagger.folds=2", f"tagger.recipe={tmp_path / 'tiny-tagger.yaml'}", ONE_AT_A_TIME]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank: int, tmp: str, port: int) -> None:
    """One process of the parser run, as torchrun would start it."""
    import torch

    from mlparse.train import jackknife
    from mlparse.train.runner import RunOptions, run_recipe

    torch.set_num_threads(1)
    os.environ.update({"RANK": str(rank), "WORLD_SIZE": str(WORLD), "LOCAL_RANK": str(rank),
                       "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)})
    jackknife.POLL_SECONDS = 0.2
    tmp_path = Path(tmp)
    config = load_recipe(tmp_path / "tiny-dep.yaml", overrides(tmp_path))  # the files the test wrote
    results = run_recipe(config, RunOptions(runs_dir=tmp_path / "runs"))
    (tmp_path / f"rank{rank}.json").write_text(json.dumps({"status": results.status,
                                                           "input_tags": results.input_tags}), encoding="utf-8")


@pytest.mark.slow
def test_a_jackknifing_parser_of_two_processes_trains_its_taggers_once_in_process_zero(tmp_path: Path) -> None:
    config = jackknife_recipe(tmp_path, folds=2, max_epochs=2)  # writes the data and both recipes, once, before the processes start
    assert config.hash() == load_recipe(tmp_path / "tiny-dep.yaml", overrides(tmp_path)).hash()
    context = mp.start_processes(_worker, args=(str(tmp_path), _free_port()), nprocs=WORLD, join=False,
                                 start_method="spawn")
    deadline = time.monotonic() + DEADLINE_SECONDS
    try:
        while not context.join(timeout=1):
            assert time.monotonic() < deadline, "the two-process jack-knifing run hung"
    finally:
        for process in context.processes:
            if process.is_alive():
                process.kill()
    outcomes = [json.loads((tmp_path / f"rank{rank}.json").read_text(encoding="utf-8")) for rank in range(WORLD)]
    assert outcomes[0]["status"] == COMPLETE  # process 0 evaluates; the others return after training
    for outcome in outcomes:  # every process trained on the jack-knifed tags
        assert outcome["input_tags"]["source"] == "jackknife" and outcome["input_tags"]["folds"] == 2
    tagged = load_tags(config)
    assert tagged is not None
    taggers = [RunDir(Path(t["run_dir"])) for t in tagged.manifest["taggers"]]
    assert len(taggers) == 3  # two fold taggers and the tagger of dev and test, each trained once
    for tagger in taggers:
        results = tagger.read_results()
        assert results is not None and results.status == COMPLETE
        assert results.hardware["processes"] == 1  # a run of one process, though the parser ran as two
