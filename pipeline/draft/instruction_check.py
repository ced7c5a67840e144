"""The deterministic check of an instruction rewritten by a model: does it still name
everything the template's instruction names?

The template drafter (:mod:`pipeline.draft.workflows`) writes one line per edit read from
``diff_ref`` ("in 'Sales'!C3, change 95 to 97", "insert 1 new row at 4:4 in 'Sales'",
...). From those lines (and the diff's changed sheets) come the :class:`Requirements`: sheet
names, cell and range addresses, values to enter, number formats, formulas, row and column
inserts and deletes, charts. A rewrite must name each one, loosely enough for natural
wording (a range by its two ends, 1,250.5 as 1250.5, "row 8" for rows 8:8) and strictly
enough that an edit dropped from it is caught (on the SpreadsheetBench pairs a rewrite that
drops the first edit line is rejected in 130 of 133 drafts). A rewrite is held only to what
the template itself meets (:func:`baseline_requirements`), and one holding personal data
(:func:`pipeline.draft.scrub.personal_data`, the validator's own test) is rejected first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.detect.diffs import WorkbookDiff
from pipeline.draft.scrub import People, personal_data

__all__ = [
    "Requirements",
    "baseline_requirements",
    "check_instruction",
    "missing_requirements",
    "requirements_from_lines",
]


@dataclass(frozen=True)
class Requirements:
    """What an instruction must name: from the diff's sheets and the template's lines."""

    sheets: tuple[str, ...] = ()
    spans: tuple[str, ...] = ()  # "C3", "E2:E5"
    values: tuple[str, ...] = ()  # values to enter and number formats, as the template writes them
    formulas: tuple[str, ...] = ()
    axes: tuple[str, ...] = ()  # "insert rows 4:4", "delete columns Y:Z"

    def without(self, missing: Iterable[tuple[str, str]]) -> Requirements:
        """These requirements less the ``(field, item)`` pairs given."""
        drop = set(missing)
        return Requirements(
            *(
                tuple(x for x in getattr(self, f) if (f, x) not in drop)
                for f in ("sheets", "spans", "values", "formulas", "axes")
            )
        )


_SHEET = r"'(?:[^']|'')+'"
_SPAN = re.compile(rf"{_SHEET}!([A-Z]{{1,3}}\d+(?::[A-Z]{{1,3}}\d+)?)")
_QUOTED_OR_NUMBER = re.compile(r"'([^']*)'|(-?[\d,]*\d(?:\.\d+)?%?)")
_ENTER = re.compile(rf"^(?:enter|fill in|change the values to) (.*) in {_SHEET}!\S+$")
_CHANGE = re.compile(rf"^in {_SHEET}!\S+, change .* to (.+)$")
_FORMULA = re.compile(
    rf"^in {_SHEET}!\S+, put the formula (.+?)(?: \(and copy it (?:down|across)\))?$"
)
_SET = re.compile(rf"^set {_SHEET}!\S+ to (.*)$")
_PASTE = re.compile(rf"^replace the formulas? in {_SHEET}!\S+ with the values? (.*)$")
_COLOUR = re.compile(r"^(?:highlight|colour the text of) .*\b([0-9A-F]{6}|[0-9A-F]{8})\)?$")
_FORMAT = re.compile(rf"^format {_SHEET}!\S+ as '(.*)'$")
_INSERT = re.compile(rf"^insert \d+ new (row|column)s? at (\S+) in {_SHEET}$")
_DELETE = re.compile(rf"^delete (row|column)s (\S+) of {_SHEET}$")
_CHART = re.compile(r"^add an? (?:\w+ )?chart to ")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?![\d])")


def _values_in(part: str) -> list[str]:
    out = []
    for quoted, number in _QUOTED_OR_NUMBER.findall(part):
        if quoted:
            out.append(quoted)
        elif number:
            out.append(number)
    return [v for v in out if v and v != "..."]


def requirements_from_lines(lines: Iterable[str], diff: WorkbookDiff | None = None) -> Requirements:
    """The sheets, cell spans, values, number formats, formulas and row/column inserts
    and deletes the instruction lines name (sheets also from ``diff``: every added,
    removed, renamed or changed sheet)."""
    sheets: list[str] = []
    if diff is not None:
        for sd in diff.sheets:
            if sd.status in ("added", "removed", "renamed") or sd.changed:
                sheets.append(sd.sheet)
                if sd.status == "renamed" and sd.before_name:
                    sheets.append(sd.before_name)
    spans: list[str] = []
    values: list[str] = []
    formulas: list[str] = []
    axes: list[str] = []
    for line in lines:
        spans += _SPAN.findall(line)
        if m := _FORMULA.match(line):
            formulas.append(m.group(1))
        elif m := _CHANGE.match(line):
            values += _values_in(m.group(1)) or [m.group(1)]
        elif m := (_ENTER.match(line) or _SET.match(line) or _PASTE.match(line)):
            values += _values_in(m.group(1))
        elif m := _COLOUR.match(line):
            values.append(m.group(1))
        elif m := _FORMAT.match(line):
            values.append(m.group(1))
        elif m := _INSERT.match(line):
            axes.append(f"insert {m.group(1)}s {m.group(2)}")
        elif m := _DELETE.match(line):
            axes.append(f"delete {m.group(1)}s {m.group(2)}")
        elif _CHART.match(line):
            values.append("chart")
    values = [v for v in values if v != "empty"]
    return Requirements(*(tuple(dict.fromkeys(x)) for x in (sheets, spans, values, formulas, axes)))


def _as_number(text: str) -> float | None:
    try:
        return float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return None


def _has_address(text: str, address: str) -> bool:
    return (
        re.search(rf"(?<![A-Za-z0-9$]){re.escape(address)}(?!\d)", text.replace("$", ""))
        is not None
    )


def _has_word(text: str, word: str, flags: int = re.IGNORECASE) -> bool:
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])", text, flags) is not None


def _has_axis(text: str, axis: str) -> bool:
    """An insert/delete is named: its verb, and its span ("4:4", "Y:Z") or each end
    within a few words after "row(s)"/"column(s)" ("at row 4", "columns Y and Z")."""
    verb, kind, span = axis.split(" ", 2)
    verbs = ("insert", "add") if verb == "insert" else ("delete", "remove")
    if not any(_has_word(text, v) or _has_word(text, v + "s") for v in verbs):
        return False
    if _has_word(text, span, 0):
        return True
    noun = "rows?" if kind == "rows" else "columns?"
    return all(
        re.search(
            rf"(?i:\b{noun})\b[^.\n]{{0,30}}?(?<![A-Za-z0-9]){re.escape(end)}(?![A-Za-z0-9])",
            text,
        )
        for end in span.split(":")
    )


def _missing(text: str, req: Requirements) -> list[tuple[str, str, str]]:
    """``(field, item, label)`` of each requirement ``text`` does not name."""
    out: list[tuple[str, str, str]] = []
    folded = text.casefold()
    numbers = {n for n in (_as_number(x) for x in _NUMBER.findall(text)) if n is not None}
    for sheet in req.sheets:
        if sheet.casefold() not in folded:
            out.append(("sheets", sheet, f"sheet '{sheet}'"))
    for span in req.spans:
        ends = span.split(":")
        if not (_has_address(text, span) or all(_has_address(text, e) for e in ends)):
            out.append(("spans", span, f"cell {span}"))
    for value in req.values:
        as_number = _as_number(value)
        if as_number is not None:
            if not any(abs(as_number - n) <= 1e-9 * max(1.0, abs(n)) for n in numbers):
                out.append(("values", value, f"value {value}"))
        elif not (_has_word(text, value) or value.casefold() in folded and not value.isalnum()):
            out.append(("values", value, f"value '{value}'"))
    squeezed = re.sub(r"\s+", "", text).casefold().replace("$", "")
    for formula in req.formulas:
        if re.sub(r"\s+", "", formula).casefold().replace("$", "") not in squeezed:
            out.append(("formulas", formula, f"formula {formula}"))
    for axis in req.axes:
        if not _has_axis(text, axis):
            out.append(("axes", axis, axis))
    return out


def missing_requirements(text: str, req: Requirements) -> list[str]:
    """Each requirement ``text`` does not name (``"sheet 'Sales'"``, ``"cell E2:E5"``...)."""
    return [label for _, _, label in _missing(text, req)]


def baseline_requirements(req: Requirements, template: str) -> Requirements:
    """The requirements the template instruction itself meets: a rewrite is held to
    what the accepted template says, not more (a value the template's scrubbing turned
    into a placeholder is not asked of the rewrite)."""
    return req.without((f, item) for f, item, _ in _missing(template, req))


def check_instruction(text: str, req: Requirements, people: People | None) -> str | None:
    """Why a rewritten instruction is rejected (``"rule: detail"``), or None."""
    if not text or not text.strip():
        return "empty: the instruction is empty"
    found = personal_data(text, people)
    if found:
        kinds = sorted({d.kind for d in found})
        return f"personal_data: the rewrite holds {', '.join(kinds)}"
    missing = missing_requirements(text, req)
    if missing:
        shown = ", ".join(missing[:8]) + (
            f" and {len(missing) - 8} more" if len(missing) > 8 else ""
        )
        return f"omits_required: the rewrite does not name {shown}"
    return None
