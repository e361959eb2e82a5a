"""Recipe schema: the typed section dataclasses, value coercion, and the checks on a resolved recipe.

:func:`mlparse.config.validation.from_dict` turns merged plain data (see :mod:`mlparse.config.loading`)
into a :class:`RecipeConfig` with :func:`build_section`: every key must be a field of its section (an
unknown key is an error naming the valid keys and the closest match), every value must fit the field's
type, and :func:`mlparse.config.validation.validate` refuses values that would only fail hours into a run.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import math
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union, get_args, get_origin, get_type_hints

import yaml

from mlparse.config import kinds
from mlparse.config.hashing import hash_payload

class ConfigError(ValueError):
    """A recipe problem, with a message meant for the user (no traceback)."""


@dataclass
class DataConfig:
    """Where the prepared splits are and how they are scored."""

    family: str = "ptb-sample"  # treebank family: ptb, ptb-sample, spmrl, free, ...
    language: str = "english"
    root: str = "data"  # prepared data lives in <root>/<family>/<language>/
    train: Optional[str] = None  # explicit paths override <root>/<family>/<language>/<split>.trees
    dev: Optional[str] = None
    test: Optional[str] = None
    evalb_params: str = "COLLINS.prm"  # file name in evalb/params, or a path
    max_train_sentences: Optional[int] = None  # use only the first N training trees (quick runs)
    max_train_length: Optional[int] = None  # drop longer training sentences (reported in the log)
    eval_tags: str = "gold"  # POS tags a model.use_tags model gets on dev/test: gold (the trees') | predicted (tag files)
    dev_tags: Optional[str] = None  # predicted dev tags: one line of tags per sentence, or bracketed trees
    test_tags: Optional[str] = None  # predicted test tags, same formats (mlparse/train/tag_files.py)
    folds: Optional[int] = None  # jack-knifing: train on (N-1)/N of the training file (mlparse/train/folds.py)
    fold: Optional[int] = None  # which fold (0..folds-1) is held out
    fold_assignment: str = "auto"  # auto: blocks for the folds of data.tags: jackknife, modulo for a run's own data.fold | blocks: N contiguous blocks of the file | modulo: sentence i is in fold i mod N | permutation: a permutation seeded by fold_seed
    fold_seed: int = 1  # the permutation's seed (the same for every member, so that the folds partition)
    tags: str = "gold"  # input POS tags: gold (the data's) | jackknife (a built-in tagger's, mlparse/train/jackknife.py) | files (data.dev_tags/test_tags, as data.eval_tags: predicted) | none (no tag input: model.use_tags is turned off; a tagging head, biaffine.predict_tags or span.predict_tags, can predict them)

    def folds_by(self) -> str:
        """How folds of this data's training file are cut (:mod:`mlparse.train.folds`): ``fold_assignment``, with
        ``auto`` resolved: ``blocks`` for the taggers of jack-knifed tags (``tags: jackknife``), whose held-out
        fold must hold out whole documents; ``modulo`` for a run's own fold (``folds``/``fold``, as before
        ``blocks`` existed, so those runs keep their meaning and ids)."""
        if self.fold_assignment != "auto":
            return self.fold_assignment
        return "blocks" if self.tags == "jackknife" else "modulo"

    def split_path(self, split: str, suffix: str = ".trees") -> Path:
        """The prepared file of ``split``; ``suffix`` is the task's (``.trees``, ``.conllu``)."""
        explicit = getattr(self, split)
        if explicit:
            return Path(explicit)
        return Path(self.root) / self.family / self.language / f"{split}{suffix}"


