"""``from_json`` against the C++ reference's JSON parser.

``conformance/json/documents.json`` holds JSON documents (edge numbers,
escapes, random documents) with the bytes libflatbuffers' ``ParseFlexBuffer``
makes of each; ``from_json`` must write exactly those bytes.
"""

from __future__ import annotations

import json

from conftest import CONFORMANCE

import flexbuf


def test_from_json_writes_the_cpp_parsers_bytes() -> None:
    cases = json.loads((CONFORMANCE / "json" / "documents.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 400
    for case in cases:
        assert flexbuf.from_json(case["text"]).hex() == case["hex"], case["text"]
