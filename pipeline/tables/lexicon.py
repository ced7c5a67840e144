"""A lexicon of label words built from the archive itself, to correct OCR misspellings.

Old scans misread letters in row labels ("United Statee Housing", "Federal Farn
Mortgage"). The same words are printed correctly elsewhere in the archive: in
born-digital volumes whose text layer is exact, and in other scanned volumes where
OCR read them with high confidence. The lexicon counts those trustworthy spellings
(an OCR-only spelling one edit from a far more frequent word is a misreading, not a
spelling); :meth:`Lexicon.correct` replaces a label word the lexicon does not know by
the one lexicon word a single edit away (the most frequent, when it clearly dominates),
and reports every replacement so it can be recorded next to the label as read.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import polars as pl
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from pipeline.tables.periods import MONTHS

MIN_LENGTH = 4  # shorter words ("of", "and", "tax") are too easily one edit from another
CONFIDENT = 90.0  # OCR confidence above which a word counts as read right ...
MIN_DOCS = 2  # ... when it is read so in at least this many documents
DOMINANCE = 3  # the best candidate must be this many times as frequent as the next
MIN_SUPPORT = 20  # a short word (``SHORT`` letters or fewer) is corrected only to a word
SHORT = 5  # the archive prints this often: "beet" read right is no misreading of "best"
_WORD = re.compile(r"[A-Za-z]+")


@dataclass
class Lexicon:
    """Trustworthy label words with their frequency in the archive."""

    counts: Counter = field(default_factory=Counter)
    # words read confidently that may be words of their own or the misreading of a far
    # more frequent word one letter away ("fuel" / "full", "Burope" / "Europe"): left
    # as read, never counted as known, so a label naming one is marked uncertain
    contested: set[str] = field(default_factory=set)
    # three-letter words read right ("oil", "tax", "Feb"): a label word of three letters
    # not among them ("otl", "ofl" for "oil"; "Oot" for "Oct") is marked, never corrected
    short: set[str] = field(default_factory=set)
    _choices: list[str] = field(default_factory=list)
    _cache: dict[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._choices = sorted(self.counts)

    def __contains__(self, word: str) -> bool:
        return word.lower() in self.counts

    def __len__(self) -> int:
        return len(self.counts)

    def suggest(self, word: str) -> str | None:
        """The lexicon word OCR most plausibly misread as ``word``, if one clearly wins.

        Candidates are the lexicon words within two edits; an edit costs 1, but a letter
        read as its typewriter look-alike ("e" for "s": "Banke", "veesele") costs
        ``SLIP_COST``, so "Banke" is "Banks" rather than "Bank". The cheapest candidate
        (at most one full edit; of equal cost, the fewer edits: "Bove" is "Above", not
        "Have" by two look-alikes) wins when no other is as cheap, or when it is
        ``DOMINANCE`` times as frequent as the next equally cheap one. A word that only
        ends otherwise than a lexicon word ("Honduran", "Nicaraguan" beside "Honduras",
        "Nicaragua") is a word of its own, not a misreading of it; and a short word
        is corrected only to a word the archive prints ``MIN_SUPPORT`` times or more
        (one slip turns a short word into another: "Beet" is no misread "best", "pool"
        no "wool", "lieu" no "lion"; "yoer" is "year", "mooth" is "month").
        """
        low = word.lower()
        if len(low) < MIN_LENGTH or low in self.counts or low in self.contested:
            return None
        if not self.counts:
            return None
        if low not in self._cache:
            found = process.extract(
                low, self._choices, scorer=Levenshtein.distance, score_cutoff=2, limit=None
            )
            costs = sorted(
                (c, edits, -self.counts[w], w)
                for w, edits, _ in found
                if (c := slip_cost(low, w)) <= 1.0 and not _other_ending(low, w)
            )
            best = None
            if costs:
                cheapest = [w for c, e, _, w in costs if (c, e) == costs[0][:2]]
                if len(cheapest) == 1 or (
                    self.counts[cheapest[0]] >= DOMINANCE * self.counts[cheapest[1]]
                ):
                    best = cheapest[0]
                if best and len(low) <= SHORT and self.counts[best] < MIN_SUPPORT:
                    best = None  # a short word is corrected only to a common word
            self._cache[low] = best
        return self._cache[low]

    def unknown(self, text: str, short: bool = True) -> list[str]:
        """Words of ``text`` (of ``MIN_LENGTH`` letters or more, and with ``short`` of
        three letters) the lexicon does not know: what OCR may have garbled ("Bate
        aneete", "otl"), so a question must not name them."""
        if not self.counts:
            return []
        words = _WORD.findall(text or "")
        out = [w for w in words if len(w) >= MIN_LENGTH and w not in self]
        if short and self.short:
            out += [w for w in words if len(w) == 3 and not w.isupper()
                    and w.lower() not in self.short and not _month_like(w)]  # fmt: skip
        return out

    def correct(self, label: str) -> tuple[str, list[tuple[str, str]]]:
        """The label with misspelt words replaced, and the (read, corrected) pairs."""
        changes: list[tuple[str, str]] = []

        def fix(m: re.Match) -> str:
            word = m.group(0)
            best = self.suggest(word)
            if best is None:
                return word
            fixed = _same_case(best, word)
            changes.append((word, fixed))
            return fixed

        return _WORD.sub(fix, label or ""), changes


# Letters a worn typewriter face or a faint scan makes OCR read as one another.
# (read, printed): the typewriter "s" comes back as "e" or "a", never the other way
# round ("concerts" read right is no misread "concerte"); other pairs go both ways.
_LOOK_ALIKES = {("e", "s"), ("a", "s")} | {
    pair for a, b in ("ec", "eo", "ea", "oc", "ao", "nu", "uv", "hb", "il", "tf", "nm", "ij",
                      "vw", "hn", "ua")
    for pair in ((a, b), (b, a))
}  # fmt: skip
SLIP_COST = 0.5


def slip_cost(read: str, word: str) -> float:
    """Edit distance from ``read`` to ``word`` where swapping look-alike letters costs
    ``SLIP_COST`` and any other edit 1."""
    prev = [float(j) for j in range(len(word) + 1)]
    for i, a in enumerate(read, 1):
        cur = [float(i)]
        for j, b in enumerate(word, 1):
            sub = 0.0 if a == b else (SLIP_COST if (a, b) in _LOOK_ALIKES else 1.0)
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + sub))
        prev = cur
    return prev[-1]


