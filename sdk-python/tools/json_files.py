"""Times ``flexbuf.loads`` and ``flexbuf.dumps`` against orjson and msgspec
on JSON files given on the command line (any size), such as the public
benchmark documents ``canada.json``, ``citm_catalog.json`` and
``twitter.json`` (the ``data/`` directory of serde-rs/json-benchmark)::

    .venv/bin/python sdk-python/tools/json_files.py canada.json twitter.json

Each file is parsed by orjson and encoded by ``flexbuf.dumps``; then 9
rounds time 3 calls of every contender in turn (CPU time), and the medians
per call are printed with ``loads`` against ``orjson.loads`` (of the JSON
text), ``dumps`` against ``msgspec.json.encode``, and ``dumps`` plus
``loads`` against orjson's pair: peer time / flexbuf time. Run it on a
quiet machine, twice, and quote it only when the runs agree.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Callable

import msgspec
import orjson

import flexbuf


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: json_files.py <file.json>...")
    encoder = msgspec.json.Encoder()
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            text = f.read()
        value = orjson.loads(text)
        data = flexbuf.dumps(value)
        contenders: dict[str, Callable[[], Any]] = {
            "flexbuf.loads": lambda: flexbuf.loads(data),
            "orjson.loads": lambda: orjson.loads(text),
            "flexbuf.dumps": lambda: flexbuf.dumps(value),
            "orjson.dumps": lambda: orjson.dumps(value),
            "msgspec.json.encode": lambda: encoder.encode(value),
        }
        times: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(9):
            for name, call in contenders.items():
                start = time.process_time()
                for _ in range(3):
                    call()
                times[name].append((time.process_time() - start) / 3 * 1e3)
        m = {name: statistics.median(t) for name, t in times.items()}
        pair = (m["orjson.loads"] + m["orjson.dumps"]) / (m["flexbuf.loads"] + m["flexbuf.dumps"])
        print(
            f"{path}: "
            + ", ".join(f"{name} {ms:.3f} ms" for name, ms in m.items())
            + f" | loads vs orjson {m['orjson.loads'] / m['flexbuf.loads']:.2f}x,"
            f" dumps vs msgspec.json {m['msgspec.json.encode'] / m['flexbuf.dumps']:.2f}x,"
            f" pair vs orjson {pair:.2f}x"
        )


if __name__ == "__main__":
    main()
