/**
 * The builder: writes exactly the bytes of the C++ reference
 * `flexbuffers::Builder` for the same call sequence and sharing flags (the
 * Rust core's `Builder` is the model, quirks included: map widths from a
 * doubled stack index, NaN at 8 bytes, inline element widths raised to the
 * parent's, and the `IndirectDouble` deviation that writes the f32).
 *
 * Values are pushed on a stack (kept as parallel typed arrays, so pushing a
 * scalar allocates nothing); `endVector`/`endMap` write their elements and
 * replace them by one offset value; `finish` writes the root trailer.
 */

import { fail, FlexError } from "./error.js";
import { u32 } from "./reader.js";
import { T, widthOfDouble, widthOfInt, widthOfUInt } from "./types.js";
import { writeUtf8, writeUtf8Range, compareUtf8, utf8Bytes } from "./utf8.js";

/** Fewest strings {@link Builder.strings} writes in one run. */
const RUN_MIN = 8;
/** Between two strings of a run: the first one's NUL and a placeholder for the next one's size byte. */
const SEPARATOR = "\0\x01";
/**
 * {@link Builder.strings} joins at most this many UTF-16 units into one
 * string: V8 allocates strings above 128 KB in its large-object space, and
 * one 160 KB join took about a third of string_flood's typed encode on Node
 * 20 (the same text in pieces of 32 K units took a small part of that).
 */
const RUN_PIECE = 32768;

/** The bits of a key-positions hash kept (all but in tests: see {@link collideKeyHashes}). */
let keyHashBits = 0x3fffffff;

/**
 * For tests: with `true`, every set of key positions hashes alike, so that
 * finding a map's keys vector must tell key sets apart by their positions.
 * @internal
 */
export function collideKeyHashes(on: boolean): void {
  keyHashBits = on ? 0 : 0x3fffffff;
}

/** Sharing flags with the C++ `BuilderFlag` numbering. */
export const Share = {
  /** Nothing is shared. */
  None: 0,
  /** Equal keys are written once (the C++ default). */
  Keys: 1,
  /** Equal strings are written once. */
  Strings: 2,
  /** Keys and strings. */
  KeysAndStrings: 3,
  /** The C++ key-vector flag, which has no effect there and so none here. */
  KeyVectors: 4,
  /** Every flag. */
  All: 7,
} as const;

/** Builder configuration. */
export interface BuilderOptions {
  /** C++ sharing flags (default {@link Share.Keys}). */
  share?: number;
  /** Reuse one keys vector for maps with the same sorted keys (an extension: bytes then differ from C++). */
  dedupKeyVectors?: boolean;
  /** Bytes reserved up front (default 256). */
  initialCapacity?: number;
  /**
   * Largest buffer kept across {@link Builder.clear} (default 1 MiB), so one
   * giant payload does not pin memory. A kept buffer over 1 MiB is still
   * let go at a `clear` whose buffer used less than an eighth of it.
   */
  maxRetainedCapacity?: number;
}

/** A value already written, to push again with {@link Builder.reuseValue}. */
export interface ValueHandle {
  /** @internal */ readonly t: number;
  /** @internal */ readonly w: number;
  /** @internal */ readonly d: number;
  /** @internal */ readonly big: bigint | undefined;
  /** @internal */ readonly gen: number;
}

/** A keys vector written once and shared by maps of one shape ({@link Builder.keyVector}). */
export interface KeyVector {
  /** Number of keys. */
  readonly length: number;
  /** @internal */ readonly d: number;
  /** @internal */ readonly w: number;
  /** @internal */ readonly gen: number;
}

/**
 * A keys vector written after a {@link KeyLayout}'s block: its bytes from
 * the block's end (padding, size, elements), its width and where its
 * elements start, counted from the block's end.
 * @internal
 */
export interface KeyVectorBytes {
  bytes: Uint8Array;
  width: number;
  data: number;
}

/**
 * The keys of one map shape, checked once (strictly ascending in unsigned
 * byte order, no NUL) and laid out as they are written by
 * {@link Builder.keyVectorFor}: every key's UTF-8 followed by its NUL,
 * concatenated. Generated typed coders build one per message type.
 */
export class KeyLayout {
  /** The keys, strictly ascending by unsigned bytes. */
  readonly names: readonly string[];
  /** Every key's UTF-8 followed by a NUL, concatenated. */
  readonly block: Uint8Array;
  /** Where each key starts in {@link block}. */
  readonly starts: Uint32Array;
  /**
   * {@link block} read as little-endian 32-bit words (the bytes after the
   * last whole word are not in it), for proofs that compare four bytes at a
   * time.
   */
  readonly words: Int32Array;
  /**
   * The keys vector last proven after this block (see the typed decoder's
   * layout proof): its distance from the block's start, its width, and the
   * bytes it then holds.
   * @internal
   */
  vector: { dist: number; kw: number; words: Int32Array; tail: Uint8Array } | null = null;
  /**
   * The bytes {@link Builder.keyVectorFor} writes after the block (padding,
   * size and offsets back to the keys) by the block's end modulo 8, with no
   * forced width: they depend on nothing else, so the next buffer whose
   * block ends at the same residue copies them.
   * @internal
   */
  readonly vectors: (KeyVectorBytes | undefined)[] = new Array(8).fill(undefined);

  constructor(names: readonly string[]) {
    const parts = names.map(utf8Bytes);
    const starts = new Uint32Array(names.length);
    let n = 0;
    for (let i = 0; i < names.length; i++) {
      if (i > 0) {
        const c = compareUtf8(names[i - 1], names[i]);
        if (c === 0) throw builderError(`duplicate key ${JSON.stringify(names[i])}`);
        if (c > 0) throw builderError("keys of a key vector must be sorted");
      }
      if (parts[i].indexOf(0) >= 0) throw builderError("a key may not contain NUL");
      starts[i] = n;
      n += parts[i].length + 1;
    }
    const block = new Uint8Array(n);
    for (let i = 0; i < parts.length; i++) block.set(parts[i], starts[i]);
    this.names = names;
    this.block = block;
    this.starts = starts;
    this.words = wordsOf(block);
  }

