"""Which model plays each role of a build: drafter, rewriter, solver, judge.

Each role is chosen by a string: ``template`` (the deterministic, offline default where one
exists), ``none`` (the role is skipped), ``openai:MODEL`` or ``anthropic:MODEL``. A value
set on the Dagster resource wins, then the environment (``LEDGERFORGE_DRAFTER``,
``LEDGERFORGE_REWRITER``, ``LEDGERFORGE_SOLVER``, ``LEDGERFORGE_JUDGE``), then the default.
``LEDGERFORGE_LLM_BUDGET`` caps the money a build may spend on model calls (US dollars;
unset: no cap). A missing API key is found here, before any stage runs, and the error
names the variable to set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from pipeline.llm.errors import KEY_VARS, MissingKey
from pipeline.llm.spec import ModelSpec, is_llm_choice

# role -> (environment variable, default choice)
ROLES: dict[str, tuple[str, str]] = {
    "drafter": ("LEDGERFORGE_DRAFTER", "template"),
    "rewriter": ("LEDGERFORGE_REWRITER", "none"),
    "solver": ("LEDGERFORGE_SOLVER", "none"),
    "judge": ("LEDGERFORGE_JUDGE", "template"),
}
BUDGET_ENV = "LEDGERFORGE_LLM_BUDGET"
BUDGET_ENV_USD = "LEDGERFORGE_LLM_BUDGET_USD"  # the LLM layer's own name, also read
OFFLINE = ("template", "none")


class RoleError(ValueError):
    """A role's choice is not ``template``, ``none`` or ``provider:model``."""


def check_choice(role: str, value: str) -> str:
    """``value`` normalized (offline choices lower-cased), or :class:`RoleError`."""
    if role not in ROLES:
        raise RoleError(f"unknown role {role!r}; roles are {', '.join(ROLES)}")
    text = (value or "").strip()
    if text.lower() in OFFLINE:
        return text.lower()
    if is_llm_choice(text):
        return str(ModelSpec.parse(text))
    env, _ = ROLES[role]
    raise RoleError(
        f"{role} choice {value!r} (resource field {role!r} or {env}) is not 'template', "
        "'none', 'openai:MODEL' or 'anthropic:MODEL'"
    )


def role_choice(role: str, configured: str | None = "", environ: Mapping | None = None) -> str:
    """The choice for ``role``: configured value, else its environment variable (of
    ``environ``, default ``os.environ``), else the default."""
    var, default = ROLES[role]
    environ = os.environ if environ is None else environ
    return check_choice(role, configured or environ.get(var, "") or default)


def llm_budget(configured: str | float | None = "", environ: Mapping | None = None) -> float | None:
    """The budget cap in US dollars, or None for no cap."""
    environ = os.environ if environ is None else environ
    text = str(configured).strip() if configured not in (None, "") else ""
    text = text or environ.get(BUDGET_ENV, "").strip()
    text = text or environ.get(BUDGET_ENV_USD, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise RoleError(f"LLM budget {text!r} ({BUDGET_ENV}) is not a number of dollars") from None
    if value < 0:
        raise RoleError(f"LLM budget {value} ({BUDGET_ENV}) is negative")
    return value


def check_keys(choices: dict[str, str], environ: Mapping | None = None) -> None:
    """:class:`MissingKey` naming the variable when a chosen model's API key is unset."""
    environ = os.environ if environ is None else environ
    for role, choice in choices.items():
        if not is_llm_choice(choice):
            continue
        spec = ModelSpec.parse(choice)
        var = KEY_VARS[spec.provider]
        if not environ.get(var, "").strip():
            raise MissingKey(f"{role} {choice} needs the API key in {var}, which is not set")
