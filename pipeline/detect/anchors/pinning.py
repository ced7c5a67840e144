"""Pinning: which single cell breaks a failing identity.

For a failing identity, a *candidate* is a cell whose single correction makes every
identity it is in hold (the allowed corrections of its identities intersect). The
breaking cell is decided, in order of evidence:

1. **Cross direction.** The candidate that sits in the most failing identities (a
   cell that also fails in the cross-direction identity, or a subtotal failing both
   as total and as member), when it is unique.
2. **Reprints** (``_pin_by_reprints``). The series' other printings: the same title
   (modulo "Table N.-"; a title printed twice in one volume names no series), unit,
   row and column label in other documents. The only candidate whose implied value
   another, confirmed printing shows (or the only one that differs from all its
   printings while the total agrees with its own); figures with an "r" revised mark
   are never compared.
3. **Rule of nine.** In a table where no other identity fails, swapping two adjacent
   figures of exactly one candidate gives its implied value (a transposition, the
   commonest typesetting slip; its residual is a multiple of nine): a misprint.

A confusable OCR reading that fits one identity pins nothing by itself: the residual is
as often a misread elsewhere, a rounding or a wrong member set (audit of 12 real
bulletins: 9 of 28 such repairs checked on the page images were real misreads).
An identity claimed by two different cells, and every identity of a table with more
than one pinned cell, is left unresolved (``_settle``);
otherwise no cell of it is anchored by it. What a pinned cell becomes (repaired or
contradicted) is decided in ``repairs``.
"""

from __future__ import annotations

import polars as pl

from pipeline.detect.anchors.grid import _KEY, _SLOT
from pipeline.detect.anchors.repairs import _cell_status, _variants

# The "Table N.-" prefix of a title: the same series keeps its title across volumes
# but may be renumbered. Applied to the lower-cased title.
TABLE_NUMBER = r"^\W*table\s+[0-9ivxlc]+[a-z]?\s*[.:]*\s*-*\s*"


def _transpositions(candidates: pl.DataFrame, decimals: int) -> pl.DataFrame:
    """Every reading of each candidate with two adjacent different digits swapped.

    The decimal point is ignored (a typesetter swaps figures, not the point's place),
    so "1007.7" gives "1070.7" among others. In integer units.
    """
    digits = candidates.select(
        *_KEY,
        negative=pl.col("value_str").str.starts_with("-"),
        digits=pl.col("value_str").str.replace_all(r"[^0-9]", ""),
        scale=(pl.lit(10, pl.Int64) ** (decimals - pl.col("dec").clip(upper_bound=decimals))),
    )
    width = int(digits.select(pl.col("digits").str.len_chars().max()).item() or 0)
    positions = pl.DataFrame({"pos": pl.int_range(0, max(width - 1, 0), eager=True)})
    first = pl.col("digits").str.slice(pl.col("pos"), 1)
    second = pl.col("digits").str.slice(pl.col("pos") + 1, 1)
    swapped = (
        digits.join(positions, how="cross")
        .filter(pl.col("pos") + 1 < pl.col("digits").str.len_chars())
        .filter(first != second)
        .with_columns(
            variant=pl.col("digits").str.slice(0, pl.col("pos"))
            + second
            + first
            + pl.col("digits").str.slice(pl.col("pos") + 2)
        )
        # a leading zero is never printed
        .filter(~pl.col("variant").str.contains(r"^0\d"))
    )
    units = pl.col("variant").cast(pl.Int64, strict=False) * pl.col("scale")
    return swapped.select(
        *_KEY, swap_v=pl.when(pl.col("negative")).then(-units).otherwise(units)
    ).drop_nulls()


