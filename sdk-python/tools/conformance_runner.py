"""Python conformance runner: replays conformance/ with the flexbuf package.

Prints one JSON line per category, in the format every runner uses:

    {"lang":"python","category":"bytes identical","passed":N,"total":M,"failures":["case: reason", ...]}

Categories:

- ``bytes identical``: each build case's ops through ``flexbuf.Builder``; the
  bytes must equal the golden bytes (the builder must refuse the deprecated
  typed string vector).
- ``values identical``: each golden buffer read through ``flexbuf.Reference``
  (lazy checked reads and verified reads) into the annotated notation
  (``[type, width, payload]``); it must equal the case's value.
- ``invalid rejected``: every file of ``invalid/manifest.json``, with the rules
  of conformance/README.md: invalid files are rejected by ``validate``,
  ``loads``, ``read(verify=True)`` and ``to_json`` with the manifest's error
  kind, and a full checked read through a lazy ``Reference`` fails; DAG bombs
  raise ``BudgetError``; valid files read the same checked and verified.
- ``agreement``: every damaged buffer of the file named by ``FLEXBUF_DAMAGED``
  (or ``--damaged``; written by ``flexbuf-conformance damage``, see
  conformance/README.md): ``validate`` gives the core's verdict; an accepted
  buffer decodes (``loads``, ``to_json``, a full lazy read) unless the core's
  own expansion hits the budget, and a rejected one fails ``loads``,
  ``read(verify=True)`` and ``to_json`` with ``ValidationError``; nothing
  raises anything but a ``flexbuf.FlexError``.
- ``typed``: each case of ``typed/*.json`` through the classes generated from
  its schema by ``flexbuf gen --lang python`` (decode, re-encode, compare bytes
  or the error class and path).
- ``typed agreement``: every damaged input of the file named by
  ``FLEXBUF_TYPED_DAMAGED`` (or ``--typed-damaged``; written by
  ``typed-conformance damage``, see conformance/typed/README.md) decoded in one
  pass with the generated classes, against the Rust outcome.

Usage: python conformance_runner.py [--conformance DIR] [--flexbuf CMD] [--gen-dir DIR] [--damaged FILE] [--typed-damaged FILE]
Exit status: 0 when every case passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import math
import os
import shlex
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import flexbuf

ROOT = Path(__file__).resolve().parents[2]

ELEMENTS = {
    ("int", 1): "i8",
    ("int", 2): "i16",
    ("int", 4): "i32",
    ("int", 8): "i64",
    ("uint", 1): "u8",
    ("uint", 2): "u16",
    ("uint", 4): "u32",
    ("uint", 8): "u64",
    ("float", 4): "f32",
    ("float", 8): "f64",
    ("bool", 1): "bool",
}


def f32_bits(h: str) -> float:
    value: float = struct.unpack("<f", struct.pack("<I", int(h, 16)))[0]
    return value


def f64_bits(h: str) -> float:
    value: float = struct.unpack("<d", struct.pack("<Q", int(h, 16)))[0]
    return value


def scalar_values(kind: str, values: list[Any]) -> list[Any]:
    if kind == "float":
        return [f32_bits(v) if len(v) == 8 else f64_bits(v) for v in values]
    if kind == "bool":
        return list(values)
    return [int(v) for v in values]


def build(flags: int, ops: list[list[Any]]) -> bytes:
    """Replays a case's ops into a fresh Builder with the C++ sharing flags."""
    b = flexbuf.Builder(share_keys=bool(flags & 1), share_strings=bool(flags & 2))
    marks: list[flexbuf.ValueHandle] = []
    for op in ops:
        name, args = op[0], op[1:]
        if name in ("null", "start_map", "end_map", "start_vector"):
            getattr(b, name)()
        elif name == "bool":
            b.bool(args[0])
        elif name in ("int", "uint", "indirect_int", "indirect_uint"):
            getattr(b, name)(int(args[0]))
        elif name in ("float", "indirect_float"):
            getattr(b, name)(f32_bits(args[0]))
        elif name in ("double", "indirect_double"):
            getattr(b, name)(f64_bits(args[0]))
        elif name in ("key", "string"):
            getattr(b, name)(args[0])
        elif name == "blob":
            b.blob(bytes.fromhex(args[0]))
        elif name == "end_vector":
            b.end_vector(typed=args[0], fixed=args[1])
        elif name in ("scalar_vector", "fixed_vector", "typed_vector"):
            kind, width, values = args
            getattr(b, name)(scalar_values(kind, values), ELEMENTS[(kind, width)])
        elif name == "force_min_width":
            b.force_min_width(args[0])
        elif name == "mark":
            handle = b.last_value()
            if handle is None:
                raise ValueError("mark with nothing pushed")
            marks.append(handle)
        elif name == "reuse":
            b.reuse_value(marks[args[0]])
        else:
            raise ValueError(f"unknown op {name!r}")
    return b.finish()


