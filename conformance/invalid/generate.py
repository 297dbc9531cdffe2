#!/usr/bin/env python3
"""Writes the invalid-input corpus: hand-assembled FlexBuffers that a verifier
must reject (and a few controls it must accept), plus manifest.json.

Every file is assembled byte by byte here, so the corpus does not depend on any
builder under test. Before writing, each case is checked against a small
reference verifier in this script (an independent reading of the wire format),
so a case that is not what its manifest entry claims fails the generator.

Usage (from anywhere; needs only Python 3.11 and its standard library):

    python3 conformance/invalid/generate.py          # rewrite the corpus
    python3 conformance/invalid/generate.py --check  # fail if files differ

Output is deterministic: no clock, randomness or hash ordering is involved.
"""

from __future__ import annotations

import json
import pathlib
import struct
import sys
from dataclasses import dataclass, field

HERE = pathlib.Path(__file__).resolve().parent

# ---------------------------------------------------------------------------
# Wire format constants

NULL, INT, UINT, FLOAT, KEY, STRING = 0, 1, 2, 3, 4, 5
IND_INT, IND_UINT, IND_FLOAT, MAP, VECTOR = 6, 7, 8, 9, 10
VEC_INT, VEC_UINT, VEC_FLOAT, VEC_KEY, VEC_STRING_DEPRECATED = 11, 12, 13, 14, 15
VEC_INT2, VEC_UINT2, VEC_FLOAT2 = 16, 17, 18
VEC_INT3, VEC_UINT3, VEC_FLOAT3 = 19, 20, 21
VEC_INT4, VEC_UINT4, VEC_FLOAT4 = 22, 23, 24
BLOB, BOOL, VEC_BOOL = 25, 26, 36

KNOWN_TYPES = set(range(27)) | {VEC_BOOL}
INLINE_TYPES = {NULL, INT, UINT, FLOAT, BOOL}
TYPED_VECTORS = {VEC_INT: INT, VEC_UINT: UINT, VEC_FLOAT: FLOAT, VEC_KEY: KEY,
                 VEC_STRING_DEPRECATED: KEY, VEC_BOOL: BOOL}
LOG2 = {1: 0, 2: 1, 4: 2, 8: 3}
MAX_DEPTH = 64


def packed(t: int, w: int) -> int:
    """Packed type byte: type code in the upper six bits, log2(width) below."""
    return (t << 2) | LOG2[w]


def fixed_info(t: int) -> tuple[int, int]:
    """(element type, length) of a fixed typed vector type."""
    n = t - VEC_INT2
    return (INT, UINT, FLOAT)[n % 3], n // 3 + 2


# ---------------------------------------------------------------------------
# Assembler


@dataclass
class Val:
    """One value as it appears in a slot: inline bits or an offset to `target`.

    `width` is the width written into the packed type byte. `packed_byte`
    overrides the packed type byte; `slot_raw` overrides the slot's content.
    """

    type: int
    width: int = 1
    inline: int | float | None = None
    target: int | None = None
    packed_byte: int | None = None
    slot_raw: int | None = None

    def packed(self) -> int:
        if self.packed_byte is not None:
            return self.packed_byte
        return packed(self.type, self.width)


@dataclass
class Node(Val):
    """An offset-typed value plus where its parts were written."""

    size_at: int | None = None
    slots: list[int] = field(default_factory=list)
    types_at: int | None = None
    keys: "Node | None" = None
    prefix_at: int | None = None


def inl(t: int, v: int | float = 0, w: int = 1) -> Val:
    return Val(t, w, inline=v)


def I(v: int, w: int = 1) -> Val:  # noqa: E743 - short names keep cases readable
    return inl(INT, v, w)


def F(v: float, w: int = 8) -> Val:
    return inl(FLOAT, v, w)


def raw_val(slot: int, packed_byte: int) -> Val:
    """A slot with arbitrary content and an arbitrary packed type byte."""
    return Val(NULL, 1, slot_raw=slot, packed_byte=packed_byte)


def uint_bytes(v: int, w: int) -> bytes:
    return (v & ((1 << (8 * w)) - 1)).to_bytes(w, "little")


class Asm:
    """Appends FlexBuffer parts children first, the way a builder does."""

    def __init__(self) -> None:
        self.b = bytearray()

    @property
    def pos(self) -> int:
        return len(self.b)

    def align(self, w: int) -> None:
        while len(self.b) % w:
            self.b.append(0)

    def raw(self, data: bytes) -> int:
        p = self.pos
        self.b += data
        return p

    def put(self, v: int, w: int) -> int:
        return self.raw(uint_bytes(v, w))

    def patch(self, at: int, v: int, w: int) -> None:
        self.b[at:at + w] = uint_bytes(v, w)

    def slot(self, v: Val, w: int) -> int:
        """Writes `v` into a slot of width `w` at the current position."""
        p = self.pos
        if v.slot_raw is not None:
            self.put(v.slot_raw, w)
        elif v.target is not None:
            off = p - v.target
            if not 0 <= off < (1 << (8 * w)):
                raise ValueError(f"offset {off} does not fit width {w}")
            self.put(off, w)
        elif v.type == FLOAT and w in (4, 8):
            self.raw(struct.pack("<f" if w == 4 else "<d", v.inline))
        else:
            self.put(int(v.inline or 0), w)
        return p

    # -- leaves --------------------------------------------------------------

    def string(self, s: bytes, w: int = 1, size: int | None = None,
               terminator: bytes = b"\0", t: int = STRING) -> Node:
        self.align(w)
        size_at = self.put(len(s) if size is None else size, w)
        p = self.raw(s)
        self.raw(terminator)
        return Node(t, w, target=p, size_at=size_at)

    def blob(self, data: bytes, w: int = 1, size: int | None = None) -> Node:
        return self.string(data, w, size, b"", BLOB)

    def key(self, s: bytes, nul: bool = True) -> Node:
        p = self.raw(s + (b"\0" if nul else b""))
        return Node(KEY, 1, target=p)

    def indirect(self, t: int, v: int | float, w: int) -> Node:
        self.align(w)
        p = self.pos
        if t == IND_FLOAT and w in (4, 8):
            self.raw(struct.pack("<f" if w == 4 else "<d", v))
        else:
            self.put(int(v), w)
        return Node(t, w, target=p)

    # -- containers ----------------------------------------------------------

    def vector(self, elems: list[Val], w: int = 1, size: int | None = None,
               t: int = VECTOR) -> Node:
        """Untyped vector: size, slots, one packed type byte per element."""
        self.align(w)
        size_at = self.put(len(elems) if size is None else size, w)
        data = self.pos
        slots = [self.slot(e, w) for e in elems]
        types_at = self.pos
        for e in elems:
            self.b.append(e.packed())
        return Node(t, w, target=data, size_at=size_at, slots=slots,
                    types_at=types_at)

    def typed(self, t: int, elems: list, w: int = 1,
              size: int | None = None) -> Node:
        """Typed vector (size prefix, no type bytes); `elems` are numbers or Vals."""
        self.align(w)
        size_at = self.put(len(elems) if size is None else size, w)
        data = self.pos
        slots = [self._typed_elem(t, e, w) for e in elems]
        return Node(t, w, target=data, size_at=size_at, slots=slots)

    def fixed(self, t: int, elems: list, w: int) -> Node:
        """Fixed typed vector: no size prefix, no type bytes."""
        self.align(w)
        data = self.pos
        slots = [self._typed_elem(t, e, w) for e in elems]
        return Node(t, w, target=data, slots=slots)

    def _typed_elem(self, t: int, e, w: int) -> int:
        if isinstance(e, Val):
            return self.slot(e, w)
        elem = TYPED_VECTORS.get(t) or fixed_info(t)[0]
        if elem == FLOAT and w in (4, 8):
            return self.raw(struct.pack("<f" if w == 4 else "<d", e))
        return self.put(int(e), w)

    def map(self, keys: list[Val] | Node, values: list[Val], w: int = 1,
            kw: int = 1, size: int | None = None,
            keys_width_field: int | None = None) -> Node:
        """Map: keys vector (typed, type 14), then [keys offset][keys width][size]
        before an untyped vector of values. `keys` may be an existing keys Node."""
        kv = keys if isinstance(keys, Node) else self.typed(VEC_KEY, keys, kw)
        self.align(w)
        prefix_at = self.slot(Val(VEC_KEY, target=kv.target), w)
        self.put(kv.width if keys_width_field is None else keys_width_field, w)
        node = self.vector(values, w, size, MAP)
        node.keys = kv
        node.prefix_at = prefix_at
        return node

    def finish(self, root: Val, w: int = 1) -> bytes:
        """Root slot at width `w`, packed type byte, width byte."""
        self.align(w)
        self.slot(root, w)
        self.b.append(root.packed())
        self.b.append(w)
        return bytes(self.b)


def keys_of(a: Asm, names: list[bytes]) -> list[Node]:
    return [a.key(n) for n in names]


# ---------------------------------------------------------------------------
# Reference verifier: an independent reading of the format, used only to check
# that every case is what the manifest says it is.


class Reject(Exception):
    def __init__(self, kind: str, where: int) -> None:
        super().__init__(f"{kind} at {where}")
        self.kind = kind


def reference_verify(buf: bytes) -> str | None:
    """None when `buf` is valid, else the name of the first problem found."""
    try:
        _Ref(buf).run()
    except Reject as e:
        return e.kind
    return None


