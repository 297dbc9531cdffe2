"""dumps / loads / validate / JSON: the json-like API."""

from __future__ import annotations

import array
import json
import math
import random
import sys

import numpy as np
import pytest

import flexbuf
from conftest import fixture, fixture_names


@pytest.mark.parametrize("name", fixture_names())
def test_fixtures_round_trip_and_match_from_json(name: str) -> None:
    obj = fixture(name)
    data = flexbuf.dumps(obj)
    # The same call sequence as the core's JSON parser: identical bytes.
    assert data == flexbuf.from_json(json.dumps(obj, ensure_ascii=False))
    assert flexbuf.loads(data) == obj
    assert json.loads(flexbuf.to_json(data)) == obj


def test_dicts_of_one_shape_in_any_key_order_encode_as_from_json() -> None:
    # dumps remembers the sorted order of each dict shape (its key objects in
    # insertion order); every shape, order and cache churn must still write
    # the bytes from_json writes for the same text.
    keys = [f"k{(i * 37) % 101:03d}" for i in range(60)]
    rows = []
    for n in (2, 3, 7, 20, 60):
        for rot in range(4):
            ks = keys[:n][rot:] + keys[:n][:rot]
            rows.append({k: i for i, k in enumerate(ks)})
            rows.append({k: i for i, k in enumerate(reversed(ks))})
    # More shapes than the cache holds, each seen twice.
    for s in range(300):
        ks = [f"s{s}_{j}" for j in (3, 1, 2, 0)]
        rows += [{k: s for k in ks}, {k: -s for k in ks}]
    for _ in range(2):
        for row in rows:
            assert flexbuf.dumps(row) == flexbuf.from_json(json.dumps(row)), row
        assert flexbuf.dumps(rows) == flexbuf.from_json(json.dumps(rows))
    # A failure inside a dict leaves nothing behind for the next encode.
    with pytest.raises(flexbuf.EncodeError):
        flexbuf.dumps([{"b": 1, "a": {"y": 2, "x\x00": 3}}])
    assert flexbuf.dumps({"b": 1, "a": {"y": 2, "x": 3}}) == flexbuf.from_json('{"b":1,"a":{"y":2,"x":3}}')



def test_large_and_small_documents_in_turn_encode_as_from_json() -> None:
    # A dumps builder keeps a large document's memory (stack, sort scratch,
    # key pool, buffer) for the next call and gives it back after a small
    # one: whatever it kept, every call writes the bytes from_json writes.
    big = {f"key{i * 7919 % 60000}": [i, f"v{i % 97}"] for i in range(60000)}
    other = {f"k{i * 31 % 40000}": {"n": i} for i in range(40000)}
    small = {"b": [1, 2], "a": {"y": "z"}}
    expected = {id(d): flexbuf.from_json(json.dumps(d)) for d in (big, other, small)}
    for doc in (big, big, other, small, big, small, small, other, big):
        for share in (False, True):
            data = flexbuf.dumps(doc, share_strings=share)
            if not share:
                assert data == expected[id(doc)]
            assert flexbuf.loads(data) == doc

def test_scalars_keep_their_python_types() -> None:
    obj = {
        "none": None,
        "t": True,
        "f": False,
        "i": -5,
        "big": 2**63 - 1,
        "ubig": 2**64 - 1,
        "neg": -(2**63),
        "x": 3.0,
        "pi": math.pi,
        "s": "héllo 😱",
        "b": b"\x00\xff",
        "empty": {},
        "nested": [[], [1, [2.5, "x"]]],
    }
    back = flexbuf.loads(flexbuf.dumps(obj))
    assert back == obj
    assert type(back["x"]) is float and type(back["i"]) is int and back["t"] is True
    assert type(back["b"]) is bytes


def test_tuples_encode_as_vectors_and_enum_ints_as_ints() -> None:
    import enum

    class Color(enum.IntEnum):
        Red = 1

    assert flexbuf.loads(flexbuf.dumps((1, "a", Color.Red))) == [1, "a", 1]


