"""Workbook version chains: the ``version_chains`` stage.

A *family* is one workbook as it evolved: "Q3 budget.xls", "Q3 budget v2.xls",
"Copy of Q3 budget FINAL (1).xlsx". Three pieces of evidence say two workbooks are
versions of each other, and each is stored with every link:

* the file name after stripping what changes between versions (dates, version
  tokens such as v2/rev3/final/draft, copy tokens such as "Copy of" and "(1)",
  extensions): exact stem, or rapidfuzz similarity;
* the overlap of sheet names;
* the content: a MinHash (datasketch) of the set of typed cell values (numbers
  weighted up, boilerplate common to a large share of the corpus left out), whose
  Jaccard estimate tells a later version (most numbers kept) from a sibling built
  on the same template (same labels, other desk, other numbers).

Candidates come from blocking only, never from all pairs: workbooks sharing a name
stem (small blocks) and the MinHashLSH buckets of their contents. A candidate pair
is linked when the names agree *and* the contents are similar
(:data:`CONTENT_MIN_NAMED`), or when the contents are near-identical whatever the
name (:data:`CONTENT_MIN_UNNAMED`, a renamed copy). Families are the connected
components of the links; the same workbook (same sha256) is one node however many
mails carried it.

A family is ordered by version token when every member has a distinct one (a date
written in the file name counts as one), else by the date of the earliest e-mail
carrying it, else by file date; ``order_by`` says which. Only families of two or more
workbooks are written.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass

import polars as pl
from datasketch import MinHash, MinHashLSH
from rapidfuzz import fuzz

VERSION_CHAINS_SCHEMA = {
    "chain_id": pl.String,  # sha256 hex of the sorted member workbook ids
    "position": pl.Int32,  # 0-based, earliest version first
    "workbook_id": pl.String,
    "file_name": pl.String,
    "version_date": pl.Datetime("us", "UTC"),  # email date, else file date
    "order_by": pl.String,  # version_token | email_date | file_date
    "prev_workbook_id": pl.String,  # null at position 0
    # evidence of the link prev -> this (null at position 0)
    "name_similarity": pl.Float64,  # rapidfuzz token_set_ratio of the name stems, 0..1
    "sheet_overlap": pl.Float64,  # Jaccard of the sheet-name sets
    "content_similarity": pl.Float64,  # MinHash Jaccard estimate of the typed-value sets
    "link_reason": pl.String,
}

NUM_PERM = 128
NUMBER_WEIGHT = 3  # a typed number counts as this many tokens of the content signature
LSH_THRESHOLD = 0.3  # candidate recall: LSH buckets pairs well below the link thresholds
NAME_MIN = 0.9  # stems this similar count as the same name
CONTENT_MIN_NAMED = 0.45  # same name: most typed values kept (a sibling shares labels only)
CONTENT_MIN_UNNAMED = 0.85  # any name: near-identical contents
SHEET_MIN = 0.5
MAX_BLOCK = 64  # larger same-stem blocks ("book1") rely on LSH candidates only
# a cell value held by more workbooks than this and than the share is template
# boilerplate, left out of the content signature
COMMON_MIN_DF = 100
COMMON_SHARE = 0.01

_SUFFIX = re.compile(r"\.(xlsx|xlsm|xlsb|xls|csv|ods)$", re.I)
_COPY = re.compile(
    r"^(copy\s*(\(\d+\)\s*)?of\s+)+|\s*-\s*copy(\s*\(\d+\))?$|\s*\(\d+\)$|\s*\[\d+\]$|\s+copy$",
    re.I,
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE = re.compile(
    r"(?<!\d)("
    r"(19|20)\d\d[-_. /]?(0?[1-9]|1[0-2])[-_. /]?(0?[1-9]|[12]\d|3[01])"  # 2001-03-15, 20010315
    r"|(0?[1-9]|1[0-2])[-_. /](0?[1-9]|[12]\d|3[01])[-_. /]((19|20)?\d\d)"  # 3-15-01, 03/15/2001
    r"|(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])\d\d"  # 031501
    rf"|(\d{{1,2}}[-_ ]?)?(?<![a-z])({_MONTHS})(?![a-z])[-_ ]?(\d{{1,2}}[-_ ,]*)?((19|20)?\d\d)?"
    r")(?!\d)",
    re.I,
)
_VERSION = re.compile(
    r"(?<![a-z])(?:"
    r"v(?:er(?:sion)?)?[ ._-]?(?P<v>\d+(?:\.\d+)?)"
    r"|rev(?:ision)?[ ._-]?(?P<r>\d+)"
    r"|(?P<final>final)[ ._-]?(?P<f>\d+)?|(?P<draft>draft)"
    r"|(?P<revised>revised|updated|update|new|corrected|fixed|clean)"
    r"|(?P<latest>latest|current|use[ _-]this)"
    r")(?![a-z])",
    re.I,
)


_NAME_DATE = re.compile(
    r"(?<!\d)(?:(?P<y>(?:19|20)\d\d)[-_.]?(?P<m>0[1-9]|1[0-2])[-_.]?(?P<d>0[1-9]|[12]\d|3[01])"
    r"|(?P<m2>0?[1-9]|1[0-2])[-_.](?P<d2>0?[1-9]|[12]\d|3[01])[-_.](?P<y2>(?:19|20)?\d\d))(?!\d)"
)


@dataclass(frozen=True)
class NameParts:
    """A file name split into the stem that names the workbook and its version marks."""

    stem: str
    # (stage: 0 draft, 1 plain, 2 final; number: 0 unmarked, 0.5 a copy, n for v<n>/rev<n>);
    # None when the name carries no version or copy token
    rank: tuple[int, float] | None
    date: dt.date | None = None  # a date written in the name ("report_2001-03-15")


def _name_date(name: str) -> dt.date | None:
    for m in _NAME_DATE.finditer(name):
        year = m["y"] or m["y2"]
        year = int(year) + (2000 if int(year) < 50 else 1900) if len(year) == 2 else int(year)
        try:
            return dt.date(year, int(m["m"] or m["m2"]), int(m["d"] or m["d2"]))
        except ValueError:
            continue
    return None


def name_parts(file_name: str) -> NameParts:
    """Strip extension, copy tokens, dates and version tokens from a file name."""
    name = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    name = _SUFFIX.sub("", name.strip())
    stage, number, found = 1, 0.0, False
    for _ in range(3):  # "Copy of x (1)" - copy tokens nest
        name, n = _COPY.subn("", name.strip())
        if n:
            number, found = 0.5, True  # a copy comes after the file it copies
    for m in _VERSION.finditer(name):
        found = True
        if m["v"] or m["r"]:
            number = float(m["v"] or m["r"])
        elif m["final"]:
            stage = 2
            number = float(m["f"]) if m["f"] else number
        elif m["draft"]:
            stage = 0
        elif m["revised"]:
            number = max(number, 1.5)
        elif m["latest"]:  # "FINAL_use this" comes after "final2"
            number += 100
    name = _VERSION.sub(" ", name)
    when = _name_date(name)
    name = _DATE.sub(" ", name)
    stem = re.sub(r"[\s_.\-()\[\],]+", " ", name).strip().lower()
    return NameParts(stem, (stage, number) if found else None, when)


@dataclass
class _Node:
    workbook_id: str
    file_name: str
    parts: NameParts
    sheets: frozenset[str]
    minhash: MinHash
    email_date: dt.datetime | None
    file_date: dt.datetime | None


def _names(workbooks: pl.DataFrame, sources: pl.DataFrame) -> dict[str, str]:
    """One file name per workbook: the most frequent among its sources, ties by name."""
    frames = [sources.select("workbook_id", "file_name")] if sources.height else []
    frames.append(workbooks.select("workbook_id", "file_name"))
    counted = (
        pl.concat(frames)
        .drop_nulls()
        .group_by("workbook_id", "file_name")
        .len()
        .sort(["workbook_id", "len", "file_name"], descending=[False, True, False])
        .unique("workbook_id", keep="first", maintain_order=True)
    )
    return dict(zip(counted["workbook_id"], counted["file_name"], strict=True))


def _dates(
    sources: pl.DataFrame, messages: pl.DataFrame | None
) -> tuple[dict[str, dt.datetime], dict[str, dt.datetime]]:
    """Earliest e-mail date and earliest file date of each workbook."""
    email: dict[str, dt.datetime] = {}
    if messages is not None and sources.height and messages.height:
        joined = (
            sources.select("workbook_id", "message_key")
            .drop_nulls()
            .join(messages.select("message_key", "date"), on="message_key")
            .drop_nulls("date")
            .group_by("workbook_id")
            .agg(pl.col("date").min())
        )
        email = dict(zip(joined["workbook_id"], joined["date"], strict=True))
    files: dict[str, dt.datetime] = {}
    if sources.height:
        fd = (
            sources.select("workbook_id", "file_date")
            .drop_nulls()
            .group_by("workbook_id")
            .agg(pl.col("file_date").min())
        )
        files = dict(zip(fd["workbook_id"], fd["file_date"], strict=True))
    return email, files


def content_tokens(cells: pl.DataFrame) -> dict[str, list[bytes]]:
    """The content signature of each workbook: the set of its typed values.

    Typed (constant) values, not formula results: a changed input recomputes every
    total and share downstream, so cached results would make two versions look far
    apart. Numbers and dates count :data:`NUMBER_WEIGHT` times (as that many distinct
    tokens): they are what tells a later version (numbers kept) from a sibling on the
    same template (labels kept, numbers not). A workbook without constants is
    signed by its formula results.

    Values common to a large share of the corpus ("Q1", "Total", "Salaries" in
    thousands of workbooks of one template) say nothing about which workbook is a
    version of which; left in, they would make every workbook of a template an LSH
    candidate of every other (quadratic) and lift the similarity of siblings. A value
    is common when more than max(:data:`COMMON_MIN_DF`, :data:`COMMON_SHARE` x
    workbooks) workbooks hold it, a count no family reaches. A workbook holding only
    common values keeps them all.
    """
    values = cells.select(
        "workbook_id",
        pl.coalesce(pl.col("value").str.strip_chars(), pl.col("formula")).alias("token"),
        pl.col("formula").is_null().alias("typed"),
        pl.col("type").is_in(["I", "F", "D"]).fill_null(False).alias("number"),
    ).filter(pl.col("token").is_not_null() & (pl.col("token") != ""))
    typed = values.filter("typed")
    untyped_books = values.join(typed.select("workbook_id").unique(), on="workbook_id", how="anti")
    tokens = pl.concat([typed, untyped_books]).unique(["workbook_id", "token"])
    n_books = tokens["workbook_id"].n_unique()
    max_df = max(COMMON_MIN_DF, int(COMMON_SHARE * n_books))
    df = tokens.group_by("token").len("df")
    tokens = tokens.join(df, on="token")
    kept = tokens.filter(pl.col("df") <= max_df)
    only_common = tokens.join(kept.select("workbook_id").unique(), on="workbook_id", how="anti")
    grouped = pl.concat([kept, only_common]).group_by("workbook_id").agg("token", "number")
    out: dict[str, list[bytes]] = {}
    prefixes = [f"#{k}:" for k in range(NUMBER_WEIGHT)]
    for wid, toks, numbers in grouped.iter_rows():
        signature = []
        for t, number in zip(toks, numbers, strict=True):
            if number:
                signature += [(p + t).encode() for p in prefixes]
            else:
                signature.append(t.encode())
        out[wid] = signature
    return out


def _nodes(
    workbooks: pl.DataFrame,
    sheets: pl.DataFrame,
    cells: pl.DataFrame,
    sources: pl.DataFrame,
    messages: pl.DataFrame | None,
) -> list[_Node]:
    ids = sorted(set(workbooks["workbook_id"].to_list()))
    names = _names(workbooks, sources)
    email, files = _dates(sources, messages)
    sheet_sets = (
        sheets.select("workbook_id", pl.col("sheet").str.to_lowercase().str.strip_chars())
        .group_by("workbook_id")
        .agg("sheet")
    )
    sheet_of = {
        w: frozenset(s) for w, s in zip(sheet_sets["workbook_id"], sheet_sets["sheet"], strict=True)
    }
    tokens = content_tokens(cells)
    hashes = MinHash.bulk([tokens.get(w, []) for w in ids], num_perm=NUM_PERM)
    return [
        _Node(
            workbook_id=w,
            file_name=names.get(w, w),
            parts=name_parts(names.get(w, w)),
            sheets=sheet_of.get(w, frozenset()),
            minhash=mh,
            email_date=email.get(w),
            file_date=files.get(w),
        )
        for w, mh in zip(ids, hashes, strict=True)
    ]


def _candidates(nodes: list[_Node]) -> set[tuple[int, int]]:
    """Pairs to score: same name stem (small blocks) and MinHashLSH buckets."""
    pairs: set[tuple[int, int]] = set()
    blocks: dict[str, list[int]] = defaultdict(list)
    for i, n in enumerate(nodes):
        if n.parts.stem:
            blocks[n.parts.stem].append(i)
    for members in blocks.values():
        if 1 < len(members) <= MAX_BLOCK:
            pairs.update((a, b) for k, a in enumerate(members) for b in members[k + 1 :])
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
    with lsh.insertion_session() as session:
        for i, n in enumerate(nodes):
            if not n.minhash.is_empty():
                session.insert(i, n.minhash)
    for i, n in enumerate(nodes):
        if n.minhash.is_empty():
            continue
        for j in lsh.query(n.minhash):
            if j != i:
                pairs.add((min(i, j), max(i, j)))
    return pairs


@dataclass(frozen=True)
class Evidence:
    name_similarity: float
    sheet_overlap: float
    content_similarity: float
    same_stem: bool

    @property
    def linked(self) -> bool:
        if self.sheet_overlap < SHEET_MIN:
            return False
        if self.content_similarity >= CONTENT_MIN_UNNAMED:
            return True
        named = self.same_stem or self.name_similarity >= NAME_MIN
        return named and self.content_similarity >= CONTENT_MIN_NAMED

    @property
    def basis(self) -> str:
        if self.content_similarity >= CONTENT_MIN_UNNAMED and not (
            self.same_stem or self.name_similarity >= NAME_MIN
        ):
            return "content"
        return "name+content"


def evidence(a: _Node, b: _Node) -> Evidence:
    # token_set_ratio: a stem that grew words ("p&l" -> "p&l use this") still matches
    name = fuzz.token_set_ratio(a.parts.stem, b.parts.stem) / 100.0
    union = len(a.sheets | b.sheets)
    sheets = len(a.sheets & b.sheets) / union if union else 1.0
    content = float(a.minhash.jaccard(b.minhash))
    return Evidence(name, sheets, content, bool(a.parts.stem) and a.parts.stem == b.parts.stem)


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _order(members: list[_Node]) -> tuple[list[_Node], str]:
    """Members earliest first, and what decided the order: version tokens (or dates
    written in the names) when they tell every member apart, else e-mail dates, else
    file dates."""
    ranks = [m.parts.rank for m in members]
    if any(r is not None for r in ranks):
        filled = [r if r is not None else (1, 0.0) for r in ranks]  # no token: the original
        if len(set(filled)) == len(filled):
            order = sorted(range(len(members)), key=lambda i: filled[i])
            return [members[i] for i in order], "version_token"
    dates = [m.parts.date for m in members]
    if all(d is not None for d in dates) and len(set(dates)) == len(dates):
        return sorted(members, key=lambda m: m.parts.date), "version_token"
    far = dt.datetime.max.replace(tzinfo=dt.UTC)
    if all(m.email_date is not None for m in members):
        key = "email_date"
        ordered = sorted(members, key=lambda m: (m.email_date, m.file_date or far, m.workbook_id))
    else:
        key = "file_date"
        ordered = sorted(
            members,
            key=lambda m: (m.file_date or m.email_date or far, m.email_date or far, m.workbook_id),
        )
    return ordered, key


def _reason(ev: Evidence, a: _Node, b: _Node, direct: bool) -> str:
    if not direct:
        basis = "family"
    else:
        basis = ev.basis
    name = (
        f"same stem {a.parts.stem!r}"
        if ev.same_stem
        else f"stems {a.parts.stem!r}/{b.parts.stem!r} {ev.name_similarity:.2f}"
    )
    return f"{basis}: {name}; sheets {ev.sheet_overlap:.2f}; content {ev.content_similarity:.2f}"


def build_version_chains(
    workbooks: pl.DataFrame,
    sheets: pl.DataFrame,
    cells: pl.DataFrame,
    workbook_sources: pl.DataFrame,
    messages: pl.DataFrame | None = None,
) -> pl.DataFrame:
    """Families of versions of the same workbook, one row per member (VERSION_CHAINS_SCHEMA).

    ``workbooks``/``sheets``/``cells`` follow pipeline.ingest.workbooks; sources follow
    WORKBOOK_SOURCES_SCHEMA (workbook_id, file_name, message_key, file_date, ...);
    ``messages`` (MESSAGES_SCHEMA, message_key and date) dates the mails.
    """
    if workbooks.is_empty():
        return pl.DataFrame(schema=VERSION_CHAINS_SCHEMA)
    nodes = _nodes(workbooks, sheets, cells, workbook_sources, messages)
    uf = _UnionFind(len(nodes))
    direct: set[tuple[str, str]] = set()
    for i, j in sorted(_candidates(nodes)):
        ev = evidence(nodes[i], nodes[j])
        if ev.linked:
            uf.union(i, j)
            direct.add((nodes[i].workbook_id, nodes[j].workbook_id))
    families: dict[int, list[_Node]] = defaultdict(list)
    for i, n in enumerate(nodes):
        families[uf.find(i)].append(n)

    out: dict[str, list] = {k: [] for k in VERSION_CHAINS_SCHEMA}
    for members in families.values():
        if len(members) < 2:
            continue
        ordered, order_by = _order(members)
        chain_id = hashlib.sha256(
            "\n".join(sorted(m.workbook_id for m in members)).encode()
        ).hexdigest()
        prev: _Node | None = None
        for pos, node in enumerate(ordered):
            ev = evidence(prev, node) if prev is not None else None
            out["chain_id"].append(chain_id)
            out["position"].append(pos)
            out["workbook_id"].append(node.workbook_id)
            out["file_name"].append(node.file_name)
            out["version_date"].append(node.email_date or node.file_date)
            out["order_by"].append(order_by)
            out["prev_workbook_id"].append(prev.workbook_id if prev else None)
            out["name_similarity"].append(ev.name_similarity if ev else None)
            out["sheet_overlap"].append(ev.sheet_overlap if ev else None)
            out["content_similarity"].append(ev.content_similarity if ev else None)
            if ev is None or prev is None:
                out["link_reason"].append(None)
            else:
                pair = tuple(sorted((prev.workbook_id, node.workbook_id)))
                out["link_reason"].append(_reason(ev, prev, node, pair in direct))
            prev = node
    return pl.DataFrame(out, schema=VERSION_CHAINS_SCHEMA).sort("chain_id", "position")
