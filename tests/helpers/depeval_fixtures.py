"""CoNLL-U rows and one hand-checked gold/system pair with depeval's -v table of it: shared by the depeval tests."""

from __future__ import annotations


def row(word_id, form, head, deprel, lemma="_", upos="X", xpos="_", feats="_"):
    return f"{word_id}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{deprel}\t_\t_\n"


def mwt(span, form):
    return f"{span}\t{form}\t_\t_\t_\t_\t_\t_\t_\t_\n"


BARKS_FEATS = "Mood=Ind|Number=Sing|Person=3|Tense=Pres|VerbForm=Fin"
GOLD = (row(1, "The", 2, "det", "the", "DET", "DT", "Definite=Def|PronType=Art")
        + row(2, "dog", 3, "nsubj", "dog", "NOUN", "NN", "Number=Sing")
        + row(3, "barks", 0, "root", "bark", "VERB", "VBZ", BARKS_FEATS)
        + row(4, ".", 3, "punct", ".", "PUNCT", ".") + "\n")
# Word 2: wrong XPOS, features and lemma, relation right in its universal part; word 4: wrong head.
SYSTEM = (row(1, "The", 2, "det", "the", "DET", "DT", "PronType=Art|Definite=Def")
          + row(2, "dog", 3, "nsubj:pass", "dogs", "NOUN", "NNS", "Number=Plur")
          + row(3, "barks", 0, "root", "bark", "VERB", "VBZ", BARKS_FEATS + "|Typo=Yes")
          + row(4, ".", 2, "punct", ".", "PUNCT", ".") + "\n")

VERBOSE = """\
Metric     | Precision |    Recall |  F1 Score | AligndAcc
-----------+-----------+-----------+-----------+-----------
Tokens     |    100.00 |    100.00 |    100.00 |
Sentences  |    100.00 |    100.00 |    100.00 |
Words      |    100.00 |    100.00 |    100.00 |
UPOS       |    100.00 |    100.00 |    100.00 |    100.00
XPOS       |     75.00 |     75.00 |     75.00 |     75.00
UFeats     |     75.00 |     75.00 |     75.00 |     75.00
AllTags    |     75.00 |     75.00 |     75.00 |     75.00
Lemmas     |     75.00 |     75.00 |     75.00 |     75.00
UAS        |     75.00 |     75.00 |     75.00 |     75.00
LAS        |     75.00 |     75.00 |     75.00 |     75.00
CLAS       |    100.00 |    100.00 |    100.00 |    100.00
MLAS       |     50.00 |     50.00 |     50.00 |     50.00
BLEX       |     50.00 |     50.00 |     50.00 |     50.00
"""
