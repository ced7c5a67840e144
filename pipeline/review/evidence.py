"""An evidence sheet for one task: the page regions its oracle reads, and its key, in one PNG.

For each page a task cites, the sheet shows the region around the cited tables (the
table's box, widened to its title and unit lines when they are on the page, plus a
margin) with every cell the oracle reads outlined in its own colour and numbered, and
that cell's row label and column header lightly shaded in the same colour. Beside the
pages, a text panel prints the question, the key, its unit and precision, where the
figures are, each input as read and the known-wrong answers with their reasons, so a
person can check a key by eye in seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

import matplotlib
import polars as pl
from PIL import Image, ImageDraw, ImageFont

from pipeline.config import DataPaths
from pipeline.ingest.scans import page_image
from pipeline.review.lookup import CellRef, ReviewTask, find_task, scan
from pipeline.store import BlobStore, Warehouse

# Saturated colours that stand out on a grey scan, one per input (cycled past ten).
PALETTE = [
    (220, 20, 60), (0, 90, 230), (0, 150, 50), (245, 120, 0), (150, 50, 180),
    (0, 160, 170), (225, 0, 150), (150, 95, 20), (90, 90, 90), (110, 160, 0),
]  # fmt: skip
OUTLINE_WIDTH = 4  # sheet pixels
OUTLINE_PAD = 3  # sheet pixels between a cell's box and its outline
HEADER_ALPHA = 56  # opacity (of 255) of the row-label and column-header shading
CROP_MAX_WIDTH = 1400  # sheet pixels; a page region is scaled to fit
CROP_MAX_SCALE = 1.5
PANEL_WIDTH = 780
GAP = 20
FONT_DIR = Path(matplotlib.get_data_path()) / "fonts" / "ttf"


class EvidenceError(RuntimeError):
    """The evidence cannot be drawn (a page or its image is missing); the message says which."""


@dataclass(frozen=True)
class PagePanel:
    """Where one page region sits on the sheet: ``crop`` in page pixels, scaled, then offset."""

    doc_id: str
    page_no: int
    crop: tuple[int, int, int, int]  # left, top, right, bottom in page-image pixels
    scale: float
    offset: tuple[int, int]  # top-left of the scaled crop on the sheet

    def to_sheet(self, x: float, y: float) -> tuple[float, float]:
        """A page-image point in sheet pixels."""
        return (
            self.offset[0] + (x - self.crop[0]) * self.scale,
            self.offset[1] + (y - self.crop[1]) * self.scale,
        )


@dataclass
class Evidence:
    """The drawn sheet, with where each page landed and the colour of each input."""

    task: ReviewTask
    image: Image.Image
    panels: list[PagePanel] = field(default_factory=list)
    colours: list[tuple[int, int, int]] = field(default_factory=list)

    def panel(self, doc_id: str, page_no: int) -> PagePanel:
        return next(p for p in self.panels if (p.doc_id, p.page_no) == (doc_id, page_no))

    def save(self, path: Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.image.save(path, format="PNG", optimize=True)
        return path


def colour_of(i: int) -> tuple[int, int, int]:
    return PALETTE[i % len(PALETTE)]


def _font(name: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / name), size=size)


# --------------------------------------------------------------------------- page facts


@dataclass
class _Page:
    """What the sheet needs about one cited page, read from the warehouse."""

    doc_id: str
    page_no: int
    file_name: str
    volume: str
    quality: str
    image: Image.Image
    tables: pl.DataFrame  # every table on the page
    cells: pl.DataFrame  # every cell of the cited tables
    lines: list[tuple[float, float, float, float, str]]  # word lines: box and text
    line_height: float


def _rows(wh: Warehouse, asset: str, doc_id: str, page_no: int) -> pl.DataFrame | None:
    lazy = scan(wh, asset)
    if lazy is None:
        return None
    return lazy.filter((pl.col("doc_id") == doc_id) & (pl.col("page_no") == page_no)).collect()


def _load_page(wh: Warehouse, blobs: BlobStore, doc_id: str, page_no: int, tables: set[int]):
    documents = scan(wh, "documents")
    doc = (
        documents.filter(pl.col("doc_id") == doc_id).collect().to_dicts()
        if documents is not None
        else []
    )
    file_name = doc[0]["file_name"] if doc else doc_id
    volume = (doc[0].get("volume") or "") if doc else ""
    pages = _rows(wh, "pages", doc_id, page_no)
    if pages is None or pages.is_empty():
        raise EvidenceError(
            f"page {page_no} of {file_name} (doc {doc_id}) is not in the warehouse pages "
            f"table ({wh.folder('pages')}): the evidence cannot be drawn without its image"
        )
    page = pages.row(0, named=True)
    sha = page["image_sha256"]
    if not sha or not blobs.exists(sha):
        raise EvidenceError(
            f"the image of page {page_no} of {file_name} (doc {doc_id}, sha256 {sha}) is "
            f"missing from the blob store {blobs.url} (expected {blobs.key(sha or '')}); "
            "rebuild the pages asset"
        )
    image = page_image(blobs, sha).convert("RGB")
    table_rows = _rows(wh, "tables", doc_id, page_no)
    cells = _rows(wh, "table_cells", doc_id, page_no)
    cells = cells.filter(pl.col("table_no").is_in(sorted(tables))) if cells is not None else None
    words = _rows(wh, "words", doc_id, page_no)
    lines, height = [], 30.0
    if words is not None and not words.is_empty():
        height = float(words.select((pl.col("y1") - pl.col("y0")).median()).item() or height)
        grouped = (
            words.sort("word_no")
            .group_by("line_no", maintain_order=True)
            .agg(
                pl.col("x0").min(),
                pl.col("y0").min(),
                pl.col("x1").max(),
                pl.col("y1").max(),
                pl.col("text").str.join(" "),
            )  # fmt: skip
        )
        lines = [
            (r["x0"], r["y0"], r["x1"], r["y1"], r["text"]) for r in grouped.iter_rows(named=True)
        ]
    empty = pl.DataFrame(schema={"table_no": pl.Int32})
    return _Page(
        doc_id, page_no, file_name, volume, page.get("quality") or "", image,
        table_rows if table_rows is not None else empty,
        cells if cells is not None else empty, lines, height,
    )  # fmt: skip


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", (text or "").lower())


def _preamble_lines(page: _Page, table: dict) -> list[tuple[float, float, float, float]]:
    """The title and unit lines printed above a table: word lines just above its box whose
    words are mostly the table's title or unit, and not inside another table."""
    wanted = set(_tokens(table.get("title", ""))) | set(_tokens(table.get("unit", "")))
    if not wanted:
        return []
    others = [
        (t["y0"], t["y1"])
        for t in page.tables.iter_rows(named=True)
        if t["table_no"] != table["table_no"]
    ]
    found = []
    for x0, y0, x1, y1, text in page.lines:
        words = _tokens(text)
        above = y1 <= table["y0"] + page.line_height / 2
        near = y0 >= table["y0"] - 12 * page.line_height
        inside_other = any(a <= (y0 + y1) / 2 <= b for a, b in others)
        if above and near and words and not inside_other:
            if sum(w in wanted for w in words) >= 0.6 * len(words):
                found.append((x0, y0, x1, y1))
    return found


