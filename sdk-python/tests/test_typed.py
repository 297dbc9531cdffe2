"""Generated classes (`flexbuf gen --lang python`) decoded and encoded natively."""

from __future__ import annotations

import array
import gc
import json
import math
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import flexbuf
from conftest import CONFORMANCE, fixture, generate, load


def test_classes_are_plain_python_with_slots_docs_and_hints(defects: ModuleType) -> None:
    P = defects.Profile
    assert P.__slots__ == ("active", "age", "id", "nickname", "note", "score", "tint")
    assert "Explicit null is a value" in (P.__doc__ or "")
    assert "nickname" in P.__annotations__
    p = P(id=1)
    assert p == P(id=1) and p != P(id=2)
    assert repr(p).startswith("Profile(id=1, nickname='anon'")
    with pytest.raises(AttributeError):
        p.extra = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        P(1)  # keyword-only
    assert issubclass(defects.Color, int) and defects.Color.Green == 2


def test_round_trip_every_kind_of_field(defects: ModuleType) -> None:
    d = defects
    order = d.Order(
        id=-4,
        items=[d.Item(sku="a", qty=2, price=9.5, seller=d.Seller(id=2**64 - 1, name="S"), tags=["x"])],
        by_sku={"z": d.Item(sku="z", seller=d.Seller(id=1, name="T")), "a b": d.Item(sku="ab", seller=d.Seller(id=3, name="U"))},
        matrix=[[1, 2], [], [-(2**31)]],
        label="L",
    )
    back = d.Order.decode(order.encode())
    assert back == order
    canvas = d.Canvas(
        color=d.Color.Blue,
        palette=[d.Color.Red, d.Color.Green],
        shape=d.ShapeSquare(d.Square(side=3)),
        shapes=[d.ShapeLabel("hi"), d.ShapeCircle(d.Circle(radius=0.5))],
        layers={"bg": d.ShapeLabel("x")},
    )
    back2 = d.Canvas.decode(canvas.encode())
    assert back2 == canvas and type(back2.palette[0]) is d.Color
    match back2.shape:
        case d.ShapeSquare(d.Square(side=side)):
            assert side == 3
        case _:
            pytest.fail("union variant did not decode as its class")
    assert d.Shape.decode(d.ShapeLabel("root").encode()) == d.ShapeLabel("root")


def test_explicit_null_is_not_the_default(defects: ModuleType) -> None:
    # Defect regression: explicit null decoded as the default.
    absent = defects.Profile.decode(flexbuf.dumps({"id": 1}))
    assert absent.nickname == "anon" and absent.age == 18 and absent.tint == defects.Color.Green
    null = defects.Profile.decode(flexbuf.dumps({"id": 1, "nickname": None, "age": None, "tint": None}))
    assert null.nickname is None and null.age is None and null.tint is None
    assert defects.Profile.decode(null.encode()) == null


def test_missing_required_field_never_reads_a_neighbour(defects: ModuleType) -> None:
    # Defect regression: a missing required field returned the next field (`street=Zip`).
    data = flexbuf.dumps({"zip": "Zip", "x": "other"})
    with pytest.raises(flexbuf.SchemaError) as e:
        defects.Address.decode(data)
    assert e.value.reason == "missing" and e.value.path == "$.street"
    # Same key count, different keys: fallback by key yields the defaults, not neighbours.
    c = defects.Contact.decode(flexbuf.dumps({"mail": "m", "phone": "p"}))
    assert c.email == "" and c.phone == "p"


def test_errors_name_the_path_in_wire_names(defects: ModuleType) -> None:
    bad = {"id": 1, "items": [{"sku": "a", "seller": {"id": 1, "name": "n", "rating": 300}}]}
    with pytest.raises(flexbuf.SchemaError) as e:
        defects.Order.decode(flexbuf.dumps(bad))
    assert (e.value.reason, e.value.path) == ("range", "$.items[0].seller.rating")
    with pytest.raises(flexbuf.SchemaError) as e2:
        defects.Order.decode(flexbuf.dumps({"id": 1, "display label": 5}))
    assert (e2.value.reason, e2.value.path) == ("type", '$["display label"]')
    with pytest.raises(flexbuf.SchemaError) as e3:
        defects.Canvas.decode(flexbuf.dumps({"color": 3}))
    assert (e3.value.reason, e3.value.path) == ("enum", "$.color")
    with pytest.raises(flexbuf.ValidationError):
        defects.Canvas.decode(b"\x00\x00\x00")


def test_empty_message_and_all_default_message_decode_from_empty_map(defects: ModuleType) -> None:
    assert defects.Empty.decode(flexbuf.dumps({})) == defects.Empty()
    assert defects.Settings.decode(flexbuf.dumps({})) == defects.Settings()


def test_encode_checks_types_and_ranges_naming_the_attribute(defects: ModuleType) -> None:
    with pytest.raises(flexbuf.EncodeOverflowError) as e:
        defects.Ranges(u8v=256).encode()
    assert e.value.path == "$.u8v"
    with pytest.raises(flexbuf.EncodeTypeError) as e2:
        defects.Order(id=1, items=[defects.Item(sku=3, seller=defects.Seller(id=1, name="n"))]).encode()
    assert e2.value.path == "$.items[0].sku"
    with pytest.raises(flexbuf.EncodeTypeError):
        defects.Address(street=None, zip="z").encode()  # type: ignore[arg-type]
    with pytest.raises(flexbuf.EncodeError):
        defects.Canvas(color=3).encode()