@dataclass
class ModelConfig:
    """Which parser, and the encoder every kind shares: lexical input, the self-attentive encoder and its
    dropouts (Kitaev & Klein 2018, Table 8). Each kind's own head is in its own section
    (:func:`sections_of_kind`): ``span:`` (:class:`SpanConfig`), ``biaffine:``, ``joint:``, ``tagger:``.

    Who reads what (``mlparse/models``; a key is read the same way by every kind that reads it): every kind
    reads ``kind``, ``use_words``, ``use_tags`` (the tagger refuses it), ``char_encoder``, ``d_char_emb``,
    ``char_input_dropout``, ``num_layers``, ``d_model``, ``num_heads``, ``d_kv``, ``d_ff``, ``factored``,
    ``max_len``, ``attention_dropout``, ``relu_dropout``, ``residual_dropout`` and ``word_min_count``. The
    span and joint parsers (one lexical layer and encoder, :class:`~mlparse.models.span_parser.SpanParser`)
    alone read ``char_concat_letters``, ``attention_window(_relaxed)``, ``word_emb_dropout``,
    ``tag_emb_dropout`` and ``morpho_emb_dropout`` (the biaffine parser and the tagger drop their lexical
    vectors with ``biaffine.embedding_dropout`` / ``tagger.embedding_dropout``); ``encoder`` and
    ``positions`` other than transformer / learned are the biaffine parser's and the tagger's
    (:class:`~mlparse.models.dep_input.DependencyInput`; with ``encoder: bilstm`` the transformer's
    sizes are unread).
    """

    kind: str = "span"  # span | biaffine | joint | tagger, or a registered kind: which parser (mlparse.config.kinds)
    encoder: str = "transformer"  # transformer (self-attentive) | bilstm (Dozat & Manning; biaffine and tagger only)
    positions: str = "learned"  # learned table (Kitaev & Klein) | sinusoidal (Li et al. 2019, Eq. 8)
    use_words: bool = True  # learned word embeddings
    use_tags: bool = False  # tag embeddings from the input trees' POS tags
    char_encoder: str = "lstm"  # lstm | concat | none
    d_char_emb: int = 64  # 64 for CharLSTM, 32 for CharConcat (Table 8)
    char_concat_letters: int = 8  # CharConcat: first and last N letters; 2·N·d_char_emb ≤ content size (d_model/2 factored)
    num_layers: int = 8
    d_model: int = 1024  # content half ‖ position half when factored
    num_heads: int = 8
    d_kv: int = 64  # d_k = d_v
    d_ff: int = 2048
    factored: bool = True  # content/position factoring (Section 3); false: unfactored model
    attention_window: Optional[int] = None  # train and test with attention limited to this distance (Table 3); null: none
    attention_window_relaxed: bool = False  # the window spares start, first word, last word and stop (Table 3, relaxed)
    max_len: int = 512  # position-table size; longest sentence (+2 for start/stop tokens)
    attention_dropout: float = 0.2
    relu_dropout: float = 0.1
    residual_dropout: float = 0.2
    word_emb_dropout: float = 0.4
    tag_emb_dropout: float = 0.2
    morpho_emb_dropout: float = 0.2  # CharLSTM/CharConcat output
    char_input_dropout: float = 0.2  # character embeddings at the CharLSTM input
    word_min_count: int = 1  # rarer training words are UNK


@dataclass
class SpanConfig:
    """The span scoring head and its auxiliary tagging head (Kitaev & Klein 2018, §2.1 and §5): the
    section of ``model.kind: span`` and ``model.kind: joint`` (:func:`sections_of_kind`), read by
    :class:`mlparse.models.span_parser.SpanParser` and the joint parser built on it (its Label Attention
    Layer's head-wise span scorer, :mod:`mlparse.models.joint_parser`). The other kinds have no span
    head and ignore the section (a biaffine recipe built on a span recipe inherits it unread), but it
    still counts in their run ids, as it did inside ``model:`` (:func:`mlparse.config.hashing.hash_payload`).

    Until layout 2 of the recipe these keys were in ``model:``; such recipes still load (the keys move
    here, :func:`mlparse.config.layout.migrate_layout`) and hash as they always did (:meth:`RecipeConfig.hash`).
    """

    d_label_hidden: int = 250  # span-score MLP hidden size
    predict_tags: bool = False  # auxiliary tagging head; predicted trees then carry predicted tags
    d_tag_hidden: int = 250  # the tagging head's hidden layer
    tag_loss_scale: float = 5.0  # weight of the tagging loss beside the span loss


