"""Column headers: which header phrase stands over which value column.

Bulletin headers are stacked. Each column's own header sits at the bottom of the
header block, often wrapped over two or three single-spaced lines, set over the
column. Above it, a spanning header ("Internal revenue", "Fiscal year") is centred over
the run of columns it groups, usually with a rule under it, and often narrower than
its span. We read them in three steps:

1. Phrases. The words of each header line are regrouped into phrases without the
   footnote marks set among them ("institutions 4,5 bonds 6" is two heads and two
   marks). A phrase never runs across the gutter between two columns when the line
   below carries a head in both, nor past a word broken at a hyphen ("Corpo-" ends
   its column's line; "tirement" starts the next column's).
2. Own heads. Each column owns the phrases that lie over it alone (within its
   territory: from the middle of the gutter on its left to the middle of the gutter
   on its right), climbing from the bottom line while the lines stay single-spaced.
3. Spanners. Every phrase left over spans a contiguous run of columns: the run must
   contain the phrase (a spanner's rule is at least as wide as its words), be centred
   under it, hold no column another phrase of its line stands over, and not cut the
   run of a spanner below it. When more than one run fits (a short spanner over equal
   columns fits one, two or three columns alike), the columns some runs hold and
   others do not are marked uncertain: a question must not name them by that path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.tables.lines import Chunk, Line

# Short low-confidence words in a header block are OCR of rules and specks.
_SHORT_WORD_CONF = 50.0
# a whole phrase that is only a footnote reference ("1", "2/", "*") or a column number
_FOOTNOTE_REF = re.compile(r"^\d{1,2}/?$|^\*{1,3}$|^\(\d{1,2}\)$")
# a word that is a mark wherever it stands: "2/", "*", a column number "(12)"
_MARK_WORD = re.compile(r"^\d{1,2}/$|^\*{1,3}$|^\(\d{1,2}\)$")
# footnote references set as superscripts: "3", "2,3", "4," "5" (smaller than the text)
_SUPERSCRIPT = re.compile(r"^\d{1,2}(,\d{1,2})*,?$")
# revised / preliminary marks after a date ("Mar. r", "2005 r", "Sept. p")
_REVISION_MARK = {"r", "p"}
# a head that prints one year and nothing else ("1982", "1983 r" without its mark)
_YEAR_HEAD = re.compile(r"^\W*(18|19|20)\d\d\W*$")
_HYPHEN_BREAK = re.compile(r"[A-Za-z]-$")
_GLUED_REVISION = re.compile(r"^((jan|feb|mar|apr|aug|sept?|oct|nov|dec)\.)[rp]$", re.IGNORECASE)
_DATE_WORD = re.compile(
    r"([\d.]|\b(jan|feb|mar|apr|may|june?|july?|aug|sept?|oct|nov|dec)[a-z]*)$", re.IGNORECASE
)


@dataclass(frozen=True)
class Column:
    """One value column: the box of its figures and the x its figures align to."""

    x0: float
    x1: float
    align: float

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


@dataclass
class ColumnHeads:
    """Header path per column (levels top-down joined by " / ") and, per column, why
    the path is uncertain ("" when it is not)."""

    paths: list[str]
    doubt: list[str] = field(default_factory=list)


@dataclass
class _Phrase:
    text: str
    x0: float
    x1: float
    line: int
    cols: frozenset[int] = frozenset()  # territories it overlaps

    @property
    def mid(self) -> float:
        return (self.x0 + self.x1) / 2


def column_heads(
    header_lines: list[Line], columns: list[Column], height: float, pitch: float
) -> ColumnHeads:
    """Header path per column and its doubt.

    ``height`` is the text height and ``pitch`` the single line spacing (both pixels).
    """
    if not columns:
        return ColumnHeads([], [])
    n = len(columns)
    words = [_line_words(line, columns, height) for line in header_lines]
    bounds = _territories(columns)
    lines = [_phrases(ws, li, columns, bounds, height, words) for li, ws in enumerate(words)]
    slack = 0.3 * height
    for line in lines:
        for p in line:
            p.cols = _own_cover(p, columns, bounds, slack)
    tolerance = max(height, 0.3 * (columns[-1].mid - columns[0].mid) / max(n - 1, 1))
    own_text, used, own_doubt = _own_heads(
        header_lines, lines, columns, pitch, height, tolerance, bounds
    )
    boxes = list(columns)
    for li, i in used:
        p = lines[li][i]
        c = next(iter(p.cols))
        b = boxes[c]
        boxes[c] = Column(min(b.x0, p.x0), max(b.x1, p.x1), b.align)
    spanners = _place_spanners(lines, used, boxes, slack, tolerance, own_text)
    spans: list[list[tuple[int, str, frozenset[int]]]] = [[] for _ in range(n)]
    doubt = list(own_doubt)
    for sp in spanners:
        for c in sp.run:
            spans[c].append((sp.phrase.line, sp.phrase.text, sp.run))
        for c in sp.unsure:
            doubt[c] = doubt[c] or sp.why
    for c in range(n):
        spans[c].sort(key=lambda t: t[0])
    paths = []
    for c in range(n):
        levels: list[tuple[frozenset[int], str]] = []
        for _, text, run in spans[c]:
            if levels and levels[-1][0] == run:
                levels[-1] = (run, f"{levels[-1][1]} {text}")  # a wrapped spanning header
            else:
                levels.append((run, text))
        parts = [text for _, text in levels]
        if own_text[c]:
            parts.append(own_text[c])
        paths.append(" / ".join(parts))
        doubt[c] = doubt[c] or _broken_level(parts)
        # under a spanner whose other columns have heads of their own, a column without
        # one lost it to OCR ("Unweighted" over "United States", "United Kingdom" and
        # a "France" OCR dropped, 1939-12 p68): its path is cut short
        if spans[c] and not own_text[c] and any(own_text[k] for k in spans[c][-1][2] if k != c):
            doubt[c] = doubt[c] or f"no head of its own under {spans[c][-1][1]!r}"
    return ColumnHeads(paths, doubt)


def _broken_level(levels: list[str]) -> str:
    """Why a path's levels cannot be how the head is printed: a first level that starts
    in lower case (the lines above it were lost), a level ending in a word
    broken at a hyphen whose next level does not continue it in lower case ("Depos-" /
    "Total": the rest of the word went to another column), or a level of no letters."""
    if levels and levels[0][:1].islower():
        return f"header {levels[0]!r} starts mid-phrase: its first lines were not read"
    for k, level in enumerate(levels):
        if not re.search(r"[A-Za-z]{2}", level) and not re.search(r"\d{4}", level):
            return f"header level {level!r} holds no word"
        if _HYPHEN_BREAK.search(level):
            nxt = levels[k + 1] if k + 1 < len(levels) else ""
            if not nxt[:1].islower():
                return f"header level {level!r} ends in a broken word"
    return ""


def _line_words(line: Line, columns: list[Column], height: float) -> list[Chunk]:
    """The words of one header line right of the stub, without footnote marks."""
    words = [w for ch in line.chunks for w in ch.parts]
    words = [w for w in words if w.x1 > columns[0].x0 - 0.5 * height]
    text_heights = sorted(w.y1 - w.y0 for w in words if not _SUPERSCRIPT.match(w.text.strip()))
    full = text_heights[len(text_heights) // 2] if text_heights else height
    out: list[Chunk] = []
    for w in words:
        t = w.text.strip()
        if not t or _MARK_WORD.match(t):
            continue
        if _SUPERSCRIPT.match(t) and (w.y1 - w.y0) < 0.8 * full:
            continue
        if len(t) <= 3 and w.conf < _SHORT_WORD_CONF:
            continue
        if t in _REVISION_MARK and out and _DATE_WORD.search(out[-1].text):
            continue
        glued = _GLUED_REVISION.match(t)
        if glued:  # "Dec.r": a month with its revision mark
            w = Chunk(glued.group(1), w.x0, w.y0, w.x1, w.y1, w.conf, 1)
        out.append(w)
    return out


def _territories(columns: list[Column]) -> list[float]:
    """x of the boundary between column k and k+1: the middle of the gutter."""
    return [(columns[k].x1 + columns[k + 1].x0) / 2 for k in range(len(columns) - 1)]


def _territory_of(x: float, bounds: list[float]) -> int:
    return sum(1 for b in bounds if x > b)


def _overlaps(x0: float, x1: float, bounds: list[float], slack: float) -> frozenset[int]:
    """Columns whose territory the span [x0, x1] reaches by more than ``slack``."""
    lo = _territory_of(x0 + slack, bounds)
    hi = _territory_of(x1 - slack, bounds)
    return frozenset(range(lo, max(lo, hi) + 1))


def _phrases(
    words: list[Chunk],
    li: int,
    columns: list[Column],
    bounds: list[float],
    height: float,
    all_words: list[list[Chunk]],
) -> list[_Phrase]:
    """Words of one line joined into phrases (a word space apart, < 0.8 text height),
    broken after a word hyphenated at its line end, and at a gutter the line below
    shows two heads on either side of when the words on each side are centred over
    their own column."""
    below = all_words[li + 1] if li + 1 < len(all_words) else []
    below_cols = {_territory_of((w.x0 + w.x1) / 2, bounds) for w in below}
    out: list[_Phrase] = []
    prev: Chunk | None = None
    for w in words:
        if prev is not None and out:
            gap = w.x0 - prev.x1
            left_col = _territory_of((prev.x0 + prev.x1) / 2, bounds)
            right_col = _territory_of((w.x0 + w.x1) / 2, bounds)
            split_at_gutter = (
                gap >= 0.33 * height
                and right_col == left_col + 1
                and _in_gutter(prev.x1, w.x0, columns, left_col)
                and {left_col, right_col} <= below_cols
                # each side centred over its own column, not a spanner's two halves
                and abs((out[-1].x0 + prev.x1) / 2 - columns[left_col].mid) <= height
                and abs((w.x0 + w.x1) / 2 - columns[right_col].mid) <= height
            )
            if (
                gap < 0.8 * height
                and not _HYPHEN_BREAK.search(prev.text.strip())
                and not split_at_gutter
            ):
                p = out[-1]
                out[-1] = _Phrase(f"{p.text} {w.text.strip()}", p.x0, w.x1, li)
                prev = w
                continue
        out.append(_Phrase(w.text.strip(), w.x0, w.x1, li))
        prev = w
    return [p for p in out if not _FOOTNOTE_REF.match(p.text)]


def _in_gutter(gap_x0: float, gap_x1: float, columns: list[Column], left: int) -> bool:
    """The word gap [gap_x0, gap_x1] lies over the gutter between column ``left`` and
    the next (it holds the middle of the gutter)."""
    if left + 1 >= len(columns):
        return False
    mid = (columns[left].x1 + columns[left + 1].x0) / 2
    return gap_x0 - 1 <= mid <= gap_x1 + 1


def _centred_on(p: _Phrase, below: list[_Phrase], height: float) -> bool:
    """A wrapped head's line is centred on the line below it, or one of the two lies
    within the other (a head set flush left)."""
    x0, x1 = min(q.x0 for q in below), max(q.x1 for q in below)
    slack = 0.3 * height
    within = p.x0 >= x0 - slack and p.x1 <= x1 + slack
    holds = x0 >= p.x0 - slack and x1 <= p.x1 + slack
    return within or holds or abs(p.mid - (x0 + x1) / 2) <= 0.6 * height


def _own_heads(
    header_lines: list[Line],
    lines: list[list[_Phrase]],
    columns: list[Column],
    pitch: float,
    height: float,
    tolerance: float,
    bounds: list[float],
) -> tuple[list[str], set[tuple[int, int]], list[str]]:
    """Each column's own header: phrases over it alone, climbing single-spaced lines
    while each line stays centred on the one below. A head is wrapped to its column's
    width: a line half as wide again as the lines below it and the column's figures,
    that does not run on into them (a word broken at a hyphen, a lower-case start), may
    be a spanner narrower than its span ("Amount outstanding" over three columns): the
    path is uncertain.

    A line that holds a spanning head of other columns is the spanners' tier: a phrase
    there over one column is a spanner too when it fits a run of columns of its own
    ("Amount outstanding" beside "Government accounts"), else it tops the column's own
    head or stands alone over it, which the words cannot tell: the path is uncertain.
    """
    n_cols = len(columns)
    text = [""] * n_cols
    doubt = [""] * n_cols
    late = [""] * n_cols  # doubts one column's head casts on its neighbours
    used: set[tuple[int, int]] = set()
    tops = [ln.y0 for ln in header_lines]
    bottoms = [ln.y1 for ln in header_lines]
    spanner_tier = [any(len(p.cols) > 1 for p in line) for line in lines]
    for c in range(n_cols):
        parts: list[str] = []
        head: list[_Phrase] = []
        below = None
        for li in range(len(lines) - 1, -1, -1):
            hits = [
                i
                for i, p in enumerate(lines[li])
                if p.cols == frozenset({c}) and (not parts or _centred_on(p, head, height))
            ]
            if parts and spanner_tier[li] and hits:
                taken = {k for j, q in enumerate(lines[li]) if j not in hits for k in q.cols}
                fits = [
                    i
                    for i in hits
                    if _fitting_runs(lines[li][i], lines[li][i].cols, columns, taken, [], tolerance)
                ]
                if fits:
                    hits = []  # a spanner: the own head ends below it
                else:
                    words = " ".join(lines[li][i].text for i in hits)
                    doubt[c] = f"head line {words!r} stands among spanning heads"
            # Line distance by tops or by bottoms, whichever is steadier: ascenders
            # move the top of a line, descenders its bottom.
            step = (
                min(tops[below] - tops[li], bottoms[below] - bottoms[li])
                if below is not None
                else 0
            )
            if step > 1.15 * pitch:
                break  # a rule or a gap: the spanning tier starts here
            if not hits:
                if parts:
                    break
                continue
            words = " ".join(lines[li][i].text for i in hits)
            if (
                parts
                and not doubt[c]
                and _too_wide([lines[li][i] for i in hits], head, columns[c], parts[0])
            ):
                why = f"head line {words!r} may be a spanning head"
                doubt[c] = why
                # ... and then it stands over the columns of a run it would fit
                taken = {k for j, q in enumerate(lines[li]) if j not in hits for k in q.cols}
                for i in hits:
                    p = lines[li][i]
                    for run in _fitting_runs(p, p.cols, columns, taken, [], tolerance):
                        for k in run:
                            late[k] = late[k] or why
            parts.insert(0, words)
            head = [lines[li][i] for i in hits]
            used.update((li, i) for i in hits)
            below = li
        text[c] = " ".join(parts)
    return text, used, [d or e for d, e in zip(doubt, late, strict=True)]


def _too_wide(line: list[_Phrase], below: list[_Phrase], column: Column, below_text: str) -> bool:
    width = max(p.x1 for p in line) - min(p.x0 for p in line)
    under = max(max(p.x1 for p in below) - min(p.x0 for p in below), column.x1 - column.x0)
    runs_on = _HYPHEN_BREAK.search(line[-1].text) or below_text[:1].islower()
    return width > 1.5 * under and not runs_on


def _own_cover(p: _Phrase, columns: list[Column], bounds: list[float], slack: float):
    """The columns a phrase stands over for telling own heads from spanners: those whose
    middle lies under it; a phrase over no middle (over a gutter, or narrower than its
    column) stands over the territories it lies in."""
    mids = frozenset(c for c, col in enumerate(columns) if p.x0 - slack <= col.mid <= p.x1 + slack)
    return mids or _overlaps(p.x0, p.x1, bounds, 0.0)


@dataclass
class _Spanner:
    phrase: _Phrase
    runs: list[frozenset[int]]  # every run it may stand over
    run: frozenset[int] = frozenset()  # the run it is read over
    unsure: frozenset[int] = frozenset()  # columns some fitting runs hold, others not
    why: str = ""
    below: list[frozenset[int]] = field(default_factory=list)  # runs of spanners below
    taken: set[int] = field(default_factory=set)  # columns other phrases of its line hold
    n_cols: int = 0
    cover: frozenset[int] = frozenset()  # the columns its words reach


def _place_spanners(
    lines: list[list[_Phrase]],
    used: set[tuple[int, int]],
    boxes: list[Column],
    slack: float,
    tolerance: float,
    own_text: list[str] | None = None,
) -> list[_Spanner]:
    """Each spanning phrase's run of columns (see ``_fitting_runs`` and ``_choose``).

    A year spanner ("1982") groups the months or quarters of that year: it never stands
    over a column whose own head is itself a year ("1981" under "Calendar year" beside
    it, 1984-06 p62), however its words are centred.

    Spanners nest: a run holds whole runs of the spanners below it that it meets, and
    lies within the run of each spanner above it that it meets. A first pass reads the
    lines bottom-up with the runs below; a second reads them top-down again, each
    within the final runs above it, keeping from either side only the runs read without
    doubt (a doubtful sub-spanner, or a speck read as a word above the heads, must not
    pull a spanner off its columns).
    """
    bounds = _territories(boxes)
    by_line: dict[int, list[_Spanner]] = {}
    for li in range(len(lines)):
        # the columns each phrase of the line reaches: an own head its column, a
        # spanner every territory its words reach
        reach = [
            q.cols
            if (li, j) in used
            else _overlaps(q.x0, q.x1, bounds, slack) or frozenset({_nearest(q, boxes)})
            for j, q in enumerate(lines[li])
        ]
        for i, p in enumerate(lines[li]):
            if (li, i) in used:
                continue
            taken = {c for j in range(len(reach)) if j != i for c in reach[j]}
            if _YEAR_HEAD.match(p.text):
                taken |= {c for c, t in enumerate(own_text or []) if _YEAR_HEAD.match(t or "")}
            sp = _Spanner(p, [], taken=taken, n_cols=len(boxes))
            sp.cover = reach[i]
            by_line.setdefault(li, []).append(sp)
    order = sorted(by_line)

    def place(sp: _Spanner, below: list[frozenset[int]], above: list[frozenset[int]]) -> None:
        runs = _fitting_runs(sp.phrase, sp.cover, boxes, sp.taken, below, tolerance)
        sp.runs = [r for r in runs if all(not (a & r) or r <= a for a in above)]
        sp.below = below
        _choose(sp)

    done: list[_Spanner] = []
    for li in reversed(order):  # bottom-up
        below = [o.run for o in done]
        for sp in by_line[li]:
            place(sp, below, [])
        done.extend(by_line[li])
    final: list[_Spanner] = []
    for li in order:  # top-down
        above = [o.run for o in final if not o.unsure]
        below = [o.run for o in done if o.phrase.line > li and not o.unsure]
        for sp in by_line[li]:
            place(sp, below, above)
        final.extend(by_line[li])
    return final


def _choose(sp: _Spanner) -> None:
    if not sp.runs:
        # no run is centred under it: read it over the columns it reaches, and doubt
        # them and the free columns beside them alike
        sp.run = frozenset(range(min(sp.cover), max(sp.cover) + 1))
        lo, hi = min(sp.run), max(sp.run)
        while lo - 1 >= 0 and lo - 1 not in sp.taken:
            lo -= 1
        while hi + 1 < sp.n_cols and hi + 1 not in sp.taken:
            hi += 1
        sp.unsure = frozenset(range(lo, hi + 1))
        sp.why = f"spanning head {sp.phrase.text!r} is not centred over its columns"
        return
    # A spanner is set over the run it groups, often narrower than the run: it is read
    # over the widest run that fits ("Fiscal years" over every year column, "This
    # fiscal year to date" beside "Prior fiscal year to date"); the columns a narrower
    # fitting run leaves out are marked uncertain below.
    sp.run = max(sp.runs, key=lambda r: (len(r), -min(r)))
    union = frozenset().union(*sp.runs)
    common = frozenset.intersection(*sp.runs)
    sp.unsure = union - common
    sp.why = f"spanning head {sp.phrase.text!r} may or may not stand over it" if sp.unsure else ""


def _nearest(p: _Phrase, columns: list[Column]) -> int:
    return min(range(len(columns)), key=lambda c: abs(columns[c].mid - p.mid))


def _fitting_runs(
    p: _Phrase,
    cover: frozenset[int],
    boxes: list[Column],
    taken: set[int],
    runs_below: list[frozenset[int]],
    tolerance: float,
) -> list[frozenset[int]]:
    """Runs of columns the spanning phrase ``p`` can stand over: holding every column
    it reaches, none another phrase of its line stands over, centred under it, and
    cutting no run of a spanner below. A spanner groups two columns or more: one over a
    single column would be that column's own head."""
    lo, hi = min(cover), max(cover)
    if any(c in taken for c in range(lo, hi + 1)):
        return []
    left, right = lo, hi
    while left - 1 >= 0 and left - 1 not in taken:
        left -= 1
    while right + 1 < len(boxes) and right + 1 not in taken:
        right += 1
    out = []
    for a in range(left, lo + 1):
        for b in range(hi, right + 1):
            run = frozenset(range(a, b + 1))
            if len(run) < 2:
                continue
            x0, x1 = boxes[a].x0, boxes[b].x1
            if abs((x0 + x1) / 2 - p.mid) > tolerance:
                continue
            if any(r & run and not r <= run for r in runs_below):
                continue
            out.append(run)
    return out
