"""Read a published question back into what it asks, and hold it against its oracle.

The drafter writes a question and an oracle program from the same facts. Rerunning the
oracle proves that the cells it reads are right, never that it computes what the
question *says*. This module is a second, independent reader of the question text: it
parses the published wording with its own grammar (cue words such as "combined", "exceed",
"taking X minus Y", "share of", "percent larger", "change from ... to", "average",
"highest", "lowest"; period phrases; the unit, sign and precision sentences) into a
:class:`QuestionReading`: the operation, the items in the order the arithmetic uses
them, the periods, the statement, the unit, the decimal places and what a negative
answer means. :func:`check_reading` holds a reading against the cells the oracle reads
(a draft's ``sources``, with what the table and anchor stages know of each cell: period,
parent heading, statement, unit, which cells a total adds up) and, given the oracle
program, against the arithmetic the program performs on probe numbers. Validation
rejects a draft whose question cannot be read or disagrees with its cells (rule
``question_mismatch``, :func:`question_reasons`); :func:`compute` and :func:`round_key`
let a test recompute a key from the reading alone.

Nothing here imports :mod:`pipeline.draft`: no template, regular expression or helper is
shared with the drafter. Period phrases are turned into dates with the calendar helpers
of the table stage (:mod:`pipeline.tables.periods`).
"""

from __future__ import annotations

from pipeline.validate.reading.cells import (
    SourceCell,
    cell_period,
    check_reading,
    item_matches,
    norm,
)
from pipeline.validate.reading.probes import (
    PROBES,
    compute,
    oracle_problems,
    round_key,
    run_oracle_on_probes,
)
from pipeline.validate.reading.questions import (
    CHANGE_OPERATIONS,
    OPERATIONS,
    PERCENT_OPERATIONS,
    PERIOD,
    SPAN_OPERATIONS,
    WHEN,
    PeriodReading,
    QuestionReading,
    ReadingError,
    list_readings,
    parse_question,
    read_period,
    read_question,
    unreadable_reason,
)
from pipeline.validate.reading.rule import (
    ReadingContext,
    question_reasons,
)

__all__ = [
    "CHANGE_OPERATIONS",
    "OPERATIONS",
    "PERCENT_OPERATIONS",
    "PERIOD",
    "PROBES",
    "PeriodReading",
    "QuestionReading",
    "ReadingContext",
    "ReadingError",
    "SPAN_OPERATIONS",
    "SourceCell",
    "WHEN",
    "cell_period",
    "check_reading",
    "compute",
    "item_matches",
    "list_readings",
    "norm",
    "oracle_problems",
    "parse_question",
    "question_reasons",
    "read_period",
    "read_question",
    "round_key",
    "run_oracle_on_probes",
    "unreadable_reason",
]