@dataclass
class TrainConfig:
    """Optimizer, schedule, batching and stopping (Kitaev & Klein 2018, Appendix A)."""

    seed: int = 1
    lr: float = 8e-4  # base learning rate (Table 9)
    adam_betas: List[float] = field(default_factory=lambda: [0.9, 0.98])
    adam_eps: float = 1e-9
    batch_size: int = 250  # sentences per optimizer update
    batch_order: str = "shuffled"  # shuffled (the paper's: random batches) | buckets (random batches of similar lengths: less padding; mlparse/data/batching.py)
    subbatch_tokens: Union[int, str] = "auto"  # budget of one forward/backward (gradient accumulation), in token-equivalents; auto: from free GPU memory, 2000 on CPU
    subbatching: str = "auto"  # how a batch is cut under subbatch_tokens: fill (fewest sub-batches) | least_work (least padded work plus subbatch_overhead per sub-batch) | auto (least_work on CPU, fill on GPU and for a model whose CPU update works on its real positions: the BiLSTM biaffine parser); the same update (mlparse/data/batching.py); not part of the recipe hash
    subbatch_overhead: int = 160  # least_work: the fixed cost of one more sub-batch, in token-equivalents (docs/protocol.md, "Sub-batches"); not part of the recipe hash
    warmup_steps: int = 160  # linear warm-up of the learning rate, in updates
    evals_per_epoch: int = 4
    lr_decay_patience_epochs: float = 5  # halve the lr when dev F1 has not improved this long
    lr_decay_factor: float = 0.5
    max_epochs: int = 100
    patience_epochs: float = 25  # stop when dev F1 has not improved this long
    max_updates: Optional[int] = None  # stop after this many optimizer updates (a dev check is made there); null: no bound
    patience_updates: Optional[int] = None  # stop when the best dev check is this many updates old (beside patience_epochs); null: off
    clip_grad_norm: Optional[float] = None  # None: no clipping
    ema_decay: float = 0.0  # 0: off; d in (0, 1): dev checks and the best checkpoint use a moving average of the weights (mlparse/train/weight_average.py)
    max_minutes: Optional[float] = None  # training-time bound (the CLI's --max-minutes wins); not part of the recipe hash
    decoder: str = "auto"  # auto (torch on GPU, cython on CPU) | cython | torch
    step: str = "eager"  # eager | graph: the span parser's loss-augmented decoding on the device without a wait for the host, in shapes fixed per length (mlparse/structs/cky_device.py); same loss; not part of the recipe hash
    device: str = "auto"  # auto | cpu | cuda
    bf16: bool = True  # bf16 autocast on CUDA
    cpu_bf16: bool = False  # on a CPU with AMX (bf16 matrix units: Sapphire Rapids and later Xeons): the BiLSTM encoder's products in bfloat16 in training updates (operands rounded; weights, optimizer, gate arithmetic in float32; dev checks and parsing exact); float32 with a note elsewhere (mlparse/train/cpu_bf16.py)
    num_threads: Optional[int] = None  # CPU threads for torch, fixed (None: torch's default, fewer while other processes keep cores busy: mlparse/train/threads.py)
    unk_word_dropout: bool = True  # span and joint parsers: training words of count c become UNK with probability 1/(1+c); the biaffine parser (Li et al.) uses biaffine.embedding_dropout instead and ignores it
    overlap: bool = True  # host work beside the device: next sub-batch prepared, last one decoded (mlparse/train/overlap.py); same results; not part of the recipe hash
    compile: str = "off"  # off | encoder (torch.compile over length buckets) | encoder-graphs (also CUDA graphs on a GPU); mlparse/train/compile.py