class _Ref:
    def __init__(self, buf: bytes) -> None:
        self.buf = buf
        self.n = len(buf)
        # (position, tag) -> None while in progress, else the subtree height.
        self.seen: dict[tuple[int, int], int | None] = {}

    def run(self) -> None:
        n = self.n
        if n < 3:
            raise Reject("Truncated", 0)
        w = self.buf[-1]
        if w not in LOG2:
            raise Reject("BadWidth", n - 1)
        if n - 2 < w:
            raise Reject("Truncated", 0)
        self.value(n - 2 - w, w, self.buf[-2], 0)

    def read(self, at: int, w: int) -> int:
        if at < 0 or at + w > self.n:
            raise Reject("Truncated", at)
        return int.from_bytes(self.buf[at:at + w], "little")

    def follow(self, slot: int, w: int) -> int:
        off = self.read(slot, w)
        if off > slot:
            raise Reject("OffsetOutOfBounds", slot)
        return slot - off

    def size(self, data: int, w: int) -> int:
        if data < w:
            raise Reject("OffsetOutOfBounds", data)
        n = self.read(data - w, w)
        if n > self.n:
            raise Reject("SizeOutOfBounds", data - w)
        return n

    def span(self, at: int, count: int, unit: int) -> None:
        if at + count * unit > self.n:
            raise Reject("SizeOutOfBounds", at)

    def key(self, at: int) -> bytes:
        end = self.buf.find(b"\0", at)
        if end < 0:
            raise Reject("MissingNul", at)
        k = self.buf[at:end]
        try:
            k.decode("utf-8")
        except UnicodeDecodeError:
            raise Reject("InvalidUtf8", at) from None
        return k

    def depth_ok(self, level: int, at: int) -> None:
        if level > MAX_DEPTH:
            raise Reject("DepthLimit", at)

    def value(self, slot: int, pw: int, pk: int, depth: int) -> int:
        t, w = pk >> 2, 1 << (pk & 3)
        if t not in KNOWN_TYPES:
            raise Reject("UnknownType", slot)
        if t in INLINE_TYPES:
            if t == FLOAT and pw < 4:
                raise Reject("BadWidth", slot)
            return 0
        target = self.follow(slot, pw)
        if t in (IND_INT, IND_UINT, IND_FLOAT):
            if t == IND_FLOAT and w < 4:
                raise Reject("BadWidth", slot)
            self.span(target, w, 1)
            return 0
        if t == KEY:
            self.key(target)
            return 0
        if t in (STRING, BLOB):
            n = self.size(target, w)
            self.span(target, n + (t == STRING), 1)
            if t == STRING:
                if self.buf[target + n] != 0:
                    raise Reject("MissingNul", target + n)
                try:
                    self.buf[target:target + n].decode("utf-8")
                except UnicodeDecodeError:
                    raise Reject("InvalidUtf8", target) from None
            return 0
        if VEC_INT2 <= t <= VEC_FLOAT4:
            elem, n = fixed_info(t)
            if elem == FLOAT and w < 4:
                raise Reject("BadWidth", slot)
            self.depth_ok(depth + 1, target)
            self.span(target, n, w)
            return 1
        return self.container(t, target, w, pk, depth)

    def container(self, t: int, data: int, w: int, pk: int, depth: int) -> int:
        self.depth_ok(depth + 1, data)
        node = (data, pk)
        if node in self.seen:
            h = self.seen[node]
            if h is None:
                raise Reject("Cycle", data)
            self.depth_ok(depth + h, data)
            return h
        self.seen[node] = None
        n = self.size(data, w)
        if t in (VECTOR, MAP):
            self.span(data, n, w + 1)
            if t == MAP:
                self.map_keys(data, w, n)
            h = 0
            for i in range(n):
                child = self.value(data + i * w, w, self.buf[data + n * w + i],
                                   depth + 1)
                h = max(h, child)
            h += 1
        elif t in (VEC_KEY, VEC_STRING_DEPRECATED):
            self.span(data, n, w)
            for i in range(n):
                self.key(self.follow(data + i * w, w))
            h = 1
        elif t == VEC_FLOAT and w < 4 and n > 0:
            # An empty one has no element to misread; the core and C++ accept
            # it (DEVIATIONS.md, "empty float vectors").
            raise Reject("BadWidth", data)
        elif t in (VEC_INT, VEC_UINT, VEC_FLOAT, VEC_BOOL):
            self.span(data, n, w)
            h = 1
        else:
            raise Reject("UnknownType", data)
        self.seen[node] = h
        return h

    def map_keys(self, values: int, w: int, n: int) -> None:
        prefix = values - 3 * w
        if prefix < 0:
            raise Reject("OffsetOutOfBounds", values)
        keys = self.follow(prefix, w)
        kw = self.read(prefix + w, w)
        if kw not in LOG2:
            raise Reject("BadWidth", prefix + w)
        kn = self.size(keys, kw)
        if kn != n:
            raise Reject("KeyValueLengthMismatch", values)
        node = (keys, -kw)  # map keys: checked for order, distinct from plain key vectors
        if node in self.seen:
            return
        self.span(keys, kn, kw)
        prev = None
        for i in range(kn):
            k = self.key(self.follow(keys + i * kw, kw))
            if prev is not None and prev >= k:
                raise Reject("UnsortedKeys", keys + i * kw)
            prev = k
        self.seen[node] = 0


# ---------------------------------------------------------------------------
# Cases

# The error kind (the Rust `ErrorKind` variant name) expected for each class,
# unless a case says otherwise; "any" means only that verification fails.
CLASS_ERROR = {
    "truncated": "Truncated",
    "offset_out_of_range": "OffsetOutOfBounds",
    "offset_forward": "OffsetOutOfBounds",
    "cycle": "Cycle",
    "bad_width": "BadWidth",
    "unknown_type": "UnknownType",
    "size_overflow": "SizeOutOfBounds",
    "size_past_end": "SizeOutOfBounds",
    "depth_bomb": "DepthLimit",
    "unsorted_keys": "UnsortedKeys",
    "duplicate_keys": "UnsortedKeys",
    "non_utf8_string": "InvalidUtf8",
    "non_utf8_key": "InvalidUtf8",
    "key_without_nul": "MissingNul",
    "string_without_nul": "MissingNul",
    "key_value_length_mismatch": "KeyValueLengthMismatch",
    "float_bad_width": "BadWidth",
}
VALID_CLASSES = {"valid", "dag_bomb"}

CASES: list[dict] = []


def case(name: str, cls: str, description: str, *, error: str | None = None,
         expand: str | None = None, json_text: str | None = None):
    """Registers a case; the decorated function returns the file's bytes."""
    assert cls in CLASS_ERROR or cls in VALID_CLASSES, cls

    def register(fn):
        CASES.append({
            "name": name, "class": cls, "description": description,
            "error": error, "expand": expand, "json": json_text, "build": fn,
        })
        return fn
    return register


def simple_root(v_builder, w: int = 1):
    """Builds a buffer whose root is the single value returned by v_builder(asm)."""
    a = Asm()
    return a.finish(v_builder(a), w)


# -- truncated ---------------------------------------------------------------

case("truncated_empty", "truncated",
     "zero bytes: no room for the 3-byte minimum (root, type, width)")(lambda: b"")
case("truncated_one_byte", "truncated",
     "one byte (01): shorter than the 3-byte minimum")(lambda: b"\x01")
case("truncated_two_bytes", "truncated",
     "two bytes (04 01): a trailer with no root slot")(lambda: b"\x04\x01")
case("truncated_root_width2_in_3_bytes", "truncated",
     "root width 2 but only one byte precedes the trailer")(lambda: b"\x05\x04\x02")
case("truncated_root_width4_in_5_bytes", "truncated",
     "root width 4 but only three bytes precede the trailer")(
    lambda: b"\x01\x02\x03\x08\x04")
case("truncated_root_width8_in_9_bytes", "truncated",
     "root width 8 but only seven bytes precede the trailer")(
    lambda: bytes(range(1, 8)) + b"\x0c\x08")


def sample_map() -> bytes:
    """{"a": "hi", "b": [1, 2], "c": 3.5} with 1-byte widths."""
    a = Asm()
    ks = keys_of(a, [b"a", b"b", b"c"])
    s = a.string(b"hi")
    v = a.vector([I(1), I(2)])
    m = a.map(ks, [s, v, F(3.5, 4)], w=4)
    return a.finish(m, 1)


SAMPLE_MAP_JSON = '{"a":"hi","b":[1,2],"c":3.5}'


def truncated_prefix(cut: int, error: str):
    def build() -> bytes:
        data = sample_map()
        return data[:len(data) - cut]
    case(f"truncated_map_minus_{cut}", "truncated",
         f"the valid map {SAMPLE_MAP_JSON} with its last {cut} byte(s) cut off, "
         "so the trailer is read from the middle of the data", error=error)(build)


truncated_prefix(1, "any")
truncated_prefix(2, "any")
truncated_prefix(5, "any")
truncated_prefix(20, "any")


@case("truncated_half_vector", "truncated",
      "the first half of a valid 8-byte-wide vector of strings: the trailer "
      "bytes are zeros from the middle of an element", error="any")
