"""Cross-check with the PyPI `flatbuffers` package's `flexbuffers` module."""

from __future__ import annotations

import pytest
from flatbuffers import flexbuffers

import flexbuf
from conftest import fixture

# The peer requires ASCII keys, and its Dumps cannot write some of our
# fixtures' shapes; these cover maps, vectors, strings, ints, floats, bools, null.
ASCII_FIXTURES = ["api_response", "wide_map", "time_series", "repeated_maps", "deep_nesting", "metrics_96k"]


@pytest.mark.parametrize("name", ASCII_FIXTURES)
def test_the_peer_reads_our_bytes(name: str) -> None:
    obj = fixture(name)
    assert flexbuffers.Loads(flexbuf.dumps(obj)) == obj


@pytest.mark.parametrize("name", ASCII_FIXTURES)
def test_we_read_the_peers_bytes(name: str) -> None:
    obj = fixture(name)
    data = flexbuffers.Dumps(obj)
    flexbuf.validate(data)
    assert flexbuf.loads(data) == obj
    assert flexbuf.read(data).to_python() == obj


def test_typed_vectors_from_the_peer_are_zero_copy_readable() -> None:
    b = flexbuffers.Builder()
    b.TypedVectorFromElements([1, 2, 3], element_type=flexbuffers.Type.INT)
    data = b.Finish()
    ref = flexbuf.read(bytes(data))
    assert ref.type == "vector_int" and memoryview(ref).tolist() == [1, 2, 3]
