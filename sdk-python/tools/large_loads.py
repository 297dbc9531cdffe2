"""Times ``flexbuf.loads`` against ``orjson.loads`` on large documents.

The conformance fixtures are all below 1 MiB; this builds larger ones from
api_response's records (its ``items`` repeated 30, 100 and 300 times: 1.2,
3.9 and 11.6 MB as FlexBuffers) and prints the median CPU time of each
decoder and their ratio (orjson time / flexbuf time), both decoding the same
data, orjson from its JSON text::

    .venv/bin/python sdk-python/tools/large_loads.py

Run it on a quiet machine, twice, and quote it only when the runs agree.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from pathlib import Path
from typing import Any, Callable

import orjson

import flexbuf

ROOT = Path(__file__).resolve().parents[2]


def median_time(f: Callable[[], Any], calls: int) -> float:
    """The median CPU time of `calls` calls of `f`, in seconds."""
    times = []
    for _ in range(calls):
        start = time.process_time()
        f()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    base = json.loads((ROOT / "conformance/fixtures/api_response.json").read_text())
    for times in (30, 100, 300):
        doc = dict(base)
        doc["items"] = base["items"] * times
        text = orjson.dumps(doc)
        data = flexbuf.dumps(doc)
        assert flexbuf.loads(data) == orjson.loads(text)
        ours, peer = [], []
        gc.disable()
        try:
            # Interleaved, so a change of the machine's speed hits both.
            for _ in range(5):
                ours.append(median_time(lambda: flexbuf.loads(data), 3))
                peer.append(median_time(lambda: orjson.loads(text), 3))
        finally:
            gc.enable()
        o, p = statistics.median(ours), statistics.median(peer)
        print(
            f"api_response x{times}: flexbuf {len(data) / 1e6:.1f} MB in {o * 1e3:.1f} ms, "
            f"orjson {len(text) / 1e6:.1f} MB of JSON in {p * 1e3:.1f} ms: {p / o:.2f}x"
        )


if __name__ == "__main__":
    main()
