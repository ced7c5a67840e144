"""Drawing bulletin pages as scanned images.

Pages are drawn with Pillow at 300 dpi in grayscale (text is crisp there), then
degraded the way a microfilm scan is: slight skew, downsampling to the page's
scan resolution, gaussian blur and sensor noise. The fonts are the DejaVu TTFs
that matplotlib ships, so rendering needs no system fonts and is identical on
every machine.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import matplotlib
import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage

from pipeline.synth.statements import StatementTable

HI_DPI = 300
PAGE_W_PT, PAGE_H_PT = 612, 792  # US letter
PAGE_W, PAGE_H = PAGE_W_PT * HI_DPI // 72, PAGE_H_PT * HI_DPI // 72
MARGIN = int(0.75 * HI_DPI)
CONTENT_W = PAGE_W - 2 * MARGIN
BODY_TOP = int(0.95 * HI_DPI)
BODY_BOTTOM = PAGE_H - int(0.8 * HI_DPI)
TABLE_GAP = int(0.35 * HI_DPI)
GUTTER = int(0.3 * HI_DPI)  # between two tables printed side by side
HALF_W = (CONTENT_W - GUTTER) // 2  # the width of each of them
BODY_PT = 11.0  # clear pages OCR nearly perfectly at this size
BLUR_RANGE = {150: (0.7, 0.95), 120: (0.65, 0.9), 100: (0.7, 1.0), 80: (0.9, 1.3), 60: (1.1, 1.6)}
MIN_BODY_PT = 8.0
NOT_AVAILABLE = "n.a."  # printed where a figure is not available (1984-06 p75)

FONT_DIR = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
SERIF = "DejaVuSerif.ttf"
SERIF_BOLD = "DejaVuSerif-Bold.ttf"


@lru_cache(maxsize=64)
def font(name: str, pt: float) -> ImageFont.FreeTypeFont:
    """A DejaVu font at ``pt`` points on the 300 dpi canvas."""
    return ImageFont.truetype(str(FONT_DIR / name), size=round(pt * HI_DPI / 72))


def _wrap(text: str, fnt: ImageFont.FreeTypeFont, width: float) -> list[str]:
    """Greedy word wrap; a single word wider than ``width`` stays on its own line."""
    lines: list[str] = []
    for word in text.split():
        if lines and fnt.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines or [""]


@dataclass
class TableBlock:
    """One statement table laid out at a font size: column geometry and height."""

    table: StatementTable
    pt: float
    label_w: int = 0
    col_w: list[int] = field(default_factory=list)
    gap: int = 0
    leaf_lines: list[list[str]] = field(default_factory=list)
    # spanning headers per level, top level first: (first col, last col, wrapped lines)
    tiers: list[list[tuple[int, int, list[str]]]] = field(default_factory=list)
    tier_lines: list[int] = field(default_factory=list)  # header lines each tier takes
    stub_lines: list[str] = field(default_factory=list)
    header_lines: int = 0
    height: int = 0
    width: int = CONTENT_W  # HALF_W for a table printed beside another
    title_lines: list[str] = field(default_factory=list)
    text_w: int = 0  # the column of words right of the figures ("Position held in:")
    text_lines: list[str] = field(default_factory=list)  # its head, wrapped

    @classmethod
    def fit(cls, table: StatementTable) -> TableBlock:
        """Lay the table out at the largest font size (<= BODY_PT) that fits the width
        (half the page's for a table printed beside another)."""
        pt = table.type_pt or BODY_PT
        width = HALF_W if table.spec.layout.half else CONTENT_W
        while True:
            block = cls(table, pt, width=width)
            if block._layout() or pt <= MIN_BODY_PT:
                return block
            pt -= 0.5

    def _title_lines(self) -> tuple[list[str], float]:
        """The title's lines and point size: one line (shrunk rather than overflowing) on
        the full width; wrapped over centred lines on half the page."""
        t = self.table
        title_pt = self.pt + 0.5
        if self.width < CONTENT_W:
            return _wrap(t.title, font(SERIF_BOLD, title_pt), self.width), title_pt
        while font(SERIF_BOLD, title_pt).getlength(t.title) > CONTENT_W and title_pt > MIN_BODY_PT:
            title_pt -= 0.5  # long qualified titles at scale: shrink rather than overflow
        return [t.title], title_pt

    @property
    def lh(self) -> int:
        return round(self.pt * HI_DPI / 72 * 1.45)

    @property
    def body(self) -> ImageFont.FreeTypeFont:
        return font(SERIF, self.pt)

    @property
    def note(self) -> ImageFont.FreeTypeFont:
        return font(SERIF, self.pt - 1.5)

    @property
    def indent_px(self) -> int:
        return round(self.body.getlength("MM"))

    @property
    def span_tier(self) -> int:
        """Header lines taken by spanning headers (all levels)."""
        return sum(self.tier_lines)

    def _layout(self) -> bool:
        """Compute column widths and height; False when the table is wider than the page."""
        t, f = self.table, self.body
        n = len(t.col_paths)
        num_w = [0.0] * n  # a month grid's current year prints its first months only
        for cell in (cell for row in t.cells for cell in row):
            num_w[cell.col_idx] = max(num_w[cell.col_idx], f.getlength(cell.text))
        for _, c in t.unavailable:
            num_w[c] = max(num_w[c], f.getlength(NOT_AVAILABLE))
        # a month grid's thirteen columns are as narrow as their figures and heads, set
        # close together (1940-05 p20): at the usual widths the stub would have no room
        grid = t.spec.layout.month_rows == "grid"
        min_w = f.getlength("000" if grid else "00,000")
        self.leaf_lines, self.col_w = [], []
        for c, path in enumerate(t.col_paths):
            words = max(f.getlength(w) for w in path[-1].split())
            width = max(num_w[c], words, min_w)
            self.leaf_lines.append(_wrap(path[-1], f, width))
            self.col_w.append(round(width))
        label_w = max(pl.indent * self.indent_px + f.getlength(pl.text) for pl in t.print_lines)
        if t.spec.layout.leaders:  # room for a few dots after the longest label
            label_w += f.getlength(" ......")
        self.stub_lines = _wrap(
            t.stub_head,
            f,
            max(label_w, f.getlength("Fiscal year")),
        )
        self.label_w = round(max(label_w, f.getlength("Fiscal year")))
        base_gap = round(f.getlength("M") * (0.8 if grid else 1.2))
        side = 0  # the words right of the figures, a gutter from them
        if t.text_head:  # as wide as its widest entry, its head wrapped to that
            entries = [f.getlength(text) for text in t.row_texts]
            head = max(f.getlength(w) for w in t.text_head.split())
            self.text_w = round(max([*entries, head]))
            self.text_lines = _wrap(t.text_head, f, self.text_w)
            side = self.text_w + base_gap
        natural = self.label_w + sum(self.col_w) + base_gap * n + side
        if natural > self.width:
            return False
        # Spread spare width over the column gaps (wide gutters, as in the printed bulletins).
        spare = self.width - natural
        self.gap = base_gap + min(spare // max(n, 1), 3 * base_gap)
        self.label_w += self.width - (self.label_w + sum(self.col_w) + self.gap * n + side)
        depth = max(len(p) for p in t.col_paths)
        self.tiers, self.tier_lines = [], []
        for level in range(depth - 1):
            spans = []
            c = 0
            while c < n:
                path = t.col_paths[c]
                if len(path) > level + 1:
                    last = c
                    while (
                        last + 1 < n
                        and len(t.col_paths[last + 1]) > level + 1
                        and t.col_paths[last + 1][: level + 1] == path[: level + 1]
                    ):
                        last += 1
                    span_w = sum(self.col_w[c : last + 1]) + self.gap * (last - c)
                    spans.append((c, last, _wrap(path[level], f, span_w)))
                    c = last + 1
                else:
                    c += 1
            if spans:
                self.tiers.append(spans)
                self.tier_lines.append(max(len(s[2]) for s in spans))
        leaf_tier = max(
            max(len(x) for x in self.leaf_lines), len(self.stub_lines), len(self.text_lines)
        )
        self.header_lines = self.span_tier + leaf_tier
        note_lh = round(self.lh * 0.85)
        self.title_lines = self._title_lines()[0]
        self.height = (
            round(self.lh * 1.2) * len(self.title_lines)  # title
            + (self.lh if t.unit else 0)  # unit line
            + self.lh // 3
            + self.header_lines * self.lh
            + self.lh // 2 * len(self.tiers)
            + self.lh // 2
            + len(t.print_lines) * self.lh
            + self.lh // 3
            + len(t.footnote_lines) * note_lh
        )
        return True

    def _draw_leader(self, draw: ImageDraw.ImageDraw, x0: float, x1: float, y: int) -> None:
        """Dots from a stub label to its label column's edge ("1942 ........"), as the
        bulletins before the 1990s print them."""
        f = self.body
        dot = f.getlength(".")
        start = x0 + f.getlength(" ")
        n = int((x1 - start) // dot)
        if n >= 3:
            draw.text((start, y), "." * n, font=f, fill=0, anchor="la")

    def col_right(self, left: int, c: int) -> int:
        """Right edge (pixels) of value column ``c`` for a table starting at ``left``."""
        return left + self.label_w + sum(self.col_w[: c + 1]) + self.gap * (c + 1)

    @property
    def title_h(self) -> int:
        """The height one title line takes."""
        return round(self.lh * 1.2)

    def draw(
        self, draw: ImageDraw.ImageDraw, top: int, left: int = MARGIN
    ) -> tuple[int, int, int, int]:
        """Draw the table with its top at ``top`` and its left edge at ``left``; return
        its pixel box (x0, y0, x1, y1)."""
        t, f, lh = self.table, self.body, self.lh
        right = left + self.width
        lines, title_pt = self._title_lines()
        title_f = font(SERIF_BOLD, title_pt)
        y = top
        for line in lines:
            draw.text(((left + right) / 2, y), line, font=title_f, fill=0, anchor="ma")
            y += round(lh * 1.2)
        if t.unit:
            draw.text(((left + right) / 2, y), t.unit, font=f, fill=0, anchor="ma")
            y += lh
        y += lh // 3
        rule = max(2, lh // 18)
        draw.line([(left, y - lh // 6), (right, y - lh // 6)], fill=0, width=rule)
        header_top = y
        tier_top = header_top
        for spans, n_lines in zip(self.tiers, self.tier_lines, strict=True):
            for first, last, lines in spans:
                x0 = self.col_right(left, first) - self.col_w[first]
                x1 = self.col_right(left, last)
                offset = (n_lines - len(lines)) * lh
                for i, text in enumerate(lines):
                    draw.text(
                        ((x0 + x1) / 2, tier_top + offset + i * lh),
                        text,
                        font=f,
                        fill=0,
                        anchor="ma",
                    )
                uy = tier_top + n_lines * lh + lh // 8
                draw.line([(x0, uy), (x1, uy)], fill=0, width=max(1, rule // 2))
            tier_top += n_lines * lh + lh // 2
        bottom = header_top + self.header_lines * lh + lh // 2 * len(self.tiers)
        for c, lines in enumerate(self.leaf_lines):
            cx = self.col_right(left, c) - self.col_w[c] / 2
            start = bottom - len(lines) * lh
            if len(t.col_paths[c]) == 1:
                start = max(start, header_top)
            for i, text in enumerate(lines):
                draw.text((cx, start + i * lh), text, font=f, fill=0, anchor="ma")
        stub_x = left + self.label_w / 2 - self.gap / 2
        for i, text in enumerate(self.stub_lines):
            stub_y = bottom - (len(self.stub_lines) - i) * lh
            draw.text((stub_x, stub_y), text, font=f, fill=0, anchor="ma")
        text_x = right - self.text_w  # the words right of the figures
        for i, text in enumerate(self.text_lines):
            draw.text((text_x, bottom - (len(self.text_lines) - i) * lh), text, font=f, fill=0)
        y = bottom + lh // 6
        draw.line([(left, y), (right, y)], fill=0, width=rule)
        y += lh // 3
        for pl in t.print_lines:
            x = left + round(pl.indent * self.indent_px)
            if pl.rule:  # over a total row, across the figure columns
                x0 = self.col_right(left, 0) - self.col_w[0]
                ry = y + lh // 2
                x1 = self.col_right(left, len(t.col_paths) - 1)
                draw.line([(x0, ry), (x1, ry)], fill=0, width=max(1, rule // 2))
            draw.text((x, y), pl.text, font=f, fill=0, anchor="la")
            if t.spec.layout.leaders and pl.row is not None and pl.text:
                self._draw_leader(
                    draw, x + f.getlength(pl.text), left + self.label_w + self.gap / 2, y
                )
            if pl.row is not None:
                for cell in t.cells[pl.row]:
                    x = self.col_right(left, cell.col_idx)
                    draw.text((x, y), cell.text, font=f, fill=0, anchor="ra")
                for r, c in t.unavailable:
                    if r == pl.row:
                        x = self.col_right(left, c)
                        draw.text((x, y), NOT_AVAILABLE, font=f, fill=0, anchor="ra")
                if t.text_head:
                    draw.text((text_x, y), t.row_texts[pl.row], font=f, fill=0, anchor="la")
            y += lh
        draw.line([(left, y + lh // 8), (right, y + lh // 8)], fill=0, width=rule)
        box_bottom = y + lh // 8
        y += lh // 3
        note_lh = round(lh * 0.85)
        for text in t.footnote_lines:
            draw.text((left, y), text, font=self.note, fill=0, anchor="la")
            y += note_lh
        return left, top, right, box_bottom


CHART_H = int(1.7 * HI_DPI)  # bars, baseline and legend line
PAGE_HEAD_H = round(BODY_PT * HI_DPI / 72 * 1.45 * 1.6)
LEGENDS = (
    ("Receipts", "Expenditures", "Deficit"),
    ("Marketable", "Nonmarketable", "Special issues", "Other"),
    ("Individual", "Corporation", "Excise", "Customs", "Other"),
    ("Budget", "Trust funds", "Public debt", "Cash balance"),
)


def draw_chart(draw: ImageDraw.ImageDraw, top: int, rng: np.random.Generator) -> int:
    """A small bar chart (grouped bars over a baseline, no figures) with a legend line of
    3-5 short names spread across the page width; returns the height it took."""
    names = LEGENDS[int(rng.integers(len(LEGENDS)))]
    k = len(names)
    left, right = MARGIN + HI_DPI // 4, MARGIN + CONTENT_W - HI_DPI // 4
    base_y = top + int(1.15 * HI_DPI)
    groups = int(rng.integers(5, 8))
    slot = (right - left) / groups
    bar_w = slot * 0.7 / k
    shades = [60, 120, 170, 210, 90]
    for g in range(groups):
        for i in range(k):
            h = int(rng.uniform(0.2, 1.0) * HI_DPI)
            x0 = left + g * slot + slot * 0.15 + i * bar_w
            draw.rectangle([x0, base_y - h, x0 + bar_w - 2, base_y], fill=shades[i], outline=0)
    draw.line([(left, base_y), (right, base_y)], fill=0, width=3)
    f = font(SERIF, BODY_PT)
    legend_y = base_y + int(0.2 * HI_DPI)
    sw = round(BODY_PT * HI_DPI / 72 * 0.8)
    cell = (right - left) / k
    for i, name in enumerate(names):
        x = left + i * cell + cell / 2 - (sw + 12 + f.getlength(name)) / 2
        draw.rectangle([x, legend_y + 4, x + sw, legend_y + 4 + sw], fill=shades[i], outline=0)
        draw.text((x + sw + 12, legend_y), name, font=f, fill=0, anchor="la")
    return CHART_H


def draw_page_head(draw: ImageDraw.ImageDraw, top: int, text: str) -> int:
    """The unit printed once at the head of the page, for every table on it."""
    draw.text((PAGE_W / 2, top), text, font=font(SERIF, BODY_PT), fill=0, anchor="ma")
    return PAGE_HEAD_H


def blank_page() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A white 300 dpi grayscale US-letter canvas."""
    img = Image.new("L", (PAGE_W, PAGE_H), 255)
    return img, ImageDraw.Draw(img)


def draw_running_head(draw: ImageDraw.ImageDraw, issue_title: str, page_no: int) -> None:
    """Running head (bulletin and issue) and the page number at the foot."""
    f = font(SERIF, 9)
    draw.text((MARGIN, int(0.45 * HI_DPI)), "Treasury Bulletin", font=f, fill=0, anchor="la")
    draw.text((PAGE_W - MARGIN, int(0.45 * HI_DPI)), issue_title, font=f, fill=0, anchor="ra")
    draw.text((PAGE_W / 2, PAGE_H - int(0.5 * HI_DPI)), str(page_no), font=f, fill=0, anchor="ma")


def draw_contents(issue_title: str, entries: list[tuple[str, int]]) -> Image.Image:
    """The contents page: bulletin title, issue, and table titles with dotted leaders."""
    img, draw = blank_page()
    cx = PAGE_W / 2
    draw.text(
        (cx, int(1.1 * HI_DPI)), "TREASURY BULLETIN", font=font(SERIF_BOLD, 20), fill=0, anchor="ma"
    )
    draw.text((cx, int(1.6 * HI_DPI)), issue_title, font=font(SERIF, 13), fill=0, anchor="ma")
    draw.text((cx, int(2.3 * HI_DPI)), "Contents", font=font(SERIF_BOLD, 12), fill=0, anchor="ma")
    f = font(SERIF, BODY_PT)
    left, right = MARGIN + HI_DPI // 4, PAGE_W - MARGIN - HI_DPI // 4
    step = round(BODY_PT * HI_DPI / 72 * 1.9)
    y = int(2.9 * HI_DPI)
    if len(entries) * step > PAGE_H - y - HI_DPI:
        step = max(
            round(BODY_PT * HI_DPI / 72 * 1.3), (PAGE_H - y - HI_DPI) // max(len(entries), 1)
        )
    draw.text((right, y - step), "Page", font=f, fill=0, anchor="ra")
    for title, page in entries:
        draw.text((left, y), title, font=f, fill=0, anchor="la")
        num = str(page)
        draw.text((right, y), num, font=f, fill=0, anchor="ra")
        x0 = left + f.getlength(title) + f.getlength("  ")
        x1 = right - f.getlength(num) - f.getlength("  ")
        dot = f.getlength(". ")
        n_dots = int((x1 - x0) // dot)
        if n_dots > 2:
            draw.text((x1, y), ". " * n_dots, font=f, fill=0, anchor="ra")
        y += step
    return img


@dataclass(frozen=True)
class ScanQuality:
    """How one page was degraded (recorded in the truth)."""

    dpi: int
    blur_sigma: float  # gaussian sigma in pixels of the final page image
    noise_sd: float  # gaussian noise, gray levels (0-255)
    skew_deg: float


def draw_quality(dpi_choices: tuple[int, ...], rng: np.random.Generator) -> ScanQuality:
    """Pick a page's scan resolution and degradation; mostly >= 120 dpi, i.e. clear pages."""
    high = [d for d in dpi_choices if d >= 120]
    low = [d for d in dpi_choices if d < 120]
    if high and low:
        weights = [0.75 / len(high) if d >= 120 else 0.25 / len(low) for d in dpi_choices]
    else:
        weights = [1 / len(dpi_choices)] * len(dpi_choices)
    dpi = int(rng.choice(dpi_choices, p=weights))
    # Sigma is in page-image pixels; coarser scans come from worse film, so they get more.
    # Below ~0.6 px a 120-150 dpi image aliases when a renderer upsamples it to 300 dpi,
    # which costs OCR more than a little softness does (measured with tesseract 5.3).
    lo, hi = BLUR_RANGE.get(dpi, (0.7, 1.0) if dpi >= 100 else (1.1, 1.6))
    return ScanQuality(
        dpi=dpi,
        blur_sigma=round(float(rng.uniform(lo, hi)), 3),
        noise_sd=round(float(rng.uniform(3.0, 9.0)), 2),
        skew_deg=round(float(rng.uniform(-0.6, 0.6)), 3),
    )


def degrade(img: Image.Image, quality: ScanQuality, rng: np.random.Generator) -> Image.Image:
    """Skew, downsample to the scan DPI, blur and add noise to a 300 dpi page image."""
    size = (round(PAGE_W_PT / 72 * quality.dpi), round(PAGE_H_PT / 72 * quality.dpi))
    # Rotating after the downsampling costs a quarter of the work and looks the same.
    small_img = img.resize(size, Image.Resampling.LANCZOS)
    skewed = small_img.rotate(quality.skew_deg, resample=Image.Resampling.BICUBIC, fillcolor=255)
    small = np.asarray(skewed, dtype=np.float32)
    # Grain before the blur, as on film: the optics soften paper and grain alike. Pixel-
    # independent noise after the blur is not what scans look like, and page renderers
    # that upsample it turn it into streaks that wreck OCR of otherwise clear pages.
    grainy = small + rng.normal(0.0, quality.noise_sd, size=small.shape).astype(np.float32)
    blurred = ndimage.gaussian_filter(grainy, sigma=quality.blur_sigma)
    return Image.fromarray(np.clip(np.rint(blurred), 0, 255).astype(np.uint8), mode="L")


def png_bytes(img: Image.Image) -> bytes:
    """PNG encoding of a page image (deterministic: no timestamps, fixed settings)."""
    buf = io.BytesIO()
    # Fast level: pymupdf decodes the PNG and deflates the pixels again when saving.
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()