def _():
    a = Asm()
    s1 = a.string(b"one")
    s2 = a.string(b"two")
    v = a.vector([s1, s2, I(-1)], w=8)
    data = a.finish(v, 1)
    return data[:len(data) // 2]


# -- offset_out_of_range -----------------------------------------------------


@case("oor_root_vector_size_before_start", "offset_out_of_range",
      "root vector (width 1) whose offset lands on byte 0, so its size prefix "
      "would sit at byte -1")
def _():
    a = Asm()
    a.raw(b"\x07\x04")
    return a.finish(Node(VECTOR, 1, target=0), 1)


@case("oor_root_string_w4_size_before_start", "offset_out_of_range",
      "root string with a 4-byte size prefix whose data starts at byte 2: the "
      "prefix would start at byte -2")
def _():
    a = Asm()
    a.raw(b"abc\0")
    return a.finish(Node(STRING, 4, target=2), 1)


@case("oor_root_blob_w8_size_before_start", "offset_out_of_range",
      "root blob with an 8-byte size prefix whose data starts at byte 4")
def _():
    a = Asm()
    a.raw(b"\x01\x02\x03\x04\x05\x06")
    return a.finish(Node(BLOB, 8, target=4), 1)


@case("oor_root_map_prefix_before_start", "offset_out_of_range",
      "root map (width 1) with values at byte 2: its 3-byte prefix "
      "[keys offset][keys width][size] would start at byte -1")
def _():
    a = Asm()
    a.raw(b"\x00\x00\x05\x04")
    return a.finish(Node(MAP, 1, target=2), 1)


@case("oor_root_map_w4_prefix_before_start", "offset_out_of_range",
      "root map of width 4 with values at byte 8 and size 0: the 12-byte "
      "prefix would start at byte -4")
def _():
    a = Asm()
    a.raw(bytes(8))
    return a.finish(Node(MAP, 4, target=8), 1)


@case("oor_map_keys_vector_size_before_start", "offset_out_of_range",
      "map whose keys-vector offset points at byte 0, so the keys vector's "
      "size prefix would be at byte -1")
def _():
    a = Asm()
    a.raw(b"a\0")
    # prefix [keys offset][keys width][size] at 2, values at 5
    prefix = a.pos
    a.put(prefix, 1)  # keys vector "at" byte 0
    a.put(1, 1)
    a.put(1, 1)
    data = a.pos
    a.put(5, 1)
    a.raw(bytes([packed(INT, 1)]))
    return a.finish(Node(MAP, 1, target=data), 1)


@case("oor_vector_element_string_at_start", "offset_out_of_range",
      "vector element 1 is a string (2-byte size) whose data is at byte 1: its "
      "size prefix would start at byte -1")
def _():
    a = Asm()
    a.raw(b"xyz\0")
    v = a.vector([I(1), Node(STRING, 2, target=1)])
    return a.finish(v, 1)


@case("oor_typed_vector_w8_at_start", "offset_out_of_range",
      "root typed int vector of width 8 whose data starts at byte 4")
def _():
    a = Asm()
    a.raw(bytes(range(1, 13)))
    return a.finish(Node(VEC_INT, 8, target=4), 1)


@case("oor_key_vector_at_start", "offset_out_of_range",
      "root vector of keys whose data starts at byte 0 (no room for its size)")
def _():
    a = Asm()
    a.raw(b"k\0")
    return a.finish(Node(VEC_KEY, 1, target=0), 1)


@case("oor_nested_map_value", "offset_out_of_range",
      "map {\"a\": [...], \"b\": 1} whose vector value points at byte 0, where "
      "there is no room for its size prefix")
def _():
    a = Asm()
    a.raw(b"\x09\x09\x09")
    ks = keys_of(a, [b"a", b"b"])
    m = a.map(ks, [Node(VECTOR, 1, target=0), I(1)])
    return a.finish(m, 1)


# -- offset_forward ----------------------------------------------------------


def fwd_root(name: str, w: int, off: int, desc: str, t: int = VECTOR):
    def build() -> bytes:
        a = Asm()
        a.raw(b"\x01\x02\x03\x04")
        return a.finish(Val(t, 1, slot_raw=off), w)
    case(name, "offset_forward", desc)(build)


fwd_root("fwd_root_w1_one_past", 1, 5,
         "root vector offset 5 read at byte 4: points at byte -1")
fwd_root("fwd_root_w1_ff", 1, 0xFF, "root vector offset 0xff in an 7-byte buffer")
fwd_root("fwd_root_w2_ffff", 2, 0xFFFF, "root string offset 0xffff (2-byte slot)",
         STRING)
fwd_root("fwd_root_w4_ffffffff", 4, 0xFFFFFFFF,
         "root map offset 0xffffffff (4-byte slot)", MAP)
fwd_root("fwd_root_w8_u64_max", 8, (1 << 64) - 1,
         "root vector offset 2^64-1: with wrapping arithmetic it would point one "
         "byte after the slot")
fwd_root("fwd_root_w8_2pow63", 8, 1 << 63,
         "root blob offset 2^63 (8-byte slot)", BLOB)


@case("fwd_root_w8_wraps_to_end", "offset_forward",
      "root string offset chosen so that slot - offset wraps modulo 2^64 to "
      "exactly the buffer end")
def _():
    a = Asm()
    a.raw(b"\x01\x02\x03\x04\x05\x06\x07\x08")
    slot = a.pos
    n = slot + 8 + 2
    return a.finish(Val(STRING, 1, slot_raw=(slot - n) % (1 << 64)), 8)


@case("fwd_vector_element_string", "offset_forward",
      "vector [\"ok\", <string>] whose second element's offset (200) is larger "
      "than its own position")
def _():
    a = Asm()
    s = a.string(b"ok")
    v = a.vector([s, Val(STRING, 1, slot_raw=200)])
    return a.finish(v, 1)


@case("fwd_map_value_vector", "offset_forward",
      "map {\"a\": 1, \"b\": <vector>} whose vector offset points before byte 0")
def _():
    a = Asm()
    ks = keys_of(a, [b"a", b"b"])
    m = a.map(ks, [I(1), Val(VECTOR, 1, slot_raw=0xF0)])
    return a.finish(m, 1)


@case("fwd_map_keys_offset", "offset_forward",
      "map whose keys-vector offset (in its prefix) is larger than the prefix's "
      "own position")
def _():
    a = Asm()
    ks = keys_of(a, [b"a"])
    m = a.map(ks, [I(1)])
    a.patch(m.prefix_at, m.prefix_at + 1, 1)
    return a.finish(m, 1)


@case("fwd_map_keys_offset_w8_wrap", "offset_forward",
      "map of width 8 whose keys-vector offset is 2^64-8, which wraps to a "
      "position after the prefix")
def _():
    a = Asm()
    ks = keys_of(a, [b"a"])
    m = a.map(ks, [I(1)], w=8)
    a.patch(m.prefix_at, (1 << 64) - 8, 8)
    return a.finish(m, 1)


@case("fwd_key_vector_element", "offset_forward",
      "root vector of keys [\"a\", <key>] whose second key offset points before "
      "byte 0")
def _():
    a = Asm()
    k = a.key(b"a")
    kv = a.typed(VEC_KEY, [k, Val(KEY, slot_raw=0x7F)])
    return a.finish(kv, 1)


@case("fwd_map_key_w8_wrap", "offset_forward",
      "map whose keys vector has width 8 and whose second key offset is 2^64-1")
def _():
    a = Asm()
    ks = keys_of(a, [b"a"])
    kv = a.typed(VEC_KEY, [ks[0], Val(KEY, slot_raw=(1 << 64) - 1)], 8)
    m = a.map(kv, [I(1), I(2)], w=1)
    return a.finish(m, 1)


@case("fwd_indirect_int", "offset_forward",
      "vector [indirect int] whose offset is 0x80 at byte 2")
def _():
    a = Asm()
    v = a.vector([Val(IND_INT, 8, slot_raw=0x80)])
    return a.finish(v, 1)


@case("fwd_deep_in_nested_vectors", "offset_forward",
      "five nested vectors; the innermost holds a string offset pointing "
      "before byte 0")
def _():
    a = Asm()
    v = a.vector([Val(STRING, 1, slot_raw=0x30)])
    for _ in range(4):
        v = a.vector([v])
    return a.finish(v, 1)


# -- cycle -------------------------------------------------------------------


def self_vector(a: Asm, n: int, i: int, w: int, t: int = VECTOR) -> Node:
    """Untyped vector (or map values when t is MAP) of n elements whose
    element i points back at the vector's own data with the same packed type."""
    a.align(w)
    a.put(n, w)
    data = a.pos
    for j in range(n):
        a.put(j * w if j == i else 7, w)
    for j in range(n):
        a.b.append(packed(t, w) if j == i else packed(INT, 1))
    return Node(t, w, target=data)


@case("cycle_vector_self_element0_offset0", "cycle",
      "vector whose element 0 has offset 0: it is the vector itself")
def _():
    a = Asm()
    return a.finish(self_vector(a, 1, 0, 1), 1)


@case("cycle_vector_self_last_element", "cycle",
      "vector [7, 7, <self>]: element 2 points back at its own vector")
def _():
    a = Asm()
    return a.finish(self_vector(a, 3, 2, 1), 1)


@case("cycle_vector_self_w2", "cycle",
      "vector of width 2 whose element 1 points back at its own vector")
def _():
    a = Asm()
    return a.finish(self_vector(a, 2, 1, 2), 2)


@case("cycle_vector_self_w4", "cycle",
      "vector of width 4 whose element 3 points back at its own vector")
def _():
    a = Asm()
    return a.finish(self_vector(a, 4, 3, 4), 4)


@case("cycle_map_value_is_own_map", "cycle",
      "map {\"a\": 7, \"b\": <self>}: the value for \"b\" points at its own map")
def _():
    a = Asm()
    ks = keys_of(a, [b"a", b"b"])
    kv = a.typed(VEC_KEY, ks)
    a.slot(Val(VEC_KEY, target=kv.target), 1)
    a.put(1, 1)
    m = self_vector(a, 2, 1, 1, MAP)
    return a.finish(m, 1)


@case("cycle_map_values_read_as_vector", "cycle",
      "map whose value 0 points (offset 0) at the map's own values, typed as a "
      "vector: that vector's element 0 is itself")
def _():
    a = Asm()
    ks = keys_of(a, [b"a"])
    kv = a.typed(VEC_KEY, ks)
    a.slot(Val(VEC_KEY, target=kv.target), 1)
    a.put(1, 1)
    a.put(1, 1)
    data = a.pos
    a.put(0, 1)
    a.b.append(packed(VECTOR, 1))
    return a.finish(Node(MAP, 1, target=data), 1)


def ring(a: Asm, k: int, close_type: int = VECTOR) -> Node:
    """A cycle of k >= 2 vectors: X holds Y(k-1), Y(i) holds Y(i-1), Y(1) holds X.

    Offsets only point backwards, so the Ys are laid out inside X's slot area
    (X's first 3(k-1) elements are inline uints whose bytes are the Ys):
    Y(i) = [size 1][offset][packed vector type]. `close_type` is the packed
    type Y(1) uses for X (VECTOR, or MAP when X is laid out as a map's values).
    """
    n = 3 * (k - 1) + 1
    data = a.pos + 1  # after X's size prefix (written by the caller)
    body = []
    for i in range(1, k):
        y = data + 3 * (i - 1) + 1
        back = y - data if i == 1 else 3
        typ = packed(close_type, 1) if i == 1 else packed(VECTOR, 1)
        body += [1, back, typ]
    body.append(2)  # last element of X -> Y(k-1), two bytes back
    a.put(n, 1)
    assert a.pos == data
    for b in body:
        a.put(b, 1)
    for _ in range(n - 1):
        a.b.append(packed(UINT, 1))
    a.b.append(packed(VECTOR, 1))
    return Node(close_type, 1, target=data)


@case("cycle_two_vectors", "cycle",
      "vector X holds vector Y which holds X (Y lies inside X's slot bytes)")
def _():
    a = Asm()
    return a.finish(ring(a, 2), 1)


@case("cycle_three_vectors", "cycle", "a cycle X -> Y2 -> Y1 -> X of three vectors")
def _():
    a = Asm()
    return a.finish(ring(a, 3), 1)


@case("cycle_ten_vectors", "cycle", "a cycle of ten vectors")
def _():
    a = Asm()
    return a.finish(ring(a, 10), 1)


@case("cycle_forty_vectors", "cycle",
      "a cycle of forty vectors (shorter than the depth limit, so the cycle is "
      "found first)")
def _():
    a = Asm()
    return a.finish(ring(a, 40), 2)


@case("cycle_eighty_vectors", "cycle",
      "a cycle of 80 vectors: longer than the depth limit of 64, so either "
      "the depth limit or the cycle check may fire first", error="any")
def _():
    a = Asm()
    return a.finish(ring(a, 80), 2)


@case("cycle_under_root_map", "cycle",
      "map {\"a\": 1, \"z\": X} where X is a three-vector cycle")
def _():
    a = Asm()
    x = ring(a, 3)
    ks = keys_of(a, [b"a", b"z"])
    m = a.map(ks, [I(1), x])
    return a.finish(m, 1)


@case("cycle_map_value_points_at_ancestor_map", "cycle",
      "map M {\"a\"..\"d\"} whose value \"d\" is a vector V whose only element "
      "points back at M (V lies inside M's value bytes)")
def _():
    a = Asm()
    ks = keys_of(a, [b"a", b"b", b"c", b"d"])
    kv = a.typed(VEC_KEY, ks)
    a.slot(Val(VEC_KEY, target=kv.target), 1)
    a.put(1, 1)
    x = ring(a, 2, MAP)
    return a.finish(x, 1)


@case("cycle_map_to_map", "cycle",
      "map M1 whose last value is map M2 whose only value points back at M1 "
      "(M2's prefix and value lie inside M1's value bytes)")
def _():
    a = Asm()
    k2 = a.typed(VEC_KEY, keys_of(a, [b"k"]))
    ks = keys_of(a, [b"a", b"b", b"c", b"d", b"e", b"f"])
    kv = a.typed(VEC_KEY, ks)
    a.slot(Val(VEC_KEY, target=kv.target), 1)
    a.put(1, 1)
    a.put(6, 1)
    m1 = a.pos
    # M2 prefix at m1: [keys offset][keys width 1][size 1]; value at m1+3 -> m1
    a.put(m1 - k2.target, 1)
    a.put(1, 1)
    a.put(1, 1)
    a.put(3, 1)
    a.put(packed(MAP, 1), 1)
    a.put(2, 1)  # M1's value "f" -> M2 at m1+3
    for _ in range(5):
        a.b.append(packed(UINT, 1))
    a.b.append(packed(MAP, 1))
    return a.finish(Node(MAP, 1, target=m1), 1)


@case("cycle_deep_under_vectors", "cycle",
      "twenty nested vectors, the innermost holding a ten-vector cycle")
def _():
    a = Asm()
    v = ring(a, 10)
    for _ in range(20):
        v = a.vector([I(0), v])
    return a.finish(v, 1)


# -- bad_width ---------------------------------------------------------------


def bad_root_width(w: int):
    case(f"bad_width_root_{w}", "bad_width",
         f"root width byte is {w}, not 1, 2, 4 or 8")(
        lambda: bytes(range(1, 11)) + bytes([packed(INT, 1), w]))


for _w in (0, 3, 5, 7, 16, 255):
    bad_root_width(_w)


def bad_keys_width(name: str, kwf: int, w: int, desc: str):
    def build() -> bytes:
        a = Asm()
        ks = keys_of(a, [b"a", b"b"])
        m = a.map(ks, [I(1), I(2)], w=w, keys_width_field=kwf)
        return a.finish(m, 1)
    case(name, "bad_width", desc)(build)


bad_keys_width("bad_width_map_keys_5", 5, 1, "map (width 1) whose keys-width field is 5")
bad_keys_width("bad_width_map_keys_0", 0, 1, "map (width 1) whose keys-width field is 0")
bad_keys_width("bad_width_map_keys_3_w2", 3, 2, "map (width 2) whose keys-width field is 3")
bad_keys_width("bad_width_map_keys_huge_w8", (1 << 32) + 1, 8,
               "map (width 8) whose keys-width field is 2^32+1 (its low byte is 1)")


@case("bad_width_nested_map_keys_6", "bad_width",
      "vector [1, {\"a\": 2}] whose inner map has keys width 6")
def _():
    a = Asm()
    ks = keys_of(a, [b"a"])
    m = a.map(ks, [I(2)], keys_width_field=6)
    v = a.vector([I(1), m])
    return a.finish(v, 1)


# -- unknown_type ------------------------------------------------------------


def unknown_root(code: int, wbits: int = 0):
    pk = (code << 2) | wbits
    case(f"unknown_type_root_{code}" + (f"_bits{wbits}" if wbits else ""),
         "unknown_type",
         f"root packed type byte {pk:#04x}: type code {code} is not defined")(
        lambda: bytes([1, 2, 3, 4, 0, pk, 1]))


for _c in range(27, 36):
    unknown_root(_c)
for _c, _b in ((37, 0), (42, 1), (50, 2), (63, 0), (63, 3)):
    unknown_root(_c, _b)


@case("unknown_type_vector_element_27", "unknown_type",
      "vector [1, 2, <type 27>]: the third type byte is 0x6c")
def _():
    a = Asm()
    return a.finish(a.vector([I(1), I(2), raw_val(0, 27 << 2)]), 1)


@case("unknown_type_vector_element_40", "unknown_type",
      "vector [\"s\", <type 40>] (type byte 0xa1)")
def _():
    a = Asm()
    s = a.string(b"s")
    return a.finish(a.vector([s, raw_val(1, (40 << 2) | 1)]), 1)


@case("unknown_type_map_value_35", "unknown_type",
      "map {\"a\": 1, \"b\": <type 35>}")
def _():
    a = Asm()
    ks = keys_of(a, [b"a", b"b"])
    return a.finish(a.map(ks, [I(1), raw_val(3, 35 << 2)]), 1)


@case("unknown_type_deep_37", "unknown_type",
      "map {\"x\": [[<type 37>]]}: an unknown type two vectors down")
def _():
    a = Asm()
    v = a.vector([raw_val(0, 37 << 2)])
    v = a.vector([v])
    ks = keys_of(a, [b"x"])
    return a.finish(a.map(ks, [v]), 1)


@case("unknown_type_after_valid_elements", "unknown_type",
      "vector of 9 valid ints then one element with type byte 0xfc (code 63)")
def _():
    a = Asm()
    return a.finish(a.vector([I(i) for i in range(9)] + [raw_val(0, 0xFC)]), 1)


# -- size_overflow -----------------------------------------------------------


def huge_size(name: str, t: int, w: int, size: int, desc: str):
    def build() -> bytes:
        a = Asm()
        a.align(w)
        a.put(size, w)
        data = a.pos
        a.raw(bytes([1] * 16))
        return a.finish(Node(t, w, target=data), 1)
    case(name, "size_overflow", desc)(build)


U64 = 1 << 64
huge_size("size_overflow_vector_w8_u64_max", VECTOR, 8, U64 - 1,
          "untyped vector of width 8 with size 2^64-1")
huge_size("size_overflow_vector_w8_times9_wraps", VECTOR, 8, (U64 + 8) // 9,
          "untyped vector of width 8 with size ceil(2^64/9): size*(8+1) wraps "
          "to 7 in 64-bit arithmetic")
huge_size("size_overflow_typed_int_w8_2pow61", VEC_INT, 8, 1 << 61,
          "typed int vector of width 8 with size 2^61: size*8 is exactly 2^64")
huge_size("size_overflow_typed_uint_w8_wraps_to_8", VEC_UINT, 8, (1 << 61) + 1,
          "typed uint vector of width 8 with size 2^61+1: size*8 wraps to 8")
huge_size("size_overflow_string_w8_u64_max", STRING, 8, U64 - 1,
          "string of width 8 with size 2^64-1: size+1 (the NUL) wraps to 0")
huge_size("size_overflow_blob_w8_2pow63", BLOB, 8, 1 << 63,
          "blob with size 2^63")
huge_size("size_overflow_map_w8_huge", MAP, 8, (U64 + 8) // 9,
          "map of width 8 with size ceil(2^64/9)")
huge_size("size_overflow_key_vector_w8_huge", VEC_KEY, 8, 1 << 62,
          "vector of keys of width 8 with size 2^62")
huge_size("size_overflow_bool_vector_w8_u64_max", VEC_BOOL, 8, U64 - 1,
          "typed bool vector of width 8 with size 2^64-1")
huge_size("size_overflow_vector_w4_u32_max", VECTOR, 4, (1 << 32) - 1,
          "untyped vector of width 4 with size 2^32-1 in a small buffer")
huge_size("size_overflow_string_w4_u32_max", STRING, 4, (1 << 32) - 1,
          "string with size 2^32-1 in a small buffer")
huge_size("size_overflow_vector_w2_ffff", VECTOR, 2, 0xFFFF,
          "untyped vector of width 2 with size 65535 in a small buffer")


@case("size_overflow_map_keys_vector_huge", "size_overflow",
      "map with one value whose keys vector (width 8) claims 2^63 keys")
def _():
    a = Asm()
    k = a.key(b"a")
    kv = a.typed(VEC_KEY, [k], 8, size=1 << 63)
    m = a.map(kv, [I(1)], w=8)
    return a.finish(m, 1)


# -- size_past_end -----------------------------------------------------------


def past_end_root(name: str, desc: str, make, extra: int):
    """The root's size field is patched so the data ends `extra` bytes past
    the buffer end (extra 0 = exactly at the end, for strings: no room for NUL)."""
    def build() -> bytes:
        a = Asm()
        node = make(a)
        out = bytearray(a.finish(node, 1))
        n = len(out)
        unit = node.width + 1 if node.type in (VECTOR, MAP) else (
            1 if node.type in (STRING, BLOB) else node.width)
        count = -(-(n - node.target + extra) // unit)
        out[node.size_at:node.size_at + node.width] = uint_bytes(count, node.width)
        return bytes(out)
    case(name, "size_past_end", desc)(build)


past_end_root("size_past_end_string_no_room_for_nul",
              "root string whose size makes its data end exactly at the buffer "
              "end, leaving no byte for the NUL",
              lambda a: a.string(b"hello"), 0)
past_end_root("size_past_end_string_by_one",
              "root string whose data runs one byte past the buffer end",
              lambda a: a.string(b"hello"), 1)
past_end_root("size_past_end_string_w2",
              "root string (2-byte size) whose data runs past the buffer end",
              lambda a: a.string(b"hello", 2), 3)
past_end_root("size_past_end_blob_by_one",
              "root blob whose data runs one byte past the buffer end",
              lambda a: a.blob(b"\x01\x02\x03"), 1)
past_end_root("size_past_end_vector_type_bytes",
              "root vector whose elements fit but whose type bytes run past the "
              "buffer end",
              lambda a: a.vector([I(1), I(2), I(3)]), 1)
past_end_root("size_past_end_vector_w4",
              "root vector of width 4 whose elements run past the buffer end",
              lambda a: a.vector([I(1, 4), I(2, 4)], 4), 1)
past_end_root("size_past_end_typed_int_w2",
              "root typed int vector (width 2) one element too long",
              lambda a: a.typed(VEC_INT, [1, 2, 3], 2), 1)
past_end_root("size_past_end_key_vector",
              "root vector of keys whose size runs past the buffer end",
              lambda a: a.typed(VEC_KEY, keys_of(a, [b"a", b"b"])), 1)
past_end_root("size_past_end_map_values",
              "root map whose values size runs past the buffer end (the keys "
              "vector's size is left at 1)",
              lambda a: a.map(keys_of(a, [b"a"]), [I(1)]), 1)


@case("size_past_end_fixed_int3_w8", "size_past_end",
      "vector [<fixed int3 of width 8>] whose 24 data bytes start 6 bytes "
      "before the buffer end")
def _():
    a = Asm()
    a.align(8)
    a.raw(bytes(8))
    data = a.pos
    v = a.vector([Node(VEC_INT3, 8, target=data)])
    return a.finish(v, 1)


@case("size_past_end_fixed_float4_w8_root", "size_past_end",
      "root fixed float4 of width 8 whose offset is 0: its 32 bytes start "
      "at the root slot, 3 bytes before the end")
def _():
    a = Asm()
    a.raw(bytes(8))
    return a.finish(Val(VEC_FLOAT4, 8, slot_raw=0), 1)


@case("size_past_end_indirect_int_w8", "size_past_end",
      "root indirect int of width 8 whose offset is 0, so its 8 bytes start at "
      "the root slot, 3 bytes before the end")
def _():
    a = Asm()
    a.raw(b"\x05")
    return a.finish(Val(IND_INT, 8, slot_raw=0), 1)


@case("size_past_end_indirect_float_w8", "size_past_end",
      "vector [1, <indirect float w8>] whose float starts 6 bytes before the end")
def _():
    a = Asm()
    a.raw(b"\x00\x00")
    v = a.vector([I(1), Val(IND_FLOAT, 8, slot_raw=0)])
    return a.finish(v, 1)


@case("size_past_end_string_in_map", "size_past_end",
      "map {\"s\": <string>} whose string size is 200 in a short buffer")
def _():
    a = Asm()
    s = a.string(b"abc", size=200)
    m = a.map(keys_of(a, [b"s"]), [s])
    return a.finish(m, 1)


@case("size_past_end_same_position_other_width", "size_past_end",
      "vector [\"abc\", <string at the same position with a 2-byte size>]: "
      "the first reading is fine; the second reads the 2-byte size 0x0307 "
      "(the size byte and the one before it), which runs past the end: a "
      "verifier must not reuse the first verdict for a different width")
def _():
    a = Asm()
    a.raw(b"\x07")
    s = a.string(b"abc")
    return a.finish(a.vector([s, Node(STRING, 2, target=s.target)]), 1)


# -- depth_bomb ----------------------------------------------------------------


def nested_vectors(a: Asm, levels: int, inner: Val | None = None) -> Node:
    """A chain of `levels` vectors; the innermost holds `inner`, or nothing."""
    v = a.vector([inner] if inner is not None else [])
    for _ in range(levels - 1):
        v = a.vector([v])
    return v


def depth_vectors(levels: int):
    case(f"depth_bomb_{levels}_vectors", "depth_bomb",
         f"{levels} nested vectors (limit 64); innermost is an empty vector")(
        lambda: simple_root(lambda a: nested_vectors(a, levels)))


for _n in (65, 100, 1000, 5000):
    depth_vectors(_n)


@case("depth_bomb_65_maps", "depth_bomb",
      "65 nested maps {\"a\": {\"a\": ...}} sharing one keys vector; the "
      "innermost is {\"a\": 1}")
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [b"a"]))
    m = a.map(kv, [I(1)], w=2)
    for _ in range(64):
        m = a.map(kv, [m], w=2)
    return a.finish(m, 1)


