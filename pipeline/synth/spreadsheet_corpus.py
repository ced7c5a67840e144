"""The spreadsheet half of the default mail corpus: version families on disk, .xls
conversion in one LibreOffice start, and the family/edit ground truth.

Families in ``spreadsheets/`` are named the ways people name versions: ``Desk P&L
v2.xlsx``, ``gas_budget_2001-10-05.xlsx``, ``Copy of ...``, ``..._final.xlsx``,
``..._rev3.xls``. Some families carry file modification times in version order, the
others all share one time so only the name gives the order. Near-miss decoys are
families made from the same template for another desk (same sheet names and headers,
other numbers) whose names differ only in the desk: they must not be chained.

Legacy ``.xls`` versions are written as .xlsx and converted by a single batched
``soffice --convert-to xls`` call (:class:`XlsBatch`); LibreOffice's bytes are not
stable across its versions, so their sha256 goes into the truth after writing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import random
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.ingest.workbooks import WorkbookError
from pipeline.ingest.xls_conversion import run_soffice
from pipeline.synth.workbook_families import Family, build_family
from pipeline.synth.workbook_model import xlsx_bytes
from pipeline.synth.workbook_templates import DESKS

XLS_TIMEOUT_S = 180.0
FLAT_MTIME = dt.datetime(2002, 1, 15, 8, 30)
NAMING = ("v", "date", "copy", "rev")
TRIVIAL_CYCLE = ("date_stamp", "format_only", "date_stamp", "style_only")
FOLDERS = {"budget": "planning", "positions": "trading", "allocation": "finance", "pnl": "pnl"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class XlsBatch:
    """Collects workbooks to be delivered as .xls and converts them in one soffice call."""

    def __init__(self) -> None:
        self.pending: dict[str, bytes] = {}
        self.done: dict[str, bytes] = {}

    def add(self, key: str, xlsx: bytes) -> str:
        self.pending[key] = xlsx
        return key

    def convert(self) -> None:
        if not self.pending:
            return
        keys = sorted(self.pending)
        with tempfile.TemporaryDirectory(prefix="lf-synth-xls-") as tmp:
            work = Path(tmp)
            names = []
            for i, key in enumerate(keys):
                src = work / f"w{i:04d}.xlsx"
                src.write_bytes(self.pending[key])
                names.append(src.name)
            out = work / "xls"
            run_soffice(
                ["--convert-to", "xls", "--outdir", str(out), *names],
                work,
                XLS_TIMEOUT_S,
                f"converting {len(keys)} synthetic workbooks to .xls",
            )
            for i, key in enumerate(keys):
                produced = out / f"w{i:04d}.xls"
                if not produced.is_file():
                    raise WorkbookError(f"{key}: LibreOffice produced no .xls")
                self.done[key] = produced.read_bytes()
        self.pending.clear()

    def get(self, key: str) -> bytes:
        return self.done[key]


@dataclass
class VersionFile:
    """One version of a family as delivered: a file in the corpus or an attachment."""

    family: str
    order: int
    file_name: str
    where: str  # corpus | attachment
    xlsx: bytes
    xls_key: str | None = None  # set when delivered as .xls
    path: str | None = None  # relative to the corpus root (corpus files)
    message_ids: list[str] = field(default_factory=list)
    mtime: dt.datetime | None = None

    def data(self, batch: XlsBatch) -> bytes:
        return batch.get(self.xls_key) if self.xls_key else self.xlsx


def version_names(stem: str, naming: str, dates: list[dt.datetime], xls_last: bool) -> list[str]:
    """File names for the versions of one family under one naming habit."""
    n = len(dates)
    if naming == "v":
        names = [f"{stem}.xlsx"] + [f"{stem} v{k + 1}.xlsx" for k in range(1, n)]
    elif naming == "date":
        names = [f"{stem}_{d:%Y-%m-%d}.xlsx" for d in dates]
    elif naming == "copy":
        tail = ["Copy of {s}.xlsx", "{s}_final.xlsx", "{s}_final2.xlsx", "{s}_FINAL_use this.xlsx"]
        names = [f"{stem}.xlsx"] + [tail[k].format(s=stem) for k in range(n - 1)]
    else:
        names = [f"{stem}.xlsx"] + [f"{stem}_rev{k}.xlsx" for k in range(1, n)]
    if xls_last and n > 1:
        names[-1] = names[-1][: -len(".xlsx")] + ".xls"
    return names


def _stem(template: str, desk: str, rng: random.Random) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", desk.lower())
    return {
        "budget": rng.choice((f"{slug}_budget", f"{desk} budget 2002")),
        "positions": rng.choice((f"{desk} positions", f"{slug}_positions")),
        "allocation": rng.choice((f"{desk} cost allocation", f"{slug}_alloc")),
        "pnl": rng.choice((f"{desk} P&L", f"Desk P&L {desk}")),
    }[template]


@dataclass
class CorpusSpec:
    family: str
    template: str
    desk: str
    naming: str
    n_versions: int
    trivial: dict[int, str | None]
    mtime_ordered: bool
    xls_last: bool
    decoy_group: str | None = None


def plan_corpus(seed: int, n_families: int = 26) -> list[CorpusSpec]:
    """Corpus families: pairs from one template for two desks are each other's decoys."""
    rng = random.Random(f"{seed}:corpus")
    specs: list[CorpusSpec] = []
    templates = ("pnl", "positions", "budget", "allocation")
    k = n_trivial = 0
    while len(specs) < n_families:
        template = templates[k % len(templates)]
        naming = NAMING[(k // 2) % len(NAMING)]
        free = [d for d in DESKS if (template, d) not in {(s.template, s.desk) for s in specs}]
        pair = rng.sample(free, 2) if k % 3 == 0 else [rng.choice(free)]
        group = f"decoys-{k:02d}" if len(pair) == 2 else None
        for desk in pair:
            if len(specs) >= n_families:
                break
            n = rng.choice((2, 3, 3, 4, 4, 5))
            trivial: dict[int, str | None] = {}
            if n >= 3 and rng.random() < 0.4:
                reason = TRIVIAL_CYCLE[n_trivial % len(TRIVIAL_CYCLE)]
                trivial = {rng.randint(1, n - 1): reason}
                n_trivial += 1
            specs.append(
                CorpusSpec(
                    family=f"corpus-{len(specs):02d}",
                    template=template,
                    desk=desk,
                    naming=naming,
                    n_versions=n,
                    trivial=trivial,
                    mtime_ordered=rng.random() < 0.5,
                    xls_last=naming == "rev" and rng.random() < 0.7 and (n - 1) not in trivial,
                    decoy_group=group,
                )
            )
        k += 1
    return specs


def build_corpus_families(
    seed: int, batch: XlsBatch
) -> list[tuple[CorpusSpec, Family, list[VersionFile]]]:
    """Every corpus family built, its version files named and .xls versions queued."""
    out = []
    for spec in plan_corpus(seed):
        rng = random.Random(f"{seed}:{spec.family}:names")
        start = dt.datetime(2001, rng.randint(1, 9), rng.randint(1, 28), 9, rng.randint(0, 59))
        fam = build_family(
            spec.family,
            spec.template,
            spec.desk,
            f"{seed}:{spec.family}",
            spec.n_versions,
            start,
            trivial=spec.trivial,
            days_between=rng.randint(3, 20),
        )
        stem = _stem(spec.template, spec.desk, rng)
        dates = [b.modified for b in fam.versions]
        names = version_names(stem, spec.naming, dates, spec.xls_last)
        folder = FOLDERS[spec.template]
        files = []
        for order, (book, name) in enumerate(zip(fam.versions, names, strict=True)):
            vf = VersionFile(spec.family, order, name, "corpus", xlsx_bytes(book))
            vf.path = f"spreadsheets/{folder}/{name}"
            vf.mtime = book.modified if spec.mtime_ordered else FLAT_MTIME
            if name.endswith(".xls"):
                vf.xls_key = batch.add(f"{spec.family}:{order}", vf.xlsx)
            files.append(vf)
        out.append((spec, fam, files))
    return out


def write_corpus_files(root: Path, files: list[VersionFile], batch: XlsBatch) -> None:
    for vf in files:
        assert vf.path is not None
        path = root / vf.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(vf.data(batch))
        if vf.mtime is not None:
            t = vf.mtime.replace(tzinfo=dt.UTC).timestamp()
            os.utime(path, (t, t))


def family_truth(
    fam: Family,
    files: list[VersionFile],
    batch: XlsBatch,
    **extra: object,
) -> tuple[dict, list[dict]]:
    """The truth.json family entry and its flattened edits."""
    versions = [
        {
            "file_name": vf.file_name,
            "where": vf.where,
            "message_id": vf.message_ids[0] if vf.message_ids else None,
            "message_ids": list(vf.message_ids),
            "path": vf.path,
            "sha256": sha256(vf.data(batch)),
            "format": "xls" if vf.xls_key else "xlsx",
            "order": vf.order,
            "date": fam.versions[vf.order].modified.isoformat(),
        }
        for vf in files
    ]
    steps = [
        {
            "step": s.step,
            "ops": s.ops,
            "goal": s.goal,
            "trivial": s.trivial,
            "trivial_reason": s.trivial_reason,
            "n_edits": sum(1 for e in s.edits if not e.get("implied")),
        }
        for s in fam.steps
        if s.step < len(files)
    ]
    edits = []
    for s in fam.steps:
        if s.step >= len(files):
            continue
        for e in s.edits:
            row = {"family": fam.family, "step": s.step, "trivial": s.trivial, "implied": False}
            row.update({k: (str(v) if isinstance(v, dt.datetime) else v) for k, v in e.items()})
            edits.append(row)
    entry = {
        "family": fam.family,
        "template": fam.template,
        "desk": fam.desk,
        **extra,
        "versions": versions,
        "steps": steps,
    }
    return entry, edits
