"""Timing parsers side by side in one run: each in a worker process of its own, parsing in turns.

A worker is any program that prints one JSON line when it is ready (``{"ready": true, ...}``) and then
answers each command line on its stdin with one JSON line; ``parse ...`` answers
``{"seconds": wall, "cpu": process CPU seconds}`` and ``quit`` ends it.  Workers of other projects
(benchmarks/benepar_worker.py, benchmarks/supar_worker.py) run in those projects' virtual environments
and write the protocol themselves; mlparse's own workers use :func:`serve`.  All workers of a comparison
get the same thread count and the same ``OMP_WAIT_POLICY`` (:func:`worker_environment`), and
:func:`timed_rounds` parses the whole input with every system once per round, the order rotating, so that
a change in the machine's load touches every system alike.  Only the standard library is imported.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence


@dataclass
class Worker:
    """A running worker process and what it said when it was ready (``hello``)."""

    name: str
    process: subprocess.Popen
    hello: dict = field(default_factory=dict)

    def ask(self, command: str) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        return self.read()

    def read(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.name} worker stopped (exit status {self.process.wait()})")
        answer = json.loads(line)
        if "error" in answer:
            raise SystemExit(f"the {self.name} worker: {answer['error']}")
        return answer

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.ask("quit")
            except (BrokenPipeError, SystemExit, json.JSONDecodeError):
                pass
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start(name: str, command: List[str], env: Mapping[str, str], cwd: Path) -> Worker:
    """Start a worker and wait until it is ready (it has loaded its model and warmed up)."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=dict(env), cwd=cwd)
    worker = Worker(name, process)
    worker.hello = worker.read()
    return worker


def worker_environment(threads: int, wait_policy: str) -> Dict[str, str]:
    """This process's environment with ``threads`` OpenMP/MKL threads and ``wait_policy`` (``unset``: none)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    env.pop("OMP_WAIT_POLICY", None)
    if wait_policy != "unset":
        env["OMP_WAIT_POLICY"] = wait_policy
    return env


def python_usable(python: str, modules: str) -> Optional[str]:
    """None when ``python`` imports ``modules`` (``"a, b"``), else why not."""
    try:
        done = subprocess.run([python, "-c", f"import {modules}"], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    return None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["import failed"])[-1]


@dataclass(frozen=True)
class System:
    """One timed system: its label in the table, its worker and the command that parses the whole input."""

    label: str
    worker: Worker
    command: str = "parse"


def timed_rounds(systems: Sequence[System], rounds: int) -> Dict[str, List[dict]]:
    """Every system parses once per round, the first system of round r being ``systems[r % len]``."""
    timings: Dict[str, List[dict]] = {system.label: [] for system in systems}
    for index in range(rounds):
        shift = index % len(systems)
        for system in list(systems[shift:]) + list(systems[:shift]):
            timings[system.label].append(system.worker.ask(system.command))
    return timings


def print_table(count: int, timings: Mapping[str, List[dict]], reference: Optional[str], unit: str = "sent/s") -> None:
    """Each system's medians (items per second, wall and CPU seconds) and, per round, the reference system's
    wall and CPU time over this system's (medians over the rounds)."""
    rounds = len(next(iter(timings.values())))
    width = max(len(label) for label in timings) + 2
    head = f"{'system':<{width}}{unit:>9}{'wall s':>9}{'CPU s':>9}"
    if reference is not None:
        head += f"{'vs ' + reference.split()[0]:>14}{'CPU ratio':>11}"
    print(f"{head}   (medians of {rounds} rounds)")
    for label, runs in timings.items():
        wall = statistics.median(t["seconds"] for t in runs)
        cpu = statistics.median(t["cpu"] for t in runs)
        line = f"{label:<{width}}{count / wall:>9.1f}{wall:>9.2f}{cpu:>9.2f}"
        if reference is not None:
            base = timings[reference]
            line += f"{statistics.median(b['seconds'] / t['seconds'] for b, t in zip(base, runs)):>13.2f}x"
            line += f"{statistics.median(b['cpu'] / t['cpu'] for b, t in zip(base, runs)):>10.2f}x"
        print(line)
    if reference is not None:
        print(f"(vs {reference.split()[0]}: {reference}'s wall time over this system's, round by round; "
              "CPU ratio: the same with CPU time, all threads)")


def timed(parse: Callable[[], object]) -> dict:
    """Wall and CPU seconds of ``parse()``."""
    start, cpu = time.perf_counter(), time.process_time()
    parse()
    return {"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}


def serve(hello: dict, handlers: Mapping[str, Callable[[List[str]], dict]]) -> None:
    """The worker's side: say ``hello``, then answer each command line with its handler's JSON line."""
    print(json.dumps({"ready": True, **hello}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            return
        handler = handlers.get(words[0])
        answer = handler(words[1:]) if handler is not None else {"error": f"unknown command {words[0]!r}"}
        print(json.dumps(answer), flush=True)
