# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled core of the exact joint span + dependency decoder; see mlparse.structs.joint
for the public API and mlparse.structs.joint_reference for the recurrences, which this
code follows exactly (same float64 arithmetic order, same tie-breaking).

One table of (n+1)^3 doubles holds both charts of the reference: for a span (a, b),
the entries h in (a, b] are best[a, b, h] and the entries h outside (a, b] are
hook[a, b, h] (the two index ranges are disjoint); a table of int32 beside it holds
the split k or the hooked head h'.  Scores must be finite."""

import numpy as np

from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

ctypedef fused real:
    float
    double


cdef inline Py_ssize_t best_label(const real* row, Py_ssize_t num_labels, double* value) noexcept nogil:
    """Plain decoding: the first label of maximal score among 1..L-1 if that score is > 0, else EMPTY."""
    cdef Py_ssize_t l, label = 0
    cdef double top = 0.0
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


cdef inline void make_hooks(double* chart, int32_t* back, const double* arcs, Py_ssize_t a, Py_ssize_t b,
                            Py_ssize_t n) noexcept nogil:
    """hook[a, b, h] = max over h' in (a, b] of best[a, b, h'] + arc(h, h'), for h in 1..a and b+1..n."""
    cdef Py_ssize_t stride = n + 1
    cdef double* cell = chart + (a * stride + b) * stride
    cdef int32_t* pointer = back + (a * stride + b) * stride
    cdef const double* row
    cdef Py_ssize_t h, head, top_head
    cdef double value, top
    for h in range(1, n + 1):
        if a < h <= b:
            continue
        row = arcs + h * stride
        top = cell[a + 1] + row[a + 1]
        top_head = a + 1
        for head in range(a + 2, b + 1):
            value = cell[head] + row[head]
            if value > top:
                top = value
                top_head = head
        cell[h] = top
        pointer[h] = <int32_t> top_head


def joint_core(real[:, :, ::1] scores, double[:, ::1] arcs, Py_ssize_t n, int[:, ::1] gold=None):
    """Decode one sentence: returns (score, spans in pre-order, heads int64 (n+1,)).

    scores: contiguous (N+1, N+1, L) float32 or float64 span scores, 1 <= n <= N.
    arcs: contiguous float64 (n+1, n+1) arc scores (already Hamming-augmented if wanted).
    gold: optional contiguous (N+1, N+1) int32 gold labels (0 off the gold tree).
    """
    cdef Py_ssize_t num_labels = scores.shape[2]
    cdef Py_ssize_t stride = n + 1
    cdef Py_ssize_t i, j, k, h, width, top_k, root_head, dependent, top
    cdef double value, root, label_value
    cdef bint augment = gold is not None
    if n < 1 or n >= scores.shape[0] or n >= scores.shape[1]:
        raise ValueError(f"sentence length {n} does not fit span scores of shape {tuple(scores.shape)}")
    if arcs.shape[0] != n + 1 or arcs.shape[1] != n + 1:
        raise ValueError(f"arc scores must have shape ({n + 1}, {n + 1}), got {tuple(arcs.shape)[:2]}")
    if augment and (gold.shape[0] < n + 1 or gold.shape[1] < n + 1):
        raise ValueError("the gold label matrix is smaller than the sentence")

    cdef Py_ssize_t cells = stride * stride * stride
    cdef double* chart = <double*> malloc(cells * sizeof(double))
    cdef int32_t* back = <int32_t*> malloc(cells * sizeof(int32_t))
    cdef Py_ssize_t* label_index = <Py_ssize_t*> malloc((stride * stride + 6 * n + 6) * sizeof(Py_ssize_t))
    if chart == NULL or back == NULL or label_index == NULL:
        free(chart)
        free(back)
        free(label_index)
        raise MemoryError()
    cdef Py_ssize_t* stack = label_index + stride * stride
    cdef double* cell
    cdef int32_t* pointer
    cdef double* left
    cdef double* right
    cdef const double* arc = &arcs[0, 0]

    heads_array = np.full(n + 1, -1, dtype=np.int64)
    cdef long long[::1] heads = heads_array
    spans = []
    try:
        with nogil:
            for width in range(1, n + 1):
                for i in range(n - width + 1):
                    j = i + width
                    if augment:
                        label_index[i * stride + j] = best_augmented_label(
                            &scores[i, j, 0], num_labels, gold[i, j], &label_value)
                    else:
                        label_index[i * stride + j] = best_label(&scores[i, j, 0], num_labels, &label_value)
                    cell = chart + (i * stride + j) * stride
                    pointer = back + (i * stride + j) * stride
                    if width == 1:
                        cell[j] = label_value
                    else:
                        # best[i, j, h] = lab + max_k (left + right), k ascending, strict > (smallest k).
                        for h in range(i + 1, j + 1):
                            cell[h] = -1.0 / 0.0
                        for k in range(i + 1, j):
                            left = chart + (i * stride + k) * stride   # best[i, k, .] / hook[i, k, .]
                            right = chart + (k * stride + j) * stride  # hook[k, j, .] / best[k, j, .]
                            # h <= k: best[i, k, h] + hook[k, j, h];  h > k: hook[i, k, h] + best[k, j, h].
                            for h in range(i + 1, j + 1):
                                value = left[h] + right[h]
                                if value > cell[h]:
                                    cell[h] = value
                                    pointer[h] = <int32_t> k
                        for h in range(i + 1, j + 1):
                            cell[h] = label_value + cell[h]
                    if width < n:
                        make_hooks(chart, back, arc, i, j, n)

            cell = chart + n * stride
            root = cell[1] + arc[1]
            root_head = 1
            for h in range(2, n + 1):
                value = cell[h] + arc[h]
                if value > root:
                    root = value
                    root_head = h

        # Back-track in pre-order (push right, then left); a stack entry is (i, j, head).
        heads[root_head] = 0
        stack[0] = 0
        stack[1] = n
        stack[2] = root_head
        top = 3
        while top > 0:
            top -= 3
            i = stack[top]
            j = stack[top + 1]
            h = stack[top + 2]
            spans.append((i, j, label_index[i * stride + j]))
            if j - i < 2:
                continue
            k = back[(i * stride + j) * stride + h]
            if h <= k:
                dependent = back[(k * stride + j) * stride + h]
                stack[top] = k
                stack[top + 1] = j
                stack[top + 2] = dependent
                stack[top + 3] = i
                stack[top + 4] = k
                stack[top + 5] = h
            else:
                dependent = back[(i * stride + k) * stride + h]
                stack[top] = k
                stack[top + 1] = j
                stack[top + 2] = h
                stack[top + 3] = i
                stack[top + 4] = k
                stack[top + 5] = dependent
            heads[dependent] = h
            top += 6
    finally:
        free(chart)
        free(back)
        free(label_index)
    return root, spans, heads_array