def _region(page: _Page, sources: list[CellRef]) -> tuple[int, int, int, int]:
    """The crop around the cited tables of a page: boxes, titles and unit lines, a margin."""
    boxes = []
    cited = {s.table_no for s in sources}
    for table in page.tables.iter_rows(named=True):
        if table["table_no"] in cited:
            boxes.append((table["x0"], table["y0"], table["x1"], table["y1"]))
            boxes.extend(_preamble_lines(page, table))
    for source in sources:
        box = _cell_box(page, source)
        if box is not None:
            boxes.append(box)
    width, height = page.image.size
    if not boxes:
        return 0, 0, width, height
    margin = 1.5 * page.line_height
    top, bottom = min(b[1] for b in boxes), max(b[3] for b in boxes)
    crop_top, crop_bottom = top - margin, bottom + margin
    # A text line the margin would cut in half is left out instead (a footnote below,
    # the previous table above), so every line on the crop is whole.
    for _, y0, _, y1, _ in page.lines:
        if y0 < crop_bottom < y1 and y0 >= bottom:
            crop_bottom = min(crop_bottom, y0 - 2)
        if y0 < crop_top < y1 and y1 <= top:
            crop_top = max(crop_top, y1 + 2)
    return (
        max(0, int(min(b[0] for b in boxes) - margin)),
        max(0, int(crop_top)),
        min(width, int(max(b[2] for b in boxes) + margin)),
        min(height, int(crop_bottom)),
    )


