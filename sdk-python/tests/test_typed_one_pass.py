"""Generated ``decode`` reads untrusted bytes in one checked pass; ``strict=True`` verifies first.

The contract, as for the Rust generated ``from_flex``: for every buffer that
``flexbuf.validate`` accepts, both return the same value or raise the same
error (class, kind and path); for any bytes, only ``flexbuf.FlexError``
subclasses are raised. Checked on the typed cases, the fixture goldens, the
invalid corpus and seeded random mutations of all of them, as every type.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import flexbuf
from conftest import CONFORMANCE

Outcome = tuple[str, Any]


def outcome(decode: Callable[[bytes], Any], data: bytes) -> Outcome:
    try:
        value = decode(data)
    except flexbuf.FlexError as e:
        return ("error", (type(e).__name__, e.kind, e.path))
    # Compared by re-encoding: equal values write equal bytes.
    return ("value", value.encode())


def mutations(data: bytes, rng: random.Random, rounds: int) -> Iterator[bytes]:
    n = len(data)
    if n == 0:
        return
    for _ in range(rounds):
        m = bytearray(data)
        kind = rng.randrange(5)
        if kind == 0 and n > 1:
            del m[rng.randrange(1, n) :]  # truncation
        elif kind == 1:
            for _ in range(rng.randrange(1, 4)):
                m[rng.randrange(n)] = rng.randrange(256)  # byte noise
        elif kind == 2:
            i = rng.randrange(n)
            m[i] = (m[i] + rng.choice([-8, -2, -1, 1, 2, 8])) & 0xFF  # bent offset or size
        elif kind == 3:
            m[-1] = rng.choice([1, 2, 4, 8, 3, 0])  # root width
        else:
            i, j = rng.randrange(n), rng.randrange(n)
            span = m[i : i + rng.randrange(1, 9)]
            m[j : j + len(span)] = span  # a run copied elsewhere
        yield bytes(m)


def check(label: str, cls: Any, data: bytes) -> None:
    one = outcome(lambda d: cls.decode(d), data)
    strict = outcome(lambda d: cls.decode(d, strict=True), data)
    try:
        flexbuf.validate(data)
        valid = True
    except flexbuf.ValidationError:
        valid = False
    if valid:
        assert one == strict, f"{label}: one-pass {one!r} != strict {strict!r}"
    else:
        assert strict[0] == "error", f"{label}: strict decode accepted an invalid buffer"


def roots(module: ModuleType) -> list[Any]:
    return [getattr(module, n) for n in module.__all__ if hasattr(getattr(module, n), "decode")]


@pytest.fixture(scope="module")
def classes(fixture_models: dict[str, ModuleType], defects: ModuleType, arrays: ModuleType) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for stem, module in fixture_models.items():
        for cls in roots(module):
            out[f"{stem}.{cls.__name__}"] = cls
    for module in (defects, arrays):
        for cls in roots(module):
            out[f"{module.__name__}.{cls.__name__}"] = cls
    return out


def test_typed_cases_and_their_mutations(classes: dict[str, Any], fixture_models: dict[str, ModuleType],
                                         defects: ModuleType, arrays: ModuleType) -> None:
    by_schema = {"typed/schemas/defects.fxs": defects, "typed/schemas/arrays.fxs": arrays}
    by_schema.update({f"schemas/{s}.fxs": m for s, m in fixture_models.items()})
    rng = random.Random(0x5EED)
    checked = 0
    for path in sorted((CONFORMANCE / "typed").glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            module = by_schema.get(case["schema"])
            if module is None or "input" not in case:
                continue
            cls = getattr(module, case["type"].rsplit(".", 1)[-1])
            data = bytes.fromhex(case["input"])
            check(case["name"], cls, data)
            for k, m in enumerate(mutations(data, rng, 40)):
                check(f"{case['name']} mutation {k}", cls, m)
                checked += 1
    assert checked > 2000


def test_fixture_goldens_and_their_mutations(fixture_models: dict[str, ModuleType]) -> None:
    rng = random.Random(0xF1C7)
    for golden in sorted((CONFORMANCE / "typed/goldens").glob("*.bin")):
        stem = golden.name.split(".")[0]
        data = golden.read_bytes()
        for cls in roots(fixture_models[stem]):
            check(golden.name, cls, data)
            for k, m in enumerate(mutations(data, rng, 8 if len(data) > 50_000 else 30)):
                check(f"{golden.name} as {cls.__name__} mutation {k}", cls, m)


def test_the_invalid_corpus_as_every_type(classes: dict[str, Any]) -> None:
    files = sorted((CONFORMANCE / "invalid").glob("*.bin"))
    assert len(files) > 200
    rng = random.Random(0x1A7)
    for path in files:
        data = path.read_bytes()
        for name, cls in classes.items():
            check(f"{path.name} as {name}", cls, data)
            if len(data) <= 4096:
                for k, m in enumerate(mutations(data, rng, 2)):
                    check(f"{path.name} as {name} mutation {k}", cls, m)


def test_a_map_containing_itself_ends_at_the_depth_limit(fixture_models: dict[str, ModuleType]) -> None:
    # {"child": <this same map>}: the key, its keys vector [1, 7], the map
    # (keys offset 1, key width 1, length 1, one value at offset 0 = itself,
    # type byte map/8-bit) and the root (offset 2, map, width 1).
    data = b"child\0" + bytes([1, 7, 1, 1, 1, 0, 36, 2, 36, 1])
    with pytest.raises(flexbuf.ValidationError) as invalid:
        flexbuf.validate(data)
    assert invalid.value.kind == "Cycle"
    level = fixture_models["deep_nesting"].DeepLevel
    with pytest.raises(flexbuf.FlexError) as e:
        level.decode(data)
    assert e.value.kind == "DepthLimit", e.value
    assert e.value.path is not None and e.value.path.startswith("$.child.child"), e.value.path


def test_strict_refuses_what_the_one_pass_never_reads(defects: ModuleType) -> None:
    # An unknown field whose string is not UTF-8: never read by the one pass.
    good = flexbuf.dumps({"id": 7, "zz": "ok"})
    bad = good.replace(b"ok", b"\xff\xfe")
    assert defects.Profile.decode(bad).id == 7
    with pytest.raises(flexbuf.ValidationError):
        defects.Profile.decode(bad, strict=True)


def swap_root_keys(data: bytes, a: int, b: int) -> bytes:
    """``data`` with key slots ``a`` and ``b`` of its root map pointing at each
    other's key (1-byte offsets): the keys out of order, each value in place."""
    width, packed = data[-1], data[-2]
    assert width == 1 and packed >> 2 == 9  # a map at 1-byte width
    root = len(data) - 3
    values = root - data[root]
    keys_at = values - 3 - data[values - 3]  # the keys offset field is 3 slots before the values
    out = bytearray(data)
    target = {i: keys_at + i - data[keys_at + i] for i in (a, b)}
    out[keys_at + a] = keys_at + a - target[b]
    out[keys_at + b] = keys_at + b - target[a]
    return bytes(out)


def test_keys_out_of_order_are_refused_not_read_as_absent(defects: ModuleType) -> None:
    # Found by the typed agreement: a map whose layout was not proven was read
    # by binary search over keys never checked, so with keys out of order the
    # search missed keys that were there and their fields took their defaults.
    data = flexbuf.dumps({"age": 30, "id": 7, "note": "x"})
    p = defects.Profile.decode(data)
    assert (p.id, p.age, p.note) == (7, 30, "x")
    unsorted = swap_root_keys(data, 0, 2)  # keys "note", "id", "age"
    with pytest.raises(flexbuf.ValidationError) as invalid:
        flexbuf.validate(unsorted)
    assert invalid.value.kind == "UnsortedKeys"
    with pytest.raises(flexbuf.FlexError) as e:
        defects.Profile.decode(unsorted)
    assert e.value.kind == "UnsortedKeys"