def test_exact_scalar_fields_encode_as_their_subclasses_do(defects: ModuleType) -> None:
    """Fields of exact `str`, `int`, `float` and `bool` values (and messages,
    in fields and lists) take a shorter path than subclasses of those types;
    both write the same bytes, and errors below them keep their paths."""
    import enum

    class Text(str):
        pass

    class Num(int):
        pass

    class Real(float):
        pass

    class Big(enum.IntEnum):
        V = 2**40

    R, O, I, S = defects.Ranges, defects.Order, defects.Item, defects.Seller
    for i64v, f64v, flag in [(0, 0.0, False), (-(2**63), -1.5, True), (2**63 - 1, 1e300, True), (2**40, 2.5, False)]:
        exact = R(i64v=i64v, f64v=f64v, flag=flag).encode()
        assert exact == R(i64v=Num(i64v), f64v=Real(f64v), flag=flag).encode()
        back = R.decode(exact)
        assert (back.i64v, back.f64v, back.flag) == (i64v, f64v, flag)
    assert R(i64v=Big.V).encode() == R(i64v=2**40).encode()
    order = O(id=7, items=[I(sku="a", seller=S(id=1, name="n")), I(sku="b", qty=2, price=0.5, seller=S(id=2, name="m"))],
              label="x")
    same = O(id=Num(7), items=[I(sku=Text("a"), seller=S(id=1, name=Text("n"))),
                               I(sku="b", qty=2, price=Real(0.5), seller=S(id=Num(2), name="m"))], label=Text("x"))
    assert order.encode() == same.encode()
    assert O.decode(order.encode()) == order
    bad: list[tuple[object, type[Exception], str]] = [
        (R(i64v=2**63), flexbuf.EncodeOverflowError, "$.i64v"),
        (R(f64v="1.5"), flexbuf.EncodeTypeError, "$.f64v"),
        (R(flag=1), flexbuf.EncodeTypeError, "$.flag"),
        (O(id=1, items=[I(sku="a", seller=S(id=1, name="n")), I(sku="b", seller=S(id=1, name=3))]),
         flexbuf.EncodeTypeError, "$.items[1].seller.name"),
        (O(id=1, items=[I(sku="a", seller=S(id=1, name="n")), I(sku=5, seller=S(id=1, name="n"))]),
         flexbuf.EncodeTypeError, "$.items[1].sku"),
        (O(id=1, items=[I(sku="a", seller=S(id=2**64, name="n"))]), flexbuf.EncodeOverflowError, "$.items[0].seller.id"),
    ]
    for value, error, path in bad:
        with pytest.raises(error) as e:
            value.encode()  # type: ignore[attr-defined]
        assert e.value.path == path
    # A missing message is named as missing, in a list as in a map.
    with pytest.raises(flexbuf.EncodeTypeError, match="None for an element of type Item") as e2:
        O(id=1, items=[I(sku="a", seller=S(id=1, name="n")), None]).encode()
    assert e2.value.path == "$.items[1]"
    with pytest.raises(flexbuf.EncodeTypeError, match="None for a value of type Item"):
        O(id=1, by_sku={"k": None}).encode()


def test_string_maps_encode_in_key_order_with_paths_to_their_values(defects: ModuleType) -> None:
    def item(sku: str) -> object:
        return defects.Item(sku=sku, seller=defects.Seller(id=1, name=sku * 2))

    keys = ["zeta", "b", "é", "a b", "", "bb", "a"]
    forward = defects.Order(id=1, by_sku={k: item(k) for k in keys}, sellers={})
    backward = defects.Order(id=1, by_sku={k: item(k) for k in reversed(keys)}, sellers={})
    assert forward.encode() == backward.encode()
    decoded = defects.Order.decode(forward.encode())
    assert list(decoded.by_sku) == sorted(keys, key=lambda k: k.encode())
    assert decoded == forward
    # Errors inside a map name its key; the map's dict is left as it was.
    bad_value = defects.Order(id=1, by_sku={"a": item("a"), "b c": item(3)})  # type: ignore[arg-type]
    with pytest.raises(flexbuf.EncodeTypeError) as e:
        bad_value.encode()
    # (fields go in key order: `seller`, whose name is an int here, first)
    assert e.value.path == '$.by_sku["b c"].seller.name'
    with pytest.raises(flexbuf.EncodeTypeError) as e2:
        defects.Order(id=1, by_sku={"a": None}).encode()  # type: ignore[dict-item]
    assert e2.value.path == "$.by_sku.a"
    with pytest.raises(flexbuf.EncodeTypeError, match="keys must be str"):
        defects.Order(id=1, by_sku={"a": item("a"), 2: item("b")}).encode()  # type: ignore[dict-item]
    assert list(bad_value.by_sku) == ["a", "b c"]
    # The failed encodes left nothing behind for the next one.
    assert defects.Order.decode(backward.encode()) == forward