  /** True when `other` has exactly the same keys (the same block bytes). */
  sameKeys(other: KeyLayout): boolean {
    const a = this.block;
    const b = other.block;
    if (a.length !== b.length || this.starts.length !== other.starts.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
}

/**
 * `bytes` read as little-endian 32-bit words; the bytes after the last whole
 * word are left out (callers compare them one by one).
 * @internal
 */
export function wordsOf(bytes: Uint8Array): Int32Array {
  const words = new Int32Array(bytes.length >> 2);
  for (let i = 0; i < words.length; i++) words[i] = u32(bytes, 4 * i);
  return words;
}

/** Element kinds of bulk numeric vectors, named like schema scalars. */
export type ScalarKind = "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "f32" | "f64" | "bool";

const NATURAL: Record<ScalarKind, number> = {
  i8: 0, i16: 1, i32: 2, i64: 3, u8: 0, u16: 1, u32: 2, u64: 3, f32: 2, f64: 3, bool: 0,
};
const ELEMENT: Record<ScalarKind, number> = {
  i8: T.Int, i16: T.Int, i32: T.Int, i64: T.Int, u8: T.UInt, u16: T.UInt, u32: T.UInt, u64: T.UInt,
  f32: T.Float, f64: T.Float, bool: T.Bool,
};

const TWO32 = 4294967296;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
/**
 * Where a builder's key pool last wrote one key: its position, in the
 * buffer of epoch `epoch` (a key of an earlier buffer is written again, and
 * its cell updated, when a later buffer first pushes it), and where its
 * UTF-8 bytes and NUL are kept for that (`bytes` into the pool's
 * {@link Builder} key bytes, `-1` for a key that is not kept: one with a
 * NUL, an error each time).
 * @internal
 */
export class KeyCell {
  constructor(
    public loc: number,
    public epoch: number,
    public bytes: number,
    public size: number,
  ) {}
}

/**
 * The key pool's cells for the keys of one compiled object writer, by the
 * key's index in its shape, valid for the pool `pool` names
 * ({@link Builder.keyCached}): an object pushes its keys without looking
 * them up by text once the first object of its shape has found their cells.
 * @internal
 */
export interface KeyCache {
  /** The pool the cells belong to (0: none yet). */
  pool: number;
  cells: (KeyCell | undefined)[];
}

/** Ids of key pools: each builder's, and again each time it is emptied. */
let pools = 0;

let generations = 1;

/**
 * Most keys a builder's pool keeps across buffers: a buffer with more (an
 * object keyed by ids) empties it at the next clear and grows it again key
 * by key; at 4,096, 5,000 records keyed by ids encoded 1.18x slower and
 * 5,000 objects of keys of their own 1.19x slower than at 16,384.
 */
const KEY_POOL_MAX = 16384;
/** Most UTF-16 units of key text the pool keeps across buffers (about 2 MB). */
const KEY_POOL_UNITS = 1 << 20;
/** Default of {@link BuilderOptions.maxRetainedCapacity}. */
const RETAINED = 1 << 20;
/**
 * Buffer kept by the builders `encode` and the generated coders' `encodeX`
 * reuse from call to call (see {@link sharedBuilderOptions}).
 */
const SHARED_RETAINED = 1 << 23;
/**
 * Most a buffer grows to at once for the length of the one before it (see
 * `lastLen`): a small message after a huge one allocates no more than this.
 */
const REGROW_MAX = 1 << 24;
/** Bytes of one value stack slot: its type, width and data. */
const STACK_SLOT_BYTES = 10;
/** Buffers a builder's key pool tells apart before it starts over. */
const POOL_EPOCHS = 1024;
/** Maps of up to this many entries are written by `endSmallMap`. */
const SMALL_MAP = 8;
/** Maps on a given keys vector (`endMapWithKeys`) of up to this many values are written by `writeSmallValues`. */
const SMALL_MAP_VALUES = 16;
/** Whether small maps take their own writers (off only in tests, to compare with the general one). */
let smallMaps = true;

/**
 * For tests: with `false`, small maps are written by the general vector
 * writer, whose bytes their own writers must match.
 * @internal
 */
export function useSmallMapWriters(on: boolean): void {
  smallMaps = on;
}
/** The largest offset each width (log2 bytes 0, 1, 2) holds. */
const WIDTH_LIMITS = [0xff, 0xffff, 0xffffffff];

/**
 * Whether a number is pushed as an int (a safe integer, not -0) rather than
 * a double, by the generic encoder and {@link Builder.numberVector} alike.
 * @internal
 */
export function isIntElement(v: number): boolean {
  return Number.isSafeInteger(v) && !(v === 0 && 1 / v < 0);
}

/** Padding that aligns `len` to `align` bytes (a power of two). */
function padding(len: number, align: number): number {
  return (-len) & (align - 1);
}

function toTypedVector(elem: number, fixedLen: number): number {
  if (fixedLen === 0) {
    switch (elem) {
      case T.Int: return T.VectorInt;
      case T.UInt: return T.VectorUInt;
      case T.Float: return T.VectorFloat;
      case T.Bool: return T.VectorBool;
      default: return T.VectorKey;
    }
  }
  return T.VectorInt2 + (fixedLen - 2) * 3 + (elem - T.Int);
}

/**
 * Options of the builders that `encode` and the generated coders'
 * `encodeX` keep from call to call: they keep a buffer of up to 8 MiB (the
 * default is 1 MiB), so a payload of a few megabytes encoded again writes
 * into the same memory instead of a fresh allocation each time (up to 1.44x
 * faster on public documents of 2-3 MB); one that used less than an eighth
 * of it lets it go (see {@link BuilderOptions.maxRetainedCapacity}).
 * @internal
 */
export function sharedBuilderOptions(options: BuilderOptions = {}): BuilderOptions {
  return { ...options, maxRetainedCapacity: SHARED_RETAINED };
}

/**
 * The builder's own typed arrays (its output buffer and the value stack's
 * columns) are instances of these subclasses, never handed out: every view
 * given to a caller is a plain `Uint8Array` over the same memory. A store of
 * a named property on any plain `Uint8Array` (msgpackr keeps a `dataView` on
 * its buffers and on the arrays it decodes) changes that class's shared
 * hidden class, and Chromium then ran every encode that wrote into plain
 * `Uint8Array`s about 35% slower for the rest of the page (typed encode of
 * chat_thread 115 to 150 µs); the subclasses' hidden classes are only ever
 * the builder's.
 */
class Bytes extends Uint8Array {}
/** See {@link Bytes}. */
class Floats extends Float64Array {}

function builderError(detail: string): FlexError {
  return fail("Builder", detail);
}

/**
 * Writes FlexBuffers.
 *
 * ```ts
 * const b = new Builder();
 * b.startMap();
 * b.key("name"); b.string("Ada");
 * b.key("born"); b.int(1815);
 * b.endMap();
 * const bytes = b.finish();
 * ```
 */
export class Builder {
  private buf: Uint8Array;
  private dv: DataView;
  private len = 0;
  private sType: Uint8Array;
  private sWidth: Uint8Array;
  private sData: Float64Array;
  private sBig: (bigint | undefined)[] = [];
  private sp = 0;
  private opens: number[] = [];
  private forceMin = 0;
  private readonly share: number;
  private readonly dedup: boolean;
  private readonly maxRetained: number;
  private readonly initial: number;
  /**
   * Length of the buffer before the last {@link clear}: a buffer that
   * outgrows its capacity grows at once to at least this, so a large
   * payload encoded again (its buffer dropped by `clear` for being over
   * `maxRetainedCapacity`) does not double its way up from the initial
   * capacity each time (14 allocations and copies for a 3.7 MB buffer);
   * at most {@link REGROW_MAX}.
   */
  private lastLen = 0;
  /**
   * Keys written, to where: each key's cell holds its position and the
   * epoch of the buffer it was written in. Entries of earlier buffers are
   * kept, so a builder reused for records of one shape updates its cells
   * instead of growing a new table every time; the table is emptied when it
   * passes {@link KEY_POOL_MAX} entries or {@link KEY_POOL_UNITS} units of
   * key text, and when the epoch wraps (and then gets a new {@link poolId}).
   */
  private keyPool = new Map<string, KeyCell>();
  /** Which pool {@link keyPool} is, for the caches of compiled writers. */
  private poolId = ++pools;
  /** UTF-16 units of the keys in {@link keyPool} (see {@link KEY_POOL_UNITS}). */
  private keyPoolUnits = 0;
  /**
   * The pooled keys' bytes, each with its NUL, one after the other: a key
   * written again in a later buffer is copied from here, not encoded from
   * its string again. (A browser may turn a string it was handed, as
   * `TextEncoder.encode` is, into an external string, which reads by
   * `charCodeAt` about three times slower: Chromium's generic encode of
   * wide_map took 9.1 µs instead of 6.4 once its keys had been through
   * `TextEncoder`.)
   */
  private keyBytes: Uint8Array = new Bytes(0);
  private keyBytesLen = 0;
  /** This buffer's epoch, below {@link POOL_EPOCHS}. */
  private poolEpoch = 0;
  private stringPool = new Map<string, number>();
  private keyVectors = new Map<string, number>();
  /**
   * With shared keys, the keys vectors written so far by a hash of their
   * keys' positions (equal keys have equal positions): each entry a run of
   * records `[length, vector, position...]`, compared in full, so a map's
   * keys vector is found without building and hashing a signature string.
   */
  private keyVectorsByAt = new Map<number, number[]>();
  private error: FlexError | null = null;
  private finished = false;
  private gen = generations++;
  /** Type, width code and data position of the vector {@link writeVector} wrote last. */
  private vecType = 0;
  private vecWidth = 0;
  private vecData = 0;

  constructor(options: BuilderOptions = {}) {
    this.share = (options.share ?? Share.Keys) & 7;
    this.dedup = options.dedupKeyVectors ?? false;
    this.initial = Math.max(16, options.initialCapacity ?? 256);
    this.maxRetained = options.maxRetainedCapacity ?? RETAINED;
    this.buf = new Bytes(this.initial);
    this.dv = new DataView(this.buf.buffer);
    this.sType = new Bytes(64);
    this.sWidth = new Bytes(64);
    this.sData = new Floats(64);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.len;
  }

  /** Current buffer capacity. */
  get capacity(): number {
    return this.buf.length;
  }

  /**
   * Bytes of the value stack (10 a slot), which {@link clear} bounds by
   * `maxRetainedCapacity` as it bounds the buffer (for observing retention).
   */
  get scratchCapacity(): number {
    return this.sType.length * STACK_SLOT_BYTES;
  }

  /** Keys the key pool holds, this buffer's and earlier ones' (for observing retention). @internal */
  get pooledKeys(): number {
    return this.keyPool.size;
  }

  /** Resets all state for a new buffer, keeping capacity up to `maxRetainedCapacity`. */
  clear(): void {
    // A builder cleared with nothing written (`encode` clears before and
    // after) keeps the last buffer's length.
    if (this.len > 0) this.lastLen = this.len;
    this.len = 0;
    const cap = this.buf.length;
    if (cap > this.maxRetained || (cap > RETAINED && this.lastLen < cap / 8)) {
      this.buf = new Bytes(Math.max(this.initial, Math.min(this.maxRetained, this.initial)));
      this.dv = new DataView(this.buf.buffer);
    }
    this.sp = 0;
    // A value stack grown by one giant vector is dropped like the buffer.
    if (this.sType.length * STACK_SLOT_BYTES > this.maxRetained) {
      this.sType = new Bytes(64);
      this.sWidth = new Bytes(64);
      this.sData = new Floats(64);
    }
    if (this.sBig.length > 0) this.sBig.length = 0;
    this.opens.length = 0;
    this.forceMin = 0;
    this.poolEpoch = (this.poolEpoch + 1) % POOL_EPOCHS;
    if (this.keyPool.size > KEY_POOL_MAX || this.keyPoolUnits > KEY_POOL_UNITS || this.poolEpoch === 0) {
      this.keyPool.clear();
      this.keyPoolUnits = 0;
      this.poolId = ++pools;
      this.keyBytesLen = 0;
      if (this.keyBytes.length > this.maxRetained) this.keyBytes = new Bytes(0);
    }
    if (this.stringPool.size) this.stringPool.clear();
    if (this.keyVectors.size) this.keyVectors.clear();
    if (this.keyVectorsByAt.size) this.keyVectorsByAt.clear();
    this.error = null;
    this.finished = false;
    this.gen = generations++;
  }

  /** Forces elements of later vectors and maps to at least `bytes` (1, 2, 4 or 8) wide. */
  forceMinWidth(bytes: 1 | 2 | 4 | 8): void {
    this.forceMin = bytes === 8 ? 3 : bytes === 4 ? 2 : bytes === 2 ? 1 : 0;
  }

  // ---- stack ---------------------------------------------------------------

  private push(t: number, w: number, d: number): void {
    if (this.finished) this.fail(builderError("the buffer is already finished: clear() before the next one"));
    const i = this.sp;
    if (i === this.sType.length) this.growStack();
    if (i < this.sBig.length) this.sBig[i] = undefined;
    this.sType[i] = t;
    this.sWidth[i] = w;
    this.sData[i] = d;
    this.sp = i + 1;
  }

  private growStack(): void {
    const n = this.sType.length * 2;
    const t = new Bytes(n);
    t.set(this.sType);
    const w = new Bytes(n);
    w.set(this.sWidth);
    const d = new Floats(n);
    d.set(this.sData);
    this.sType = t;
    this.sWidth = w;
    this.sData = d;
  }

  private reserve(extra: number): void {
    const need = this.len + extra;
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    const last = this.lastLen < REGROW_MAX ? this.lastLen : REGROW_MAX;
    const want = need > last ? need : last;
    while (cap < want) cap *= 2;
    const nb = new Bytes(cap);
    nb.set(new Uint8Array(this.buf.buffer, 0, this.len));
    this.buf = nb;
    this.dv = new DataView(nb.buffer);
  }

  private align(w: number): void {
    const pad = padding(this.len, 1 << w);
    if (pad) {
      this.reserve(pad);
      // At most 7 bytes: stores, not a `fill` call (about 2% of a record's encode).
      const buf = this.buf;
      for (let i = this.len; i < this.len + pad; i++) buf[i] = 0;
      this.len += pad;
    }
  }

  // ---- scalars -------------------------------------------------------------

  /** Pushes null. */
  null(): void {
    this.push(T.Null, 0, 0);
  }

  /** Pushes a boolean. */
  bool(b: boolean): void {
    this.push(T.Bool, 0, b ? 1 : 0);
  }

  /** Pushes a signed integer (a safe-integer number or a bigint in the i64 range) at its minimal width. */
  int(i: number | bigint): void {
    if (typeof i === "number") {
      if (Number.isSafeInteger(i)) {
        this.push(T.Int, widthOfInt(i), i);
        return;
      }
      if (!Number.isInteger(i)) {
        this.fail(builderError(`int expects an integer, got ${i}`));
        return;
      }
      i = BigInt(i);
    }
    if (i < I64_MIN || i > I64_MAX) {
      this.fail(fail("OutOfRange", `${i} does not fit in i64`));
      return;
    }
    const n = Number(i);
    if (Number.isSafeInteger(n)) this.push(T.Int, widthOfInt(n), n);
    else this.pushBig(T.Int, i);
  }

  /** Pushes an unsigned integer (a non-negative safe integer or a bigint in the u64 range) at its minimal width. */
  uint(u: number | bigint): void {
    if (typeof u === "number") {
      if (Number.isSafeInteger(u) && u >= 0) {
        this.push(T.UInt, widthOfUInt(u), u);
        return;
      }
      if (!Number.isInteger(u)) {
        this.fail(builderError(`uint expects an integer, got ${u}`));
        return;
      }
      u = BigInt(u);
    }
    if (u < 0n || u > U64_MAX) {
      this.fail(fail("OutOfRange", `${u} does not fit in u64`));
      return;
    }
    const n = Number(u);
    if (Number.isSafeInteger(n)) this.push(T.UInt, widthOfUInt(n), n);
    else this.pushBig(T.UInt, u);
  }

  private pushBig(t: number, v: bigint): void {
    this.push(t, 3, 0);
    this.sBig[this.sp - 1] = v;
  }

  /** Pushes a 32-bit float (rounded to f32; stored with at least 4 bytes). */
  float(f: number): void {
    this.push(T.Float, 2, Math.fround(f));
  }

  /** Pushes a 64-bit float, stored as f32 when that is exact (NaN always takes 8 bytes). */
  double(f: number): void {
    this.push(T.Float, widthOfDouble(f), f);
  }

  // ---- keys, strings, blobs ------------------------------------------------

  /** Pushes a map key (or an element of a typed key vector). A key may not contain NUL. */
  key(k: string): void {
    if (this.share & Share.Keys) this.pooledKey(k);
    else this.push(T.Key, 0, this.writeKey(k));
  }

  /**
   * Pushes key `k` through the pool (written unless this buffer has it
   * already) and returns its cell.
   */
  private pooledKey(k: string): KeyCell {
    const epoch = this.poolEpoch;
    let cell = this.keyPool.get(k);
    if (cell === undefined) {
      cell = this.newCell(k, epoch);
      this.keyPool.set(k, cell);
      this.keyPoolUnits += k.length;
    } else if (cell.epoch !== epoch) {
      this.rewriteKey(cell, k);
    }
    this.push(T.Key, 0, cell.loc);
    return cell;
  }

  /** Writes key `k`, new to the pool, and keeps its bytes in a new cell. */
  private newCell(k: string, epoch: number): KeyCell {
    const loc = this.writeKey(k);
    const size = this.len - loc;
    // A key with a NUL is not kept: writing it fails every time.
    if (this.error !== null) return new KeyCell(loc, epoch, -1, size);
    let kb = this.keyBytes;
    const at = this.keyBytesLen;
    if (at + size > kb.length) {
      const grown = new Bytes(Math.max(256, 2 * kb.length, at + size));
      grown.set(kb.subarray(0, at));
      this.keyBytes = kb = grown;
    }
    const buf = this.buf;
    for (let j = 0; j < size; j++) kb[at + j] = buf[loc + j];
    this.keyBytesLen = at + size;
    return new KeyCell(loc, epoch, at, size);
  }

  /** Writes the key of `cell` (whose text is `k`) into this buffer, from its kept bytes. */
  private rewriteKey(cell: KeyCell, k: string): void {
    cell.epoch = this.poolEpoch;
    const from = cell.bytes;
    if (from < 0) {
      cell.loc = this.writeKey(k);
      return;
    }
    const size = cell.size;
    this.reserve(size);
    const loc = this.len;
    const buf = this.buf;
    const kb = this.keyBytes;
    for (let j = 0; j < size; j++) buf[loc + j] = kb[from + j];
    this.len = loc + size;
    cell.loc = loc;
  }

  /**
   * Pushes key `k`, the `i`th of `c`'s shape, exactly as {@link key} does,
   * through the pool's cell that `c` keeps for it: looked up by text only
   * the first time the shape meets this pool. A cache last used with
   * another pool (another builder, or this one's emptied) starts over.
   * @internal
   */
  keyCached(c: KeyCache, i: number, k: string): void {
    if (!(this.share & Share.Keys)) {
      this.push(T.Key, 0, this.writeKey(k));
      return;
    }
    if (c.pool !== this.poolId) {
      c.pool = this.poolId;
      c.cells.fill(undefined);
    }
    const cell = c.cells[i];
    if (cell === undefined) {
      c.cells[i] = this.pooledKey(k);
      return;
    }
    if (cell.epoch !== this.poolEpoch) this.rewriteKey(cell, k);
    this.push(T.Key, 0, cell.loc);
  }

  private writeKey(k: string): number {
    const n = k.length;
    this.reserve(n * 3 + 1);
    const loc = this.len;
    const buf = this.buf;
    // Keys are mostly short ASCII: copied by a loop of their own (which also
    // finds a NUL), anything else by writeKeyText.
    let i = 0;
    for (; i < n; i++) {
      const c = k.charCodeAt(i);
      if (c >= 0x80 || c === 0) break;
      buf[loc + i] = c;
    }
    if (i < n) return this.writeKeyText(k, loc);
    buf[loc + n] = 0;
    this.len = loc + n + 1;
    return loc;
  }

  /** {@link writeKey} for a key with a character outside ASCII, or a NUL (an error). */
  private writeKeyText(k: string, loc: number): number {
    if (k.indexOf("\0") >= 0) this.fail(builderError("a key may not contain NUL"));
    const n = writeUtf8(this.buf, loc, k);
    this.buf[loc + n] = 0;
    this.len = loc + n + 1;
    return loc;
  }

  /** Pushes a string, encoded to UTF-8 in one pass straight into the buffer. */
  string(s: string): void {
    if (this.share & Share.Strings) this.sharedString(s);
    else this.writeString(s);
  }

  /** {@link string} with string sharing on: a string met before is pushed from the pool. */
  private sharedString(s: string): void {
    const found = this.stringPool.get(s);
    if (found !== undefined) {
      this.push(T.String, found & 3, Math.floor(found / 4));
      return;
    }
    this.writeString(s);
    this.stringPool.set(s, this.sData[this.sp - 1] * 4 + this.sWidth[this.sp - 1]);
  }

  /**
   * Pushes every string of `list`, as calling {@link string} on each in
   * turn would (the same bytes). Without string sharing, a list of
   * {@link RUN_MIN} or more ASCII strings shorter than 256 units is written
   * with one native write of the strings joined (see {@link stringRun}).
   */
  strings(list: readonly string[]): void {
    const n = list.length;
    if (n >= RUN_MIN && !(this.share & Share.Strings) && !this.finished && this.stringRun(list)) return;
    for (let i = 0; i < n; i++) this.string(list[i]);
  }

  /**
   * Pushes a vector of the strings of `list`: the bytes of
   * {@link startVector}, {@link strings} and {@link endVector}, with the
   * vector written by a loop of its own. Its elements are offsets back to
   * strings written just before, in order, so the first string is the
   * farthest target: the width follows from it and the last slot (each
   * element checked only when those two disagree), and no element needs
   * the general writer's per-element type dispatch. With strings shared or
   * on an empty list it takes the general path.
   */
  stringVector(list: readonly string[]): void {
    const n = list.length;
    if (n === 0 || this.share & Share.Strings || this.finished) {
      this.startVector();
      this.strings(list);
      this.endVector();
      return;
    }
    this.check();
    const start = this.sp;
    this.strings(list);
    const sData = this.sData;
    const sWidth = this.sWidth;
    const width = this.offsetsWidth(Math.max(this.forceMin, widthOfUInt(n)), start, start + n, 1, 1, sData[start], start);
    const bytes = 1 << width;
    this.align(width);
    this.reserve((n + 1) * (bytes + 1));
    this.writeUInt(n, bytes);
    const loc = this.len;
    let p = loc;
    for (let i = start; i < start + n; i++) {
      this.putUInt(p, p - sData[i], bytes);
      p += bytes;
    }
    const buf = this.buf;
    for (let i = start; i < start + n; i++) buf[p++] = (T.String << 2) | sWidth[i];
    this.len = p;
    this.sp = start;
    if (this.sBig.length > start) this.sBig.length = start;
    this.push(T.Vector, width, loc);
  }

  /**
   * Pushes an untyped vector of the numbers in `values`: the bytes of
   * {@link startVector}, a push of each ({@link int} for a safe integer
   * other than -0, {@link double} otherwise, as {@link encode} pushes a
   * number) and {@link endVector}, in one pass with no value-stack entry
   * per number: the width is the widest element's, and every type byte is
   * the element's type at that width.
   */
  numberVector(values: readonly number[]): void {
    const n = values.length;
    if (n === 0 || this.finished) {
      this.startVector();
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (isIntElement(v)) this.int(v);
        else this.double(v);
      }
      this.endVector();
      return;
    }
    this.check();
    let width = Math.max(this.forceMin, widthOfUInt(n));
    for (let i = 0; i < n && width < 3; i++) {
      const v = values[i];
      const w = isIntElement(v) ? widthOfInt(v) : widthOfDouble(v);
      if (w > width) width = w;
    }
    const bytes = 1 << width;
    this.align(width);
    this.reserve((n + 1) * (bytes + 1));
    this.writeUInt(n, bytes);
    const loc = this.len;
    const dv = this.dv;
    const buf = this.buf;
    let p = loc;
    let t = loc + n * bytes;
    const intType = (T.Int << 2) | width;
    const floatType = (T.Float << 2) | width;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (isIntElement(v)) {
        this.putUInt(p, v, bytes);
        buf[t++] = intType;
      } else {
        if (bytes === 8) dv.setFloat64(p, v, true);
        else dv.setFloat32(p, v, true);
        buf[t++] = floatType;
      }
      p += bytes;
    }
    this.len = t;
    this.push(T.Vector, width, loc);
  }

