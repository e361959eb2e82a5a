"""One writer per run directory: the lock file ``RUN_DIR/run.lock``.

``mlparse run`` (rank 0 under DDP) holds it from before it touches the run directory until it
has written ``results.json``, so that two launches of one recipe never train into the same
checkpoints.  The file holds who holds it (process id, host, start time, command line) as JSON.

How it is held: an exclusive ``fcntl.flock`` on the open file.  The kernel drops the lock when
its process ends, however it ends (SIGKILL, the OOM killer), so liveness never depends on
process ids; on NFS, Linux turns ``flock`` into byte-range locks that the server keeps, so the
lock holds across machines and lapses with the lease of a machine that died.  A file left behind
by a process that did not release it (killed) names a holder that no longer holds the lock: it
is taken over, with a note.  Released, the file is removed (the holder unlinks it while still
holding it; an acquirer checks that the file it locked is still the one at ``run.lock``).

Where the file system has no ``flock`` (some Lustre and FUSE mounts: ENOLCK, ENOSYS,
EOPNOTSUPP), the file is created with ``O_CREAT | O_EXCL`` instead and a holder is alive when its
process exists on this host (with the same start time, against a reused process id); a holder
on another machine cannot be checked from here and is never taken over: the message says to
delete the file once that process is known to be gone.  NFS mounts with ``nolock`` keep
``flock`` local to each machine: there, launches on two machines are not kept apart.
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import socket
import sys
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Optional

from mlparse.run_dir import LOCK_NAME  # the run directory names its files

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


#: flock() errors that mean "this file system cannot lock": the exclusive-create scheme is used instead.
_NO_FLOCK = {errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL}


@dataclass(frozen=True)
class Holder:
    """Who holds (or held) a lock."""

    pid: int
    host: str
    started_at: str
    command: str = ""
    process_start: Optional[int] = None  # clock ticks after boot (Linux), to tell a reused process id

    @classmethod
    def me(cls) -> "Holder":
        return cls(os.getpid(), socket.gethostname(), datetime.now(timezone.utc).isoformat(timespec="seconds"),
                   shlex.join(["mlparse", *sys.argv[1:]])[:300], process_start(os.getpid()))

    @classmethod
    def parse(cls, text: str) -> Optional["Holder"]:
        try:
            data = json.loads(text)
            return cls(int(data["pid"]), str(data["host"]), str(data["started_at"]), str(data.get("command", "")),
                       data.get("process_start"))
        except (ValueError, KeyError, TypeError):
            return None

    def to_text(self) -> str:
        return json.dumps(asdict(self)) + "\n"

    @property
    def here(self) -> bool:
        return self.host == socket.gethostname()

    def describe(self) -> str:
        command = f", `{self.command}`" if self.command else ""
        return f"process {self.pid} on {self.host}, started {self.started_at}{command}"

    def alive(self) -> Optional[bool]:
        """Is the holding process still running?  None when that cannot be told (another machine)."""
        if not self.here:
            return None
        if not pid_running(self.pid):
            return False
        started = process_start(self.pid)
        return self.process_start is None or started is None or started == self.process_start


def pid_running(pid: int) -> bool:
    """Does process ``pid`` exist on this machine (a zombie does not count)?"""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    stat = _proc_stat(pid)
    return stat is None or stat[0] != "Z"


def process_start(pid: int) -> Optional[int]:
    """The process's start time in clock ticks after boot (Linux ``/proc/PID/stat`` field 22), or None."""
    stat = _proc_stat(pid)
    try:
        return int(stat[19]) if stat is not None else None
    except (IndexError, ValueError):
        return None


def _proc_stat(pid: int) -> Optional[list]:
    """The fields of ``/proc/PID/stat`` after the command name (state first), or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2:].split()


class RunLocked(RuntimeError):
    """Another process holds the run directory; the message names it and says how to wait or stop it."""

    def __init__(self, path: Path, holder: Optional[Holder], checkable: bool = True) -> None:
        folder = path.parent
        if holder is None:
            message = (f"{folder} is being written by another `mlparse run` (its lock file {path} does not say "
                       f"which); wait for it to finish, or delete {path} if you are sure nothing runs there")
        else:
            wait = (f"wait for it to finish (e.g. `tail --pid={holder.pid} -f /dev/null`)" if holder.here
                    else f"wait for it to finish")
            stop = (f"or stop it (`kill {holder.pid}`{'' if holder.here else ' on ' + holder.host}; "
                    "the same command resumes the run from its last checkpoint)")
            gone = "" if checkable else (f"; mlparse cannot check a process on another machine from here: if it "
                                         f"no longer runs, delete {path}")
            message = f"{folder} is being trained by another `mlparse run` ({holder.describe()}): {wait}, {stop}{gone}"
        super().__init__(message)
        self.holder = holder


class RunLock:
    """``with RunLock(run_dir) as lock:`` holds ``run_dir/run.lock``; ``lock.note`` says whether a lock left
    by a process that had died was taken over.  Raises :class:`RunLocked` when another process holds it."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / LOCK_NAME
        self.fd: Optional[int] = None
        self.note: Optional[str] = None
        self._inode: Optional[tuple] = None

    def __enter__(self) -> "RunLock":
        self.acquire()
        return self

    def __exit__(self, *args: object) -> None:
        self.release()

    def acquire(self) -> None:
        me = Holder.me()
        for _ in range(20):  # each retry follows a release or a takeover by somebody else: rare
            try:
                fd, created = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644), True
            except FileExistsError:
                try:
                    fd, created = os.open(self.path, os.O_RDWR), False
                except FileNotFoundError:  # released in between
                    continue
            try:
                locked = _flock(fd)
            except BaseException:
                os.close(fd)
                raise
            if locked is None:  # no flock on this file system: creating the file is the lock
                if created:
                    self._hold(fd, me)
                    return
                os.close(fd)
                self._take_over_if_gone()
                continue
            if not locked:
                holder = _read_holder(fd)
                os.close(fd)
                raise RunLocked(self.path, holder)
            if not _same_file(fd, self.path):  # the holder released (removed) it between our open and flock
                os.close(fd)
                continue
            previous = None if created else _read_holder(fd, wait=0.0)
            if previous is not None and previous.alive():  # flock has no effect here, yet the holder lives
                os.close(fd)
                raise RunLocked(self.path, previous)
            if previous is not None:
                self.note = (f"took over {self.path}, left by {previous.describe()}, which stopped without releasing "
                             "it (killed?)")
            self._hold(fd, me)
            return
        raise RunLocked(self.path, _read_holder_file(self.path))

    def _hold(self, fd: int, me: Holder) -> None:
        _write_holder(fd, me)
        self.fd, self._inode = fd, _inode(fd)

    def _take_over_if_gone(self) -> None:
        """Without flock: remove a lock file whose holder no longer runs on this machine, else refuse."""
        holder = _read_holder_file(self.path, wait=1.0)
        alive = holder.alive() if holder is not None else None
        if alive is not False:
            raise RunLocked(self.path, holder, checkable=alive is not None)
        if _read_holder_file(self.path, wait=0.0) == holder:  # still the same stale holder
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
            self.note = f"took over {self.path}, left by {holder.describe()}, which no longer runs"  # type: ignore[union-attr]

    def release(self) -> None:
        """Remove the lock file (if it is still ours) and let go of it."""
        if self.fd is None:
            return
        try:
            if _same_file(self.fd, self.path):
                os.unlink(self.path)
        except OSError:  # the run directory went away; nothing to release but the descriptor
            pass
        finally:
            os.close(self.fd)  # drops the flock
            self.fd = None


