/**
 * Zero-copy reading. {@link root} gives a {@link Ref} to the root value; every
 * access is bounds-checked and throws a {@link FlexError} instead of reading
 * outside the buffer, so it is safe on untrusted bytes. Offsets and sizes are
 * plain numbers (never BigInt); 64-bit integers come back as `number` when
 * exact and `bigint` otherwise (see {@link IntMode}).
 */

import { fail, FlexError } from "./error.js";
import {
  fixedElement, fixedLength, HOST_LITTLE_ENDIAN, isFixedVector, isInline, isKnownType, isTypedVector, T, typedElement, typeName,
} from "./types.js";
import { readUtf8, utf8Bytes } from "./utf8.js";

/**
 * How integers are returned: `"auto"` (default) gives `number` when the value
 * is a safe integer and `bigint` otherwise; `"bigint"` gives `bigint` always;
 * `"number"` gives the nearest `number` always (lossy above 2^53).
 */
export type IntMode = "auto" | "bigint" | "number";

const TWO32 = 4294967296;

/**
 * What the readers take: the bytes of a buffer, as a `Uint8Array` (a Node
 * `Buffer` is one), an `ArrayBuffer` or `SharedArrayBuffer` (what `fetch`'s
 * `arrayBuffer()`, `FileReader` and `postMessage` hand over), or any other
 * view of one (a `DataView` or another typed array: its bytes, as
 * `TextDecoder` reads them).
 */
export type BytesLike = Uint8Array | ArrayBufferLike | ArrayBufferView;

/**
 * The bytes of `input` as a `Uint8Array` over the same memory (no copy).
 * Anything else is a `TypeError` naming what came: an `ArrayBuffer` read as
 * a `Uint8Array` had no length, and an `Int8Array` gave negative bytes, so
 * both failed deep inside with errors about the buffer's contents.
 */
export function bytesOf(input: BytesLike): Uint8Array {
  if (input instanceof Uint8Array) return input;
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  const tag = Object.prototype.toString.call(input);
  if (tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]") return new Uint8Array(input as ArrayBufferLike);
  throw new TypeError(`expected the bytes of a buffer (a Uint8Array, an ArrayBuffer or a view of one), got ${kindOf(input)}`);
}

