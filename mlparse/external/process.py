"""A peer's command run to its end or to its bound, with its output in a log file.

The command runs without a shell, in a process group of its own (so that everything it starts is stopped
with it), its standard output and error appended to the log.  At its bound it is asked to stop as a user
would (SIGINT: peers that train by epochs keep their best model), then SIGTERM and SIGKILL after
``stop_seconds``.  An interrupt of mlparse itself (Ctrl-C, a kill) stops the peer's group the same way before
it is passed on, and a SIGKILL of mlparse reaches the peer as SIGTERM (Linux's parent-death signal), so that no
peer is left training behind a stopped run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Optional, Sequence

from mlparse.external.commands import shown

#: Lines of a peer's log that a failure message quotes.
TAIL_LINES = 12
#: Seconds a peer gets after SIGTERM before SIGKILL.
KILL_AFTER_TERM = 5.0


@dataclass(frozen=True)
class Outcome:
    """How a command ended: its exit status (negative: the signal that ended it), its wall seconds, and whether
    it was stopped at its bound."""

    returncode: int
    seconds: float
    stopped: bool
    how: str = ""  # how it was stopped: "SIGINT", "SIGTERM" or "SIGKILL" (empty: it ended on its own)
    started_at: float = 0.0  # time.time() when it started (a file's mtime is on this clock)
    stopped_at: Optional[float] = None  # time.time() when it was told to stop at its bound (None: it was not)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.stopped


#: The header line mlparse writes before each command's output in a log, and the line after a command it stopped.
HEADER = "=== mlparse: "
STOPPED = "--- mlparse: stopped"


def run_bounded(words: Sequence[str], log: Path, seconds: Optional[float], stop_seconds: float = 30.0,
                cwd: Optional[Path] = None, env: Optional[Mapping[str, str]] = None, title: str = "") -> Outcome:
    """Run ``words`` until it ends or ``seconds`` pass (None: no bound), its output appended to ``log`` after a
    header line (``title`` and the command).  A command that cannot start raises :class:`OSError`.  While it runs,
    SIGTERM to mlparse (a sweep stopping its member, ``kill``) is an interrupt: the peer's group is stopped as at
    its bound, then the interrupt goes on."""
    log.parent.mkdir(parents=True, exist_ok=True)
    started, started_at = time.monotonic(), time.time()
    with open(log, "a", encoding="utf-8") as handle, _sigterm_interrupts():
        handle.write(f"\n{HEADER}{time.strftime('%Y-%m-%d %H:%M:%S')} {title}\n$ {shown(words)}\n")
        handle.flush()
        process = None
        try:
            process = subprocess.Popen(list(words), stdout=handle, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       cwd=str(cwd) if cwd is not None else None,
                                       env=dict(env) if env is not None else None, start_new_session=True,
                                       preexec_fn=_child_setup(os.getpid()))
            timeout = None if seconds is None else max(0.0, seconds)
            try:
                code = process.wait(timeout=timeout)
                _reap_group(process.pid)  # what it forked and left running ends with it
                return Outcome(code, time.monotonic() - started, False, started_at=started_at)
            except subprocess.TimeoutExpired:
                if process.poll() is not None:  # it ended on its own as the bound came: not stopped
                    _reap_group(process.pid)
                    return Outcome(process.returncode, time.monotonic() - started, False, started_at=started_at)
                stopped_at = time.time()
                how = stop_group(process, stop_seconds)
                handle.write(f"\n{STOPPED} at its bound of {seconds:.0f} s ({how})\n")
                return Outcome(process.returncode, time.monotonic() - started, True, how, started_at, stopped_at)
        except BaseException:  # mlparse is interrupted: the peer is not left behind, a second signal or not
            if process is not None:
                with _signals_held():
                    if process.poll() is None:
                        stop_group(process, min(stop_seconds, 10.0))
                    else:
                        _reap_group(process.pid)
            raise


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt while the block runs (in the main thread; elsewhere nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt("SIGTERM")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _prctl() -> Optional[Callable[..., int]]:
    """libc's prctl, loaded in the parent (a forked child of a threaded process must not load libraries)."""
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl  # type: ignore[no-any-return]
    except (OSError, AttributeError):  # not Linux
        return None


_PRCTL = _prctl()
PR_SET_PDEATHSIG = 1


def _child_setup(parent: int) -> Callable[[], None]:
    """What the child does before the peer starts (its own session is ``start_new_session``'s): SIGINT back to its
    default (a background shell job ignores it, and so would the peer), and on Linux SIGTERM when mlparse dies
    without a chance to stop it (a SIGKILL); a child whose parent died before that exits at once."""
    prctl = _PRCTL

    def setup() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            if os.getppid() != parent:
                os._exit(1)

    return setup


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM ignored while the block runs (in the main thread): a second Ctrl-C or kill while the peer's
    group is being stopped must not cut the stop short and leave the group running."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def stop_group(process: "subprocess.Popen[bytes]", stop_seconds: float) -> str:
    """Stop ``process`` and its group: SIGINT, SIGTERM after ``stop_seconds``, SIGKILL after
    :data:`KILL_AFTER_TERM` more; returns the signal that ended it."""
    for sig, wait in ((signal.SIGINT, stop_seconds), (signal.SIGTERM, KILL_AFTER_TERM), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=wait)
            _reap_group(process.pid)
            return sig.name
        except subprocess.TimeoutExpired:
            continue
    return "SIGKILL"


def _reap_group(pgid: int) -> None:
    """Whatever the peer left running in its group (workers of a data loader) is killed."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def tail(log: Path, lines: int = TAIL_LINES) -> str:
    """The last ``lines`` lines of ``log`` written by its last command (after its header line), each cut at 300
    characters: what a failure message quotes."""
    try:
        with open(log, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 64 * 1024))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    own = text.rsplit("\n" + HEADER, 1)  # the last command's output: after its header line (and its command)
    if len(own) == 2:
        text = own[1].split("\n", 2)[2] if own[1].count("\n") >= 2 else ""
    text = "\n".join(line for line in text.split("\n") if not line.startswith(STOPPED))
    kept = [line[:300] for line in text.strip("\n").split("\n")[-lines:]]
    return "\n".join(kept)