def check_free(folder: Path) -> None:
    """Raise :class:`RunLocked` if a live process holds ``folder``'s lock; changes nothing.  A quick first
    look (``mlparse run`` refuses before it loads torch); only :meth:`RunLock.acquire` makes it ours."""
    path = Path(folder) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:  # no lock file (or none we can open): acquire() will tell
        return
    try:
        locked = _flock(fd)
        if locked is False:
            raise RunLocked(path, _read_holder(fd))
        if locked is None:
            holder = _read_holder(fd)
            alive = holder.alive() if holder is not None else None
            if alive is not False:
                raise RunLocked(path, holder, checkable=alive is not None)
    finally:
        os.close(fd)  # drops a flock we may have taken


def held_by_a_live_process(folder: Path) -> bool:
    """Does a live process hold ``folder``'s run lock now (a run still training)? False when nobody holds it or its
    holder is gone (a run killed, interrupted, or on another machine whose holder cannot be checked counts as held);
    changes nothing."""
    try:
        check_free(folder)
    except RunLocked:
        return True
    return False


#: Seconds between looks at a run that another process holds (:func:`wait_until_free`).
LOCK_POLL_SECONDS = 10.0


def wait_until_free(folder: Path, what: str, note: Callable[[str], None]) -> None:
    """Return once no live process holds the run lock of ``folder``; ``note`` says once that this waits for ``what``
    (another parser run training the same tagger, say)."""
    _until_free(lambda: check_free(folder), what, note, LOCK_POLL_SECONDS)


#: Seconds between tries of a run's lock that another process holds (:func:`acquire_when_free`).
ACQUIRE_POLL_SECONDS = 2.0


def acquire_when_free(lock: RunLock, what: str, note: Callable[[str], None]) -> None:
    """Take ``lock``, waiting while another live process holds it; ``note`` says once that this waits for ``what``.
    Looking first (:func:`wait_until_free`) and locking later leaves a gap in which another process (a parser on the
    same data starting the same tagger) takes the lock: this takes it or waits, with no gap."""
    _until_free(lock.acquire, what, note, ACQUIRE_POLL_SECONDS)


def _until_free(attempt: Callable[[], None], what: str, note: Callable[[str], None], seconds: float) -> None:
    """Call ``attempt`` every ``seconds`` until it raises no :class:`RunLocked`; ``note`` says once what it waits for."""
    told = False
    while True:
        try:
            attempt()
            return
        except RunLocked as error:
            if not told:
                note(f"waiting for {what}: {error}")
                told = True
            time.sleep(seconds)


def _flock(fd: int) -> Optional[bool]:
    """Try an exclusive flock: True (got it), False (somebody holds it), None (the file system cannot lock)."""
    if fcntl is None:  # pragma: no cover - not POSIX
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as error:
        if error.errno in _NO_FLOCK:
            return None
        raise


def _inode(fd: int) -> tuple:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def _same_file(fd: int, path: Path) -> bool:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return False
    return (info.st_dev, info.st_ino) == _inode(fd)


def _write_holder(fd: int, holder: Holder) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, holder.to_text().encode("utf-8"), 0)
    os.fsync(fd)


def _read_holder(fd: int, wait: float = 1.0) -> Optional[Holder]:
    """The holder written in the open lock file; a file being written right now is read again for up to ``wait`` s."""
    deadline = time.monotonic() + wait
    while True:
        size = os.fstat(fd).st_size
        holder = Holder.parse(os.pread(fd, max(size, 1), 0).decode("utf-8", "replace")) if size else None
        if holder is not None or time.monotonic() >= deadline:
            return holder
        time.sleep(0.05)


def _read_holder_file(path: Path, wait: float = 1.0) -> Optional[Holder]:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_holder(fd, wait)
    finally:
        os.close(fd)
