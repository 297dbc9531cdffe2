/**
 * Runtime of generated typed coders (`flexbuf gen --lang ts`), following the
 * Rust core's typed wire contract (`rust-core/src/typed.rs`):
 *
 * - a message is a map; encoders write every field in wire order (unsigned
 *   byte order of wire names), null for absent optionals, and one keys vector
 *   per type per buffer, shared by every map of that type;
 * - decoders read fields by position only after {@link DecodeContext.layout}
 *   proved the map's keys are exactly the expected ones (cached per keys
 *   vector), otherwise by key: a layout mismatch never yields a neighbour's
 *   value; absent optional -> default, explicit null -> null, absent required
 *   -> error naming the path, null in a non-optional field -> error, unknown
 *   fields ignored.
 *
 * Decoding is checked (bounds, widths, types, UTF-8, key order, depth,
 * expansion budget) on the values it reads, so it is safe on untrusted bytes;
 * pass `{ verify: true }` to also verify parts it skips (unknown fields).
 */

import { Builder, KeyLayout, KeyVector, Share, sharedBuilderOptions, wordsOf } from "./builder.js";
import type { BuilderOptions } from "./builder.js";
import { budgetExceeded, budgetFor, BudgetLimits, depthLimit } from "./budget.js";
import { fail, FlexError, PathSegment } from "./error.js";
import { bytesOf, f32At, f64At, joinWords, littleEndianCopy, rootOf, u32 } from "./reader.js";
import type { BytesLike } from "./reader.js";
import { fixedElement, fixedLength, isFixedVector, isKnownType, isTypedVector, T, typedElement, typeName } from "./types.js";
import { asciiRun, mayRun } from "./runs.js";
import { KeyFault, KeyReader, pointsAt, sameKeyText, samePositions } from "./keys.js";
import { compareUtf8, readUtf8, sortUtf8, utf8Bytes } from "./utf8.js";
import { verify } from "./verify.js";

/**
 * The wire names of one message type, in wire order, with their UTF-8 bytes.
 * Generated code builds one per type at load ({@link keySet}).
 */
export class KeySet {
  /** Wire names, sorted by unsigned bytes. */
  readonly names: readonly string[];
  /** Their UTF-8 encodings. */
  readonly bytes: readonly Uint8Array[];
  /** The names laid out as one block, as encoders write them ({@link Builder.keyVectorFor}). */
  readonly layout: KeyLayout;
  /**
   * The last decode (its {@link DecodeContext} serial number, never the
   * context itself, so no buffer is kept alive) that proved a keys vector for
   * these keys, and which one (`position * 16 + width`): the layout proof's
   * one comparison. A cache only: a decode of another buffer overwrites it,
   * and the next map of this type in the first buffer is then found in that
   * context's table.
   * @internal
   */
  provenBy = 0;
  /** @internal */
  provenAt = -1;
  /**
   * The encode ({@link EncodeContext} serial number) that last wrote these
   * keys, and the keys vector it wrote: its one-comparison lookup. Another
   * encode overwrites it; the context's own list still has the vector.
   * @internal
   */
  encodedBy = 0;
  /** @internal */
  encodedKv: KeyVector | null = null;

  /** @internal */
  constructor(names: readonly string[], layout: KeyLayout) {
    this.names = names;
    this.bytes = names.map(utf8Bytes);
    this.layout = layout;
  }
}

/** Builds the {@link KeySet} of a message (generated code calls this once per type). */
export function keySet(names: readonly string[]): KeySet {
  for (let i = 1; i < names.length; i++) {
    if (compareUtf8(names[i - 1], names[i]) >= 0) throw fail("Schema", "wire names must be strictly ascending");
  }
  for (const k of names) if (k.indexOf("\0") >= 0) throw fail("Schema", "a wire name may not contain NUL");
  // Types with the same wire names share one layout: encoders then find the
  // keys vector already written by identity, and a decoder's proof of a shared
  // keys vector serves both types.
  const sig = names.map((k) => k + "\0").join("");
  let layout = LAYOUTS.get(sig);
  if (layout === undefined) {
    layout = new KeyLayout(names);
    LAYOUTS.set(sig, layout);
  }
  return new KeySet(names, layout);
}

const LAYOUTS = new Map<string, KeyLayout>();

/** Keys of no message: reads a map's keys vector for keyed access only. */
export const NO_KEYS: KeySet = keySet([]);

/**
 * Per-buffer encoding state: the keys vector written for each message type.
 *
 * A type's keys are written once per buffer, on first use, as one block
 * ({@link Builder.keyVectorFor}, without the key pool); a later type with
 * exactly the same keys shares that keys vector. This is the Rust core's
 * `EncodeContext::key_vector_for`, byte for byte.
 */
export class EncodeContext {
  /** Serial number of this context (see {@link KeySet.encodedBy}). */
  private readonly serial = ++encodes;
  private written: { layout: KeyLayout; kv: KeyVector }[] | null = null;

  /** The keys vector of `keys`, written on first use in this buffer. */
  keyVector(b: Builder, keys: KeySet): KeyVector {
    const kv = keys.encodedKv;
    return kv !== null && keys.encodedBy === this.serial ? kv : this.firstUse(b, keys);
  }

  private firstUse(b: Builder, keys: KeySet): KeyVector {
    const layout = keys.layout;
    const written = this.written ?? (this.written = []);
    let kv: KeyVector | undefined;
    for (const w of written) {
      if (w.layout === layout || w.layout.sameKeys(layout)) {
        kv = w.kv;
        break;
      }
    }
    if (kv === undefined) {
      kv = b.keyVectorFor(layout);
      written.push({ layout, kv });
    }
    keys.encodedBy = this.serial;
    keys.encodedKv = kv;
    return kv;
  }
}