@case("depth_bomb_64_vectors_plus_fixed", "depth_bomb",
      "64 nested vectors around a fixed int2 vector: 65 levels")
def _():
    a = Asm()
    f = a.fixed(VEC_INT2, [1, 2], 1)
    return a.finish(nested_vectors(a, 64, f), 1)


@case("depth_bomb_64_vectors_plus_typed", "depth_bomb",
      "64 nested vectors around a typed int vector: 65 levels")
def _():
    a = Asm()
    t = a.typed(VEC_INT, [1, 2, 3])
    return a.finish(nested_vectors(a, 64, t), 1)


@case("depth_bomb_64_vectors_plus_empty_map", "depth_bomb",
      "64 nested vectors around an empty map: 65 levels")
def _():
    a = Asm()
    m = a.map([], [])
    return a.finish(nested_vectors(a, 64, m), 1)


@case("depth_bomb_in_map_value", "depth_bomb",
      "map {\"deep\": 64 nested vectors}: 65 levels")
def _():
    a = Asm()
    v = nested_vectors(a, 64)
    return a.finish(a.map(keys_of(a, [b"deep"]), [v]), 1)


@case("depth_bomb_shared_subtree_reached_deeper", "depth_bomb",
      "vector [C, D]: C is a chain of 40 nested vectors (fine at level 2); D is "
      "30 nested vectors whose innermost also holds C, which puts C's bottom "
      "at level 71. A verifier that memoises C must still count its height")