def test_string_lists_written_in_one_pass_equal_the_element_path(fixture_models: dict[str, ModuleType]) -> None:
    """`[string]` fields of four or more strings are written in one pass
    (`Builder::strings_field`); the bytes and every error must be those of
    writing each element, which `_bulk_string_lists(False)` turns back on."""
    from flexbuf import _native

    flood = fixture_models["string_flood"].StringFlood

    class Text(str):
        pass

    lists: list[list[str] | tuple[str, ...]] = [
        [],
        ["a"],
        ["a", "b", "c"],
        ["a", "bb", "", "dddd"],
        ("t", "u", "p", "l", "e"),
        ["é" * 3, "😀", "ascii", "mixed é", "", "z" * 17, Text("sub")],
        ["x" * 255, "y" * 256, "w" * 254, "ü" * 128, "v" * 300],
        ["s%d" % i for i in range(300)],
        ["q" * 250] * 300,  # 75 KB of strings: 4-byte offsets
        [""] * 34_000,  # 68 KB of empty strings: 4-byte offsets
        ["k%05d" % i for i in range(12_000)],  # 2-byte offsets
    ]
    assert _native._bulk_string_lists()
    try:
        for strings in lists:
            value = flood(strings=strings, map={"k": "v"})
            _native._bulk_string_lists(True)
            fast = value.encode()
            _native._bulk_string_lists(False)
            assert fast == value.encode(), strings[:5]
            assert flood.decode(fast).strings == list(strings)
        bad: list[tuple[list[object], type[Exception], str | None]] = [
            (["a", "b", "c", "d", None, "e"], flexbuf.EncodeTypeError, "$.strings[4]"),
            (["a"] * 5 + [3], flexbuf.EncodeTypeError, "$.strings[5]"),
            ([b"a", "b", "c", "d"], flexbuf.EncodeTypeError, "$.strings[0]"),
            # Python's own error for a lone surrogate, as for a single string.
            (["a"] * 6 + ["\ud800"], UnicodeEncodeError, None),
        ]
        for strings_, error, path in bad:
            seen = []
            for on in (True, False):
                _native._bulk_string_lists(on)
                with pytest.raises(error) as e:
                    flood(strings=strings_, map={}).encode()  # type: ignore[arg-type]
                assert getattr(e.value, "path", None) == path, strings_
                seen.append((type(e.value), str(e.value)))
            assert seen[0] == seen[1]
            # Nothing of the failed list is left in the next buffer.
            assert flood.decode(flood(strings=["p", "q", "r", "s"], map={}).encode()).strings == ["p", "q", "r", "s"]
    finally:
        _native._bulk_string_lists(True)


def test_bytes_equal_the_rust_encoder_on_the_fixtures(fixture_models: dict[str, ModuleType]) -> None:
    cases = json.loads((CONFORMANCE / "typed/fixtures.json").read_text())["cases"]
    assert len(cases) == len(fixture_models)
    for case in cases:
        stem = Path(case["schema"]).stem
        cls = getattr(fixture_models[stem], case["type"].rsplit(".", 1)[-1])
        data = (CONFORMANCE / case["input_file"]).read_bytes()
        if "error" in case["expect"]:
            with pytest.raises(flexbuf.SchemaError) as e:
                cls.decode(data)
            assert (e.value.reason, e.value.path) == (case["expect"]["error"]["kind"], case["expect"]["error"]["path"])
            continue
        value = cls.decode(data)
        assert value.encode() == (CONFORMANCE / case["expect"]["bytes_file"]).read_bytes(), case["name"]
        assert cls.decode(value.encode()) == value


def test_fixture_models_decode_what_dumps_wrote(fixture_models: dict[str, ModuleType]) -> None:
    api = fixture_models["api_response"]
    value = api.ApiResponse.decode(flexbuf.dumps(fixture("api_response")))
    assert value.items[3].seller.name == fixture("api_response")["items"][3]["seller"]["name"]
    assert flexbuf.loads(value.encode()) == fixture("api_response")


def test_decoded_objects_holding_no_tracked_object_are_left_to_refcounting(
    fixture_models: dict[str, ModuleType], defects: ModuleType
) -> None:
    api = fixture_models["api_response"]
    value = api.ApiResponse.decode(flexbuf.dumps(fixture("api_response")))
    item = value.items[0]
    # Scalars and strings only, then containers of those: none can be in a cycle.
    for obj in (item.dimensions, item.seller, item.tags, item, value.items, value):
        assert not gc.is_tracked(obj), type(obj)
    # The same values built in Python are tracked as usual, and compare equal.
    assert gc.is_tracked(api.Dimensions(w=1.0)) and gc.is_tracked(list(item.tags))
    assert api.ApiResponse.decode(value.encode()) == value
    # A union's wrapper is left to refcounting like a message when its
    # payload is (a string, a message of numbers), and so is a list of them.
    # A dict of them, and an instance holding enum members (objects the
    # collector tracks), stay tracked.
    d = defects
    canvas = d.Canvas.decode(
        d.Canvas(shapes=[d.ShapeLabel("hi"), d.ShapeCircle(d.Circle(radius=1.0))], shape=d.ShapeLabel("x"),
                 layers={"a": d.ShapeLabel("y")}).encode()
    )
    for obj in (canvas.shape, canvas.shapes[0], canvas.shapes[1], canvas.shapes[1].value, canvas.shapes):
        assert not gc.is_tracked(obj), obj
    assert gc.is_tracked(canvas.layers) and gc.is_tracked(canvas)
    assert canvas.shapes == [d.ShapeLabel("hi"), d.ShapeCircle(d.Circle(radius=1.0))]
    # An untracked list still takes any value; it is only not visited by the collector.
    item.tags.append([1])
    assert item.tags[-1] == [1]


def test_a_string_shared_by_every_element_hits_the_budget(
    fixture_models: dict[str, ModuleType],
) -> None:
    # One 64 KiB string stored once and referred to 20,000 times: a small
    # buffer that would decode to 1.3 GB of str objects.
    data = flexbuf.dumps({"strings": ["x" * 65536] * 20_000}, share_strings=True)
    assert len(data) < 200_000
    flexbuf.validate(data)
    with pytest.raises(flexbuf.BudgetError) as e:
        fixture_models["string_flood"].StringFlood.decode(data)
    assert e.value.path is not None and e.value.path.startswith("$.strings["), e.value.path