@dataclass
class BiaffineConfig:
    """The biaffine dependency parser (Li et al. 2019, §2 and §4.1; Dozat & Manning 2017): the section of
    ``model.kind: biaffine`` (:func:`sections_of_kind`), read by :mod:`mlparse.models.dep_parser`."""

    d_word_emb: int = 100  # word / tag embeddings, concatenated (Li et al. §4.1: 100 / 100)
    d_tag_emb: int = 100
    tag_column: str = "upos"  # upos | xpos: which CoNLL-U column feeds the tag embeddings
    pretrained_vectors: Optional[str] = None  # word2vec/GloVe text file to initialise word embeddings
    d_arc: int = 500  # MLP sizes (Dozat & Manning)
    d_relation: int = 100
    mlp_dropout: float = 0.33
    embedding_dropout: float = 0.33
    lstm_hidden: int = 400  # model.encoder: bilstm (Dozat & Manning: 3 layers of 400 per direction)
    lstm_layers: int = 3
    lstm_dropout: float = 0.33
    decoder: str = "mst"  # mst (non-projective) | eisner (projective); both give exactly one root dependent
    predict_tags: bool = False  # an auxiliary tagging head predicts tag_column from the encoder (as UDPipe 2, Stanza); needs model.use_tags: false (data.tags: none); scored as tag accuracy
    d_tag_hidden: Optional[int] = None  # the tagging head's hidden layer (null: one linear layer over the encoder)
    tag_loss_scale: float = 1.0  # weight of the tagging loss beside the arc and relation losses


@dataclass
class JointConfig:
    """The joint span + dependency parser with a Label Attention Layer (Mrini et al. 2020, §2-§4): a section
    of ``model.kind: joint`` (with ``span:``, :func:`sections_of_kind`), read by :mod:`mlparse.models.joint_parser`."""

    lal_heads: int = 112  # label attention heads (§4.1: 112 for English, one per category; 64 for Chinese)
    lal_d_head: int = 128  # query/key/value/output size of one head (§4.1: 128); even (forward/backward halves)
    lal_query: str = "vector"  # vector (label attention) | matrix (Table 2 ablation: query matrices)
    lal_combine: str = "concat"  # concat (label attention) | projection (Table 2 ablation: one matrix over all heads)
    lal_feed_forward: bool = True  # position-wise feed-forward layer after the heads (Table 1: PFL)
    lal_d_ff: int = 2048
    lal_residual_dropout: float = 0.0  # per-head residual dropout (Table 1: RD; the best model has none: 0)
    lal_attention_dropout: float = 0.2
    d_arc: int = 1024  # biaffine arc MLP (Zhou & Zhao 2019)
    d_relation: int = 250  # biaffine relation MLP
    mlp_dropout: float = 0.33
    decoder: str = "separate"  # separate (CKY + arc decoder, independently) | exact (spans and heads together)
    arc_decoder: str = "mst"  # separate decoding's dependency decoder: mst | eisner


@dataclass
class PretrainedConfig:
    """A pretrained contextual encoder through ``transformers`` (:mod:`mlparse.modules.pretrained`); off while
    ``model`` is null.  Li et al. (2019) §4.2: frozen features, the mean of the top 4 layers replacing the
    word embeddings; Mrini et al. (2020): fine-tuned."""

    model: Optional[str] = None  # hub name (bert-large-cased) or a local directory written by save_pretrained
    subword_pooling: str = "first"  # first | last | mean: a word's vector from its subwords
    layers: str = "mean_top"  # mean_top (mean of the top top_k layers) | layer (one layer) | scalar_mix (learned)
    top_k: int = 4  # layers: mean_top (Li et al. Table 3: the top 4)
    layer: int = -1  # layers: layer; 0 = the embedding layer, -1 = the top layer
    combine: str = "concat"  # concat: beside the word embeddings | replace: instead of them
    dropout: float = 0.2  # on the word vectors the encoder gives
    fine_tune: bool = False  # false: frozen features (no gradient, eval mode); true: trained with lr / warmup_steps
    lr: float = 5e-5  # fine_tune: the encoder's own base learning rate
    warmup_steps: int = 160  # fine_tune: the encoder's own linear warm-up, in updates
    gradient_checkpointing: bool = False  # fine_tune on CUDA: recompute the encoder's activations in backward
    bf16: bool = True  # bf16 autocast of the encoder on CUDA (no-op on CPU)
    max_subwords: Optional[int] = None  # window size in subwords, specials included (null: the model's maximum)
    window_overlap: int = 128  # subwords shared by consecutive windows of a longer sentence


