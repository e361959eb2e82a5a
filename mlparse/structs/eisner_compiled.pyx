# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled Eisner decoder with one root dependent; see mlparse.structs.eisner for
the public API and mlparse.structs.eisner_reference for the rules (recurrences,
ties, arithmetic order), which this code follows exactly.

Tables are flat (n+1) x (n+1) arrays.  Every table an inner loop scans along its
second index is also kept transposed, so all inner loops read memory in order.
"""

import numpy as np

from libc.math cimport isfinite
from libc.stdlib cimport free, malloc

ctypedef fused real:
    float
    double


cdef bint all_finite(const real[:, :] scores, Py_ssize_t n) noexcept nogil:
    """Whether scores[:n+1, 1:n+1] is finite off the diagonal."""
    cdef Py_ssize_t h, d
    for h in range(n + 1):
        for d in range(1, n + 1):
            if h != d and not isfinite(scores[h, d]):
                return False
    return True


def eisner_core(const real[:, :] scores, Py_ssize_t n):
    """Heads (int64 array (n+1,), heads[0] = -1) of the best projective single-rooted tree.

    scores: (N+1, N+1) float32 or float64, ``scores[h, d]`` head first, 1 <= n <= N.
    Returns None when a score it would read is not finite.
    """
    if n < 1 or n >= scores.shape[0] or n >= scores.shape[1]:
        raise ValueError(f"sentence length {n} does not fit arc scores of shape {tuple(scores.shape)[:2]}")
    if not all_finite(scores, n):
        return None
    heads_array = np.full(n + 1, -1, dtype=np.int64)
    cdef long long[::1] heads = heads_array
    cdef Py_ssize_t size = n + 1, cells = size * size
    # complete_right [s, t] and by end [t, s], complete_left [s, t] and by end [t, s],
    # incomplete_right [s, t], incomplete_left by end [t, s].
    cdef double* tables = <double*> malloc(6 * cells * sizeof(double))
    cdef Py_ssize_t* splits = <Py_ssize_t*> malloc((3 * cells + 12 * size) * sizeof(Py_ssize_t))
    if tables == NULL or splits == NULL:
        free(tables)
        free(splits)
        raise MemoryError()
    cdef double* right = tables
    cdef double* right_by_end = tables + cells
    cdef double* left = tables + 2 * cells
    cdef double* left_by_end = tables + 3 * cells
    cdef double* inc_right = tables + 4 * cells
    cdef double* inc_left_by_end = tables + 5 * cells
    cdef Py_ssize_t* split_inc = splits
    cdef Py_ssize_t* split_right = splits + cells
    cdef Py_ssize_t* split_left = splits + 2 * cells
    # (kind, s, t) triples.  Every non-trivial span pops once and pushes two: the n-1
    # incomplete spans and as many non-trivial complete ones (each holds one incomplete
    # child) push 4n-4 triples after the first two, so 4n+4 triples always fit.
    cdef Py_ssize_t* stack = splits + 3 * cells

    cdef Py_ssize_t width, s, t, k, best_k, r, top, kind
    cdef double best, value, inner
    cdef const double* row_a
    cdef const double* row_b
    try:
        with nogil:
            for s in range(size):
                right[s * size + s] = 0.0
                right_by_end[s * size + s] = 0.0
                left[s * size + s] = 0.0
                left_by_end[s * size + s] = 0.0
            for width in range(1, n):
                for s in range(1, n - width + 1):
                    t = s + width
                    # split: complete_right[s, k] + complete_left[k+1, t], k = s..t-1
                    row_a = right + s * size
                    row_b = left_by_end + t * size
                    best = row_a[s] + row_b[s + 1]
                    best_k = s
                    for k in range(s + 1, t):
                        value = row_a[k] + row_b[k + 1]
                        if value > best:
                            best = value
                            best_k = k
                    inner = best
                    inc_right[s * size + t] = inner + scores[s, t]
                    inc_left_by_end[t * size + s] = inner + scores[t, s]
                    split_inc[s * size + t] = best_k
                    # complete_right[s, t]: incomplete_right[s, k] + complete_right[k, t], k = s+1..t
                    row_a = inc_right + s * size
                    row_b = right_by_end + t * size
                    best = row_a[s + 1] + row_b[s + 1]
                    best_k = s + 1
                    for k in range(s + 2, t + 1):
                        value = row_a[k] + row_b[k]
                        if value > best:
                            best = value
                            best_k = k
                    right[s * size + t] = best
                    right_by_end[t * size + s] = best
                    split_right[s * size + t] = best_k
                    # complete_left[s, t]: complete_left[s, k] + incomplete_left[k, t], k = s..t-1
                    row_a = left + s * size
                    row_b = inc_left_by_end + t * size
                    best = row_a[s] + row_b[s]
                    best_k = s
                    for k in range(s + 1, t):
                        value = row_a[k] + row_b[k]
                        if value > best:
                            best = value
                            best_k = k
                    left[s * size + t] = best
                    left_by_end[t * size + s] = best
                    split_left[s * size + t] = best_k
            # The root's one dependent.
            best = (left[1 * size + 1] + right[1 * size + n]) + scores[0, 1]
            r = 1
            for k in range(2, n + 1):
                value = (left[1 * size + k] + right[k * size + n]) + scores[0, k]
                if value > best:
                    best = value
                    r = k
            heads[r] = 0
            # Back-track: kinds 0 complete_right, 1 complete_left, 2 incomplete_right, 3 incomplete_left.
            stack[0] = 1
            stack[1] = 1
            stack[2] = r
            stack[3] = 0
            stack[4] = r
            stack[5] = n
            top = 6
            while top > 0:
                top -= 3
                kind = stack[top]
                s = stack[top + 1]
                t = stack[top + 2]
                if s == t:
                    continue
                if kind == 0:
                    k = split_right[s * size + t]
                    stack[top] = 2
                    stack[top + 1] = s
                    stack[top + 2] = k
                    stack[top + 3] = 0
                    stack[top + 4] = k
                    stack[top + 5] = t
                elif kind == 1:
                    k = split_left[s * size + t]
                    stack[top] = 1
                    stack[top + 1] = s
                    stack[top + 2] = k
                    stack[top + 3] = 3
                    stack[top + 4] = k
                    stack[top + 5] = t
                else:
                    if kind == 2:
                        heads[t] = s
                    else:
                        heads[s] = t
                    k = split_inc[s * size + t]
                    stack[top] = 0
                    stack[top + 1] = s
                    stack[top + 2] = k
                    stack[top + 3] = 1
                    stack[top + 4] = k + 1
                    stack[top + 5] = t
                top += 6
    finally:
        free(tables)
        free(splits)
    return heads_array