def _other_ending(read: str, word: str) -> bool:
    """``read`` is ``word`` with another last letter (not a look-alike), one more or
    one less: a word of its own ("Honduran", "Nicaraguan", "grant" beside "grants",
    "Liquor" beside an OCR "liquore"), even where OCR lost a last letter ("bearin")."""
    if len(read) == len(word) and read[:-1] == word[:-1]:
        return (read[-1], word[-1]) not in _LOOK_ALIKES
    return read[:-1] == word or word[:-1] == read


_MONTH_KEYS = [m[:3] for m in MONTHS]


def _month_like(word: str) -> bool:
    """A three-letter word a look-alike or one letter from a month ("Oec", "Fob"): the
    period reader, which knows the months around it, decides what it is."""
    return any(slip_cost(word.lower(), m) <= 1.0 for m in _MONTH_KEYS)


def _slip_of(read: str, word: str) -> bool:
    """Whether ``read`` is surely ``word`` misread (one edit apart): a look-alike letter
    ("truet" for "trust"), or a letter lost or added ("outstandng"). With another letter
    in its place it may be a word of its own ("fuel" beside "full", "lumber" beside
    "number", "bullion" beside "billion")."""
    return len(read) != len(word) or slip_cost(read, word) <= SLIP_COST


def _word_within(read: str, word: str, counts: Counter) -> bool:
    """``read`` is ``word`` with a letter left out, and ``word`` is printed fewer than
    ``MIN_SUPPORT`` times: no sure slip. Words nest ("ratios" in "rations"), and a rare
    "word" may be no word at all: the archive prints "rations" only as the end of a
    hyphenated "Corpo-rations" or "associa-tions" (1939-12 p68 read "Ratios of Index
    of Wholesale Prices" right, in two volumes, and it was "corrected" to "Rations")."""
    return len(read) < len(word) and counts[word] < MIN_SUPPORT


def _plural_pair(a: str, b: str) -> bool:
    """ "account" / "accounts": both spellings are words."""
    return a + "s" == b or b + "s" == a


def _same_case(word: str, like: str) -> str:
    if like.isupper():
        return word.upper()
    if like[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def build_lexicon(words: pl.DataFrame) -> Lexicon:
    """The lexicon of ``words`` (``WORDS_SCHEMA``): every text-layer word, and OCR words
    read with confidence >= ``CONFIDENT`` in at least ``MIN_DOCS`` documents."""
    if words.is_empty():
        return Lexicon()
    all_tokens = (
        words.select(
            "doc_id",
            "conf",
            pl.col("source").fill_null("ocr"),
            token=pl.col("text").str.extract_all(r"[A-Za-z]+"),
        )
        .explode("token", empty_as_null=False)
        .drop_nulls("token")
        .with_columns(pl.col("token").str.to_lowercase())
    )
    tokens = all_tokens.filter(pl.col("token").str.len_chars() >= MIN_LENGTH)
    three = all_tokens.filter(pl.col("token").str.len_chars() == 3)
    short = set(three.filter(pl.col("source") == "text_layer")["token"].to_list()) | set(
        three.filter((pl.col("source") != "text_layer") & (pl.col("conf") >= CONFIDENT))
        .group_by("token")
        .agg(pl.col("doc_id").n_unique().alias("docs"))
        .filter(pl.col("docs") >= MIN_DOCS)["token"]
        .to_list()
    )
    exact = tokens.filter(pl.col("source") == "text_layer").group_by("token").len()
    confident = (
        tokens.filter((pl.col("source") != "text_layer") & (pl.col("conf") >= CONFIDENT))
        .group_by("token")
        .agg(pl.len(), pl.col("doc_id").n_unique().alias("docs"))
        .filter(pl.col("docs") >= MIN_DOCS)
        .select("token", "len")
    )
    counts: Counter = Counter()
    for token, n in pl.concat([exact, confident]).iter_rows():
        counts[token] += n
    contested: set[str] = set()
    # A typewriter face makes the same OCR slip confidently, page after page ("truet",
    # "thousande", "outetanding"): a word known only from OCR that is one edit from a
    # word the archive prints far more often is that word misread, not a word of its own.
    printed = set(exact["token"].to_list())
    choices = sorted(counts)
    for token in [t for t in choices if t not in printed]:
        near = process.extract(
            token, choices, scorer=Levenshtein.distance, score_cutoff=1, limit=None
        )
        far_more = [
            w
            for w, _, _ in near
            if w != token and counts[w] >= DOMINANCE * counts[token] and not _plural_pair(w, token)
        ]
        if any(_slip_of(token, w) and not _word_within(token, w, counts) for w in far_more):
            del counts[token]
        elif far_more:
            # another letter in a look-alike's place: a word of its own ("fuel",
            # "lumber", "bullion") or a slip the look-alikes do not list ("Burope",
            # "Jane"); or a word inside a word the archive prints only a few times
            # ("ratios" beside "rations"): neither corrected nor trusted
            del counts[token]
            contested.add(token)
    return Lexicon(counts, contested, short)