def float_payload(f: float) -> str:
    """Rust's shortest round-trip form (`{:?}`) of a float, as the notation uses."""
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    r = repr(f)
    if "e" in r:
        mantissa, exp = r.split("e")
        sign = "-" if exp.startswith("-") else ""
        return f"{mantissa}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    return r


def annotate(ref: flexbuf.Reference) -> list[Any]:
    """The annotated notation of a value: [type, width, payload]."""
    ty, width = ref.type, ref.width
    payload: Any
    if ty == "null":
        payload = None
    elif ty == "bool":
        payload = ref.value
    elif ty in ("int", "uint", "indirect_int", "indirect_uint"):
        payload = str(ref.value)
    elif ty in ("float", "indirect_float"):
        payload = float_payload(ref.value)
    elif ty in ("string", "key"):
        payload = ref.value
    elif ty == "blob":
        payload = ref.value.hex()
    elif ty == "map":
        payload = [[k, annotate(ref.at(k))] for k in ref.keys()]
    else:
        payload = [annotate(ref.at(i)) for i in range(len(ref))]
    return [ty, width, payload]


class Category:
    def __init__(self, name: str) -> None:
        self.name = name
        self.passed = 0
        self.total = 0
        self.failures: list[str] = []

    def check(self, case: str, run: Callable[[], str | None]) -> None:
        self.total += 1
        try:
            reason = run()
        except Exception as e:  # a crash of one case must not stop the others
            reason = f"unexpected {type(e).__name__}: {e}"
        if reason is None:
            self.passed += 1
        else:
            self.failures.append(f"{case}: {reason}")

    def line(self) -> str:
        return json.dumps(
            {
                "lang": "python",
                "category": self.name,
                "passed": self.passed,
                "total": self.total,
                "failures": self.failures,
            },
            ensure_ascii=False,
        )


