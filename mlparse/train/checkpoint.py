"""Checkpoints: plain data, written atomically, read without running anything.

A checkpoint (format 2) is a dict of tensors and plain values (str, int, float, bool, None, and
lists, tuples and dicts of them), saved with ``torch.save``::

    format: "mlparse-checkpoint", format_version: 2
    spec:       {model_config, vocab, labels, versions}   JSON-able: what SpanParser.from_spec needs
    model:      the state dict (tensors): the weights that evaluation and export load
    optimizer, schedule, state (the trainer's TrainState as a dict), rng, recipe_hash, recipe
    training_weights: only with ``train.ema_decay``: the trained state dict, ``model`` being its moving
                average (:mod:`mlparse.train.weight_average`); a resumed run continues from it

Every read goes through :func:`load`, which uses ``torch.load(weights_only=True)``: its unpickler
builds tensors and plain containers only, so a file that holds anything else is refused
(:class:`UntrustedCheckpoint`) and nothing in it runs.  Before unpickling, the checksums of the
zip archive that ``torch.save`` writes are verified (torch itself does not check them), so a
truncated or damaged file is named as such (:class:`CorruptCheckpoint`) instead of loading
wrong weights.

Format 1 (mlparse 0.1.0 before this module's format version) pickled NumPy's random state as
an array: such a ``last.pt`` is refused as :class:`OldFormatCheckpoint` until ``mlparse upgrade``
converts it (:mod:`mlparse.train.checkpoint_legacy`), or read in full with ``trust=True``
(``--trust-checkpoint``).  A format-1 ``best.pt`` is plain data already and loads as it is.

Writes are atomic (:func:`mlparse.io_utils.atomic_write_binary`): a process killed at any moment
leaves the previous file or the new one, and a failed write (a full disk) raises
:class:`mlparse.io_utils.WriteError` naming the file, with the previous file intact.
:class:`mlparse.run_dir.CheckpointFiles` names the two files a run keeps.
"""

from __future__ import annotations

import errno
import io
import os
import pickle
import random
import secrets
import warnings
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Union

import numpy as np
import torch

from mlparse.io_utils import WriteError, atomic_write_binary, atomic_write_bytes
from mlparse.run_dir import CheckpointFiles  # noqa: F401  (the run directory names the files; here for callers)

FORMAT = "mlparse-checkpoint"
FORMAT_VERSION = 2

PathLike = Union[str, Path]
Warn = Callable[[str], None]


# -- errors --------------------------------------------------------------------------------------------

class CheckpointError(ValueError):
    """A file that cannot be used as a checkpoint; ``str()`` is ``<path>: <reason>``."""

    def __init__(self, path: PathLike, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = Path(path)
        self.reason = reason


class CorruptCheckpoint(CheckpointError):
    """Empty, truncated, or damaged (a checksum does not match); or not a checkpoint at all."""


class UntrustedCheckpoint(CheckpointError):
    """The file holds pickled objects that only running code could rebuild; nothing was run.
    ``summary`` says what it holds in a few words."""

    def __init__(self, path: PathLike, reason: str, summary: str = "it holds pickled objects") -> None:
        super().__init__(path, reason)
        self.summary = summary


class OldFormatCheckpoint(UntrustedCheckpoint):
    """A format-1 checkpoint: plain data plus NumPy arrays; ``mlparse upgrade`` converts it."""


# -- plain data ----------------------------------------------------------------------------------------

_SCALARS = (str, int, float, bool, type(None))


def require_plain(value: Any, where: str = "checkpoint") -> None:
    """Raise TypeError unless ``value`` is tensors, plain scalars, and dicts, lists and tuples of them:
    what ``torch.load(weights_only=True)`` reads back.  Checked at save time, so that an object slipped
    into a checkpoint fails where it is written, not on somebody else's machine."""
    stack = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, torch.Tensor) or type(item) in _SCALARS:
            continue
        if type(item) in (dict, OrderedDict):  # a state dict is an OrderedDict; no other dict subclass reads back
            for key, child in item.items():
                if type(key) not in (str, int):
                    raise TypeError(f"{path}: key {key!r} of type {type(key).__name__} is not plain data")
                stack.append((child, f"{path}.{key}"))
        elif type(item) in (list, tuple):
            stack.extend((child, f"{path}[{k}]") for k, child in enumerate(item))
        else:
            raise TypeError(f"{path}: {type(item).__module__}.{type(item).__qualname__} is not plain data "
                            "(a checkpoint holds tensors, numbers, strings, lists and dicts only)")


