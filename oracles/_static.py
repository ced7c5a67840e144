"""The static check an oracle passes before it is ever run: an AST allow-list.

Oracle code is untrusted (template or LLM drafted). It may import only the modules
below, may not name the builtins that reach the interpreter or the file system, and
may not touch any name or attribute starting with ``_`` (the dunder escapes such as
``().__class__.__base__.__subclasses__()``) or the frame / code / traceback
attributes (``gi_frame.f_back.f_globals``) that lead out of the restricted globals.
Every violation is reported with its rule and line; the oracle is then never run.

The check walks the syntax tree without recursion, so a legal but deeply nested program
(``x = 1 + 1 + ... + 1``) is checked like any other, and it never raises: a source that
is not text, or any failure of the check itself, is a violation of its own.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

ALLOWED_MODULES = frozenset({"decimal", "math", "fractions", "statistics", "oracles.api"})

FORBIDDEN_NAMES = frozenset(
    {
        "eval", "exec", "compile", "open", "__import__", "globals", "locals", "getattr",
        "setattr", "delattr", "vars", "input", "breakpoint", "dir", "help", "exit", "quit",
        "memoryview",
    }
)  # fmt: skip

# Attributes without an underscore that still lead to frames, code objects or the
# globals of other modules: generator / coroutine / frame / traceback / code fields.
INTROSPECTION_PREFIXES = ("gi_", "cr_", "ag_", "f_", "tb_", "co_")
# str.format reads attributes by name at run time ("{0.__class__}"), out of the AST's sight.
INTROSPECTION_ATTRIBUTES = frozenset({"format", "format_map", "mro"})

MAX_SOURCE_CHARS = 100_000


@dataclass(frozen=True)
class Violation:
    """One broken rule of the static check."""

    rule: str  # syntax | too-large | too-deep | not-text | static-check-failed |
    # import-not-allowed | relative-import | star-import | forbidden-name | underscore-name |
    # underscore-attribute | introspection-attribute | attribute-assignment
    line: int
    detail: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.rule}: {self.detail}"


class _Checker:
    """Per-node rules. :meth:`run` visits every node of the tree with ``ast.walk`` (an
    explicit queue, no recursion); each ``visit_<Node>`` looks at its own node only."""

    def __init__(self) -> None:
        self.found: list[tuple[int, int, Violation]] = []

    def run(self, tree: ast.AST) -> list[Violation]:
        for node in ast.walk(tree):
            visit = getattr(self, f"visit_{type(node).__name__}", None)
            if visit is not None:
                visit(node)
        return [v for _, _, v in sorted(self.found, key=lambda f: (f[0], f[1]))]

    def flag(self, node: ast.AST, rule: str, detail: str) -> None:
        line, col = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
        self.found.append((line, col, Violation(rule, line, detail)))

    def name(self, node: ast.AST, name: str | None, what: str) -> None:
        if name is None:
            return
        if name in FORBIDDEN_NAMES:
            self.flag(node, "forbidden-name", f"{what} {name!r} is not allowed in an oracle")
        elif name.startswith("_"):
            self.flag(node, "underscore-name", f"{what} {name!r} starts with an underscore")

    def attribute(self, node: ast.AST, attr: str) -> None:
        if attr.startswith("_"):
            self.flag(node, "underscore-attribute", f"attribute {attr!r} starts with '_'")
        elif attr.startswith(INTROSPECTION_PREFIXES) or attr in INTROSPECTION_ATTRIBUTES:
            self.flag(node, "introspection-attribute", f"attribute {attr!r} is not allowed")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in ALLOWED_MODULES:
                self.flag(node, "import-not-allowed", f"import {alias.name}")
            self.name(node, alias.asname, "import alias")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.flag(node, "relative-import", f"relative import from {node.module or '.'}")
        elif node.module not in ALLOWED_MODULES:
            self.flag(node, "import-not-allowed", f"from {node.module} import ...")
        for alias in node.names:
            if alias.name == "*":
                self.flag(node, "star-import", f"from {node.module} import *")
            else:
                self.name(node, alias.name, "imported name")
            self.name(node, alias.asname, "import alias")

    def visit_Name(self, node: ast.Name) -> None:
        self.name(node, node.id, "name")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.attribute(node, node.attr)
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            # Setting attributes is how module state is swapped (api.emit = ...,
            # getcontext().prec = ...); an oracle only reads and computes.
            self.flag(node, "attribute-assignment", f"assigning or deleting .{node.attr}")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.name(node, node.name, "function")

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.name(node, node.name, "class")

    def visit_arg(self, node: ast.arg) -> None:
        self.name(node, node.arg, "argument")

    def visit_keyword(self, node: ast.keyword) -> None:
        self.name(node, node.arg, "keyword")

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.name(node, node.name, "exception name")

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        for name in node.names:
            self.name(node, name, "name")

    visit_Nonlocal = visit_Global

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self.name(node, node.name, "pattern name")

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        self.name(node, node.name, "pattern name")

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.name(node, node.rest, "pattern name")

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        # `case C(__class__=x)` reads attributes by name, like getattr.
        for attr in node.kwd_attrs:
            self.attribute(node, attr)


def check_source(source: str) -> list[Violation]:
    """Every static rule the oracle source breaks (empty when it may run). Never raises."""
    if not isinstance(source, str):
        return [Violation("not-text", 0, f"the source is {type(source).__name__}, not text")]
    try:
        return _check(source)
    except Exception as err:  # noqa: BLE001 - a failing check rejects the oracle, never the batch
        return [Violation("static-check-failed", 0, f"{type(err).__name__}: {err}"[:500])]


def _check(source: str) -> list[Violation]:
    if len(source) > MAX_SOURCE_CHARS:
        return [Violation("too-large", 0, f"{len(source)} characters > {MAX_SOURCE_CHARS}")]
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as err:
        return [Violation("syntax", err.lineno or 0, err.msg)]
    except ValueError as err:  # e.g. null bytes in the source
        return [Violation("syntax", 0, str(err))]
    except RecursionError as err:  # nesting deeper than the parser itself takes
        return [Violation("too-deep", 0, f"the parser gave up: {err}")]
    return _Checker().run(tree)
