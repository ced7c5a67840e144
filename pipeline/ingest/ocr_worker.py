"""What an OCR worker process runs: kept light so a worker starts in milliseconds.

A spawned worker imports this module: it reads the page image, erases dot leaders
(``pipeline.ingest.leaders``, every page), runs tesseract and hands the TSV text back;
the parent parses it and writes the cache. Only a page that needs more preprocessing (a
blurry scan) pulls in the enhancement and table libraries, lazily.
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the worker must not pay for these imports on clear pages
    from pipeline.ingest.enhance import Enhancement


def run_tesseract(image_png: bytes, args: list[str]) -> str:
    """Run tesseract on PNG bytes (stdin), single-threaded; return its TSV output."""
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    done = subprocess.run(
        ["tesseract", "stdin", "stdout", *args],
        input=image_png,
        capture_output=True,
        env=env,
    )
    if done.returncode != 0:
        raise RuntimeError(f"tesseract exited {done.returncode}: {done.stderr.decode()[-500:]}")
    return done.stdout.decode("utf-8", errors="replace")


def ocr_image(image: bytes | str, args: list[str], recipe: Enhancement | None = None) -> Any:
    """OCR one page image (PNG bytes, or the path of a stored blob).

    Returns tesseract's TSV text, or, for a page with a preprocessing ``recipe``, the
    words frame after enhancement and the digit pass.
    """
    from pipeline.ingest.leaders import erase_leaders

    if isinstance(image, str):
        with open(image, "rb") as fh:
            image = fh.read()
    if recipe is None:
        return run_tesseract(erase_leaders(image)[0], args)
    from pipeline.ingest.digits import apply_digit_pass
    from pipeline.ingest.enhance import enhance_png
    from pipeline.ingest.ocr import parse_tsv

    image = enhance_png(image, recipe)  # same pixel size: boxes stay in page pixels
    image = erase_leaders(image)[0]  # on the sharpened image: its dots are distinct
    words = parse_tsv(run_tesseract(image, args))
    if recipe.digit_pass:
        words = apply_digit_pass(words, image, lambda png, a: parse_tsv(run_tesseract(png, a)))
    return words