def test_arrays_are_tuples_of_their_length(arrays: ModuleType) -> None:
    b = arrays.Body(uuid=[1, 2, 3, 4], pos=(1.5, 2, 3))
    back = arrays.Body.decode(b.encode())
    assert back.uuid == (1, 2, 3, 4) and back.pos == (1.5, 2.0, 3.0)
    # Tuples of numbers are left to refcounting, as lists of them are, so
    # the instance holding them can be too.
    assert not gc.is_tracked(back.uuid) and not gc.is_tracked(back.pos) and not gc.is_tracked(back)
    assert back.quat == (0.0,) * 4 and back.flags == (False, False) and back.tint is None
    assert arrays.Body.__annotations__["pos"] == "tuple[float, float, float]"
    assert arrays.Wide.__annotations__["samples"] == "tuple[int, ...]"
    assert arrays.Wide.decode(arrays.Wide().encode()).samples == (0,) * 40
    with pytest.raises(flexbuf.SchemaError) as e:
        arrays.Body.decode(flexbuf.dumps({"uuid": [1, 2, 3]}))
    assert (e.value.kind, e.value.reason, e.value.path) == ("ArrayLength", "type", "$.uuid")
    with pytest.raises(flexbuf.EncodeTypeError) as e2:
        arrays.Body(uuid=(1, 2, 3, 4), pos=(1.0, 2.0)).encode()
    assert e2.value.path == "$.pos"
    with pytest.raises(flexbuf.EncodeOverflowError) as e3:
        arrays.Body(uuid=(1, 2, 3, -1)).encode()
    assert e3.value.path == "$.uuid[3]"


def test_numpy_values_fill_numeric_fields_as_the_python_numbers_would(
    fixture_models: dict[str, ModuleType], arrays: ModuleType
) -> None:
    """NumPy scalars in scalar fields, and 1-D NumPy arrays (or `array.array`)
    in numeric list and array fields, write the bytes of the equal Python
    numbers and lists; what does not fit is refused as for Python values."""
    np = pytest.importorskip("numpy")
    T = fixture_models["time_series"].TimeSeries
    base = dict(sensor="s", unit="u", start=1, interval_ms=2, timestamps=[10, 20, 2**40], values=[1.0, 2.5, -0.0], quality=[0, 3, 1])
    ref = T(**base).encode()
    swaps = [
        {"start": np.int64(1)}, {"interval_ms": np.uint8(2)}, {"start": np.array(1)},
        {"timestamps": np.array([10, 20, 2**40], dtype=np.int64)}, {"timestamps": np.array([10, 20, 2**40], dtype=">i8")},
        {"values": np.array([1.0, 2.5, -0.0])}, {"values": np.array([1.0, 2.5, -0.0], dtype=np.float32)},
        {"values": np.array([1, 2.5, -0.0], dtype=np.float16)}, {"quality": np.array([0, 3, 1], dtype=np.uint8)},
        {"quality": np.array([0, 99, 3, 99, 1])[::2]},
        {"quality": array.array("q", [0, 3, 1])},
    ]
    for swap in swaps:
        assert T(**{**base, **swap}).encode() == ref, swap
    body = arrays.Body(uuid=[1, 2, 3, 4], pos=(1.5, 2, 3), flags=(True, False))
    same = arrays.Body(uuid=np.array([1, 2, 3, 4], dtype=np.uint32), pos=np.array([1.5, 2, 3], dtype=np.float32),
                       flags=np.array([True, False]))
    assert same.encode() == body.encode()
    for bad, error, path in [
        ({"start": np.float64(1.5)}, flexbuf.EncodeTypeError, "$.start"),
        ({"timestamps": np.array([1.5, 2.0])}, flexbuf.EncodeTypeError, "$.timestamps[0]"),
        ({"quality": np.array([True, False])}, flexbuf.EncodeTypeError, "$.quality[0]"),
        ({"start": np.uint64(2**64 - 1)}, flexbuf.EncodeOverflowError, "$.start"),
        ({"timestamps": np.array([1, 2**64 - 1], dtype=np.uint64)}, flexbuf.EncodeOverflowError, "$.timestamps[1]"),
        ({"values": np.array(["a"])}, flexbuf.EncodeTypeError, "$.values"),
        ({"values": np.ones((2, 2))}, flexbuf.EncodeTypeError, "$.values"),
    ]:
        with pytest.raises(error) as e:
            T(**{**base, **bad}).encode()
        assert e.value.path == path, bad
    with pytest.raises(flexbuf.EncodeTypeError, match="of 4 elements, got 3"):
        arrays.Body(uuid=np.array([1, 2, 3], dtype=np.uint32)).encode()


def test_generated_code_passes_mypy_strict(
    defects: ModuleType, shop: ModuleType, arrays: ModuleType
) -> None:
    files = [defects.__file__, shop.__file__, arrays.__file__]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *files],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_shop_schema_with_imports_and_keywords(shop: ModuleType) -> None:
    a = shop.Address(street="Main", geo=None, display="D")
    back = shop.Address.decode(a.encode())
    assert back == a and back.city == "Springfield" and back.floor == 0
    assert "displayName" in flexbuf.loads(a.encode())


def test_numeric_vectors_decode_alike_at_every_width(fixture_models: dict[str, ModuleType]) -> None:
    """Typed vectors of ints and floats (read in one loop) decode to what the
    same numbers give in an untyped vector (read element by element)."""
    ts = fixture_models["time_series"].TimeSeries
    stamps = [-(2**63), -129, -1, 0, 1, 127, 2**31, 2**63 - 1]
    floats = [1.5, -2.25, 0.0, float("inf")]
    base = {"sensor": "s", "unit": "u", "start": 0, "interval_ms": 1}
    plain = ts.decode(flexbuf.dumps({**base, "timestamps": stamps, "values": floats, "quality": [0, 3]}))
    for stamp_code, values_code, quality_code in [("q", "d", "b"), ("q", "f", "h"), ("q", "d", "i"), ("q", "f", "B")]:
        stamps_arr = array.array(stamp_code, stamps)
        quality = array.array(quality_code, [0, 3])
        typed = flexbuf.dumps({**base, "timestamps": stamps_arr, "values": array.array(values_code, floats), "quality": quality})
        got = ts.decode(typed)
        assert got == plain, (stamp_code, values_code, quality_code)
        assert type(got.timestamps[0]) is int and type(got.values[0]) is float
    # Narrow widths of ints, and an unsigned vector read into i64 (element by element).
    small = ts.decode(flexbuf.dumps({**base, "timestamps": array.array("b", [-5, 7]), "values": [], "quality": array.array("H", [9])}))
    assert (small.timestamps, small.quality) == ([-5, 7], [9])


