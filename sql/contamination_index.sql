-- The contamination index: every number printed on every page, with where it is.
-- Two sources, both kept: parsed table cells (numbers the table stage rebuilt) and
-- numeric word tokens (every number OCR saw, including text outside tables, e.g.
-- footnotes and prose). `number` is the absolute value: a key printed as "(1,234)"
-- or "1,234" is the same digits to a reader searching the archive.
SELECT
    'table_cell' AS source,
    c.doc_id,
    c.page_no,
    c.x0, c.y0, c.x1, c.y1,
    c.text,
    abs(TRY_CAST(c.value_str AS DECIMAL(38, 6))) AS number
FROM table_cells AS c
WHERE c.is_number AND TRY_CAST(c.value_str AS DECIMAL(38, 6)) IS NOT NULL
UNION ALL
SELECT
    'word' AS source,
    w.doc_id,
    w.page_no,
    w.x0, w.y0, w.x1, w.y1,
    w.text,
    -- leading sign, currency, parenthesis or revised mark; thousands commas dropped
    abs(TRY_CAST(replace(
        regexp_extract(w.text, '^[$(r\x{2212}-]*([0-9][0-9,]*(\.[0-9]+)?)', 1), ',', ''
    ) AS DECIMAL(38, 6))) AS number
FROM words AS w
WHERE regexp_matches(w.text, '[0-9]')
  AND TRY_CAST(replace(
        regexp_extract(w.text, '^[$(r\x{2212}-]*([0-9][0-9,]*(\.[0-9]+)?)', 1), ',', ''
      ) AS DECIMAL(38, 6)) IS NOT NULL
