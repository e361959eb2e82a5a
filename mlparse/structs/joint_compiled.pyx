# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled core of the exact joint span + dependency decoder; see mlparse.structs.joint
for the public API and mlparse.structs.joint_reference for the recurrences, which this
code follows exactly (same float64 sums, same tie-breaking).

One table of (n+1)^3 doubles holds both charts of the reference: for a span (a, b),
the entries h in (a, b] are best[a, b, h] and the entries h outside (a, b] are
hook[a, b, h] (the two index ranges are disjoint).  The forward pass keeps values
only, as element-wise maxima over contiguous rows that the C compiler vectorises (a
maximum is exact, so its order does not matter); the back-track recomputes the
arg max of the 2n - 1 cells it visits with the reference's rule (the first index
reaching the maximum), O(n) each.  Scores must be finite."""

import numpy as np

from libc.stdlib cimport free, malloc

ctypedef fused real:
    float
    double


include "label_scan.pxi"


cdef inline void max_into(double* cell, const double* left, const double* right, Py_ssize_t start,
                          Py_ssize_t stop) noexcept nogil:
    """cell[h] = max(cell[h], left[h] + right[h]) for h in start..stop-1 (branch-free, vectorisable)."""
    cdef Py_ssize_t h
    cdef double value
    for h in range(start, stop):
        value = left[h] + right[h]
        cell[h] = value if value > cell[h] else cell[h]


cdef inline void shift_max_into(double* cell, double shift, const double* row, Py_ssize_t start,
                                Py_ssize_t stop) noexcept nogil:
    """cell[h] = max(cell[h], shift + row[h]) for h in start..stop-1 (branch-free, vectorisable)."""
    cdef Py_ssize_t h
    cdef double value
    for h in range(start, stop):
        value = shift + row[h]
        cell[h] = value if value > cell[h] else cell[h]


cdef inline void make_best(double* chart, Py_ssize_t i, Py_ssize_t j, Py_ssize_t stride,
                           double label_value) noexcept nogil:
    """best[i, j, h] = lab + max over k of (left + right) for every h in (i, j] (width >= 2)."""
    cdef double* cell = chart + (i * stride + j) * stride
    cdef Py_ssize_t k, h
    for h in range(i + 1, j + 1):
        cell[h] = -1.0 / 0.0
    for k in range(i + 1, j):
        # h <= k: best[i, k, h] + hook[k, j, h];  h > k: hook[i, k, h] + best[k, j, h].
        max_into(cell, chart + (i * stride + k) * stride, chart + (k * stride + j) * stride, i + 1, j + 1)
    for h in range(i + 1, j + 1):
        cell[h] = label_value + cell[h]


cdef inline void make_hooks(double* chart, const double* arcs_by_dependent, Py_ssize_t a, Py_ssize_t b,
                            Py_ssize_t n) noexcept nogil:
    """hook[a, b, h] = max over h' in (a, b] of best[a, b, h'] + arc(h, h'), for h in 1..a and b+1..n.

    ``arcs_by_dependent[h' * (n+1) + h]`` is arc(h, h') (the transposed matrix), so the
    inner loops run over contiguous h.
    """
    cdef Py_ssize_t stride = n + 1
    cdef double* cell = chart + (a * stride + b) * stride
    cdef Py_ssize_t h, head
    for h in range(1, a + 1):
        cell[h] = -1.0 / 0.0
    for h in range(b + 1, n + 1):
        cell[h] = -1.0 / 0.0
    for head in range(a + 1, b + 1):
        shift_max_into(cell, cell[head], arcs_by_dependent + head * stride, 1, a + 1)
        shift_max_into(cell, cell[head], arcs_by_dependent + head * stride, b + 1, n + 1)


cdef inline Py_ssize_t best_split(const double* chart, Py_ssize_t i, Py_ssize_t j, Py_ssize_t h,
                                  Py_ssize_t stride) noexcept nogil:
    """The reference's split of cell (i, j, h): the first k reaching the maximum of left + right."""
    cdef Py_ssize_t k, top_k = i + 1
    cdef double value, top = -1.0 / 0.0
    for k in range(i + 1, j):
        value = chart[(i * stride + k) * stride + h] + chart[(k * stride + j) * stride + h]
        if value > top:
            top = value
            top_k = k
    return top_k


cdef inline Py_ssize_t best_hooked(const double* chart, const double* arcs, Py_ssize_t a, Py_ssize_t b,
                                   Py_ssize_t h, Py_ssize_t stride) noexcept nogil:
    """The reference's hooked head of hook[a, b, h]: the first h' reaching the maximum."""
    cdef const double* cell = chart + (a * stride + b) * stride
    cdef Py_ssize_t head, top_head = a + 1
    cdef double value, top = -1.0 / 0.0
    for head in range(a + 1, b + 1):
        value = cell[head] + arcs[h * stride + head]
        if value > top:
            top = value
            top_head = head
    return top_head


def joint_core(real[:, :, ::1] scores, double[:, ::1] arcs, Py_ssize_t n, int[:, ::1] gold=None):
    """Decode one sentence: returns (score, spans in pre-order, heads int64 (n+1,)).

    scores: contiguous (N+1, N+1, L) float32 or float64 span scores, 1 <= n <= N.
    arcs: contiguous float64 (n+1, n+1) arc scores (already Hamming-augmented if wanted).
    gold: optional contiguous (N+1, N+1) int32 gold labels (0 off the gold tree).
    """
    cdef Py_ssize_t num_labels = scores.shape[2]
    cdef Py_ssize_t stride = n + 1
    cdef Py_ssize_t i, j, k, h, d, width, root_head, dependent, top
    cdef double value, root, label_value
    cdef bint augment = gold is not None
    if n < 1 or n >= scores.shape[0] or n >= scores.shape[1]:
        raise ValueError(f"sentence length {n} does not fit span scores of shape {tuple(scores.shape)}")
    if arcs.shape[0] != n + 1 or arcs.shape[1] != n + 1:
        raise ValueError(f"arc scores must have shape ({n + 1}, {n + 1}), got {tuple(arcs.shape)[:2]}")
    if augment and (gold.shape[0] < n + 1 or gold.shape[1] < n + 1):
        raise ValueError("the gold label matrix is smaller than the sentence")

    cdef Py_ssize_t cells = stride * stride * stride
    cdef double* chart = <double*> malloc((cells + stride * stride) * sizeof(double))
    cdef Py_ssize_t* label_index = <Py_ssize_t*> malloc((stride * stride + 6 * n + 6) * sizeof(Py_ssize_t))
    if chart == NULL or label_index == NULL:
        free(chart)
        free(label_index)
        raise MemoryError()
    cdef double* arcs_by_dependent = chart + cells
    cdef Py_ssize_t* stack = label_index + stride * stride
    cdef const double* arc = &arcs[0, 0]
    cdef double* cell

    heads_array = np.full(n + 1, -1, dtype=np.int64)
    cdef long long[::1] heads = heads_array
    spans = []
    try:
        with nogil:
            for h in range(stride):
                for d in range(stride):
                    arcs_by_dependent[d * stride + h] = arc[h * stride + d]
            for width in range(1, n + 1):
                for i in range(n - width + 1):
                    j = i + width
                    if augment:
                        label_index[i * stride + j] = best_augmented_label(
                            &scores[i, j, 0], num_labels, gold[i, j], &label_value)
                    else:
                        label_index[i * stride + j] = best_label(&scores[i, j, 0], num_labels, &label_value)
                    if width == 1:
                        chart[(i * stride + j) * stride + j] = label_value
                    else:
                        make_best(chart, i, j, stride, label_value)
                    if width < n:
                        make_hooks(chart, arcs_by_dependent, i, j, n)

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
            k = best_split(chart, i, j, h, stride)
            if h <= k:
                dependent = best_hooked(chart, arc, k, j, h, stride)
                stack[top] = k
                stack[top + 1] = j
                stack[top + 2] = dependent
                stack[top + 3] = i
                stack[top + 4] = k
                stack[top + 5] = h
            else:
                dependent = best_hooked(chart, arc, i, k, h, stride)
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
        free(label_index)
    return root, spans, heads_array
