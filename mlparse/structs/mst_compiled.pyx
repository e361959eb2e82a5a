# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled maximum spanning tree with one root dependent; see mlparse.structs.mst
for the public API and mlparse.structs.mst_reference for the algorithm, which
this code follows step by step (same order, same float64 arithmetic, same ties)."""

import numpy as np

from libc.math cimport isfinite
from libc.stdlib cimport free, malloc

ctypedef fused real:
    float
    double


cdef inline Py_ssize_t find(Py_ssize_t* up, Py_ssize_t node) noexcept nogil:
    """The active ancestor of ``node`` in the contraction forest (with path compression)."""
    cdef Py_ssize_t top = node, following
    while up[top] != -1:
        top = up[top]
    while up[node] != -1 and up[node] != top:
        following = up[node]
        up[node] = top
        node = following
    return top


cdef bint all_finite(const real[:, :] scores, Py_ssize_t n) noexcept nogil:
    """Whether scores[:n+1, 1:n+1] is finite off the diagonal."""
    cdef Py_ssize_t h, d
    for h in range(n + 1):
        for d in range(1, n + 1):
            if h != d and not isfinite(scores[h, d]):
                return False
    return True


def mst_core(const real[:, :] scores, Py_ssize_t n):
    """Heads (int64 array (n+1,), heads[0] = -1) of the best single-rooted tree.

    scores: (N+1, N+1) float32 or float64, ``scores[h, d]`` head first, 1 <= n <= N.
    Returns None when a score it would read is not finite.
    """
    if n < 1 or n >= scores.shape[0] or n >= scores.shape[1]:
        raise ValueError(f"sentence length {n} does not fit arc scores of shape {tuple(scores.shape)[:2]}")
    if not all_finite(scores, n):
        return None
    heads_array = np.full(n + 1, -1, dtype=np.int64)
    cdef long long[::1] heads = heads_array
    if n == 1:
        heads[1] = 0
        return heads_array

    cdef Py_ssize_t size = 2 * n, width = n + 1
    cdef double* weight = <double*> malloc(size * size * sizeof(double))
    cdef double* cycle_value = <double*> malloc(size * sizeof(double))
    cdef Py_ssize_t* arc = <Py_ssize_t*> malloc(size * size * sizeof(Py_ssize_t))
    cdef Py_ssize_t* ints = <Py_ssize_t*> malloc(7 * size * sizeof(Py_ssize_t))
    if weight == NULL or cycle_value == NULL or arc == NULL or ints == NULL:
        free(weight)
        free(cycle_value)
        free(arc)
        free(ints)
        raise MemoryError()
    cdef Py_ssize_t* parent = ints
    cdef Py_ssize_t* up = ints + size
    cdef Py_ssize_t* best_in = ints + 2 * size
    cdef Py_ssize_t* enter = ints + 3 * size
    cdef Py_ssize_t* path = ints + 4 * size
    cdef Py_ssize_t* flags = ints + 5 * size  # bit 1 active, bit 2 on the path, bit 4 entered
    cdef Py_ssize_t* cycle = ints + 6 * size

    cdef Py_ssize_t u, v, x, c, index, start, length, top, source, node, head, dependent
    cdef Py_ssize_t next_id, remaining, best_source, best_arc
    cdef double best_value, value
    try:
        with nogil:
            for u in range(n + 1):
                for v in range(1, n + 1):
                    weight[u * size + v] = scores[u, v]
                    arc[u * size + v] = u * width + v
            for v in range(size):
                parent[v] = -1
                up[v] = -1
                flags[v] = 0
            for v in range(1, n + 1):
                flags[v] = 1
                best_value = -1.0 / 0.0
                best_source = 0
                for u in range(1, n + 1):
                    if u != v and weight[u * size + v] > best_value:
                        best_value = weight[u * size + v]
                        best_source = u
                best_in[v] = best_source

            next_id = n + 1
            remaining = n
            path[0] = 1
            length = 1
            flags[1] |= 2
            while remaining > 1:
                source = find(up, best_in[path[length - 1]])
                if not (flags[source] & 2):
                    path[length] = source
                    length += 1
                    flags[source] |= 2
                    continue
                # Contract the cycle source .. path[length - 1] into node c.
                start = length - 1
                while path[start] != source:
                    start -= 1
                c = next_id
                next_id += 1
                for index in range(length - start):
                    v = path[start + index]
                    cycle[index] = v
                    u = find(up, best_in[v])
                    cycle_value[index] = weight[u * size + v]
                    enter[v] = arc[u * size + v]
                for index in range(length - start):
                    v = cycle[index]
                    parent[v] = c
                    up[v] = c
                    flags[v] = 0
                top = length - start  # the cycle's size
                length = start
                for u in range(c):
                    if not (flags[u] & 1) and u != 0:
                        continue
                    best_value = -1.0 / 0.0
                    best_arc = 0
                    for index in range(top):
                        v = cycle[index]
                        value = weight[u * size + v] - cycle_value[index]
                        if value > best_value:
                            best_value = value
                            best_arc = arc[u * size + v]
                    weight[u * size + c] = best_value
                    arc[u * size + c] = best_arc
                    if u == 0:
                        continue
                    best_value = -1.0 / 0.0
                    best_arc = 0
                    for index in range(top):
                        v = cycle[index]
                        if weight[v * size + u] > best_value:
                            best_value = weight[v * size + u]
                            best_arc = arc[v * size + u]
                    weight[c * size + u] = best_value
                    arc[c * size + u] = best_arc
                flags[c] = 1
                remaining -= top - 1
                best_value = -1.0 / 0.0
                best_source = 0
                for u in range(1, c):
                    if (flags[u] & 1) and weight[u * size + c] > best_value:
                        best_value = weight[u * size + c]
                        best_source = u
                best_in[c] = best_source
                path[length] = c
                length += 1
                flags[c] |= 2

            # Expand from the root arc into the last node.
            for node in range(next_id):
                flags[node] = 0
            top = next_id - 1
            dependent = arc[top] % width  # arc[0 * size + top]
            heads[dependent] = 0
            node = dependent
            while node != -1:
                flags[node] = 4
                node = parent[node]
            for node in range(next_id - 1, 0, -1):
                if flags[node]:
                    continue
                head = enter[node] // width
                dependent = enter[node] % width
                heads[dependent] = head
                x = dependent
                while x != node:
                    flags[x] = 4
                    x = parent[x]
                flags[node] = 4
    finally:
        free(weight)
        free(cycle_value)
        free(arc)
        free(ints)
    return heads_array