def _():
    a = Asm()
    c = nested_vectors(a, 40)
    d = nested_vectors(a, 30, c)
    return a.finish(a.vector([c, d]), 1)


@case("depth_bomb_mixed_maps_and_vectors", "depth_bomb",
      "alternating maps and vectors, 66 levels in all")
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [b"m"]))
    v: Node = a.vector([I(0)])
    for i in range(65):
        v = a.map(kv, [v], w=2) if i % 2 == 0 else a.vector([v], 2)
    return a.finish(v, 1)


# -- dag_bomb (valid for the verifier; expansion must hit the budget) ----------


@case("dag_bomb_vector_2x40", "dag_bomb",
      "40 levels of [prev, prev] vectors over the int 1: 2^40 leaves in a "
      "~130-byte buffer", expand="budget")
def _():
    a = Asm()
    v: Val = I(1)
    for _ in range(40):
        v = a.vector([v, v])
    return a.finish(v, 1)


@case("dag_bomb_vector_2x64", "dag_bomb",
      "64 levels (exactly the depth limit) of [prev, prev] vectors over an "
      "empty vector: 2^63 leaves", expand="budget")
def _():
    a = Asm()
    v: Val = a.vector([])
    for _ in range(63):
        v = a.vector([v, v])
    return a.finish(v, 1)


@case("dag_bomb_map_2x40", "dag_bomb",
      "40 levels of {\"a\": prev, \"b\": prev} maps sharing one keys vector",
      expand="budget")
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [b"a", b"b"]))
    v: Val = a.string(b"leaf")
    for _ in range(40):
        v = a.map(kv, [v, v], w=2)
    return a.finish(v, 1)


@case("dag_bomb_wide_255x4", "dag_bomb",
      "4 levels of 255-element vectors (width 2) whose elements all point at "
      "the previous level: 255^4 leaves", expand="budget")
def _():
    a = Asm()
    v: Val = I(9)
    for _ in range(4):
        v = a.vector([v] * 255, 2)
    return a.finish(v, 2)


@case("dag_bomb_string_flood", "dag_bomb",
      "200 x 200 references to one 3000-byte string: 40000 nodes (within a "
      "node budget) but 120 MB of text", expand="budget")
def _():
    a = Asm()
    s = a.string(b"x" * 3000, 2)
    v = a.vector([s] * 200, 2)
    v = a.vector([v] * 200, 2)
    return a.finish(v, 2)


@case("dag_bomb_blob_flood", "dag_bomb",
      "200 x 200 references to one 3000-byte blob (base64 grows it further)",
      expand="budget")
def _():
    a = Asm()
    s = a.blob(bytes(range(256)) * 12, 2)
    v = a.vector([s] * 200, 2)
    v = a.vector([v] * 200, 2)
    return a.finish(v, 2)


@case("dag_bomb_long_key_map", "dag_bomb",
      "200 x 200 references to one map whose only key is 3000 bytes long",
      expand="budget")
def _():
    a = Asm()
    m = a.map([a.key(b"k" * 3000)], [I(1)], w=2, kw=2)
    v = a.vector([m] * 200, 2)
    v = a.vector([v] * 200, 2)
    return a.finish(v, 2)


# -- unsorted_keys ---------------------------------------------------------------


def map_with_keys(names: list[bytes], w: int = 1, kw: int = 1) -> bytes:
    a = Asm()
    ks = keys_of(a, names)
    m = a.map(ks, [I(i) for i in range(len(names))], w=w, kw=kw)
    return a.finish(m, 1)


def keys_case(name: str, cls: str, names: list[bytes], desc: str, **kw):
    case(name, cls, desc)(lambda: map_with_keys(names, **kw))


keys_case("unsorted_keys_b_a", "unsorted_keys", [b"b", b"a"],
          "map with keys [\"b\", \"a\"]")
keys_case("unsorted_keys_last_two_swapped", "unsorted_keys",
          [b"alpha", b"beta", b"gamma", b"zeta", b"delta"],
          "map with five keys whose last two are out of order")
keys_case("unsorted_keys_prefix_after_longer", "unsorted_keys", [b"ab", b"a"],
          "map with keys [\"ab\", \"a\"]: a prefix sorts first")
