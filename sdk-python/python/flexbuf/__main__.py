"""``python -m flexbuf gen``: the flexbuf code generator, from the installed wheel.

    python -m flexbuf gen --lang python schema.fxs -o pkg/

It is the same Rust generator as ``flexbuf gen`` (the CLI) and the other
SDKs' build plugins, compiled into the wheel: no Rust toolchain is needed.
Exit status: 0 on success, 1 when the schema has errors (printed as
``file:line:column: ...``), 2 for a bad command line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import _native


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m flexbuf",
        description="The flexbuf code generator (typed coders from a .fxs schema).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    gen = commands.add_parser(
        "gen",
        help="generate typed coders from a .fxs schema",
        description="Generate typed coders for one language from a .fxs schema "
        "(its imports are followed).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="languages:\n"
        + "\n".join(f"  {name:<8} {summary}" for name, summary in _native.languages()),
    )
    gen.add_argument(
        "--lang",
        required=True,
        choices=[name for name, _ in _native.languages()],
        help="language to generate",
    )
    gen.add_argument("schema", metavar="SCHEMA", help="the schema file (.fxs)")
    gen.add_argument("-o", "--output", required=True, metavar="DIR", help="output directory")
    gen.add_argument(
        "--ts-int64",
        choices=["auto", "checked", "bigint"],
        default="auto",
        help="with --lang ts: how i64/u64 fields are typed (default: auto)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line ``argv`` (``sys.argv[1:]`` when ``None``); returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        written = _native.generate(args.lang, args.schema, args.output, args.ts_int64)
    except ValueError as e:
        # The generator's diagnostics already read `file:line:column: error: ...`.
        print(e, file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