def _cell_box(page: _Page, source: CellRef) -> tuple[float, float, float, float] | None:
    if source.row_idx is None or "row_idx" not in page.cells.columns:
        return None
    hit = page.cells.filter(
        (pl.col("table_no") == source.table_no)
        & (pl.col("row_idx") == source.row_idx)
        & (pl.col("col_idx") == source.col_idx)
    )
    if hit.is_empty():
        return None
    row = hit.row(0, named=True)
    return row["x0"], row["y0"], row["x1"], row["y1"]


def _header_bands(page: _Page, source: CellRef) -> list[tuple[float, float, float, float]]:
    """The row-label strip left of the cell's row and the column-header strip above its column."""
    if source.row_idx is None or "row_idx" not in page.cells.columns:
        return []
    table_rows = page.tables.filter(pl.col("table_no") == source.table_no)
    cells = page.cells.filter(pl.col("table_no") == source.table_no)
    if table_rows.is_empty() or cells.is_empty():
        return []
    table = table_rows.row(0, named=True)
    gap = page.line_height / 3
    row = cells.filter(pl.col("row_idx") == source.row_idx)
    col = cells.filter(pl.col("col_idx") == source.col_idx)
    bands = []
    label_right = float(cells["x0"].min()) - gap
    if not row.is_empty() and label_right > table["x0"]:
        bands.append((table["x0"], float(row["y0"].min()), label_right, float(row["y1"].max())))
    header_bottom = float(cells["y0"].min()) - gap
    if not col.is_empty() and header_bottom > table["y0"]:
        bands.append((float(col["x0"].min()), table["y0"], float(col["x1"].max()), header_bottom))
    return bands


# --------------------------------------------------------------------------- drawing


def _number(text: str | None) -> str:
    """A decimal with thousands separators, as a page prints it; other text unchanged."""
    if text is None:
        return "—"
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        return str(text)
    return f"{value:,}" if value.is_finite() else str(text)


class _Panel:
    """A column of text drawn top to bottom, wrapped to its width."""

    def __init__(self, width: int, height: int = 12_000):
        self.image = Image.new("RGB", (width, height), "white")
        self.draw = ImageDraw.Draw(self.image)
        self.width = width
        self.margin = 18
        self.y = self.margin
        self.body = _font("DejaVuSans.ttf", 19)
        self.bold = _font("DejaVuSans-Bold.ttf", 19)
        self.title = _font("DejaVuSans-Bold.ttf", 24)
        self.key = _font("DejaVuSans-Bold.ttf", 28)
        self.small = _font("DejaVuSans.ttf", 16)

    def _wrap(self, text: str, font: ImageFont.FreeTypeFont, width: float) -> list[str]:
        lines: list[str] = []
        for paragraph in str(text).split("\n"):
            line = ""
            for word in paragraph.split(" "):
                trial = f"{line} {word}" if line else word
                if font.getlength(trial) <= width or not line:
                    line = trial
                else:
                    lines.append(line)
                    line = word
            lines.append(line)
        return lines

    def text(self, text: str, font=None, fill=(0, 0, 0), indent: int = 0, after: int = 4):
        font = font or self.body
        x = self.margin + indent
        for line in self._wrap(text, font, self.width - x - self.margin):
            self.draw.text((x, self.y), line, font=font, fill=fill)
            self.y += int(font.size * 1.3)
        self.y += after

    def heading(self, text: str):
        self.y += 10
        self.text(text, self.bold, fill=(40, 40, 40), after=2)
        self.draw.line(
            (self.margin, self.y, self.width - self.margin, self.y), fill=(200, 200, 200), width=1
        )
        self.y += 6

    def tag(self, no: int, colour: tuple[int, int, int], text: str):
        size = int(self.bold.size * 1.35)
        x = self.margin
        self.draw.rectangle((x, self.y, x + size, self.y + size), fill=colour)
        self.draw.text(
            (x + size / 2, self.y + size / 2), str(no), font=self.bold, fill="white", anchor="mm"
        )
        top = self.y
        self.y += 1
        self.text(text, self.bold, indent=size + 10, after=0)
        self.y = max(self.y, top + size + 2)

    def done(self) -> Image.Image:
        return self.image.crop((0, 0, self.width, self.y + self.margin))


