"""Hostile input stays bounded: DAG bombs and 1,000-deep nesting end in a clean
error within a second and a memory limit (issue 18).

Each attempt runs in a fresh interpreter, so its peak resident memory
(``ru_maxrss``) is its own and not the test session's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

INVALID = Path(__file__).resolve().parents[2] / "conformance" / "invalid"
DAG_BOMBS = sorted(p.name for p in INVALID.glob("dag_bomb_*.bin"))
SECONDS = 1.0
# Peak RSS growth allowed over the interpreter with flexbuf imported.
MEGABYTES = 64

CHILD = r"""
import json, resource, sys, time
import flexbuf

def peak_kb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

kind, arg = sys.argv[1], sys.argv[2]
if kind == "file":
    data = open(arg, "rb").read()
    deep = None
else:
    data = None
    deep = int(arg)
calls = {
    "file": [
        ("validate", lambda: flexbuf.validate(data)),
        ("loads", lambda: flexbuf.loads(data)),
        ("to_json", lambda: flexbuf.to_json(data)),
        ("read().to_python", lambda: flexbuf.read(data).to_python()),
        ("read(verify=True).to_python", lambda: flexbuf.read(data, verify=True).to_python()),
    ],
    "json": [("from_json", lambda: flexbuf.from_json("[" * deep + "]" * deep))],
    "dumps": [],
}[kind]
if kind == "dumps":
    obj = []
    for _ in range(deep):
        obj = [obj]
    calls.append(("dumps", lambda: flexbuf.dumps(obj)))
base = peak_kb()
out = []
for name, call in calls:
    start = time.perf_counter()
    try:
        call()
        outcome = "ok"
    except flexbuf.FlexError as e:
        outcome = type(e).__name__ + ":" + e.kind
    except BaseException as e:  # anything else is a failure of the test
        outcome = "FOREIGN " + type(e).__name__ + ": " + str(e)[:200]
    out.append({"call": name, "outcome": outcome, "seconds": time.perf_counter() - start})
print(json.dumps({"calls": out, "grew_kb": peak_kb() - base}))
"""


def attempt(kind: str, arg: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, kind, arg], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result: dict = json.loads(proc.stdout)
    assert result["grew_kb"] < MEGABYTES * 1024, result
    for call in result["calls"]:
        assert call["seconds"] < SECONDS, call
        assert not call["outcome"].startswith("FOREIGN"), call
    return {c["call"]: c["outcome"] for c in result["calls"]}


@pytest.mark.parametrize("name", DAG_BOMBS)
def test_dag_bomb_expansion_fails_on_the_budget(name: str) -> None:
    outcomes = attempt("file", str(INVALID / name))
    assert outcomes["validate"] == "ok"  # the buffer is valid; only expansion is refused
    for call in ("loads", "to_json", "read().to_python", "read(verify=True).to_python"):
        assert outcomes[call] == "BudgetError:BudgetExceeded", (call, outcomes)


def test_dag_bombs_exist() -> None:
    assert len(DAG_BOMBS) >= 5


def test_a_buffer_nested_1000_deep_is_rejected() -> None:
    outcomes = attempt("file", str(INVALID / "depth_bomb_1000_vectors.bin"))
    for call in ("validate", "loads", "to_json", "read(verify=True).to_python"):
        assert outcomes[call] == "ValidationError:DepthLimit", (call, outcomes)
    # The lazy reader checks what it reads; expanding must stop with a flexbuf error.
    assert outcomes["read().to_python"] != "ok", outcomes


def test_json_nested_1000_deep_is_rejected() -> None:
    outcomes = attempt("json", "1000")
    assert outcomes["from_json"] == "JsonError:DepthLimit", outcomes


def test_python_objects_nested_1000_deep_are_refused() -> None:
    outcomes = attempt("dumps", "1000")
    assert outcomes["dumps"] == "EncodeError:DepthLimit", outcomes
