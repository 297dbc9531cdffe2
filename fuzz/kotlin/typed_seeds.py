"""Writes the regression seeds of TypedFuzzTest from the Rust typed_decode seeds.

Both targets take one byte that picks the generated type, then the buffer;
the Rust target picks from `dispatch::TYPES` (listed in fuzz/seeds/typed_decode.types), the
Kotlin one from every generated coder sorted by type name. This rewrites each
seed of fuzz/seeds/typed_decode with the Kotlin byte for the same type, into
src/test/resources/dev/flexbuf/fuzz/TypedFuzzTestInputs/typedDecode.

Run from the repository root after `cargo xtask build-all` (which generates
the Kotlin sources this reads), and again whenever a schema gains, loses or
renames a type:

    python3 fuzz/kotlin/typed_seeds.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUST_SEEDS = ROOT / "fuzz" / "seeds" / "typed_decode"
RUST_TYPES = ROOT / "fuzz" / "seeds" / "typed_decode.types"
GENERATED = ROOT / "sdk-kotlin" / "target" / "generated-test-sources" / "flexbuf"
OUT = ROOT / "fuzz" / "kotlin" / "src" / "test" / "resources" / "dev" / "flexbuf" / "fuzz" / "TypedFuzzTestInputs" / "typedDecode"


def rust_types() -> list[str]:
    """The qualified type names the Rust seeds' first byte picks, in order
    (`typed_decode.types`, written by fuzz/examples/make_seeds.rs)."""
    lines = RUST_TYPES.read_text(encoding="utf-8").splitlines()
    return [line.split("\t")[1] for line in lines if line]


def kotlin_types() -> list[str]:
    """Every generated Kotlin coder's type name, sorted (TypedFuzzTest.CODERS)."""
    names: list[str] = []
    for path in sorted(GENERATED.rglob("*.kt")):
        names += re.findall(
            r'override val typeName: [\w.]*String get\(\) = "([^"]+)"', path.read_text(encoding="utf-8")
        )
    return sorted(names)


def main() -> int:
    if not GENERATED.is_dir():
        print(f"{GENERATED} is missing: run `cargo xtask build-all` first", file=sys.stderr)
        return 1
    rust, kotlin = rust_types(), kotlin_types()
    if len(kotlin) > 256:
        print(f"{len(kotlin)} Kotlin coders: one byte cannot pick them all", file=sys.stderr)
        return 1
    index = {name: i for i, name in enumerate(kotlin)}
    # Written over, never cleared: Jazzer puts its findings here too, and
    # they stay as regression inputs.
    OUT.mkdir(parents=True, exist_ok=True)
    written = 0
    for seed in sorted(RUST_SEEDS.iterdir()):
        data = seed.read_bytes()
        if not data:
            continue
        name = rust[data[0] % len(rust)]
        if name not in index:
            print(f"{seed.name}: no Kotlin coder for {name}", file=sys.stderr)
            return 1
        (OUT / seed.name).write_bytes(bytes([index[name]]) + data[1:])
        written += 1
    print(f"wrote {written} seeds for {len(kotlin)} Kotlin coders into {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