def _panel(task: ReviewTask, pages: dict[tuple[str, int], _Page], colours) -> Image.Image:
    p = _Panel(PANEL_WIDTH)
    p.text(f"Task {task.task_id}", p.title, after=2)
    status = f" · {task.status}" if task.status else ""
    p.text(f"{task.kind}{status} · found in {task.found_in}", p.small, fill=(90, 90, 90))
    p.heading("Question")
    p.text(task.question)
    p.heading("Answer key")
    unit = f" {task.unit}" if task.unit else ""
    p.text(f"{_number(task.answer)}{unit}", p.key, fill=(0, 0, 0))
    if task.answer is None:
        p.text("(no key in this copy: private answers absent or the oracle did not emit)", p.small)
    if task.lo is not None and task.hi is not None:
        p.text(f"accepted interval [{_number(task.lo)}, {_number(task.hi)}]", p.small)
    precision = "—" if task.precision is None else f"{task.precision} decimal places"
    p.text(f"unit: {task.unit or '—'}   precision: {precision}")
    for name, value in task.period.items():
        p.text(f"{name}: {value}")
    p.text(f"scan quality (worst page read): {task.quality or '—'}")
    p.heading("Pages")
    seen = []
    for s in task.sources:
        if (s.doc_id, s.page_no) not in seen:
            seen.append((s.doc_id, s.page_no))
    for doc_id, page_no in seen:
        page = pages[(doc_id, page_no)]
        volume = f" (volume {page.volume})" if page.volume else ""
        p.text(f"{page.file_name}{volume}, page {page_no} [{page.quality}]")
    p.heading(f"Inputs the oracle reads ({len(task.sources)})")
    for i, (source, read) in enumerate(zip(task.sources, task.reads, strict=True)):
        label = source.row_label or str(source.row)
        p.tag(i + 1, colours[i], label)
        p.text(f"column: {source.col_label or source.col}", indent=48, after=0)
        printed = f"; printed {_number(read.get('printed'))}" if read.get("printed") else ""
        p.text(
            f"value read: {_number(read.get('value'))} ({read.get('status')}{printed})",
            indent=48,
            after=0,
        )
        file_name = pages[(source.doc_id, source.page_no)].file_name
        where = f"{file_name}, page {source.page_no}, table {source.table_no}"
        if source.row_idx is not None:
            where += f", row {source.row_idx}, col {source.col_idx}"
        else:
            where += " — cell not found in the warehouse, not outlined"
        p.text(where, p.small, fill=(90, 90, 90), indent=48, after=0)
        if source.period:
            p.text(f"period: {source.period}", indent=48, after=0)
        if source.note:
            p.text(f"oracle note: {source.note}", p.small, fill=(90, 90, 90), indent=48, after=0)
        p.y += 8
    p.heading(f"Known-wrong answers ({len(task.known_wrong)})")
    if not task.known_wrong:
        p.text("none recorded")
    values = [_number(w.get("value")) for w in task.known_wrong]
    column = min(240, max((p.bold.getlength(v) for v in values), default=0) + 16)
    for value, wrong in zip(values, task.known_wrong, strict=True):
        family = f" [{wrong.get('family')}]" if wrong.get("family") else ""
        top = p.y
        p.draw.text((p.margin, top), value, font=p.bold, fill=(0, 0, 0))
        if p.bold.getlength(value) + 16 > column:  # a long value gets its own line
            p.y += int(p.bold.size * 1.3)
        p.text(f"{wrong.get('reason')}{family}", indent=int(column), after=3)
    if task.reasons:
        p.heading("Rejection reasons")
        for reason in task.reasons:
            p.text(reason, after=2)
    return p.done()