keys_case("unsorted_keys_signed_byte_order", "unsorted_keys",
          ["é".encode(), b"z"],
          "map with keys [\"é\", \"z\"]: sorted as signed bytes (0xc3 < 0x7a) but "
          "not as unsigned bytes, which is the order FlexBuffers uses")
keys_case("unsorted_keys_keys_w2", "unsorted_keys", [b"a", b"c", b"b"],
          "map whose keys vector has width 2 and keys [\"a\", \"c\", \"b\"]", kw=2)
keys_case("unsorted_keys_w4_map", "unsorted_keys", [b"b", b"c", b"a"],
          "map of width 4 with keys [\"b\", \"c\", \"a\"]", w=4, kw=4)


@case("unsorted_keys_nested_map", "unsorted_keys",
      "sorted map {\"a\": 1, \"b\": {\"y\": 1, \"x\": 2}}: the inner map is not sorted")
def _():
    a = Asm()
    inner = a.map(keys_of(a, [b"y", b"x"]), [I(1), I(2)])
    return a.finish(a.map(keys_of(a, [b"a", b"b"]), [I(1), inner]), 1)


@case("unsorted_keys_vector_first_seen_as_plain_keys", "unsorted_keys",
      "vector [<keys vector [\"b\", \"a\"]>, {map using that same keys vector}]: "
      "fine as a plain vector of keys, not as the keys of a map")
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [b"b", b"a"]))
    m = a.map(kv, [I(1), I(2)])
    return a.finish(a.vector([kv, m]), 1)


@case("unsorted_keys_shared_by_two_maps", "unsorted_keys",
      "vector of two maps sharing one keys vector [\"m\", \"l\"]")
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [b"m", b"l"]))
    m1 = a.map(kv, [I(1), I(2)])
    m2 = a.map(kv, [I(3), I(4)])
    return a.finish(a.vector([m1, m2]), 1)


# -- duplicate_keys ---------------------------------------------------------------

keys_case("duplicate_keys_a_a", "duplicate_keys", [b"a", b"a"],
          "map with keys [\"a\", \"a\"] stored as two separate keys")
keys_case("duplicate_keys_middle_of_five", "duplicate_keys",
          [b"a", b"b", b"c", b"c", b"d"],
          "map with keys [\"a\", \"b\", \"c\", \"c\", \"d\"]")
keys_case("duplicate_keys_empty", "duplicate_keys", [b"", b""],
          "map with two empty keys")
keys_case("duplicate_keys_non_ascii", "duplicate_keys",
          ["ü".encode(), "ü".encode()], "map with keys [\"ü\", \"ü\"]")


@case("duplicate_keys_same_key_bytes", "duplicate_keys",
      "map whose two keys-vector entries point at the same key \"k\"")
def _():
    a = Asm()
    k = a.key(b"k")
    m = a.map([k, k], [I(1), I(2)])
    return a.finish(m, 1)


@case("duplicate_keys_nested", "duplicate_keys",
      "vector [1, {\"x\": 1, \"x\": 2}]")
def _():
    a = Asm()
    m = a.map(keys_of(a, [b"x", b"x"]), [I(1), I(2)])
    return a.finish(a.vector([I(1), m]), 1)


# -- non_utf8_string --------------------------------------------------------------


def bad_string(name: str, data: bytes, desc: str, w: int = 1):
    case(name, "non_utf8_string", desc)(
        lambda: simple_root(lambda a: a.string(data, w)))


bad_string("non_utf8_string_ff", b"\xff", "root string of the single byte 0xff")
bad_string("non_utf8_string_overlong_slash", b"a\xc0\xafb",
           "root string with the overlong encoding c0 af of '/'")
bad_string("non_utf8_string_surrogate", b"\xed\xa0\x80",
           "root string holding the UTF-16 surrogate U+D800 (ed a0 80)")
bad_string("non_utf8_string_truncated_sequence", b"euro \xe2\x82",
           "root string ending in the first two bytes of a three-byte sequence")
bad_string("non_utf8_string_above_10ffff", b"\xf4\x90\x80\x80",
           "root string holding f4 90 80 80 (above U+10FFFF)")
bad_string("non_utf8_string_lone_continuation", b"ab\x80cd",
           "root string with a lone continuation byte 0x80")
bad_string("non_utf8_string_latin1_w2", "café".encode("latin-1"),
           "root string (2-byte size) in Latin-1, not UTF-8", w=2)


@case("non_utf8_string_in_map", "non_utf8_string",
      "map {\"a\": \"ok\", \"b\": <string fe ff>}")
def _():
    a = Asm()
    s1 = a.string(b"ok")
    s2 = a.string(b"\xfe\xff")
    return a.finish(a.map(keys_of(a, [b"a", b"b"]), [s1, s2]), 1)


@case("non_utf8_string_in_deprecated_string_vector", "non_utf8_string",
      "deprecated typed vector of strings (type 15) whose second string is "
      "not UTF-8 (read as keys, as readers must)")
def _():
    a = Asm()
    s1 = a.string(b"ok")
    s2 = a.string(b"\x80\x80")
    return a.finish(a.typed(VEC_STRING_DEPRECATED,
                            [Val(KEY, target=s1.target), Val(KEY, target=s2.target)]), 1)


# -- non_utf8_key -----------------------------------------------------------------

keys_case("non_utf8_key_ff", "non_utf8_key", [b"a", b"\xff"],
          "map with keys [\"a\", <ff>]")
keys_case("non_utf8_key_modified_utf8_nul", "non_utf8_key", [b"\xc0\x80"],
          "map with the key c0 80 (Java's modified-UTF-8 NUL)")
keys_case("non_utf8_key_surrogate", "non_utf8_key", [b"a", b"\xed\xbf\xbf"],
          "map whose second key is the surrogate U+DFFF (ed bf bf)")


@case("non_utf8_key_root_key", "non_utf8_key", "root value of type key holding e0 80")
def _():
    a = Asm()
    return a.finish(a.key(b"\xe0\x80"), 1)


@case("non_utf8_key_in_key_vector", "non_utf8_key",
      "root vector of keys [\"a\", <f8 88 80 80 80>]")
def _():
    a = Asm()
    return a.finish(a.typed(VEC_KEY, keys_of(a, [b"a", b"\xf8\x88\x80\x80\x80"])), 1)


@case("non_utf8_key_nested_map", "non_utf8_key",
      "map {\"a\": {<c3>: 1}}: the inner key is a truncated two-byte sequence")
def _():
    a = Asm()
    inner = a.map(keys_of(a, [b"\xc3"]), [I(1)])
    return a.finish(a.map(keys_of(a, [b"a"]), [inner]), 1)


# -- key_without_nul ----------------------------------------------------------------
# Bytes after the key up to the buffer end are all non-zero, so the key runs
# off the end of the buffer.


@case("key_without_nul_root_key", "key_without_nul",
      "root key \"abc\" with no NUL: 61 62 63 03 10 01")
def _():
    a = Asm()
    return a.finish(a.key(b"abc", nul=False), 1)


@case("key_without_nul_map_key", "key_without_nul",
      "map {\"a\": 5} whose only key has no NUL and every later byte is non-zero")
def _():
    a = Asm()
    m = a.map([a.key(b"a", nul=False)], [I(5)])
    return a.finish(m, 1)


@case("key_without_nul_second_map_key", "key_without_nul",
      "map {\"a\": 1, \"b\": 2} whose second key has no NUL")
def _():
    a = Asm()
    ka = a.key(b"a")
    kb = a.key(b"b", nul=False)
    m = a.map([ka, kb], [I(1), I(2)])
    return a.finish(m, 1)


@case("key_without_nul_key_vector", "key_without_nul",
      "root vector of keys whose only key \"xyz\" has no NUL")
def _():
    a = Asm()
    return a.finish(a.typed(VEC_KEY, [a.key(b"xyz", nul=False)]), 1)


@case("key_without_nul_vector_element", "key_without_nul",
      "vector [3, <key \"k\" without NUL>]")
def _():
    a = Asm()
    k = a.key(b"k", nul=False)
    return a.finish(a.vector([I(3), k]), 1)


# -- string_without_nul ---------------------------------------------------------------


@case("string_without_nul_root", "string_without_nul",
      "root string of size 3 \"abc\" followed by 'd' instead of NUL")
def _():
    return simple_root(lambda a: a.string(b"abc", terminator=b"d"))


@case("string_without_nul_empty", "string_without_nul",
      "root string of size 0 whose terminator byte is 'A'")
def _():
    return simple_root(lambda a: a.string(b"", terminator=b"A"))


@case("string_without_nul_w2", "string_without_nul",
      "root string with a 2-byte size whose terminator byte is 0x01")
def _():
    return simple_root(lambda a: a.string(b"hello", 2, terminator=b"\x01"))


@case("string_without_nul_vector_element", "string_without_nul",
      "vector [\"ok\", <\"bad\" followed by 'X'>]")
def _():
    a = Asm()
    s1 = a.string(b"ok")
    s2 = a.string(b"bad", terminator=b"X")
    return a.finish(a.vector([s1, s2]), 1)


@case("string_without_nul_map_value", "string_without_nul",
      "map {\"s\": <\"x\" whose size says 1 but is followed by 'y'>}")
def _():
    a = Asm()
    s = a.string(b"xy", size=1)
    return a.finish(a.map(keys_of(a, [b"s"]), [s]), 1)


# -- key_value_length_mismatch ------------------------------------------------------------


def kv_mismatch(name: str, nkeys: int, nvals: int, desc: str, w: int = 1):
    def build() -> bytes:
        a = Asm()
        ks = keys_of(a, [bytes([0x61 + i]) for i in range(nkeys)])
        m = a.map(ks, [I(i) for i in range(nvals)], w=w)
        return a.finish(m, 1)
    case(name, "key_value_length_mismatch", desc)(build)


kv_mismatch("kv_mismatch_1_key_2_values", 1, 2, "map with 1 key and 2 values")
kv_mismatch("kv_mismatch_3_keys_2_values", 3, 2, "map with 3 keys and 2 values")
kv_mismatch("kv_mismatch_0_keys_1_value", 0, 1, "map with no keys and 1 value")
kv_mismatch("kv_mismatch_1_key_0_values", 1, 0, "map with 1 key and no values")
kv_mismatch("kv_mismatch_w2_4_keys_5_values", 4, 5,
            "map of width 2 with 4 keys and 5 values", w=2)