@dataclass
class TaggerConfig:
    """A part-of-speech tagger (``model.kind: tagger``, :mod:`mlparse.models.tagger`) and, for a parser with
    ``data.tags: jackknife``, the taggers that tag its data (:mod:`mlparse.train.jackknife`)."""

    column: str = "upos"  # what a tagger predicts: pos (the trees' preterminals) | upos | xpos (CoNLL-U columns)
    d_word_emb: int = 100  # word (+ CharLSTM) vectors
    d_hidden: Optional[int] = 250  # the tag head's hidden layer (null: one linear layer)
    embedding_dropout: float = 0.33
    lstm_hidden: int = 200  # model.encoder: bilstm
    lstm_layers: int = 2
    lstm_dropout: float = 0.33
    affixes: List[str] = field(default_factory=list)  # affix/shape features of each word (mlparse/data/affixes.py): suffix1-4, prefix1-3, shape
    d_affix_emb: int = 32  # the vector of each affix feature
    affix_min_count: int = 2  # feature values seen fewer times in training are unknown
    unk_replacement: float = 0.0  # a: in training a word of count c is read as UNK with probability a / (a + c)
    dropout_kind: str = "feature"  # the embedding and BiLSTM dropouts: feature (one mask per sentence, as the parsers) | element
    # data.tags: jackknife (a parser's recipe): which taggers tag its data
    recipe: str = "tagger"  # the taggers' recipe (a bundled name or a path); its data section is the parser's
    folds: int = 10  # fold taggers tag the held-out fold of train (data.fold_assignment); a tagger on all of train tags dev and test
    max_minutes: Optional[float] = None  # a safety bound on each tagger's training time; makes the tags depend on the machine's speed and load (null: each stops on its patience, the same tags everywhere); not part of the recipe hash
    budget_share: float = 0.4  # under a run's time budget (--max-minutes, train.max_minutes): the taggers' share of it, the parser gets the rest (mlparse/train/run_budget.py); 0: all of it to the parser; not part of the recipe hash
    side_by_side: Optional[int] = None  # taggers trained at once, each in a process of its own (null: one per GPU, or the CPU cores over each tagger's threads; 1: one after the other); not part of the recipe hash
    input_added: bool = False  # set on loading: data.tags: jackknife turned on model.use_tags of a parser whose recipe reads no tags (said in the log and system name; not in the hash)