def cases(conformance: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(glob.glob(str(conformance / "cases" / "*.json"))):
        with open(path, encoding="utf-8") as f:
            out.extend(json.load(f)["cases"])
    return out


def run_bytes(conformance: Path) -> Category:
    cat = Category("bytes identical")
    for case in cases(conformance):

        def run(case: dict[str, Any] = case) -> str | None:
            if case.get("deviation") == "typed-string-vector":
                # C++ writes the deprecated typed string vector; our builder must refuse.
                try:
                    build(case["flags"], case["ops"])
                except flexbuf.EncodeError:
                    return None
                return "the builder wrote a deprecated typed string vector"
            got = build(case["flags"], case["ops"]).hex()
            return None if got == case["bytes"] else f"got {got}, want {case['bytes']}"

        cat.check(case["name"], run)
    return cat


def run_values(conformance: Path) -> Category:
    cat = Category("values identical")
    for case in cases(conformance):

        def run(case: dict[str, Any] = case) -> str | None:
            got = annotate(flexbuf.read(bytes.fromhex(case["bytes"])))
            if got != case["value"]:
                return f"got {json.dumps(got)[:300]}, want {json.dumps(case['value'])[:300]}"
            verified = annotate(flexbuf.read(bytes.fromhex(case["bytes"]), verify=True))
            return None if verified == got else "verified read differs from the lazy read"

        cat.check(case["name"], run)
    return cat


class LimitError(Exception):
    """A checked read hit one of its bounds (depth, values, bytes)."""


class Limits:
    """Bounds of a full checked read (conformance/README.md, "Invalid corpus")."""

    def __init__(self, max_values: int = 200_000) -> None:
        self.values = 0
        self.bytes = 0
        self.max_values = max_values

    def charge(self, values: int = 0, nbytes: int = 0) -> None:
        self.values += values
        self.bytes += nbytes
        if self.values > self.max_values:
            raise LimitError(f"more than {self.max_values} values")
        if self.bytes > 16 << 20:
            raise LimitError("more than 16 MiB of string, key and blob bytes")


def annotate_bounded(ref: flexbuf.Reference, limits: Limits, depth: int = 0) -> list[Any]:
    """`annotate` with the bounds of a full checked read (strings' NULs are
    checked by the Reference itself on unverified bytes)."""
    limits.charge(values=1)
    ty, width = ref.type, ref.width
    payload: Any
    if ty == "map" or ty.startswith("vector"):
        if depth >= 64:
            raise LimitError("deeper than 64")
        if ty == "map":
            payload = []
            for k in ref.keys():
                limits.charge(nbytes=len(k.encode()))
                payload.append([k, annotate_bounded(ref.at(k), limits, depth + 1)])
        else:
            payload = [annotate_bounded(ref.at(i), limits, depth + 1) for i in range(len(ref))]
        return [ty, width, payload]
    value = annotate(ref)
    if ty in ("string", "key"):
        limits.charge(nbytes=len(value[2].encode()))
    elif ty == "blob":
        limits.charge(nbytes=len(value[2]) // 2)
    return value


def checked_read(data: bytes, max_values: int = 200_000) -> list[Any]:
    return annotate_bounded(flexbuf.read(data), Limits(max_values))


EXEMPT = {"unsorted_keys", "duplicate_keys", "key_value_length_mismatch"}


def run_invalid(conformance: Path) -> Category:
    cat = Category("invalid rejected")
    folder = conformance / "invalid"
    with open(folder / "manifest.json", encoding="utf-8") as f:
        manifest = json.load(f)
    for entry in manifest:

        def run(entry: dict[str, Any] = entry) -> str | None:
            data = (folder / entry["file"]).read_bytes()
            if not entry["valid"]:
                want = entry.get("error", "any")
                for name, call in (
                    ("validate", lambda: flexbuf.validate(data)),
                    ("loads", lambda: flexbuf.loads(data)),
                    ("read(verify=True)", lambda: flexbuf.read(data, verify=True)),
                    ("to_json", lambda: flexbuf.to_json(data)),
                ):
                    try:
                        call()
                    except flexbuf.ValidationError as e:
                        if want != "any" and e.kind != want:
                            return f"{name} raised {e.kind}, want {want}"
                        continue
                    return f"{name} accepted an invalid buffer"
                try:
                    checked_read(data)
                except (flexbuf.FlexError, LimitError, KeyError, IndexError):
                    return None
                if entry["class"] in EXEMPT:
                    return None
                return "a full checked read found no error"
            flexbuf.validate(data)
            verified = flexbuf.read(data, verify=True)
            if entry.get("expand") == "budget":
                for name, call in (
                    ("loads", lambda: flexbuf.loads(data)),
                    ("to_json", lambda: flexbuf.to_json(data)),
                    ("Reference.to_python", lambda: flexbuf.read(data).to_python()),
                ):
                    try:
                        call()
                    except flexbuf.BudgetError:
                        continue
                    return f"{name} expanded a DAG bomb instead of raising BudgetError"
                try:
                    checked_read(data)
                except LimitError:
                    return None
                return "a full checked read expanded a DAG bomb"
            flexbuf.loads(data)
            if checked_read(data) != annotate(verified):
                return "checked and verified reads differ"
            if "json" in entry:
                got = flexbuf.to_json(data)
                if got != entry["json"]:
                    return f"to_json gave {got!r}, want {entry['json']!r}"
            return None

        cat.check(entry["file"], run)
    return cat


DAMAGED_MAGIC = b"FLEXBUF-DAMAGED\x01"
# Full reads of damaged DAG bombs stop here (the corpus's 200,000 would make
# a handful of buffers take most of the category's time in Python).
AGREEMENT_VALUES = 20_000


def load_damaged(path: Path) -> list[tuple[str, str, str, bytes]]:
    """(name, core verify verdict, core to_json outcome, bytes) per damaged buffer."""
    data = path.read_bytes()
    if data[:16] != DAMAGED_MAGIC:
        raise ValueError(f"{path} is not a damaged-buffer file")
    (count,) = struct.unpack_from("<I", data, 16)
    pos = 20
    out = []
    for _ in range(count):
        (n,) = struct.unpack_from("<I", data, pos)
        name, verify, json_outcome = data[pos + 4 : pos + 4 + n].decode().split("\t")
        pos += 4 + n
        (n,) = struct.unpack_from("<I", data, pos)
        out.append((name, verify, json_outcome, data[pos + 4 : pos + 4 + n]))
        pos += 4 + n
    return out


def check_damaged(verify: str, json_outcome: str, data: bytes) -> str | None:
    try:
        flexbuf.validate(data)
        ours = "ok"
    except flexbuf.ValidationError as e:
        ours = e.kind
    if ours != verify:
        return f"core says {verify}, validate says {ours}"
    if verify != "ok":
        for name, call in (
            ("loads", lambda: flexbuf.loads(data)),
            ("read(verify=True)", lambda: flexbuf.read(data, verify=True)),
            ("to_json", lambda: flexbuf.to_json(data)),
        ):
            try:
                call()
            except flexbuf.ValidationError as e:
                if e.kind != verify:
                    return f"{name} fails with {e.kind}, the core's verify with {verify}"
                continue
            return f"{name} accepted a buffer validate rejects"
        try:
            checked_read(data, AGREEMENT_VALUES)
        except (flexbuf.FlexError, LimitError, KeyError, IndexError):
            pass
        return None
    try:
        flexbuf.loads(data)
    except flexbuf.BudgetError:
        if json_outcome != "BudgetExceeded":
            return "loads hit the budget where the core's to_json did not"
    try:
        flexbuf.to_json(data)
        got = "ok"
    except flexbuf.FlexError as e:
        got = e.kind
    if got != json_outcome:
        return f"to_json gives {got}, the core {json_outcome}"
    try:
        lazy = checked_read(data, AGREEMENT_VALUES)
    except LimitError:
        return None
    verified = annotate_bounded(flexbuf.read(data, verify=True), Limits(AGREEMENT_VALUES))
    return None if lazy == verified else "checked and verified reads differ"


def run_agreement(path: Path) -> Category:
    cat = Category("agreement")
    for name, verify, json_outcome, data in load_damaged(path):
        cat.check(name, lambda: check_damaged(verify, json_outcome, data))
    return cat



def generate(flexbuf_cmd: list[str], schema: Path, out: Path) -> None:
    subprocess.run(
        [*flexbuf_cmd, "gen", "--lang", "python", str(schema), "-o", str(out)],
        check=True,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
    )


def load_module(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TypedModules:
    """The modules generated from each schema (by its path relative to
    ``conformance/``), generated into ``gen_dir`` on first use."""

    def __init__(self, conformance: Path, flexbuf_cmd: list[str], gen_dir: Path) -> None:
        self.conformance = conformance
        self.flexbuf_cmd = flexbuf_cmd
        self.gen_dir = gen_dir
        self.modules: dict[str, ModuleType | Exception] = {}

    def __call__(self, schema: str) -> ModuleType:
        if schema not in self.modules:
            try:
                out = self.gen_dir / schema.replace("/", "_").removesuffix(".fxs")
                src = self.conformance / schema
                target = out / f"{src.stem}.py"
                if not target.exists():
                    generate(self.flexbuf_cmd, src, out)
                self.modules[schema] = load_module(target, f"_conformance_{out.name}")
            except Exception as e:
                self.modules[schema] = e
        m = self.modules[schema]
        if isinstance(m, Exception):
            raise m
        return m


def run_typed(conformance: Path, module_for: TypedModules) -> Category | None:
    files = sorted(glob.glob(str(conformance / "typed" / "*.json")))
    if not files:
        return None
    cat = Category("typed")

    for path in files:
        with open(path, encoding="utf-8") as f:
            file_cases = json.load(f)["cases"]
        for case in file_cases:

            def run(case: dict[str, Any] = case) -> str | None:
                module = module_for(case["schema"])
                cls = getattr(module, case["type"].rsplit(".", 1)[-1])
                if "input" in case:
                    data = bytes.fromhex(case["input"])
                else:
                    data = (conformance / case["input_file"]).read_bytes()
                expect = case["expect"]
                try:
                    value = cls.decode(data)
                except flexbuf.ValidationError:
                    outcome: tuple[str, str | None] = ("invalid", None)
                except flexbuf.SchemaError as e:
                    outcome = (e.reason, e.path or "$")
                else:
                    got = value.encode()
                    if "error" in expect:
                        return f"decoded, want {expect['error']}"
                    if "bytes" in expect:
                        want = bytes.fromhex(expect["bytes"])
                    else:
                        want = (conformance / expect["bytes_file"]).read_bytes()
                    if got != want:
                        return f"re-encoded {got.hex()[:200]}, want {want.hex()[:200]}"
                    return None
                if "error" not in expect:
                    return f"failed with {outcome[0]} at {outcome[1]}, want bytes"
                want_err = expect["error"]
                if outcome[0] != want_err["kind"]:
                    return f"error {outcome[0]} at {outcome[1]}, want {want_err['kind']} at {want_err.get('path')}"
                if want_err["kind"] != "invalid" and outcome[1] != want_err.get("path"):
                    return f"error at {outcome[1]}, want {want_err.get('path')}"
                return None

            cat.check(case["name"], run)
    return cat


def typed_outcome(cls: Any, data: bytes) -> str:
    """The outcome text of conformance/typed/README.md ("Typed agreement") of
    one one-pass decode of ``data`` as ``cls``: ``bytes HEX`` (the value
    re-encoded), or ``KIND at PATH`` (the case class of a schema error, the
    core's kind name of any other error)."""
    try:
        value = cls.decode(data)
    except flexbuf.SchemaError as e:
        return f"{e.reason} at {e.path or '$'}"
    except flexbuf.FlexError as e:
        return f"{e.kind} at {e.path or '$'}"
    return f"bytes {value.encode().hex()}"


def typed_agreement_failure(item: dict[str, Any], got: str) -> str | None:
    """Whether ``got`` keeps the contract with the Rust outcome of ``item``: on
    a buffer the core's verifier accepts, the same outcome; on any other, the
    same value whenever both decode one (errors may differ there)."""
    want = item["expect"]
    if got == want:
        return None
    if item["verify"] == "ok":
        return f"got {cut(got)}, Rust {cut(want)} (a valid buffer)"
    if got.startswith("bytes ") and want.startswith("bytes "):
        return f"decoded another value than Rust: {cut(got)}, Rust {cut(want)}"
    return None


def cut(text: str) -> str:
    return text if len(text) <= 120 else f"{text[:120]}... ({len(text)} chars)"


def run_typed_agreement(path: Path, module_for: TypedModules) -> Category:
    """Every damaged input of ``path`` (written by ``typed-conformance damage``)
    decoded in one pass with the generated classes, against the Rust coders'
    outcome; anything raised but a ``flexbuf.FlexError`` fails the item."""
    cat = Category("typed agreement")
    with open(path, encoding="utf-8") as f:
        items = json.load(f)["items"]
    for item in items:

        def run(item: dict[str, Any] = item) -> str | None:
            cls = getattr(module_for(item["schema"]), item["type"].rsplit(".", 1)[-1])
            return typed_agreement_failure(item, typed_outcome(cls, bytes.fromhex(item["input"])))

        cat.check(item["name"], run)
    return cat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conformance", type=Path, default=ROOT / "conformance")
    parser.add_argument(
        "--flexbuf",
        default=os.environ.get("FLEXBUF_CLI", "cargo run -q -p flexbuf-cli --"),
        help="command that runs the flexbuf CLI (for `gen --lang python`)",
    )
    parser.add_argument("--gen-dir", type=Path, help="where to generate (default: a temporary directory)")
    parser.add_argument(
        "--categories",
        default="bytes,values,invalid,agreement,typed",
        help="comma-separated categories to run",
    )
    parser.add_argument(
        "--damaged",
        type=Path,
        default=os.environ.get("FLEXBUF_DAMAGED") or None,
        help="damaged-buffer file for the agreement category (default: $FLEXBUF_DAMAGED; none: skipped)",
    )
    parser.add_argument(
        "--typed-damaged",
        type=Path,
        default=os.environ.get("FLEXBUF_TYPED_DAMAGED") or None,
        help="damaged typed inputs for the typed agreement category (default: $FLEXBUF_TYPED_DAMAGED; none: skipped)",
    )
    args = parser.parse_args()
    wanted = set(args.categories.split(","))
    conformance: Path = args.conformance
    results: list[Category] = []
    if "bytes" in wanted:
        results.append(run_bytes(conformance))
    if "values" in wanted:
        results.append(run_values(conformance))
    if "invalid" in wanted:
        results.append(run_invalid(conformance))
    if "agreement" in wanted and args.damaged is not None:
        results.append(run_agreement(Path(args.damaged)))
    if "typed" in wanted:
        with tempfile.TemporaryDirectory() as tmp:
            modules = TypedModules(conformance, shlex.split(args.flexbuf), args.gen_dir or Path(tmp))
            typed = run_typed(conformance, modules)
            if typed is not None:
                results.append(typed)
            if args.typed_damaged is not None:
                results.append(run_typed_agreement(Path(args.typed_damaged), modules))
    for cat in results:
        print(cat.line())
    return 0 if all(c.passed == c.total for c in results) else 1


if __name__ == "__main__":
    sys.exit(main())
