"""Workbook version families: one workbook edited step by step, with every edit recorded.

A family starts from a template (:mod:`pipeline.synth.workbook_templates`) and each
step applies one or two edit operations a colleague would ask for (correct an input,
add a formula column, insert a row inside the table, replace a typed total by a
``SUM``, insert a column, add a checking sheet) or a trivial change (number formats
only, a fill colour, only the "As of" date stamp). Every operation records its edits
in the vocabulary of :mod:`pipeline.detect.diffs` (``value_changed``,
``value_to_formula``, ``cell_added``, ``formula_changed``, ``format_changed``,
``style_changed``, ``row_inserted``, ``col_inserted``, ``sheet_added``) with the sheet
and the address in the *after* workbook, and a goal sentence in a colleague's voice.

Consequences of an edit that nobody typed (a total's range grown by an inserted row,
a summary reference moved, a cached value recomputed) are derived by comparing the
two versions cell by cell through the insertion map and recorded as ``implied``
edits, so an evaluator can tell a phantom edit from an expected one.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field

from openpyxl.utils import get_column_letter

from pipeline.synth.workbook_model import (
    Book,
    Key,
    address,
    evaluate,
    evaluate_cell,
    insert,
    moved_formula,
)
from pipeline.synth.workbook_templates import (
    COUNTERPARTIES,
    INT,
    NUM,
    PRODUCTS,
    SIDE_LABELS,
    TEMPLATES,
    Layout,
)

Edit = dict[str, object]


@dataclass
class Step:
    """One version-to-version step: ``step`` is the index of the after version (1-based)."""

    step: int
    ops: list[str]
    goal: str | None
    trivial_reason: str | None
    edits: list[Edit] = field(default_factory=list)

    @property
    def trivial(self) -> bool:
        return self.trivial_reason is not None


@dataclass
class Family:
    family: str
    template: str
    desk: str
    versions: list[Book]
    steps: list[Step]


@dataclass
class _State:
    book: Book
    lay: Layout
    rng: random.Random
    edits: list[Edit] = field(default_factory=list)
    inserts: list[tuple[str, str, int, int]] = field(default_factory=list)
    new_sheets: list[str] = field(default_factory=list)

    def edit(self, kind: str, sheet: str, addr: str | None, **extra: object) -> None:
        self.edits.append({"kind": kind, "sheet": sheet, "address": addr, **extra})

    def insert(self, axis: str, at: int, n: int = 1) -> None:
        insert(self.book, self.lay.sheet, axis, at, n)
        self.lay.shift(self.lay.sheet, axis, at, n)
        self.inserts.append((self.lay.sheet, axis, at, n))


def _col(c: int) -> str:
    return get_column_letter(c)


def _fmt_num(v: float) -> str:
    return f"{v:,.2f}".rstrip("0").rstrip(".") if abs(v) < 1000 else f"{v:,.0f}"


def _header(st: _State, c: int) -> str:
    cell = st.book.sheets[st.lay.sheet].get((st.lay.header_row, c))
    return str(cell.value) if cell else _col(c)


def _label(st: _State, r: int) -> str:
    cell = st.book.sheets[st.lay.sheet].get((r, 1))
    return str(cell.value) if cell else f"row {r}"


def _sum_of(st: _State, c: int) -> float:
    """The sum a person sees of column ``c``'s data rows (what they would type)."""
    memo: dict = {}
    lay = st.lay
    total = 0.0
    for r in lay.data_rows:
        v = evaluate_cell(st.book, lay.sheet, (r, c), memo)
        total += float(v) if isinstance(v, (int, float)) else 0.0
    return round(total, 2)


