"""Times ``flexbuf.dumps`` and ``flexbuf.loads`` on documents of many keys.

The conformance fixtures hold records of a few recurring shapes. Real data
also has dicts keyed by ids (one dict of many keys, or a small dict of keys
of its own in each record), which take other paths: every key is new to the
key pool, the map sort runs on thousands of keys, and no dict shape recurs.
This builds four such documents and prints the median CPU time per call of
``dumps`` against ``msgspec.json.encode`` and of ``loads`` against
``orjson.loads`` (of the JSON text), as peer time / flexbuf time::

    .venv/bin/python sdk-python/tools/large_dicts.py

- ``ids_50k``: one dict of 50,000 keys ``key<n>`` in scrambled order;
- ``ids_50k_sorted``: the same keys, inserted in byte order;
- ``records_5k``: one dict of 5,000 ids, each to a record of 3 fields;
- ``one_off_5k``: a list of 5,000 dicts of two keys of their own.

Each call of a document encodes it again into the memory of the call before
it (the builder keeps a large buffer's memory while calls stay large). Nine
rounds time 3 calls of each contender in turn. Run it on a quiet machine,
twice, and quote it only when the runs agree.
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any, Callable

import msgspec
import orjson

import flexbuf


def documents() -> dict[str, Any]:
    """The four documents, by name."""
    return {
        "ids_50k": {f"key{(i * 7919) % 50000}": i for i in range(50000)},
        "ids_50k_sorted": {f"key{i:05d}": i for i in range(50000)},
        "records_5k": {f"id{i}": {"name": f"n{i}", "v": i, "ok": True} for i in range(5000)},
        "one_off_5k": [{f"a{i}": i, f"b{i}": "x"} for i in range(5000)],
    }


def per_call(f: Callable[[], Any]) -> float:
    """CPU seconds of one call of `f`, over three calls."""
    start = time.process_time()
    for _ in range(3):
        f()
    return (time.process_time() - start) / 3


def main() -> None:
    for name, doc in documents().items():
        data = flexbuf.dumps(doc)
        text = orjson.dumps(doc)
        assert flexbuf.loads(data) == doc
        contenders = {
            "dumps": lambda: flexbuf.dumps(doc),
            "msgspec": lambda: msgspec.json.encode(doc),
            "loads": lambda: flexbuf.loads(data),
            "orjson.loads": lambda: orjson.loads(text),
        }
        times: dict[str, list[float]] = {k: [] for k in contenders}
        gc.disable()
        try:
            for _ in range(9):
                for k, f in contenders.items():
                    times[k].append(per_call(f))
        finally:
            gc.enable()
        m = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        print(
            f"{name}: dumps {m['dumps']:.2f} ms, msgspec.json.encode {m['msgspec']:.2f} ms "
            f"({m['msgspec'] / m['dumps']:.2f}x); loads {m['loads']:.2f} ms, "
            f"orjson.loads {m['orjson.loads']:.2f} ms ({m['orjson.loads'] / m['loads']:.2f}x)"
        )


if __name__ == "__main__":
    main()
