-- Members of each accepted total: the lines of its run that are not inside a nested
-- total's run (a parent total adds its subtotals, not their members again).
--
-- Input view `spans`: lkey BIGINT (one axis of one table), total_line INT, start_line INT.
-- Output: one row per (span, member line), plus whether the span is itself nested,
-- ordered by span and member line.
SELECT
    s.lkey, s.total_line, s.start_line, r.member_line,
    EXISTS (
        SELECT 1 FROM spans AS o
        WHERE o.lkey = s.lkey
          AND o.start_line <= s.start_line AND o.total_line > s.total_line
    ) AS nested
FROM spans AS s,
     LATERAL (SELECT unnest(range(s.start_line, s.total_line)) AS member_line) AS r
WHERE NOT EXISTS (
    SELECT 1 FROM spans AS n
    WHERE n.lkey = s.lkey
      AND n.start_line >= s.start_line AND n.total_line < s.total_line
      AND r.member_line >= n.start_line AND r.member_line < n.total_line
)
ORDER BY s.lkey, s.total_line, r.member_line
