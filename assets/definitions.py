"""Dagster definitions: ``dagster asset materialize -m assets.definitions --select '*'``."""

from __future__ import annotations

import dagster as dg

from assets import checks, mail, release, scans, solver, tasks
from assets.resources import LedgerForge

all_assets = dg.load_assets_from_modules([scans, mail, tasks, solver, release])
all_checks = dg.load_asset_checks_from_modules([checks])

# The maintainer's full rebuild, as a job: every asset and check.
build = dg.define_asset_job(
    "build", selection=dg.AssetSelection.all(), description="Rebuild everything."
)

defs = dg.Definitions(
    assets=all_assets,
    asset_checks=all_checks,
    jobs=[build],
    resources={"lf": LedgerForge()},
    # Steps run one after another in one process: the heavy stages (rendering, OCR,
    # oracle runs) already fan out over their own process pools, and a subprocess per
    # step would only add interpreter start-up to a build that should take minutes.
    executor=dg.in_process_executor,
)
