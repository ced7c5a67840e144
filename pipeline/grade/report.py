"""The report of a grading run: Markdown, a self-contained HTML page and the metric tables.

``write_report`` writes into ``out_dir``::

    report.md            tables + figures linked from figures/
    report.html          the same, figures embedded as base64 PNG (one file to share)
    figures/*.png        pass@1 per agent, kind x quality heatmap, failure causes, cost
    metrics/*.parquet    every Summary table, for further analysis

Figures are drawn on ``matplotlib.figure.Figure`` objects with the Agg canvas, so no
global pyplot state or display is involved.
"""

from __future__ import annotations

import base64
import html
import io
import math
from pathlib import Path

import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from pipeline.grade.metrics import N_RESAMPLES, Summary, summarize
from pipeline.grade.runs import CAUSES, GradeRun

_CAUSE_COLOURS = {
    "known_wrong": "#d62728",
    "sign_flipped": "#9467bd",
    "base": "#8c564b",
    "misread_digit": "#ff7f0e",
    "abstained": "#7f7f7f",
    "no_number": "#bcbd22",
    "timeout": "#17becf",
    "other_wrong_number": "#1f77b4",
}


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    return buffer.getvalue()


def plot_pass_at_1(agents: pl.DataFrame) -> bytes:
    """pass@1 per agent (best on top) with its bootstrap interval as whiskers."""
    ranked = agents.sort("rank", descending=True)
    estimate = ranked["pass_at_1"].to_numpy()
    errors = np.vstack(
        [estimate - ranked["pass_at_1_lo"].to_numpy(), ranked["pass_at_1_hi"].to_numpy() - estimate]
    )
    figure = Figure(figsize=(6.5, 0.45 * ranked.height + 1.2))
    axes = figure.add_subplot()
    axes.errorbar(estimate, np.arange(ranked.height), xerr=errors, fmt="o", capsize=4)
    axes.set_yticks(np.arange(ranked.height), ranked["agent"].to_list())
    axes.set_xlim(0, 1)
    axes.set_xlabel("pass@1 (95% bootstrap interval over tasks)")
    axes.grid(axis="x", alpha=0.3)
    return _png(figure)


# Scan-quality tags from best to worst; unknown tags follow in alphabetical order.
_QUALITY_ORDER = ("clear", "blurry", "very blurry")


def _quality_order(tags: list[str]) -> list[str]:
    known = [tag for tag in _QUALITY_ORDER if tag in tags]
    return known + sorted(tag for tag in tags if tag not in _QUALITY_ORDER)


def plot_heatmap(heatmap: pl.DataFrame) -> bytes:
    """pass@1 pooled over agents by task kind (rows) and scan-quality tag (columns)."""
    kinds = sorted(heatmap["kind"].drop_nulls().unique().to_list())
    qualities = _quality_order(heatmap["quality"].drop_nulls().unique().to_list())
    grid = np.full((len(kinds), len(qualities)), np.nan)
    for row in heatmap.iter_rows(named=True):
        if row["kind"] in kinds and row["quality"] in qualities:
            grid[kinds.index(row["kind"]), qualities.index(row["quality"])] = row["pass_at_1"]
    figure = Figure(figsize=(1.6 * len(qualities) + 3, 0.5 * len(kinds) + 1.5))
    axes = figure.add_subplot()
    image = axes.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    axes.set_xticks(np.arange(len(qualities)), qualities)
    axes.set_yticks(np.arange(len(kinds)), kinds)
    for (i, j), value in np.ndenumerate(grid):
        if not math.isnan(value):
            colour = "black" if value > 0.6 else "white"
            axes.text(j, i, f"{value:.0%}", ha="center", va="center", color=colour)
    figure.colorbar(image, ax=axes, label="pass@1")
    return _png(figure)


def plot_causes(causes: pl.DataFrame, ranking: list[str]) -> bytes:
    """Failure causes per agent, stacked as shares of the agent's attempts."""
    figure = Figure(figsize=(7, 0.45 * len(ranking) + 1.5))
    axes = figure.add_subplot()
    left = np.zeros(len(ranking))
    order = list(reversed(ranking))
    for cause in CAUSES:
        share = np.array(
            [
                causes.filter((pl.col("agent") == agent) & (pl.col("cause") == cause))[
                    "share"
                ].sum()
                for agent in order
            ]
        )
        if share.any():
            axes.barh(order, share, left=left, label=cause, color=_CAUSE_COLOURS.get(cause))
            left += share
    axes.set_xlabel("share of attempts that failed, by cause")
    axes.set_xlim(0, max(1e-9, left.max()) * 1.05)
    if left.any():
        axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    else:
        axes.text(
            0.5, 0.5, "no failed attempts", ha="center", va="center", transform=axes.transAxes
        )
    return _png(figure)