@case("kv_mismatch_nested", "key_value_length_mismatch",
      "vector [{\"a\": 1}, {2 keys, 1 value}]")
def _():
    a = Asm()
    m1 = a.map(keys_of(a, [b"a"]), [I(1)])
    m2 = a.map(keys_of(a, [b"a", b"b"]), [I(1)])
    return a.finish(a.vector([m1, m2]), 1)


@case("kv_mismatch_shared_keys_vector", "key_value_length_mismatch",
      "two maps share a 2-key keys vector; the first has 2 values (fine), the "
      "second 3")
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [b"a", b"b"]))
    m1 = a.map(kv, [I(1), I(2)])
    m2 = a.map(kv, [I(1), I(2), I(3)])
    return a.finish(a.vector([m1, m2]), 1)


# -- float_bad_width --------------------------------------------------------------------

case("float_bad_width_root_w1", "float_bad_width",
     "root float stored in a 1-byte slot (00 0c 01)")(lambda: b"\x00\x0c\x01")
case("float_bad_width_root_w2", "float_bad_width",
     "root float stored in a 2-byte slot")(lambda: b"\x00\x3c\x0d\x02")


@case("float_bad_width_vector_w1", "float_bad_width",
      "vector of width 1 [1, <float>]: the float has only one byte")
def _():
    a = Asm()
    return a.finish(a.vector([I(1), raw_val(0x3f, packed(FLOAT, 1))]), 1)


@case("float_bad_width_vector_w2", "float_bad_width",
      "vector of width 2 holding a float (type byte says width 4, slot has 2)")
def _():
    a = Asm()
    return a.finish(a.vector([raw_val(0x3c00, packed(FLOAT, 4))], 2), 1)


@case("float_bad_width_map_value_w1", "float_bad_width",
      "map of width 1 {\"f\": <float>}")
def _():
    a = Asm()
    return a.finish(a.map(keys_of(a, [b"f"]), [raw_val(1, packed(FLOAT, 1))]), 1)


@case("float_bad_width_indirect_w1", "float_bad_width",
      "root indirect float of width 1")
def _():
    a = Asm()
    return a.finish(a.indirect(IND_FLOAT, 7, 1), 1)


@case("float_bad_width_indirect_w2", "float_bad_width",
      "vector [<indirect float of width 2>]")
def _():
    a = Asm()
    f = a.indirect(IND_FLOAT, 0x3c00, 2)
    return a.finish(a.vector([f]), 1)


@case("float_bad_width_typed_vector_w1", "float_bad_width",
      "root typed float vector of width 1")
def _():
    a = Asm()
    return a.finish(a.typed(VEC_FLOAT, [1, 2, 3], 1), 1)


@case("float_bad_width_typed_vector_w2", "float_bad_width",
      "root typed float vector of width 2")
def _():
    a = Asm()
    return a.finish(a.typed(VEC_FLOAT, [0x3c00, 0x4000], 2), 1)


@case("float_bad_width_fixed2_w1", "float_bad_width", "root fixed float2 of width 1")
def _():
    a = Asm()
    return a.finish(a.fixed(VEC_FLOAT2, [1, 2], 1), 1)


@case("float_bad_width_fixed3_w2", "float_bad_width", "root fixed float3 of width 2")
def _():
    a = Asm()
    return a.finish(a.fixed(VEC_FLOAT3, [1, 2, 3], 2), 1)


@case("float_bad_width_fixed4_w1_in_vector", "float_bad_width",
      "vector [<fixed float4 of width 1>]")
def _():
    a = Asm()
    f = a.fixed(VEC_FLOAT4, [1, 2, 3, 4], 1)
    return a.finish(a.vector([f]), 1)


@case("float_bad_width_typed_vector_w1_len1", "float_bad_width",
      "root typed float vector of width 1 with one element: the smallest "
      "non-empty one is still rejected (the empty one is accepted, see "
      "valid_empty_float_vector_w1)")
def _():
    a = Asm()
    return a.finish(a.typed(VEC_FLOAT, [1], 1), 1)


@case("float_bad_width_typed_vector_w2_in_map", "float_bad_width",
      "map {\"f\": <typed float vector of width 2 with one element>}")
def _():
    a = Asm()
    tv = a.typed(VEC_FLOAT, [0x3c00], 2)
    return a.finish(a.map(keys_of(a, [b"f"]), [tv]), 1)


# -- valid controls ------------------------------------------------------------------------


def valid(name: str, desc: str, json_text: str | None):
    return case(name, "valid", desc, json_text=json_text)


valid("valid_empty_map_root",
      "empty map as root, as the C++ builder writes it (00 00 01 00 00 24 01): "
      "both offsets are 0", "{}")(lambda: bytes.fromhex("00000100002401"))
valid("valid_empty_map_in_vector",
      "[{}]: an empty map as a vector element (C++ builder bytes; the map's "
      "values position is the vector's size prefix)",
      "[{}]")(lambda: bytes.fromhex("00000100010124022801"))
valid("valid_map_value_empty_map",
      "{\"a\": {}}: a map whose value is an empty map (C++ builder bytes)",
      '{"a":{}}')(lambda: bytes.fromhex("61000000010001070101010524022401"))
valid("valid_empty_vector_offset0", "[] as root with offset 0 (00 00 28 01)",
      "[]")(lambda: bytes.fromhex("00002801"))
valid("valid_empty_blob_offset0", "empty blob as root with offset 0 (00 00 64 01)",
      '""')(lambda: bytes.fromhex("00006401"))
valid("valid_empty_string_offset0",
      "empty string as root with offset 0: the slot itself (byte 1, value 0) "
      "is the string's NUL (00 00 14 01)", '""')(lambda: bytes.fromhex("00001401"))
valid("valid_empty_typed_vector_offset0",
      "empty typed int vector as root with offset 0 (00 00 2c 01)",
      "[]")(lambda: bytes.fromhex("00002c01"))
valid("valid_null_root", "the smallest buffer: root null (00 00 01)",
      "null")(lambda: bytes.fromhex("000001"))
valid("valid_bool_root", "root true (01 68 01)", "true")(lambda: bytes.fromhex("016801"))
valid("valid_empty_key_offset0",
      "root key with offset 0: the slot byte (0) is the key's NUL, so the key is "
      "empty (00 10 01)", '""')(lambda: bytes.fromhex("001001"))


@valid("valid_empty_string_offset0_in_vector",
       "vector [0, \"\"]: the string's offset is 0, its size prefix is the "
       "previous slot (0) and its NUL is its own slot", '[0,""]')
def _():
    a = Asm()
    a.put(2, 1)
    data = a.pos
    a.raw(b"\x00\x00")
    a.raw(bytes([packed(INT, 1), packed(STRING, 1)]))
    return a.finish(Node(VECTOR, 1, target=data), 1)


@valid("valid_empty_map_and_vector_alias",
       "vector [{}, []] whose empty map and empty vector share one data "
       "position (same bytes, different types)", "[{},[]]")
def _():
    a = Asm()
    m = a.map([], [])
    return a.finish(a.vector([m, Node(VECTOR, 1, target=m.target)]), 1)


@valid("valid_empty_vector_at_key_start",
       "vector [key \"ab\", []] where the empty vector's data position is where "
       "the key starts (its size prefix is the previous byte, 0)", '["ab",[]]')
def _():
    a = Asm()
    a.raw(b"\x00")
    k = a.key(b"ab")
    return a.finish(a.vector([k, Node(VECTOR, 1, target=k.target)]), 1)


@valid("valid_empty_map_shared_50",
       "vector of 50 references to one empty map", "[" + ",".join(["{}"] * 50) + "]")
def _():
    a = Asm()
    m = a.map([], [])
    return a.finish(a.vector([m] * 50), 1)


@valid("valid_shared_string_100",
       "vector of 100 references to one string (the C++ verifier with a reuse "
       "tracker rejects a string shared 65 or more times)",
       "[" + ",".join(['"shared"'] * 100) + "]")
def _():
    a = Asm()
    s = a.string(b"shared")
    return a.finish(a.vector([s] * 100, 2), 2)


@valid("valid_shared_keys_vector_100_maps",
       "vector of 100 maps {\"a\": i, \"b\": -i} all sharing one keys vector",
       "[" + ",".join(f'{{"a":{i},"b":{-i}}}' for i in range(100)) + "]")
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [b"a", b"b"]))
    maps = [a.map(kv, [I(i), I(-i)], w=2) for i in range(100)]
    return a.finish(a.vector(maps, 2), 2)


@valid("valid_keys_vector_at_two_widths",
       "vector [B, A]: B is a map of 256 keys k000..k255 whose keys vector is "
       "2 bytes wide, so that vector's size prefix is 00 01; A is a one-entry "
       "map naming the same keys position with 1-byte keys, so its keys size "
       "is that 01 and its one key is where the low byte of B's first element "
       "points back: the 00 of the size prefix, an empty key. A reader that "
       "remembers keys vectors by position alone reads one map's keys for the "
       "other's",
       "[{" + ",".join(f'"k{i:03}":{i}' for i in range(256)) + '},{"":7}]')
def _():
    a = Asm()
    kv = a.typed(VEC_KEY, keys_of(a, [f"k{i:03}".encode() for i in range(256)]), 2)
    assert a.b[kv.size_at:kv.size_at + 2] == b"\x00\x01"
    big = a.map(kv, [I(i, 2) for i in range(256)], w=2)
    one = a.map(Node(VEC_KEY, 1, target=kv.target), [I(7)], w=2)
    return a.finish(a.vector([big, one], 2), 2)


@valid("valid_map_200_values_one_string",
       "map with 200 keys k000..k199 whose values all point at one string",
       "{" + ",".join(f'"k{i:03}":"v"' for i in range(200)) + "}")
def _():
    a = Asm()
    s = a.string(b"v")
    ks = keys_of(a, [f"k{i:03}".encode() for i in range(200)])
    m = a.map(ks, [s] * 200, w=2, kw=2)
    return a.finish(m, 2)


@valid("valid_depth_64_vectors",
       "exactly 64 nested vectors (the limit), innermost empty", "[" * 64 + "]" * 64)
def _():
    return simple_root(lambda a: nested_vectors(a, 64))


@valid("valid_depth_63_vectors_plus_fixed",
       "63 nested vectors around a fixed int2 [1, 2]: exactly 64 levels",
       "[" * 63 + "[1,2]" + "]" * 63)