@dataclass
class ExternalConfig:
    """Another toolkit's parser run by its own commands (``model.kind: external``, :mod:`mlparse.external`): mlparse
    prepares its input files under the run's tag protocol, runs its training under the run's budget and its
    prediction on dev and test, and scores what it writes like any run.  Commands are templates of words
    (:mod:`mlparse.external.commands`: ``{python}``, ``{train}``, ``{dev}``, ``{input}``, ``{output}``, ``{seed}``,
    ``{minutes}``, ``{seconds}``, ``{workdir}``, ``{threads}``, ``{lang}``, ``{treebank}``, ``{repo}``), run without a
    shell."""

    system: str = ""  # the peer's name as the report shows it: SuPar, Stanza, benepar
    version: str = ""  # the peer's version this recipe is written for; checked against version_command's output
    task: str = "dependency"  # dependency (CoNLL-U in and out) | constituency (bracketed trees, one per line)
    settings: str = ""  # the peer's model in a few words (biaffine-dep, words + gold UPOS): the report's system name
    python: Optional[str] = None  # what {python} stands for; null: $MLPARSE_<SYSTEM>_PYTHON (system in capitals); not part of the recipe hash
    repo: Optional[str] = None  # what {repo} stands for: a checkout of the peer's source, for a trainer its package lacks; null: $MLPARSE_<SYSTEM>_REPO; not part of the recipe hash
    install: str = ""  # one line telling a user without the peer how to install it
    version_command: str = ""  # prints the installed version (one line); empty: not checked
    train: str = ""  # the training command (template); it must leave the model where predict finds it (under {workdir})
    predict: str = ""  # the prediction command, once per split: reads {input}, writes {output}
    model: str = ""  # the file (template) the training leaves for predict: checked before predicting (a training stopped before it saved one is said so); empty: not checked
    resume: str = ""  # the training command that continues an interrupted training; empty: a restart (said)
    resume_when: str = ""  # a file (template) that must exist for resume: the peer's checkpoint
    stopping: str = ""  # the peer's own stopping rule in words (its patience, its bound on epochs or steps): results.json's convergence rule under --until-converged; not part of the recipe hash (the files and commands that set it are)
    model_check: str = ""  # a command that loads the model (the peer's own load check), run after training: a model it refuses is not used; not part of the recipe hash
    columns: List[str] = field(default_factory=lambda: ["form", "upos"])  # CoNLL-U columns the peer sees besides ID, HEAD, DEPREL (and DEPS, MISC): the others become _
    predict_targets: str = "blank"  # blank: the prediction input's HEAD, DEPREL and DEPS are _ (the peer cannot read the answers) | keep (a peer that needs them to read its input)
    files: Dict[str, str] = field(default_factory=dict)  # files written into {workdir} before the peer trains: name -> text (its configuration file)
    environment: Dict[str, str] = field(default_factory=dict)  # variables set for the peer's commands (its own switches, such as TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD)
    predict_minutes: float = 30.0  # each prediction's bound (a hang is a failed run)
    stop_seconds: float = 30.0  # at the budget the peer gets SIGINT, then SIGTERM and SIGKILL after this long; not part of the recipe hash


@dataclass
class EvalConfig:
    """How dev/test are decoded."""

    subbatch_tokens: Union[int, str] = "auto"  # budget of one forward pass, in token-equivalents (mlparse/models/memory.py); auto: from free GPU memory, 5000 on CPU
    max_sentences: Optional[int] = None  # evaluate on the first N dev sentences during training
    dependency_scoring: str = "conll18"  # conll18 (official UD metrics) | ptb (punctuation by gold tag excluded)
    punct_tags: Optional[List[str]] = None  # ptb scoring: the gold tags left out; null: the treebank catalog's (PTB set where it names none)
    punct_column: Optional[str] = None  # ptb scoring: xpos | upos, the gold column of punct_tags; null: the catalog's, else xpos