# -- writing -------------------------------------------------------------------------------------------

class _Recorder:
    """A write handle that remembers the OSError of a failed write: torch.save reports it as a
    RuntimeError of its own ('unexpected pos ...'), which would hide a full disk."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.error: Optional[OSError] = None

    def write(self, data: bytes) -> int:
        try:
            return self.handle.write(data)
        except OSError as error:
            self.error = self.error or error
            raise

    def flush(self) -> None:
        self.handle.flush()


def _torch_save(data: Dict[str, Any], handle: IO[bytes]) -> None:
    recorder = _Recorder(handle)
    try:
        torch.save(data, recorder)  # type: ignore[arg-type]
    except RuntimeError:
        if recorder.error is not None:
            raise recorder.error from None
        raise


def save(payload: Dict[str, Any], path: PathLike) -> None:
    """Write ``payload`` (plain data, see :func:`require_plain`) as a format-2 checkpoint, atomically."""
    data = {**payload, "format": FORMAT, "format_version": FORMAT_VERSION}
    require_plain(data)
    atomic_write_binary(path, lambda handle: _torch_save(data, handle))


def to_bytes(payload: Dict[str, Any]) -> bytes:
    """What :func:`save` would write, in memory."""
    data = {**payload, "format": FORMAT, "format_version": FORMAT_VERSION}
    require_plain(data)
    buffer = io.BytesIO()
    torch.save(data, buffer)
    return buffer.getvalue()


#: link() errors that mean "this file system has no hard links": the copy is written instead.
_NO_HARD_LINKS = {errno.EPERM, errno.EXDEV, errno.EMLINK, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP}


def save_copy(source: PathLike, target: PathLike, payload: Dict[str, Any]) -> None:
    """Make ``target`` hold what ``save(payload, source)`` just wrote: a hard link renamed into place
    (no second write of the data), or, where the file system has no hard links, a second write."""
    source, target = Path(source), Path(target)
    temporary = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        os.link(source, temporary)
    except OSError as error:
        if error.errno in _NO_HARD_LINKS:
            save(payload, target)
            return
        raise WriteError(error.errno, error.strerror or os.strerror(error.errno), str(target)) from error
    try:
        os.replace(temporary, target)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise WriteError(error.errno or errno.EIO, error.strerror or str(error), str(target)) from error
        raise


# -- reading -------------------------------------------------------------------------------------------

def verify(path: PathLike, handle: Optional[IO[bytes]] = None) -> None:
    """Raise :class:`CorruptCheckpoint` unless ``path`` (read through ``handle`` when given) is a complete
    zip archive whose checksums match."""
    path = Path(path)
    try:
        if handle is None:
            with open(path, "rb") as own:
                return verify(path, own)
        size = os.fstat(handle.fileno()).st_size
        handle.seek(0)
        head = handle.read(4)
    except OSError as error:
        raise CorruptCheckpoint(path, f"cannot be read ({error.strerror or error})") from None
    if size == 0:
        raise CorruptCheckpoint(path, "is empty (0 bytes): truncated")
    if head != b"PK\x03\x04":
        raise CorruptCheckpoint(path, "not an mlparse checkpoint (not an archive written by torch.save)")
    try:
        with zipfile.ZipFile(handle) as archive:
            bad = archive.testzip()
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError) as error:
        raise CorruptCheckpoint(path, f"is truncated or damaged: the end of its archive is missing or unreadable "
                                      f"({size:,} bytes; {error})") from None
    if bad is not None:
        raise CorruptCheckpoint(path, f"is corrupted: the checksum of its part {bad} does not match")


def load(path: PathLike, map_location: Union[str, torch.device] = "cpu", trust: bool = False,
         warn: Optional[Warn] = None) -> Dict[str, Any]:
    """The checkpoint at ``path`` in format 2, read with ``torch.load(weights_only=True)``.

    Raises :class:`CorruptCheckpoint` (empty, truncated, damaged, not a checkpoint),
    :class:`UntrustedCheckpoint` (it would need code to run; :class:`OldFormatCheckpoint` for mlparse's
    format 1) or :class:`CheckpointError` (written by a newer mlparse).  With ``trust``, a file the safe
    reader refuses is unpickled in full after ``warn`` (default: :func:`warnings.warn`) says why that
    is dangerous; it is still checked to hold checkpoint data.
    """
    return as_current(path, read_raw(path, map_location, trust=trust, warn=warn))


def read_raw(path: PathLike, map_location: Union[str, torch.device] = "cpu", trust: bool = False,
             warn: Optional[Warn] = None, old_format: bool = False) -> Any:
    """What the file at ``path`` holds, as unpickled, unchecked (see :func:`load`).

    ``old_format``: a format-1 file is read too, with the safe reader allowed to build the NumPy
    arrays of that format and nothing else (``mlparse upgrade``; no code in the file runs).
    """
    path = Path(path)
    if not path.is_file():
        raise CorruptCheckpoint(path, "not found")
    try:
        handle = open(path, "rb")  # one open file for the checks and the reading: a file renamed over
    except OSError as error:      # path meanwhile (a run writing best.pt) is not half seen
        raise CorruptCheckpoint(path, f"cannot be read ({error.strerror or error})") from None
    with handle:
        verify(path, handle)
        return _unpickle(path, handle, map_location, trust, warn, old_format)


def _unpickle(path: Path, handle: IO[bytes], map_location: Union[str, torch.device], trust: bool,
              warn: Optional[Warn], old_format: bool) -> Any:
    def torch_load(weights_only: bool) -> Any:
        handle.seek(0)
        return torch.load(handle, map_location=map_location, weights_only=weights_only)

    try:
        return torch_load(weights_only=True)
    except pickle.UnpicklingError as error:
        refusal = _refusal(path, handle, error)
        if old_format and isinstance(refusal, OldFormatCheckpoint):
            from mlparse.train.checkpoint_legacy import old_format_globals

            try:
                with torch.serialization.safe_globals(old_format_globals()):
                    return torch_load(weights_only=True)
            except pickle.UnpicklingError:
                raise refusal from None
        if not trust:
            raise refusal from None
        (warn or _warn)(f"{path}: {refusal.summary}; --trust-checkpoint reads it by unpickling it in full, which runs "
                        "any code the file carries: do this only with files you trust (`mlparse upgrade RUN_DIR` "
                        "converts mlparse's old checkpoints once, without running anything)")
        try:
            return torch_load(weights_only=False)
        except Exception as failure:  # anything may go wrong in a full unpickling
            raise CorruptCheckpoint(path, f"not an mlparse checkpoint ({_first_line(failure)})") from None
    except Exception as error:  # a zip that is not torch's layout, a tensor record missing, ...
        raise CorruptCheckpoint(path, f"not an mlparse checkpoint ({_first_line(error)})") from None


def as_current(path: PathLike, data: Any) -> Dict[str, Any]:
    """``data`` (as unpickled) checked and, when it is format 1, converted to format 2 in memory."""
    if not isinstance(data, dict) or not isinstance(data.get("spec"), dict) or not isinstance(data.get("model"), dict):
        raise CorruptCheckpoint(path, "not an mlparse checkpoint (it holds no model spec and weights)")
    if "format" not in data:
        from mlparse.train.checkpoint_legacy import convert

        data = convert(data)
        data["format"], data["format_version"] = FORMAT, FORMAT_VERSION
    elif data.get("format") != FORMAT or not isinstance(data.get("format_version"), int):
        raise CorruptCheckpoint(path, "not an mlparse checkpoint (unknown format field)")
    elif data["format_version"] > FORMAT_VERSION:
        raise CheckpointError(path, f"written by a newer mlparse (checkpoint format {data['format_version']}; this "
                                    f"version reads up to {FORMAT_VERSION}): upgrade mlparse to read it")
    try:
        require_plain(data)
    except TypeError as error:  # only reachable through a trusted full unpickling
        raise UntrustedCheckpoint(path, f"holds objects that are not checkpoint data ({error})") from None
    return data


def _refusal(path: Path, handle: IO[bytes], error: Exception) -> UntrustedCheckpoint:
    """Why the safe reader refused ``path``: the pickled globals it names (read by scanning the pickle, not running it)."""
    from mlparse.train.checkpoint_legacy import OLD_FORMAT_GLOBALS

    try:
        handle.seek(0)
        names: List[str] = list(torch.serialization.get_unsafe_globals_in_checkpoint(handle))
    except Exception:  # a pickle the scanner cannot follow: torch's own refusal is the reason
        names = []
    if names and set(names) <= OLD_FORMAT_GLOBALS:
        return OldFormatCheckpoint(path, "is in mlparse's old checkpoint format (format 1, which pickles a NumPy "
                                         "array); `mlparse upgrade RUN_DIR` converts it without running anything in "
                                         "it, or --trust-checkpoint reads it as it is (only for files you trust)",
                                   "it is in mlparse's old checkpoint format (format 1, with a pickled NumPy array)")
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "") if names else _first_line(error)
    return UntrustedCheckpoint(path, f"refused: it holds pickled objects that only running code could rebuild "
                                     f"({shown}); an mlparse checkpoint holds tensors and plain data only. "
                                     "Nothing in the file was run", f"it holds pickled objects ({shown})")


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    line = text.splitlines()[0][:200] if text else ""
    return f"{type(error).__name__}: {line}" if line else type(error).__name__


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)


# -- random states -------------------------------------------------------------------------------------

def rng_state() -> Dict[str, Any]:
    """The Python, NumPy, torch and CUDA generator states as plain data (NumPy's key as an int64 tensor)."""
    name, key, position, has_gauss, cached_gaussian = np.random.get_state()
    state: Dict[str, Any] = {
        "python": random.getstate(),
        "numpy": (str(name), torch.from_numpy(np.asarray(key, dtype=np.int64)), int(position), int(has_gauss),
                  float(cached_gaussian)),
        "torch": torch.get_rng_state(),
    }
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: Dict[str, Any]) -> None:
    """Restore :func:`rng_state`.  Generator states must be CPU byte tensors: a checkpoint loaded with
    ``map_location="cuda"`` carries them on the GPU, so they are brought back first."""
    random.setstate(_tuples(state["python"]))
    name, key, position, has_gauss, cached_gaussian = state["numpy"]
    key = key.cpu().numpy() if isinstance(key, torch.Tensor) else key
    np.random.set_state((name, np.asarray(key, dtype=np.uint32), position, has_gauss, cached_gaussian))
    torch.set_rng_state(state["torch"].cpu())
    if "cuda" in state and torch.cuda.is_available():
        saved = [s.cpu() for s in state["cuda"]]
        if len(saved) == torch.cuda.device_count():
            torch.cuda.set_rng_state_all(saved)
        else:  # resumed on a machine with another number of GPUs: restore what matches
            for index, generator_state in enumerate(saved[: torch.cuda.device_count()]):
                torch.cuda.set_rng_state(generator_state, index)


