-- Drafts that repeat another draft's kind and source cells.
-- Input: dedupe_candidates(task_id, kind, sources, priority, ord): the kept draft of a
-- group is the one with the lowest priority (0 = no other rejection reason), then the
-- first in draft order; every other member is a duplicate of it.
WITH keyed AS (
    SELECT
        task_id, kind, priority, ord,
        array_to_string(list_sort(list_transform(
            sources,
            s -> concat_ws(':', s.doc_id, s.page_no, s.table_no, s.row_idx, s.col_idx)
        )), '|') AS source_key
    FROM dedupe_candidates
)
SELECT task_id, first_value(task_id) OVER w AS duplicate_of
FROM keyed
WINDOW w AS (PARTITION BY kind, source_key ORDER BY priority, ord)
QUALIFY row_number() OVER w > 1
ORDER BY ord