def plot_cost(agents: pl.DataFrame) -> bytes:
    """pass@1 against mean cost per attempt, one point per agent (a note when no cost)."""
    figure = Figure(figsize=(6.5, 4.5))
    axes = figure.add_subplot()
    priced = agents.filter(pl.col("mean_cost").is_not_null())
    if priced.is_empty():
        axes.text(0.5, 0.5, "no cost recorded in the responses", ha="center", va="center")
        axes.set_axis_off()
        return _png(figure)
    axes.scatter(priced["mean_cost"].to_numpy(), priced["pass_at_1"].to_numpy())
    for row in priced.iter_rows(named=True):
        axes.annotate(
            row["agent"],
            (row["mean_cost"], row["pass_at_1"]),
            fontsize="small",
            xytext=(4, 4),
            textcoords="offset points",
        )
    axes.set_xlabel("mean cost per attempt (USD)")
    axes.set_ylabel("pass@1")
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3)
    return _png(figure)


def _percent(value: float | None, lo: float | None = None, hi: float | None = None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    text = f"{100 * value:.1f}%"
    if lo is not None and hi is not None and not math.isnan(lo):
        text += f" [{100 * lo:.1f}, {100 * hi:.1f}]"
    return text


def _number(value: float | None, digits: int = 2) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:,.{digits}f}"


def _agent_rows(summary: Summary) -> pl.DataFrame:
    k = summary.k
    rows = []
    for r in summary.agents.iter_rows(named=True):
        rows.append(
            {
                "rank": str(r["rank"]),
                "agent": r["agent"],
                "tasks": str(r["tasks"]),
                "attempts": str(r["attempts"]),
                "pass@1": _percent(r["pass_at_1"], r["pass_at_1_lo"], r["pass_at_1_hi"]),
                f"pass@{k}": _percent(r["pass_at_k"], r["pass_at_k_lo"], r["pass_at_k_hi"]),
                f"pass^{k}": _percent(r["pass_hat_k"], r["pass_hat_k_lo"], r["pass_hat_k_hi"]),
                "majority vote": _percent(r["majority_vote"]),
                "coverage": _percent(r["coverage"]),
                "mean cost $": _number(r["mean_cost"]),
                "mean seconds": _number(r["mean_seconds"], 1),
                "mean tokens": _number(r["mean_tokens"], 0),
            }
        )
    return pl.DataFrame(rows)


def _comparison_rows(summary: Summary) -> pl.DataFrame:
    rows = [
        {
            "comparison": f"{r['agent_a']} vs {r['agent_b']}",
            "paired tasks": str(r["paired_tasks"]),
            "difference": _percent(r["difference"], r["difference_lo"], r["difference_hi"]),
            "p": _number(r["p_value"], 4),
            "p (Holm)": _number(r["p_holm"], 4),
            "significant": "yes" if r["significant"] else "no",
        }
        for r in summary.comparisons.iter_rows(named=True)
    ]
    return pl.DataFrame(
        rows,
        schema=dict.fromkeys(
            ["comparison", "paired tasks", "difference", "p", "p (Holm)", "significant"], pl.String
        ),
    )


def _breakdown_rows(summary: Summary, dimension: str) -> pl.DataFrame:
    frame = summary.breakdowns.filter(pl.col("dimension") == dimension)
    ranking = summary.agents["agent"].to_list()
    groups = _quality_order(frame["group"].unique().to_list())
    rows = []
    for group in groups:
        row = {dimension: group}
        for agent in ranking:
            cell = frame.filter((pl.col("agent") == agent) & (pl.col("group") == group))
            row[agent] = (
                _percent(cell["pass_at_1"][0], cell["pass_at_1_lo"][0], cell["pass_at_1_hi"][0])
                if cell.height
                else "–"
            )
        rows.append(row)
    return pl.DataFrame(rows)


def _cause_rows(summary: Summary) -> pl.DataFrame:
    rows = []
    for agent in summary.agents["agent"].to_list():
        row = {"agent": agent}
        for cause in CAUSES:
            cell = summary.causes.filter((pl.col("agent") == agent) & (pl.col("cause") == cause))
            row[cause] = str(int(cell["count"].sum()))
        rows.append(row)
    return pl.DataFrame(rows)


def _ceiling_rows(summary: Summary) -> pl.DataFrame:
    return pl.DataFrame(
        [
            {
                "method": r["method"],
                "tasks": str(r["tasks"]),
                "rate": _percent(r["rate"], r["lo"], r["hi"]),
            }
            for r in summary.ceiling.iter_rows(named=True)
        ]
    )


