"""The ``tables`` and ``table_cells`` stages: statement tables rebuilt from word boxes."""

from pipeline.tables.evaluate import TableScores, evaluate_tables, officeqa_presence
from pipeline.tables.layout import build_tables
from pipeline.tables.numbers import ParsedNumber, parse_number

__all__ = [
    "ParsedNumber",
    "TableScores",
    "build_tables",
    "evaluate_tables",
    "officeqa_presence",
    "parse_number",
]
