"""Head finding with the Collins (1999) table on hand-written PTB trees, every rule's steps hit.

Expected heads are worked out by hand from the thesis' rules as the table file writes them
(mlparse/trees/head_tables/collins-ptb.yaml): priority lists searched category first,
the NP rule, coordination, punctuation left out of the search, brackets as punctuation.
"""

from __future__ import annotations

import sys
from typing import List, Set, Tuple

import pytest

from mlparse.structs.dep_tree import is_projective, tree_problem
from mlparse.trees.head_table import bundled_head_table, bundled_table_names
from mlparse.trees.heads import NO_HEAD, ROOT_RELATION, TreeDependencies, head_words, tree_dependencies
from mlparse.trees.reader import parse_bracketed
from mlparse.trees.tree import Leaf, Tree

COLLINS = bundled_head_table("collins-ptb")


def tree(text: str) -> Tree:
    return parse_bracketed(text).trees[0]


def head_word(text: str) -> str:
    """The head word of the whole tree."""
    parsed = tree(text)
    return parsed.words()[head_words(parsed, COLLINS)[0] - 1]


# (tree, head word of the whole tree): at least one phrase for every step of every rule.
HEAD_CASES = [
    ("(ADJP (RB very) (JJ big))", "big"),                      # JJ comes before RB in the priority list
    ("(ADJP (JJ first) (NN class))", "class"),                 # priority, not position: NN before JJ
    ("(ADJP (CD 5) (TO to) (CD 10))", "5"),                    # nothing listed: leftmost
    ("(ADVP (RB very) (RB soon))", "soon"),                    # from the right
    ("(ADVP (CC and) (DT so))", "so"),                         # nothing listed: rightmost
    ("(CONJP (RB rather) (IN than))", "rather"),               # RB before IN in the list
    ("(CONJP (JJ not) (JJ only))", "only"),
    ("(FRAG (NP (NNS Thanks)) (. .))", "Thanks"),              # rightmost child that is not punctuation
    ("(INTJ (UH Oh) (, ,) (UH well))", "Oh"),
    ("(LST (LS a) (-RRB- -RRB-))", "a"),
    ("(LST (: --))", "--"),                                    # only punctuation: it is searched, ':' listed
    ("(LST (CD 1) (. .))", "1"),
    ("(NAC (NNP Moscow) (, ,) (NNP Idaho))", "Moscow"),
    ("(NAC (IN of) (DT the))", "of"),
    ("(NP (DT the) (JJ big) (NN dog))", "dog"),                # NP 1: rightmost noun-like child
    ("(NP (NNS cats) (NN food) (NNS bowls))", "bowls"),        # any of the set, from the right
    ("(NP (NP (DT the) (NN cat)) (PP (IN on) (NP (DT a) (NN mat))))", "cat"),  # NP 2: leftmost NP
    ("(NP ($ $) (CD 5) (CD million))", "$"),                   # NP 3: $ before CD
    ("(NP (DT all) (CD three))", "three"),                     # NP 4: CD
    ("(NP (DT the) (JJ poor))", "poor"),                       # NP 5: JJ
    ("(NP (DT this) (DT that))", "that"),                      # NP 6: last child
    ("(NX (NN rock) (CC and) (NN roll))", "rock"),             # NX takes the NP rule; coordination
    ("(PP (IN because) (IN of) (NP (NN rain)))", "of"),        # PP searches from the right
    ("(PP (RB just) (ADVP (RB about)))", "about"),
    ("(PRN (-LRB- -LRB-) (NP (NNP Rex)) (-RRB- -RRB-))", "Rex"),  # brackets are punctuation
    ("(PRT (RP up))", "up"),
    ("(PRT (IN out))", "out"),
    ("(QP (IN about) (CD 5))", "about"),
    ("(QP (TO to) (PDT all))", "to"),
    ("(RRC (ADVP (RB now)) (PP (IN in) (NP (NN office))))", "now"),
    ("(RRC (CC and) (DT so))", "so"),
    ("(S (NP (PRP I)) (VP (VBP run)))", "run"),
    ("(S (ADVP (RB so)) (RB what))", "so"),
    ("(SBAR (IN that) (S (NP (PRP it)) (VP (VBZ works))))", "that"),
    ("(SBAR (ADVP (RB just)) (RB when))", "just"),
    ("(SBARQ (WHNP (WP What)) (SQ (VBD did) (NP (NNP Lee)) (VP (VB see))) (. ?))", "did"),
    ("(SBARQ (WHNP (WP Who)) (. ?))", "Who"),
    ("(SINV (S (VP (VB Go))) (, ,) (VBD said) (NP (NNP Kim)))", "said"),
    ("(SINV (PP (IN In) (NP (NN front))) (ADVP (RB there)))", "In"),
    ("(SQ (MD Can) (NP (PRP you)) (VP (VB go)))", "Can"),
    ("(SQ (NP (PRP you)) (ADVP (RB too)))", "you"),
    ("(UCP (ADJP (JJ old)) (NP (NN news)))", "news"),
    ("(UCP (ADJP (JJ old)) (CC and) (NP (NN news)))", "old"),  # coordination: the first conjunct
    ("(VP (TO to) (VP (VB go)))", "to"),
    ("(VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat))))", "sat"),
    ("(VP (ADVP (RB not)) (PP (IN at) (NP (DT all))))", "not"),
    ("(WHADJP (WRB how) (JJ big))", "how"),
    ("(WHADJP (RB too) (RB much))", "too"),
    ("(WHADVP (WRB where))", "where"),
    ("(WHADVP (RB why) (RB not))", "not"),
    ("(WHNP (WDT which) (NN book))", "which"),
    ("(WHNP (DT the) (NN one))", "the"),
    ("(WHPP (IN of) (WHNP (WDT which)))", "of"),
    ("(WHPP (RB just) (WHNP (WP what)))", "what"),
    ("(X (NN a) (NN b))", "a"),                                # unlisted label: the default rule
    ("(TOP (`` ``) (S (VP (VB Go))))", "Go"),                  # punctuation is skipped by the default too
    ("(X (. .) (. !))", "."),                                  # only punctuation: the first
    ("(NP (NNS cats) (CC and) (NNS dogs))", "cats"),
    ("(NP (NN a) (, ,) (NN b) (, ,) (CC and) (NN c))", "b"),   # commas are not searched: b CC c -> b
]


