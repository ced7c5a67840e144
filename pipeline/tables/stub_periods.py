"""Row stubs of periods read through OCR damage: month rows under a year row, and runs
of year rows.

A stub prints a year once ("1967-January") and the months below it bare ("February");
:func:`carry_years` gives each month row its year, counting rows where OCR lost or
garbled a label. A stub of consecutive years is an arithmetic run, and
:func:`repair_year_run` restores the years OCR misread from their neighbours. Split out
of :mod:`pipeline.tables.periods`, which reads one label into a period.
"""

from __future__ import annotations

import calendar
import re

from pipeline.tables.periods import (
    _CUMULATIVE,
    _MONTH,
    _MONTH_NAME,
    _TO_DATE,
    _YEAR,
    _YEAR_AND_WORD,
    NOT_A_PERIOD,
    Period,
    _day_text,
    _month_name,
    month_number,
    split_glued_year,
)

# "1953-Jenuery", "1984-JdJan. p", "1948—Jamary": a year joined by a dash to a word is
# a month row (an annual row prints the year alone), whatever OCR made of the month,
# its first letter too ("1939—4pr", "1983-¥ar")
_YEAR_DASH_WORD = re.compile(
    r"^\W*(1[89]\d\d|20\d\d)\s*[-\u2013\u2014~]\s*([A-Za-z]|\S[A-Za-z]{2})"
)


def unread_month_row(label: str) -> bool:
    """A month row whose year is printed but whose month OCR garbled ("1953-Jenuery"):
    it names no period (not the year it prints), but dates the month rows below it."""
    label = (label or "").strip()
    return bool(
        _YEAR_DASH_WORD.match(label)
        and not _MONTH.search(label)
        and not _NOT_YEAR_ROW.search(label)
        and not _TO_DATE.search(label)
        and not _CUMULATIVE.search(label)
    )


def debris_label(label: str) -> bool:
    """A stub label OCR reduced to a mark or two ("¢", "=", "s"): no word, no figure. Like a
    blank label, it neither names a period nor ends a run of month rows."""
    label = (label or "").strip()
    return bool(label) and not re.search(r"[A-Za-z]{3}|\d", label)