def _page_image(page: _Page, sources: list[int], task: ReviewTask, colours):
    """The scaled crop of one page with header shading (drawn on the crop), and its caption."""
    crop = _region(page, [task.sources[i] for i in sources])
    width = crop[2] - crop[0]
    scale = min(CROP_MAX_SCALE, CROP_MAX_WIDTH / max(width, 1))
    region = page.image.crop(crop)
    size = (max(1, round(width * scale)), max(1, round((crop[3] - crop[1]) * scale)))
    region = region.resize(size, Image.Resampling.LANCZOS).convert("RGBA")
    shade = Image.new("RGBA", region.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(shade)
    for i in sources:
        for x0, y0, x1, y1 in _header_bands(page, task.sources[i]):
            box = ((x0 - crop[0]) * scale, (y0 - crop[1]) * scale,
                   (x1 - crop[0]) * scale, (y1 - crop[1]) * scale)  # fmt: skip
            draw.rectangle(box, fill=(*colours[i], HEADER_ALPHA))
    return Image.alpha_composite(region, shade).convert("RGB"), crop, scale


def _caption(page: _Page, tables: set[int]) -> str:
    volume = f" (volume {page.volume})" if page.volume else ""
    titles = [
        f"table {t['table_no']}: {t['title'] or 'untitled'}"
        + (f" — {t['unit']}" if t.get("unit") else "")
        for t in page.tables.iter_rows(named=True)
        if t["table_no"] in tables
    ]
    head = f"{page.file_name}{volume} · page {page.page_no} · {page.quality}"
    return "\n".join([head, *titles])


def render_evidence(task: ReviewTask, paths: DataPaths) -> Evidence:
    """Draw the evidence sheet of a looked-up task; raises ``EvidenceError`` for a missing page."""
    wh = Warehouse(paths)
    blobs = BlobStore(paths.blobs_url)
    colours = [colour_of(i) for i in range(len(task.sources))]
    by_page: dict[tuple[str, int], list[int]] = {}
    for i, s in enumerate(task.sources):
        by_page.setdefault((s.doc_id, s.page_no), []).append(i)
    pages = {
        key: _load_page(wh, blobs, *key, {task.sources[i].table_no for i in idx})
        for key, idx in by_page.items()
    }
    caption_font = _font("DejaVuSans-Bold.ttf", 18)
    drawn = []
    for key, idx in by_page.items():
        image, crop, scale = _page_image(pages[key], idx, task, colours)
        caption = _caption(pages[key], {task.sources[i].table_no for i in idx})
        drawn.append((key, idx, image, crop, scale, caption))
    text = _panel(task, pages, colours)
    line = int(caption_font.size * 1.35)
    crops_w = max((d[2].width for d in drawn), default=0)
    crops_h = sum(d[2].height + line * (d[5].count("\n") + 1) + GAP for d in drawn)
    width = text.width + crops_w + 2 * GAP
    height = max(text.height, crops_h + GAP)
    sheet = Image.new("RGB", (width, height), "white")
    sheet.paste(text, (0, 0))
    draw = ImageDraw.Draw(sheet)
    draw.line((text.width, 0, text.width, height), fill=(200, 200, 200), width=2)
    tag_font = _font("DejaVuSans-Bold.ttf", 18)
    panels = []
    x, y = text.width + GAP, GAP
    for (doc_id, page_no), idx, image, crop, scale, caption in drawn:
        for caption_line in caption.split("\n"):
            draw.text((x, y), caption_line, font=caption_font, fill=(40, 40, 40))
            y += line
        sheet.paste(image, (x, y))
        draw.rectangle((x - 1, y - 1, x + image.width, y + image.height), outline=(160, 160, 160))
        panel = PagePanel(doc_id, page_no, crop, scale, (x, y))
        panels.append(panel)
        for i in idx:
            box = _cell_box(pages[(doc_id, page_no)], task.sources[i])
            if box is not None:
                _outline(draw, panel, box, i + 1, colours[i], tag_font)
        y += image.height + GAP
    return Evidence(task, sheet, panels, colours)


def _outline(draw: ImageDraw.ImageDraw, panel: PagePanel, box, no: int, colour, font) -> None:
    """A cell's outline (just outside its box, so the digits stay visible) and its number
    tag, placed left of the cell where right-aligned figures leave white space."""
    (x0, y0), (x1, y1) = panel.to_sheet(box[0], box[1]), panel.to_sheet(box[2], box[3])
    pad = OUTLINE_PAD + OUTLINE_WIDTH
    draw.rectangle((x0 - pad, y0 - pad, x1 + pad, y1 + pad), outline=colour, width=OUTLINE_WIDTH)
    label = str(no)
    w = font.getlength(label) + 8
    h = font.size + 6
    mid = (y0 + y1) / 2
    right = x0 - pad
    draw.rectangle((right - w, mid - h / 2, right, mid + h / 2), fill=colour)
    draw.text((right - w / 2, mid), label, font=font, fill="white", anchor="mm")


def write_evidence(
    task_id: str, out: Path, paths: DataPaths, release_dir: Path | None = None
) -> Evidence:
    """Look the task up, draw its evidence sheet and save it as PNG at ``out``."""
    evidence = render_evidence(find_task(task_id, paths, release_dir), paths)
    evidence.save(out)
    return evidence
