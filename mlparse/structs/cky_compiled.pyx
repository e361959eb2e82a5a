# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled CKY core; see mlparse.structs.cky for the public API and
mlparse.structs.chart_tree for the rules (tie-breaking, arithmetic order)
that this code must follow exactly like the pure-Python reference.

Scores must be finite (NaN gives an unspecified tree)."""

from libc.stdlib cimport free, malloc

ctypedef fused real:
    float
    double


include "label_scan.pxi"


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