/** A short name for what `x` is, for error messages. */
function kindOf(x: unknown): string {
  if (x === null) return "null";
  if (typeof x !== "object") return typeof x;
  const name = (x as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `a ${name}` : "an object";
}

/** A buffer with its DataView, shared by every reference into it. */
export class Buf {
  /** The bytes. */
  readonly u8: Uint8Array;
  /** A little-endian view of the same bytes. */
  readonly dv: DataView;
  constructor(u8: Uint8Array) {
    this.u8 = u8;
    this.dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  }
}

/** Unsigned integer of `w` bytes at `pos` (8-byte values above 2^53 are approximate). */
export function readUInt(b: Buf, pos: number, w: number): number {
  if (pos < 0 || pos + w > b.u8.length) throw fail("Truncated", "read past the end of the buffer", pos);
  switch (w) {
    case 1: return b.u8[pos];
    case 2: return b.dv.getUint16(pos, true);
    case 4: return b.dv.getUint32(pos, true);
    default: {
      // Offsets and sizes: their high word is zero in practice (see joinWords).
      return joinWords(b.dv.getUint32(pos + 4, true), b.dv.getUint32(pos, true));
    }
  }
}

/**
 * `hi * 2^32 + lo` for the two 32-bit words of an 8-byte integer (`lo`
 * unsigned, `hi` signed or unsigned, the sum within the safe range). When the
 * value fits 32 bits (a zero high word, or a negative one whose high word is
 * all ones) it is returned without float arithmetic, so the engine keeps it
 * a small integer: a product, even of a zero high word, is a float, and so
 * is all the code that uses it.
 */
export function joinWords(hi: number, lo: number): number {
  if (hi === 0) return lo;
  if (hi === -1 && lo >= 0x80000000) return lo | 0;
  return hi * TWO32 + lo;
}

/** Signed integer of `w` bytes at `pos`. */
export function readInt(b: Buf, pos: number, w: number, mode: IntMode = "auto"): number | bigint {
  if (pos < 0 || pos + w > b.u8.length) throw fail("Truncated", "read past the end of the buffer", pos);
  let v: number;
  switch (w) {
    case 1: v = b.dv.getInt8(pos); break;
    case 2: v = b.dv.getInt16(pos, true); break;
    case 4: v = b.dv.getInt32(pos, true); break;
    default: {
      const hi = b.dv.getInt32(pos + 4, true);
      if (hi > 0x1fffff || hi < -0x200000) {
        const big = b.dv.getBigInt64(pos, true);
        return mode === "number" ? Number(big) : big;
      }
      v = joinWords(hi, b.dv.getUint32(pos, true));
      if (mode === "auto" && !Number.isSafeInteger(v)) return b.dv.getBigInt64(pos, true);
    }
  }
  return mode === "bigint" ? BigInt(v) : v;
}

/** Unsigned integer of `w` bytes at `pos`, as a number or bigint according to `mode`. */
export function readUIntAs(b: Buf, pos: number, w: number, mode: IntMode = "auto"): number | bigint {
  if (w === 8) {
    if (pos < 0 || pos + 8 > b.u8.length) throw fail("Truncated", "read past the end of the buffer", pos);
    const hi = b.dv.getUint32(pos + 4, true);
    if (hi > 0x1fffff) {
      const big = b.dv.getBigUint64(pos, true);
      return mode === "number" ? Number(big) : big;
    }
    const v = joinWords(hi, b.dv.getUint32(pos, true));
    return mode === "bigint" ? BigInt(v) : v;
  }
  const v = readUInt(b, pos, w);
  return mode === "bigint" ? BigInt(v) : v;
}

/** Float of `w` bytes (4 or 8) at `pos`; other widths are an error, never a guess. */
export function readFloat(b: Buf, pos: number, w: number): number {
  if (w !== 4 && w !== 8) throw fail("BadWidth", `a float cannot be ${w} bytes wide`, pos);
  if (pos < 0 || pos + w > b.u8.length) throw fail("Truncated", "read past the end of the buffer", pos);
  return w === 4 ? b.dv.getFloat32(pos, true) : b.dv.getFloat64(pos, true);
}

/** Position reached by following the (backwards) offset stored at `pos`. */
export function follow(b: Buf, pos: number, w: number): number {
  const off = readUInt(b, pos, w);
  if (off > pos) throw fail("OffsetOutOfBounds", "offset points before the buffer", pos);
  return pos - off;
}

/** Length of the NUL-terminated key at `at`. */
export function keyLength(b: Buf, at: number): number {
  const u8 = b.u8;
  if (at < 0 || at >= u8.length) throw fail("OffsetOutOfBounds", "key outside the buffer", at);
  const end = u8.indexOf(0, at);
  if (end < 0) throw fail("MissingNul", "key without a terminating NUL", at);
  return end - at;
}

/** Compares the stored key at `at` with `probe` (UTF-8) like strcmp. */
function compareKey(b: Buf, at: number, probe: Uint8Array): number {
  const u8 = b.u8;
  const n = probe.length;
  for (let i = 0; i < n; i++) {
    const p = at + i;
    if (p >= u8.length) throw fail("MissingNul", "key without a terminating NUL", at);
    const c = u8[p];
    if (c !== probe[i]) return c - probe[i];
  }
  if (at + n >= u8.length) throw fail("MissingNul", "key without a terminating NUL", at);
  return u8[at + n] === 0 ? 0 : 1;
}

/** Root slot of a finished buffer: `[slot position, slot width, packed type]`. */
export function rootSlot(b: Buf): [number, number, number] {
  return rootOf(b.u8);
}

/** {@link rootSlot} of raw bytes. */
export function rootOf(u8: Uint8Array): [number, number, number] {
  const n = u8.length;
  if (n < 3) throw fail("Truncated", "a buffer has at least 3 bytes", 0);
  const w = u8[n - 1];
  if (w !== 1 && w !== 2 && w !== 4 && w !== 8) throw fail("BadWidth", `root width ${w}`, n - 1);
  const pos = n - 2 - w;
  if (pos < 0) throw fail("Truncated", "root slot before the buffer", 0);
  return [pos, w, u8[n - 2]];
}

/** The root value of `bytes`, for checked reads. */
export function root(bytes: BytesLike, mode: IntMode = "auto"): Ref {
  const b = new Buf(bytesOf(bytes));
  const [pos, w, packed] = rootSlot(b);
  return Ref.of(b, pos, w, packed, mode);
}

/** A view of one value inside a buffer; cheap, never copies data out. */
export class Ref {
  /** The buffer. */
  readonly b: Buf;
  /** Position of the value's slot (the inline scalar, or the offset to the data). */
  readonly pos: number;
  /** Byte width of that slot. */
  readonly slotWidth: number;
  /** Type code. */
  readonly type: number;
  /** Byte width from the packed type (scalar width, or element/size width). */
  readonly width: number;
  /** How integers are returned. */
  readonly mode: IntMode;

  /** @internal */
  constructor(b: Buf, pos: number, slotWidth: number, type: number, width: number, mode: IntMode) {
    this.b = b;
    this.pos = pos;
    this.slotWidth = slotWidth;
    this.type = type;
    this.width = width;
    this.mode = mode;
  }

  /** A reference from a packed type byte (unknown type codes are an error). */
  static of(b: Buf, pos: number, slotWidth: number, packed: number, mode: IntMode = "auto"): Ref {
    const t = packed >> 2;
    if (!isKnownType(t)) throw fail("UnknownType", `unknown type code ${t} (packed ${packed})`, pos);
    return new Ref(b, pos, slotWidth, t, 1 << (packed & 3), mode);
  }

  /** The type's name, e.g. `"map"` or `"vector_int"`. */
  get typeName(): string {
    return typeName(this.type);
  }

  /** True for null. */
  get isNull(): boolean {
    return this.type === T.Null;
  }

  /** True for floats (inline or indirect). */
  get isFloat(): boolean {
    return this.type === T.Float || this.type === T.IndirectFloat;
  }

  /** True for any integer type. */
  get isInteger(): boolean {
    const t = this.type;
    return t === T.Int || t === T.UInt || t === T.IndirectInt || t === T.IndirectUInt;
  }

  private mismatch(expected: string): FlexError {
    return fail("TypeMismatch", `expected ${expected}, found ${this.typeName}`, this.pos);
  }

  /** Start of the data an offset-typed value points to. */
  dataOffset(): number {
    return follow(this.b, this.pos, this.slotWidth);
  }

  /** A boolean. */
  asBool(): boolean {
    if (this.type !== T.Bool) throw this.mismatch("bool");
    return readUInt(this.b, this.pos, this.slotWidth) !== 0;
  }

  /** An integer of any integer type, as `number` or `bigint` according to the mode. */
  asInt(): number | bigint {
    switch (this.type) {
      case T.Int: return readInt(this.b, this.pos, this.slotWidth, this.mode);
      case T.UInt: return readUIntAs(this.b, this.pos, this.slotWidth, this.mode);
      case T.IndirectInt: return readInt(this.b, this.dataOffset(), this.width, this.mode);
      case T.IndirectUInt: return readUIntAs(this.b, this.dataOffset(), this.width, this.mode);
      default: throw this.mismatch("integer");
    }
  }

  /** An integer as an exact `bigint`. */
  asBigInt(): bigint {
    switch (this.type) {
      case T.Int: return readInt(this.b, this.pos, this.slotWidth, "bigint") as bigint;
      case T.UInt: return readUIntAs(this.b, this.pos, this.slotWidth, "bigint") as bigint;
      case T.IndirectInt: return readInt(this.b, this.dataOffset(), this.width, "bigint") as bigint;
      case T.IndirectUInt: return readUIntAs(this.b, this.dataOffset(), this.width, "bigint") as bigint;
      default: throw this.mismatch("integer");
    }
  }

  /** Any number as a `number` (integers beyond 2^53 are rounded). */
  asNumber(): number {
    switch (this.type) {
      case T.Float: return readFloat(this.b, this.pos, this.slotWidth);
      case T.IndirectFloat: return readFloat(this.b, this.dataOffset(), this.width);
      case T.Int: return readInt(this.b, this.pos, this.slotWidth, "number") as number;
      case T.UInt: return readUIntAs(this.b, this.pos, this.slotWidth, "number") as number;
      case T.IndirectInt: return readInt(this.b, this.dataOffset(), this.width, "number") as number;
      case T.IndirectUInt: return readUIntAs(this.b, this.dataOffset(), this.width, "number") as number;
      default: throw this.mismatch("number");
    }
  }

  /** Position and byte length of a string's or blob's data. */
  sizedSpan(): [number, number] {
    const data = this.dataOffset();
    const w = this.width;
    if (data < w) throw fail("OffsetOutOfBounds", "size prefix before the buffer", this.pos);
    const len = readUInt(this.b, data - w, w);
    if (data + len > this.b.u8.length) throw fail("SizeOutOfBounds", "data runs past the end", data - w);
    return [data, len];
  }

  /** A string or key (validated UTF-8). */
  asString(): string {
    let at: number;
    let len: number;
    if (this.type === T.String) [at, len] = this.sizedSpan();
    else if (this.type === T.Key) {
      at = this.dataOffset();
      len = keyLength(this.b, at);
    } else throw this.mismatch("string");
    const s = readUtf8(this.b.u8, at, len);
    if (s === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", at);
    return s;
  }

  /** The bytes of a blob (or string), as a view of the buffer (no copy). */
  asBlob(): Uint8Array {
    if (this.type !== T.Blob && this.type !== T.String) throw this.mismatch("blob");
    const [at, len] = this.sizedSpan();
    return this.b.u8.subarray(at, at + len);
  }

  /** A vector view of any vector type (untyped, typed, fixed, or a map's values). */
  asVector(): VectorRef {
    const t = this.type;
    const w = this.width;
    if (t === T.Vector || t === T.Map) return vectorAt(this.b, this.dataOffset(), w, -1, this.pos, this.mode);
    if (isTypedVector(t)) return vectorAt(this.b, this.dataOffset(), w, typedElement(t), this.pos, this.mode);
    if (isFixedVector(t)) {
      const data = this.dataOffset();
      const len = fixedLength(t);
      if (data + len * w > this.b.u8.length) throw fail("SizeOutOfBounds", "vector runs past the end", data);
      return new VectorRef(this.b, data, len, w, fixedElement(t), this.mode);
    }
    throw this.mismatch("vector");
  }

  /** A map view. */
  asMap(): MapRef {
    if (this.type !== T.Map) throw this.mismatch("map");
    const w = this.width;
    const values = vectorAt(this.b, this.dataOffset(), w, -1, this.pos, this.mode);
    const prefix = values.data - 3 * w;
    if (prefix < 0) throw fail("OffsetOutOfBounds", "map prefix before the buffer", this.pos);
    const keysAt = follow(this.b, prefix, w);
    const kw = readUInt(this.b, prefix + w, w);
    if (kw !== 1 && kw !== 2 && kw !== 4 && kw !== 8) throw fail("BadWidth", `keys width ${kw}`, prefix + w);
    const keys = vectorAt(this.b, keysAt, kw, T.Key, this.pos, this.mode);
    return new MapRef(keys, values);
  }

  /** Elements of a vector or map, or bytes of a string, blob or key. */
  get length(): number {
    switch (this.type) {
      case T.String:
      case T.Blob: return this.sizedSpan()[1];
      case T.Key: return keyLength(this.b, this.dataOffset());
      default: return this.asVector().length;
    }
  }

  /** Map entry by key; `KeyNotFound` when absent. */
  get(key: string): Ref {
    return this.asMap().get(key);
  }

  /** Vector element by index. */
  index(i: number): Ref {
    return this.asVector().get(i);
  }
}

function vectorAt(b: Buf, data: number, w: number, elem: number, at: number, mode: IntMode): VectorRef {
  if (data < w) throw fail("OffsetOutOfBounds", "size prefix before the buffer", at);
  const len = readUInt(b, data - w, w);
  const per = elem < 0 ? w + 1 : w;
  if (data + len * per > b.u8.length) throw fail("SizeOutOfBounds", "vector runs past the end", data - w);
  return new VectorRef(b, data, len, w, elem, mode);
}

/** A vector of any kind, its bounds already checked. */
export class VectorRef {
  /** @internal */
  constructor(
    /** The buffer. */ readonly b: Buf,
    /** Position of the first element. */ readonly data: number,
    /** Number of elements. */ readonly length: number,
    /** Element width in bytes. */ readonly width: number,
    /** Element type of typed and fixed vectors; -1 for untyped ones. */ readonly elem: number,
    /** How integers are returned. */ readonly mode: IntMode,
  ) {}

  /** Element `i`. */
  get(i: number): Ref {
    if (!(i >= 0 && i < this.length)) throw fail("IndexOutOfBounds", `index ${i} of a vector of ${this.length}`, this.data);
    const w = this.width;
    const pos = this.data + i * w;
    if (this.elem >= 0) return new Ref(this.b, pos, w, this.elem, 1, this.mode);
    return Ref.of(this.b, pos, w, this.b.u8[this.data + this.length * w + i], this.mode);
  }

  /** Iterates over the elements. */
  *[Symbol.iterator](): IterableIterator<Ref> {
    for (let i = 0; i < this.length; i++) yield this.get(i);
  }
}

/** A map: sorted keys and their values. */
export class MapRef {
  /** @internal */
  constructor(
    /** The keys vector. */ readonly keys: VectorRef,
    /** The values vector. */ readonly values: VectorRef,
  ) {}

  /** Number of entries. */
  get length(): number {
    return this.keys.length;
  }

  /** Position of the keys vector (maps sharing it have the same one). */
  get keysOffset(): number {
    return this.keys.data;
  }

  /** The key of entry `i`. */
  key(i: number): string {
    return this.keys.get(i).asString();
  }

  /** The value of entry `i`. */
  value(i: number): Ref {
    return this.values.get(i);
  }

  /** Index of `key` by binary search over the sorted keys, or -1. */
  indexOf(key: string | Uint8Array): number {
    const probe = typeof key === "string" ? utf8Bytes(key) : key;
    if (probe.indexOf(0) >= 0) return -1;
    let lo = 0;
    let hi = this.keys.length;
    const w = this.keys.width;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = follow(this.keys.b, this.keys.data + mid * w, w);
      const c = compareKey(this.keys.b, at, probe);
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid;
      else return mid;
    }
    return -1;
  }

  /** The value for `key`, or `undefined` when absent. */
  find(key: string | Uint8Array): Ref | undefined {
    const i = this.indexOf(key);
    return i < 0 ? undefined : this.values.get(i);
  }

  /** The value for `key`; `KeyNotFound` when absent. */
  get(key: string): Ref {
    const r = this.find(key);
    if (r === undefined) throw fail("KeyNotFound", `key ${JSON.stringify(key)} not found`, this.keys.data);
    return r;
  }
}

export { compareKey, isInline };

// Floats through one scratch word instead of a DataView per buffer; the
// scratch's byte order is the platform's, so big-endian hosts use a DataView.
const scratch = new Float64Array(1);
const scratch32 = new Float32Array(scratch.buffer, 0, 1);
const scratchU8 = new Uint8Array(scratch.buffer);
const LITTLE = HOST_LITTLE_ENDIAN;

/** Vectors of fewer bytes are read element by element (see {@link littleEndianCopy}). */
const BULK_MIN = 256;

/**
 * The `bytes` bytes at `p` in a fresh buffer that typed arrays of any element
 * size can view (the caller checked the bounds), or `null` on big-endian
 * hosts (whose typed arrays would read the little-endian numbers reversed)
 * and below {@link BULK_MIN} bytes. Bulk vector reads go through it: one copy
 * and one load per element beat assembling every element from its bytes
 * (about 2.7x on 4,096 doubles on Node 20). A fresh `ArrayBuffer` costs about
 * a microsecond, so vectors up to {@link BULK_SCRATCH} bytes share one reused
 * buffer: the caller must read it before the next call.
 */
export function littleEndianCopy(u8: Uint8Array, p: number, bytes: number): ArrayBufferLike | null {
  if (!LITTLE || bytes < BULK_MIN) return null;
  if (bytes <= BULK_SCRATCH) {
    const scratch = bulkScratch ?? (bulkScratch = new Uint8Array(BULK_SCRATCH));
    scratch.set(u8.subarray(p, p + bytes));
    return scratch.buffer;
  }
  const at = u8.byteOffset + p;
  return u8.buffer.slice(at, at + bytes);
}

/** Vectors up to this many bytes are copied into one reused buffer (made on first use) instead of a fresh one. */
const BULK_SCRATCH = 1 << 17;
let bulkScratch: Uint8Array | null = null;

/** The little-endian f64 at `p` (the caller checked the bounds). */
export function f64At(u8: Uint8Array, p: number): number {
  if (!LITTLE) return new DataView(u8.buffer, u8.byteOffset).getFloat64(p, true);
  const s = scratchU8;
  s[0] = u8[p]; s[1] = u8[p + 1]; s[2] = u8[p + 2]; s[3] = u8[p + 3];
  s[4] = u8[p + 4]; s[5] = u8[p + 5]; s[6] = u8[p + 6]; s[7] = u8[p + 7];
  return scratch[0];
}

/** The little-endian f32 at `p` (the caller checked the bounds). */
export function f32At(u8: Uint8Array, p: number): number {
  if (!LITTLE) return new DataView(u8.buffer, u8.byteOffset).getFloat32(p, true);
  const s = scratchU8;
  s[0] = u8[p]; s[1] = u8[p + 1]; s[2] = u8[p + 2]; s[3] = u8[p + 3];
  return scratch32[0];
}

/** The little-endian u32 at `p` (the caller checked the bounds). */
export function u32(u8: Uint8Array, p: number): number {
  return (u8[p] | (u8[p + 1] << 8) | (u8[p + 2] << 16) | (u8[p + 3] << 24)) >>> 0;
}