def _pin(
    tables: pl.DataFrame,
    grid: pl.DataFrame,
    ids: pl.DataFrame,
    membership: pl.DataFrame,
    decimals: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Breaking cells of failing identities and what to do with them.

    Returns (per pinned cell: status repaired|contradicted, new units) and the
    failing identities resolved by exactly one pinned cell.
    """
    checked = membership.filter("checkable")
    # correction d of this cell that makes the identity hold: |res + sign*d| <= tol
    # only cells of failing identities can break one: window the few, not every cell
    in_failing_ids = checked.filter(~pl.col("holds")).select(_KEY).unique()
    window = (
        checked.join(in_failing_ids, on=_KEY, how="semi")
        .with_columns(center=-pl.col("sign") * pl.col("res"))
        .group_by(_KEY)
        .agg(
            lo=(pl.col("center") - pl.col("tol")).max(),
            hi=(pl.col("center") + pl.col("tol")).min(),
            n_fail=(~pl.col("holds")).sum(),
        )
    )
    candidates = (
        window.filter((pl.col("n_fail") > 0) & (pl.col("lo") <= pl.col("hi")))
        .join(
            grid.select(_KEY + ["v", "value_str", "is_dash", "dec", "present", "text_layer"]),
            on=_KEY,
        )
        .filter("present")
    )
    failing = checked.filter(~pl.col("holds")).select("ident", *_KEY)
    # the failing identity of a table where no other identity fails: only there may
    # one identity's arithmetic (the rule of nine) name its breaking cell; where
    # several fail, the member sets or the reading are in doubt and a fitting swap is
    # a coincidence (1997-09: four "transpositions" in one born-digital table)
    lone = (
        checked.filter(~pl.col("holds"))
        .select("ident", "tkey")
        .unique()
        .filter(pl.len().over("tkey") == 1)
        .select("ident")
    )
    in_failing = failing.join(candidates.select(_KEY + ["n_fail"]), on=_KEY)
    best = (
        in_failing.filter(pl.col("n_fail") == pl.col("n_fail").max().over("ident"))
        .group_by("ident")
        .agg(pl.len().alias("n_best"), *[pl.col(c).first() for c in _KEY])
        .filter(pl.col("n_best") == 1)
        .select("ident", *_KEY)
    )
    variants = (
        # a born-digital text layer has no OCR to blame: its figures are never "repaired"
        _variants(candidates.filter(~pl.col("is_dash") & ~pl.col("text_layer")), decimals)
        .join(candidates.select(_KEY + ["v", "lo", "hi"]), on=_KEY)
        .filter(
            (pl.col("variant_v") - pl.col("v") >= pl.col("lo"))
            & (pl.col("variant_v") - pl.col("v") <= pl.col("hi"))
        )
    )
    # identities the cross direction leaves open: ask the series' other printings
    _, resolved = _settle(failing, best)
    reprinted, agreeing = _pin_by_reprints(
        tables,
        grid,
        membership,
        candidates,
        failing.join(best.select("ident"), on="ident", how="anti"),
        resolved,
        decimals,
    )
    # a printed figure elsewhere is stronger evidence than a confusable digit
    reprinted = reprinted.join(best, on="ident", how="anti")
    # a confusable reading that fits one identity is never evidence by itself: the
    # residual is as often a misread elsewhere (a digit pair outside the confusable
    # set), a rounding, or a wrong member set. Audit of 12 real bulletins: of 28 such
    # single-identity repairs checked on the page images 9 were real misreads; of the
    # two in tables with no other failing identity, none. A misread is repaired only
    # when a second identity through the cell or another printing pins it
    pinned_by = pl.concat([best, reprinted.select("ident", *_KEY)])
    pinned, resolved = _settle(failing, pinned_by)
    # last resort, the bookkeeper's rule of nine: in an otherwise sound table, a
    # residual that one swap of adjacent figures in exactly one cell explains pins
    # that cell (never one that agrees with another printing of itself). It marks a
    # misprint (contradicted), never repairs a reading
    unsettled = failing.join(pinned_by.select("ident"), on="ident", how="anti").join(
        lone, on="ident", how="semi"
    )
    swaps = (
        _transpositions(
            candidates.join(unsettled.select(_KEY).unique(), on=_KEY, how="semi")
            .join(agreeing, on=_KEY, how="anti")
            .filter(~pl.col("is_dash")),
            decimals,
        )
        .join(candidates.select(_KEY + ["v", "lo", "hi"]), on=_KEY)
        .filter(
            (pl.col("swap_v") - pl.col("v") >= pl.col("lo"))
            & (pl.col("swap_v") - pl.col("v") <= pl.col("hi"))
        )
        .group_by(_KEY)
        .agg(pl.col("swap_v").unique())
        .filter(pl.col("swap_v").list.len() == 1)
        .select(*_KEY, swap_v=pl.col("swap_v").list.first())
    )
    by_swap = (
        unsettled.join(swaps.select(_KEY), on=_KEY)
        .group_by("ident")
        .agg(pl.len().alias("n_swap"), *[pl.col(c).first() for c in _KEY])
        .filter(pl.col("n_swap") == 1)
        .select("ident", *_KEY)
    )
    if len(by_swap):
        pinned_by = pl.concat([pinned_by, by_swap])
        pinned, resolved = _settle(failing, pinned_by)
    swaps = swaps.join(by_swap.select(_KEY), on=_KEY, how="semi")
    implied = pl.concat(
        [
            reprinted.join(pinned, on=_KEY, how="semi").select(*_KEY, "reprint_v"),
            swaps.join(pinned, on=_KEY, how="semi").select(*_KEY, reprint_v="swap_v"),
        ]
    ).unique(_KEY)
    status = _cell_status(candidates, variants, pinned, implied, decimals)
    return status, resolved


def _settle(failing: pl.DataFrame, pinned_by: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Pinned cells and the failing identities they resolve.

    An identity claimed by two different breaking cells cannot be settled: neither
    cell is pinned and the identity stays unresolved. Nor is any cell of a table that
    would need more than one correction to close: a table misread as a whole (member
    sets, shifted columns) is likelier than two slips in it. Audit of 12 real
    bulletins: the tables with several pinned cells (up to 11 in one) were all
    misassembled (1967-08 page 20: eleven cells "misprinted" as 0).
    """
    per_ident = failing.join(pinned_by.select(_KEY).unique(), on=_KEY).group_by("ident").len()
    clash = per_ident.filter(pl.col("len") > 1).select("ident")
    clash_cells = failing.join(clash, on="ident").select(_KEY).unique()
    pinned = pinned_by.select(_KEY).unique().join(clash_cells, on=_KEY, how="anti")
    table = pl.col("cell") // (_SLOT * _SLOT)
    pinned = pinned.filter(pl.len().over(table) == 1)
    resolved = (
        failing.join(pinned, on=_KEY).select("ident").unique().join(clash, on="ident", how="anti")
    )
    return pinned, resolved


# ---------------------------------------------------------------- other printings


def _series(tables: pl.DataFrame) -> pl.DataFrame:
    """Per table, the key of the series it prints: title without "Table N.-", and unit.

    Only tables whose key is unique within their document get one.
    """
    title = (
        pl.col("title")
        .fill_null("")
        .str.to_lowercase()
        .str.replace(TABLE_NUMBER, "")
        .str.replace_all(r"[^a-z0-9]+", " ")
        .str.strip_chars()
    )
    # a title printed twice in one volume does not name one series (a generic
    # "Summary", a layout repeated for many funds): no evidence from it
    return tables.select("tkey", "doc_id", "unit_multiplier", series=title).filter(
        (pl.col("series") != "") & (pl.len().over("doc_id", "series", "unit_multiplier") == 1)
    )


def _pin_by_reprints(
    tables: pl.DataFrame,
    grid: pl.DataFrame,
    membership: pl.DataFrame,
    candidates: pl.DataFrame,
    open_failing: pl.DataFrame,
    resolved: pl.DataFrame,
    decimals: int,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Breaking cells of failing identities, pinned by the series' other printings.

    A series is reprinted volume after volume (same title modulo "Table N.-", unit,
    row label and column label). Printings in other documents are compared, never
    across an "r" revised mark on either side: a revision legitimately changes a
    figure between volumes. Within one failing identity a candidate cell (one
    correction makes all its identities hold) is the breaking cell when

    - *support*: it is the only cell whose total-implied value equals another
      printing of the same figure that its own table confirms (and the printed
      value equals no other printing), or
    - *lone dissent*: no cell has support, the identity's total agrees with another
      printing of itself, it differs from every other printing of itself, and no
      other cell of the identity differs from all of its printings. A figure
      revised without a mark moves its total too, so the total's agreement is what
      keeps a silent revision from passing for a misprint.

    Returns the pins (ident, cell, reprint_v: the supporting
    printing's value, null for a lone dissent) and the cells of open identities that
    agree with another printing of themselves.
    """
    out_schema = {"ident": pl.Int64, "cell": pl.Int64, "reprint_v": pl.Int64}
    open_ids = open_failing.select("ident").unique().join(resolved, on="ident", how="anti")
    if open_ids.is_empty():
        return pl.DataFrame(schema=out_schema), pl.DataFrame(
            schema={c: out_schema[c] for c in _KEY}
        )
    checked = membership.filter("checkable")
    open_cells = checked.join(open_ids, on="ident").select("ident", *_KEY, "sign")
    series = _series(tables)
    fact = ["series", "unit_multiplier", "row_label", "col_label"]
    mine = (
        grid.join(open_cells.select(_KEY).unique(), on=_KEY, how="semi")
        .filter(pl.col("present") & ~pl.col("revised"))
        .join(series, on="tkey")
        .select(*_KEY, *fact, "doc_id", "v")
    )
    # confirmed elsewhere: in an identity that holds, or resolved without this cell
    good = pl.concat([checked.filter("holds").select("ident"), resolved]).unique()
    others = (
        grid.join(series.join(mine.select("series").unique(), on="series", how="semi"), on="tkey")
        .filter(pl.col("present") & ~pl.col("revised"))
        .join(mine.select(fact).unique(), on=fact, how="semi")
        .select(*_KEY, *fact, "doc_id", "v")
    )
    confirmed = (
        membership.join(others.select(_KEY), on=_KEY, how="semi")
        .join(good, on="ident", how="semi")
        .select(_KEY)
        .unique()
    )
    others = others.with_columns(confirmed=pl.col("cell").is_in(confirmed["cell"].implode()))
    # counts, not pairs: a figure printed in many tables must not multiply the rows
    # (other documents = all printings - those of the cell's own document)

    def printings(keys: list[str], name: str) -> pl.DataFrame:
        return others.group_by(keys).agg(pl.len().alias(name))

    same_value = [*fact, "v"]
    per_cell = (
        mine.join(printings(fact, "n_all"), on=fact, how="left")
        .join(printings([*fact, "doc_id"], "n_own"), on=[*fact, "doc_id"], how="left")
        .join(printings(same_value, "n_same_all"), on=same_value, how="left")
        .join(
            printings([*same_value, "doc_id"], "n_same_own"),
            on=[*same_value, "doc_id"],
            how="left",
        )
        .select(
            *_KEY,
            n_other=pl.col("n_all").fill_null(0) - pl.col("n_own").fill_null(0),
            n_same=pl.col("n_same_all").fill_null(0) - pl.col("n_same_own").fill_null(0),
        )
    )
    # support: a confirmed printing elsewhere equal to a value the total allows. The
    # allowed values are few (the window spans n_members units of the last place), so
    # they are listed and matched exactly
    ulp = pl.lit(10, pl.Int64) ** (decimals - pl.col("dec").clip(upper_bound=decimals)).cast(
        pl.Int64
    )
    allowed = (
        mine.join(candidates.select(*_KEY, "lo", "hi", "dec"), on=_KEY)
        .with_columns(ulp=ulp)
        .with_columns(
            step=pl.int_ranges(
                (-(-pl.col("lo") // pl.col("ulp"))), pl.col("hi") // pl.col("ulp") + 1
            )
        )
        .explode("step", empty_as_null=False)
        .drop_nulls("step")
        .filter(pl.col("step") != 0)
        .with_columns(v_o=pl.col("v") + pl.col("step") * pl.col("ulp"))
    )
    support = (
        allowed.join(
            others.filter("confirmed").select(*fact, doc_o="doc_id", v_o="v").unique(),
            on=[*fact, "v_o"],
        )
        .filter(pl.col("doc_o") != pl.col("doc_id"))
        .group_by(_KEY)
        .agg(pl.col("v_o").unique().alias("support"))
    )
    per_cell = per_cell.join(support, on=_KEY, how="left")
    cells = (
        open_cells.join(per_cell, on=_KEY, how="left")
        .join(candidates.select(_KEY).with_columns(candidate=pl.lit(True)), on=_KEY, how="left")
        .with_columns(
            candidate=pl.col("candidate").fill_null(False),
            n_other=pl.col("n_other").fill_null(0),
            n_same=pl.col("n_same").fill_null(0),
            n_support=pl.col("support").list.n_unique().fill_null(0),
        )
        .with_columns(
            supported=pl.col("candidate") & (pl.col("n_support") > 0) & (pl.col("n_same") == 0),
            agrees=pl.col("n_same") > 0,
            differs=(pl.col("n_other") > 0) & (pl.col("n_same") == 0),
        )
    )
    per_ident = cells.group_by("ident").agg(
        n_supported=pl.col("supported").sum(),
        n_differing=pl.col("differs").sum(),
        total_agrees=(pl.col("agrees") & (pl.col("sign") == 1)).any(),
    )
    by_support = (
        cells.join(per_ident.filter(pl.col("n_supported") == 1), on="ident")
        # two different supporting printings leave the value open
        .filter(pl.col("supported") & (pl.col("n_support") == 1))
        .select("ident", *_KEY, reprint_v=pl.col("support").list.first())
    )
    by_dissent = (
        cells.join(
            per_ident.filter(
                (pl.col("n_supported") == 0) & (pl.col("n_differing") == 1) & pl.col("total_agrees")
            ),
            on="ident",
        )
        .filter(pl.col("differs") & pl.col("candidate"))
        .select("ident", *_KEY, reprint_v=pl.lit(None, pl.Int64))
    )
    pins = pl.concat([by_support, by_dissent]).select(
        [pl.col(c).cast(t) for c, t in out_schema.items()]
    )
    return pins, cells.filter("agrees").select(_KEY).unique()
