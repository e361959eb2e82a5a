# Included by cky_compiled.pyx and joint_compiled.pyx (after their ``ctypedef fused real``): the label of
# one span, plain or Hamming-augmented, by the rules of mlparse.structs.chart_tree (the pure-Python
# reference decoders follow the same rules; both compiled decoders must give bit-identical results).

cdef inline Py_ssize_t best_label(const real* row, Py_ssize_t num_labels, double* value) noexcept nogil:
    """Plain decoding: first label of maximal score among 1..L-1 if that score is > 0, else EMPTY."""
    cdef Py_ssize_t l
    cdef real m0, m1, m2, m3, m4, m5, m6, m7, top
    if num_labels < 2:
        value[0] = 0.0
        return 0
    # Pass 1: the maximum, with eight independent accumulators (no dependency chain).
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = row[1]
    l = 1
    while l + 8 <= num_labels:
        m0 = row[l] if row[l] > m0 else m0
        m1 = row[l + 1] if row[l + 1] > m1 else m1
        m2 = row[l + 2] if row[l + 2] > m2 else m2
        m3 = row[l + 3] if row[l + 3] > m3 else m3
        m4 = row[l + 4] if row[l + 4] > m4 else m4
        m5 = row[l + 5] if row[l + 5] > m5 else m5
        m6 = row[l + 6] if row[l + 6] > m6 else m6
        m7 = row[l + 7] if row[l + 7] > m7 else m7
        l += 8
    while l < num_labels:
        m0 = row[l] if row[l] > m0 else m0
        l += 1
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    m4 = m5 if m5 > m4 else m4
    m6 = m7 if m7 > m6 else m6
    m0 = m2 if m2 > m0 else m0
    m4 = m6 if m6 > m4 else m4
    top = m4 if m4 > m0 else m0
    if not (top > 0):
        value[0] = 0.0
        return 0
    # Pass 2: the first label reaching it (lowest index on ties).
    for l in range(1, num_labels):
        if row[l] == top:
            value[0] = top
            return l
    # Unreachable for finite scores: fall back to a plain scan.
    value[0] = 0.0
    top = 0
    cdef Py_ssize_t label = 0
    for l in range(1, num_labels):
        if row[l] > top:
            top = row[l]
            label = l
    value[0] = top
    return label


cdef inline Py_ssize_t best_augmented_label(const real* row, Py_ssize_t num_labels, Py_ssize_t g, double* value) noexcept nogil:
    """Hamming-augmented: best non-gold label by raw score (+1.0) against the gold label's raw score."""
    cdef Py_ssize_t l, other_label = -1
    cdef double other_value = -1.0 / 0.0
    cdef double gold_value, augmented
    if g != 0:
        other_value = 0.0
        other_label = 0
    for l in range(1, num_labels):
        if l != g and row[l] > other_value:
            other_value = row[l]
            other_label = l
    gold_value = 0.0 if g == 0 else <double> row[g]
    augmented = other_value + 1.0
    if augmented > gold_value or (augmented == gold_value and other_label < g):
        value[0] = augmented
        return other_label
    value[0] = gold_value
    return g
