"""The one resource every asset uses: where the data lives and how stages are configured."""

from __future__ import annotations

import os

import dagster as dg
import polars as pl

from pipeline.config import DataPaths, data_paths
from pipeline.roles import ROLES, check_keys, llm_budget, role_choice
from pipeline.store import BlobStore, Warehouse


def parse_sources(text: str) -> list[tuple[str, str]]:
    """``"treasury=/a/b,other=/c"`` -> ``[("treasury", "/a/b"), ("other", "/c")]``."""
    pairs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"scan source {item!r} is not of the form name=path")
        pairs.append((name.strip(), path.strip()))
    return pairs


class LedgerForge(dg.ConfigurableResource):
    """Data root and stage settings.

    Empty values fall back to the environment (``LEDGERFORGE_DATA``, ``LEDGERFORGE_SCANS``,
    ``LEDGERFORGE_MAIL``, ``LEDGERFORGE_SPREADSHEETS``, ``LEDGERFORGE_TEXT_LAYER``,
    ``LEDGERFORGE_DRAFTER``, ``LEDGERFORGE_REWRITER``, ``LEDGERFORGE_SOLVER``,
    ``LEDGERFORGE_JUDGE``, ``LEDGERFORGE_LLM_BUDGET``), then to the defaults: ``data/``, the
    embedded default corpora (generated on first use by ``pipeline.synth``; none is
    generated or read once any corpus is configured), the template drafter and judge, no
    rewriter or solver, no budget cap.
    """

    data_root: str = ""
    scan_sources: str = ""  # name=path[,name=path]
    mail_sources: str = ""  # name=path[,name=path]: maildir / mbox / .eml trees / HTML exports
    spreadsheet_sources: str = ""  # name=path[,name=path]: folders of workbooks
    text_layer_policy: str = ""
    render_dpi: int = 300
    ocr_workers: int = 0  # 0 = one per core
    seed: int = 7
    release_version: str = ""  # empty = next free version
    # who plays each role: template | none | openai:MODEL | anthropic:MODEL (empty: the
    # environment, LEDGERFORGE_DRAFTER / _REWRITER / _SOLVER / _JUDGE, then the default)
    drafter: str = ""  # default template
    rewriter: str = ""  # default none
    solver: str = ""  # default none
    judge: str = ""  # default template
    llm_budget: str = ""  # US dollars a build may spend on model calls (LEDGERFORGE_LLM_BUDGET)
    llm_repair_rounds: int = 1  # follow-up turns that show a model its draft's problems

    @property
    def paths(self) -> DataPaths:
        return data_paths(self.data_root or None)

    @property
    def warehouse(self) -> Warehouse:
        return Warehouse(self.paths)

    @property
    def blobs(self) -> BlobStore:
        return BlobStore(self.paths.blobs_url)

    @property
    def workers(self) -> int | None:
        return self.ocr_workers or None

    @property
    def policy(self) -> str:
        return self.text_layer_policy or os.environ.get("LEDGERFORGE_TEXT_LAYER", "auto")

    def scan_source_pairs(self) -> list[tuple[str, str]]:
        return parse_sources(self.scan_sources or os.environ.get("LEDGERFORGE_SCANS", ""))

    def mail_source_pairs(self) -> list[tuple[str, str]]:
        return parse_sources(self.mail_sources or os.environ.get("LEDGERFORGE_MAIL", ""))

    def spreadsheet_source_pairs(self) -> list[tuple[str, str]]:
        text = self.spreadsheet_sources or os.environ.get("LEDGERFORGE_SPREADSHEETS", "")
        return parse_sources(text)

    def role(self, name: str) -> str:
        """The choice for a role (``pipeline.roles``): field, environment, default."""
        return role_choice(name, getattr(self, name))

    def check_llm_keys(self, *names: str) -> None:
        """MissingKey (naming the variable) for a chosen model without its API key."""
        check_keys({n: self.role(n) for n in names or tuple(ROLES)})

    @property
    def budget_usd(self) -> float | None:
        return llm_budget(self.llm_budget)

    def llm(self, name: str, budget_usd: float | None = None):
        """The LLM facade for a role (None for template / none); cache and call log under
        ``<data>/cache/llm/``; ``budget_usd`` overrides the configured budget."""
        from pipeline.llm.client import make_llm

        budget = self.budget_usd if budget_usd is None else budget_usd
        # no budget here: the LLM layer's own (LEDGERFORGE_LLM_BUDGET_USD, config/llm.yaml)
        overrides = {} if budget is None else {"budget_usd": budget}
        return make_llm(self.role(name), self.paths, **overrides)

    @property
    def own_corpora(self) -> bool:
        """Whether any corpus is configured: then nothing is generated and nothing else is
        read (a build over real scans does not mix in the generated mailbox, and the reverse)."""
        return bool(
            self.scan_source_pairs() or self.mail_source_pairs() or self.spreadsheet_source_pairs()
        )


def markdown_rows(frame: pl.DataFrame, columns: list[str], limit: int = 50) -> str:
    """A small Markdown table for the Dagster UI ("none" when empty)."""
    if frame.is_empty():
        return "none"
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    body = "".join(
        "| " + " | ".join(str(v).replace("|", "/") for v in row) + " |\n"
        for row in frame.select(columns).head(limit).iter_rows()
    )
    more = f"\n… and {len(frame) - limit} more" if len(frame) > limit else ""
    return head + body + more


def rejection_rules(tasks: pl.DataFrame) -> str:
    """How many rejected tasks each validation rule (the word a reason starts with)
    caught, as a small Markdown table."""
    rejected = tasks.filter(pl.col("status") == "rejected").explode("reasons", empty_as_null=True)
    rules = (
        rejected.with_columns(rule=rejected["reasons"].str.extract(r"^([a-z_]+)"))
        .group_by("rule")
        .len()
        .sort("rule")
    )
    return markdown_rows(rules, ["rule", "len"])