def _retype_totals(st: _State) -> str:
    """After a step's edits, the person types the new value of every typed total whose
    detail changed (an input, a side-sheet constant feeding a formula column), as the
    phrase that tells them to; a stale typed total would leave the table wrong (shares
    no longer adding up to 100%)."""
    lay = st.lay
    done = []
    for c in lay.hardcoded:
        cell = st.book.sheets[lay.sheet][(lay.total_row, c)]
        old, new = cell.value, _sum_of(st, c)
        if new == old:
            continue
        cell.value = new
        addr = address(lay.total_row, c)
        st.edit("value_changed", lay.sheet, addr, before=old, after=new)
        done.append(f"{addr} to {_fmt_num(new)}")
    if not done:
        return ""
    noun = "total" if len(done) == 1 else "totals"
    return f", and update the typed {noun} in {' and '.join(done)}"


def _sum_typed_totals(st: _State, cols: list[int], why: str) -> str:
    """Typed totals of ``cols`` replaced by ``SUM`` formulas over the (grown) detail, as a
    person does when inserting rows or columns would otherwise leave them wrong."""
    lay = st.lay
    done = []
    for c in [c for c in lay.hardcoded if c in cols]:
        lay.hardcoded.remove(c)
        cell = st.book.sheets[lay.sheet][(lay.total_row, c)]
        f = f"=SUM({_col(c)}{lay.first_row}:{_col(c)}{lay.last_row})"
        st.edit(
            "value_to_formula", lay.sheet, address(lay.total_row, c), before=cell.value, after=f
        )
        cell.value, cell.formula = None, f
        done.append(address(lay.total_row, c))
    if not done:
        return ""
    which = " and ".join(done)
    noun = "total" if len(done) == 1 else "totals"
    return f", and replace the typed {noun} in {which} with a SUM formula so {why}"


def op_change_input(st: _State) -> str:
    lay, rng = st.lay, st.rng
    cells = st.book.sheets[lay.sheet]
    options = [
        (r, c)
        for r in _fresh_rows(st)
        for c in _fresh_cols(st)
        if (r, c) in cells and cells[(r, c)].formula is None
    ]
    r, c = rng.choice(options)
    old = float(cells[(r, c)].value)  # type: ignore[arg-type]
    new = round(old * rng.choice((0.9, 1.1, 1.25, 0.8, 1.5)) + rng.choice((0, 5, 50)), 2)
    cells[(r, c)].value = new
    addr = address(r, c)
    st.edit("value_changed", lay.sheet, addr, before=old, after=new)
    return f"change the {_header(st, c)} for {_label(st, r)} in {addr} to {_fmt_num(new)}"


def op_change_side(st: _State) -> str:
    lay, rng = st.lay, st.rng
    addr = rng.choice(lay.side_inputs)
    cell = st.book.get(lay.side_sheet, addr)
    assert cell is not None
    old = float(cell.value)  # type: ignore[arg-type]
    new = round(old * rng.choice((1.08, 0.92, 1.15, 1.05)), 2 if old > 1 else 4)
    if new == old:
        new = round(old + (0.25 if old > 1 else 0.005), 4)
    cell.value = new
    st.edit("value_changed", lay.side_sheet, addr, before=old, after=new)
    what = SIDE_LABELS.get((lay.template, addr), "assumption")
    return f"correct the {what} in {addr} on {lay.side_sheet} to {_fmt_num(new)}"


_NEW_COLUMNS = {  # header, formula for row r given the layout (main sheet), phrase
    "budget": (
        "Annualized",
        lambda lay, r: f"={_col(lay.last_col)}{r}*4/3",
        "add an annualized total column",
    ),
    "positions": (
        "MTM share",
        lambda lay, r: f"={_col(lay.last_col)}{r}/{_col(lay.last_col)}${lay.total_row}",
        "add a column with each deal's share of the total MTM",
    ),
    "allocation": (
        "Cost per head",
        lambda lay, r: f"={_col(lay.last_col)}{r}/{_col(lay.input_cols[0])}{r}",
        "add a cost per head column",
    ),
    "pnl": (
        "Net of reserve",
        lambda lay, r: f"={_col(lay.last_col)}{r}*(1-Notes!$B$4)",
        "add a net-of-reserve column using the reserve rate on Notes",
    ),
}


