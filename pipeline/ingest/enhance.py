"""Image preprocessing before OCR of degraded (low-resolution, blurred) page scans.

Pages are rendered at 300 DPI whatever their scan resolution, so a 60-80 DPI scan
reaches tesseract as a smooth upsampled image whose strokes are several pixels of
grey ramp: tesseract's own Otsu threshold then merges or breaks digits. The recipe
here undoes some of that where the page was *scanned*:

1. box-resample the render back to the page's effective DPI (the resolution that
   holds all the detail there is; the render's interpolation only smeared it);
2. a strong, small-radius unsharp mask at that resolution: the scanner's blur is
   about one native pixel, so the sharpening kernel is sized in native pixels;
3. Lanczos-resample back to the render's exact pixel size (word boxes must stay in
   page-image pixels) and a mild unsharp mask to steepen the resampled edges.

Measured on generated table pages (share of printed numbers tesseract --psm 6 read
exactly; seed-9 corpus at 60/80 DPI, blur sigma 1.1-1.6 native px): 80 DPI 0.45 ->
0.95, 60 DPI 0.05 -> 0.18. Doing the same from the PDF's embedded image instead of
the render read the same at 80 DPI (0.95) and a little more at 60 DPI (0.22), not
enough to justify reopening PDFs in the OCR workers. Tried and dropped, none better
at 60 DPI than sharpening alone (0.18 from the render): Otsu and Sauvola binarisation
(0.05), Richardson-Lucy deconvolution (0.06-0.15, it amplifies the grain), Wiener
deconvolution (0.07-0.19), upsampling to 400 DPI (0.15), --psm 4 (0.17) and --psm 11
(0.15) instead of 6; removing long table rules cost 9 s a page and lowered the share
of confident figures on a real 1939 page (0.58 -> 0.55).

Degraded pages then get a digits-only second pass (``pipeline.ingest.digits``).

Clear pages are left untouched: they already read >= 0.99 and OCR there must stay as
fast as plain tesseract.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageFilter

from pipeline.ingest.digits import DIGITS_VERSION

# Bump when the output pixels of ``enhance_png`` change for the same recipe, so the OCR
# cache (keyed by ``Enhancement.cache_tag``) is redone.
ENHANCE_VERSION = 1

# Pages tagged with these qualities are enhanced (``pipeline.ingest.scans.quality_tag``).
ENHANCED_QUALITIES = frozenset({"blurry", "very_blurry"})

# Sharpening at native resolution: radius 1 native px; 400% was the best of 150-600%
# at 80 DPI and within a few points of the best at 60 DPI (600%: 0.23 vs 0.22).
NATIVE_RADIUS = 1.0
NATIVE_PERCENT = 400
# After upsampling to the render size: radius in render pixels at 300 DPI.
RENDER_RADIUS = 2.0
RENDER_PERCENT = 150
DEFAULT_RENDER_DPI = 300.0  # ``build_pages``'s default
# Never resample to fewer pixels than this: tiny pages are not worth the loss.
MIN_NATIVE_DPI = 30.0


@dataclass(frozen=True)
class Enhancement:
    """How one page image is preprocessed before OCR."""

    native_dpi: float  # the page's effective (scan) DPI, where sharpening happens
    native_radius: float = NATIVE_RADIUS
    native_percent: int = NATIVE_PERCENT
    render_radius: float = RENDER_RADIUS
    render_percent: int = RENDER_PERCENT
    digit_pass: bool = True  # re-read doubtful figures digits-only (``pipeline.ingest.digits``)

    def cache_tag(self) -> str:
        """A string that changes whenever the output image would (part of the OCR key).

        The render DPI is not in it: it is fixed by the image bytes, whose hash is.
        """
        return (
            f"enhance-v{ENHANCE_VERSION}:native={self.native_dpi:.1f}"
            f":n={self.native_radius}/{self.native_percent}"
            f":r={self.render_radius}/{self.render_percent}"
            + (f":digits-v{DIGITS_VERSION}" if self.digit_pass else "")
        )


def enhancement_for(quality: str | None, dpi: float | None) -> Enhancement | None:
    """The preprocessing for a page of this quality tag and effective DPI; None = none.

    Only blurry and very blurry pages are enhanced. An unknown DPI is taken as the
    render's (the page is sharpened in place, without resampling).
    """
    if quality not in ENHANCED_QUALITIES:
        return None
    native = DEFAULT_RENDER_DPI if dpi is None or dpi <= 0 else float(dpi)
    return Enhancement(native_dpi=max(native, MIN_NATIVE_DPI))


def enhance_image(
    image: Image.Image, recipe: Enhancement, render_dpi: float = DEFAULT_RENDER_DPI
) -> Image.Image:
    """Apply ``recipe`` to a page image rendered at ``render_dpi``; 8-bit grey, same size."""
    gray = image.convert("L")
    size = gray.size
    scale = recipe.native_dpi / render_dpi
    if scale < 0.95:
        native_size = (max(1, round(size[0] * scale)), max(1, round(size[1] * scale)))
        # BOX averages every render pixel into the native grid: no aliasing of the grain.
        native = gray.resize(native_size, Image.Resampling.BOX)
    else:
        native, scale = gray, 1.0
    native = native.filter(
        ImageFilter.UnsharpMask(recipe.native_radius, recipe.native_percent, threshold=0)
    )
    full = native.resize(size, Image.Resampling.LANCZOS) if scale != 1.0 else native
    radius = recipe.render_radius * render_dpi / DEFAULT_RENDER_DPI
    return full.filter(ImageFilter.UnsharpMask(radius, recipe.render_percent, threshold=0))


def enhance_png(png: bytes, recipe: Enhancement) -> bytes:
    """``enhance_image`` on PNG bytes; the render DPI is read from, and kept in, pHYs.

    A PNG without pixel density is taken to be rendered at ``DEFAULT_RENDER_DPI``.
    """
    with Image.open(io.BytesIO(png)) as image:
        dpi = image.info.get("dpi")
        render_dpi = float(dpi[0]) if dpi and dpi[0] > 1 else DEFAULT_RENDER_DPI
        out = enhance_image(image, recipe, render_dpi)
    buf = io.BytesIO()
    # dpi tells tesseract the text size; fast deflate since the bytes live only briefly.
    out.save(buf, format="PNG", compress_level=1, **({"dpi": dpi} if dpi else {}))
    return buf.getvalue()
