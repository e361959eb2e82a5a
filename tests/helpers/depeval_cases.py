"""Random CoNLL-U cases for the differential test of depeval (tests/test_depeval_reference.py).

A sentence is a list of tokens; a token a FORM and its words (several for a
multiword token); a word its columns and a reference to its head word.  Gold
sentences are random trees; system sentences are gold ones with errors in tags,
lemmas, features, heads and relations, with tokens split, merged, turned into
or out of multiword tokens, sentences merged or split, empty nodes added.  The
heads of words whose head went missing are repaired into a tree.  Error cases
are made by editing the written lines (a column lost, a bad ID or HEAD, a cycle,
a second root, an empty FORM, a changed character, a missing last line, ...).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

FORMS = ["a", "b", "ab", "abc", "Dog", "dog", "DOG", "de", "el", "del", "l'", "x y", "x\u00a0y", "ÄB", "äb",
         "İ", "ß", "ΣΑΣ", ".", ",", ":", "``", "''", "3", "New\u3000York", "_", "-", "1-2", "ok."]
UPOS = ["NOUN", "VERB", "DET", "ADP", "PUNCT", "PRON", "_", "X"]
XPOS = ["NN", "VB", "DT", "IN", ",", ".", ":", "``", "''", "_", "-LRB-"]
FEATURES = ["Case=Nom", "Number=Sing", "Number=Plur", "Gender=Masc", "Typo=Yes", "Gender[psor]=Fem", "Person=3",
            "Tense=Past", "Foreign=Yes", "PronType=Art", "Definite=Def", "Abbr=Yes"]
DEPRELS = ["nsubj", "nsubj:pass", "obj", "root", "det", "det:poss", "case", "aux:pass", "aux", "cc", "punct", "mark",
           "amod", "conj", "dep", "flat:name", "cop", "clf", "advmod", "_", "obl:tmod", "compound:prt"]
LEMMAS = ["_", "be", "dog", "x"]


@dataclass(eq=False)
class Word:
    form: str
    lemma: str = "_"
    upos: str = "_"
    xpos: str = "_"
    feats: str = "_"
    deprel: str = "_"
    misc: str = "_"
    head: "Word | None" = None


@dataclass(eq=False)
class Token:
    form: str
    words: list[Word]
    multiword: bool = False


@dataclass(eq=False)
class Sentence:
    tokens: list[Token]
    comments: list[str] = field(default_factory=list)
    empty_after: list[int] = field(default_factory=list)  # word numbers followed by an empty node

    def words(self) -> list[Word]:
        return [w for t in self.tokens for w in t.words]


def _feats(rng: random.Random) -> str:
    if rng.random() < 0.3:
        return "_"
    return "|".join(rng.sample(FEATURES, rng.randint(1, 3)))


def random_word(rng: random.Random, form: str) -> Word:
    return Word(form, rng.choice(LEMMAS + [form.lower()]), rng.choice(UPOS), rng.choice(XPOS), _feats(rng),
                rng.choice(DEPRELS), rng.choice(["_", "SpaceAfter=No"]))


def random_sentence(rng: random.Random, max_tokens: int = 8) -> Sentence:
    tokens = []
    for _ in range(rng.randint(1, max_tokens)):
        form = rng.choice(FORMS)
        if rng.random() < 0.2:
            parts = rng.randint(1, 3)
            pieces = [form[: len(form) // 2] or form, form[len(form) // 2:] or form, rng.choice(FORMS)][:parts]
            tokens.append(Token(form, [random_word(rng, p) for p in pieces], True))
        else:
            tokens.append(Token(form, [random_word(rng, form)]))
    sentence = Sentence(tokens, [f"# sent_id = {rng.randint(1, 999)}"] if rng.random() < 0.5 else [])
    words = sentence.words()
    order = rng.sample(words, len(words))
    for k, word in enumerate(order[1:], 1):
        word.head = rng.choice(order[:k])
    if rng.random() < 0.15:
        sentence.empty_after.append(rng.randint(0, len(words)))
    return sentence


def _heads(rng: random.Random, words: list[Word]) -> list[int]:
    """1-based heads of ``words`` (0 = root), repaired into one tree."""
    number = {id(w): k + 1 for k, w in enumerate(words)}
    heads = [0 if w.head is None else number.get(id(w.head), -1) for w in words]
    roots = [k for k, h in enumerate(heads) if h == 0]
    root = roots[0] if roots else rng.randrange(len(words))
    heads[root] = 0
    heads = [root + 1 if (h == 0 and k != root) or h < 0 else h for k, h in enumerate(heads)]
    for k in range(len(words)):
        seen, j = set(), k
        while heads[j] != 0 and j not in seen:
            seen.add(j)
            j = heads[j] - 1
        if heads[j] != 0:
            heads[j] = root + 1
    return heads


def write_sentence(rng: random.Random, sentence: Sentence) -> list[str]:
    words = sentence.words()
    heads = _heads(rng, words)
    lines = list(sentence.comments)
    if 0 in sentence.empty_after:
        lines.append("0.1\tnull\t_\t_\t_\t_\t_\t_\t0:dep\t_")
    n = 0
    for token in sentence.tokens:
        if token.multiword:
            lines.append(f"{n + 1}-{n + len(token.words)}\t{token.form}\t_\t_\t_\t_\t_\t_\t_\t_")
        for word in token.words:
            n += 1
            form = word.form if token.multiword else token.form
            lines.append(f"{n}\t{form}\t{word.lemma}\t{word.upos}\t{word.xpos}\t{word.feats}\t{heads[n - 1]}\t"
                         f"{word.deprel}\t_\t{word.misc}")
        if n in sentence.empty_after:
            lines.append(f"{n}.1\tnull\t_\t_\t_\t_\t_\t_\t{n}:dep\t_")
    return lines + [""]


def write_file(rng: random.Random, sentences: list[Sentence]) -> str:
    return "".join(line + "\n" for s in sentences for line in write_sentence(rng, s))


def _cut(rng: random.Random, form: str, parts: int) -> list[str] | None:
    """``form`` cut into ``parts`` pieces, none of them only spaces (None when impossible)."""
    if len(form) < parts:
        return None
    cuts = sorted(rng.sample(range(1, len(form)), parts - 1))
    pieces = [form[a:b] for a, b in zip([0] + cuts, cuts + [len(form)])]
    return pieces if all(p.strip() for p in pieces) else None


def _perturb_word(rng: random.Random, word: Word, words: list[Word], rate: float) -> None:
    if rng.random() < rate:
        word.upos = rng.choice(UPOS)
    if rng.random() < rate:
        word.xpos = rng.choice(XPOS)
    if rng.random() < rate:
        word.feats = _feats(rng)
    if rng.random() < rate:
        word.lemma = rng.choice(LEMMAS)
    if rng.random() < rate:
        word.deprel = rng.choice(DEPRELS)
    if rng.random() < rate:
        word.head = rng.choice(words + [None])


def _retokenize(rng: random.Random, tokens: list[Token], k: int) -> None:
    token = tokens[k]
    r = rng.random()
    if r < 0.25 and not token.multiword:
        pieces = _cut(rng, token.form, 2)
        if pieces:
            word = token.words[0]
            extra = Word(pieces[1], head=word)
            tokens[k:k + 1] = [Token(pieces[0], [word]), Token(pieces[1], [extra])]
    elif r < 0.45 and k + 1 < len(tokens):
        nxt = tokens[k + 1]
        tokens[k:k + 2] = [Token(token.form + nxt.form, [token.words[0]])]
    elif r < 0.7 and not token.multiword:
        pieces = _cut(rng, token.form, rng.randint(1, 3)) or [token.form]
        if rng.random() < 0.3:
            pieces = [p.upper() if rng.random() < 0.5 else rng.choice(FORMS) for p in pieces]
        words = [token.words[0]] + [Word(p, head=token.words[0]) for p in pieces[1:]]
        for word, piece in zip(words, pieces):
            word.form = piece
        tokens[k] = Token(token.form, words, True)
    elif token.multiword:
        pieces = _cut(rng, token.form, len(token.words))
        if pieces and rng.random() < 0.5:
            for word, piece in zip(token.words, pieces):
                word.form = piece
            tokens[k:k + 1] = [Token(p, [w]) for p, w in zip(pieces, token.words)]
        else:
            for word in token.words:
                word.form = word.form.swapcase() if rng.random() < 0.5 else rng.choice(FORMS)


def perturb(rng: random.Random, gold: list[Sentence], rate: float = 0.15) -> list[Sentence]:
    """A system version of ``gold`` (which is left as it is): same text, errors of every kind."""
    mapping: dict[int, Word] = {}
    system = []
    for sentence in gold:
        tokens = []
        for token in sentence.tokens:
            words = []
            for w in token.words:
                copy = Word(w.form, w.lemma, w.upos, w.xpos, w.feats, w.deprel, w.misc, w.head)
                mapping[id(w)] = copy
                words.append(copy)
            tokens.append(Token(token.form, words, token.multiword))
        system.append(Sentence(tokens, list(sentence.comments), list(sentence.empty_after)))
    for sentence in system:
        for word in sentence.words():
            word.head = mapping.get(id(word.head)) if word.head is not None else None
    for sentence in system:
        words = sentence.words()
        for word in words:
            _perturb_word(rng, word, words, rate)
        k = 0
        while k < len(sentence.tokens):
            if rng.random() < rate / 2:
                _retokenize(rng, sentence.tokens, k)
            k += 1
        if rng.random() < rate / 3:
            sentence.empty_after = [] if sentence.empty_after else [rng.randint(0, len(sentence.words()))]
    k = 0
    while k < len(system):
        if rng.random() < rate / 3 and k + 1 < len(system):
            system[k:k + 2] = [Sentence(system[k].tokens + system[k + 1].tokens, system[k].comments)]
        elif rng.random() < rate / 3 and len(system[k].tokens) > 1:
            cut = rng.randrange(1, len(system[k].tokens))
            system[k:k + 1] = [Sentence(system[k].tokens[:cut]), Sentence(system[k].tokens[cut:])]
        k += 1
    return system


def break_text(rng: random.Random, text: str) -> str:
    """``text`` with one random edit that the scorer may refuse (or, sometimes, accept)."""
    lines = text.split("\n")
    word_lines = [k for k, line in enumerate(lines) if line.count("\t") == 9]
    k = rng.choice(word_lines) if word_lines else 0
    columns = lines[k].split("\t")
    r = rng.randrange(20)
    if r == 0:
        lines[k] = "\t".join(columns[:-1])
    elif r == 1:
        columns[6] = rng.choice(["x", "-1", "99", "1.5", " 1", "+1", "", "٣"])
    elif r == 2:
        columns[6] = columns[0]  # a word headed by itself (or a bad range)
    elif r == 3:
        columns[6] = "0"
    elif r == 4:
        columns[0] = rng.choice(["7", "x", "0", "01", "1-x", "1-2-3", "3-1", "1--2", "1.1"])
    elif r == 5:
        columns[1] = rng.choice([" ", "\u00a0", "\u3000 ", ""])
    elif r == 6:
        return text.rstrip("\n") + ("\n" if rng.random() < 0.5 else "")
    elif r == 7:
        lines.insert(k, "")
    elif r == 8:
        lines.insert(k, "# a comment inside a sentence")
    elif r == 9:
        columns[1] = columns[1] + "z"
    elif r == 10:
        return "\ufeff" + text
    elif r == 11:
        return text.replace("\n", "\r\n")
    elif r == 12:
        columns[1] = columns[1][:1] + "\r" + columns[1][1:]
    elif r == 13:
        del lines[k]
    elif r == 14:
        lines.insert(k, "3-4\tab\t_\t_\t_\t_\t_\t_\t_\t_")
    elif r == 15:
        return text + rng.choice(["\n", "# trailing comment\n", "1\ta\t_\t_\t_\t_\t0\troot\t_\t_\n"])
    elif r == 16:
        columns[7] = rng.choice(["root", "nsubj:pass:x", ":", "case"])
    elif r == 17:
        return "" if rng.random() < 0.5 else "# only a comment\n"
    elif r == 18:
        lines.insert(k, "\t".join(["2.1"] + columns[1:]))
    else:
        columns[0] = columns[0] + " "
    if r not in (0, 7, 8, 13, 14, 18):
        lines[k] = "\t".join(columns)
    return "\n".join(lines)


def read_sentences(text: str) -> list[Sentence]:
    """A well-formed CoNLL-U file as sentences (empty nodes dropped), for perturbing real treebanks."""
    sentences = []
    for block in text.split("\n\n"):
        rows = [line for line in block.split("\n") if line]
        if not rows:
            continue
        comments = [line for line in rows if line.startswith("#")]
        tokens: list[Token] = []
        words: list[Word] = []
        heads: list[int] = []
        pending = 0
        for line in rows:
            if line.startswith("#"):
                continue
            c = line.split("\t")
            if "." in c[0]:
                continue
            if "-" in c[0]:
                low, high = map(int, c[0].split("-"))
                tokens.append(Token(c[1], [], True))
                pending = high - low + 1
                continue
            word = Word(c[1], c[2], c[3], c[4], c[5], c[7], c[9])
            words.append(word)
            heads.append(int(c[6]))
            if pending:
                tokens[-1].words.append(word)
                pending -= 1
            else:
                tokens.append(Token(c[1], [word]))
        for word, head in zip(words, heads):
            word.head = words[head - 1] if head else None
        sentences.append(Sentence(tokens, comments))
    return sentences
