"""Maximum spanning tree with exactly one root dependent: pure Python, O(n^2).

The compiled twin (:mod:`mlparse.structs.mst_compiled`) runs the same steps in
the same order with the same float64 arithmetic, so both return identical heads.

Algorithm (Chu-Liu/Edmonds, contracting every cycle as in Tarjan 1977; Zmigrod et
al. 2020 discuss the single-root constraint):

1. Every word chooses its best incoming arc **from another word** (root arcs are
   left out of the choice; the first maximum, lowest head on ties).  Because
   every word has such an arc, the chosen arcs always contain a cycle while two
   or more nodes remain.  Follow chosen arcs backwards from a node, growing a
   path; when the path meets itself, contract the cycle C into a new node c:

   * into c, from every other node u (the root included):
     ``W[u, c] = max over v in C of W[u, v] - W[in(v), v]`` (the cycle arc into v
     that entering at v breaks);
   * out of c, to every other word x: ``W[c, x] = max over v in C of W[v, x]``;

   remembering which original arc each entry stands for.  Repeat until all words
   are one node.  By Edmonds' exchange argument (which also holds when the cycle
   is entered from the root), some best single-rooted tree keeps every arc of
   each contracted cycle but the one into the node where the cycle is entered,
   and the weights into a contracted node are all shifted by the same constant
   (the cycle's weight), so the best single-rooted tree enters the last node by
   its best (adjusted) root arc.
2. Expand: take that root arc; walk the contraction forest from the newest node
   to the oldest, and for each node not yet entered, add the cycle arc chosen
   into it when it was contracted; an added arc enters every forest node
   between its dependent and that node.

Each contraction costs O(|C| * nodes), the cycle sizes sum to < 2n, so the time
is O(n^2) and the memory O(n^2) (two (2n, 2n) tables).
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from mlparse.structs.dep_tree import NO_HEAD, ROOT, check_arc_scores

NEG_INF = float("-inf")


def mst_heads(scores: List[List[float]], n: int) -> List[int]:
    """Heads of the best single-rooted tree; ``scores[h][d]`` (head first), n >= 1 words."""
    if n == 1:
        return [NO_HEAD, ROOT]
    size = 2 * n  # node ids: 0 root, 1..n words, n+1..2n-1 contracted cycles
    weight = [[0.0] * size for _ in range(size)]
    arc = [[0] * size for _ in range(size)]  # original arc h * (n + 1) + d behind weight[u][v]
    for u in range(n + 1):
        for v in range(1, n + 1):
            weight[u][v] = scores[u][v]
            arc[u][v] = u * (n + 1) + v
    parent = [-1] * size  # contraction forest
    up = [-1] * size  # parent pointers compressed towards the active ancestor
    active = [False] * size
    on_path = [False] * size
    best_in = [0] * size  # source (a node id, maybe contracted since) of the chosen arc into a node
    enter = [0] * size  # the cycle arc into a node when its cycle was contracted
    for v in range(1, n + 1):
        active[v] = True
        best_value, best_source = NEG_INF, 0
        for u in range(1, n + 1):
            if u != v and scores[u][v] > best_value:
                best_value, best_source = scores[u][v], u
        best_in[v] = best_source

    def find(node: int) -> int:
        top = node
        while up[top] != -1:
            top = up[top]
        while up[node] != -1 and up[node] != top:
            up[node], node = top, up[node]
        return top

    next_id = n + 1
    remaining = n
    path = [1]
    on_path[1] = True
    while remaining > 1:
        source = find(best_in[path[-1]])
        if not on_path[source]:
            path.append(source)
            on_path[source] = True
            continue
        # Contract the cycle source .. path[-1] into node c.
        start = path.index(source)
        cycle = path[start:]
        del path[start:]
        c = next_id
        next_id += 1
        cycle_value = [0.0] * len(cycle)
        for index, v in enumerate(cycle):
            u = find(best_in[v])
            cycle_value[index] = weight[u][v]
            enter[v] = arc[u][v]
        for v in cycle:
            parent[v] = c
            up[v] = c
            active[v] = False
            on_path[v] = False
        for u in range(next_id - 1):
            if not active[u] and u != ROOT:
                continue
            best_value, best_arc = NEG_INF, 0
            for index, v in enumerate(cycle):
                value = weight[u][v] - cycle_value[index]
                if value > best_value:
                    best_value, best_arc = value, arc[u][v]
            weight[u][c] = best_value
            arc[u][c] = best_arc
            if u == ROOT:
                continue
            best_value, best_arc = NEG_INF, 0
            for v in cycle:
                if weight[v][u] > best_value:
                    best_value, best_arc = weight[v][u], arc[v][u]
            weight[c][u] = best_value
            arc[c][u] = best_arc
        active[c] = True
        remaining -= len(cycle) - 1
        best_value, best_source = NEG_INF, 0
        for u in range(1, c):
            if active[u] and weight[u][c] > best_value:
                best_value, best_source = weight[u][c], u
        best_in[c] = best_source
        path.append(c)
        on_path[c] = True

    # Expand from the root arc into the last node.
    heads = [NO_HEAD] * (n + 1)
    entered = [False] * next_id
    top = next_id - 1
    dependent = arc[ROOT][top] % (n + 1)
    heads[dependent] = ROOT
    node = dependent
    while node != -1:
        entered[node] = True
        node = parent[node]
    for node in range(next_id - 1, 0, -1):
        if entered[node]:
            continue
        head, dependent = divmod(enter[node], n + 1)
        heads[dependent] = head
        x = dependent
        while x != node:
            entered[x] = True
            x = parent[x]
        entered[node] = True
    return heads


def decode_mst_reference(scores: np.ndarray, length: Optional[int] = None) -> np.ndarray:
    """Best non-projective tree with exactly one root dependent (pure Python).

    Args:
        scores: float array (N+1, N+1), ``scores[h, d]`` = score of the arc head h ->
            dependent d (head first; position 0 is the root); only
            ``scores[:n+1, 1:n+1]`` off the diagonal is read.
        length: the sentence length n when the array is padded (default N).

    Returns:
        int64 heads (n+1,), ``heads[0] = -1`` (see :mod:`mlparse.structs.dep_tree`).
    """
    n = check_arc_scores(scores, length)
    rows = np.asarray(scores[: n + 1, : n + 1], dtype=np.float64).tolist()
    return np.asarray(mst_heads(rows, n), dtype=np.int64)
