-- Source cells a task reads that no total of their table confirms.
-- Inputs: task_sources(task_id, doc_id, page_no, table_no, row_idx, col_idx, row_label,
-- col_label), anchored_cells.
SELECT
    s.task_id,
    s.doc_id, s.page_no, s.table_no, s.row_idx, s.col_idx, s.row_label, s.col_label,
    coalesce(a.status, 'not anchored') AS status
FROM task_sources AS s
LEFT JOIN anchored_cells AS a
  ON a.doc_id = s.doc_id AND a.page_no = s.page_no AND a.table_no = s.table_no
 AND a.row_idx = s.row_idx AND a.col_idx = s.col_idx
WHERE a.status IS NULL OR a.status NOT IN ('confirmed', 'repaired', 'contradicted')
ORDER BY s.task_id, s.doc_id, s.page_no, s.table_no, s.row_idx, s.col_idx
