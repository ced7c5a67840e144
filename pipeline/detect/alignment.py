"""Aligning two sequences of row (column) signatures: the core of a sheet diff.

Exact runs come from :class:`difflib.SequenceMatcher`; the blocks it cannot match
exactly are aligned by Needleman-Wunsch on a similarity score. Long sequences are
anchored first (equal ends, elements unique on both sides chained by a longest
increasing subsequence, equal runs grown around them) so only the gaps between
anchors pay the quadratic step: near-linear on large sheets.
"""

from __future__ import annotations

import bisect
import difflib
from collections import Counter
from collections.abc import Callable, Hashable, Sequence

# alignment beyond these sizes falls back to position (keeps the diff near-linear)
DP_MAX_CELLS = 40_000
ANCHOR_MIN_LENGTH = 4_000  # longer sequence pairs are anchored before any quadratic step
ANCHOR_MAX_DEPTH = 32
BLOCK_MAX_CELLS = 4_000_000  # a gap without anchors beyond this is paired by position
GAP_PENALTY = 0.5  # pairing two unrelated lines (score 0) beats an insert + a delete (-1)


def needleman_wunsch(
    n: int, m: int, similarity: Callable[[int, int], float], gap: float = GAP_PENALTY
) -> list[tuple[int | None, int | None]]:
    """Global alignment of two sequences of lengths n and m (indices, None for a gap)."""
    score = [[0.0] * (m + 1) for _ in range(n + 1)]
    move = [[0] * (m + 1) for _ in range(n + 1)]  # 0 diag, 1 up (gap in b), 2 left (gap in a)
    for i in range(1, n + 1):
        score[i][0], move[i][0] = -gap * i, 1
    for j in range(1, m + 1):
        score[0][j], move[0][j] = -gap * j, 2
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            diag = score[i - 1][j - 1] + similarity(i - 1, j - 1)
            up = score[i - 1][j] - gap
            left = score[i][j - 1] - gap
            if diag >= up and diag >= left:
                score[i][j], move[i][j] = diag, 0
            elif up >= left:
                score[i][j], move[i][j] = up, 1
            else:
                score[i][j], move[i][j] = left, 2
    pairs: list[tuple[int | None, int | None]] = []
    i, j = n, m
    while i > 0 or j > 0:
        if i > 0 and j > 0 and move[i][j] == 0:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i > 0 and (j == 0 or move[i][j] == 1):
            pairs.append((i - 1, None))
            i -= 1
        else:
            pairs.append((None, j - 1))
            j -= 1
    return pairs[::-1]


