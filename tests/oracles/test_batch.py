"""One oracle never takes the batch down: any exception while checking, sending or running
one oracle becomes that oracle's failure status with a reason, and the batch goes on."""

from __future__ import annotations

import sys
import textwrap

import pytest

from oracles import sandbox
from oracles.sandbox import check_source, run_oracles

GOOD = textwrap.dedent(
    """
    from oracles.api import table_cell, emit

    a = table_cell(doc="d0c1", page=3, table=0, row="Individual income tax", col="1949")
    b = table_cell(doc="d0c1", page=3, table=0, row="Excise taxes", col="1949")
    emit(answer=a - b, places=0, unit="millions of dollars")
    """
)

NESTED_500 = "from oracles.api import emit, D\nx = " + " + ".join(["D(1)"] * 500) + "\nemit(x, 0)\n"
PLAIN_500 = "x = 1" + " + 1" * 499 + "\n"
# Legal Python that the parser itself cannot take (it recurses too deep).
NESTED_5000 = "x = 1" + " + 1" * 5000 + "\n"
# Passes the parser, but not the compiler in the child.
SUBSCRIPTS_2000 = "x = [0]" + "[0]" * 2000 + "\n"

PATHOLOGICAL_SOURCES = {
    "sum_500": PLAIN_500,
    "sum_5000": NESTED_5000,
    "nested_parentheses": "x = " + "(" * 300 + "1" + ")" * 300 + "\n",
    "nested_lists": "x = " + "[" * 150 + "]" * 150 + "\n",
    "nested_calls": "x = " + "abs(" * 180 + "1" + ")" * 180 + "\n",
    "nested_ifs": "".join("    " * i + "if 1:\n" for i in range(90)) + "    " * 90 + "x = 1\n",
    "nested_subscripts": SUBSCRIPTS_2000,
    "nested_attribute_chain": "x = abs" + ".real" * 3000 + "\n",
    "null_byte": "x = 1\x00\n",
    "lone_surrogate": "x = '\ud800'\n",
    "bytes": b"x = 1\n",
    "none": None,
    "int": 7,
    "empty": "",
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL_SOURCES))
def test_the_static_check_never_raises(name):
    violations = check_source(PATHOLOGICAL_SOURCES[name])
    assert isinstance(violations, list)
    for v in violations:
        assert v.rule and v.detail


def test_a_deep_but_legal_expression_passes_the_static_check():
    assert check_source(NESTED_500) == []
    assert check_source(PLAIN_500) == []


def test_the_static_check_still_sees_violations_deep_inside():
    hidden = "x = " + " + ".join(["1"] * 400) + " + eval('1') + (1).__class__\n"
    rules = {v.rule for v in check_source(hidden)}
    assert {"forbidden-name", "underscore-attribute"} <= rules


def test_pathological_oracles_do_not_stop_the_batch(warehouse_dir):
    oracles = {name: source for name, source in PATHOLOGICAL_SOURCES.items()}
    oracles["nested_500_emit"] = NESTED_500
    oracles["good"] = GOOD
    results = run_oracles(oracles, warehouse_dir, workers=2, timeout_s=10, progress=False)
    assert list(results) == list(oracles)
    assert results["good"].answer == "80"
    assert (results["nested_500_emit"].status, results["nested_500_emit"].answer) == ("ok", "500")
    for name in PATHOLOGICAL_SOURCES:
        result = results[name]
        assert result.status in ("rejected", "error"), (name, result)
        assert result.rule and result.error, (name, result)
    assert (results["sum_5000"].status, results["sum_5000"].rule) == ("rejected", "too-deep")
    for name in ("bytes", "none", "int"):
        assert results[name].status == "rejected"
        assert results[name].rule == "not-text"


def test_an_exception_inside_the_static_check_is_that_oracles_failure(warehouse_dir, monkeypatch):
    real = sandbox.check_source

    def flaky(source):
        if "BOOM" in source:
            raise RuntimeError("the checker broke on this one")
        return real(source)

    monkeypatch.setattr(sandbox, "check_source", flaky)
    results = run_oracles(
        {"boom": "x = 'BOOM'\n", "good": GOOD}, warehouse_dir, workers=1, progress=False
    )
    assert results["good"].answer == "80"
    boom = results["boom"]
    assert (boom.status, boom.rule) == ("rejected", "static-check-failed")
    assert "RuntimeError: the checker broke on this one" in boom.error


GARBLED_WORKER = textwrap.dedent(
    """
    import json, sys
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request["source"].startswith("#garbage"):
            print("this is not JSON", flush=True)
        elif request["source"].startswith("#wrong-shape"):
            print(json.dumps([1, 2, 3]), flush=True)
        else:
            print(json.dumps({"task_id": request["task_id"], "status": "ok",
                              "output": {"answer": "1", "interval": ["0.5", "1.5"]}}), flush=True)
    """
)


def test_a_worker_that_answers_garbage_fails_only_that_oracle(warehouse_dir, monkeypatch):
    monkeypatch.setattr(sandbox, "WORKER_COMMAND", [sys.executable, "-c", GARBLED_WORKER])
    oracles = {
        "before": "x = 1\n",
        "garbage": "#garbage\nx = 1\n",
        "wrong_shape": "#wrong-shape\nx = 1\n",
        "after": "x = 2\n",
    }
    results = run_oracles(oracles, warehouse_dir, workers=1, progress=False)
    assert [results[t].answer for t in ("before", "after")] == ["1", "1"]
    for name in ("garbage", "wrong_shape"):
        assert results[name].status == "killed" and results[name].rule == "worker"
        assert "unreadable answer" in results[name].error
