# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled CKY core; see mlparse.structs.cky for the public API and
mlparse.structs.chart_tree for the rules (tie-breaking, arithmetic order)
that this code must follow exactly like the pure-Python reference.

Scores must be finite (NaN gives an unspecified tree)."""

from libc.stdlib cimport free, malloc

ctypedef fused real:
    float
    double


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


def cky_core(real[:, :, ::1] scores, Py_ssize_t n, int[:, ::1] gold=None):
    """Decode one sentence: returns (score, spans in pre-order).

    scores: contiguous (N+1, N+1, L) float32 or float64 array, 1 <= n <= N.
    gold: optional contiguous (N+1, N+1) int32 gold labels (0 off the gold
    tree) for Hamming-augmented decoding.
    """
    cdef Py_ssize_t num_labels = scores.shape[2]
    cdef Py_ssize_t stride = n + 1, cells = (n + 1) * (n + 1)
    cdef Py_ssize_t i, j, k, width, best_k, top
    cdef double value, best_value, root
    cdef bint augment = gold is not None
    if n < 1 or n >= scores.shape[0] or n >= scores.shape[1]:
        raise ValueError(f"sentence length {n} does not fit scores of shape {tuple(scores.shape)}")
    if augment and (gold.shape[0] < n + 1 or gold.shape[1] < n + 1):
        raise ValueError("the gold label matrix is smaller than the sentence")

    # Tables indexed [i * stride + j]: label value, best subtree score, label, split.
    cdef double* label_value = <double*> malloc(2 * cells * sizeof(double))
    cdef Py_ssize_t* label_index = <Py_ssize_t*> malloc((2 * cells + 2 * n + 2) * sizeof(Py_ssize_t))
    if label_value == NULL or label_index == NULL:
        free(label_value)
        free(label_index)
        raise MemoryError()
    cdef double* best = label_value + cells
    cdef Py_ssize_t* split = label_index + cells
    cdef Py_ssize_t* stack = label_index + 2 * cells

    spans = []
    try:
        with nogil:
            # 1. Best label per span.
            for i in range(n):
                for j in range(i + 1, n + 1):
                    if augment:
                        label_index[i * stride + j] = best_augmented_label(
                            &scores[i, j, 0], num_labels, gold[i, j], &label_value[i * stride + j])
                    else:
                        label_index[i * stride + j] = best_label(
                            &scores[i, j, 0], num_labels, &label_value[i * stride + j])

            # 2. CKY over spans: best[i, j] = label[i, j] + max_k (best[i, k] + best[k, j]).
            for i in range(n):
                best[i * stride + i + 1] = label_value[i * stride + i + 1]
            for width in range(2, n + 1):
                for i in range(n - width + 1):
                    j = i + width
                    best_value = best[i * stride + i + 1] + best[(i + 1) * stride + j]
                    best_k = i + 1
                    for k in range(i + 2, j):
                        value = best[i * stride + k] + best[k * stride + j]
                        if value > best_value:
                            best_value = value
                            best_k = k
                    best[i * stride + j] = label_value[i * stride + j] + best_value
                    split[i * stride + j] = best_k
            root = best[n]

        # 3. Back-track in pre-order (push right, then left).
        stack[0] = 0
        stack[1] = n
        top = 2
        while top > 0:
            top -= 2
            i = stack[top]
            j = stack[top + 1]
            spans.append((i, j, label_index[i * stride + j]))
            if j - i >= 2:
                k = split[i * stride + j]
                stack[top] = k
                stack[top + 1] = j
                stack[top + 2] = i
                stack[top + 3] = k
                top += 4
    finally:
        free(label_value)
        free(label_index)
    return root, spans