def test_nan_and_infinity_survive_loads_but_not_json() -> None:
    back = flexbuf.loads(flexbuf.dumps([math.nan, math.inf, -math.inf, -0.0]))
    assert math.isnan(back[0]) and back[1] == math.inf and back[2] == -math.inf
    assert math.copysign(1.0, back[3]) == -1.0
    with pytest.raises(flexbuf.JsonError) as e:
        flexbuf.to_json(flexbuf.dumps([math.nan]))
    assert e.value.kind == "NonFiniteFloat"


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview])
def test_inputs_may_be_bytes_bytearray_or_memoryview(wrap: type) -> None:
    data = flexbuf.dumps({"a": [1, 2, 3]})
    assert flexbuf.loads(wrap(data)) == {"a": [1, 2, 3]}
    flexbuf.validate(wrap(data))
    assert flexbuf.read(wrap(data))["a"][2] == 3
    assert flexbuf.to_json(wrap(data)) == '{"a":[1,2,3]}'


def test_non_buffers_are_rejected_with_type_error() -> None:
    with pytest.raises(TypeError, match="expected bytes"):
        flexbuf.loads([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        flexbuf.loads("text")  # type: ignore[arg-type]


def test_ints_beyond_64_bits_raise_overflow_error_naming_the_path() -> None:
    with pytest.raises(OverflowError) as e:
        flexbuf.dumps({"a": [0, {"b c": 2**64}]})
    assert isinstance(e.value, flexbuf.EncodeOverflowError)
    assert isinstance(e.value, flexbuf.FlexError)
    assert e.value.path == '$.a[1]["b c"]'
    # Scalars straight in a list or a dict (written from borrowed references).
    cases: list[tuple[object, str]] = [
        ([0, 1, 2**64], "$[2]"),
        ({"k": 2**70}, "$.k"),
        ([[-(2**64)]], "$[0][0]"),
    ]
    for value, path in cases:
        with pytest.raises(flexbuf.EncodeOverflowError) as e3:
            flexbuf.dumps(value)
        assert e3.value.path == path
    with pytest.raises(flexbuf.EncodeOverflowError):
        flexbuf.dumps(-(2**63) - 1)


def test_unsupported_types_raise_type_error_naming_the_path() -> None:
    with pytest.raises(TypeError) as e:
        flexbuf.dumps({"items": [1, {2, 3}]})
    assert isinstance(e.value, flexbuf.EncodeTypeError)
    assert e.value.path == "$.items[1]"
    assert "set" in str(e.value)
    with pytest.raises(flexbuf.EncodeTypeError) as e2:
        flexbuf.dumps({1: "int key"})
    assert "keys must be str" in str(e2.value)


def test_default_writes_what_it_returns_for_objects_of_other_types() -> None:
    import dataclasses
    import datetime
    import decimal

    @dataclasses.dataclass
    class Point:
        x: int
        y: float

    seen: list[str] = []

    def convert(o: object) -> object:
        seen.append(type(o).__name__)
        if isinstance(o, (datetime.date, datetime.datetime)):
            return o.isoformat()
        if isinstance(o, decimal.Decimal):
            return str(o)
        if isinstance(o, (set, frozenset)):
            return sorted(o)
        if dataclasses.is_dataclass(o) and not isinstance(o, type):
            return dataclasses.asdict(o)
        raise TypeError(f"no conversion for {type(o).__name__}")

    when = datetime.datetime(2026, 12, 6, 7, 30)
    obj = {"at": when, "price": decimal.Decimal("9.99"), "tags": {"b", "a"},
           "points": (Point(1, 2.5), [Point(3, 4.0)]), "plain": [1, "x", None, b"\x00"]}
    converted = {"at": when.isoformat(), "price": "9.99", "tags": ["a", "b"],
                 "points": [{"x": 1, "y": 2.5}, [{"x": 3, "y": 4.0}]], "plain": [1, "x", None, b"\x00"]}
    assert flexbuf.dumps(obj, default=convert) == flexbuf.dumps(converted)
    # Called once for each object of another type, never for the supported ones.
    assert sorted(seen) == ["Decimal", "Point", "Point", "datetime", "set"]
    assert flexbuf.dumps([1, "a", {"k": 2.5}], default=convert) == flexbuf.dumps([1, "a", {"k": 2.5}])
    # What it returns may itself need it again.
    assert flexbuf.dumps([{1, 2}], default=lambda o: frozenset(o) if isinstance(o, set) else sorted(o)) == flexbuf.dumps([[1, 2]])
    # Without it (or with None), the same objects are errors naming the path.
    for kwargs in ({}, {"default": None}):
        with pytest.raises(flexbuf.EncodeTypeError) as e:
            flexbuf.dumps({"at": when}, **kwargs)  # type: ignore[arg-type]
        assert e.value.path == "$.at"
    # Keys are not converted: a map key must be a str.
    with pytest.raises(flexbuf.EncodeTypeError, match="map keys must be str"):
        flexbuf.dumps({1: "x"}, default=str)


def test_dicts_of_every_table_kind_encode_their_current_entries() -> None:
    # dumps reads the entries of a dict of str keys from its table in
    # place: deleted entries (left in the table, empty) are skipped, and
    # dicts of other tables (an instance's __dict__ shares its keys,
    # subclasses) give the same bytes as a plain dict of the same items.
    rng = random.Random(11)
    for n in (1, 2, 5, 9, 40):
        d = {f"k{i}": i for i in range(n)}
        for k in rng.sample(sorted(d), n // 2):
            del d[k]
        d.update({f"late{i}": [i] for i in range(3)})
        if n > 2:
            d.pop(next(iter(d)))
        expected = flexbuf.from_json(json.dumps(d))
        assert flexbuf.dumps(d) == expected
        assert flexbuf.dumps([d, {"in": d}]) == flexbuf.from_json(json.dumps([d, {"in": d}]))

    class Record:
        def __init__(self, i: int) -> None:
            self.name = f"r{i}"
            self.id = i
            self.tags = ["x"] * (i % 3)

    records = [Record(i) for i in range(5)]
    plain = [dict(r.__dict__) for r in records]
    assert flexbuf.dumps([r.__dict__ for r in records]) == flexbuf.dumps(plain)

    class Sub(dict):  # type: ignore[type-arg]
        pass

    assert flexbuf.dumps(Sub(b=1, a=[2])) == flexbuf.dumps({"b": 1, "a": [2]})


def test_a_dict_changed_while_it_is_encoded_is_an_error_not_a_crash() -> None:
    # `default` runs Python code in the middle of a dict; when that code
    # grows, shrinks or empties the dict (replacing its table), the encode
    # stops with Python's own error for a dict changed while iterated.
    class Marker:
        pass

    def grow(d: dict[str, object]) -> object:
        for i in range(100):
            d[f"new{i}"] = i
        return "grown"

    def shrink(d: dict[str, object]) -> object:
        d.pop("z", None)
        return "shrunk"

    def empty(d: dict[str, object]) -> object:
        d.clear()
        return "emptied"

    for change in (grow, shrink, empty):
        d: dict[str, object] = {"a": 1, "m": Marker(), "z": 2, "q": [1, 2]}
        with pytest.raises(RuntimeError, match="dict changed size during encoding"):
            flexbuf.dumps(d, default=lambda o, d=d, change=change: change(d))  # type: ignore[misc]
    # A value replaced, the size kept: the entries are read as they now
    # stand, as Python's iteration reads them.
    d2: dict[str, object] = {"a": Marker(), "b": 1}

    def replace(o: object) -> object:
        d2["b"] = "replaced"
        return "m"

    assert flexbuf.loads(flexbuf.dumps(d2, default=replace)) == {"a": "m", "b": "replaced"}
    # The builder is usable afterwards.
    assert flexbuf.dumps({"b": 1, "a": 2}) == flexbuf.from_json('{"b":1,"a":2}')


def test_default_errors_propagate_with_the_path_and_loops_end() -> None:
    def refuse(o: object) -> object:
        raise ValueError(f"cannot store {type(o).__name__}")

    with pytest.raises(ValueError, match="cannot store object") as e:
        flexbuf.dumps({"items": [1, object()]}, default=refuse)
    assert getattr(e.value, "__notes__", None) == ["while encoding the value at $.items[1]"]
    # A default that returns what it was given ends at the nesting limit.
    with pytest.raises(flexbuf.EncodeError, match="nesting deeper than the limit of 64"):
        flexbuf.dumps(object(), default=lambda o: o)
    with pytest.raises(TypeError, match="default must be callable, not int"):
        flexbuf.dumps([1], default=3)  # type: ignore[arg-type]
    # A lone surrogate's UnicodeEncodeError names where it was, too.
    with pytest.raises(UnicodeEncodeError) as u:
        flexbuf.dumps({"k": ["\ud800"]})
    assert getattr(u.value, "__notes__", None) == ["while encoding the value at $.k[0]"]


def test_cycles_and_deep_nesting_stop_at_the_verifier_limit() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(flexbuf.EncodeError, match="nesting deeper than the limit of 64") as e:
        flexbuf.dumps(loop)
    assert e.value.kind == "DepthLimit"
    deep: object = 1
    for _ in range(64):
        deep = [deep]
    assert flexbuf.loads(flexbuf.dumps(deep)) == deep
    with pytest.raises(flexbuf.EncodeError):
        flexbuf.dumps([deep])


def test_nul_in_a_key_is_an_encode_error() -> None:
    with pytest.raises(flexbuf.EncodeError):
        flexbuf.dumps({"a\x00b": 1})


def test_share_strings_deduplicates_equal_strings() -> None:
    obj = ["the same long string value"] * 50
    shared = flexbuf.dumps(obj, share_strings=True)
    plain = flexbuf.dumps(obj)
    assert len(shared) < len(plain) / 5
    assert flexbuf.loads(shared) == flexbuf.loads(plain) == obj


def test_numeric_buffers_become_typed_vectors_at_their_width() -> None:
    data = flexbuf.dumps(
        {
            "q": np.arange(5, dtype=np.int64),
            "f": np.array([1.5, 2.5], dtype=np.float32),
            "d": array.array("d", [0.1, 0.2]),
            "u8": np.arange(300, dtype=np.uint16).astype(np.uint8),
            "raw": memoryview(b"\x01\x02"),
        }
    )
    ref = flexbuf.read(data)
    assert ref["q"].type == "vector_int" and memoryview(ref["q"]).format == "q"
    assert memoryview(ref["f"]).format == "f"
    assert memoryview(ref["d"]).tolist() == [0.1, 0.2]
    # 300 one-byte elements do not fit a one-byte length: widened, values kept.
    assert ref["u8"].width == 2 and ref["u8"].to_python() == [i % 256 for i in range(300)]
    assert ref["raw"] == b"\x01\x02"


def test_numpy_scalars_encode_as_the_python_numbers_they_equal() -> None:
    """A 0-D buffer (a NumPy scalar, a 0-D array, a ctypes number) is one
    number, not a one-element vector: ``np.int64(5)`` used to come back as
    ``[5]``."""
    import ctypes

    pairs: list[tuple[object, object]] = [
        (np.int64(5), 5), (np.int32(-3), -3), (np.int8(-128), -128), (np.uint8(200), 200),
        (np.uint16(65535), 65535), (np.uint64(2**64 - 1), 2**64 - 1), (np.uint64(7), 7),
        (np.float32(1.1), float(np.float32(1.1))), (np.float16(0.1), float(np.float16(0.1))),
        (np.bool_(True), True), (np.bool_(False), False), (np.array(9), 9), (np.array(2.5), 2.5),
        (ctypes.c_int(7), 7), (ctypes.c_double(0.25), 0.25),
    ]
    for value, number in pairs:
        assert flexbuf.dumps(value) == flexbuf.dumps(number), repr(value)
        assert flexbuf.dumps({"k": [value]}) == flexbuf.dumps({"k": [number]}), repr(value)
    assert type(flexbuf.loads(flexbuf.dumps(np.int64(5)))) is int


def test_buffers_in_other_orders_strides_and_element_types() -> None:
    import ctypes

    rng = np.random.default_rng(7)
    ints = rng.integers(-(2**31), 2**31, size=50)
    floats = rng.standard_normal(50)
    # Big-endian and explicitly little-endian arrays read as their values.
    for dtype in (">i4", "<i4", ">i8", ">u2", ">f8", "<f4", ">f4"):
        arr = (np.abs(ints) % 30000 if "u" in dtype else ints).astype(dtype) if "f" not in dtype else floats.astype(dtype)
        native = arr.astype(arr.dtype.newbyteorder("="))
        assert flexbuf.dumps(arr) == flexbuf.dumps(native), dtype
        assert flexbuf.loads(flexbuf.dumps(arr)) == native.tolist(), dtype
    # Strided and reversed views are gathered.
    base = np.arange(40, dtype=np.int16)
    for view in (base[::3], base[::-1], base[5:30:7]):
        assert flexbuf.loads(flexbuf.dumps(view)) == view.tolist()
    assert flexbuf.dumps(memoryview(b"abcdef")[::2]) == flexbuf.dumps(b"ace")
    # ctypes arrays (which leave the strides unset) and half floats.
    assert flexbuf.loads(flexbuf.dumps((ctypes.c_long * 3)(1, -2, 3))) == [1, -2, 3]
    assert flexbuf.loads(flexbuf.dumps((ctypes.c_uint8 * 2)(1, 255))) == [1, 255]
    halves = np.arange(65536, dtype=np.uint16).view(np.float16)
    back = np.array(flexbuf.loads(flexbuf.dumps(halves)), dtype=np.float32)
    want = halves.astype(np.float32)
    assert np.array_equal(np.isnan(back), np.isnan(want))
    ok = ~np.isnan(want)
    assert np.array_equal(back[ok].view(np.uint32), want[ok].view(np.uint32))


def test_random_numeric_views_read_back_as_their_values() -> None:
    """Every numeric dtype, byte order, stride and length NumPy makes: what
    `loads` gives back equals `tolist()` (floats widened as NumPy widens
    them), and a 0-D view gives the number alone."""
    rng = np.random.default_rng(20261206)
    kinds = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "?"]
    for _ in range(400):
        kind = kinds[rng.integers(len(kinds))]
        order = "<>="[rng.integers(3)] if kind not in ("i1", "u1", "?") else "|"
        n = int(rng.integers(0, 40))
        step = int(rng.choice([1, 2, 3, -1, -2]))
        raw = rng.integers(0, 256, size=(n * abs(step) + 1) * 8, dtype=np.uint8)
        base = raw.view(np.dtype(kind).newbyteorder(order) if order != "|" else np.dtype(kind))
        view = base[::step][:n]
        if kind[0] == "f":
            view = np.where(np.isfinite(view), view, 0).astype(view.dtype)
        want = view.astype(view.dtype.newbyteorder("=") if order != "|" else view.dtype).tolist()
        if kind == "f2":
            want = [float(np.float32(x)) for x in want]
        got = flexbuf.loads(flexbuf.dumps(view))
        assert got == want, (kind, order, n, step)
        if n:
            assert flexbuf.loads(flexbuf.dumps(view[0])) == want[0], (kind, order)


def test_numpy_values_that_are_no_numbers_are_refused_or_given_to_default() -> None:
    values = [np.datetime64("2020-01-01"), np.timedelta64(5, "s"), np.array(["2020-01-01"], dtype="datetime64[D]"),
              np.zeros(2, dtype=[("a", "i4")]), np.array(["a", "b"]), np.ones((2, 2))]
    for v in values:
        with pytest.raises(flexbuf.EncodeTypeError) as e:
            flexbuf.dumps({"v": v})
        assert e.value.path == "$.v", repr(v)
    back = flexbuf.loads(flexbuf.dumps(values, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))
    assert back[0] == "2020-01-01" or back[0] == str(np.datetime64("2020-01-01").tolist())
    assert back[-1] == [[1.0, 1.0], [1.0, 1.0]]


def test_validate_reports_the_offset() -> None:
    with pytest.raises(flexbuf.ValidationError) as e:
        flexbuf.validate(b"\x01\x02\x05")
    assert e.value.kind == "BadWidth" and e.value.offset == 2
    assert isinstance(e.value, ValueError)
    with pytest.raises(flexbuf.ValidationError) as e2:
        flexbuf.validate(b"")
    assert e2.value.kind == "Truncated"


def test_lists_of_strings_encode_as_from_json() -> None:
    """Lists of eight or more exact strs are written in one pass; the bytes
    are those of writing each (from_json's), and anything else in the list
    (a subclass, a non-str, a lone surrogate) goes item by item."""

    class Text(str):
        pass

    lists: list[list[object]] = [
        ["s%d" % i for i in range(7)],
        ["s%d" % i for i in range(8)],
        ["é" * 3, "😀", "ascii", "mixed é", "", "z" * 17, "y", "x"],
        ["x" * 255, "y" * 256, "w" * 254, "ü" * 128, "v" * 300, "a", "b", "c"],
        ["q" * 250] * 300,  # 4-byte offsets
        [""] * 34_000,  # 4-byte offsets, from the strings' count
        ["k%05d" % i for i in range(12_000)],
        ["a"] * 8 + [1, None, 2.5, ["nested"] * 9],
        ["a"] * 8 + [Text("sub")],
        [Text("sub")] + ["a"] * 8,
    ]
    for items in lists:
        text = json.dumps(items, ensure_ascii=False)
        assert flexbuf.dumps(items) == flexbuf.from_json(text), items[:9]
        assert flexbuf.dumps({"k": items}) == flexbuf.from_json(json.dumps({"k": items}, ensure_ascii=False))
        assert flexbuf.dumps(items, share_strings=True) == flexbuf.from_json(text, share_strings=True)
        assert flexbuf.loads(flexbuf.dumps(items)) == items
    with pytest.raises(UnicodeEncodeError):
        flexbuf.dumps(["a"] * 8 + ["\ud800"])
    assert flexbuf.loads(flexbuf.dumps(["b"] * 9)) == ["b"] * 9


def _push_explicitly(b: flexbuf.Builder, v: object) -> None:
    """Pushes `v` through the builder's own calls, one key at a time."""
    if isinstance(v, dict):
        b.start_map()
        for k, e in v.items():
            b.key(k)
            _push_explicitly(b, e)
        b.end_map()
    elif isinstance(v, list):
        b.start_vector()
        for e in v:
            _push_explicitly(b, e)
        b.end_vector()
    elif isinstance(v, str):
        b.string(v)
    else:
        assert isinstance(v, int) and not isinstance(v, bool)
        b.int(v)


def test_dict_keys_met_again_write_the_bytes_of_their_text() -> None:
    """Once a dict shape repeats within a call, dumps pushes a key object it
    met before by the key it wrote for it (the memo holds the object until
    the call ends). The bytes stay those of the key's text, whatever the
    objects, their count, their reuse across calls or the builder's key
    sharing."""
    # json.loads shares key objects within a document: the memo's case.
    rows = [{"id": i, "name": "n%d" % i, "tags": {"a": i, "b": [i, "é"]}} for i in range(60)]
    text = json.dumps({"rows": rows}, ensure_ascii=False)
    doc = json.loads(text)
    first, second = list(doc["rows"][0]), list(doc["rows"][1])
    assert all(a is b for a, b in zip(first, second))
    assert flexbuf.dumps(doc) == flexbuf.from_json(text)
    assert flexbuf.dumps(doc, share_strings=True) == flexbuf.from_json(text, share_strings=True)
    assert flexbuf.loads(flexbuf.dumps(doc)) == doc
    # The references taken while encoding are all given back.
    before = [sys.getrefcount(k) for k in first]
    flexbuf.dumps(doc)
    assert [sys.getrefcount(k) for k in first] == before

    # More distinct keys than the memo has slots or holds (collisions and
    # the cap): one shape repeated first, then 6,000 keys each in two dicts.
    keys = ["key-%d" % i for i in range(6000)]
    many: list[object] = [{"x": 1, "y": 2}, {"x": 3, "y": 4}]
    for i in range(0, len(keys), 2):
        many.append({keys[i]: i, keys[i + 1]: [i]})
        many.append({keys[i + 1]: -i, keys[i]: "v"})
    assert flexbuf.dumps(many) == flexbuf.from_json(json.dumps(many))

    # Fresh key objects in every call, freed after it: their addresses come
    # back for other text, which must never be taken for a key met before.
    for n in range(200):
        fresh = ["".join(["k", str(n), "-", str(j)]) for j in range(3)]
        value = [dict.fromkeys(fresh, n), dict.fromkeys(fresh, n + 1), dict.fromkeys(fresh[::-1], 0)]
        assert flexbuf.dumps(value) == flexbuf.from_json(json.dumps(value)), n
        del fresh, value

    # A builder that does not share keys writes each key again.
    for share_keys in (False, True):
        b1 = flexbuf.Builder(share_keys=share_keys)
        b1.add(doc)
        b2 = flexbuf.Builder(share_keys=share_keys)
        _push_explicitly(b2, doc)
        assert b1.finish() == b2.finish(), share_keys
    unshared = flexbuf.Builder(share_keys=False)
    unshared.add(doc)
    assert len(unshared.finish()) > len(flexbuf.dumps(doc))

    # Errors past the point where the memo is on keep their kind and path.
    doc["rows"][40]["tags"]["b"][1] = {1, 2}
    with pytest.raises(flexbuf.EncodeTypeError) as e:
        flexbuf.dumps(doc)
    assert e.value.path == "$.rows[40].tags.b[1]"
    doc["rows"][40]["tags"]["b"][1] = 2**70
    with pytest.raises(flexbuf.EncodeOverflowError) as e2:
        flexbuf.dumps(doc)
    assert e2.value.path == "$.rows[40].tags.b[1]"
    doc["rows"][40]["tags"]["b"][1] = "ok"
    doc["rows"][50]["tags"][3] = "int key"
    with pytest.raises(flexbuf.EncodeTypeError, match="map keys must be str"):
        flexbuf.dumps(doc)
    del doc["rows"][50]["tags"][3]
    doc["rows"][50]["tags"]["\ud800"] = 1
    with pytest.raises(UnicodeEncodeError):
        flexbuf.dumps(doc)
    del doc["rows"][50]["tags"]["\ud800"]
    assert flexbuf.loads(flexbuf.dumps(doc)) == doc


def test_random_documents_of_shared_key_objects_encode_as_from_json() -> None:
    """Random documents whose dicts draw their keys from one set of key
    objects, often as records of a few shapes (so shapes repeat and the key
    memo turns on), with fresh objects of equal text mixed in, against
    from_json of their JSON. Sixty names over 512 memo slots: addresses
    collide in most documents."""
    rng = random.Random(20261205)
    names = [sys.intern("k%d" % i) for i in range(50)] + ["é", "a" * 20, "", "值", "b\u00ff"]
    names += ["".join(["n", str(i)]) for i in range(5)]

    def key() -> str:
        k = rng.choice(names)
        # A fresh object of the same text now and then: pooled by content.
        return "".join(list(k)) if rng.random() < 0.1 else k

    def value(depth: int, shapes: list[list[str]]) -> object:
        r = rng.random()
        if depth < 4 and r < 0.15:
            return {k: value(depth + 1, shapes) for k in rng.choice(shapes)}
        if depth < 4 and r < 0.25:
            return {key(): value(depth + 1, shapes) for _ in range(rng.randrange(0, 7))}
        if depth < 4 and r < 0.4:
            return [value(depth + 1, shapes) for _ in range(rng.randrange(0, 6))]
        return rng.choice([rng.randrange(-(2**40), 2**40), rng.random(), "s%d" % rng.randrange(99), True, None])

    for n in range(300):
        shapes = [rng.sample(names, k) for k in (2, 3, 5, 8)]
        doc = [value(0, shapes) for _ in range(rng.randrange(1, 40))]
        text = json.dumps(doc, ensure_ascii=False)
        assert flexbuf.dumps(doc) == flexbuf.from_json(text), n
        assert flexbuf.dumps(doc, share_strings=True) == flexbuf.from_json(text, share_strings=True), n


def test_dicts_whose_key_addresses_other_keys_reuse_encode_as_from_json() -> None:
    # dumps remembers a dict shape's sorted order by a hash of its key
    # objects' addresses and their count. Once those objects are freed,
    # fresh keys of other text take their addresses, so a later dict meets
    # a remembered order that does not sort its keys: the builder checks
    # every guess and sorts instead, so the bytes stay from_json's.
    rng = random.Random(7)
    for n in range(600):
        count = rng.randrange(2, 9)
        keys = ["".join(["k", str(rng.randrange(10**6)), "x" * rng.randrange(3)]) for _ in range(count)]
        d = {k: i for i, k in enumerate(keys)}
        assert flexbuf.dumps(d) == flexbuf.from_json(json.dumps(d)), n
        assert flexbuf.dumps([d, {"x": d}]) == flexbuf.from_json(json.dumps([d, {"x": d}])), n
        del d, keys


def test_from_json_accepts_text_and_utf8_bytes_and_reports_errors() -> None:
    assert flexbuf.from_json(b'{"a": 1}') == flexbuf.from_json('{"a": 1}')
    with pytest.raises(flexbuf.JsonError):
        flexbuf.from_json('{"a": }')
    with pytest.raises(flexbuf.JsonError):
        flexbuf.from_json(b"\xff")
    with pytest.raises(flexbuf.JsonError):
        flexbuf.from_json('{"a": 1, "a": 2}')
    assert flexbuf.to_json(flexbuf.from_json('{"b":[1,2]}'), pretty=True).startswith("{\n")


def test_builder_matches_dumps_and_reuses_values() -> None:
    b = flexbuf.Builder()
    b.start_map()
    b.key("a")
    b.int(1)
    b.key("s")
    b.string("x")
    b.end_map()
    assert b.finish() == flexbuf.dumps({"a": 1, "s": "x"})
    b.start_vector()
    b.string("shared")
    handle = b.last_value()
    assert handle is not None
    b.reuse_value(handle)
    b.typed_vector([1, 2, 3], "i32")
    b.fixed_vector([1.0, 2.0, 3.0], "f64")
    b.add({"k": [True, None]})
    b.end_vector()
    assert flexbuf.loads(b.finish()) == ["shared", "shared", [1, 2, 3], [1.0, 2.0, 3.0], {"k": [True, None]}]
    with pytest.raises(flexbuf.EncodeError):
        b.end_map()
    b.clear()
    with pytest.raises(ValueError, match="unknown element type"):
        b.typed_vector([1], "int")
    with pytest.raises(OverflowError):
        b.typed_vector([300], "u8")


def test_text_of_every_width_in_runs_round_trips() -> None:
    # Characters at the edges of each string kind and UTF-8 length, in runs of
    # random lengths, as values and keys: strings of 16 bytes and more are
    # transcoded by simdutf, shorter ones by the extension's own loop.
    classes = [
        "\x00a ~\x7f",
        "\x80é\xff",
        "\u0100Жא\u07ff",
        "\u0800語한\ud7ff\ue000\ufffd\uffff",
        "\U00010000😀\U0010ffff",
    ]
    rnd = random.Random(31)
    texts = []
    for _ in range(3000):
        parts = []
        for _ in range(rnd.randint(1, 6)):
            chars = classes[rnd.randrange(len(classes))]
            parts.append("".join(rnd.choice(chars) for _ in range(rnd.randint(1, 40 if rnd.random() < 0.3 else 4))))
        texts.append("".join(parts))
    value = {"texts": texts, "keys": {t[:30].replace("\x00", ""): i for i, t in enumerate(texts)}}
    back = flexbuf.loads(flexbuf.dumps(value))
    assert back == value
    # Equal strings of another kind would compare unequal: each is canonical.
    assert all(a == b for a, b in zip(back["texts"], texts))


def _pushed_one_by_one(items: list[object]) -> bytes:
    """The bytes of a vector of `items` pushed one at a time (the reference
    for lists `dumps` writes in one piece)."""
    b = flexbuf.Builder()
    b.start_vector()
    for x in items:
        if isinstance(x, bool) or x is None:
            b.add(x)
        elif isinstance(x, int):
            if x > 2**63 - 1:
                b.uint(x)
            else:
                b.int(x)
        else:
            assert isinstance(x, float)
            b.double(x)
    b.end_vector()
    return b.finish()


def test_lists_of_ints_or_floats_encode_as_pushing_each_item() -> None:
    rng = random.Random(1234)
    specials = [0.0, -0.0, 0.5, 1e300, -2.5e-310, math.inf, -math.inf, math.nan, 3.0]
    for round_ in range(400):
        n = rng.choice([0, 1, 2, 3, 7, 8, 9, 16, 17, 40, 300])
        bits = rng.choice([6, 14, 30, 62])
        ints = [rng.randrange(-(2**bits), 2**bits) for _ in range(n)]
        floats = [rng.choice(specials) if rng.random() < 0.2 else rng.uniform(-1e6, 1e6) for _ in range(n)]
        exact = [float(rng.randrange(-1000, 1000)) / 4 for _ in range(n)]
        lists: list[list[object]] = [ints, floats, exact]
        if n:
            # Lists that are not all one exact type: written item by item.
            at = rng.randrange(n)
            lists += [
                ints[:at] + [2**64 - 1] + ints[at + 1 :],
                ints[:at] + [True] + ints[at + 1 :],
                ints[:at] + [1.5] + ints[at + 1 :],
                floats[:at] + [None] + floats[at + 1 :],
                floats[:at] + [7] + floats[at + 1 :],
            ]
        for items in lists:
            assert flexbuf.dumps(items) == _pushed_one_by_one(items), (round_, items)
            nested = {"v": items, "w": [items, 1]}
            back = flexbuf.loads(flexbuf.dumps(nested))
            assert len(back["v"]) == len(items)
    # The generic JSON path agrees on finite lists.
    values = [rng.randrange(-(2**40), 2**40) for _ in range(100)]
    assert flexbuf.dumps(values) == flexbuf.from_json(json.dumps(values))
