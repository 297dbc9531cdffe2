"""``python -m flexbuf gen``: the generator inside the wheel writes coders that import and round-trip."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import flexbuf

SCHEMA = """namespace demo;

/// A point with a label.
message Point {
  x: f64;
  y: f64;
  label: string? = null;
  tags: [string];
}
"""


def _gen(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flexbuf", "gen", *args],
        capture_output=True,
        text=True,
    )


def _load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gen_writes_a_module_that_round_trips(tmp_path: Path) -> None:
    schema = tmp_path / "point.fxs"
    schema.write_text(SCHEMA)
    out = tmp_path / "pkg"
    result = _gen("--lang", "python", str(schema), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert f"wrote {out / 'point.py'}" in result.stdout
    module = _load(out / "point.py")
    point = module.Point(x=1.5, y=-2.0, label="here", tags=["a", "b"])
    data = point.encode()
    assert flexbuf.loads(data) == {"x": 1.5, "y": -2.0, "label": "here", "tags": ["a", "b"]}
    assert module.Point.decode(data) == point


def test_the_function_and_the_command_write_the_same_files(tmp_path: Path) -> None:
    schema = tmp_path / "point.fxs"
    schema.write_text(SCHEMA)
    for lang in ("python", "ts", "kotlin", "rust"):
        via_api = [Path(p) for p in flexbuf.generate(lang, schema, tmp_path / f"api-{lang}")]
        assert via_api, lang
        result = _gen("--lang", lang, str(schema), "-o", str(tmp_path / f"cmd-{lang}"))
        assert result.returncode == 0, result.stderr
        for path in via_api:
            twin = tmp_path / f"cmd-{lang}" / path.relative_to(tmp_path / f"api-{lang}")
            assert twin.read_text() == path.read_text(), twin


def test_a_schema_error_is_reported_with_its_position(tmp_path: Path) -> None:
    schema = tmp_path / "bad.fxs"
    schema.write_text("message A {\n  x: nosuch;\n}\n")
    result = _gen("--lang", "python", str(schema), "-o", str(tmp_path / "out"))
    assert result.returncode == 1
    assert "bad.fxs:2:" in result.stderr, result.stderr
    with pytest.raises(ValueError, match="nosuch"):
        flexbuf.generate("python", schema, tmp_path / "out")


def test_bad_command_lines_are_usage_errors(tmp_path: Path) -> None:
    schema = tmp_path / "point.fxs"
    schema.write_text(SCHEMA)
    unknown = _gen("--lang", "cobol", str(schema), "-o", str(tmp_path))
    assert unknown.returncode == 2 and "invalid choice" in unknown.stderr
    missing = _gen("--lang", "python", str(schema))
    assert missing.returncode == 2 and "--output" in missing.stderr
    with pytest.raises(ValueError, match="ts"):
        flexbuf.generate("python", schema, tmp_path, ts_int64="bigint")
    assert {name for name, _ in flexbuf.languages()} >= {"rust", "python", "ts", "kotlin"}
