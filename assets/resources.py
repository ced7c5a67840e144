"""The one resource every asset uses: where the data lives and how stages are configured."""

from __future__ import annotations

import dagster as dg

from pipeline.config import DataPaths, data_paths
from pipeline.store import BlobStore, Warehouse


class LedgerForge(dg.ConfigurableResource):
    """Data root and stage settings. Empty ``data_root`` means ``LEDGERFORGE_DATA`` or ``data/``.

    ``scan_sources`` lists ``name=path`` pairs of folders of scanned statements; empty means
    the embedded default corpus (generated on first use by ``pipeline.synth``).
    """

    data_root: str = ""
    scan_sources: list[str] = []
    text_layer_policy: str = "auto"
    render_dpi: int = 300
    ocr_workers: int = 0
    seed: int = 7
    release_version: str = ""

    @property
    def paths(self) -> DataPaths:
        return data_paths(self.data_root or None)

    @property
    def warehouse(self) -> Warehouse:
        return Warehouse(self.paths)

    @property
    def blobs(self) -> BlobStore:
        return BlobStore(self.paths.blobs_url)