def op_add_column(st: _State) -> str:
    """A formula column appended right of the table: one ``col_inserted`` edit (a diff
    sees a whole new column), its cells listed in ``cells``."""
    lay = st.lay
    header, formula, phrase = _NEW_COLUMNS[lay.template]
    c = lay.last_col + 1
    cells: dict[str, object] = {address(lay.header_row, c): header}
    st.book.set(lay.sheet, address(lay.header_row, c), header, bold=True)
    for r in lay.data_rows:
        f = formula(lay, r)
        st.book.set(lay.sheet, address(r, c), f, fmt=NUM)
        cells[address(r, c)] = f
    if lay.template in ("budget", "pnl"):
        f = f"=SUM({_col(c)}{lay.first_row}:{_col(c)}{lay.last_row})"
        st.book.set(lay.sheet, address(lay.total_row, c), f, fmt=NUM, bold=True)
        cells[address(lay.total_row, c)] = f
    st.edit("col_inserted", lay.sheet, f"{_col(c)}:{_col(c)}", cells=cells)
    lay.last_col = c
    return phrase


def op_weighted_price(st: _State) -> str:
    """A formula typed into an empty cell of the total row (positions: the average price)."""
    lay = st.lay
    cells = st.book.sheets[lay.sheet]
    price = lay.input_cols[1] if lay.template == "positions" else None
    if price is None or (lay.total_row, price) in cells:
        return op_link_input(st)
    vol, mtm = _col(lay.input_cols[0]), _col(price + 1)
    f = f"={mtm}{lay.total_row}/{vol}{lay.total_row}"
    addr = address(lay.total_row, price)
    st.book.set(lay.sheet, addr, f, fmt=NUM, bold=True)
    st.edit("cell_added", lay.sheet, addr, after=f)
    return f"put the volume-weighted average price in {addr}"


def op_link_input(st: _State) -> str:
    """A typed input replaced by a formula on another row (value_to_formula)."""
    lay, rng = st.lay, st.rng
    cells = st.book.sheets[lay.sheet]
    rows = _fresh_rows(st)
    c = rng.choice(_fresh_cols(st))
    options = [r for r in rows if (r, c) in cells and cells[(r, c)].formula is None]
    r, r2 = rng.sample(options, 2)
    factor = rng.choice((0.2, 0.25, 0.5, 1.1))
    old = cells[(r, c)].value
    f = f"={_col(c)}{r2}*{factor}"
    cells[(r, c)].formula, cells[(r, c)].value = f, None
    addr = address(r, c)
    st.edit("value_to_formula", lay.sheet, addr, before=old, after=f)
    return (
        f"make the {_header(st, c)} for {_label(st, r)} in {addr} a formula: "
        f"{factor:.0%} of {_label(st, r2)}"
    )


def _fresh_cols(st: _State) -> list[int]:
    new = {
        at + k
        for s, axis, at, n in st.inserts
        if s == st.lay.sheet and axis == "col"
        for k in range(n)
    }
    return [c for c in st.lay.input_cols if c not in new]


def _fresh_rows(st: _State) -> list[int]:
    """Data rows that existed before this step (a change inside an inserted row is no edit)."""
    new = {
        at + k
        for s, axis, at, n in st.inserts
        if s == st.lay.sheet and axis == "row"
        for k in range(n)
    }
    return [r for r in st.lay.data_rows if r not in new]


