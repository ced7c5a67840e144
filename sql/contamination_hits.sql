-- Tasks whose answer key is printed verbatim somewhere in the archive.
-- Inputs: task_keys(task_id, answer), task_sources(task_id, doc_id, page_no, table_no,
-- row_idx, col_idx), contamination_index, tables, table_cells.
-- A key printed at a cell the task itself reads, or at a reprint of that cell (same
-- statement title without its number, same row and column label, any volume), is the
-- source, not a leak: those positions are excluded.
-- Where a short number is printed matters: "4,600" turns up somewhere in any large
-- archive by chance. So a printing counts as a leak only in the task's own context (a
-- page that prints the same statement, in any volume), or anywhere when the key has
-- enough significant digits (>= 6) to be unlikely to recur by chance.
WITH read_cells AS (
    SELECT s.task_id, c.row_label, c.col_label,
           regexp_replace(lower(t.title), '^\s*table\s+[0-9a-z.]+?\s*[-.:\x{2013}\x{2014}]+\s*', '') AS statement
    FROM task_sources AS s
    JOIN table_cells AS c
      ON c.doc_id = s.doc_id AND c.page_no = s.page_no AND c.table_no = s.table_no
     AND c.row_idx = s.row_idx AND c.col_idx = s.col_idx
    JOIN tables AS t ON t.table_id = c.table_id
),
own AS (
    SELECT DISTINCT r.task_id, c.doc_id, c.page_no, c.x0, c.y0, c.x1, c.y1
    FROM read_cells AS r
    JOIN tables AS t
      ON regexp_replace(lower(t.title), '^\s*table\s+[0-9a-z.]+?\s*[-.:\x{2013}\x{2014}]+\s*', '') = r.statement
    JOIN table_cells AS c
      ON c.table_id = t.table_id AND c.row_label = r.row_label AND c.col_label = r.col_label
),
context AS (
    SELECT DISTINCT r.task_id, t.doc_id, t.page_no
    FROM read_cells AS r
    JOIN tables AS t
      ON regexp_replace(lower(t.title), '^\s*table\s+[0-9a-z.]+?\s*[-.:\x{2013}\x{2014}]+\s*', '') = r.statement
),
hits AS (
    SELECT k.task_id, i.source, i.doc_id, i.page_no, i.text
    FROM task_keys AS k
    JOIN contamination_index AS i ON i.number = abs(TRY_CAST(k.answer AS DECIMAL(38, 6)))
    WHERE (
        length(rtrim(ltrim(regexp_replace(k.answer, '[^0-9]', '', 'g'), '0'), '0')) >= 6
        OR EXISTS (
            SELECT 1 FROM context AS x
            WHERE x.task_id = k.task_id AND x.doc_id = i.doc_id AND x.page_no = i.page_no
        )
    )
    AND NOT EXISTS (
        SELECT 1 FROM own AS o
        WHERE o.task_id = k.task_id AND o.doc_id = i.doc_id AND o.page_no = i.page_no
          AND (i.x0 + i.x1) / 2 BETWEEN o.x0 AND o.x1
          AND (i.y0 + i.y1) / 2 BETWEEN o.y0 AND o.y1
    )
)
SELECT
    task_id,
    count(*) AS n_hits,
    list(DISTINCT doc_id || ' p.' || page_no || ' "' || text || '"' ORDER BY doc_id || ' p.' || page_no || ' "' || text || '"')[1:3] AS examples
FROM hits
GROUP BY task_id
ORDER BY task_id