let encodes = 0;

/** Options of generated decoders. */
export interface TypedDecodeOptions {
  /** Run the full verifier first, so parts the decoder skips are checked too (default false). */
  verify?: boolean;
  /** Never decode by position (used when the writer's schema is known to differ). */
  keyedOnly?: boolean;
  /** Deepest nesting accepted (default 64). */
  maxDepth?: number;
  /** Expansion budget (default {@link budgetFor} the input length). */
  budget?: BudgetLimits;
}

let sharedBuilder: Builder | null = null;

/**
 * A builder with the typed wire contract's settings (keys shared, keys
 * vectors deduplicated), as every typed encode writes with.
 * @internal
 */
export function typedBuilder(options: BuilderOptions = {}): Builder {
  return new Builder({ ...options, share: Share.Keys, dedupKeyVectors: true });
}

/** Encodes one typed value with `into` as a complete buffer (a fresh `Uint8Array`). */
export function encodeTyped<V>(value: V, into: (b: Builder, cx: EncodeContext, v: V) => void): Uint8Array {
  let b = sharedBuilder;
  sharedBuilder = null;
  if (b === null) b = typedBuilder(sharedBuilderOptions());
  try {
    into(b, new EncodeContext(), value);
    return b.finish();
  } finally {
    b.clear();
    sharedBuilder = b;
  }
}

/** Keys of a `{string: T}` field in wire order (unsigned UTF-8 byte order). */
export function sortedKeys(o: { [k: string]: unknown }): string[] {
  const keys = Object.keys(o);
  for (let i = 1; i < keys.length; i++) {
    if (compareUtf8(keys[i - 1], keys[i]) > 0) return sortUtf8(keys);
  }
  return keys;
}

/** Sets `o[k] = v` as an own property, even for `"__proto__"`. */
export function setEntry<V>(o: { [k: string]: V }, k: string, v: V): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

const TWO32 = 4294967296;
let decodes = 0;

/**
 * The key sets of `{string: T}` maps met in earlier buffers, found again by
 * where their keys lie and then proven by their bytes (see
 * {@link DecodeContext.checkKeys}): a dictionary whose keys recur from
 * buffer to buffer (a document's glossaries, a metric's labels) has them
 * compared in one pass instead of read, hashed and looked up key by key.
 * Direct-mapped by a hash of every key's position; a collision costs the
 * usual check, never a wrong key.
 */
interface DictKeys {
  /** Where each key starts. */
  at: number[];
  /** The keys' bytes, each with its NUL, one after the other. */
  text: Uint8Array;
  keys: string[];
  lens: number[];
}
const DICT_BITS = 10;
const dictKeys: (DictKeys | undefined)[] = new Array(1 << DICT_BITS).fill(undefined);
/** Key sets recorded per decode at most (past it, dictionaries are taken for one-offs: maps keyed by ids). */
const DICT_FRESH_MAX = 64;
/** Longest key text (all keys, with their NULs) recorded. */
const DICT_TEXT_MAX = 4096;

/** Whether {@link dictKeys} is consulted (always, but in tests: see {@link dictKeysMemo}). */
let dictMemo = true;

/** The bits of a key set's slot kept (all but in tests: see {@link dictKeysMemo}). */
let dictSlotMask = (1 << DICT_BITS) - 1;

/**
 * For tests: with `on` false, `{string: T}` maps check their keys one by
 * one (the oracle the memo is compared with); with `collide`, every key set
 * takes the same slot, so that only the comparison of positions and bytes
 * tells them apart. Forgets every key set.
 * @internal
 */
export function dictKeysMemo(on: boolean, collide = false): void {
  dictMemo = on;
  dictSlotMask = collide ? 0 : (1 << DICT_BITS) - 1;
  dictKeys.fill(undefined);
}

/** The table slot of a key set whose positions and count hash to `h`. */
function dictSlot(h: number): number {
  return (Math.imul(h ^ (h >>> 16), 0x2c1b3c6d) >>> (32 - DICT_BITS)) & dictSlotMask;
}

/** Error for a required field that is absent (the decoder adds the field to its path). */
export function missing(field?: string): FlexError {
  const e = fail("MissingField", "required field is missing");
  return field === undefined ? e : e.within(field);
}

/**
 * Checks that `v`, the value of a fixed-length array (`[T; N]` in a schema),
 * has `n` elements: `ArrayLength` otherwise (the caller adds the path).
 */
export function checkArray<V extends ArrayLike<unknown>>(v: V, n: number, offset?: number): V {
  if (v.length !== n) throw fail("ArrayLength", `expected an array of ${n} elements, found a vector of ${v.length}`, offset);
  return v;
}

/**
 * Per-buffer decoding state and the checked field readers generated code uses.
 * Positions are plain numbers: `p` is a value's slot, `w` the slot width, `t`
 * its packed type byte.
 */