def _tuples(value: Any) -> Any:
    """``random.setstate`` wants tuples all the way down."""
    return tuple(_tuples(v) for v in value) if isinstance(value, (list, tuple)) else value


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


def upgrade_file(path: Union[str, Path], trust: bool = False, warn: Optional[Warn] = None) -> Optional[int]:
    """Rewrite the checkpoint at ``path`` in the current format; returns the format it held, or None
    when it is current already.  Nothing in the file runs unless ``trust`` (for files that hold more than a
    format-1 checkpoint does).  The new file is checked to read back with the safe reader, to the same
    tensors, before it replaces the old one (atomically)."""
    raw = read_raw(path, trust=trust, warn=warn, old_format=True)
    data = as_current(path, raw)
    if isinstance(raw, dict) and raw.get("format") == FORMAT:
        return None
    payload = {k: v for k, v in data.items() if k not in ("format", "format_version")}
    encoded = to_bytes(payload)
    again = as_current(path, torch.load(io.BytesIO(encoded), map_location="cpu", weights_only=True))
    if again["model"].keys() != data["model"].keys() or not all(torch.equal(again["model"][k], data["model"][k])
                                                              for k in data["model"]):
        raise CheckpointError(path, "the converted checkpoint did not read back the same; left unchanged")
    atomic_write_bytes(path, encoded)
    return 1