def test_integer_and_float_lists_encode_every_digit_count(fixture_models: dict[str, ModuleType]) -> None:
    """Ints are read straight from the object for up to two 30-bit digits and
    through the C API beyond: every edge encodes its exact value, int
    subclasses and tuples are accepted, and bad elements are refused by index."""
    import enum

    class Level(enum.IntEnum):
        HIGH = 2**40

    class Odd(int):
        def __float__(self) -> float:  # never consulted: the int's value is
            return 0.5

    import platform

    from flexbuf import _native

    # The direct reads are the fast path: they must not be silently off on
    # the interpreters whose layout they know.
    if platform.python_implementation() == "CPython" and sys.version_info < (3, 15):
        assert _native._direct_int_reads()
    ts = fixture_models["time_series"].TimeSeries
    edges = [0, 1, -1, 2**30 - 1, 2**30, -(2**30), 2**31 + 7, 2**60 - 1, 2**60, -(2**60) - 1, 2**63 - 1, -(2**63)]
    value = ts(sensor="s", unit="u", start=2**45, interval_ms=-(2**33), timestamps=edges,
               values=[1, -(2**61), Odd(3), 2.5], quality=(Level.HIGH, 5))
    data = value.encode()
    back = ts.decode(data)
    assert back.timestamps == edges and all(type(t) is int for t in back.timestamps)
    assert back.values == [1.0, float(-(2**61)), 3.0, 2.5] and all(type(v) is float for v in back.values)
    assert (back.start, back.interval_ms, back.quality) == (2**45, -(2**33), [2**40, 5])
    assert flexbuf.loads(data)["timestamps"] == edges
    bad: list[tuple[object, type[Exception], str]] = [
        ([1, 2, True], flexbuf.EncodeTypeError, "$.timestamps[2]"),
        ([0, 2**63], flexbuf.EncodeOverflowError, "$.timestamps[1]"),
        ([-(2**63) - 1], flexbuf.EncodeOverflowError, "$.timestamps[0]"),
        ([1.0], flexbuf.EncodeTypeError, "$.timestamps[0]"),
        ("12", flexbuf.EncodeTypeError, "$.timestamps"),
    ]
    for stamps, error, path in bad:
        with pytest.raises(error) as e:
            ts(sensor="s", unit="u", start=0, interval_ms=1, timestamps=stamps, values=[], quality=[]).encode()  # type: ignore[arg-type]
        assert e.value.path == path, stamps
    with pytest.raises(flexbuf.EncodeTypeError) as e2:
        ts(sensor="s", unit="u", start=0, interval_ms=1, timestamps=[], values=[1.0, "x"], quality=[]).encode()  # type: ignore[list-item]
    assert e2.value.path == "$.values[1]"
    with pytest.raises(flexbuf.EncodeOverflowError) as e3:
        ts(sensor="s", unit="u", start=0, interval_ms=1, timestamps=[], values=[10**400], quality=[]).encode()
    assert e3.value.path == "$.values[0]"


NUMERIC_SCHEMA = """
namespace numeric;
message Numbers {
  a_i8: i8; a_i16: i16; a_i32: i32; a_i64: i64;
  a_u8: u8; a_u16: u16; a_u32: u32; a_u64: u64;
  a_f32: f32; a_f64: f64; flag: bool;
}
"""


def _edges(bits: int) -> list[int]:
    return [0, 1, -1, 2 ** (bits - 1) - 1, 2 ** (bits - 1), -(2 ** (bits - 1)), -(2 ** (bits - 1)) - 1, 2**bits - 1, 2**bits]


def test_numeric_fields_read_from_their_slots_as_by_key(tmp_path: Path) -> None:
    """A map whose keys are exactly the message's is read field by field
    from its slots (the fast path); the same map with one more key is read
    by key through the general path. Every stored kind (int, uint, float
    of 4 and 8 bytes, bool, null) at the edges of every field's range must
    give the same value, or the same error with the same path."""
    schema = tmp_path / "numeric.fxs"
    schema.write_text(NUMERIC_SCHEMA)
    module = load(generate(schema, tmp_path / "out"), "gen_numeric")
    fields = ["a_f32", "a_f64", "a_i16", "a_i32", "a_i64", "a_i8", "a_u16", "a_u32", "a_u64", "a_u8", "flag"]
    ints = sorted({v for bits in (8, 16, 32, 64) for v in _edges(bits)} | {2**64 - 1})
    floats = [0.0, -0.0, 1.5, 3.4028234663852886e38, 3.5e38, -3.5e38, float("inf"), float("nan"), 1e-300]
    stored: list[tuple[str, object]] = (
        [("int", v) for v in ints if -(2**63) <= v < 2**63]
        + [("uint", v) for v in ints if 0 <= v < 2**64]
        + [("float", v) for v in floats]
        + [("double", v) for v in floats]
        + [("bool", True), ("bool", False), ("null", None)]
    )

    def filler(b: flexbuf.Builder, name: str) -> None:
        if name == "flag":
            b.bool(True)
        elif name in ("a_f32", "a_f64"):
            b.double(0.5)
        else:
            b.int(1)

    def buffer(target: str, kind: str, value: object, extra: bool) -> bytes:
        b = flexbuf.Builder()
        b.start_map()
        for name in fields + (["zz_extra"] if extra else []):
            b.key(name)
            if name != target:
                filler(b, name)
            elif kind == "null":
                b.null()
            else:
                getattr(b, kind)(value)
        b.end_map()
        return bytes(b.finish())

    def outcome(data: bytes) -> object:
        try:
            v = module.Numbers.decode(data)
        except flexbuf.SchemaError as e:
            return ("error", e.reason, e.path)
        return tuple(repr(getattr(v, f)) for f in fields)

    reasons: set[object] = set()
    for target in fields:
        for kind, value in stored:
            fast, general = outcome(buffer(target, kind, value, False)), outcome(buffer(target, kind, value, True))
            assert fast == general, (target, kind, value)
            if isinstance(fast, tuple) and fast[0] == "error":
                reasons.add(fast[1])
    # Both sides of each range edge were met: values out of range and of
    # the wrong type were refused, explicit nulls too.
    assert {"range", "type", "null"} <= reasons, reasons


