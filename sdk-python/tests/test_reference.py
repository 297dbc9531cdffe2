"""flexbuf.Reference: lazy, zero-copy, content equality, buffer protocol."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import flexbuf
from conftest import fixture


def test_lazy_access_returns_values_for_scalars_and_references_for_containers() -> None:
    data = flexbuf.dumps({"id": 7, "tags": ["a", "b"], "geo": {"lat": 1.5}, "n": None, "blob": b"xy"})
    ref = flexbuf.read(data)
    assert ref.type == "map" and len(ref) == 5 and not ref.verified
    assert ref["id"] == 7 and ref["n"] is None and ref["blob"] == b"xy"
    tags = ref["tags"]
    assert isinstance(tags, flexbuf.Reference) and tags.type == "vector"
    assert tags[0] == "a" and tags[-1] == "b" and list(tags) == ["a", "b"]
    assert ref["geo"]["lat"] == 1.5
    assert list(ref) == ["blob", "geo", "id", "n", "tags"]
    assert ref.keys() == ["blob", "geo", "id", "n", "tags"]
    assert ref.items()[2] == ("id", 7)
    assert "id" in ref and "zz" not in ref and 3 not in ref
    assert ref.get("zz", 5) == 5 and tags.get(9) is None
    assert ref.at("id").type == "int" and ref.at("id").value == 7
    assert ref.to_python() == flexbuf.loads(data)


def test_lookup_errors_are_the_python_ones() -> None:
    ref = flexbuf.read(flexbuf.dumps({"v": [1], "s": "x"}))
    with pytest.raises(KeyError):
        ref["missing"]
    with pytest.raises(IndexError):
        ref["v"][1]
    with pytest.raises(TypeError):
        ref[0]
    with pytest.raises(TypeError):
        ref["v"]["k"]
    with pytest.raises(TypeError):
        len(ref.at("s"))


def test_verified_reads_and_checked_reads_agree() -> None:
    data = flexbuf.dumps(fixture("chat_thread"))
    assert flexbuf.read(data, verify=True).verified
    assert flexbuf.read(data) == flexbuf.read(data, verify=True)
    assert flexbuf.read(data).to_python() == fixture("chat_thread")
    with pytest.raises(flexbuf.ValidationError):
        flexbuf.read(b"\x00\x00\x03", verify=True)


def test_a_reference_keeps_its_bytes_alive() -> None:
    data = flexbuf.dumps({"v": list(range(100))})
    ref = flexbuf.read(data)["v"]
    del data
    gc.collect()
    assert ref[99] == 99
    assert ref.buffer is flexbuf.read(ref.buffer).buffer


def test_bytearray_input_is_copied_so_later_writes_do_not_show() -> None:
    raw = bytearray(flexbuf.dumps({"s": "abc"}))
    ref = flexbuf.read(raw)
    raw[: len(raw)] = b"\xff" * len(raw)
    assert ref["s"] == "abc"


def test_typed_vectors_are_exported_without_a_copy() -> None:
    values = np.array([1.5, -2.25, 1e300], dtype=np.float64)
    ref = flexbuf.read(flexbuf.dumps({"v": values, "i": np.arange(4, dtype=np.int32)}))
    view = memoryview(ref["v"])
    assert view.format == "d" and view.readonly and view.shape == (3,) and view.itemsize == 8
    arr = np.frombuffer(ref["v"], dtype=np.float64)
    assert arr.tolist() == values.tolist()
    # The array reads the reference's bytes in place.
    buf = np.frombuffer(ref.buffer, dtype=np.uint8)
    assert np.shares_memory(arr, buf)
    assert np.asarray(memoryview(ref["i"])).dtype == np.int32
    with pytest.raises(BufferError):
        memoryview(ref)  # a map is not a typed vector
    bools = flexbuf.Builder()
    bools.typed_vector([True, False], "bool")
    assert memoryview(flexbuf.read(bools.finish())).tolist() == [True, False]


def test_equal_maps_compare_and_hash_equal_whatever_the_widths() -> None:
    # Defect regression: equal buffer-backed maps hashed differently.
    a = flexbuf.read(flexbuf.dumps({"a": 1, "b": [1, 2.5, "x"]}))
    b = flexbuf.Builder(share_keys=False)
    b.force_min_width(8)
    b.start_map()
    b.key("b")
    b.start_vector()
    b.uint(1)
    b.double(2.5)
    b.string("x")
    b.end_vector()
    b.key("a")
    b.indirect_int(1)
    b.end_map()
    other = flexbuf.read(b.finish())
    assert a == other and hash(a) == hash(other)
    assert len({a, other}) == 1
    assert a != flexbuf.read(flexbuf.dumps({"a": 2, "b": [1, 2.5, "x"]}))
    assert a != {"a": 1}  # never equal to plain Python objects


def test_empty_map_is_valid_everywhere() -> None:
    # Defect regression: a valid empty map failed validation.
    for obj in ({}, [{}], {"a": {}}):
        data = flexbuf.dumps(obj)
        flexbuf.validate(data)
        assert flexbuf.loads(data) == obj
    assert len(flexbuf.read(flexbuf.dumps({}))) == 0
    assert flexbuf.read(flexbuf.dumps({})) == flexbuf.read(flexbuf.from_json("{}"))


def test_reading_one_field_does_not_decode_the_rest() -> None:
    data = flexbuf.dumps(fixture("api_response"))
    assert flexbuf.read(data)["items"][50]["seller"]["name"] == fixture("api_response")["items"][50]["seller"]["name"]
