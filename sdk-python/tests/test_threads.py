"""Concurrent use from threads: loads, validate, read and typed decode."""

from __future__ import annotations

import threading
from types import ModuleType

import flexbuf
from conftest import fixture

THREADS = 8


def run_all(work: list[object]) -> None:
    errors: list[BaseException] = []

    def body(fn: object) -> None:
        try:
            for _ in range(20):
                fn()  # type: ignore[operator]
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(w,)) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_loads_and_validate_from_8_threads() -> None:
    small = flexbuf.dumps(fixture("api_response"))
    # Large enough that verification runs with the GIL released.
    large = flexbuf.dumps({"rows": [fixture("repeated_maps")] * 2})
    assert len(large) >= 64 * 1024
    want_small = flexbuf.loads(small)
    want_large = flexbuf.loads(large)

    def a() -> None:
        assert flexbuf.loads(small) == want_small

    def b() -> None:
        flexbuf.validate(large)

    def c() -> None:
        assert flexbuf.loads(bytearray(large)) == want_large

    def d() -> None:
        assert flexbuf.read(large, verify=True)["rows"][1]["rows"][5].to_python() == want_large["rows"][1]["rows"][5]

    run_all([a, b, c, d, a, b, c, d][:THREADS])


def test_typed_decode_and_encode_from_8_threads(defects: ModuleType) -> None:
    d = defects
    order = d.Order(id=1, items=[d.Item(sku=str(i), seller=d.Seller(id=i, name="n")) for i in range(50)])
    data = order.encode()

    def dec() -> None:
        assert d.Order.decode(data) == order

    def enc() -> None:
        assert order.encode() == data

    run_all([dec, enc] * (THREADS // 2))
