-- Total lines found by arithmetic (and confirmed for labelled ones): a line t of a
-- table is a total of the contiguous run of lines [start_line, t) when, in enough of
-- the crossing positions, its cell equals the sum of the run's cells.
--
-- Input view `lines` (one row per grid position and axis; integer keys only):
--   lkey BIGINT (one axis of one table: tkey * 2 for rows, tkey * 2 + 1 for columns;
--   on the row axis totals sum down a column, on the column axis along a row),
--   strand BIGINT (one crossing position of that axis), line INT,
--   v BIGINT (value in integer units of the run's scale; null when not a number),
--   present BOOLEAN, excluded BOOLEAN (a total line left out of the sums, so a parent
--   total adds its leaves once), label_total BOOLEAN, ulp DOUBLE (one unit of the
--   table's last printed place, in integer units),
--   q BIGINT (sum of the summed cells on lines before this one, same strand),
--   m BIGINT (unreadable cells on summed lines before this one: a run containing
--   one cannot be checked). The prefix sums come in precomputed (a running sum
--   over the strand-sorted frame is cheaper than a window partitioned by strand).
--
-- Prefix sums turn "run sum equals total" into a lookup: Q(t) - v(t) = Q(a).
-- The comparison allows the rounding tolerance n_members * ulp / 2.
WITH hits AS (
    SELECT t.lkey, t.line AS total_line, a.line AS start_line, t.v AS total_v
    FROM lines AS t
    JOIN lines AS a
      ON a.strand = t.strand AND a.line < t.line
    WHERE t.present
      AND NOT a.excluded
      AND t.m = a.m
      AND abs(CAST(a.q AS DOUBLE) - CAST(t.q - t.v AS DOUBLE)) <= 0.5 * (t.line - a.line) * t.ulp
      -- a one-line "run" is only a total when the label says so
      AND (t.line - a.line >= 2 OR t.label_total)
),
votes AS (
    SELECT
        lkey, total_line, start_line,
        count(*) AS n_hold,
        count(*) FILTER (WHERE total_v <> 0) AS n_nonzero
    FROM hits
    GROUP BY ALL
),
line_stats AS (
    SELECT lkey, line, count(*) FILTER (WHERE present) AS n_present, bool_or(label_total) AS label_total
    FROM lines
    GROUP BY ALL
)
SELECT
    v.lkey, v.total_line, v.start_line, v.n_hold, s.n_present,
    CASE WHEN s.label_total THEN 'label' ELSE 'arithmetic' END AS found_by
FROM votes AS v
JOIN line_stats AS s ON s.lkey = v.lkey AND s.line = v.total_line
-- a labelled total may lose positions to misread cells: one in three is enough
WHERE (s.label_total AND v.n_hold * 3 >= s.n_present AND v.n_nonzero >= 1)
   -- without a label, demand agreement in most crossing positions and real (nonzero) sums
   OR (v.n_hold >= 2 AND v.n_nonzero >= 2 AND v.n_hold * 5 >= s.n_present * 3
       AND v.total_line - v.start_line >= 2)
-- several starts can match when zero lines sit at the run's head: keep the best
-- supported, then the widest (the zeros are members too)
QUALIFY row_number() OVER (
    PARTITION BY v.lkey, v.total_line ORDER BY v.n_hold DESC, v.start_line
) = 1