  /**
   * {@link strings}' one write: the texts joined by a NUL and a placeholder
   * for the next string's size byte are written as one string; the size
   * bytes, the first and the last NUL are then set in place. ASCII makes as
   * many bytes as units, and anything else more: a count that differs means
   * some string is not ASCII, and nothing is kept (false).
   */
  private stringRun(list: readonly string[]): boolean {
    const n = list.length;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const s = list[i];
      if (typeof s !== "string" || s.length > 255) return false;
      total += s.length + 2;
    }
    // Room for any text of `total` units (at most 3 bytes each).
    this.reserve(3 * total + 8);
    const at = this.len;
    const buf = this.buf;
    // Joined and written in pieces of at most RUN_PIECE units (one string
    // longer than any piece is a piece of its own); each piece's last NUL is
    // set here, the NULs within it come from the separator.
    let text = at + 1;
    for (let i = 0; i < n;) {
      let units = list[i].length + 2;
      let j = i + 1;
      while (j < n && units + list[j].length + 2 <= RUN_PIECE) units += list[j++].length + 2;
      const piece = i === 0 && j === n ? list.join(SEPARATOR) : list.slice(i, j).join(SEPARATOR);
      if (writeUtf8(buf, text, piece) !== units - 2) return false;
      buf[text + units - 2] = 0;
      text += units;
      i = j;
    }
    let p = at;
    for (let i = 0; i < n; i++) {
      const len = list[i].length;
      buf[p] = len;
      this.push(T.String, 0, p + 1);
      p += len + 2;
    }
    this.len = at + total;
    return true;
  }

  private writeString(s: string): void {
    this.writeStringRange(s, 0, s.length);
  }

  /**
   * Pushes the string `text.slice(from, to)` (the bytes {@link string} of
   * that slice pushes), encoded from `text` itself: no substring is made
   * unless string sharing needs it as the pool's key. For `fromJSON`, see
   * `writeUtf8Range` for why.
   * @internal
   */
  stringRange(text: string, from: number, to: number): void {
    if (this.share & Share.Strings) this.sharedString(text.slice(from, to));
    else this.writeStringRange(text, from, to);
  }

  /** {@link writeString} of `s.slice(from, to)`, read from `s`. */
  private writeStringRange(s: string, from: number, to: number): void {
    const n = to - from;
    // Bytes are between n and 3n; guess the width for n (right for ASCII) and
    // move the bytes in the rare case the real length needs a wider prefix.
    let w = widthOfUInt(n);
    this.reserve(n * 3 + 17);
    const start = this.len;
    const buf = this.buf;
    let data = start + padding(start, 1 << w) + (1 << w);
    const written = writeUtf8Range(buf, data, s, from, to);
    const real = widthOfUInt(written);
    if (real !== w) {
      data = this.moveString(start, data, written, real);
      w = real;
    }
    for (let i = start; i < data - (1 << w); i++) buf[i] = 0;
    this.putUInt(data - (1 << w), written, 1 << w);
    buf[data + written] = 0;
    this.len = data + written + 1;
    this.push(T.String, w, data);
  }

  /**
   * For {@link writeString}, when the UTF-8 of a string needs a wider size
   * prefix than its length in units did: moves its `written` bytes from
   * `data` to where a `real`-width prefix after `start` puts them, and
   * returns that position. Out of line, as a rare path (the copy's call in
   * `writeString` itself measured slower in Chromium).
   */
  private moveString(start: number, data: number, written: number, real: number): number {
    const moved = start + padding(start, 1 << real) + (1 << real);
    this.buf.copyWithin(moved, data, data + written);
    return moved;
  }

  /** Pushes a blob of raw bytes. */
  blob(bytes: Uint8Array): void {
    const n = bytes.length;
    const w = widthOfUInt(n);
    this.align(w);
    this.reserve(n + 8);
    this.writeUInt(n, 1 << w);
    const loc = this.len;
    this.buf.set(bytes, loc);
    this.len = loc + n;
    this.push(T.Blob, w, loc);
  }

  // ---- indirect scalars ----------------------------------------------------

  /** Pushes a signed integer stored behind an offset. */
  indirectInt(i: number | bigint): void {
    this.int(i);
    this.toIndirect(T.IndirectInt);
  }

  /** Pushes an unsigned integer stored behind an offset. */
  indirectUInt(u: number | bigint): void {
    this.uint(u);
    this.toIndirect(T.IndirectUInt);
  }

  /** Pushes a 32-bit float stored behind an offset. */
  indirectFloat(f: number): void {
    this.float(f);
    this.toIndirect(T.IndirectFloat);
  }

  /**
   * Pushes a 64-bit float stored behind an offset, as f32 when exact.
   * Deviation from C++ (upstream issue 8340), as in the Rust core: C++ writes the
   * low half of the double there, which reads back as 0; we write the f32.
   */
  indirectDouble(f: number): void {
    this.double(f);
    this.toIndirect(T.IndirectFloat);
  }

  /** Replaces the scalar on top of the stack by its indirect form. */
  private toIndirect(t: number): void {
    if (this.error) return;
    const i = this.sp - 1;
    const w = this.sWidth[i];
    const d = this.sData[i];
    const big = this.sBig[i];
    const st = this.sType[i];
    this.sp = i;
    this.align(w);
    this.reserve(8);
    const loc = this.len;
    this.writeScalar(st, d, big, 1 << w);
    this.push(t, w, loc);
  }

  // ---- reuse ---------------------------------------------------------------

  /** The most recently pushed value, to push again later with {@link reuseValue}. */
  lastValue(): ValueHandle | undefined {
    const i = this.sp - 1;
    if (i < 0) return undefined;
    return { t: this.sType[i], w: this.sWidth[i], d: this.sData[i], big: this.sBig[i], gen: this.gen };
  }

  /** Pushes a value captured with {@link lastValue} again (offsets then point at the same bytes). */
  reuseValue(h: ValueHandle): void {
    if (h.gen !== this.gen) {
      this.fail(builderError("value handle from another buffer"));
      return;
    }
    this.push(h.t, h.w, h.d);
    if (h.big !== undefined) this.sBig[this.sp - 1] = h.big;
  }

  // ---- containers ----------------------------------------------------------

  /** Starts an untyped, typed or fixed vector. */
  startVector(): void {
    this.opens.push(this.sp * 2);
  }

  /** Starts a map; push key/value pairs, then call {@link endMap}. */
  startMap(): void {
    this.opens.push(this.sp * 2 + 1);
  }

  /** Pushes an empty untyped vector: the bytes of {@link startVector} then {@link endVector}, in one call. */
  emptyVector(): void {
    this.check();
    this.writeVector(this.sp, 0, 1, false, false, -1, 0);
    this.push(this.vecType, this.vecWidth, this.vecData);
  }

  /** Pushes an empty map: the bytes of {@link startMap} then {@link endMap}, in one call. */
  emptyMap(): void {
    this.check();
    // Its empty keys vector (never shared), then the map on it.
    this.writeVector(this.sp, 0, 2, true, false, -1, 0);
    this.writeVector(this.sp, 0, 2, false, false, this.vecData, this.vecWidth);
    this.push(this.vecType, this.vecWidth, this.vecData);
  }

  /** Ends an untyped vector. */
  endVector(): void {
    this.endVectorAs(false, false);
  }

  /** Ends a typed vector (ints, uints, floats, bools or keys; an empty one is a key vector, as in C++). */
  endTypedVector(): void {
    this.endVectorAs(true, false);
  }

  /** Ends a fixed typed vector of 2, 3 or 4 ints, uints or floats. */
  endFixedVector(): void {
    this.endVectorAs(true, true);
  }

  /** Ends a vector with the C++ `EndVector(start, typed, fixed)` flags. */
  endVectorAs(typed: boolean, fixed: boolean): void {
    this.check();
    const open = this.opens.pop();
    if (open === undefined || (open & 1) === 1) {
      if (open !== undefined) this.opens.push(open);
      throw builderError("end of a vector that was not started");
    }
    const start = open >> 1;
    const len = this.sp - start;
    if (typed) this.checkTyped(start, len, fixed);
    this.createVector(start, len, 1, typed, fixed, -1, 0);
  }

  private checkTyped(start: number, len: number, fixed: boolean): void {
    if (fixed && (len < 2 || len > 4)) this.fail(builderError(`a fixed vector holds 2 to 4 values, not ${len}`), true);
    if (len === 0) return;
    const t = this.sType[start];
    const ok = fixed ? t === T.Int || t === T.UInt || t === T.Float
      : t === T.Int || t === T.UInt || t === T.Float || t === T.Bool || t === T.Key;
    if (!ok) this.fail(builderError(`type ${t} cannot be an element of a typed vector`), true);
    for (let i = start + 1; i < start + len; i++) {
      if (this.sType[i] !== t) this.fail(builderError(`type ${this.sType[i]} cannot be an element of a typed vector`), true);
    }
  }

  /** Ends a map: sorts entries by key (unsigned bytes) and writes keys and values. Equal keys are an error. */
  endMap(): void {
    this.endMapOf(false);
  }

  /**
   * Ends a map whose entries were pushed with their keys strictly ascending
   * in byte order (so no order check or sort is needed): for `encode`'s
   * compiled object writers, which push an object's own keys (distinct, well
   * formed) in the order they sorted them. The same bytes as {@link endMap}.
   * @internal
   */
  endMapAscending(): void {
    this.endMapOf(true);
  }

  private endMapOf(ascending: boolean): void {
    this.check();
    const open = this.opens.pop();
    if (open === undefined || (open & 1) === 0) {
      if (open !== undefined) this.opens.push(open);
      throw builderError("end of a map that was not started");
    }
    const start = open >> 1;
    if (!ascending || (this.sp - start) % 2 !== 0) this.sortMapEntries(start);
    const len = (this.sp - start) >> 1;
    if (len <= SMALL_MAP && !this.dedup && this.sBig.length <= start && smallMaps) {
      this.endSmallMap(start, len);
      return;
    }
    let kd = -1;
    let kw = 0;
    let sig: string | undefined;
    let hash = -1;
    if (this.dedup && len > 0) {
      let found: number | undefined;
      if (this.share & Share.Keys) {
        hash = this.keyPositionsHash(start, len);
        found = this.keyVectorAt(hash, start, len);
      } else {
        sig = this.keySignature(start, len);
        found = this.keyVectors.get(sig);
      }
      if (found !== undefined) {
        kd = Math.floor(found / 4);
        kw = found & 3;
      }
    }
    if (kd < 0) {
      this.writeVector(start, len, 2, true, false, -1, 0);
      kd = this.vecData;
      kw = this.vecWidth;
      if (hash >= 0) {
        let run = this.keyVectorsByAt.get(hash);
        if (run === undefined) this.keyVectorsByAt.set(hash, (run = []));
        run.push(len, kd * 4 + kw);
        for (let i = 0; i < len; i++) run.push(this.sData[start + 2 * i]);
      } else if (sig !== undefined) this.keyVectors.set(sig, kd * 4 + kw);
    }
    this.createVector(start + 1, len, 2, false, false, kd, kw, start);
  }

  /**
   * Writes the map of the `len` (at most {@link SMALL_MAP}) sorted entries
   * at `stack[start..]`, none a bigint, and puts it in their place: the
   * bytes of the keys vector and the values vector that
   * {@link writeVector} writes, by loops of their own. Records of two or
   * three fields are most maps of many documents, and for them the general
   * writer's set-up (two calls, each with its width bounds, and its
   * branches for typed, fixed and bigint elements) cost more than the
   * elements (35% of `encode`'s time on a document of 300 such objects).
   * Each width is the narrowest, from the floor, at which every offset fits
   * (an offset that fits fits at every wider width), each offset taken as
   * the reference takes it: from the slot it would have if the vector held
   * every stack slot from its first (for a map's keys, element j at slot
   * 2j + 1 where it is written at j + 1). Those offsets are larger than
   * the real ones, so the narrowest real width can be too narrow.
   */
  private endSmallMap(start: number, len: number): void {
    const sData = this.sData;
    const end = start + 2 * len;
    // Room for the keys vector at 8 bytes with its padding.
    this.reserve(8 + (len + 1) * 8);
    // The keys vector: a size (len fits a byte), then offsets back to the keys.
    const at = this.len;
    let kw = this.forceMin;
    for (; kw < 3; kw++) {
      const bytes = 1 << kw;
      let p = at + padding(at, bytes) + bytes;
      let i = start;
      // Element j taken at slot 2j + 1, as the reference takes it (above).
      for (; i < end; i += 2, p += 2 * bytes) if (p - sData[i] > WIDTH_LIMITS[kw]) break;
      if (i >= end) break;
    }
    const bytes = 1 << kw;
    this.align(kw);
    let p = this.len;
    this.putUInt(p, len, bytes);
    p += bytes;
    const keys = p;
    for (let i = start; i < end; i += 2, p += bytes) this.putUInt(p, p - sData[i], bytes);
    this.len = p;
    this.writeSmallValues(start + 1, len, 2, keys, kw, start);
  }

  /**
   * Writes the values vector of a map of `len` (at most
   * {@link SMALL_MAP_VALUES}) values at `stack[first]`,
   * `stack[first + step]`, ..., none a bigint, on the keys vector at `keys`
   * of width `kw` (the bytes {@link writeVector} writes), and replaces the
   * stack from `dropFrom` on by the map, as {@link createVector} does.
   */
  private writeSmallValues(first: number, len: number, step: number, keys: number, kw: number, dropFrom: number): void {
    const sType = this.sType;
    const sWidth = this.sWidth;
    const sData = this.sData;
    const end = first + len * step;
    this.reserve(8 + (len + 3) * 9);
    // The floor is the widest scalar; then the narrowest width from there
    // at which the keys vector's offset and every element's offset fit.
    // The lowest target bounds every offset from above (the last slot's
    // distance to it), so the element loop runs only when that bound does
    // not fit.
    let vw = this.forceMin;
    let lowest = Infinity;
    for (let i = first; i < end; i += step) {
      const t = sType[i];
      if (t <= T.Float || t === T.Bool) {
        if (sWidth[i] > vw) vw = sWidth[i];
      } else if (sData[i] < lowest) {
        lowest = sData[i];
      }
    }
    const at = this.len;
    for (; vw < 3; vw++) {
      const bytes = 1 << vw;
      const base = at + padding(at, bytes);
      if (base - keys > WIDTH_LIMITS[vw]) continue;
      // Element j at index step * j + 3, as the reference counts it (see
      // endSmallMap).
      let q = base + 3 * bytes;
      if (q + (len - 1) * step * bytes - lowest <= WIDTH_LIMITS[vw]) break;
      let i = first;
      for (; i < end; i += step, q += step * bytes) {
        const t = sType[i];
        if (t > T.Float && t !== T.Bool && q - sData[i] > WIDTH_LIMITS[vw]) break;
      }
      if (i >= end) break;
    }
    const bytes = 1 << vw;
    this.align(vw);
    let p = this.len;
    this.putUInt(p, p - keys, bytes);
    this.putUInt(p + bytes, 1 << kw, bytes);
    this.putUInt(p + 2 * bytes, len, bytes);
    p += 3 * bytes;
    const loc = p;
    const buf = this.buf;
    // Each value and its type byte in one loop (the type bytes follow the
    // values). A scalar's stored width is the vector's: `vw` is at least
    // every scalar's own.
    let tb = loc + len * bytes;
    const scalar = vw;
    if (bytes === 1) {
      // No float is narrower than 4 bytes, so none is here.
      for (let i = first; i < end; i += step, p++) {
        const t = sType[i];
        if (t <= T.Float || t === T.Bool) {
          buf[p] = sData[i];
          buf[tb++] = (t << 2) | scalar;
        } else {
          buf[p] = p - sData[i];
          buf[tb++] = (t << 2) | sWidth[i];
        }
      }
    } else {
      const dv = this.dv;
      for (let i = first; i < end; i += step, p += bytes) {
        const t = sType[i];
        if (t === T.Float) {
          if (bytes === 8) dv.setFloat64(p, sData[i], true);
          else dv.setFloat32(p, sData[i], true);
          buf[tb++] = (t << 2) | scalar;
        } else if (t <= T.UInt || t === T.Bool) {
          this.putUInt(p, sData[i], bytes);
          buf[tb++] = (t << 2) | scalar;
        } else {
          this.putUInt(p, p - sData[i], bytes);
          buf[tb++] = (t << 2) | sWidth[i];
        }
      }
    }
    this.len = tb;
    this.sp = dropFrom;
    this.push(T.Map, vw, loc);
  }

  /** Writes a typed vector of `keys` (strictly ascending in byte order) for {@link endMapWithKeys}. */
  keyVector(keys: readonly string[]): KeyVector {
    this.check();
    for (let i = 1; i < keys.length; i++) {
      const c = compareUtf8(keys[i - 1], keys[i]);
      if (c === 0) this.fail(builderError(`duplicate key ${JSON.stringify(keys[i])}`), true);
      if (c > 0) this.fail(builderError("keys of a key vector must be sorted"), true);
    }
    const start = this.sp;
    for (const k of keys) this.key(k);
    this.check();
    this.writeVector(start, keys.length, 1, true, false, -1, 0);
    this.sp = start;
    return { length: keys.length, d: this.vecData, w: this.vecWidth, gen: this.gen };
  }

  /**
   * Writes the keys of `layout` one after the other, each with its NUL, in one
   * copy of its precomputed block, then their keys vector, for
   * {@link endMapWithKeys}. The key pool is neither read nor filled (unlike
   * {@link keyVector}), so the bytes written depend only on `layout` and the
   * current end of the buffer: this is how generated typed encoders of every
   * language lay out a type's keys (the Rust core's `Builder::key_vector_for`).
   */
  keyVectorFor(layout: KeyLayout): KeyVector {
    this.check();
    if (this.finished) this.fail(builderError("the buffer is already finished: clear() before the next one"), true);
    const block = layout.block;
    const starts = layout.starts;
    const n = starts.length;
    this.reserve(block.length);
    const at = this.len;
    this.buf.set(block, at);
    this.len = at + block.length;
    // The keys vector follows the block, so every element's offset back to
    // its key is known by arithmetic: the width and the elements are written
    // without the value stack (the bytes writeVector writes). They depend
    // only on where the block ends modulo 8 (its padding), so they are kept
    // per residue and copied the next time.
    const end = this.len;
    const residue = end & 7;
    const kept = this.forceMin === 0 ? layout.vectors[residue] : undefined;
    if (kept !== undefined) {
      this.reserve(kept.bytes.length);
      this.buf.set(kept.bytes, end);
      this.len = end + kept.bytes.length;
      return { length: n, d: end + kept.data, w: kept.width, gen: this.gen };
    }
    let width = Math.max(this.forceMin, widthOfUInt(n));
    while (width < 3) {
      const w = 1 << width;
      const first = end + padding(end, w) + w;
      let widest = 0;
      for (let i = 0; i < n; i++) widest = Math.max(widest, first + i * w - (at + starts[i]));
      if (widthOfUInt(widest) <= width) break;
      width++;
    }
    const bytes = 1 << width;
    this.align(width);
    this.reserve((n + 1) * bytes);
    this.writeUInt(n, bytes);
    const d = this.len;
    for (let i = 0; i < n; i++) this.writeUInt(this.len - (at + starts[i]), bytes);
    if (this.forceMin === 0) {
      layout.vectors[residue] = { bytes: this.buf.slice(end, this.len), width, data: d - end };
    }
    return { length: n, d, w: width, gen: this.gen };
  }

  /** Ends a map whose values were pushed, without keys, in the order of `keys`. */
  endMapWithKeys(keys: KeyVector): void {
    this.check();
    if (keys.gen !== this.gen) this.fail(builderError("key vector from another buffer"), true);
    const open = this.opens.pop();
    if (open === undefined || (open & 1) === 0) {
      if (open !== undefined) this.opens.push(open);
      throw builderError("end of a map that was not started");
    }
    const start = open >> 1;
    const len = this.sp - start;
    if (len !== keys.length) this.fail(builderError(`map has ${len} values for ${keys.length} keys`), true);
    if (len <= SMALL_MAP_VALUES && this.sBig.length <= start && smallMaps) {
      this.writeSmallValues(start, len, 1, keys.d, keys.w, start);
      return;
    }
    this.createVector(start, len, 1, false, false, keys.d, keys.w);
  }

  /** A hash (a small non-negative integer) of the positions of the `len` keys at `start`. */
  private keyPositionsHash(start: number, len: number): number {
    const sD = this.sData;
    let h = len;
    for (let i = 0; i < len; i++) h = Math.imul(h ^ sD[start + 2 * i], 0x9e3779b1) ^ (h >>> 15);
    return h & keyHashBits;
  }

  /** The keys vector (`position * 4 + width`) recorded for exactly the keys at `start`, if any. */
  private keyVectorAt(hash: number, start: number, len: number): number | undefined {
    const run = this.keyVectorsByAt.get(hash);
    if (run === undefined) return undefined;
    const sD = this.sData;
    for (let r = 0; r < run.length; r += 2 + run[r]) {
      if (run[r] !== len) continue;
      let i = 0;
      while (i < len && run[r + 2 + i] === sD[start + 2 * i]) i++;
      if (i === len) return run[r + 1];
    }
    return undefined;
  }

  /**
   * The key set at `start` as a string, for finding its keys vector when keys
   * are not shared (so equal keys may sit at different positions): each
   * key's bytes and a NUL. With shared keys, {@link keyPositionsHash} serves.
   */
  private keySignature(start: number, len: number): string {
    let sig = "";
    for (let i = 0; i < len; i++) {
      const at = this.sData[start + 2 * i];
      let e = at;
      while (this.buf[e] !== 0) e++;
      sig += String.fromCharCode(...this.buf.subarray(at, e)) + "\0";
    }
    return sig + "\u0001";
  }

  private compareKeys(a: number, b: number): number {
    const buf = this.buf;
    for (;;) {
      const x = buf[a++];
      const y = buf[b++];
      if (x !== y || x === 0) return x - y;
    }
  }

  private keyText(at: number): string {
    let e = at;
    while (this.buf[e] !== 0) e++;
    return new TextDecoder().decode(this.buf.subarray(at, e));
  }

  private sortMapEntries(start: number): void {
    const n = this.sp - start;
    if (n % 2 !== 0) this.fail(builderError(`map entry ${n >> 1} has no value`), true);
    for (let i = start; i < this.sp; i += 2) {
      if (this.sType[i] !== T.Key) this.fail(builderError(`map entry ${(i - start) >> 1} is not a key`), true);
    }
    let sorted = true;
    for (let i = start + 2; i < this.sp; i += 2) {
      const c = this.compareKeys(this.sData[i - 2], this.sData[i]);
      if (c === 0) this.fail(builderError(`duplicate key ${JSON.stringify(this.keyText(this.sData[i]))}`), true);
      if (c > 0) {
        sorted = false;
        break;
      }
    }
    if (sorted) return;
    const m = n >> 1;
    const order: number[] = new Array(m);
    for (let i = 0; i < m; i++) order[i] = start + 2 * i;
    const sD = this.sData;
    order.sort((a, b) => this.compareKeys(sD[a], sD[b]));
    for (let i = 1; i < m; i++) {
      if (this.compareKeys(sD[order[i - 1]], sD[order[i]]) === 0) {
        this.fail(builderError(`duplicate key ${JSON.stringify(this.keyText(sD[order[i]]))}`), true);
      }
    }
    const kd = order.map((i) => sD[i]);
    const vt = order.map((i) => this.sType[i + 1]);
    const vw = order.map((i) => this.sWidth[i + 1]);
    const vd = order.map((i) => sD[i + 1]);
    for (let i = 0; i < m; i++) {
      const k = start + 2 * i;
      sD[k] = kd[i];
      this.sType[k + 1] = vt[i];
      this.sWidth[k + 1] = vw[i];
      sD[k + 1] = vd[i];
    }
    // Bigints move with their values, only when the map holds one: writing
    // `undefined` past the end of the empty `sBig` made it a holey array of
    // another elements kind, and every builder function that reads `sBig`
    // (`writeVector`) then met two kinds of array and was deoptimized and
    // made polymorphic: after one `fromJSON` of a document with unsorted
    // keys, the typed encode of chat_thread ran 15% slower for good.
    if (this.sBig.length > start) {
      const vb = order.map((i) => this.sBig[i + 1]);
      for (let i = 0; i < m; i++) this.sBig[start + 2 * i + 1] = vb[i];
    }
  }

  /** Width (log2) element `i` of the stack needs as element `index` of a vector written at `bufLen`. */
  private elemWidth(i: number, bufLen: number, index: number): number {
    const t = this.sType[i];
    if (t <= T.Float || t === T.Bool) return this.sWidth[i];
    return offsetWidth(this.sData[i], bufLen, index);
  }

  /** Writes a vector and replaces its stack elements (from `dropFrom`, default `start`) by it. */
  private createVector(start: number, len: number, step: number, typed: boolean, fixed: boolean,
    keysData: number, keysWidth: number, dropFrom = start): void {
    this.writeVector(start, len, step, typed, fixed, keysData, keysWidth);
    this.sp = dropFrom;
    // Setting an array's length is a runtime call: only when it shrinks.
    if (this.sBig.length > dropFrom) this.sBig.length = dropFrom;
    this.push(this.vecType, this.vecWidth, this.vecData);
  }

  /**
   * The width, from `width` up, of a vector written at the end of the buffer
   * whose elements are stack[start], stack[start+step], ... before `end`,
   * the first `prefix` slots in, and whose offsets point no lower than
   * `lowest`, the target of element `lowestAt`. At each width from `width`
   * up: when that element's own offset does not fit, no narrower width can
   * serve and the next is tried; when the last slot's distance to `lowest`
   * fits, every offset does and the width is found. Only when the two
   * bounds straddle the width does each offset's own width decide (scalars
   * skipped): the same width as that search from `width` would give.
   */
  private offsetsWidth(width: number, start: number, end: number, step: number, prefix: number,
    lowest: number, lowestAt: number): number {
    const bufLen = this.len;
    for (; width < 3; width++) {
      const bytes = 1 << width;
      const base = bufLen + padding(bufLen, bytes) - lowest;
      if (widthOfUInt(base + (lowestAt - start + prefix) * bytes) > width) continue;
      if (widthOfUInt(base + (end - step - start + prefix) * bytes) <= width) return width;
      break;
    }
    if (width >= 3) return 3;
    const sType = this.sType;
    const sData = this.sData;
    for (let i = start; i < end && width < 3; i += step) {
      const t = sType[i];
      if (t <= T.Float || t === T.Bool) continue;
      const w = offsetWidth(sData[i], bufLen, i - start + prefix);
      if (w > width) width = w;
    }
    return width;
  }

  /**
   * The reference's `CreateVector`: elements are stack[start], stack[start+step], ...
   * The vector written is left in {@link vecType}, {@link vecWidth} and
   * {@link vecData} (fields rather than a returned object: no allocation per vector).
   */
  private writeVector(start: number, len: number, step: number, typed: boolean, fixed: boolean,
    keysData: number, keysWidth: number): void {
    let width = Math.max(this.forceMin, widthOfUInt(len));
    let prefix = 1;
    const bufLen = this.len;
    if (keysData >= 0) {
      width = Math.max(width, offsetWidth(keysData, bufLen, 0));
      prefix += 2;
    }
    const end = start + len * step;
    const sType = this.sType;
    const sWidth = this.sWidth;
    // Scalars give their widths; offsets theirs through offsetsWidth, from
    // the lowest target (element i is written at bufLen + padding + index_i
    // * bytes, index_i = i - start + prefix, as the reference counts it).
    const sData = this.sData;
    let lowest = Infinity;
    let lowestAt = start;
    for (let i = start; i < end; i += step) {
      const t = sType[i];
      if (t <= T.Float || t === T.Bool) {
        const w = sWidth[i];
        if (w > width) width = w;
      } else if (sData[i] < lowest) {
        lowest = sData[i];
        lowestAt = i;
      }
    }
    if (lowest !== Infinity) width = this.offsetsWidth(width, start, end, step, prefix, lowest, lowestAt);
    const bytes = 1 << width;
    this.align(width);
    this.reserve((len + 3) * (bytes + 1));
    if (keysData >= 0) {
      this.writeUInt(this.len - keysData, bytes);
      this.writeUInt(1 << keysWidth, bytes);
    }
    if (!fixed) this.writeUInt(len, bytes);
    const loc = this.len;
    const dv = this.dv;
    const bigs = this.sBig;
    const bigEnd = bigs.length;
    // One loop writing each element's bytes in place: a scalar's value or an
    // offset back to what it refers to.
    let p = loc;
    for (let i = start; i < end; i += step) {
      const t = sType[i];
      let x: number;
      if (t === T.Float) {
        if (bytes === 8) dv.setFloat64(p, sData[i], true);
        else dv.setFloat32(p, sData[i], true);
        p += bytes;
        continue;
      } else if (t <= T.UInt || t === T.Bool) {
        const big = i < bigEnd ? bigs[i] : undefined;
        if (big !== undefined && t !== T.Null) {
          dv.setBigUint64(p, BigInt.asUintN(64, big), true);
          p += 8;
          continue;
        }
        x = sData[i];
      } else {
        x = p - sData[i];
      }
      this.putUInt(p, x, bytes);
      p += bytes;
    }
    this.len = p;
    let t: number;
    if (!typed) {
      const buf = this.buf;
      let p = this.len;
      for (let i = start; i < end; i += step) {
        const et = sType[i];
        const ew = et <= T.Float || et === T.Bool ? Math.max(sWidth[i], width) : sWidth[i];
        buf[p++] = (et << 2) | ew;
      }
      this.len = p;
      t = keysData >= 0 ? T.Map : T.Vector;
    } else {
      t = toTypedVector(len > 0 ? sType[start] : T.Key, fixed ? len : 0);
    }
    this.vecType = t;
    this.vecWidth = width;
    this.vecData = loc;
  }

  // ---- bulk vectors ----------------------------------------------------------

  /**
   * Pushes a typed vector of numbers at the minimal width, exactly as pushing each
   * value and ending a typed vector would (one scan for the width, one write).
   */
  typedVector(values: ArrayLike<number | bigint | boolean>, kind: ScalarKind): void {
    const n = values.length;
    const natural = NATURAL[kind];
    let width = Math.max(this.forceMin, widthOfUInt(n));
    if (width < natural && n > 0) width = Math.max(width, minWidthOf(values, kind, natural));
    // An empty typed vector is a key vector, as when nothing is pushed (and as the Rust core writes it).
    this.writeScalars(values, kind, width, true, n > 0 ? toTypedVector(ELEMENT[kind], 0) : T.VectorKey);
  }

  /** Pushes a typed vector at the natural width of `kind`, as the C++ `Vector(const T*, len)`. */
  scalarVector(values: ArrayLike<number | bigint | boolean>, kind: ScalarKind): void {
    this.check();
    const natural = NATURAL[kind];
    if (widthOfUInt(values.length) > natural) this.fail(builderError("vector length exceeds its element width"), true);
    this.writeScalars(values, kind, natural, true, toTypedVector(ELEMENT[kind], 0));
  }

  /** Pushes a fixed typed vector of 2, 3 or 4 numbers at the natural width of `kind`. */
  fixedVector(values: ArrayLike<number | bigint>, kind: Exclude<ScalarKind, "bool">): void {
    this.check();
    const n = values.length;
    if (n < 2 || n > 4) this.fail(builderError(`a fixed vector holds 2 to 4 values, not ${n}`), true);
    this.writeScalars(values, kind, NATURAL[kind], false, toTypedVector(ELEMENT[kind], n));
  }

  private writeScalars(values: ArrayLike<number | bigint | boolean>, kind: ScalarKind, width: number,
    prefixed: boolean, t: number): void {
    const bytes = 1 << width;
    const n = values.length;
    this.align(width);
    this.reserve((n + 1) * bytes);
    if (prefixed) this.writeUInt(n, bytes);
    const loc = this.len;
    const elem = ELEMENT[kind];
    if (elem === T.Float) {
      const dv = this.dv;
      let p = loc;
      if (bytes === 8) {
        for (let i = 0; i < n; i++, p += 8) dv.setFloat64(p, kind === "f32" ? Math.fround(values[i] as number) : (values[i] as number), true);
      } else {
        for (let i = 0; i < n; i++, p += 4) dv.setFloat32(p, values[i] as number, true);
      }
      this.len = p;
    } else {
      for (let i = 0; i < n; i++) {
        const v = values[i];
        if (typeof v === "bigint") {
          const x = Number(v);
          if (Number.isSafeInteger(x)) this.writeUInt(x, bytes);
          else {
            this.dv.setBigUint64(this.len, BigInt.asUintN(64, v), true);
            this.len += 8;
          }
        } else {
          this.writeUInt(typeof v === "boolean" ? (v ? 1 : 0) : v, bytes);
        }
      }
    }
    this.push(t, width, loc);
  }

  // ---- finishing -------------------------------------------------------------

  /** Writes the root trailer and returns a copy of the finished bytes (clear() before building the next buffer). */
  finish(): Uint8Array {
    return this.finishView().slice();
  }

  /**
   * Writes the root trailer and returns the finished bytes as a view of the
   * builder's own buffer: valid until the next {@link clear} or write.
   */
  finishView(): Uint8Array {
    this.check();
    if (this.finished) throw builderError("the buffer is already finished");
    if (this.sp !== 1 || this.opens.length) throw builderError(`a buffer holds exactly one root value, found ${this.sp}`);
    const t = this.sType[0];
    const w = this.elemWidth(0, this.len, 0);
    this.align(w);
    this.reserve(10);
    this.writeScalar(t, this.sData[0], this.sBig[0], 1 << w, true);
    const stored = t <= T.Float || t === T.Bool ? Math.max(this.sWidth[0], 0) : this.sWidth[0];
    this.buf[this.len++] = (t << 2) | stored;
    this.buf[this.len++] = 1 << w;
    this.finished = true;
    return new Uint8Array(this.buf.buffer, 0, this.len);
  }

  // ---- helpers -----------------------------------------------------------------

  /** Throws the sticky error, if any: a failed builder must be cleared before reuse. */
  private check(): void {
    if (this.error) throw this.error;
  }

  private fail(e: FlexError, now = false): void {
    if (!this.error) this.error = e;
    if (now) throw this.error;
  }

  /** Writes a non-negative or negative safe integer in `bytes` little-endian bytes (two's complement). */
  private writeUInt(v: number, bytes: number): void {
    this.putUInt(this.len, v, bytes);
    this.len += bytes;
  }

  /** Writes `v` as a `bytes`-wide little-endian integer at `p` (negative values in two's complement). */
  private putUInt(p: number, v: number, bytes: number): void {
    const buf = this.buf;
    if (bytes === 1) {
      buf[p] = v;
    } else if (bytes === 2) {
      buf[p] = v;
      buf[p + 1] = v >> 8;
    } else if (bytes === 4) {
      this.dv.setUint32(p, v >>> 0, true);
    } else {
      const hi = Math.floor(v / TWO32);
      this.dv.setUint32(p, v - hi * TWO32, true);
      this.dv.setInt32(p + 4, hi, true);
    }
  }

  private writeScalar(t: number, d: number, big: bigint | undefined, bytes: number, offsetOk = false): void {
    if (t === T.Float) {
      if (bytes === 8) this.dv.setFloat64(this.len, d, true);
      else this.dv.setFloat32(this.len, d, true);
      this.len += bytes;
    } else if (t <= T.UInt || t === T.Bool) {
      if (big !== undefined) {
        this.dv.setBigUint64(this.len, BigInt.asUintN(64, big), true);
        this.len += 8;
      } else {
        this.writeUInt(d, bytes);
      }
    } else if (offsetOk) {
      this.writeUInt(this.len - d, bytes);
    }
  }
}

/** Width (log2) of the offset from a slot of element `index` at `bufLen` (after alignment) back to `target`. */
function offsetWidth(target: number, bufLen: number, index: number): number {
  for (let w = 0; w < 3; w++) {
    const bytes = 1 << w;
    const loc = bufLen + padding(bufLen, bytes) + index * bytes;
    if (widthOfUInt(loc - target) <= w) return w;
  }
  return 3;
}

function minWidthOf(values: ArrayLike<number | bigint | boolean>, kind: ScalarKind, stop: number): number {
  const elem = ELEMENT[kind];
  if (elem === T.Bool) return 0;
  if (elem === T.Float) {
    if (kind === "f32") return 2;
    for (let i = 0; i < values.length; i++) {
      const v = values[i] as number;
      if (Math.fround(v) !== v) return 3;
    }
    return 2;
  }
  let w = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const x = typeof v === "bigint" ? Number(v) : (v as number);
    const vw = elem === T.Int ? widthOfInt(x) : widthOfUInt(x);
    if (vw > w) {
      w = vw;
      if (w >= stop) break;
    }
  }
  return w;
}