def test_numeric_fields_encode_exact_values_as_their_subclasses(tmp_path: Path) -> None:
    """An exact `int` in an integer field of any width and an exact `float`
    in an `f32` or `f64` field take a shorter path than `int` and `float`
    subclasses (which go through the general conversion). At the edges of
    every field's range both must give the same bytes, or the same error
    (class, message and path)."""

    class Num(int):
        pass

    class Real(float):
        pass

    schema = tmp_path / "numeric.fxs"
    schema.write_text(NUMERIC_SCHEMA)
    module = load(generate(schema, tmp_path / "out"), "gen_numeric_encode")
    ints = sorted({v for bits in (8, 16, 32, 64) for v in _edges(bits)} | {2**64 - 1, 2**70})
    floats = [0.0, -0.0, 1.5, 3.4028234663852886e38, 3.5e38, -3.5e38, float("inf"), float("-inf"), 1e-300]
    int_fields = ["a_i8", "a_i16", "a_i32", "a_i64", "a_u8", "a_u16", "a_u32", "a_u64"]

    def outcome(field: str, value: object) -> object:
        try:
            return module.Numbers(**{field: value}).encode()
        except flexbuf.FlexError as e:
            return (type(e).__name__, str(e), e.path)

    written: set[str] = set()
    refused: set[str] = set()
    for field in int_fields:
        for v in ints:
            exact = outcome(field, v)
            assert exact == outcome(field, Num(v)), (field, v)
            if isinstance(exact, bytes):
                assert getattr(module.Numbers.decode(exact), field) == v
                written.add(field)
            else:
                assert exact[2] == f"$.{field}"
                refused.add(field)
    for field in ["a_f32", "a_f64"]:
        for f in floats:
            exact = outcome(field, f)
            assert exact == outcome(field, Real(f)), (field, f)
            assert isinstance(exact, bytes)
            back = getattr(module.Numbers.decode(exact), field)
            if field == "a_f64":
                assert back == f
            elif abs(f) <= 3.4028234663852886e38:
                assert back == struct.unpack("<f", struct.pack("<f", f))[0]
            else:
                # Beyond f32's range a float rounds to an infinity.
                assert back == math.copysign(math.inf, f)
            written.add(field)
    # Each integer field both wrote values in range and refused the rest.
    assert written >= set(int_fields) and refused == set(int_fields), (written, refused)


ENUM_SCHEMA = """
namespace enums;
enum Dense : i8 { A = -3, B = 0, C = 5 }
enum Sparse : i64 { Lo = -9223372036854775808, Mid = 0, Hi = 9223372036854775807 }
enum Wide : i32 { X = 0, Y = 5000 }
message Holder { d: Dense; s: Sparse; w: Wide; ds: [Dense]; }
"""


def test_enum_fields_accept_exactly_their_members(tmp_path: Path) -> None:
    """Enum values are looked up by value on encode (checked) and decode
    (the member returned): enums with gaps, with values at both ends of
    i64 and with values too far apart for a table must accept every member
    and refuse every other value, on both sides."""
    schema = tmp_path / "enums.fxs"
    schema.write_text(ENUM_SCHEMA)
    m = load(generate(schema, tmp_path / "out"), "gen_enums")
    fields = {"d": m.Dense, "s": m.Sparse, "w": m.Wide}
    for name, enum_type in fields.items():
        for member in enum_type:
            # The member itself, and its value as a plain int.
            for given in (member, int(member)):
                back = getattr(m.Holder.decode(m.Holder(**{name: given}).encode()), name)
                assert back is member, (name, given)
            assert getattr(m.Holder.decode(flexbuf.dumps({name: int(member)})), name) is member
        values = [int(v) for v in enum_type]
        near = {v + d for v in values for d in (-1, 1)} | {-1024, 1024, 2**40}
        for raw in sorted(v for v in near if v not in values and -(2**63) <= v < 2**63):
            with pytest.raises(flexbuf.EncodeError, match=f"{raw} is not a value of enum {enum_type.__name__}"):
                m.Holder(**{name: raw}).encode()
            with pytest.raises(flexbuf.SchemaError) as e:
                m.Holder.decode(flexbuf.dumps({name: raw}))
            assert (e.value.reason, e.value.path) == ("enum", f"$.{name}")
    # A bool is no enum value, even where its int value is a member's.
    with pytest.raises(flexbuf.EncodeTypeError) as e1:
        m.Holder(d=False).encode()
    assert e1.value.path == "$.d"
    # Values beyond i64 are refused as out of range, not read as some member.
    with pytest.raises(flexbuf.EncodeError):
        m.Holder(s=2**64).encode()
    # The list field: members in order, and an element outside refused at its index.
    holder = m.Holder(ds=[m.Dense.C, m.Dense.A, m.Dense.B, m.Dense.C])
    assert m.Holder.decode(holder.encode()).ds == holder.ds
    with pytest.raises(flexbuf.SchemaError) as e2:
        m.Holder.decode(flexbuf.dumps({"ds": [0, 4]}))
    assert (e2.value.reason, e2.value.path) == ("enum", "$.ds[1]")