def _():
    a = Asm()
    f = a.fixed(VEC_INT2, [1, 2], 1)
    return a.finish(nested_vectors(a, 63, f), 1)


@valid("valid_shared_subtree_at_two_depths",
       "vector [C, D]: C is 33 nested vectors, D is 30 nested vectors whose "
       "innermost also holds C, so C's bottom is at exactly level 64",
       "[" + "[" * 33 + "]" * 33 + "," + "[" * 30 + "[" * 33 + "]" * 33 + "]" * 30 + "]")
def _():
    a = Asm()
    c = nested_vectors(a, 33)
    d = nested_vectors(a, 30, c)
    return a.finish(a.vector([c, d]), 1)


@valid("valid_string_with_embedded_nul",
       "root string \"a\\0b\" of size 3: strings are sized, so an inner NUL is data",
       '"a\\u0000b"')
def _():
    return simple_root(lambda a: a.string(b"a\0b"))


@valid("valid_blob_not_utf8", "root blob ff fe 00: blobs are bytes, not text", '"//4A"')
def _():
    return simple_root(lambda a: a.blob(b"\xff\xfe\x00"))


@valid("valid_unsorted_plain_key_vector",
       "root vector of keys [\"b\", \"a\"]: order matters only for a map's keys",
       '["b","a"]')
def _():
    a = Asm()
    return a.finish(a.typed(VEC_KEY, keys_of(a, [b"b", b"a"])), 1)


@valid("valid_empty_key_sorts_first", "map {\"\": 1, \"a\": 2}", '{"":1,"a":2}')
def _():
    a = Asm()
    m = a.map(keys_of(a, [b"", b"a"]), [I(1), I(2)])
    return a.finish(m, 1)


@valid("valid_unsigned_byte_key_order",
       "map {\"z\": 1, \"é\": 2}: sorted by unsigned bytes (0x7a < 0xc3)",
       '{"z":1,"é":2}')
def _():
    a = Asm()
    m = a.map(keys_of(a, [b"z", "é".encode()]), [I(1), I(2)])
    return a.finish(m, 1)


@valid("valid_deprecated_string_vector",
       "deprecated typed vector of strings (type 15) [\"ab\", \"cd\"], read as keys",
       '["ab","cd"]')
def _():
    a = Asm()
    s1 = a.string(b"ab")
    s2 = a.string(b"cd")
    return a.finish(a.typed(VEC_STRING_DEPRECATED,
                            [Val(KEY, target=s1.target), Val(KEY, target=s2.target)]), 1)


@valid("valid_keys_wider_than_values",
       "map of width 1 whose keys vector has width 2", '{"a":1,"b":2}')
def _():
    a = Asm()
    m = a.map(keys_of(a, [b"a", b"b"]), [I(1), I(2)], w=1, kw=2)
    return a.finish(m, 1)


@valid("valid_key_and_string_alias",
       "vector [\"abc\" as a string, \"abc\" as a key] pointing at the same bytes",
       '["abc","abc"]')
def _():
    a = Asm()
    s = a.string(b"abc")
    return a.finish(a.vector([s, Val(KEY, target=s.target)]), 1)


@valid("valid_map_and_its_values_as_vector",
       "vector [{\"a\": 1, \"b\": 2}, <the same values read as a vector>]",
       '[{"a":1,"b":2},[1,2]]')
def _():
    a = Asm()
    m = a.map(keys_of(a, [b"a", b"b"]), [I(1), I(2)])
    return a.finish(a.vector([m, Node(VECTOR, 1, target=m.target)]), 1)


@valid("valid_empty_float_vector_w1",
       "empty typed float vector of width 1 as root (00 00 35 01 before the "
       "root): no element exists to misread; the core and the C++ reference "
       "accept it, so every verifier must (DEVIATIONS.md)", "[]")
def _():
    a = Asm()
    return a.finish(a.typed(VEC_FLOAT, [], 1), 1)


@valid("valid_empty_float_vector_w2_in_vector",
       "[<empty typed float vector of width 2>, 1]: the empty vector's size "
       "field is 2 bytes wide", "[[],1]")
def _():
    a = Asm()
    tv = a.typed(VEC_FLOAT, [], 2)
    return a.finish(a.vector([tv, I(1)]), 1)


@valid("valid_empty_float_vector_w1_map_value",
       "{\"a\": <empty typed float vector of width 1>, \"b\": <the same, "
       "width 2>}", '{"a":[],"b":[]}')
def _():
    a = Asm()
    t1 = a.typed(VEC_FLOAT, [], 1)
    t2 = a.typed(VEC_FLOAT, [], 2)
    return a.finish(a.map(keys_of(a, [b"a", b"b"]), [t1, t2]), 1)


@valid("valid_floats_at_legal_widths",
       "vector of width 8 [1.5, indirect f32 2.5, indirect f64 3.25, typed "
       "f32 vector [0.5, 1.0], fixed float3 of width 8]",
       "[1.5,2.5,3.25,[0.5,1.0],[1.0,2.0,3.0]]")
def _():
    a = Asm()
    f4 = a.indirect(IND_FLOAT, 2.5, 4)
    f8 = a.indirect(IND_FLOAT, 3.25, 8)
    tv = a.typed(VEC_FLOAT, [0.5, 1.0], 4)
    fx = a.fixed(VEC_FLOAT3, [1.0, 2.0, 3.0], 8)
    return a.finish(a.vector([F(1.5), f4, f8, tv, fx], 8), 1)


@valid("valid_offset_255", "vector [<string 250 bytes back>]: a 1-byte offset of 255",
       '["' + "s" * 251 + '"]')
def _():
    a = Asm()
    s = a.string(b"s" * 251)
    a.raw(b"\x11\x11")  # filler so that the element's offset is exactly 255
    v = a.vector([s])
    assert a.b[v.slots[0]] == 255, a.b[v.slots[0]]
    return a.finish(v, 1)


@valid("valid_all_widths_8",
       "map of width 8 {\"n\": -1, \"s\": \"x\", \"v\": [true, null]} with "
       "8-byte keys vector", '{"n":-1,"s":"x","v":[true,null]}')
def _():
    a = Asm()
    s = a.string(b"x", 8)
    v = a.vector([inl(BOOL, 1), inl(NULL, 0)], 8)
    m = a.map(keys_of(a, [b"n", b"s", b"v"]), [I(-1, 8), s, v], w=8, kw=8)
    return a.finish(m, 8)


@valid("valid_indirect_numbers",
       "vector [indirect int -5 (w8), indirect uint 2^64-1 (w8), indirect int "
       "7 (w1), indirect uint 300 (w2)]",
       "[-5,18446744073709551615,7,300]")
def _():
    a = Asm()
    i8 = a.indirect(IND_INT, -5, 8)
    u8 = a.indirect(IND_UINT, (1 << 64) - 1, 8)
    i1 = a.indirect(IND_INT, 7, 1)
    u2 = a.indirect(IND_UINT, 300, 2)
    return a.finish(a.vector([i8, u8, i1, u2]), 1)


@valid("valid_typed_vectors",
       "vector of typed vectors: int (w1), uint (w8), bool, fixed int2 (w2), "
       "fixed uint4 (w1), fixed float2 (w4)",
       "[[-1,2,-3],[18446744073709551615,0],[true,false,true],[-300,300],"
       "[1,2,3,4],[0.5,-2.0]]")
def _():
    a = Asm()
    vi = a.typed(VEC_INT, [-1, 2, -3], 1)
    vu = a.typed(VEC_UINT, [(1 << 64) - 1, 0], 8)
    vb = a.typed(VEC_BOOL, [1, 0, 1], 1)
    f2 = a.fixed(VEC_INT2, [-300, 300], 2)
    f4 = a.fixed(VEC_UINT4, [1, 2, 3, 4], 1)
    ff = a.fixed(VEC_FLOAT2, [0.5, -2.0], 4)
    return a.finish(a.vector([vi, vu, vb, f2, f4, ff]), 1)


# ---------------------------------------------------------------------------
# Driver


def build_all() -> tuple[dict[str, bytes], list[dict]]:
    files: dict[str, bytes] = {}
    manifest: list[dict] = []
    problems: list[str] = []
    for c in CASES:
        data = c["build"]()
        name = c["name"] + ".bin"
        if name in files:
            problems.append(f"{name}: duplicate name")
        files[name] = data
        is_valid = c["class"] in VALID_CLASSES
        got = reference_verify(data)
        entry = {"file": name, "class": c["class"], "valid": is_valid,
                 "description": c["description"]}
        if is_valid:
            if got is not None:
                problems.append(f"{name}: should be valid, reference says {got}")
        else:
            want = c["error"] or CLASS_ERROR[c["class"]]
            entry["error"] = want
            if got is None:
                problems.append(f"{name}: should be invalid, reference accepts it")
            elif want != "any" and got != want:
                problems.append(f"{name}: expected {want}, reference says {got}")
        if c["expand"]:
            entry["expand"] = c["expand"]
        if c["json"] is not None:
            json.loads(c["json"])  # must itself be valid JSON
            entry["json"] = c["json"]
        manifest.append(entry)
    if problems:
        raise SystemExit("generate.py: cases are not what they claim:\n  "
                         + "\n  ".join(problems))
    return files, manifest


def main() -> int:
    check = "--check" in sys.argv[1:]
    files, manifest = build_all()
    text = json.dumps(manifest, indent=1, ensure_ascii=False) + "\n"
    outputs = {name: data for name, data in files.items()}
    outputs["manifest.json"] = text.encode()
    stale = sorted(p.name for p in HERE.glob("*.bin") if p.name not in files)
    if check:
        diff = [n for n, d in outputs.items()
                if not (HERE / n).exists() or (HERE / n).read_bytes() != d]
        if diff or stale:
            print("out of date:", ", ".join(diff + stale))
            return 1
        print(f"{len(files)} files up to date")
        return 0
    for name in stale:
        (HERE / name).unlink()
    for name, data in outputs.items():
        (HERE / name).write_bytes(data)
    counts: dict[str, int] = {}
    for e in manifest:
        counts[e["class"]] = counts.get(e["class"], 0) + 1
    print(f"wrote {len(files)} files and manifest.json")
    for cls, n in counts.items():
        print(f"  {cls:28} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
