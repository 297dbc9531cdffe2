"""Runs one call on a conformance fixture N times, for instruction counts.

Under callgrind, a call's cost is the difference between two runs divided by
the difference in N (start-up cancels out)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python sdk-python/tools/repeat_call.py api_response loads 21

Modes: ``loads`` and ``dumps`` (flexbuf), ``orjson`` and ``orjson_dumps``.
Python's garbage collector is off while the calls run, as in bench.py.
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import orjson

import flexbuf

FIXTURES = Path(__file__).resolve().parents[2] / "conformance" / "fixtures"


def main() -> None:
    name, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    text = (FIXTURES / f"{name}.json").read_bytes()
    obj = orjson.loads(text)
    fb = flexbuf.dumps(obj)
    call = {
        "loads": lambda: flexbuf.loads(fb),
        "dumps": lambda: flexbuf.dumps(obj),
        "orjson": lambda: orjson.loads(text),
        "orjson_dumps": lambda: orjson.dumps(obj),
    }[mode]
    gc.disable()
    for _ in range(n):
        call()


if __name__ == "__main__":
    main()