def _align_block(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    similarity: Callable[[int, int], float],
    gap: float,
    i0: int = 0,
    j0: int = 0,
) -> list[tuple[int | None, int | None]]:
    """Exact runs by :class:`difflib.SequenceMatcher`, fuzzy alignment in between
    (indices offset by ``i0``/``j0``). Quadratic in the worst case: only for blocks."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    pairs: list[tuple[int | None, int | None]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        i1, i2, j1, j2 = i1 + i0, i2 + i0, j1 + j0, j2 + j0
        if tag == "equal":
            pairs.extend(zip(range(i1, i2), range(j1, j2), strict=True))
        elif tag == "delete":
            pairs.extend((i, None) for i in range(i1, i2))
        elif tag == "insert":
            pairs.extend((None, j) for j in range(j1, j2))
        else:
            pairs.extend(_fuzzy(i1, i2, j1, j2, similarity, gap))
    return pairs


def _fuzzy(
    i1: int, i2: int, j1: int, j2: int, similarity: Callable[[int, int], float], gap: float
) -> list[tuple[int | None, int | None]]:
    """Needleman-Wunsch on a block the exact pass could not match; by position when
    the block is too large for the quadratic alignment."""
    n, m = i2 - i1, j2 - j1
    if n * m <= DP_MAX_CELLS:
        block = needleman_wunsch(n, m, lambda x, y: similarity(i1 + x, j1 + y), gap)
        return [(None if x is None else i1 + x, None if y is None else j1 + y) for x, y in block]
    k = min(n, m)
    pairs: list[tuple[int | None, int | None]] = list(
        zip(range(i1, i1 + k), range(j1, j1 + k), strict=True)
    )
    pairs.extend((i, None) for i in range(i1 + k, i2))
    pairs.extend((None, j) for j in range(j1 + k, j2))
    return pairs


def _unique_anchors(
    a: Sequence[Hashable], b: Sequence[Hashable], i1: int, i2: int, j1: int, j2: int
) -> list[tuple[int, int]]:
    """Elements occurring exactly once in a[i1:i2] and once in b[j1:j2], paired, and
    the longest chain of them in the same order on both sides (patience sorting)."""
    count_a: Counter = Counter(a[i1:i2])
    where_b: dict[Hashable, int] = {}
    count_b: Counter = Counter()
    for j in range(j1, j2):
        count_b[b[j]] += 1
        where_b[b[j]] = j
    pairs = [
        (i, where_b[a[i]]) for i in range(i1, i2) if count_a[a[i]] == 1 and count_b.get(a[i]) == 1
    ]
    # longest increasing subsequence of the b positions, O(k log k)
    tail_j: list[int] = []  # smallest b position ending a chain of each length
    tail_k: list[int] = []  # the pair that ends it
    back: list[int] = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        lo = bisect.bisect_left(tail_j, j)
        if lo > 0:
            back[k] = tail_k[lo - 1]
        if lo == len(tail_j):
            tail_j.append(j)
            tail_k.append(k)
        else:
            tail_j[lo], tail_k[lo] = j, k
    chain: list[tuple[int, int]] = []
    k = tail_k[-1] if tail_k else -1
    while k >= 0:
        chain.append(pairs[k])
        k = back[k]
    return chain[::-1]


def _anchored(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    i1: int,
    i2: int,
    j1: int,
    j2: int,
    similarity: Callable[[int, int], float],
    gap: float,
    depth: int = 0,
) -> list[tuple[int | None, int | None]]:
    """Align a[i1:i2] with b[j1:j2]: equal ends stripped, then unique equal elements
    as anchors, equal runs grown around them, and only the gaps aligned (recursively,
    then by :func:`_align_block` once small)."""
    pairs: list[tuple[int | None, int | None]] = []
    while i1 < i2 and j1 < j2 and a[i1] == b[j1]:
        pairs.append((i1, j1))
        i1, j1 = i1 + 1, j1 + 1
    tail: list[tuple[int | None, int | None]] = []
    while i2 > i1 and j2 > j1 and a[i2 - 1] == b[j2 - 1]:
        i2, j2 = i2 - 1, j2 - 1
        tail.append((i2, j2))
    n, m = i2 - i1, j2 - j1
    if n == 0 or m == 0:
        pairs.extend((i, None) for i in range(i1, i2))
        pairs.extend((None, j) for j in range(j1, j2))
    elif n + m <= ANCHOR_MIN_LENGTH:
        pairs.extend(_align_block(a[i1:i2], b[j1:j2], similarity, gap, i1, j1))
    else:
        chain = _unique_anchors(a, b, i1, i2, j1, j2) if depth < ANCHOR_MAX_DEPTH else []
        if not chain:
            if n * m <= BLOCK_MAX_CELLS:
                pairs.extend(_align_block(a[i1:i2], b[j1:j2], similarity, gap, i1, j1))
            else:
                pairs.extend(_fuzzy(i1, i2, j1, j2, similarity, gap))
        else:
            pi, pj = i1, j1
            for ai, aj in chain:
                if ai < pi or aj < pj:
                    continue  # swallowed by the equal run grown from the previous anchor
                pairs.extend(_anchored(a, b, pi, ai, pj, aj, similarity, gap, depth + 1))
                pi, pj = ai, aj
                while pi < i2 and pj < j2 and a[pi] == b[pj]:
                    pairs.append((pi, pj))
                    pi, pj = pi + 1, pj + 1
            pairs.extend(_anchored(a, b, pi, i2, pj, j2, similarity, gap, depth + 1))
    pairs.extend(reversed(tail))
    return pairs


def align(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    similarity: Callable[[int, int], float],
    gap: float = GAP_PENALTY,
) -> list[tuple[int | None, int | None]]:
    """Align two sequences of signatures: exact runs first, fuzzy alignment in between.

    Returns index pairs in order; ``(i, None)`` is a deletion, ``(None, j)`` an
    insertion. ``similarity(i, j)`` in [0, 1] scores elements the exact pass could not
    match; blocks too large for the quadratic alignment are paired by position.
    Short sequences go through :class:`difflib.SequenceMatcher` directly; long ones
    are anchored first on equal ends and on elements unique on both sides, so only
    the gaps between anchors are aligned (near-linear on large sheets).
    """
    if len(a) + len(b) <= ANCHOR_MIN_LENGTH:
        return _align_block(a, b, similarity, gap)
    return _anchored(a, b, 0, len(a), 0, len(b), similarity, gap)
