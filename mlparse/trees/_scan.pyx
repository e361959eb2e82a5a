# cython: language_level=3, boundscheck=False, wraparound=False
"""Compiled fast path of the bracketed reader (character scanner, no regex).

It handles well-formed input only.  Anything unusual -- an error, a repair
in tolerant mode, a childless node that is not to become a leaf, a leaf with
several atoms that no ``pick`` allows -- raises :class:`Fallback`, and
:mod:`mlparse.trees.reader` re-reads the text with the pure-Python parser,
which produces the exact error or repairs.  On well-formed input both give
identical trees and lines (tests/test_trees_reader.py checks this).

Whitespace is ``Py_UNICODE_ISSPACE`` (``str.isspace``), exactly what the
regex ``\\s`` of the pure-Python tokenizer matches; lines count ``\\n`` only.
"""

from cpython.unicode cimport Py_UNICODE_ISSPACE

from mlparse.trees.tree import Leaf, Tree


class Fallback(Exception):
    """The input needs the pure-Python parser (error positions or repairs)."""


cdef inline bint is_atom_char(Py_UCS4 c):
    return c != u"(" and c != u")" and not Py_UNICODE_ISSPACE(c)


def scan(str text, int first_line, object pick, bint childless_leaf):
    """``(trees, lines)`` of well-formed ``text``; raises Fallback otherwise.

    ``pick``: None (several atoms in a leaf are an error), 0 or -1 (keep the
    first or the last atom).
    """
    cdef Py_ssize_t n = len(text)
    cdef Py_ssize_t i = 0, j, k
    cdef Py_UCS4 c
    cdef int line = first_line
    cdef bint fresh = False
    cdef list trees = []
    cdef list lines = []
    cdef list labels = []      # stack of frame labels
    cdef list kids = []        # stack of frame children lists
    cdef list atoms = []       # stack of frame atom lists (None when none)
    cdef list children = None  # children of the top frame
    cdef object label, word, node, frame_atoms, node_children
    cdef Py_ssize_t depth = 0
    _Leaf = Leaf
    _Tree = Tree
    while i < n:
        c = text[i]
        if c == u"\n":
            line += 1
            i += 1
        elif Py_UNICODE_ISSPACE(c):
            i += 1
        elif c == u"(":
            if depth == 0:
                lines.append(line)
            i += 1
            # label: skip whitespace, read an atom
            while i < n and Py_UNICODE_ISSPACE(text[i]):
                if text[i] == u"\n":
                    line += 1
                i += 1
            j = i
            while j < n and is_atom_char(text[j]):
                j += 1
            if j == i:  # "(" followed by a bracket or the end: empty label
                labels.append(u"")
                children = []
                kids.append(children)
                atoms.append(None)
                depth += 1
                continue
            label = text[i:j]
            i = j
            # one-atom leaf fast path: "(" label ws+ word ws* ")"
            k = i
            while k < n and Py_UNICODE_ISSPACE(text[k]):
                k += 1
            j = k
            while j < n and is_atom_char(text[j]):
                j += 1
            if j > k and k > i:
                word = text[k:j]
                k = j
                while k < n and Py_UNICODE_ISSPACE(text[k]):
                    k += 1
                if k < n and text[k] == u")":
                    # count the newlines inside the leaf
                    while i < k:
                        if text[i] == u"\n":
                            line += 1
                        i += 1
                    i = k + 1
                    node = _Leaf(label, word)
                    if depth == 0:
                        trees.append(_Tree(u"", [node]))
                    else:
                        children.append(node)
                    continue
            # a phrase: push the frame; the atom (if any) after the label is read by the main loop
            labels.append(label)
            children = []
            kids.append(children)
            atoms.append(None)
            depth += 1
        elif c == u")":
            if depth == 0:
                raise Fallback()
            i += 1
            depth -= 1
            label = labels.pop()
            frame_atoms = atoms.pop()
            node_children = kids.pop()
            if frame_atoms is None:
                if node_children:
                    node = _Tree(label, node_children)
                elif childless_leaf and label:
                    node = _Leaf(label, label)
                else:
                    raise Fallback()
            elif node_children or pick is None or not label:
                if len(frame_atoms) == 1 and not node_children:
                    node = _Leaf(label, frame_atoms[0])
                else:
                    raise Fallback()
            else:
                node = _Leaf(label, frame_atoms[pick])
            if depth == 0:
                children = None
                if type(node) is _Leaf:
                    node = _Tree(u"", [node])
                trees.append(node)
            else:
                children = kids[depth - 1]
                children.append(node)
        else:
            if depth == 0:
                raise Fallback()
            j = i
            while j < n and is_atom_char(text[j]):
                j += 1
            frame_atoms = atoms[depth - 1]
            if frame_atoms is None:
                atoms[depth - 1] = [text[i:j]]
            else:
                frame_atoms.append(text[i:j])
            i = j
    if depth:
        raise Fallback()
    return trees, lines
