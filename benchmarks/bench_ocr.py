"""OCR throughput: our ``words`` stage against plain tesseract, on the same page images.

Generates a small clear scanned corpus (``pipeline.synth.generate_scans`` at 150 DPI),
ingests and renders it (``documents``, ``pages`` at 300 DPI), then OCRs the first
``--pages`` page images three ways and prints pages per minute:

(a) stage         ``build_words`` with an empty cache (worker pool, OMP_THREAD_LIMIT=1)
(b) parallel CLI  ``xargs -P <cores> tesseract ...`` with OMP_THREAD_LIMIT=1
(c) naive         one tesseract after another, tesseract's default OpenMP threading

The target is stage >= 0.9x parallel CLI: the stage's own work (pool start-up, TSV
parsing, Parquet cache) must not cost more than a tenth of the OCR itself. On a
shared machine the timings move with the load average, which is printed.

    .venv/bin/python benchmarks/bench_ocr.py [--pages 12] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import tempfile
import time
from pathlib import Path

import polars as pl

from pipeline.config import data_paths
from pipeline.ingest.ocr import build_words, tesseract_args
from pipeline.ingest.scans import build_pages, ingest_documents
from pipeline.store import BlobStore, Warehouse
from pipeline.synth.scans import generate_scans

TARGET_RATIO = 0.9


def prepare(root: Path, n_pages: int) -> tuple[Warehouse, BlobStore, list[Path]]:
    """A data root whose ``pages`` table holds exactly ``n_pages`` clear pages; their PNGs."""
    # a volume is a contents page plus one page per two tables
    volumes = max(1, -(-n_pages // 6))
    corpus = generate_scans(root / "corpus", seed=11, volumes=volumes, tables_per_volume=10,
                            dpi_choices=(150,), progress=False)  # fmt: skip
    paths = data_paths(root / "data")
    warehouse, blobs = Warehouse(paths), BlobStore(paths.blobs_url)
    ingest_documents([("bench", p) for p in corpus.pdfs], warehouse, blobs)
    pages = build_pages(warehouse, blobs, render_dpi=300).sort("doc_id", "page_no").head(n_pages)
    if len(pages) < n_pages:
        raise RuntimeError(f"{root}: generated {len(pages)} pages, {n_pages} asked")
    warehouse.replace("pages", pages)  # the stage then OCRs exactly these pages
    images = root / "images"
    images.mkdir()
    pngs = []
    for i, sha in enumerate(pages["image_sha256"]):
        png = images / f"page_{i:04d}.png"
        png.write_bytes(blobs.get(sha))
        pngs.append(png)
    return warehouse, blobs, pngs


def time_stage(warehouse: Warehouse, blobs: BlobStore, cache: Path, workers: int) -> float:
    start = time.perf_counter()
    result = build_words(warehouse, blobs, cache_dir=cache, workers=workers, progress=False)
    elapsed = time.perf_counter() - start
    if result.ocrd != result.pages or result.failed:
        raise RuntimeError(f"stage OCR'd {result.ocrd} of {result.pages} pages")
    return elapsed


def time_parallel_cli(pngs: list[Path], workers: int) -> float:
    args = " ".join(shlex.quote(a) for a in tesseract_args())
    listing = "\n".join(str(p) for p in pngs)
    cmd = f"xargs -P {workers} -I{{}} tesseract {{}} {{}}.par {args} 2>/dev/null"
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    start = time.perf_counter()
    subprocess.run(cmd, shell=True, input=listing.encode(), env=env, check=True)
    return time.perf_counter() - start


def time_naive(pngs: list[Path]) -> float:
    env = {k: v for k, v in os.environ.items() if k != "OMP_THREAD_LIMIT"}
    start = time.perf_counter()
    for png in pngs:
        subprocess.run(
            ["tesseract", str(png), f"{png}.naive", *tesseract_args()],
            env=env, check=True, capture_output=True,
        )  # fmt: skip
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Run the benchmark, print the table, return pages/min per method and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=12)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-ocr-") as tmp:
        root = Path(tmp)
        warehouse, blobs, pngs = prepare(root, args.pages)
        seconds = {
            "stage": time_stage(warehouse, blobs, root / "ocr-cache", args.workers),
            "parallel_cli": time_parallel_cli(pngs, args.workers),
            "naive": time_naive(pngs),
        }
    rate = {k: 60 * args.pages / s for k, s in seconds.items()}
    report = pl.DataFrame(
        {
            "method": list(seconds),
            "seconds": [round(s, 2) for s in seconds.values()],
            "pages_per_min": [round(r, 1) for r in rate.values()],
        }
    )
    print(f"OCR of {args.pages} clear pages (300 DPI PNG), {args.workers} workers, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")  # fmt: skip
    print(report)
    ratios = {
        "stage/parallel_cli": rate["stage"] / rate["parallel_cli"],
        "stage/naive": rate["stage"] / rate["naive"],
    }
    for name, value in ratios.items():
        print(f"{name}: {value:.2f}x")
    verdict = "meets" if ratios["stage/parallel_cli"] >= TARGET_RATIO else "misses"
    print(f"{verdict} the target stage >= {TARGET_RATIO}x parallel CLI")
    return {**{f"{k}_pages_per_min": v for k, v in rate.items()}, **ratios}


if __name__ == "__main__":
    main()
