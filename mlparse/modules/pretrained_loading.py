"""Finding and loading a pretrained model through ``transformers``, and telling copies of it apart.

``pretrained.model`` names a local directory (written by ``save_pretrained``: config, weights,
tokenizer) or a model hub name.  A directory is read with ``local_files_only``.  A hub name is read from
the local Hugging Face cache first; only when that fails and ``HF_HUB_OFFLINE`` (or
``TRANSFORMERS_OFFLINE``) is not set is the hub asked, once, within ``huggingface_hub``'s own time limits
(``HF_HUB_ETAG_TIMEOUT``, ``HF_HUB_DOWNLOAD_TIMEOUT``).  Any failure is one :class:`PretrainedError`
that names the model and says how to point at a local copy.

A *fingerprint* identifies what was loaded: sha256 of the model's configuration (without the keys that
name where it was read from or which ``transformers`` wrote it), of the tokenizer's vocabulary, and of the
weights (every tensor's name, dtype, shape and bytes).  Checkpoints record it, so that a frozen encoder
re-loaded by name is refused when it is not the one the parser was trained with.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Dict, Tuple

INSTALL_HINT = "pip install 'mlparse[pretrained]'"

#: Configuration keys that say where or by what a model was saved, not what it is.
VOLATILE_CONFIG_KEYS = ("transformers_version", "architectures", "dtype", "torch_dtype", "name_or_path")


class PretrainedError(ValueError):
    """A pretrained encoder that cannot be used (not installed, not found, not the one trained with)."""


def require_transformers() -> Any:
    """The ``transformers`` module, or :class:`PretrainedError` with the install hint."""
    try:
        import transformers
    except ImportError:
        raise PretrainedError(f"pretrained.model needs the 'transformers' package: {INSTALL_HINT}") from None
    return transformers


def offline() -> bool:
    """Is the hub switched off (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` set to a true value)?"""
    return any(os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")
               for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def looks_like_path(name: str) -> bool:
    """A name meant as a directory (absolute, relative with ./ or ../, under ~, or one that exists here)."""
    return name.startswith(("/", "./", "../", "~")) or Path(name).expanduser().exists()


def _not_found(name: str, reason: str) -> PretrainedError:
    return PretrainedError(
        f"pretrained model '{name}' could not be loaded ({reason}). Point pretrained.model at a local copy: a "
        f"directory holding its config, weights and tokenizer (transformers' save_pretrained writes one), e.g. "
        f"--set pretrained.model=/path/to/{Path(name).name or name}; or put it in the Hugging Face cache on a "
        f"machine with hub access and set HF_HUB_OFFLINE=1 here")


def _reason(error: BaseException) -> str:
    first = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return first[:200]


def load_parts(name: str, weights: bool = True) -> Tuple[Any, Any]:
    """``(model, tokenizer)`` for ``name`` (a directory or a hub name); ``weights=False`` builds the model
    from its configuration alone (random weights, to be replaced by a checkpoint's)."""
    transformers = require_transformers()
    transformers.utils.logging.disable_progress_bar()  # mlparse prints its own progress
    path = Path(name).expanduser()
    if looks_like_path(name) and not path.is_dir():
        raise _not_found(name, f"no directory {path}")
    source = str(path) if path.is_dir() else name
    attempts = [True] if (path.is_dir() or offline()) else [True, False]  # the cache, then (once) the hub
    error: BaseException = RuntimeError("not tried")
    for local_only in attempts:
        try:
            tokenizer = transformers.AutoTokenizer.from_pretrained(source, local_files_only=local_only)
            if getattr(tokenizer, "add_prefix_space", None) is False:  # byte-level BPE (RoBERTa, GPT-2): pre-split
                tokenizer = transformers.AutoTokenizer.from_pretrained(  # words need their leading space
                    source, local_files_only=local_only, add_prefix_space=True)
            if weights:
                model = transformers.AutoModel.from_pretrained(source, local_files_only=local_only)
            else:
                config = transformers.AutoConfig.from_pretrained(source, local_files_only=local_only)
                model = transformers.AutoModel.from_config(config)
            return model, tokenizer
        except Exception as caught:  # OSError, ValueError, hub errors: all mean "not usable from here"
            error = caught
    hint = "HF_HUB_OFFLINE is set and it is not in the local cache" if offline() and not path.is_dir() else _reason(error)
    raise _not_found(name, hint)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def config_fingerprint(model: Any) -> str:
    config = {k: v for k, v in model.config.to_dict().items()
              if k not in VOLATILE_CONFIG_KEYS and not k.startswith("_")}
    return _sha(json.dumps(config, sort_keys=True, default=str).encode("utf-8"))


def tokenizer_fingerprint(tokenizer: Any) -> str:
    vocab = sorted(tokenizer.get_vocab().items())
    specials = sorted(str(t) for t in getattr(tokenizer, "all_special_tokens", []))
    return _sha(json.dumps([vocab, specials, type(tokenizer).__name__], ensure_ascii=False).encode("utf-8"))


def weights_fingerprint(model: Any) -> str:
    import torch

    digest = hashlib.sha256()
    for key, tensor in sorted(model.state_dict().items()):
        value = tensor.detach().to("cpu").contiguous()
        digest.update(f"{key}|{value.dtype}|{tuple(value.shape)}|".encode("utf-8"))
        digest.update(value.reshape(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()


def fingerprint(model: Any, tokenizer: Any, weights: bool = True) -> Dict[str, str]:
    """``{"config", "tokenizer"[, "weights"]}`` sha256 digests (see the module doc)."""
    out = {"config": config_fingerprint(model), "tokenizer": tokenizer_fingerprint(tokenizer)}
    if weights:
        out["weights"] = weights_fingerprint(model)
    return out


def fingerprint_mismatch(saved: Dict[str, str], found: Dict[str, str]) -> str:
    """The parts (configuration, tokenizer, weights) in which ``found`` differs from ``saved``; "" when none."""
    names = {"config": "configuration", "tokenizer": "tokenizer", "weights": "weights"}
    return ", ".join(names[k] for k in names if k in saved and k in found and saved[k] != found[k])


def save_copy(saved: Dict[str, Any], folder: Path) -> None:
    """Write a local copy of the pretrained model a parser spec names (its ``pretrained`` entry) to ``folder``
    (``save_pretrained``): tokenizer and configuration, and the weights too when the encoder is frozen (a
    fine-tuned parser's are in its own weights).  Refuses a model whose fingerprint differs from the spec's."""
    config = saved["config"]
    frozen = not config.get("fine_tune", False)
    model, tokenizer = load_parts(config["model"], weights=frozen)
    differs = fingerprint_mismatch(saved.get("fingerprint", {}), fingerprint(model, tokenizer, weights=frozen))
    if differs:
        raise PretrainedError(f"pretrained model '{config['model']}' is not the one this parser was trained with: its "
                              f"{differs} differ from the fingerprint the checkpoint recorded")
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save_pretrained(str(folder))
    if frozen:
        model.save_pretrained(str(folder))
    else:
        model.config.save_pretrained(str(folder))


def with_local_copy(spec: Dict[str, Any], folder: Path) -> Dict[str, Any]:
    """``spec`` with its pretrained encoder read from ``folder`` (a package's copy) instead of the name it was trained with."""
    entry = dict(spec["pretrained"])
    entry["config"] = {**entry["config"], "model": str(folder)}
    return {**spec, "pretrained": entry}