def test_enum_fields_read_from_their_slots_as_by_key(tmp_path: Path) -> None:
    """With the map's keys exactly the message's, enum fields are read from
    their slots; with one more key, by key through the general path. Both
    must give the same member or the same error, and an instance or list
    holding members stays tracked by the collector (members are objects
    the collector tracks)."""
    schema = tmp_path / "enums.fxs"
    schema.write_text(ENUM_SCHEMA)
    m = load(generate(schema, tmp_path / "out"), "gen_enums_slots")
    fields = {"d": m.Dense, "s": m.Sparse, "w": m.Wide}

    def buffer(target: str, kind: str, raw: int, extra: bool) -> bytes:
        b = flexbuf.Builder()
        b.start_map()
        for name in ["d", "ds", "s", "w"] + (["zz"] if extra else []):
            b.key(name)
            if name == "ds":
                b.start_vector()
                b.end_vector()
            elif name != target:
                b.int(0 if name != "d" else -3)
            else:
                getattr(b, kind)(raw)
        b.end_map()
        return bytes(b.finish())

    def outcome(data: bytes, target: str) -> object:
        try:
            v = m.Holder.decode(data)
        except flexbuf.SchemaError as e:
            return ("error", e.reason, e.path)
        assert gc.is_tracked(v)
        return getattr(v, target)

    seen: set[object] = set()
    for target, enum_type in fields.items():
        values = [int(v) for v in enum_type]
        raws = sorted({v + d for v in values for d in (-1, 0, 1)} | {-1024, 1024})
        for raw in raws:
            for kind in ("int", "uint"):
                if not (-(2**63) <= raw < 2**63) or (kind == "uint" and raw < 0):
                    continue
                fast, general = outcome(buffer(target, kind, raw, False), target), outcome(buffer(target, kind, raw, True), target)
                assert fast == general, (target, kind, raw)
                if raw in values:
                    assert fast is enum_type(raw)
                seen.add(fast if isinstance(fast, tuple) else "member")
    assert seen == {"member", ("error", "enum", "$.d"), ("error", "enum", "$.s"), ("error", "enum", "$.w")}, seen
    holder = m.Holder.decode(m.Holder(ds=[m.Dense.A, m.Dense.C]).encode())
    assert gc.is_tracked(holder) and gc.is_tracked(holder.ds)
    assert holder.ds == [m.Dense.A, m.Dense.C] and holder.ds[1] is m.Dense.C


LISTS_SCHEMA = """
namespace lists;
message Lists { shorts: [u16]; flags: [bool]; reals: [f32]; pair: [i8; 2]; }
"""