def op_insert_row(st: _State) -> str:
    lay, rng = st.lay, st.rng
    at = rng.randint(lay.first_row + 1, lay.last_row)
    above = at - 1
    st.insert("row", at)
    cells = st.book.sheets[lay.sheet]
    for c in range(1, lay.last_col + 1):
        src = cells.get((above, c))
        if src is None:
            continue
        if src.formula:
            f = moved_formula(src.formula, address(above, c), address(at, c))
            st.book.set(lay.sheet, address(at, c), f, fmt=src.fmt)
        elif isinstance(src.value, float):
            st.book.set(
                lay.sheet, address(at, c), round(src.value * rng.uniform(0.5, 1.6), 2), fmt=src.fmt
            )
    name = {
        "budget": rng.choice(("Recruiting", "Subscriptions", "Entertainment", "Telecom")),
        "positions": f"{lay.desk[:2].upper()}{rng.randint(10000, 99999)}",
        "allocation": rng.choice(("Compliance", "Tax", "Treasury", "HR")),
        "pnl": f"{lay.desk} {rng.choice(('Peaking', 'Capacity', 'Swing', 'Retail'))}",
    }[lay.template]
    st.book.set(lay.sheet, address(at, 1), name)
    if lay.template == "positions":
        st.book.set(lay.sheet, f"B{at}", rng.choice(COUNTERPARTIES))
        st.book.set(lay.sheet, f"C{at}", rng.choice(PRODUCTS))
    st.edit("row_inserted", lay.sheet, f"{at}:{at}")
    what = {"budget": "line", "positions": "deal", "allocation": "department", "pnl": "book"}
    return f"add a {what[lay.template]} for {name} under {_label(st, above)}" + _sum_typed_totals(
        st, list(lay.hardcoded), "it includes the new row"
    )


def op_fix_hardcoded(st: _State) -> str:
    lay = st.lay
    c = lay.hardcoded.pop(0)
    cell = st.book.sheets[lay.sheet][(lay.total_row, c)]
    old = cell.value
    f = f"=SUM({_col(c)}{lay.first_row}:{_col(c)}{lay.last_row})"
    cell.value, cell.formula = None, f
    addr = address(lay.total_row, c)
    st.edit("value_to_formula", lay.sheet, addr, before=old, after=f)
    return f"replace the typed total in {addr} with a SUM formula"


def op_add_sheet(st: _State) -> str:
    lay = st.lay
    name = "Check"
    main = f"'{lay.sheet}'" if not lay.sheet.isalnum() else lay.sheet
    c = _col(lay.first_col)
    book = st.book
    book.set(name, "A1", f"{lay.desk} tie-out", bold=True)
    book.set(name, "A3", "Reported total")
    book.set(name, "B3", f"={main}!{c}{lay.total_row}", fmt=NUM)
    book.set(name, "A4", "Sum of detail")
    book.set(name, "B4", f"=SUM({main}!{c}{lay.first_row}:{c}{lay.last_row})", fmt=NUM)
    book.set(name, "A5", "Difference")
    book.set(name, "B5", "=B3-B4", fmt=NUM)
    st.new_sheets.append(name)
    st.edit("sheet_added", name, None)
    return "add a Check sheet that ties the reported total back to the detail"


