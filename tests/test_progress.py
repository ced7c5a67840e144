"""Progress lines for a run log: throttled, with rate and time left."""

from __future__ import annotations

from pipeline.progress import StageProgress


def test_progress_lines_are_throttled_and_say_rate_and_time_left():
    now = [0.0]
    lines: list[str] = []
    progress = StageProgress("OCR", 10, lines.append, "pages", every_s=30, clock=lambda: now[0])
    for _ in range(10):
        now[0] += 12.0  # one page every 12 s: 5 pages a minute
        progress.advance()
    # the first page, then at most one line per 30 s, then the last page
    assert lines[0] == "OCR: 1/10 pages (10.0%), 5.0 pages/min, about 2 min left"
    assert lines[-1] == "OCR: 10/10 pages (100.0%), 5.0 pages/min, done in 2 min"
    assert [line.split(" pages")[0] for line in lines] == [
        "OCR: 1/10",
        "OCR: 4/10",
        "OCR: 7/10",
        "OCR: 10/10",
    ]


def test_progress_of_an_empty_stage_is_complete():
    lines: list[str] = []
    progress = StageProgress("render", 0, lines.append, "documents")
    assert progress.line().startswith("render: 0/0 documents (100.0%)")