@dataclass
class RecipeConfig:
    name: str = ""
    description: str = ""
    # what differs from the paper's model, in a few words ("CharLSTM instead of XLNet"); the report's system
    # name shows it; empty: the paper's model (or no paper); not inherited through base:, not in the hash
    deviation: str = ""
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    span: SpanConfig = field(default_factory=SpanConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    biaffine: BiaffineConfig = field(default_factory=BiaffineConfig)
    joint: JointConfig = field(default_factory=JointConfig)
    pretrained: PretrainedConfig = field(default_factory=PretrainedConfig)
    tagger: TaggerConfig = field(default_factory=TaggerConfig)
    external: ExternalConfig = field(default_factory=ExternalConfig)

    def system_name(self, described: str) -> str:
        """A parser's description (``describe``) with the recipe's deviation from the paper, when it has one:
        ``mlparse joint LAL (CharLSTM + words) [not the paper's: CharLSTM instead of XLNet]``."""
        return f"{described} [not the paper's: {self.deviation}]" if self.deviation else described

    @property
    def task(self) -> str:
        """The task of the recipe's parser kind (its class's ``task``): constituency, dependency, ..."""
        return str(kinds.declaration(self.model.kind).recipe_task(self))

    def split_path(self, split: str) -> Path:
        """The prepared file of ``split`` for this recipe's task (the task's ``prepared_suffix``)."""
        return self.data.split_path(split, kinds.declaration(self.model.kind).make_task(self).prepared_suffix)

    def to_dict(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.to_dict(), sort_keys=False, allow_unicode=True)

    def hash(self) -> str:
        """sha256 of the resolved recipe (description and run-time-only settings such as max_minutes excluded).

        The hash is of the recipe in layout :data:`mlparse.config.layout.HASH_LAYOUT` (:func:`mlparse.config.hashing.hash_payload`): the layout in which
        run ids were first handed out, so that a recipe keeps its run id whichever layout it is written in.
        Keys of :data:`mlparse.config.hashing.HASH_NEUTRAL_DEFAULTS` are left out while they hold their default, so that a
        switch added in a later version does not give every existing run a new id (and a restart).
        """
        text = json.dumps(hash_payload(self), sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sections_of_kind(kind: str) -> Tuple[str, ...]:
    """The recipe sections of parser kind ``kind``'s own settings (``joint`` -> ``("span", "joint")``), as its
    class declares them (``Parser.sections``); the shared sections (:data:`SHARED_SECTIONS`) are not named.
    The recipe hash counts these and leaves the other kinds' sections out, except ``span:``, which it counts
    for every kind as layout 1 did (:func:`mlparse.config.hashing.hash_payload`)."""
    return kinds.sections_of(kind)


SECTIONS = {"data": DataConfig, "model": ModelConfig, "span": SpanConfig, "train": TrainConfig, "eval": EvalConfig,
            "biaffine": BiaffineConfig, "joint": JointConfig, "pretrained": PretrainedConfig, "tagger": TaggerConfig,
            "external": ExternalConfig}
SHARED_SECTIONS = kinds.SHARED_SECTIONS  # the sections every parser kind reads

TOP_LEVEL_KEYS = ("name", "description", "deviation", "base", *SECTIONS)
#: The values a key may take (``model.kind``: every known parser kind, :func:`choices`).
VALID_CHOICES = {
    ("model", "encoder"): ("transformer", "bilstm"),
    ("model", "positions"): ("learned", "sinusoidal"),
    ("biaffine", "tag_column"): ("upos", "xpos"),
    ("biaffine", "decoder"): ("mst", "eisner"),
    ("joint", "lal_query"): ("vector", "matrix"),
    ("joint", "lal_combine"): ("concat", "projection"),
    ("joint", "decoder"): ("separate", "exact"),
    ("joint", "arc_decoder"): ("mst", "eisner"),
    ("eval", "dependency_scoring"): ("conll18", "ptb"),
    ("eval", "punct_column"): ("xpos", "upos"),
    ("pretrained", "subword_pooling"): ("first", "last", "mean"),
    ("pretrained", "layers"): ("mean_top", "layer", "scalar_mix"),
    ("pretrained", "combine"): ("concat", "replace"),
    ("model", "char_encoder"): ("lstm", "concat", "none"),
    ("data", "eval_tags"): ("gold", "predicted"),
    ("data", "tags"): ("gold", "jackknife", "files", "none"),
    ("tagger", "column"): ("pos", "upos", "xpos"),
    ("tagger", "dropout_kind"): ("feature", "element"),
    ("data", "fold_assignment"): ("auto", "blocks", "modulo", "permutation"),
    ("train", "decoder"): ("auto", "cython", "torch"),
    ("train", "step"): ("eager", "graph"),
    ("train", "device"): ("auto", "cpu", "cuda"),
    ("train", "compile"): ("off", "encoder", "encoder-graphs"),
    ("train", "batch_order"): ("shuffled", "buckets"),
    ("train", "subbatching"): ("auto", "fill", "least_work"),
    ("external", "task"): ("dependency", "constituency"),
    ("external", "predict_targets"): ("blank", "keep"),
}



def unknown_key_error(key: str, valid: Sequence[str], where: str) -> ConfigError:
    """An unknown key, with the closest valid key and the list of valid ones."""
    close = difflib.get_close_matches(key, list(valid), n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    return ConfigError(f"{where}: unknown key '{key}'.{hint} Valid keys: {', '.join(valid)}.")


def choices(section: str, key: str) -> Sequence[Any]:
    """The values ``section.key`` may take (empty: any value of its type): :data:`VALID_CHOICES`, and for
    ``model.kind`` the known parser kinds (:func:`mlparse.config.kinds.kinds`)."""
    if (section, key) == ("model", "kind"):
        return tuple(kinds.kinds())
    return VALID_CHOICES.get((section, key), ())


def check_choice(section: str, key: str, value: Any, where: str) -> None:
    """A value outside :func:`choices` for ``section.key`` is an error."""
    if (section, key) == ("model", "kind") and isinstance(value, str) and kinds.is_known(value):
        return  # a known kind (checked without listing the installed ones)
    allowed = choices(section, key)
    if allowed and value not in allowed and not (value is None and _optional(section, key)):
        raise ConfigError(f"{where}: {section}.{key} must be one of {', '.join(allowed)}, got {value!r}.")


def _optional(section: str, key: str) -> bool:
    """Whether ``section.key`` may be null (its field is ``Optional``)."""
    annotation = get_type_hints(SECTIONS[section]).get(key) if section in SECTIONS else None
    return get_origin(annotation) is Union and type(None) in get_args(annotation)


def field_names(cls: type) -> List[str]:
    return [f.name for f in fields(cls)]


def coerce(value: Any, annotation: Any, where: str) -> Any:
    """Check ``value`` against a field annotation; ints, and text Python reads as a float, are accepted for floats
    (:func:`_float`); int keys stay strict."""
    origin = get_origin(annotation)
    if origin is Union:
        options = [a for a in get_args(annotation) if a is not type(None)]
        if value is None:
            return None
        if options == [int, str]:  # a number or a word (subbatch_tokens: auto): validate() checks which words
            return value if isinstance(value, int) and not isinstance(value, bool) else coerce(value, str, where)
        return coerce(value, options[0], where)
    if origin in (list, List):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: expected a list, got {value!r}.")
        (item,) = get_args(annotation) or (Any,)
        return [coerce(v, item, where) for v in value]
    if annotation is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}.")
        return value
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}.")
        return value
    if annotation is float:
        number = _float(value)
        if number is None:
            raise ConfigError(f"{where}: expected a number, got {value!r}.")
        return number
    if annotation is str:
        if value is None or isinstance(value, (dict, list)):
            raise ConfigError(f"{where}: expected a string, got {value!r}.")
        return str(value)
    return value


def _float(value: Any) -> Optional[float]:
    """The value of a float key: a number, or text that Python's ``float()`` reads (YAML 1.1 reads ``1e-3`` and
    ``2E-4``, without a dot or an exponent's sign, as text); None for anything else, and for NaN, which every
    range check would let through (it compares false with every bound)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    if not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # an int past the largest float
        return None
    return None if math.isnan(number) else number


def build_section(name: str, cls: type, data: Any, source: Union[str, Callable[..., str]]) -> Any:
    """The section's dataclass; ``source`` names the recipe, or gives ``where(section[, key])`` with a line."""
    where = source if callable(source) else (lambda *keys: source)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where(name)}: section '{name}' must be a mapping of keys, got {data!r}.")
    kwargs = {}
    for key, value in data.items():
        place = where(name, str(key))
        kwargs[key] = section_value(cls, name, str(key), value, place, f"{place}: {name}.{key}")
    return cls(**kwargs)


def section_value(cls: type, section: str, key: str, value: Any, where: str, where_value: str) -> Any:
    """``value`` of ``section.key`` checked against the field of ``cls``: a known key, the field's type
    (coerced, ints accepted for floats) and its choices.  ``where`` / ``where_value`` start the messages."""
    valid = field_names(cls)
    if key not in valid:
        raise unknown_key_error(key, valid, f"{where} (section '{section}')")
    if value is False and "off" in VALID_CHOICES.get((section, key), ()):  # YAML reads a bare `off` as false
        value = "off"
    value = coerce(value, get_type_hints(cls)[key], where_value)
    check_choice(section, key, value, where)
    return value