def op_insert_column(st: _State) -> str:
    lay, rng = st.lay, st.rng
    book, s = st.book, lay.sheet
    if lay.template in ("budget", "pnl"):
        at = 5  # before Total (column E)
        header = "Q4" if lay.template == "budget" else "Adjustments"
        st.insert("col", at)
        book.set(s, address(lay.header_row, at), header, bold=True)
        for r in lay.data_rows:
            book.set(s, address(r, at), float(rng.randint(-50, 900) * 10), fmt=INT)
        col = _col(at)
        book.set(
            s,
            address(lay.total_row, at),
            f"=SUM({col}{lay.first_row}:{col}{lay.last_row})",
            bold=True,
        )
        lay.input_cols.append(at)
        for r in lay.data_rows:
            cell = book.sheets[s][(r, at + 1)]
            old = cell.formula
            cell.formula = (
                f"=SUM(B{r}:E{r})" if lay.template == "budget" else f"=B{r}+C{r}-D{r}+E{r}"
            )
            st.edit("formula_changed", s, address(r, at + 1), before=old, after=cell.formula)
        st.edit("col_inserted", s, f"{col}:{col}")
        fix = _sum_typed_totals(st, [at + 1], "it includes the new column")
        if lay.template == "budget":
            return "insert a Q4 column before the Total and include it in the total" + fix
        return "insert an Adjustments column before the Total and add it in" + fix
    at = 4 if lay.template == "positions" else 3
    header = "Delivery point" if lay.template == "positions" else "Cost center"
    values = ("Henry Hub", "Katy", "Waha", "Chicago CG", "SoCal Border", "PJM West")
    if lay.template == "allocation":
        values = tuple(f"CC-{n}" for n in (1043, 1107, 2210, 3318, 4102))
    st.insert("col", at)
    book.set(s, address(lay.header_row, at), header, bold=True)
    for r in lay.data_rows:
        book.set(s, address(r, at), rng.choice(values))
    st.edit("col_inserted", s, f"{_col(at)}:{_col(at)}")
    return f"insert a {header} column after {_header(st, at - 1)}"


def op_format(st: _State) -> str:
    lay = st.lay
    cells = st.book.sheets[lay.sheet]
    c = lay.input_cols[0]
    new = "#,##0.000" if cells[(lay.first_row, c)].fmt != "#,##0.000" else NUM
    for r in lay.data_rows:
        cell = cells.get((r, c))
        if cell is not None and cell.fmt != new:
            cell.fmt = new
            st.edit("format_changed", lay.sheet, address(r, c))
    return "reformat the numbers"


def op_style(st: _State) -> str:
    lay = st.lay
    cells = st.book.sheets[lay.sheet]
    fill = st.rng.choice(("FFF2CC", "DDEBF7", "E2EFDA"))
    for c in range(1, lay.last_col + 1):
        cell = cells.get((lay.header_row, c))
        if cell is not None:
            cell.fill = fill
            st.edit("style_changed", lay.sheet, address(lay.header_row, c))
    return "shade the header row"


def op_stamp(st: _State) -> str:
    cell = st.book.sheets[st.lay.sheet][(2, 2)]
    old = cell.value
    cell.value = st.book.modified.replace(hour=0, minute=0)
    if cell.value != old:
        st.edit("value_changed", st.lay.sheet, "B2", before=str(old), after=str(cell.value))
    return "update the as-of date"


OPS = {
    "change_input": op_change_input,
    "change_side": op_change_side,
    "add_column": op_add_column,
    "insert_row": op_insert_row,
    "fix_hardcoded": op_fix_hardcoded,
    "add_sheet": op_add_sheet,
    "insert_column": op_insert_column,
    "link_input": op_link_input,
    "weighted_price": op_weighted_price,
}
TRIVIAL_OPS = {"format_only": op_format, "style_only": op_style, "date_stamp": op_stamp}


def _goal(rng: random.Random, phrases: list[str]) -> str:
    if len(phrases) == 1:
        p = phrases[0]
        return rng.choice((f"Can you {p}?", f"Please {p}.", f"Could you {p} before the close?"))
    a, b = phrases[0], phrases[1]
    return rng.choice(
        (
            f"Can you {a} and {b}?",
            f"Please {a}, and {b}.",
            f"Could you {a}? Also {b}.",
        )
    )


def _back(key: Key, sheet: str, inserts: list[tuple[str, str, int, int]]) -> Key | None:
    """The before-coordinates of an after cell, or None for a cell in an inserted band."""
    r, c = key
    for s, axis, at, n in reversed(inserts):
        if s != sheet:
            continue
        if axis == "row":
            if at <= r < at + n:
                return None
            r = r - n if r >= at + n else r
        else:
            if at <= c < at + n:
                return None
            c = c - n if c >= at + n else c
    return r, c