@pytest.mark.parametrize("text, expected", HEAD_CASES)
def test_head_word_of_hand_written_phrases(text, expected):
    assert head_word(text) == expected


#: Labels whose rule is another label's (a YAML alias in the file): one case of theirs is enough.
ALIASES = {"NX": "NP"}


def test_the_cases_hit_every_step_of_every_rule_and_the_coordination_rule():
    hit: Set[Tuple[str, int]] = set()
    for text, _ in HEAD_CASES:
        for node in tree(text).subtrees():
            labels = tuple(child.tag if isinstance(child, Leaf) else child.label for child in node.children)
            _, step = COLLINS.find(node.label, labels)
            hit.add((node.label if node.label in COLLINS.rules else "<default>", step))
    rules = {**COLLINS.rules, "<default>": COLLINS.default}
    wanted = {(label, step) for label, rule in rules.items() if label not in ALIASES for step in range(len(rule))}
    assert not wanted - hit, sorted(wanted - hit)
    assert any(step == len(rules[label]) for label, step in hit), "no case moves the head to the first conjunct"
    for alias, label in ALIASES.items():
        assert COLLINS.rule(alias) == COLLINS.rule(label) and any(h[0] == alias for h in hit)


def check(text: str, heads: List[int], relations: List[str]) -> TreeDependencies:
    result = tree_dependencies(tree(text), COLLINS)
    assert result.heads == heads
    assert result.relations == relations
    assert tuple(result) == (heads, relations)  # unpacks as (heads, relations)
    assert tree_problem(result.heads) is None and is_projective(result.heads)
    return result


def test_a_whole_sentence_with_derived_relations():
    check("(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)))",
          [NO_HEAD, 2, 3, 0, 3, 6, 4, 3],
          ["", "NP/NN/DT", "S/VP/NP", ROOT_RELATION, "VP/VBD/PP", "NP/NN/DT", "PP/IN/NP", "S/VP/."])


def test_unary_chains_pass_the_head_up_without_arcs():
    check("(TOP (S (NP (NNP Kim)) (VP (VBD wanted) (S (VP (TO to) (VP (VB leave))))) (. .)))",
          [NO_HEAD, 2, 0, 2, 3, 2],
          ["", "S/VP/NP", "root", "VP/VBD/S", "VP/TO/VP", "S/VP/."])
    check("(TOP (S (NP (NN Yes))))", [NO_HEAD, 0], ["", "root"])


def test_coordination_with_commas_and_the_punctuation_inside():
    check("(TOP (S (NP (NNS apples) (, ,) (NNS pears) (CC and) (NNS plums)) (VP (VBP grow)) (. .)))",
          [NO_HEAD, 3, 3, 6, 3, 3, 0, 6],
          ["", "NP/NNS/NNS", "NP/NNS/,", "S/VP/NP", "NP/NNS/CC", "NP/NNS/NNS", "root", "S/VP/."])


def test_possessive_quotes_and_a_bracketed_parenthetical():
    check("(TOP (S (`` ``) (NP (NP (NNP Kim) (POS 's)) (NN dog)) "
          "(VP (VBD barked) (PRN (-LRB- -LRB-) (ADVP (RB loudly)) (-RRB- -RRB-))) ('' '')))",
          [NO_HEAD, 5, 3, 4, 5, 0, 7, 5, 7, 5],
          ["", "S/VP/``", "NP/POS/NNP", "NP/NN/NP", "S/VP/NP", "root", "PRN/ADVP/-LRB-", "VP/VBD/PRN",
           "PRN/ADVP/-RRB-", "S/VP/''"])


def test_head_words_of_every_phrase_in_pre_order():
    parsed = tree("(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)))")
    # TOP, S, NP, VP, PP, NP
    assert head_words(parsed, COLLINS) == [3, 3, 2, 3, 4, 6]


def test_trees_deeper_than_the_recursion_limit():
    depth = sys.getrecursionlimit() + 500
    # (NP (NN w1) (NP (NN w2) (NP ... (NN wD)))): every NP is headed by its own NN, so w(d+1) -> wd
    node: Tree = Tree("NP", [Leaf("NN", f"w{depth}")])
    for d in range(depth - 1, 0, -1):
        node = Tree("NP", [Leaf("NN", f"w{d}"), node])
    result = tree_dependencies(node, COLLINS)
    assert result.heads == [NO_HEAD, 0] + list(range(1, depth))
    assert result.relations[2:] == ["NP/NN/NP"] * (depth - 1)
    chain: Tree = Tree("S", [Leaf("VB", "go")])
    for _ in range(depth):
        chain = Tree("S", [chain])
    assert tree_dependencies(chain, COLLINS) == ([NO_HEAD, 0], ["", "root"])


def test_the_bundled_tables():
    assert "collins-ptb" in bundled_table_names()
    assert COLLINS.name == "collins-ptb"
    assert COLLINS.rule("NX") == COLLINS.rule("NP") and COLLINS.rule("TOP") == COLLINS.default
    assert COLLINS.coordination == {"CC"}