def test_numeric_lists_of_every_length_write_and_refuse_as_element_by_element(tmp_path: Path) -> None:
    """Numeric lists are converted on the stack up to 16 elements and into a
    heap buffer beyond: lists on both sides of that length must read back
    equal, and a bad element anywhere must be refused at its index."""
    schema = tmp_path / "lists.fxs"
    schema.write_text(LISTS_SCHEMA)
    m = load(generate(schema, tmp_path / "out"), "gen_lists")
    for n in (0, 1, 15, 16, 17, 40):
        shorts = [(i * 4099) % 65536 for i in range(n)]
        flags = [i % 3 == 0 for i in range(n)]
        reals = [i + 0.5 for i in range(n)]
        value = m.Lists(shorts=shorts, flags=flags, reals=reals, pair=(-128, 127))
        back = m.Lists.decode(value.encode())
        assert (back.shorts, back.flags, back.reals, back.pair) == (shorts, flags, reals, (-128, 127)), n
        for bad_at in {0, n // 2, n - 1} if n else set():
            with pytest.raises(flexbuf.EncodeOverflowError) as e:
                m.Lists(shorts=shorts[:bad_at] + [65536] + shorts[bad_at + 1:]).encode()
            assert e.value.path == f"$.shorts[{bad_at}]"
            with pytest.raises(flexbuf.EncodeTypeError) as e2:
                m.Lists(reals=reals[:bad_at] + ["x"] + reals[bad_at + 1:]).encode()
            assert e2.value.path == f"$.reals[{bad_at}]"
            with pytest.raises(flexbuf.EncodeTypeError) as e3:
                m.Lists(flags=flags[:bad_at] + [1] + flags[bad_at + 1:]).encode()
            assert e3.value.path == f"$.flags[{bad_at}]"
    with pytest.raises(flexbuf.EncodeOverflowError) as e4:
        m.Lists(pair=(0, 128)).encode()
    assert e4.value.path == "$.pair[1]"


def test_encode_keeps_a_large_buffer_for_the_next_and_lets_it_go_after_a_small_one(tmp_path: Path) -> None:
    """The generated classes' ``encode`` writes into one builder per thread.
    After a large message it keeps that buffer's memory for the next call
    (a stream of large messages then reuses it instead of growing and
    faulting in a new one each time); after a small message it lets it go."""
    from flexbuf import _native

    schema = tmp_path / "lists.fxs"
    schema.write_text(LISTS_SCHEMA)
    m = load(generate(schema, tmp_path / "out"), "gen_lists_capacity")
    large = m.Lists(shorts=[40_000] * 1_500_000)
    small = m.Lists(shorts=[1, 2, 3])
    assert len(large.encode()) > 2_000_000
    # Each call clears the builder first: the large buffer's memory is kept
    # by the call after it, and the call after a small one lets it go.
    small.encode()
    kept = _native._typed_encode_capacity()
    assert kept is not None and kept >= 2_000_000, kept
    small.encode()
    released = _native._typed_encode_capacity()
    assert released is not None and released <= 1 << 20, released
    assert m.Lists.decode(small.encode()) == small and m.Lists.decode(large.encode()) == large


def _key_path(k: str) -> str:
    """How an error path names map key `k`."""
    plain = k.isascii() and k.isidentifier()
    return f".{k}" if plain else f"[{json.dumps(k, ensure_ascii=False)}]"


DICTS_SCHEMA = """
namespace dicts;
message Rec { id: i64; counts: {string: i64}; labels: {string: string}; }
message Recs { items: [Rec]; }
"""


def test_string_map_keys_in_any_order_and_any_objects_encode_alike(tmp_path: Path) -> None:
    """`{string: T}` fields sort their keys by an eight-byte prefix (the
    whole keys only when prefixes tie) and, from the second dict of an
    encode on, push a key object met before by the handle of its key.
    Dicts whose keys come in random order as shared objects must give
    the bytes of the same dicts built in key order from fresh key objects
    (each key its own copy, so nothing is found again), and the same
    error when a key holds a NUL; encodes in a row, and after a failed
    one, must not see each other's keys."""
    import random

    schema = tmp_path / "dicts.fxs"
    schema.write_text(DICTS_SCHEMA)
    m = load(generate(schema, tmp_path / "out"), "gen_dicts")
    # Keys that tie on their first eight bytes, extend each other, differ
    # only past the prefix or in their last byte, sort differently by code
    # unit than by UTF-8 byte, and are empty, long or non-ASCII.
    pool = ["", "a", "ab", "abcdefg", "abcdefgh", "abcdefgh0", "abcdefgh1", "abcdefgi", "abcdefgh\x7f",
            "b", "a\x01", "a ", "zz", "é", "日本", "\U0001f600", "\uffff", "prefix_1", "prefix_10",
            "prefix_2", "long key past sixteen bytes 1", "long key past sixteen bytes 2", "k" * 40]
    rng = random.Random(11)

    def fresh(k: str) -> str:
        # A new object of the same text (not interned, not cached).
        return "".join([k, "x"])[:-1] if k else str(bytearray(b""), "ascii")

    def records(n: int) -> tuple[object, object, list[dict[str, object]]]:
        shared, sorted_fresh, raw = [], [], []
        for i in range(n):
            ck = rng.sample(pool, rng.randint(0, 6))
            lk = rng.sample(pool, rng.randint(0, 6))
            counts = {k: rng.randint(-(2**40), 2**40) for k in ck}
            labels = {k: f"v{rng.randint(0, 9)}" for k in lk}
            raw.append({"counts": counts, "labels": labels})
            shared.append(m.Rec(id=i, counts=counts, labels=labels))
            in_order = lambda d: {fresh(k): d[k] for k in sorted(d, key=lambda k: k.encode())}  # noqa: E731
            sorted_fresh.append(m.Rec(id=i, counts=in_order(counts), labels=in_order(labels)))
        return m.Recs(items=shared), m.Recs(items=sorted_fresh), raw

    for n in [1, 2, 3, 50, 400]:
        shared, sorted_fresh, raw = records(n)
        a = shared.encode()
        assert a == sorted_fresh.encode(), n
        assert shared.encode() == a, n
        back = m.Recs.decode(a)
        for rec, want in zip(back.items, raw):
            assert rec.counts == want["counts"] and rec.labels == want["labels"]
            assert list(rec.counts) == sorted(want["counts"], key=lambda k: k.encode())

    # Values are written in key order, so a map whose every value is wrong
    # reports the key that sorts first (by UTF-8 bytes).
    printable = [k for k in pool if k.isprintable()]  # (paths escape the rest)
    for _ in range(200):
        keys = rng.sample(printable, rng.randint(1, 8))
        first = min(keys, key=lambda k: k.encode())
        with pytest.raises(flexbuf.EncodeTypeError) as e:
            m.Recs(items=[m.Rec(id=0, labels={"k": "v"}), m.Rec(id=1, labels={k: 1 for k in keys})]).encode()
        assert e.value.path == f"$.items[1].labels{_key_path(first)}", (keys, e.value.path)

    # A NUL in a key: the same error either way, and nothing left behind.
    def outcome(recs: object) -> object:
        try:
            return recs.encode()  # type: ignore[attr-defined]
        except flexbuf.FlexError as e:
            return (type(e).__name__, str(e), e.path)

    good, _, _ = records(30)
    bad = [m.Rec(id=1, counts={"x": 1, "y": 2}), m.Rec(id=2, counts={"y": 3, "a\x00b": 4, "x": 5})]
    bad_fresh = [m.Rec(id=1, counts={fresh("x"): 1, fresh("y"): 2}),
                 m.Rec(id=2, counts={fresh("a\x00b"): 4, fresh("x"): 5, fresh("y"): 3})]
    failed = outcome(m.Recs(items=bad))
    assert isinstance(failed, tuple) and failed == outcome(m.Recs(items=bad_fresh)), failed
    assert good.encode() == outcome(good)  # type: ignore[attr-defined]
    assert m.Recs.decode(good.encode()) == good  # type: ignore[attr-defined]