def markdown_table(frame: pl.DataFrame) -> str:
    """A GitHub Markdown table of a frame's values as text (pipes escaped)."""

    def cell(value: object) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")

    header = "| " + " | ".join(cell(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.iter_rows()]
    return "\n".join([header, rule, *body])


def html_table(frame: pl.DataFrame) -> str:
    """An HTML table of a frame's values as escaped text."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>"
        for row in frame.iter_rows()
    )
    return f'<table class="metrics"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
table.metrics { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
table.metrics th, table.metrics td { border: 1px solid #ccc; padding: 0.3em 0.6em; }
table.metrics th { background: #f3f3f3; }
img { max-width: 100%; }
"""


def write_report(
    run: GradeRun,
    out_dir: Path,
    summary: Summary | None = None,
    n_resamples: int = N_RESAMPLES,
    seed: int = 0,
) -> dict[str, Path]:
    """Write the Markdown and HTML report, figures and metric tables of a run.

    ``summary`` defaults to :func:`pipeline.grade.metrics.summarize` of the run's verdicts
    with ``n_resamples`` and ``seed``. Returns the written paths by name (``markdown``,
    ``html``, ``figure_<name>``, ``metrics_<table>``).
    """
    summary = summary or summarize(run.verdicts, run.tasks, n_resamples=n_resamples, seed=seed)
    out_dir = Path(out_dir)
    (out_dir / "figures").mkdir(parents=True, exist_ok=True)
    (out_dir / "metrics").mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}

    ranking = summary.agents["agent"].to_list()
    figures = {
        "pass_at_1": ("pass@1 per agent", plot_pass_at_1(summary.agents)),
        "heatmap": ("pass@1 by task kind and scan quality", plot_heatmap(summary.heatmap)),
        "causes": ("Failure causes per agent", plot_causes(summary.causes, ranking)),
        "cost": ("Accuracy against cost", plot_cost(summary.agents)),
    }
    for name, (_, png) in figures.items():
        path = out_dir / "figures" / f"{name}.png"
        path.write_bytes(png)
        paths[f"figure_{name}"] = path
    for name in ("agents", "comparisons", "breakdowns", "heatmap", "causes", "ceiling"):
        path = out_dir / "metrics" / f"{name}.parquet"
        getattr(summary, name).write_parquet(path)
        paths[f"metrics_{name}"] = path

    k = summary.k
    sections: list[tuple[str, str, pl.DataFrame | None, str | None]] = [
        (
            "Agents",
            f"pass@1 is the share of attempts that pass; pass@{k} and pass^{k} use the "
            f"unbiased estimators over each task's attempts. Intervals: 95% bootstrap over tasks, "
            f"{summary.n_resamples} resamples, seed {summary.seed}.",
            _agent_rows(summary),
            "pass_at_1",
        ),
        (
            "Adjacent agents",
            "Paired bootstrap over the tasks both agents attempted; p-values "
            "Holm-corrected across the comparisons.",
            _comparison_rows(summary),
            None,
        ),
        (
            "Ceilings",
            "Majority vote over every attempt of every agent, and the share of tasks "
            "any attempt solved.",
            _ceiling_rows(summary),
            None,
        ),
        ("By task kind", "", _breakdown_rows(summary, "kind"), "heatmap"),
        ("By scan quality", "", _breakdown_rows(summary, "quality"), None),
        ("Multi-document", "", _breakdown_rows(summary, "multi_document"), None),
        (
            "Failure causes",
            "Attempts that failed, by the most specific cause.",
            _cause_rows(summary),
            "causes",
        ),
        ("Cost", "", None, "cost"),
    ]
    problems = run.problems
    intro = (
        f"Release `{run.release_dir}`, responses `{run.responses}`: "
        f"{run.verdicts.height} attempts graded from {len(ranking)} agents over "
        f"{run.tasks.height} tasks; {problems.height} lines not graded."
    )
    markdown = ["# Grading report", "", intro, ""]
    page = [f"<h1>Grading report</h1><p>{html.escape(intro)}</p>"]
    for title, text, table, figure in sections:
        markdown += [f"## {title}", ""]
        page.append(f"<h2>{html.escape(title)}</h2>")
        if text:
            markdown += [text, ""]
            page.append(f"<p>{html.escape(text)}</p>")
        if table is not None:
            markdown += [markdown_table(table), ""]
            page.append(html_table(table))
        if figure is not None:
            caption, png = figures[figure]
            markdown += [f"![{caption}](figures/{figure}.png)", ""]
            encoded = base64.b64encode(png).decode("ascii")
            page.append(
                f'<figure><img alt="{html.escape(caption)}" '
                f'src="data:image/png;base64,{encoded}"><figcaption>'
                f"{html.escape(caption)}</figcaption></figure>"
            )
    if problems.height:
        shown = problems.head(50).with_columns(pl.all().cast(pl.String).fill_null("–"))
        note = f"{problems.height} lines not graded (first 50 shown; all in problems.parquet)."
        markdown += ["## Lines not graded", "", note, "", markdown_table(shown), ""]
        page += ["<h2>Lines not graded</h2>", f"<p>{html.escape(note)}</p>", html_table(shown)]

    paths["markdown"] = out_dir / "report.md"
    paths["markdown"].write_text("\n".join(markdown), encoding="utf-8")
    paths["html"] = out_dir / "report.html"
    paths["html"].write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Grading report</title>"
        f"<style>{_STYLE}</style></head><body>{''.join(page)}</body></html>",
        encoding="utf-8",
    )
    return paths