def implied_edits(before: Book, after: Book, st: _State) -> list[Edit]:
    """Formula cells that changed only as a consequence of the seeded edits."""
    seeded = {(e["sheet"], e["address"]) for e in st.edits}
    vb, va = evaluate(before), evaluate(after)
    out: list[Edit] = []
    for sheet, cells in after.sheets.items():
        if sheet in st.new_sheets or sheet not in before.sheets:
            continue
        for key, cell in sorted(cells.items()):
            addr = address(*key)
            if not cell.formula or (sheet, addr) in seeded:
                continue
            bkey = _back(key, sheet, st.inserts)
            old = before.sheets[sheet].get(bkey) if bkey else None
            if old is None or not old.formula:
                continue
            if moved_formula(old.formula, address(*bkey), addr) != cell.formula:
                kind = "formula_changed"
            elif vb[(sheet, bkey)] != va[(sheet, key)]:  # the cached values written differ
                kind = "recalculated"
            else:
                continue
            out.append({"kind": kind, "sheet": sheet, "address": addr, "implied": True})
    return out


def plan_steps(rng: random.Random, n_steps: int, trivial: dict[int, str | None]) -> list[list[str]]:
    """Operation names per step (1..n_steps); steps in ``trivial`` get one trivial op
    (the named one, or a random one, half of them date stamps, for None)."""
    plans: list[list[str]] = []
    pool = [
        "change_input",
        "change_side",
        "add_column",
        "insert_row",
        "add_sheet",
        "insert_column",
        "link_input",
        "weighted_price",
    ]
    used: set[str] = set()
    for k in range(1, n_steps + 1):
        if k in trivial:
            choice = rng.choice(("date_stamp", "date_stamp", "format_only", "style_only"))
            plans.append([trivial[k] or choice])
            continue
        first = rng.choice([p for p in pool if p not in used or p.startswith("change")])
        ops = [first]
        if rng.random() < 0.5:
            second = rng.choice(["change_input", "change_side", "fix_hardcoded", "fix_hardcoded"])
            if second != first:
                ops.append(second)
        used.update(ops)
        plans.append(ops)
    return plans


def _trivial(trivial: dict[int, str | None] | set[int] | None) -> dict[int, str | None]:
    if trivial is None:
        return {}
    if isinstance(trivial, dict):
        return trivial
    return dict.fromkeys(trivial)


def build_family(
    family: str,
    template: str,
    desk: str,
    seed: str,
    n_versions: int,
    start: dt.datetime,
    *,
    trivial: dict[int, str | None] | set[int] | None = None,
    days_between: int = 6,
) -> Family:
    """A family of ``n_versions`` workbooks; step k turns version k-1 into version k."""
    rng = random.Random(seed)
    book, lay = TEMPLATES[template](rng, desk, start)
    book.created = book.modified = start
    versions = [book]
    steps: list[Step] = []
    for k, ops in enumerate(plan_steps(rng, n_versions - 1, _trivial(trivial)), 1):
        before = versions[-1]
        after = before.copy()
        after.modified = start + dt.timedelta(days=days_between * k, hours=rng.randint(0, 8))
        st = _State(after, lay, rng)
        if ops[0] in TRIVIAL_OPS:
            phrase = TRIVIAL_OPS[ops[0]](st)
            steps.append(Step(k, ops, f"Can you {phrase}?", ops[0]))
        else:
            phrases = []
            for i, name in enumerate(ops):
                if name == "fix_hardcoded" and not lay.hardcoded:
                    ops[i] = name = "change_input"
                phrases.append(OPS[name](st))
            phrases[-1] += _retype_totals(st)
            if rng.random() < 0.4:
                op_stamp(st)
            steps.append(Step(k, ops, _goal(rng, phrases), None))
        steps[-1].edits = [*st.edits, *implied_edits(before, after, st)]
        versions.append(after)
    return Family(family, template, desk, versions, steps)