def carry_years(labels: list[str]) -> list[str]:
    """Month rows under a year row: "1966", "1967-January", "February" -> "February 1967".

    A label that names a month but no year takes the year of the month row above it
    that prints one ("1967-January", or "1953-Jenuery" whose month OCR garbled), while
    the run of month rows lasts; an annual row, an item or a blank-year month row ends
    the run. Other labels are returned unchanged.

    A month run is also arithmetic: each row is the month after the row above. A month
    row standing exactly where its month falls, counted from the last dated month row
    (rows whose label OCR lost or garbled, "", "Fed", "3 Dee", counted as months), takes
    the year its position implies, which may be the next year when the "1940-January"
    row between was lost; a garbled row goes on counting but ends the plain carry. Lost
    or garbled rows between two dated months as many rows apart as months are the
    months between them.
    """
    out: list[str] = []
    year: str | None = None  # the year a bare month row takes (plain carry)
    last: tuple[int, int] | None = None  # (row, year * 12 + month - 1) of the last dated month
    dated: dict[int, int] = {}
    for i, label in enumerate(labels):
        label = split_glued_year(label or "")
        text = label.strip()
        years = _YEAR.findall(label)
        if years:
            month = _MONTH.search(label)
            garbled = _YEAR_AND_WORD.search(label)
            # only a month row ("1983-Oct.") dates the months below it; an annual row
            # ("1984", "1984 (Est.)") does not, and a month row whose year OCR lost
            # leaves the months below it undated rather than dated by the wrong year;
            # a month row whose month OCR garbled ("1939-Har", "1953-Jenuery") still
            # prints its year
            if month:
                year = years[-1]
                last = (i, int(year) * 12 + month_number(month.group(1)) - 1)
                dated[i] = last[1]
            elif garbled and not _MONTH.match(garbled.group(2)) or unread_month_row(label):
                year, last = years[-1], None
            else:
                year, last = None, None
            out.append(label)
        elif _MONTH.match(text):
            m = month_number(_MONTH.match(text).group(1))
            implied = last[1] + i - last[0] if last else None
            if implied is not None and implied % 12 + 1 == m:
                year = str(implied // 12)
            if year:
                out.append(f"{text.rstrip('.')} {year}")
                last = (i, int(year) * 12 + m - 1)
                dated[i] = last[1]
            else:
                out.append(label)
        elif (spelled := _spelled_year_month(text, last, i)) is not None:
            # "1g4g—January" after "December" (1947): its year spelled with letters OCR
            # made of the digits, dated by its place in the run when they spell that year
            year = str(spelled // 12)
            out.append(f"{_month_name(spelled % 12 + 1)} {year}")
            last = (i, spelled)
            dated[i] = spelled
        else:
            if text and not _garbled_stub(text):
                last = None  # an item, a total or an undated month row ends the run
            if text:
                year = None  # ... and so does a garbled row, but for its position
            out.append(label)
    for i in sorted(dated):
        _date_upward(labels, out, dated, i)
    rows = sorted(dated)
    for i, j in zip(rows, rows[1:], strict=False):
        between = [(labels[k] or "").strip() for k in range(i + 1, j)]
        if dated[j] - dated[i] != j - i or not all(not t or _garbled_stub(t) for t in between):
            continue
        for k in range(i + 1, j):
            month = dated[i] + k - i
            out[k] = f"{_month_name(month % 12 + 1)} {month // 12}"
    return out


# what OCR makes of a typewritten digit: its own letters (_DIGIT_LOOKALIKE) and "g"/"B"
# for an 8 as well as a 9
_EIGHT_LOOKALIKE = frozenset("gB")


def _spells(chars: str, year: int) -> bool:
    """Four characters that read as ``year`` where a letter stands for a digit OCR can
    make it of ("1g4g" for 1948: the 9 and the 8 of an old face read as "g")."""
    return len(chars) == 4 and all(
        c == d or c.translate(_DIGIT_LOOKALIKE) == d or (c in _EIGHT_LOOKALIKE and d == "8")
        for c, d in zip(chars, str(year), strict=True)
    )


def _spelled_year_month(text: str, last: tuple[int, int] | None, i: int) -> int | None:
    """The month (year * 12 + month - 1) of a month row whose year OCR spelled with
    letters ("1g4g—January", 1948-05 p25 Table 4, under "December" 1947), when it
    stands where its month falls in the run (the month after the row above's) and its
    letters spell the year that place implies; else None."""
    m = _SPELLED_MONTH_ROW.match(text)
    if not m or last is None or not any(ch.isdigit() for ch in m.group(2)):
        return None
    month = _MONTH.match(m.group(3).lstrip(" -\u2013\u2014~"))
    if not month:
        return None
    implied = last[1] + i - last[0]
    if implied % 12 + 1 != month_number(month.group(1)) or not _spells(m.group(2), implied // 12):
        return None
    return implied


# a month row whose year is read and whose month OCR cut to a mark or two ("1938-5"); not
# a span of years ("1938-39", "1941-1945")
_GARBLED_MONTH_ROW = re.compile(
    r"^\W*(1[89]\d\d|20\d\d)\s*[-\u2013\u2014~]\s*(?!\d{2}\W*$|\d{4})([^\sA-Za-z]{1,2}|[A-Za-z]{1,2})\W*$"
)


def _date_upward(labels: list[str], out: list[str], dated: dict[int, int], i: int) -> None:
    """Bare month rows above the dated month row ``i``, one month a row back from it, take
    the year their position implies: the run's first row lost its year ("July" for
    "1966-July" over "Aug." ... "Dec.", "1967-Jan.", 1967-08 p24 Table 10). Rows OCR
    lost or garbled are counted (and dated by the fill between dated months); any other
    row, or a month out of step, ends the run."""
    for j in range(i - 1, -1, -1):
        text = (labels[j] or "").strip()
        implied = dated[i] - (i - j)
        garbled = _GARBLED_MONTH_ROW.match(text)
        if j not in dated and garbled and int(garbled.group(1)) == implied // 12:
            # the run's first row, its year printed and its month garbled ("1938-5" for
            # "1938-Nov." two rows above "1939-Jan", 1939-12 p63): the month its place
            # implies, when that month is of the year it prints
            out[j] = f"{_month_name(implied % 12 + 1)} {implied // 12}"
            dated[j] = implied
            return
        if j in dated or _YEAR.search(text):
            return
        month = _MONTH.match(text)
        if month and re.fullmatch(r"[A-Za-z]+\.?", text):
            if month_number(month.group(1)) != implied % 12 + 1:
                return
            out[j] = f"{text.rstrip('.')} {implied // 12}"
            dated[j] = implied
        elif text and not _garbled_stub(text):
            return


_STUB_WORD = re.compile(r"total|\bnet\b|\bsum\b|\bavg|\bave\b|mean", re.IGNORECASE)


def _garbled_stub(text: str) -> bool:
    """A stub OCR garbled past reading ("Fed", "3 Dee", "M"): no year, no word longer
    than a month's abbreviation, and no stub word such as "Net" or "Total"."""
    return (
        len(text) <= 8
        and not _YEAR.search(text)
        and all(len(w) <= 4 for w in re.findall(r"[A-Za-z]+", text))
        and not _STUB_WORD.search(text)
    )


_YEAR_ONLY = re.compile(r"^\W*(1[89]\d\d|20\d\d)\W*\d?\W*$")
_NOT_YEAR_ROW = re.compile(r"total|average|change|\bnet\b|estim|\best\b|percent", re.IGNORECASE)


# Letters OCR makes of the digits of an old typewriter face: "19h6" / "19k8" (4),
# "1gh2" (9, 4), "I9S0", "19O1"
_DIGIT_LOOKALIKE = str.maketrans("hkgIilOoSsBZz", "4491110055822")


def _lookalike_year(label: str) -> int | None:
    """The year a four-character stub spells with letters for some digits ("19h6" ->
    1946), when at least one of its characters is a digit; else None."""
    core = re.sub(r"^\W+|[\W_]+$", "", label or "")
    if len(core) != 4 or not any(ch.isdigit() for ch in core) or core.isdigit():
        return None
    digits = core.translate(_DIGIT_LOOKALIKE)
    return int(digits) if digits.isdigit() and _YEAR.fullmatch(digits) else None


def one_digit_off(year: int, implied: int) -> bool:
    """Two years that differ in one digit (an OCR misreading of one for the other)."""
    return sum(a != b for a, b in zip(str(year), str(implied), strict=True)) == 1


# A year stub with the stub's left rule read as a digit before it ("11934" for "|1934",
# 1941-01 p66 Net Movement of Silver)
_RULED_YEAR = re.compile(r"^[1lI|]((?:18|19|20)\d\d)[\s.,:;'`]*$")


def repair_year_run(labels: list[str], min_fit: int = 3) -> list[str]:
    """Year stubs OCR misread, restored from their neighbours.

    A stub of consecutive years ("1958", "1959", ..., "1965") is an arithmetic run: row
    ``i`` prints ``a + i``. When at least ``min_fit`` rows read as years on one such run
    (and outnumber any other run), a row between two of them whose label is blank or
    garbled ("19EL.", "W96hervccecc", ""), or a year one digit off ("1980" between "1939"
    and "1941": no other year can stand there), takes the year its position implies. A
    stub that spells its position's year with letters for digits ("19h6", "19k8": the
    4 of an old typewriter face) is read as that year, and extends the run to it; so is
    one that prints its position's year after the stub's rule read as a digit ("11934"
    for "|1934"). A row
    that names a month or reads as words is never touched, and nothing is extrapolated
    past the first or last year read.
    """
    years = {}
    for i, label in enumerate(labels):
        m = _YEAR_ONLY.match(label or "")
        if m:
            years[i] = int(m.group(1))
    ruled = {
        i: int(m.group(1)) for i, lb in enumerate(labels) if (m := _RULED_YEAR.match(lb or ""))
    }
    years.update(ruled)
    if len(years) < min_fit:
        return labels
    offsets = [y - i for i, y in years.items()]
    best = max(set(offsets), key=offsets.count)
    fit = sorted(i for i, y in years.items() if y - i == best)
    if len(fit) < min_fit or offsets.count(best) <= len(offsets) / 2:
        return labels
    out = list(labels)
    spelled = [i for i, label in enumerate(labels) if _lookalike_year(label) == best + i]
    for i in spelled + [i for i, y in ruled.items() if y == best + i]:
        out[i] = str(best + i)
    first, last = min(fit + spelled), max(fit + spelled)
    for j in (first - 1, last + 1):
        if 0 <= j < len(labels) and _lost_digit(labels[j], best + j):
            out[j] = str(best + j)
    if first > 0 and (span := _spelled_span(labels[first - 1], best + first - 1)):
        out[first - 1] = span  # the years before the run's first, together
    for j in range(first + 1, last):
        if j in years:
            bare = re.fullmatch(r"[\s.,:;'`]*\d{4}[\s.,:;'`]*", labels[j])
            # (a year two digits off, "1993" between "1934" and "1936" of a 1940 table,
            # 1940-05 p73, when both rows beside it fit the run: nothing else can stand
            # there)
            both = j - 1 in fit and j + 1 in fit
            if bare and years[j] != best + j and (one_digit_off(years[j], best + j) or both):
                out[j] = str(best + j)
            continue
        if j in spelled:
            continue
        label = (labels[j] or "").strip()
        words = re.findall(r"[A-Za-z]{4,}", label)
        if _MONTH.search(label) or len(words) > 1 or len(label) > 24 or _NOT_YEAR_ROW.search(label):
            continue
        out[j] = str(best + j)
    return out


def _lost_digit(label: str | None, year: int) -> bool:
    """A stub of three digits that is ``year`` with one digit lost ("196" for the "1946"
    heading a run 1947, 1948, ..., 1953-09 p15 Table 2): right before the run's first
    year or after its last, a digit other than the last lost."""
    core = re.sub(r"[\s.,:;'`]", "", label or "")
    if not re.fullmatch(r"\d{3}", core):
        return False
    digits = str(year)
    # (not its last digit: "193" is every year of the 1930s, and a stub may open on a
    # year off the run, "1930" over 1935, 1936, ...)
    return any(digits[:k] + digits[k + 1 :] == core for k in range(3))


_SPAN_STUB = re.compile(r"^\W*(\w{4})\s*[-\u2013\u2014]\s*(\w{4})\W*$")


def _spelled_span(label: str | None, end: int) -> str | None:
    """ "<first>-<end>" for a span stub ending on ``end`` that OCR garbled: both ends
    spelled with digit look-alikes ("19h1-19b5" for "1941-1945", 1953-09 p29 Calendar
    years; the "b" of the 4 is no look-alike of one digit), one unknown letter at most
    in the end and none in the start, which opens an earlier year of the same decade
    or two; None when the stub is no such span."""
    m = _SPAN_STUB.match(label or "")
    if not m or (m.group(1) + m.group(2)).isdigit():
        return None
    unknown = sum(
        not (c == d or c.translate(_DIGIT_LOOKALIKE) == d)
        for c, d in zip(m.group(2), str(end), strict=True)
    )
    start = m.group(1).translate(_DIGIT_LOOKALIKE)
    if unknown > 1 or not start.isdigit() or not 0 < end - int(start) <= 20:
        return None
    return f"{start}-{end}"


def repair_year_runs_by_section(labels: list[str], parents: list[str]) -> list[str]:
    """:func:`repair_year_run` over each stub section (rows under one heading) on its
    own, then over the whole stub. A stub of sections repeats its years ("Fiscal years:"
    1941-1945, 1946 ... 1953; "Calendar years:" 1941-1945, 1946 ... 1952, 1953-09 p29):
    the two runs tie over the whole stub and neither is taken, so the garbled "1g9h9"
    between "1948" and "1950" of the first stayed unread."""
    out = list(labels)
    start = 0
    for i in range(1, len(labels) + 1):
        if i == len(labels) or parents[i] != parents[start]:
            if start > 0 or i < len(labels):
                out[start:i] = repair_year_run(out[start:i])
            start = i
    # twice: a year two digits off stands between two run years only once the garbled
    # stub beside it is restored ("1934", "1993", "193", "1937", 1940-05 p73)
    return repair_year_run(repair_year_run(out))


# a row that prints a month and a day of it, nothing else ("Feb. 7", "February 14")
_MONTH_DAY_ROW = re.compile(r"^\W*([A-Za-z]{3,9})\.?\s+(\d{1,2})\W*$")
# context words that make a day the end of a flow (a week's, a span's), not a position
_DAY_ENDS_FLOW = re.compile(r"\bweeks?\b|\bweekly\b|\bdaily\b|\bduring\b|\bthrough\b", re.I)


def title_month_days(labels: list[str], title: str, context: str = "") -> list[str]:
    """Day rows under a title that names one month: "Feb. 7", "Feb. 14", ... under
    "Short-Term Foreign Assets ... for February 1940" (1940-05 p59, nine panels of the
    Wednesdays of the month) -> "Feb. 7, 1940": the days of that month in the title's year,
    positions on those days (as a day always reads).

    Only when the title prints exactly one month and one year, every month-and-day row
    names that month; a day the month does not have ("Feb. 31") leaves its run undated.
    A run (rows whose days count up) that prints a day no other run prints, where the
    stub has several runs, is undated too: panels repeat their dates, and a day out of
    step ("Feb. 7", "Feb. 24", "Feb. 21") splits a run into pieces that do not match.
    A context that makes a day the end of a flow
    ("Week ended", "during") dates none. Other labels are returned unchanged.
    """
    months = {month_number(m.group(1)) for m in _MONTH_NAME.finditer(title or "")}
    years = set(_YEAR.findall(title or ""))
    if len(months) != 1 or len(years) != 1 or _DAY_ENDS_FLOW.search(f"{title} {context}"):
        return labels
    (month,), (year,) = months, years
    days: dict[int, int] = {}
    for i, label in enumerate(labels):
        m = _MONTH_DAY_ROW.match(label or "")
        if not m or not _MONTH_NAME.fullmatch(m.group(1)):
            continue
        if month_number(m.group(1)) != month:
            return labels  # another month: the rows are not the days of the title's
        days[i] = int(m.group(2))
    last_day = calendar.monthrange(int(year), month)[1]
    runs = _runs(days)
    out = list(labels)
    for run in runs:
        values = [days[i] for i in run]
        others = {days[i] for r in runs if r is not run for i in r}
        if not all(1 <= d <= last_day for d in values):
            continue
        if len(runs) > 1 and not set(values) <= others:
            continue  # panels repeat their dates: a day no other run prints is a misread
        for i in run:
            out[i] = f"{_month_name(month)} {days[i]}, {year}"
    dated = {i: days[i] for i in days if out[i] != labels[i]}
    for j, day in _panel_gaps(labels, dated, runs).items():
        out[j] = f"{_month_name(month)} {day}, {year}"
    return out


# a day row OCR garbled: an abbreviated month's three letters however read ("Fed.",
# "Ted."), then its day or a mark, then figures OCR ran into it ("Fed. 7 Th217")
_GARBLED_DAY_ROW = re.compile(r"^\W*[A-Za-z]{3}\.\s*(?:(\d{1,2})\b|[A-Za-z]\b|$)")


def _panel_gaps(labels: list[str], dated: dict[int, int], runs: list[list[int]]) -> dict[int, int]:
    """Day rows OCR garbled inside panels that repeat one sequence of days: "Feb. 7",
    "Feb. 14", "Feb. 21", "Feb. 28" in each of nine panels (1940-05 p59), where "Fed. 7
    Th217", "Ted. 14 igh eke", "Ted. A" stand for some. When at least two panels print the
    whole sequence as dated, every other dated run is a piece of it, and a garbled row
    stands next to a dated row of its panel, it takes the day its place in the sequence
    gives (the same from the row above and the row below, where both are dated); a day
    it prints must be that day."""
    full = [[dated[i] for i in run] for run in runs if all(i in dated for i in run)]
    longest = max((len(f) for f in full), default=0)
    seqs = [f for f in full if len(f) == longest]
    if longest < 2 or len(seqs) < 2 or any(f != seqs[0] for f in seqs):
        return {}
    seq = seqs[0]
    if any(not _in_order(f, seq) for f in full):
        return {}
    out: dict[int, int] = {}
    for j, label in enumerate(labels):
        m = _GARBLED_DAY_ROW.match(label or "")
        if j in dated or not m:
            continue
        guesses = set()
        if j - 1 in dated and seq.index(dated[j - 1]) + 1 < len(seq):
            guesses.add(seq[seq.index(dated[j - 1]) + 1])
        if j + 1 in dated and seq.index(dated[j + 1]) > 0:
            guesses.add(seq[seq.index(dated[j + 1]) - 1])
        if len(guesses) == 1 and (m.group(1) is None or int(m.group(1)) in guesses):
            out[j] = guesses.pop()
    return out


def _in_order(days: list[int], seq: list[int]) -> bool:
    """``days`` is a run of consecutive entries of ``seq``."""
    return (
        bool(days)
        and days[0] in seq
        and seq[seq.index(days[0]) : seq.index(days[0]) + len(days)] == days
    )


def _runs(days: dict[int, int]) -> list[list[int]]:
    """Day rows grouped into runs: consecutive rows whose days count up. A row whose day
    is not after the row above opens a new run (the next panel's "Feb. 7" after
    "Feb. 28"; or a misread day, which the check across runs then finds)."""
    out: list[list[int]] = []
    for i in sorted(days):
        if out and out[-1][-1] == i - 1 and days[i] > days[i - 1]:
            out[-1].append(i)
        else:
            out.append([i])
    return out


# a month row whose year is four characters, some of them letters ("1g47-July")
_SPELLED_MONTH_ROW = re.compile(r"^(\W*)(\w{4})(\s*[-\u2013\u2014~]\s*[A-Za-z].*)$")
_ANNUAL_YEAR = re.compile(r"^\W*(1[89]\d\d|20\d\d)(?!\d)(?!\s*[-\u2013\u2014~]\s*[A-Za-z])")


def spelled_month_rows(labels: list[str]) -> list[str]:
    """A month row whose year OCR spelled with a letter for a digit ("1g47-July" under
    annual rows 1940 ... 1949, 1948-05 p18: the 9 of an old typewriter face read as "g")
    -> "1947-July", when it names a month and that year lies within the years of the
    table's annual rows (or one past them). Other labels are returned unchanged."""
    annual = [int(m.group(1)) for label in labels if (m := _ANNUAL_YEAR.match(label or ""))]
    if len(annual) < 2:
        return labels
    out = list(labels)
    for i, label in enumerate(labels):
        m = _SPELLED_MONTH_ROW.match(label or "")
        if not m or not _MONTH.match(m.group(3).lstrip(" -\u2013\u2014~")):
            continue
        year = _lookalike_year(m.group(2))
        if year is not None and min(annual) - 1 <= year <= max(annual) + 1:
            out[i] = f"{m.group(1)}{year}{m.group(3)}"
    return out


def since_to_date(parsed: list[Period | None], checked: list[Period | None]) -> list[Period | None]:
    """ "1957 to date" at the foot of a stub that runs from 1957 (1967-08 p24, Federal
    Disability Insurance Trust Fund: 1957 ... 1967p, 1968 (Est.), 1966-July ... 1967-June,
    then "1957 to date") is the total since the start of fiscal year 1957 through the
    last month the stub prints (June 1967): cumulative to that month's end.

    ``parsed`` are the rows as read ("1957 to date" a fiscal year to date), ``checked``
    the same after the order check (which made it no period: the stub prints 1957 as a
    whole year). Only a to-date row below every other dated row, whose year opens the
    stub's first annual row, and whose stub's months run at least to the end of its
    last annual row (estimates aside), is dated; others stay as checked."""
    annual = [
        (i, p) for i, p in enumerate(checked)
        if p is not None and p.kind in ("fiscal_year", "calendar_year") and p.start
    ]  # fmt: skip
    months = [p.end for p in checked if p is not None and p.kind == "month"]
    out = list(checked)
    for i, p in enumerate(parsed):
        if (
            p is None
            or p.kind != "year_to_date"
            or p.start is None
            or checked[i] is not NOT_A_PERIOD
            or not annual
            or not months
            or any(q is not None and q is not NOT_A_PERIOD for q in checked[i + 1 :])
            or annual[0][1].start != p.start
            or max(months) < max(q.end for _, q in annual)
        ):
            continue
        end = max(months)
        since = p.text.removesuffix(" to date")
        out[i] = Period("cumulative_to_date", p.start, end, f"{since} through {_day_text(end)}")
    return out


_YEAR_STEM = re.compile(r"^[\s.,:;'`]*(\d{1,3})[\s.,:;'`]*$")
_BARE_YEAR = re.compile(r"^[\s.,:;'`]*((?:18|19|20)\d\d)[\s.,:;'`]*$")


def extend_year_runs(labels: list[str]) -> list[str]:
    """Year stubs OCR cut short or misread at either end of a run, restored from it.

    Two or more consecutive rows printing consecutive years ("1937", "1938") are a run.
    Walking out of it, a row whose stub is the opening digits of its position's year
    ("193" before "1937" for 1936; "19" or "1" after "1939" for 1940: OCR lost the last
    digits of a typewritten year) takes that year, and so, past the run's end, does a year one
    digit off in its decade or century ("1959", "1969", "1909" after "1937", "1938" for
    1939: no year but 1939 can follow, and the last digit, the one a real jump would
    change, agrees). A blank row is crossed when the row past it is one of these ("193",
    "", "1935" for 1933, 1934, 1935). The walk stops at the first row that is none of
    these (a word, a month, a blank with nothing such past it): nothing is guessed past it.
    """
    years = {i: int(m.group(1)) for i, lb in enumerate(labels) if (m := _BARE_YEAR.match(lb or ""))}
    out = list(labels)
    runs = [i for i in years if years.get(i + 1) == years[i] + 1]
    for i in runs:
        if years.get(i - 1) != years[i] - 1:  # the run's first row: walk up
            _walk(out, i, years[i], -1, _stem_of)
    for i in [k + 1 for k in runs]:
        if years.get(i + 1) != years[i] + 1:  # the run's last row: walk down
            _walk(out, i, years[i], 1, lambda lb, y: _stem_of(lb, y) or _decade_slip(lb, y))
    return out


def _walk(out: list[str], i: int, year: int, step: int, fits) -> None:
    """From row ``i`` (printing ``year``) outwards by ``step``, restore rows that
    ``fits``; a blank row is crossed only when the row past it fits."""
    j = i + step
    while 0 <= j < len(out):
        y = year + (j - i)
        if fits(out[j], y):
            out[j] = str(y)
        elif (
            not re.search(r"[A-Za-z0-9]", out[j] or "")
            and 0 <= j + step < len(out)
            and fits(out[j + step], y + step)
        ):
            out[j] = str(y)
        else:
            return
        j += step


def _stem_of(label: str | None, year: int) -> bool:
    m = _YEAR_STEM.match(label or "")
    return bool(m) and str(year).startswith(m.group(1))


def _decade_slip(label: str | None, year: int) -> bool:
    m = _BARE_YEAR.match(label or "")
    if not m:
        return False
    read = m.group(1)
    return read[-1] == str(year)[-1] and one_digit_off(int(read), year)


def restated_year(years: list[int | None], annual: list[int], rows: list[int]) -> bool:
    """Two annual rows printing one year one right under the other, the year before
    above them and the year after below: a series printed again from a new basis (1967-08
    p97 Banking Liabilities: "1960", "1961", "1961 6/", "1962", the note: "Differs from
    1961 and of year data on the preceding line by inclusion of ..."). A misread copy
    breaks the run ("1960", "1961", "1961" for "1962", "1963")."""
    k = annual.index(rows[0])
    if k + 1 >= len(annual) or annual[k + 1] != rows[1] or k == 0 or k + 2 >= len(annual):
        return False
    y = years[rows[0]]
    return y is not None and years[annual[k - 1]] == y - 1 and years[annual[k + 2]] == y + 1
