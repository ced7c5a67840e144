"""Answer positions: where a task says its answer is, resolved against the reference.

SpreadsheetBench's ``answer_position`` is written by hand and often malformed. The
resolver never raises: it resolves what can be resolved and records, for every
liberty it took or part it dropped, a note the verdict carries. What it accepts:

- sheet names quoted or not, with stray quotes (``'Sheet1!'A2:B19``,
  ``Updated Data'!B5:B9``), doubled apostrophes (``'Bob''s'!A1``) and commas inside
  quotes (``'Data, 2023'!D1:D5``); parts separated by commas or semicolons;
- full-width punctuation (``D1：D5``, ``！``, ``，``), ``$`` marks and spaces;
- a range whose end lacks its column (``BD2:308`` is read as ``BD2:BD308``) or its
  row, whole columns (``A:C``) and whole rows (``2:5``), reversed corners;
- a sheet named with other case or spacing (``sheet 1`` for ``Sheet1``), or by a
  localised default name (``Ark1``, ``Hoja1``, ``Feuil1``, ``Лист1`` for ``Sheet1``),
  or any name when the workbook has a single sheet;
- a bare range: the reference's first sheet (SpreadsheetBench's rule).

A part that still cannot be placed is dropped with a note; when no part can be, the
checker falls back to the reference diff (every cell the reference changed).
Ranges are clipped to the used area of the reference and the input: beyond it both
are empty, and an output writing there is reported as an unexpected edit anyway.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from openpyxl.utils import column_index_from_string, get_column_letter

from pipeline.ingest.workbooks import Workbook

MAX_SCOPE_CELLS = 200_000

FULL_WIDTH = str.maketrans(
    {
        "\uff1a": ":",  # ：
        "\uff01": "!",  # ！
        "\uff0c": ",",  # ，
        "\uff1b": ";",  # ；
        "\uff07": "'",  # ＇
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\uff04": "$",  # ＄
        "\u3000": " ",  # ideographic space
    }
)

# default sheet names in the languages Excel ships: "Sheet1" in one locale is "Ark1"
# (Danish/Norwegian), "Hoja1" (Spanish), "Feuil1" (French), ... in another
_DEFAULT_NAME = re.compile(
    r"^(sheet|ark|hoja|feuil|feuille|tabelle|tabelle|foglio|planilha|plan|blad|arkusz|"
    r"munkalap|list|taulukko|sayfa|лист|φύλλο|工作表|シート|시트|ورقة|גיליון|lembar|"
    r"trang tính|แผ่นงาน)\s*(\d+)$",
    re.IGNORECASE,
)
_RANGE = re.compile(r"^([A-Z]{1,3})?(\d+)?(?::([A-Z]{1,3})?(\d+)?)?$", re.IGNORECASE)
MAX_COL, MAX_ROW = 16_384, 1_048_576


@dataclass(frozen=True)
class ScopeRange:
    """One rectangle of required cells on one sheet (1-based, inclusive)."""

    sheet: str
    min_col: int
    min_row: int
    max_col: int
    max_row: int

    @property
    def ref(self) -> str:
        first = f"{get_column_letter(self.min_col)}{self.min_row}"
        last = f"{get_column_letter(self.max_col)}{self.max_row}"
        return f"'{self.sheet}'!{first}:{last}"

    @property
    def n_cells(self) -> int:
        return (self.max_row - self.min_row + 1) * (self.max_col - self.min_col + 1)

    def __contains__(self, key: object) -> bool:
        sheet, row, col = key  # type: ignore[misc]
        return (
            sheet == self.sheet
            and self.min_row <= row <= self.max_row
            and self.min_col <= col <= self.max_col
        )


@dataclass
class Scope:
    """The resolved answer position: its rectangles and what was done to get them."""

    ranges: list[ScopeRange] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)  # parts that could not be placed


def _split(text: str, quote_aware: bool) -> list[str]:
    """Parts separated by commas or semicolons (outside single quotes if quote-aware)."""
    if not quote_aware:
        return [p for p in re.split(r"[,;]", text) if p.strip()]
    parts, current, quoted = [], [], False
    for ch in text:
        if ch == "'":
            quoted = not quoted
        if ch in ",;" and not quoted:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


def parse_answer_position(text: str) -> list[tuple[str | None, str]]:
    """Split an answer position into ``(sheet or None, range text)`` parts.

    Quote-aware when the quotes pair up (a comma inside ``'Data, 2023'`` belongs to
    the name), naive otherwise (SpreadsheetBench's stray quotes). Never raises; an
    empty position gives no parts.
    """
    text = (text or "").translate(FULL_WIDTH).strip()
    balanced = text.count("'") % 2 == 0
    return [_parse_part(p) for p in _split(text, quote_aware=balanced)]


def _parse_part(raw: str) -> tuple[str | None, str]:
    raw = raw.strip()
    if "!" in raw:
        sheet, _, rng = raw.rpartition("!")
        sheet = sheet.strip().strip("'\"").strip().replace("''", "'")
        return sheet or None, _clean_range(rng)
    return None, _clean_range(raw)


def _clean_range(rng: str) -> str:
    return re.sub(r"[\s'\"$]", "", rng)


def _bounds(rng: str) -> tuple[tuple[int | None, int | None, int | None, int | None], str | None]:
    """(min_col, min_row, max_col, max_row) of a range text (None: open), and a note
    when the range had to be repaired; raises ValueError when it cannot be read."""
    m = _RANGE.match(rng)
    if not m or not rng or rng == ":":
        raise ValueError(f"cannot read range {rng!r}")
    c1, r1, c2, r2 = m.groups()
    has_end = ":" in rng
    col1 = column_index_from_string(c1.upper()) if c1 else None
    row1 = int(r1) if r1 else None
    if not has_end:
        if col1 is None or row1 is None:
            raise ValueError(f"cannot read range {rng!r}")
        return (col1, row1, col1, row1), None
    col2 = column_index_from_string(c2.upper()) if c2 else None
    row2 = int(r2) if r2 else None
    note = None
    if col1 is not None and row1 is not None:
        if col2 is None and row2 is not None:
            col2 = col1
            note = f"range {rng!r} read as {c1.upper()}{row1}:{c1.upper()}{row2}"
        elif row2 is None and col2 is not None:
            note = f"range {rng!r} read from row {row1} to the end of the used area"
        elif col2 is None and row2 is None:
            raise ValueError(f"cannot read range {rng!r}")
    elif (col1 is None) != (col2 is None) or (row1 is None) != (row2 is None):
        raise ValueError(f"cannot read range {rng!r}")
    for v, top in ((col1, MAX_COL), (col2, MAX_COL), (row1, MAX_ROW), (row2, MAX_ROW)):
        if v is not None and not 1 <= v <= top:
            raise ValueError(f"range {rng!r} is outside a worksheet")
    lo_c = min(col1, col2) if col1 is not None and col2 is not None else col1
    hi_c = max(col1, col2) if col1 is not None and col2 is not None else col2
    lo_r = min(row1, row2) if row1 is not None and row2 is not None else row1
    hi_r = max(row1, row2) if row1 is not None and row2 is not None else row2
    if (col1, row1) != (lo_c, lo_r) and note is None and None not in (col1, row1, col2, row2):
        note = f"range {rng!r} has its corners reversed"
    return (lo_c, lo_r, hi_c, hi_r), note


def _fold(name: str) -> str:
    return re.sub(r"\s+", " ", name).strip().casefold()


def resolve_sheet(name: str | None, reference: Workbook) -> tuple[str | None, str | None]:
    """The reference sheet an answer position names, and a note when it is not exact.

    Returns ``(None, reason)`` when no sheet can be chosen."""
    names = reference.sheet_names
    if not names:
        return None, "the reference has no sheets"
    if name is None:
        return names[0], None
    if name in reference.sheets:
        return name, None
    for key in (_fold, lambda s: re.sub(r"\s+", "", s).casefold()):
        found = [n for n in names if key(n) == key(name)]
        if len(found) == 1:
            return found[0], f"sheet {name!r} taken as {found[0]!r} (case or spacing)"
    wanted = _DEFAULT_NAME.match(name.strip())
    if wanted:
        number = wanted.group(2)
        same = [n for n in names if (m := _DEFAULT_NAME.match(n.strip())) and m.group(2) == number]
        if len(same) == 1:
            return same[0], f"sheet {name!r} taken as {same[0]!r} (a localised default name)"
        if len(names) == 1:
            return names[0], f"sheet {name!r} taken as {names[0]!r}, the only sheet"
        k = int(number)
        if 1 <= k <= len(names) and not any(_DEFAULT_NAME.match(n.strip()) for n in names):
            return names[k - 1], f"sheet {name!r} taken as sheet number {k}, {names[k - 1]!r}"
        return None, f"sheet {name!r} is not in the reference {names}"
    if len(names) == 1:
        return names[0], f"sheet {name!r} taken as {names[0]!r}, the only sheet"
    return None, f"sheet {name!r} is not in the reference {names}"


def _used(wb: Workbook | None, sheet: str) -> tuple[int, int]:
    s = wb.sheets.get(sheet) if wb is not None else None
    return (s.max_row, s.max_col) if s is not None else (0, 0)


def resolve_scope(
    answer_position: str | None, reference: Workbook, other: Workbook | None = None
) -> Scope:
    """The answer position as rectangles on the reference's sheets; never raises.

    Of the two ways to split the text (quote-aware, naive) the one that places more
    parts wins. Open and oversized ranges are clipped to the used area of the
    reference and ``other`` (usually the input).
    """
    text = (answer_position or "").translate(FULL_WIDTH).strip()
    if not text:
        return Scope(notes=["no answer position"])
    best: Scope | None = None
    for quote_aware in (True, False):
        parts = [_parse_part(p) for p in _split(text, quote_aware)]
        scope = _place(parts, reference, other)
        if best is None or len(scope.ranges) > len(best.ranges):
            best = scope
        if not scope.unresolved:
            break
    assert best is not None
    if text != answer_position.strip():
        best.notes.insert(0, f"answer position {answer_position!r} read as {text!r}")
    if not best.ranges:
        best.notes.append(
            f"answer position {answer_position!r} could not be resolved; "
            "the reference diff decides the required cells"
        )
    return best


def _place(
    parts: list[tuple[str | None, str]], reference: Workbook, other: Workbook | None
) -> Scope:
    scope = Scope()
    for sheet_name, rng in parts:
        label = f"{sheet_name}!{rng}" if sheet_name else rng
        sheet, note = resolve_sheet(sheet_name, reference)
        if sheet is None:
            scope.unresolved.append(label)
            scope.notes.append(f"dropped {label!r}: {note}")
            continue
        if note:
            scope.notes.append(note)
        try:
            (c1, r1, c2, r2), fix = _bounds(rng)
        except ValueError as exc:
            scope.unresolved.append(label)
            scope.notes.append(f"dropped {label!r}: {exc}")
            continue
        if fix:
            scope.notes.append(fix)
        rows_a, cols_a = _used(reference, sheet)
        rows_b, cols_b = _used(other, sheet)
        top_row, top_col = max(rows_a, rows_b, 1), max(cols_a, cols_b, 1)
        lo_c, lo_r = c1 or 1, r1 or 1
        rect = ScopeRange(sheet, lo_c, lo_r, max(c2 or top_col, lo_c), max(r2 or top_row, lo_r))
        if rect.n_cells > MAX_SCOPE_CELLS:
            # beyond the used area both workbooks are empty: clip there
            hi_c, hi_r = (
                max(min(rect.max_col, top_col), lo_c),
                max(min(rect.max_row, top_row), lo_r),
            )
            rect = ScopeRange(sheet, lo_c, lo_r, hi_c, hi_r)
            scope.notes.append(f"range {rng!r} clipped to the used area ({rect.ref})")
        if rect.n_cells > MAX_SCOPE_CELLS:
            scope.unresolved.append(label)
            scope.notes.append(f"dropped {label!r}: {rect.n_cells} cells even inside the used area")
            continue
        scope.ranges.append(rect)
    return scope