export class DecodeContext {
  /** The bytes. */
  readonly u8: Uint8Array;
  /** Buffer length. */
  readonly n: number;
  /** Element width set by {@link map} and {@link vector}. */
  w = 0;
  /** Element count set by {@link map} and {@link vector}. */
  c = 0;
  /** Element type of the last {@link vector} (-1 when untyped). */
  e = -1;
  /** Keys-vector position and width set by {@link layout}. */
  ka = 0;
  /** Keys-vector width set by {@link layout}. */
  kw = 0;
  /** Current nesting depth. */
  depth = 0;
  private readonly maxDepth: number;
  private readonly keyedOnly: boolean;
  private nodes: number;
  private bytes: number;
  // Created on first need: a small message decodes without allocating them.
  private view: DataView | null = null;
  private layouts: Map<number, KeySet | null> | null = null;
  private checked: Set<number> | null = null;
  /** Serial number of this decode (see {@link KeySet.provenBy}). */
  private readonly serial = ++decodes;
  /** Keys of `{string: T}` fields, through the table shared by every decoder (see keys.ts). */
  private keyReader: KeyReader | null = null;
  /** The keys vector {@link checkKeys} read last (-1: none), its width, and its keys' strings and byte lengths. */
  private checkedKa = -1;
  private checkedKw = 0;
  private checkedKeys: string[] = [];
  private checkedLens: number[] = [];
  /** Key sets this decode recorded in {@link dictKeys}. */
  private dictFresh = 0;

  constructor(bytes: Uint8Array, options: TypedDecodeOptions = {}) {
    if (options.verify) verify(bytes, { maxDepth: options.maxDepth });
    this.u8 = bytes;
    this.n = bytes.length;
    this.maxDepth = depthLimit(options.maxDepth);
    this.keyedOnly = options.keyedOnly ?? false;
    const budget = options.budget ?? budgetFor(bytes.length);
    this.nodes = budget.maxNodes;
    this.bytes = budget.maxBytes;
  }

