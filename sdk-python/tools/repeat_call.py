"""Runs one call on a conformance fixture N times, for instruction counts.

Under callgrind, a call's cost is the difference between two runs divided by
the difference in N (start-up cancels out)::

    PYTHONHASHSEED=0 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python sdk-python/tools/repeat_call.py api_response loads 21

Modes: ``loads`` and ``dumps`` (flexbuf), ``orjson`` and ``orjson_dumps``,
and for the generated classes ``typed_decode`` and ``typed_encode`` (the
fixture's schema is generated into a temporary directory with the CLI named
by ``FLEXBUF_CLI``, default ``target/release/flexbuf``), against
``msgspec_decode`` (MessagePack into the msgspec Structs bench.py mirrors
from the same classes) and ``msgspec_encode`` (their JSON encode), and
``dumps_msgspec`` (``msgspec.json.encode`` of the plain values, ``dumps``'s peer).
Python's garbage collector is off while the calls run, as in bench.py.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

import flexbuf

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "conformance" / "fixtures"
SCHEMAS = ROOT / "conformance" / "schemas"


def root_class(name: str, out: Path) -> Any:
    """The generated class the fixture's root decodes as (the schema's first message)."""
    cli = os.environ.get("FLEXBUF_CLI", str(ROOT / "target" / "release" / "flexbuf"))
    if not Path(cli).is_file():
        sys.exit(
            f"{cli} not found: build it with "
            "`cargo build --release -p flexbuf-cli`, or set FLEXBUF_CLI"
        )
    subprocess.run(
        [cli, "gen", "--lang", "python", str(SCHEMAS / f"{name}.fxs"), "-o", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    spec = importlib.util.spec_from_file_location(f"repeat_{name}", out / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, module._SCHEMA.messages[0].rsplit(".", 1)[-1])


def main() -> None:
    name, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    text = (FIXTURES / f"{name}.json").read_bytes()
    obj = orjson.loads(text)
    fb = flexbuf.dumps(obj)
    with tempfile.TemporaryDirectory() as tmp:
        if mode.startswith(("typed_", "msgspec_")):
            value = root_class(name, Path(tmp)).decode(fb)
            typed = value.encode()
            cls = type(value)
        if mode.startswith("msgspec_"):
            import msgspec

            sys.path.insert(0, str(Path(__file__).parent))
            from bench import struct_mirror

            root_struct, to_struct = struct_mirror(sys.modules[cls.__module__])
            sv = to_struct(value)
            packed = msgspec.msgpack.encode(sv)
            decoder = msgspec.msgpack.Decoder(root_struct)
        if mode == "dumps_msgspec":
            from msgspec.json import encode as msgspec_json_encode
        call = {
            "loads": lambda: flexbuf.loads(fb),
            "dumps": lambda: flexbuf.dumps(obj),
            "orjson": lambda: orjson.loads(text),
            "orjson_dumps": lambda: orjson.dumps(obj),
            "typed_decode": lambda: cls.decode(typed),
            "typed_encode": lambda: value.encode(),
            "msgspec_decode": lambda: decoder.decode(packed),
            "msgspec_encode": lambda: msgspec.json.encode(sv),
            "dumps_msgspec": lambda: msgspec_json_encode(obj),
        }[mode]
        gc.disable()
        for _ in range(n):
            call()


if __name__ == "__main__":
    main()
