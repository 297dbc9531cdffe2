"""The shipped stubs match the compiled module, and typed code checks against them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import flexbuf


def test_stubtest_finds_no_mismatch() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "flexbuf"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_package_ships_py_typed_and_stubs() -> None:
    pkg = Path(flexbuf.__file__).parent
    assert (pkg / "py.typed").exists()
    assert (pkg / "_native.pyi").exists()


def test_usage_type_checks(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import flexbuf\n"
        "data: bytes = flexbuf.dumps({'a': [1, 2]})\n"
        "ref: flexbuf.Reference = flexbuf.read(data)\n"
        "n: int = len(ref)\n"
        "try:\n"
        "    flexbuf.validate(data)\n"
        "except flexbuf.ValidationError as e:\n"
        "    where: int | None = e.offset\n"
        "text: str = flexbuf.to_json(data)\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(sample)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
