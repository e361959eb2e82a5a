"""A peer's process group never outlives its command (mlparse/external/process.py): children a peer forked and
left running are ended after its normal exit, and a second SIGTERM while the group is being stopped does not
leave it running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from mlparse.external.process import run_bounded


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped by its parent) counts as ended
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return True


def ended_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


FORKS_AND_EXITS = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
open(sys.argv[1], "w").write(str(child.pid))
"""


def test_a_child_left_running_after_a_normal_exit_is_ended(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    outcome = run_bounded([sys.executable, "-c", FORKS_AND_EXITS, str(pid_file)], tmp_path / "log", 60)
    assert outcome.ok and not outcome.stopped
    assert ended_within(int(pid_file.read_text()), 3.0)  # before: it ran on with parent pid 1


DEAF_PEER = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
open(sys.argv[1], "w").write(str(__import__("os").getpid()))
time.sleep(120)
"""

MLPARSE_SIDE = """
import sys
from pathlib import Path
from mlparse.external.process import run_bounded
run_bounded([sys.executable, "-c", sys.argv[1], sys.argv[2]], Path(sys.argv[3]), None, stop_seconds=1.0)
"""


def test_a_second_sigterm_while_stopping_does_not_leave_the_peer_running(tmp_path: Path) -> None:
    """mlparse gets SIGTERM, then another 0.3 s later while it stops a peer deaf to SIGINT and SIGTERM: the peer is
    still killed (SIGKILL after the grace) before mlparse exits."""
    pid_file = tmp_path / "peer.pid"
    mlparse = subprocess.Popen([sys.executable, "-c", MLPARSE_SIDE, DEAF_PEER, str(pid_file), str(tmp_path / "log")])
    deadline = time.monotonic() + 30
    while not pid_file.is_file() or not pid_file.read_text():
        assert time.monotonic() < deadline and mlparse.poll() is None
        time.sleep(0.05)
    peer = int(pid_file.read_text())
    mlparse.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    mlparse.send_signal(signal.SIGTERM)  # the second one, while the group is being stopped
    mlparse.wait(timeout=30)
    assert ended_within(peer, 2.0)


def test_a_peer_that_printed_nothing_is_said_to_have_printed_nothing(tmp_path: Path) -> None:
    from mlparse.external.runner import last_lines

    log = tmp_path / "train.log"
    outcome = run_bounded([sys.executable, "-c", "pass"], log, 60, title="training")
    assert outcome.ok
    said = last_lines(log)
    assert said.startswith("it printed nothing") and str(log) in said and "last lines" not in said  # no empty quote
    run_bounded([sys.executable, "-c", "print('loss 1.0\\x1b[31m')"], log, 60, title="training")
    said = last_lines(log)
    assert said.startswith("its last lines:\n  | loss 1.0?[31m") and "\x1b" not in said