  /** Little-endian view of the bytes (made on first use: floats and bigints only). */
  get dv(): DataView {
    const u8 = this.u8;
    return this.view ?? (this.view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength));
  }

  /** The root slot: `[p, w, t]`. */
  root(): [number, number, number] {
    return rootOf(this.u8);
  }

  /** Adds a path segment to a decode error. */
  at(e: unknown, seg: PathSegment): unknown {
    return e instanceof FlexError ? e.within(seg) : e;
  }

  // Offsets, sizes and integers are read from the bytes with 32-bit
  // arithmetic: no DataView call, no BigInt unless a value needs one.
  private uint(pos: number, w: number): number {
    if (pos < 0 || pos + w > this.n) throw fail("Truncated", "read past the end of the buffer", pos);
    const u8 = this.u8;
    switch (w) {
      case 1: return u8[pos];
      case 2: return u8[pos] | (u8[pos + 1] << 8);
      case 4: return this.dv.getUint32(pos, true);
      default: {
        // Offsets and sizes: their high word is zero in practice (see joinWords).
        const dv = this.dv;
        return joinWords(dv.getUint32(pos + 4, true), dv.getUint32(pos, true));
      }
    }
  }

  private follow(pos: number, w: number): number {
    const off = this.uint(pos, w);
    if (off > pos) throw fail("OffsetOutOfBounds", "offset points before the buffer", pos);
    return pos - off;
  }

  private size(data: number, w: number, unit: number): number {
    if (data < w) throw fail("OffsetOutOfBounds", "size prefix before the buffer", data);
    const len = this.uint(data - w, w);
    if (data + len * unit > this.n) throw fail("SizeOutOfBounds", "data runs past the end", data - w);
    return len;
  }

  /** Scalar readers reject null as `UnexpectedNull`; containers (`map`, `vector`) as a type mismatch. */
  private mismatch(expected: string, t: number, p: number, nullIsType = false): FlexError {
    const code = t >> 2;
    if (!isKnownType(code)) return fail("UnknownType", `unknown type code ${code}`, p);
    if (code === T.Null && !nullIsType) return fail("UnexpectedNull", "null for a field that is not optional", p);
    return fail("TypeMismatch", `expected ${expected}, found ${typeName(code)}`, p);
  }

  /** Returns `t`, or throws `UnexpectedNull` when it is null (fields, elements and values that are not optional). */
  nn(t: number, p = -1): number {
    if (t < 4) throw fail("UnexpectedNull", "null for a field that is not optional", p < 0 ? undefined : p);
    return t;
  }

  /** Charges one decoded node. */
  node(): void {
    if (--this.nodes < 0) throw budgetExceeded();
  }

  /** Leaves a container entered by {@link map} or {@link vector}. */
  leave(): void {
    this.depth--;
  }

  private enter(at: number): void {
    if (++this.depth > this.maxDepth) throw fail("DepthLimit", `nesting deeper than ${this.maxDepth}`, at);
    if (--this.nodes < 0) throw budgetExceeded(at);
  }

  /** True when the packed type `t` is null. */
  isNull(t: number): boolean {
    return t < 4;
  }

  /** Packed type of element `i` of the container at `d` (width `w`, `n` elements, type `e` or -1). */
  type(d: number, w: number, n: number, e: number, i: number): number {
    return e < 0 ? this.u8[d + n * w + i] : (e << 2) | (w === 1 ? 0 : w === 2 ? 1 : w === 4 ? 2 : 3);
  }

  // ---- containers ---------------------------------------------------------------

  /** Opens a map: returns its values position and sets `w`, `c`; bounds-checked; enters one level. */
  map(p: number, w: number, t: number): number {
    if (t >> 2 !== T.Map) throw this.mismatch("map", t, p, true);
    const d = this.follow(p, w);
    const mw = 1 << (t & 3);
    const len = this.size(d, mw, mw + 1);
    this.enter(d);
    this.w = mw;
    this.c = len;
    return d;
  }

  /**
   * Proves (once per keys vector) whether the map at `d` has exactly the keys
   * of `keys`; sets `ka`/`kw` to its keys vector. Checks the keys vector too:
   * same length as the values, strictly ascending, valid UTF-8.
   */
  layout(d: number, w: number, n: number, keys: KeySet): boolean {
    const prefix = d - 3 * w;
    if (prefix < 0) throw fail("OffsetOutOfBounds", "map prefix before the buffer", d);
    const ka = this.follow(prefix, w);
    const kw = this.uint(prefix + w, w);
    if (kw !== 1 && kw !== 2 && kw !== 4 && kw !== 8) throw fail("BadWidth", `keys width ${kw}`, prefix + w);
    const klen = this.size(ka, kw, kw);
    if (klen !== n) throw fail("KeyValueLengthMismatch", `${klen} keys for ${n} values`, d);
    this.ka = ka;
    this.kw = kw;
    const id = ka * 16 + kw;
    // The one comparison: this type's keys vector already proven in this buffer.
    if (keys.provenAt === id && keys.provenBy === this.serial) return !this.keyedOnly;
    const layouts = this.layouts ?? (this.layouts = new Map());
    const known = layouts.get(id);
    if (known === keys || (known != null && known.layout === keys.layout)) {
      keys.provenBy = this.serial;
      keys.provenAt = id;
      return !this.keyedOnly;
    }
    // Exactly the expected keys: valid UTF-8 and strictly ascending by
    // construction, so the general key check is only needed otherwise.
    if (this.matches(ka, kw, n, keys)) {
      layouts.set(id, keys);
      keys.provenBy = this.serial;
      keys.provenAt = id;
      return !this.keyedOnly;
    }
    const checked = this.checked ?? (this.checked = new Set());
    if (!checked.has(id)) {
      this.checkKeys(ka, kw, n);
      checked.add(id);
    }
    return false;
  }

  private matches(ka: number, kw: number, n: number, keys: KeySet): boolean {
    if (n !== keys.names.length) return false;
    if (n === 0) return true;
    const u8 = this.u8;
    // Encoders write a type's keys as one block (Builder.keyVectorFor): then
    // the proof is one run over the block's bytes plus one offset per key.
    const { block, words } = keys.layout;
    const k0 = this.follow(ka, kw);
    if (k0 + block.length <= this.n) {
      if (this.laidOut(ka, kw, k0, n, keys.layout)) {
        // Four bytes per comparison (one DataView load), then the tail.
        const dv = this.dv;
        const nw = words.length;
        for (let j = 0; j < nw; j++) if (dv.getInt32(k0 + 4 * j, true) !== words[j]) return false;
        for (let j = 4 * nw; j < block.length; j++) if (u8[k0 + j] !== block[j]) return false;
        return true;
      }
    }
    for (let i = 0; i < n; i++) {
      const k = this.follow(ka + i * kw, kw);
      const want = keys.bytes[i];
      const m = want.length;
      if (k + m >= this.n || u8[k + m] !== 0) return false;
      for (let j = 0; j < m; j++) if (u8[k + j] !== want[j]) return false;
    }
    return true;
  }

  /**
   * Whether every element of the keys vector at `ka` (width `kw`, `n`
   * elements, in bounds) points at its key in `layout`'s block at `k0`.
   * The bytes such a vector holds depend only on its distance from the
   * block and its width, so they are made once for the distance and width
   * last met and compared four at a time; other vectors are checked element
   * by element.
   */
  private laidOut(ka: number, kw: number, k0: number, n: number, layout: KeyLayout): boolean {
    const dist = ka - k0;
    let v = layout.vector;
    if (v === null || v.dist !== dist || v.kw !== kw) {
      const bytes = new Uint8Array(n * kw);
      let fits = true;
      for (let i = 0; i < n && fits; i++) {
        const off = dist + i * kw - layout.starts[i];
        if (off < 0 || (kw < 8 && off >= 2 ** (8 * kw))) fits = false;
        for (let b = 0, x = off; b < kw; b++, x = Math.floor(x / 256)) bytes[i * kw + b] = x % 256;
      }
      if (!fits) return this.laidOutSlowly(ka, kw, k0, n, layout);
      const words = wordsOf(bytes);
      v = layout.vector = { dist, kw, words, tail: bytes.subarray(4 * words.length) };
    }
    const dv = this.dv;
    const words = v.words;
    for (let j = 0; j < words.length; j++) if (dv.getInt32(ka + 4 * j, true) !== words[j]) return this.laidOutSlowly(ka, kw, k0, n, layout);
    const tail = v.tail;
    const at = ka + 4 * words.length;
    for (let j = 0; j < tail.length; j++) if (this.u8[at + j] !== tail[j]) return this.laidOutSlowly(ka, kw, k0, n, layout);
    return true;
  }

  /** {@link laidOut} element by element (what a vector whose bytes differ from the expected ones gets: the same result and errors as before). */
  private laidOutSlowly(ka: number, kw: number, k0: number, n: number, layout: KeyLayout): boolean {
    for (let i = 1; i < n; i++) if (this.follow(ka + i * kw, kw) !== k0 + layout.starts[i]) return false;
    return true;
  }

  /**
   * Checks the keys vector at `ka` (width `kw`, `n` keys, in bounds): every
   * key inside the buffer, NUL-terminated, valid UTF-8 and greater than the
   * one before. The keys are read through the key table (see keys.ts), and
   * their strings kept for {@link key}, which a `{string: T}` field's
   * decoder calls next for each of them: each key is scanned once and, when
   * met in an earlier buffer, not decoded again. A whole key set met in an
   * earlier buffer at the same places (see {@link dictKeys}) is proven by
   * one comparison of its bytes instead.
   */
  private checkKeys(ka: number, kw: number, n: number): void {
    // A key set met in an earlier buffer: the same positions holding the
    // same bytes (each key's NUL inside this buffer) are keys already
    // proven valid, NUL-terminated and ascending. The positions are read
    // unchecked (the vector is in bounds; where they point may not be).
    let h = n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ pointsAt(this.u8, ka + i * kw, kw), 0x9e3779b1) + i;
    const slot = dictSlot(h);
    const known = dictKeys[slot];
    if (dictMemo && known !== undefined && known.at.length === n && this.sameDictKeys(ka, kw, known)) {
      this.checkedKa = ka;
      this.checkedKw = kw;
      this.checkedKeys = known.keys;
      this.checkedLens = known.lens;
      return;
    }
    let prev = -1;
    let prevLen = 0;
    const u8 = this.u8;
    const r = this.keyReader ?? (this.keyReader = new KeyReader());
    const strs: string[] = new Array(n);
    const lens: number[] = new Array(n);
    this.checkedKa = -1;
    for (let i = 0; i < n; i++) {
      const k = this.follow(ka + i * kw, kw);
      if (k >= this.n) throw fail("OffsetOutOfBounds", "key outside the buffer", k);
      const s = r.read(u8, k);
      if (s === undefined) {
        if (r.fault === KeyFault.MissingNul) throw fail("MissingNul", "key without a terminating NUL", k);
        throw fail("InvalidUtf8", "key is not valid UTF-8", k);
      }
      const len = r.len;
      if (prev >= 0) {
        let c = 0;
        const m = Math.min(prevLen, len);
        for (let j = 0; j < m && c === 0; j++) c = u8[prev + j] - u8[k + j];
        if (c === 0) c = prevLen - len;
        if (c >= 0) throw fail("UnsortedKeys", "map keys are not strictly ascending", ka + i * kw);
      }
      strs[i] = s;
      lens[i] = len;
      prev = k;
      prevLen = len;
    }
    this.checkedKa = ka;
    this.checkedKw = kw;
    this.checkedKeys = strs;
    this.checkedLens = lens;
    let textLen = n;
    for (let i = 0; i < n; i++) textLen += lens[i];
    if (dictMemo && n > 0 && textLen <= DICT_TEXT_MAX && ++this.dictFresh <= DICT_FRESH_MAX) {
      const at: number[] = new Array(n);
      const text = new Uint8Array(textLen);
      for (let i = 0, o = 0; i < n; i++) {
        const k = pointsAt(u8, ka + i * kw, kw);
        at[i] = k;
        // Each key was just read whole, with its NUL, inside the buffer.
        for (let j = 0; j <= lens[i]; j++) text[o++] = u8[k + j];
      }
      dictKeys[slot] = { at, text, keys: strs, lens };
    }
  }

  /**
   * Whether the keys vector at `ka` (width `kw`, in bounds, as many keys as
   * `set`) points where `set.at` does, and the bytes there are `set.text`,
   * each key's NUL included and inside the buffer. Reads only.
   */
  private sameDictKeys(ka: number, kw: number, set: DictKeys): boolean {
    return samePositions(this.u8, ka, kw, set.at) && sameKeyText(this.u8, set.at, set.text);
  }

  /** Index of `key` (UTF-8) in the keys vector at `ka` (width `kw`, `n` keys), or -1. */
  find(ka: number, kw: number, n: number, key: Uint8Array): number {
    let lo = 0;
    let hi = n;
    const u8 = this.u8;
    const m = key.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const k = this.follow(ka + mid * kw, kw);
      let c = 0;
      let j = 0;
      for (; j < m; j++) {
        c = u8[k + j] - key[j];
        if (c !== 0) break;
      }
      if (c === 0) c = u8[k + m];
      if (c < 0) lo = mid + 1;
      else if (c > 0) hi = mid;
      else return mid;
    }
    return -1;
  }

  /**
   * The key of entry `i` of a map whose keys vector is at `ka` (width `kw`):
   * keys come from the table shared across buffers (see keys.ts), so a key
   * met before is not decoded again (its length still counts against the
   * budget at every use).
   */
  key(ka: number, kw: number, i: number): string {
    if (ka === this.checkedKa && kw === this.checkedKw && i < this.checkedKeys.length) {
      // Read and checked by checkKeys just before.
      if ((this.bytes -= this.checkedLens[i]) < 0) throw budgetExceeded(this.follow(ka + i * kw, kw));
      return this.checkedKeys[i];
    }
    const k = this.follow(ka + i * kw, kw);
    if (k >= this.n) throw fail("OffsetOutOfBounds", "key outside the buffer", k);
    const r = this.keyReader ?? (this.keyReader = new KeyReader());
    const s = r.read(this.u8, k);
    if (s === undefined && r.fault === KeyFault.MissingNul) throw fail("MissingNul", "key without a terminating NUL", k);
    // The budget is charged before invalid UTF-8 is reported (as the checks ran before keys were shared).
    if ((this.bytes -= r.len) < 0) throw budgetExceeded(k);
    if (s === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", k);
    return s;
  }

  /** Opens any vector (untyped, typed, fixed, or a map's values): returns its data position, sets `w`, `c`, `e`. */
  vector(p: number, w: number, t: number): number {
    const code = t >> 2;
    const d = code === T.Vector || isTypedVector(code) || isFixedVector(code) ? this.follow(p, w) : -1;
    if (d < 0) throw this.mismatch("vector", t, p, true);
    const vw = 1 << (t & 3);
    let len: number;
    if (isFixedVector(code)) {
      len = fixedLength(code);
      if (d + len * vw > this.n) throw fail("SizeOutOfBounds", "vector runs past the end", d);
      this.e = fixedElement(code);
    } else if (code === T.Vector) {
      len = this.size(d, vw, vw + 1);
      this.e = -1;
    } else {
      len = this.size(d, vw, vw);
      this.e = typedElement(code);
    }
    this.enter(d);
    if ((this.nodes -= len) < 0) throw budgetExceeded(d);
    this.w = vw;
    this.c = len;
    return d;
  }

  // ---- scalars ------------------------------------------------------------------

  /** A boolean. */
  bool(p: number, w: number, t: number): boolean {
    if (t >> 2 !== T.Bool) throw this.mismatch("bool", t, p);
    return this.uint(p, w) !== 0;
  }

  /** An integer of any stored type and width as a number in [min, max] (for types up to 32 bits). */
  int(p: number, w: number, t: number, min: number, max: number): number {
    const v = this.int64(p, w, t);
    if (typeof v !== "number" || v < min || v > max) throw fail("OutOfRange", `${v} is out of range [${min}, ${max}]`, p);
    return v;
  }

  /** An integer of any stored type as i64: a number when safe, else a bigint. */
  i64(p: number, w: number, t: number): number | bigint {
    const v = this.int64(p, w, t);
    if (typeof v === "bigint" && v > 0x7fffffffffffffffn) throw fail("OutOfRange", `${v} is out of range of i64`, p);
    return v;
  }

  /** An integer of any stored type as u64: a number when safe, else a bigint. */
  u64(p: number, w: number, t: number): number | bigint {
    const v = this.int64(p, w, t);
    if (v < 0) throw fail("OutOfRange", `${v} is out of range of u64`, p);
    return v;
  }

  /**
   * An i64 as a `number`, for coders generated with `--ts-int64 checked`:
   * `OutOfRange` beyond ±(2^53 - 1), never a rounded value.
   */
  i64n(p: number, w: number, t: number): number {
    const v = this.int64(p, w, t);
    if (typeof v !== "number") throw fail("OutOfRange", `${v} is beyond ±(2^53 - 1), the exact range of a number (generated with --ts-int64 checked)`, p);
    return v;
  }

  /** A u64 as a `number`, for `--ts-int64 checked`: `OutOfRange` above 2^53 - 1 or below 0. */
  u64n(p: number, w: number, t: number): number {
    const v = this.int64(p, w, t);
    if (typeof v !== "number") throw fail("OutOfRange", `${v} is beyond 2^53 - 1, the exact range of a number (generated with --ts-int64 checked)`, p);
    if (v < 0) throw fail("OutOfRange", `${v} is out of range of u64`, p);
    return v;
  }

  /** An i64 as a `bigint` always, for `--ts-int64 bigint`. */
  i64b(p: number, w: number, t: number): bigint {
    const v = this.i64(p, w, t);
    return typeof v === "bigint" ? v : BigInt(v);
  }

  /** A u64 as a `bigint` always, for `--ts-int64 bigint`. */
  u64b(p: number, w: number, t: number): bigint {
    const v = this.u64(p, w, t);
    return typeof v === "bigint" ? v : BigInt(v);
  }

  private int64(p: number, w: number, t: number): number | bigint {
    const code = t >> 2;
    let signed: boolean;
    if (code === T.Int || code === T.UInt) signed = code === T.Int;
    else if (code === T.IndirectInt || code === T.IndirectUInt) {
      signed = code === T.IndirectInt;
      p = this.follow(p, w);
      w = 1 << (t & 3);
    } else throw this.mismatch("integer", t, p);
    if (p < 0 || p + w > this.n) throw fail("Truncated", "read past the end of the buffer", p);
    const u8 = this.u8;
    switch (w) {
      case 1: return signed ? (u8[p] << 24) >> 24 : u8[p];
      case 2: {
        const v = u8[p] | (u8[p + 1] << 8);
        return signed ? (v << 16) >> 16 : v;
      }
      case 4: {
        const v = u8[p] | (u8[p + 1] << 8) | (u8[p + 2] << 16) | (u8[p + 3] << 24);
        return signed ? v : v >>> 0;
      }
      default: {
        const dv = this.dv;
        const lo = dv.getUint32(p, true);
        if (signed) {
          const hi = dv.getInt32(p + 4, true);
          if (hi > 0x1fffff || hi < -0x200000) return this.dv.getBigInt64(p, true);
          const v = joinWords(hi, lo);
          return Number.isSafeInteger(v) ? v : this.dv.getBigInt64(p, true);
        }
        const hi = dv.getUint32(p + 4, true);
        return hi > 0x1fffff ? dv.getBigUint64(p, true) : joinWords(hi, lo);
      }
    }
  }

  /** A number of any numeric type (integers convert). */
  f64(p: number, w: number, t: number): number {
    const code = t >> 2;
    if (code === T.Float) {
      if (w === 8) {
        if (p < 0 || p + 8 > this.n) throw fail("Truncated", "read past the end of the buffer", p);
        return this.dv.getFloat64(p, true);
      }
      if (w === 4) {
        if (p < 0 || p + 4 > this.n) throw fail("Truncated", "read past the end of the buffer", p);
        return this.dv.getFloat32(p, true);
      }
      throw fail("BadWidth", `a float cannot be ${w} bytes wide`, p);
    }
    if (code === T.IndirectFloat) {
      const at = this.follow(p, w);
      return this.f64(at, 1 << (t & 3), T.Float << 2);
    }
    return Number(this.int64(p, w, t));
  }

  /** An f32 field (rounded to f32). */
  f32(p: number, w: number, t: number): number {
    const f = this.f64(p, w, t);
    const r = Math.fround(f);
    // A finite value beyond f32's range would silently become an infinity.
    if (r - r !== 0 && f - f === 0) throw fail("OutOfRange", `${f} is out of range of f32`, p);
    return r;
  }

  private utf8(at: number, len: number): string {
    if ((this.bytes -= len) < 0) throw budgetExceeded(at);
    const s = readUtf8(this.u8, at, len);
    if (s === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", at);
    return s;
  }

  /** A string (or key). */
  str(p: number, w: number, t: number): string {
    const code = t >> 2;
    if (code === T.String) {
      const at = this.follow(p, w);
      const len = this.size(at, 1 << (t & 3), 1);
      if (at + len >= this.n || this.u8[at + len] !== 0) throw fail("MissingNul", "string without its NUL", at + len);
      if ((this.bytes -= len) < 0) throw budgetExceeded(at);
      // Decoded at every reference, as in the generic decoder (value.ts).
      const s = readUtf8(this.u8, at, len);
      if (s === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", at);
      return s;
    }
    if (code === T.Key) {
      const at = this.follow(p, w);
      if (at >= this.n) throw fail("OffsetOutOfBounds", "key outside the buffer", at);
      const end = this.u8.indexOf(0, at);
      if (end < 0) throw fail("MissingNul", "key without a terminating NUL", at);
      return this.utf8(at, end - at);
    }
    throw this.mismatch("string", t, p);
  }

  /**
   * A vector of strings (null elements are errors): an untyped vector of
   * ASCII strings laid out together is decoded in one text decode (see
   * {@link asciiRun}), any other element by element with {@link str}.
   */
  strs(p: number, w: number, t: number): string[] {
    const d = this.vector(p, w, this.nn(t, p));
    const vw = this.w;
    const n = this.c;
    const e = this.e;
    const out: string[] = new Array(n);
    try {
      const bytes = e < 0 ? asciiRun(this.u8, d, vw, n, this.bytes, out) : -1;
      if (bytes >= 0) this.bytes -= bytes;
      else this.readEach(d, vw, n, e, readString, out);
    } finally {
      this.depth--;
    }
    return out;
  }

  /**
   * The string values of the map whose values vector is at `d` (width `w`,
   * `n` entries), decoded together when they are ASCII strings laid out in
   * one region (see {@link asciiRun}), else `null`. Nothing is charged to
   * the budget here: {@link runStr} charges each value as the entry loop
   * takes it, so budget verdicts and errors are those of reading entry by
   * entry.
   */
  strRun(d: number, w: number, n: number): string[] | null {
    if (!mayRun(this.u8, d, w, n)) return null;
    const out: string[] = new Array(n);
    return asciiRun(this.u8, d, w, n, Infinity, out) >= 0 ? out : null;
  }

  /**
   * Value `j` of a map of strings: from `run` (made by {@link strRun}) when
   * there is one and the budget holds its bytes (ASCII: one byte per
   * character), else read as {@link str} reads it (which charges, and fails,
   * as it always does).
   */
  runStr(run: string[] | null, j: number, d: number, w: number, n: number): string {
    if (run !== null) {
      const s = run[j];
      if (this.bytes >= s.length) {
        this.bytes -= s.length;
        return s;
      }
    }
    return this.str(d + j * w, w, this.nn(this.type(d, w, n, -1, j)));
  }

  /** A blob (or string) as a copy. */
  blob(p: number, w: number, t: number): Uint8Array {
    const code = t >> 2;
    if (code !== T.Blob && code !== T.String) throw this.mismatch("blob", t, p);
    const at = this.follow(p, w);
    const len = this.size(at, 1 << (t & 3), 1);
    if ((this.bytes -= len) < 0) throw budgetExceeded(at);
    // A copy even when the input is a Node Buffer (whose slice is a view).
    return new Uint8Array(this.u8.subarray(at, at + len));
  }

  /** An enum value: an integer that must be one of `values`. */
  enumValue(p: number, w: number, t: number, values: ReadonlySet<number>, name: string): number {
    const v = this.int64(p, w, t);
    if (typeof v !== "number" || !values.has(v)) throw fail("UnknownEnumValue", `${v} is not a value of enum ${name}`, p);
    return v;
  }

  /**
   * A vector of floats read with `read` (null elements are errors). Typed
   * vectors of floats are read in one loop; `f32` rounds each value as
   * `read` would (the `f32` reader), so both paths give the same numbers.
   */
  numbers(p: number, w: number, t: number, read: (c: DecodeContext, p: number, w: number, t: number) => number,
    f32 = false): number[] {
    const d = this.vector(p, w, this.nn(t, p));
    const vw = this.w;
    const n = this.c;
    const e = this.e;
    const out: number[] = new Array(n);
    try {
      if (e === T.Float && (vw === 8 || vw === 4)) {
        // vector() bounds-checked all n elements.
        const u8 = this.u8;
        const copy = littleEndianCopy(u8, d, n * vw);
        if (vw === 4) {
          if (copy !== null) {
            const a = new Float32Array(copy);
            for (let i = 0; i < n; i++) out[i] = a[i];
          } else for (let i = 0; i < n; i++) out[i] = f32At(u8, d + i * 4);
        } else if (f32) {
          // Doubles into an f32 field: rounded as the reader rounds them.
          const a = copy !== null ? new Float64Array(copy) : null;
          for (let i = 0; i < n; i++) {
            const x = a !== null ? a[i] : f64At(u8, d + i * 8);
            const r = Math.fround(x);
            // Beyond f32's range: the reader's OutOfRange error, with the index.
            out[i] = r - r !== 0 && x - x === 0 ? this.element(d + i * 8, 8, (T.Float << 2) | 3, i, read) : r;
          }
        } else if (copy !== null) {
          const a = new Float64Array(copy);
          for (let i = 0; i < n; i++) out[i] = a[i];
        } else for (let i = 0; i < n; i++) out[i] = f64At(u8, d + i * 8);
      } else this.readEach(d, vw, n, e, read, out);
    } finally {
      this.depth--;
    }
    return out;
  }

  /** Every element of the vector at `d` read by `read` into `out` (an error names the index). */
  private readEach<V>(d: number, vw: number, n: number, e: number,
    read: (c: DecodeContext, p: number, w: number, t: number) => V, out: V[]): void {
    for (let i = 0; i < n; i++) out[i] = this.element(d + i * vw, vw, this.type(d, vw, n, e, i), i, read);
  }

  /** Element `i` at `q` (packed type `et`) read by `read`; an error names the index. */
  private element<V>(q: number, vw: number, et: number, i: number,
    read: (c: DecodeContext, p: number, w: number, t: number) => V): V {
    try {
      return read(this, q, vw, et);
    } catch (x) {
      throw this.at(x, i);
    }
  }

  /** `n` integers of `vw` bytes at `d` read byte by byte (1-byte elements, big-endian hosts). */
  private elements(d: number, vw: number, n: number, signed: boolean): ArrayLike<number> {
    const u8 = this.u8;
    if (vw === 1) return signed ? new Int8Array(u8.buffer, u8.byteOffset + d, n) : u8.subarray(d, d + n);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const q = d + i * vw;
      if (vw === 2) {
        const x = u8[q] | (u8[q + 1] << 8);
        out[i] = signed ? (x << 16) >> 16 : x;
      } else if (vw === 4) {
        const x = u8[q] | (u8[q + 1] << 8) | (u8[q + 2] << 16) | (u8[q + 3] << 24);
        out[i] = signed ? x : x >>> 0;
      } else {
        const hi = u32(u8, q + 4);
        out[i] = (signed ? hi | 0 : hi) * TWO32 + u32(u8, q);
      }
    }
    return out;
  }

  /**
   * A vector of integers read with `read` (null elements are errors), for
   * fields whose elements are numbers in `[min, max]` (a safe-integer range).
   * Typed vectors of integers are read in one loop: an element inside the
   * range is taken as it is, and `read` decides every other one (a `bigint`,
   * or an `OutOfRange` error with the element's index), so the result is
   * exactly the one `read` gives for every element.
   */
  ints<V>(p: number, w: number, t: number, min: number, max: number,
    read: (c: DecodeContext, p: number, w: number, t: number) => V): V[] {
    const d = this.vector(p, w, this.nn(t, p));
    const vw = this.w;
    const n = this.c;
    const e = this.e;
    const out: V[] = new Array(n);
    try {
      if (e === T.Int || e === T.UInt) {
        // vector() bounds-checked all n elements.
        const u8 = this.u8;
        const signed = e === T.Int;
        const et = (e << 2) | (vw === 1 ? 0 : vw === 2 ? 1 : vw === 4 ? 2 : 3);
        const copy = vw === 1 ? null : littleEndianCopy(u8, d, n * vw);
        if (vw === 8 && copy !== null) {
          // Exact whenever |value| < 2^53; anything larger fails the range test.
          const words = new Uint32Array(copy);
          for (let i = 0; i < n; i++) {
            const hi = words[2 * i + 1];
            const x = (signed ? hi | 0 : hi) * TWO32 + words[2 * i];
            if (x >= min && x <= max) out[i] = x as V;
            else out[i] = this.element(d + i * 8, 8, et, i, read);
          }
        } else {
          const v = copy === null ? this.elements(d, vw, n, signed) : elementsOf(copy, vw, n, signed);
          for (let i = 0; i < n; i++) {
            const x = v[i];
            if (x >= min && x <= max) out[i] = x as V;
            else out[i] = this.element(d + i * vw, vw, et, i, read);
          }
        }
      } else this.readEach(d, vw, n, e, read, out);
    } finally {
      this.depth--;
    }
    return out;
  }
}

/**
 * The `n` little-endian integers of `vw` (2 or 4) bytes in `copy`, as a
 * typed-array view of it.
 */
function elementsOf(copy: ArrayBufferLike, vw: number, n: number, signed: boolean): ArrayLike<number> {
  if (vw === 2) return signed ? new Int16Array(copy, 0, n) : new Uint16Array(copy, 0, n);
  return signed ? new Int32Array(copy, 0, n) : new Uint32Array(copy, 0, n);
}

/** A non-null string element, for {@link DecodeContext.strs}. */
const readString = (c: DecodeContext, p: number, w: number, t: number): string => c.str(p, w, c.nn(t));

/** Decodes the root of `bytes` with a generated `from` function. */
export function decodeTyped<V>(bytes: BytesLike, from: (c: DecodeContext, p: number, w: number, t: number) => V,
  options?: TypedDecodeOptions): V {
  const u8 = bytesOf(bytes);
  const c = new DecodeContext(u8, options);
  const [p, w, t] = rootOf(u8);
  return from(c, p, w, t);
}
