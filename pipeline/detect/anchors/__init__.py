"""Total-anchored cells: the ``identities`` and ``anchored_cells`` stage.

A printed statement table checks itself: a "Total" row equals the sum of the rows
above it, a "Total" column the sum of the columns to its left, a subtotal the sum of
its indented members. This stage finds those identities, checks them, and catalogues
every cell they fix. One module per decision:

1. **Spans** (``spans``). A *span* is a total line (row or column) and the contiguous run of
   lines it adds up. Spans are found by arithmetic with prefix sums (a run sums to
   the total when ``Q(t) - v(t) == Q(start)``; ``sql/anchors_runs.sql``), voted over
   the crossing positions so that a misread cell cannot hide a span. Lines labelled
   like totals ("Total ...", "Grand total", "Subtotal", "Net ...") are accepted on
   weaker evidence; unlabelled lines must add up in most positions. The search runs
   in rounds: lines already known to be totals are left out of the sums, so a parent
   total adds its leaves once and nested subtotals are found level by level.
2. **Identities** (``identities``). Each span gives one identity per crossing position; the members
   are the run's lines minus those inside a nested span (``sql/anchors_members.sql``).
3. **Tolerance** (``identities``). Numbers are compared in exact integer units of the printed last
   place. A table whose totals were added from the printed figures closes exactly;
   one whose totals were rounded separately may miss by up to
   ``n_members * half a unit of the last printed place``. A table counts as exact
   when at least ``EXACT_SHARE`` of its identities within that window close exactly
   (smoothed towards its document's share, weight ``DOC_PRIOR_WEIGHT``, so that
   one-identity tables follow their volume); exact tables get tolerance 0, the others
   the rounding tolerance. A line under a "Deduct:" / "Less:" spanner
   (``DEDUCT_LABEL``) printed unsigned makes its identity no plain sum: none is
   asserted. A labelled total the arithmetic never confirmed may miss in one
   position at most.
4. **Breaking cells** (``pinning``). For a failing identity, a *candidate* is a cell whose single
   correction makes every identity it is in hold (the allowed corrections of its
   identities intersect). Among an identity's candidates the one that sits in the
   most failing identities is the breaking cell (a cell that also fails in the
   cross-direction identity, or a subtotal failing both as total and as member) when
   it is unique. If no cell is unique that way, the series' other printings are
   asked (``_pin_by_reprints``): the same title (modulo "Table N.-"; a title printed
   twice in one volume names no series), unit, row and column label in other
   documents. The only candidate whose implied value another, confirmed printing
   shows is the breaking cell (or the only one that differs from all its printings
   while the total agrees with its own); figures with an "r" revised mark are never
   compared. Last, the bookkeeper's rule of nine, in a table where no other identity
   fails: when swapping two adjacent figures of exactly one candidate gives its
   implied value (a transposition; its residual is a multiple of nine), that cell is
   pinned as a misprint. A confusable OCR reading that fits one identity is never
   evidence by itself (a misread elsewhere, a rounding or a wrong member set fit as
   often). Otherwise no cell of that identity is anchored by it, and no cell at all
   is pinned in a table that would need more than one correction to close (a table
   misread as a whole is likelier than two slips in it).
5. **Repairs** (``repairs``). A breaking cell whose only fixing reading differs from the printed
   one by one confusable digit (``CONFUSABLE_DIGITS``) is repaired (when another
   printing supports the cell, only if the reading equals it); otherwise it is
   *contradicted*: the printed number disagrees with the total and the value the
   total implies (in a rounded table: the supporting printing) is recorded.
6. **Confirmed cells** (``anchored``). Every other cell of an identity that closes exactly (or
   once its breaking cell is corrected) is confirmed. An identity that closes only
   within its rounding window confirms a cell only when no other identity through it
   breaks and OCR read it confidently: a misread last digit hides in the window.

Known limits: totals that are differences ("Net" = gross - refunds), totals above or
left of their members, and non-contiguous member sets are not recognised; an
identity with two wrong cells is left unresolved; a misread or misprinted figure in
a table with totals in one direction is pinned only by another printing (or, a
misprint, when it is a transposition in an otherwise sound table).

``grid`` reads every table position into exact integer units (shared by all steps);
``anchored.find_anchors`` is the entry point that runs the steps and assembles the
output frames; ``evaluation.evaluate_anchors`` scores a result against a generated
corpus's ground truth.
"""

from pipeline.detect.anchors.anchored import AnchorResult, find_anchors
from pipeline.detect.anchors.evaluation import evaluate_anchors
from pipeline.detect.anchors.grid import DEDUCT_LABEL, MAX_DECIMALS, TOTAL_LABEL
from pipeline.detect.anchors.identities import DOC_PRIOR_WEIGHT, EXACT_SHARE
from pipeline.detect.anchors.pinning import TABLE_NUMBER
from pipeline.detect.anchors.repairs import CONFUSABLE_DIGITS
from pipeline.detect.anchors.spans import MAX_ROUNDS

__all__ = [
    "CONFUSABLE_DIGITS",
    "DEDUCT_LABEL",
    "DOC_PRIOR_WEIGHT",
    "EXACT_SHARE",
    "MAX_DECIMALS",
    "MAX_ROUNDS",
    "TABLE_NUMBER",
    "TOTAL_LABEL",
    "AnchorResult",
    "evaluate_anchors",
    "find_anchors",
]
