# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled fast path: tokenizing and scoring one well-formed sentence pair.

``FastScorer.score(gold, test)`` returns
``(length, words, gold_brackets, test_brackets, matched, crossing, correct_tags, has_nonempty_bracket)``
or None when the pair needs the reference path in ``evalb/score.py`` (a parse
problem, an empty test tree, a length or word mismatch).  On every pair it
accepts it must give exactly the numbers of the pure-Python scorer; the test
suite checks both on the same inputs.
"""

from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcmp, memset

cimport cython


cdef struct Span:
    Py_ssize_t off
    Py_ssize_t n


cdef struct Bracket:
    Py_ssize_t start
    Py_ssize_t end
    Py_ssize_t loff
    Py_ssize_t llen
    int result


cdef struct Tree:
    Span* words
    Span* tags
    Bracket* brackets
    Py_ssize_t* stack
    Py_ssize_t* head      # per start position: first bracket starting there (matching buckets)
    Py_ssize_t* tail
    Py_ssize_t* next      # per bracket: next bracket with the same start, in order
    Py_ssize_t* max_end   # per position: largest end of a kept bracket starting there
    Py_ssize_t* min_start # per position: smallest start of a kept bracket ending there
    Py_ssize_t cap
    Py_ssize_t nw
    Py_ssize_t nb
    Py_ssize_t length


cdef struct Str:
    const unsigned char* p
    Py_ssize_t n


#: Byte classes of the tokenizer: 1 for white space (C's isspace), 2 for a byte that ends a token
#: (white space or a bracket).
cdef unsigned char BYTE_CLASS[256]
for _byte in range(256):
    BYTE_CLASS[_byte] = (3 if _byte == 32 or 9 <= _byte <= 13 else 2 if _byte in (40, 41) else 0)


cdef inline bint is_space(unsigned char c) noexcept nogil:
    return BYTE_CLASS[c] & 1


cdef inline bint is_terminator(unsigned char c) noexcept nogil:
    return BYTE_CLASS[c] & 2


cdef inline bint same(const unsigned char* a, Py_ssize_t an, const unsigned char* b, Py_ssize_t bn) noexcept nogil:
    return an == bn and (an == 0 or memcmp(a, b, an) == 0)


cdef int grow(Tree* t, Py_ssize_t need) except -1:
    cdef Py_ssize_t cap = need + 16
    if t.cap >= need:
        return 0
    t.words = <Span*> realloc(t.words, cap * sizeof(Span))
    t.tags = <Span*> realloc(t.tags, cap * sizeof(Span))
    t.brackets = <Bracket*> realloc(t.brackets, cap * sizeof(Bracket))
    t.stack = <Py_ssize_t*> realloc(t.stack, cap * sizeof(Py_ssize_t))
    t.head = <Py_ssize_t*> realloc(t.head, cap * sizeof(Py_ssize_t))
    t.tail = <Py_ssize_t*> realloc(t.tail, cap * sizeof(Py_ssize_t))
    t.next = <Py_ssize_t*> realloc(t.next, cap * sizeof(Py_ssize_t))
    t.max_end = <Py_ssize_t*> realloc(t.max_end, cap * sizeof(Py_ssize_t))
    t.min_start = <Py_ssize_t*> realloc(t.min_start, cap * sizeof(Py_ssize_t))
    if t.words == NULL or t.tags == NULL or t.brackets == NULL or t.stack == NULL or t.head == NULL \
            or t.tail == NULL or t.next == NULL or t.max_end == NULL or t.min_start == NULL:
        raise MemoryError()
    t.cap = cap
    return 0


cdef void free_tree(Tree* t) noexcept:
    free(t.words)
    free(t.tags)
    free(t.brackets)
    free(t.stack)
    free(t.head)
    free(t.tail)
    free(t.next)
    free(t.max_end)
    free(t.min_start)


cdef struct StrSet:
    Str* items
    Py_ssize_t n
    unsigned long long lengths   # bit k: an item of k bytes (k < 63); bit 63: an item of 63 bytes or more
    unsigned char first[256]     # 1 for the first byte of some non-empty item


cdef inline bint set_contains(const StrSet* st, const unsigned char* s, Py_ssize_t n) noexcept nogil:
    """Is ``s[:n]`` one of the items?  Most labels are turned away by their length or first byte."""
    cdef Py_ssize_t i
    if not (st.lengths >> (n if n < 63 else 63)) & 1:
        return False
    if n > 0 and not st.first[s[0]]:
        return False
    for i in range(st.n):
        if same(st.items[i].p, st.items[i].n, s, n):
            return True
    return False


@cython.final
cdef class _StrList:
    """A list of byte strings kept alive, as a C set of pointers (:func:`set_contains`)."""

    cdef list keep
    cdef StrSet set

    def __cinit__(self, values):
        cdef bytes v
        cdef Py_ssize_t i, n
        self.keep = [bytes(x) for x in values]
        self.set.n = len(self.keep)
        self.set.lengths = 0
        memset(self.set.first, 0, sizeof(self.set.first))
        self.set.items = <Str*> malloc((self.set.n + 1) * sizeof(Str))
        if self.set.items == NULL:
            raise MemoryError()
        for i in range(self.set.n):
            v = self.keep[i]
            n = len(v)
            self.set.items[i].p = <const unsigned char*> v
            self.set.items[i].n = n
            self.set.lengths |= 1ULL << (n if n < 63 else 63)
            if n > 0:
                self.set.first[self.set.items[i].p[0]] = 1

    def __dealloc__(self):
        free(self.set.items)


cdef inline bint pair_equal(const StrSet* a, const StrSet* b, const unsigned char* s1, Py_ssize_t n1,
                            const unsigned char* s2, Py_ssize_t n2) noexcept nogil:
    """Equal, or a symmetric pair of ``a``/``b`` (``label_comp`` / ``word_comp``)."""
    cdef Py_ssize_t i
    if same(s1, n1, s2, n2):
        return True
    for i in range(a.n):
        if (same(s1, n1, a.items[i].p, a.items[i].n) and same(s2, n2, b.items[i].p, b.items[i].n)) or \
           (same(s1, n1, b.items[i].p, b.items[i].n) and same(s2, n2, a.items[i].p, a.items[i].n)):
            return True
    return False


def deleted_bracket_labels(delete_labels, eq_labels):
    """The (cut) labels whose brackets are deleted: a DELETE_LABEL, or the EQ_LABEL partner of one.

    The original compares a bracket's label with each DELETE_LABEL through ``label_comp`` (equal, or one
    EQ_LABEL pair, not a chain of them); this list gives the same answer with one lookup.
    """
    given = [bytes(d) for d in delete_labels]
    deleted = list(given)
    for a, b in eq_labels:
        for label, partner in ((bytes(a), bytes(b)), (bytes(b), bytes(a))):
            if partner in given and label not in deleted:
                deleted.append(label)
    return deleted


@cython.final
cdef class FastScorer:
    """Scores well-formed pairs under one parameter set (standard or SPMRL program)."""

    cdef _StrList deletes          # DELETE_LABEL, raw: terminal deletion
    cdef _StrList bracket_deletes  # deleted bracket labels as compared (cut for SPMRL), EQ_LABEL partners included
    cdef _StrList for_length       # DELETE_LABEL_FOR_LENGTH
    cdef _StrList eq_label_a, eq_label_b, eq_word_a, eq_word_b
    cdef bint labeled, spmrl
    cdef public bint any_nonempty  # some pair had a non-empty bracket (SPMRL delete-label cut)
    cdef Tree t1, t2

    def __init__(self, delete_labels, delete_for_length, eq_labels, eq_words, bint labeled, bint spmrl):
        self.labeled = labeled
        self.spmrl = spmrl
        self.deletes = _StrList(delete_labels)
        compared = [self._cut_py(d) for d in delete_labels] if spmrl else delete_labels
        self.bracket_deletes = _StrList(deleted_bracket_labels(compared, eq_labels))
        self.for_length = _StrList(delete_for_length)
        self.eq_label_a = _StrList([a for a, b in eq_labels])
        self.eq_label_b = _StrList([b for a, b in eq_labels])
        self.eq_word_a = _StrList([a for a, b in eq_words])
        self.eq_word_b = _StrList([b for a, b in eq_words])

    def __dealloc__(self):
        free_tree(&self.t1)
        free_tree(&self.t2)

    def _cut_py(self, bytes label):
        cdef Py_ssize_t n = self._cut(<const unsigned char*> label, len(label))
        return label[:n]

    cdef inline Py_ssize_t _cut(self, const unsigned char* s, Py_ssize_t n) noexcept:
        """``modify_label``: length of the label cut at ``-``/``=`` (and ``#`` for SPMRL)."""
        cdef Py_ssize_t i
        cdef unsigned char c
        for i in range(n):
            c = s[i]
            if c == 45 or c == 61 or (c == 35 and self.spmrl):
                return i
        return n

    cdef inline bint _label_equal(self, const unsigned char* s1, Py_ssize_t n1, const unsigned char* s2,
                                  Py_ssize_t n2) noexcept:
        return pair_equal(&self.eq_label_a.set, &self.eq_label_b.set, s1, n1, s2, n2)

    cdef int _parse(self, Tree* t, const unsigned char* s, Py_ssize_t n, bint count_length) except -2:
        """Tokenize; 0 when well formed, -1 for anything the reference path must report."""
        cdef Py_ssize_t p = 0, q, ls, ll, ws, top = 0, nw = 0, nb = 0, length = 0
        cdef unsigned char c
        cdef const StrSet* for_length = &self.for_length.set
        cdef const StrSet* deletes = &self.deletes.set
        cdef bint delete_terminals = not self.spmrl and deletes.n > 0
        grow(t, n + 1)
        while p < n:
            c = s[p]
            if is_space(c):
                p += 1
                continue
            if c == 40:
                p += 1
                ls = p
                while p < n and not is_terminator(s[p]):
                    p += 1
                ll = p - ls
                if p < n and is_space(s[p]):
                    q = p + 1
                    while q < n and is_space(s[q]):
                        q += 1
                    ws = q
                    while q < n and not is_terminator(s[q]):
                        q += 1
                    if q < n and s[q] == 41:
                        if count_length and not set_contains(for_length, s + ls, ll):
                            length += 1
                        p = q + 1
                        if delete_terminals and set_contains(deletes, s + ls, ll):
                            continue
                        t.words[nw].off = ws
                        t.words[nw].n = q - ws
                        t.tags[nw].off = ls
                        t.tags[nw].n = ll
                        nw += 1
                        continue
                    if not (q < n and s[q] == 40):
                        return -1
                t.brackets[nb].start = nw
                t.brackets[nb].end = -1
                t.brackets[nb].loff = ls
                t.brackets[nb].llen = ll
                t.stack[top] = nb
                top += 1
                nb += 1
            elif c == 41:
                if top == 0:
                    return -1
                top -= 1
                t.brackets[t.stack[top]].end = nw
                p += 1
            else:
                return -1
        if top != 0:
            return -1
        t.nw = nw
        t.nb = nb
        t.length = length
        return 0

    cdef Py_ssize_t _massage(self, Tree* t, const unsigned char* s, bint* nonempty) noexcept:
        cdef Py_ssize_t i, kept = 0
        cdef Bracket* b
        cdef const StrSet* dels = &self.bracket_deletes.set
        for i in range(t.nb):
            b = &t.brackets[i]
            b.result = 0
            if b.start == b.end:
                b.result = 5
                continue
            nonempty[0] = True
            b.llen = self._cut(s + b.loff, b.llen)
            if set_contains(dels, s + b.loff, b.llen):
                b.result = 5
            else:
                kept += 1
        return kept

    cdef object _score(self, Py_ssize_t line, bytes gold, bytes test):
        """The row tuple of one pair, or None when the reference path must score it."""
        cdef const unsigned char* g = gold
        cdef const unsigned char* s = test
        cdef Tree* t1 = &self.t1
        cdef Tree* t2 = &self.t2
        cdef Py_ssize_t i, j, x, match = 0, crossing = 0, correct = 0, gold_n, test_n
        cdef Py_ssize_t n1, n2, nw
        cdef Bracket* a
        cdef Bracket* b
        cdef bint nonempty = False, crossed
        if self._parse(t1, g, len(gold), True) < 0 or self._parse(t2, s, len(test), False) < 0:
            return None
        nw = t1.nw
        if t2.nw == 0 or nw != t2.nw:
            return None
        for i in range(nw):
            if not pair_equal(&self.eq_word_a.set, &self.eq_word_b.set, g + t1.words[i].off, t1.words[i].n,
                              s + t2.words[i].off, t2.words[i].n):
                return None
        gold_n = self._massage(t1, g, &nonempty)
        test_n = self._massage(t2, s, &nonempty)
        if nonempty:
            self.any_nonempty = True
        # Greedy one-to-one matching in gold order, first free test bracket with the
        # same span and label.  Test brackets are bucketed by start position, in
        # their original order, which visits the same candidates as a full scan.
        for x in range(nw + 1):
            t2.head[x] = -1
        for j in range(t2.nb):
            b = &t2.brackets[j]
            t2.next[j] = -1
            if b.result != 0:
                continue
            if t2.head[b.start] == -1:
                t2.head[b.start] = j
            else:
                t2.next[t2.tail[b.start]] = j
            t2.tail[b.start] = j
        for i in range(t1.nb):
            a = &t1.brackets[i]
            if a.result == 5:
                continue
            j = t2.head[a.start]
            while j != -1:
                b = &t2.brackets[j]
                if b.result == 0 and a.end == b.end:
                    if not self.labeled or self._label_equal(g + a.loff, a.llen, s + b.loff, b.llen):
                        a.result = 1
                        b.result = 1
                        match += 1
                        break
                j = t2.next[j]
        # Crossing: a kept test bracket (ts, te) crosses when some kept gold bracket
        # ends strictly inside it having started before ts, or starts strictly inside
        # it and ends after te.
        for x in range(nw + 1):
            t1.max_end[x] = -1
            t1.min_start[x] = nw + 1
        for i in range(t1.nb):
            a = &t1.brackets[i]
            if a.result == 5:
                continue
            if a.end > t1.max_end[a.start]:
                t1.max_end[a.start] = a.end
            if a.start < t1.min_start[a.end]:
                t1.min_start[a.end] = a.start
        for j in range(t2.nb):
            b = &t2.brackets[j]
            if b.result == 5:
                continue
            for x in range(b.start + 1, b.end):
                if t1.max_end[x] > b.end or t1.min_start[x] < b.start:
                    crossing += 1
                    break
        # tagging accuracy (the SPMRL program compares cut tags)
        for i in range(nw):
            n1 = t1.tags[i].n
            n2 = t2.tags[i].n
            if self.spmrl:
                n1 = self._cut(g + t1.tags[i].off, n1)
                n2 = self._cut(s + t2.tags[i].off, n2)
            if self._label_equal(g + t1.tags[i].off, n1, s + t2.tags[i].off, n2):
                correct += 1
        return (line, t1.length, 0, match, gold_n, test_n, crossing, nw, correct)

    def score(self, Py_ssize_t line, bytes gold, bytes test):
        """Row ``(line, length, 0, matched, gold, test, crossing, words, correct_tags)`` or None."""
        return self._score(line, gold, test)

    def score_many(self, list gold, list test, Py_ssize_t start, Py_ssize_t stop, list rows):
        """Score pairs ``start <= i < stop`` (line ``i + 1``) into ``rows``; returns where it stopped.

        Stops at the first pair that needs the reference path (or at ``stop``).
        """
        cdef Py_ssize_t i
        cdef object row
        for i in range(start, stop):
            row = self._score(i + 1, <bytes> gold[i], <bytes> test[i])
            if row is None:
                return i
            rows.append(row)
        return stop
