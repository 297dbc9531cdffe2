/**
 * Plain JavaScript values <-> FlexBuffers.
 *
 * Mapping (encode): `null`/`undefined` -> null; booleans -> bool; numbers that
 * are safe integers (and not -0) -> int, every other number -> double (stored
 * as f32 when exact, as the C++ builder does); bigint -> int (or uint above
 * i64); strings -> string; `Uint8Array` -> blob; other typed arrays -> typed
 * vectors; arrays -> vectors; `Map` and plain objects -> maps (keys sorted by
 * UTF-8 bytes). Maps and typed arrays of another realm (an iframe, a `vm`
 * context) are written as this realm's. Object properties whose value is
 * `undefined`, a function or a symbol are skipped and objects with `toJSON`
 * are encoded through it, as `JSON.stringify` does.
 *
 * Mapping (decode): maps -> plain objects, every kind of vector -> arrays,
 * blobs -> `Uint8Array` (copied), integers -> `number` when safe and `bigint`
 * otherwise (see {@link IntMode}). Decoding is checked in one pass (bounds,
 * widths, types, UTF-8, sorted keys, key/value lengths, depth) and stops with
 * `BudgetExceeded` when shared offsets would expand beyond the budget; bytes
 * the verifier rejects fail with the verifier's error.
 */

import { Builder, BuilderOptions, isIntElement, sharedBuilderOptions } from "./builder.js";
import type { ScalarKind } from "./builder.js";
import { budgetExceeded, budgetFor, BudgetLimits, depthLimit } from "./budget.js";
import { fail, FlexError } from "./error.js";
import { bytesOf, f32At, f64At, IntMode, joinWords, littleEndianCopy, rootOf, u32 } from "./reader.js";
import type { BytesLike } from "./reader.js";
import { fixedElement, fixedLength, isFixedVector, isKnownType, T, typedElement } from "./types.js";
import { asciiRun, mayRun } from "./runs.js";
import { KeyFault, KeyReader, pointsAt, sameKeyText, samePositions } from "./keys.js";
import { MapMaker, ShapeWriter, WRITE_AFTER, makerFor, wellFormed, writerFor } from "./shapes.js";
import { compareUtf8, readUtf8, sortUtf8 } from "./utf8.js";
import { verify } from "./verify.js";

/** Options of {@link decode}. */
export interface DecodeOptions {
  /** How integers come back (default `"auto"`: number when safe, else bigint). */
  int64?: IntMode;
  /** Deepest nesting accepted (default 64). */
  maxDepth?: number;
  /** Expansion budget (default {@link budgetFor} the input length). */
  budget?: BudgetLimits;
  /** Copy blobs out of the buffer (default true); false returns views of it. */
  copyBlobs?: boolean;
}

/** Options of {@link encode}. */
export interface EncodeOptions extends BuilderOptions {
  /** Deepest nesting accepted (default 64): cyclic objects fail instead of recursing forever. */
  maxDepth?: number;
}

/** Any value {@link encode} accepts. */
export type Encodable =
  | null | undefined | boolean | number | bigint | string | Uint8Array
  | ArrayBufferView | readonly Encodable[] | Map<string, Encodable> | { [key: string]: Encodable } | { toJSON(): unknown };

/** What {@link decode} returns. */
export type Decoded = null | boolean | number | bigint | string | Uint8Array | Decoded[] | { [key: string]: Decoded };

/** Whether two lists of key positions are the same. */
function samePositionList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A checked keys vector's keys, where each is, and the bytes charged for them. */
interface KeySet {
  readonly at: number[];
  readonly keys: string[];
  readonly bytes: number;
  /** Builds a map of these keys as one object literal (see shapes.ts), when there is one. */
  make: MapMaker | null;
  /** Buffers this set has been asked for its maker in (see {@link MAKER_TRIES}). */
  tries: number;
  /** Every key's bytes and its NUL, one after another (the proof for a later buffer). */
  readonly text: Uint8Array;
  /**
   * True until the first map of a set met for the first time is built: that
   * map gets an object in dictionary mode (see {@link dictionaryObject}).
   */
  fresh: boolean;
}

/**
 * New key sets one buffer may add to the tables shared across buffers (the
 * remembered sets and the shape table); later ones are decoded all the same.
 */
const FRESH_MAX = 256;

const NO_TEXT = new Uint8Array(0);

const EMPTY: KeySet = { at: [], keys: [], bytes: 0, make: null, tries: 0, text: NO_TEXT, fresh: false };

/**
 * An empty plain object (prototype `Object.prototype`) whose properties live
 * in a hash table (the engine's dictionary mode): deleting a property other
 * than the last one added turns an object into one, and it stays one.
 *
 * A plain `{}` given properties one by one gets a new hidden class for each
 * key set the engine has not met, each class made, cached and later
 * collected: a buffer of 5,000 maps with keys of their own (a dictionary of
 * ids in each record) decoded 3.6 µs a map, two thirds of it there and in
 * the garbage collector. Such a map is met once, so the first map of a key
 * set (its first in the process, or after its set was forgotten) is built
 * here; later maps of the set, which a record type's are, get the classes.
 */
function dictionaryObject(): { [key: string]: Decoded } {
  const o: { [key: string]: Decoded } = { a: null, b: null };
  delete o.a;
  delete o.b;
  return o;
}

/**
 * Buffers a remembered key set asks {@link makerFor} for its maker in before
 * it stops asking (the shape table compiles after fewer; a set that still
 * has none by then will not get one).
 */
const MAKER_TRIES = 8;

/**
 * Key sets remembered across buffers, by the position of their first key and
 * their length (direct-mapped, {@link SEEN_SLOTS} entries, a newer set
 * replacing an older one). Records of one kind sit at the same positions in
 * every buffer a program encodes the same way, so a keys vector whose
 * elements point where a remembered set's did, at bytes equal to that set's
 * (compared one by one, NULs included), has that set's keys: the same valid
 * UTF-8, in the same order.
 */
const SEEN_BITS = 10;
const SEEN_SLOTS = 1 << SEEN_BITS;
/** Largest key set remembered: keys, and bytes of key text (bounds what the table holds on to). */
const SEEN_MAX_KEYS = 256;
const SEEN_MAX_TEXT = 4096;
const seen: (KeySet | undefined)[] = new Array(SEEN_SLOTS).fill(undefined);

/** True when the `len` type bytes from `types` (at least one) are all floats'. */
function allFloats(u8: Uint8Array, types: number, len: number): boolean {
  if (len === 0) return false;
  for (let i = 0; i < len; i++) if (u8[types + i] >> 2 !== T.Float) return false;
  return true;
}

/** Forgets every key set remembered across buffers (tests). */
export function forgetKeySets(): void {
  seen.fill(undefined);
}

function seenSlot(first: number, len: number): number {
  return Math.imul(first ^ (len << 20), 0x9e3779b1) >>> (32 - SEEN_BITS);
}

const TWO32 = 4294967296;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;


/** One decode pass over one buffer. */
class Decoder {
  readonly u8: Uint8Array;
  private view: DataView | null = null;
  /**
   * Floats read by copying their bytes before {@link dv} is made: a
   * `DataView` costs about 65 ns to make (Node 20), more than the decode of
   * a small message's few floats; a buffer of many floats reads the rest
   * through it, whose loads are cheaper than the copy.
   */
  private floatsBeforeView = 4;
  readonly n: number;
  readonly mode: IntMode;
  readonly maxDepth: number;
  readonly copy: boolean;
  nodes: number;
  bytes: number;
  /**
   * Key sets already decoded (and checked), by the position of their first
   * key: where each key is, their strings, and the bytes charged for them.
   */
  readonly keySets = new Map<number, KeySet>();
  /**
   * The same key sets by a hash of every key's position and their number,
   * for maps whose first key is shared by several key sets (dictionaries
   * of a few keys from a fixed vocabulary: labels, counters), which the
   * table by first key keeps only the latest of.
   */
  readonly keySetsByPositions = new Map<number, KeySet>();
  /** Key sets decoded from their keys in this buffer (see {@link FRESH_MAX}). */
  private freshSets = 0;
  /** Keys, through the table shared by every decoder (see keys.ts). */
  readonly keyReader = new KeyReader();

  constructor(u8: Uint8Array, o: DecodeOptions) {
    this.u8 = u8;
    this.n = u8.length;
    this.mode = o.int64 ?? "auto";
    this.maxDepth = depthLimit(o.maxDepth);
    this.copy = o.copyBlobs ?? true;
    const budget = o.budget ?? budgetFor(u8.length);
    this.nodes = budget.maxNodes;
    this.bytes = budget.maxBytes;
  }

  // Offsets, sizes and integers come from the Uint8Array with 32-bit
  // arithmetic; DataView and BigInt only for floats and values beyond 2^53.
  /** Little-endian view of the bytes, made on first use (bigints only). */
  get dv(): DataView {
    const u8 = this.u8;
    return this.view ?? (this.view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength));
  }

  uint(pos: number, w: number): number {
    if (pos < 0 || pos + w > this.n) throw fail("Truncated", "read past the end of the buffer", pos);
    const u8 = this.u8;
    switch (w) {
      case 1: return u8[pos];
      case 2: return u8[pos] | (u8[pos + 1] << 8);
      case 4: return u32(u8, pos);
      default: {
        const dv = this.dv;
        return joinWords(dv.getUint32(pos + 4, true), dv.getUint32(pos, true));
      }
    }
  }

  follow(pos: number, w: number): number {
    const off = this.uint(pos, w);
    if (off > pos) throw fail("OffsetOutOfBounds", "offset points before the buffer", pos);
    return pos - off;
  }

  int(pos: number, w: number): number | bigint {
    if (pos < 0 || pos + w > this.n) throw fail("Truncated", "read past the end of the buffer", pos);
    const u8 = this.u8;
    let v: number;
    switch (w) {
      case 1: v = (u8[pos] << 24) >> 24; break;
      case 2: v = ((u8[pos] | (u8[pos + 1] << 8)) << 16) >> 16; break;
      case 4: v = u8[pos] | (u8[pos + 1] << 8) | (u8[pos + 2] << 16) | (u8[pos + 3] << 24); break;
      default: {
        const dv = this.dv;
        const hi = dv.getInt32(pos + 4, true);
        if (this.mode === "auto" ? hi > 0x1fffff || hi < -0x200000 : this.mode === "bigint") {
          return dv.getBigInt64(pos, true);
        }
        v = joinWords(hi, dv.getUint32(pos, true));
        if (this.mode === "auto" && !Number.isSafeInteger(v)) return dv.getBigInt64(pos, true);
        if (this.mode === "number" && (hi > 0x1fffff || hi < -0x200000)) v = Number(dv.getBigInt64(pos, true));
      }
    }
    return this.mode === "bigint" ? BigInt(v) : v;
  }

  uintv(pos: number, w: number): number | bigint {
    if (w === 8) {
      if (pos + 8 > this.n) throw fail("Truncated", "read past the end of the buffer", pos);
      const hi = u32(this.u8, pos + 4);
      if (this.mode === "bigint" || (this.mode === "auto" && hi > 0x1fffff)) return this.dv.getBigUint64(pos, true);
      if (hi > 0x1fffff) return Number(this.dv.getBigUint64(pos, true));
      return joinWords(hi, u32(this.u8, pos));
    }
    const v = this.uint(pos, w);
    return this.mode === "bigint" ? BigInt(v) : v;
  }

  float(pos: number, w: number): number {
    if (w !== 4 && w !== 8) throw fail("BadWidth", `a float cannot be ${w} bytes wide`, pos);
    if (pos < 0 || pos + w > this.n) throw fail("Truncated", "read past the end of the buffer", pos);
    // A DataView load: the optimizing compiler makes it one unaligned load,
    // where copying the bytes into a scratch array and reading them back as
    // a float stalls on the narrower stores (deep_nesting decode 1.06x).
    // Only the first few floats of a buffer are copied, before a view exists.
    if (this.view === null && this.floatsBeforeView > 0) {
      this.floatsBeforeView--;
      return w === 4 ? f32At(this.u8, pos) : f64At(this.u8, pos);
    }
    return w === 4 ? this.dv.getFloat32(pos, true) : this.dv.getFloat64(pos, true);
  }

  /** Length prefix of the sized data at `data`, bounds-checked for `len * unit + extra` bytes. */
  size(data: number, w: number, unit: number, extra: number): number {
    if (data < w) throw fail("OffsetOutOfBounds", "size prefix before the buffer", data);
    const len = this.uint(data - w, w);
    if (data + len * unit + extra > this.n) throw fail("SizeOutOfBounds", "data runs past the end", data - w);
    return len;
  }

  str(at: number, len: number): string {
    if ((this.bytes -= len) < 0) throw budgetExceeded(at);
    const s = readUtf8(this.u8, at, len);
    if (s === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", at);
    return s;
  }

  key(at: number): string {
    if (at >= this.n) throw fail("OffsetOutOfBounds", "key outside the buffer", at);
    const r = this.keyReader;
    const k = r.read(this.u8, at);
    if (k === undefined && r.fault === KeyFault.MissingNul) throw fail("MissingNul", "key without a terminating NUL", at);
    // The budget is charged before invalid UTF-8 is reported (as the checks ran before keys were shared).
    if ((this.bytes -= r.len) < 0) throw budgetExceeded(at);
    if (k === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", at);
    return k;
  }

  /**
   * Decoded keys of the keys vector at `at` (width `kw`, `len` keys), checked
   * once per key set: maps of one shape each have their own keys vector, but
   * (keys being stored once per buffer) its elements point at the same keys,
   * so a keys vector whose elements point where a checked one's did gives
   * back that one's strings after comparing positions only.
   */
  keys(at: number, kw: number, len: number, types: number): KeySet {
    if (at + len * kw > this.n) throw fail("SizeOutOfBounds", "keys vector runs past the end", at);
    if (len === 0) return EMPTY;
    const first = this.follow(at, kw);
    const known = this.keySets.get(first);
    if (known !== undefined && known.keys.length === len && samePositions(this.u8, at, kw, known.at)) {
      if ((this.bytes -= known.bytes) < 0) throw budgetExceeded(at);
      return known;
    }
    const slot = seenSlot(first, len);
    const earlier = seen[slot];
    if (earlier !== undefined && earlier.keys.length === len && samePositions(this.u8, at, kw, earlier.at) && sameKeyText(this.u8, earlier.at, earlier.text)) {
      if ((this.bytes -= earlier.bytes) < 0) throw budgetExceeded(at);
      if (earlier.make === null && earlier.tries < MAKER_TRIES) {
        earlier.tries++;
        earlier.make = makerFor(earlier.keys, this.u8, types);
      }
      this.keySets.set(first, earlier);
      return earlier;
    }
    // Where every element points (read only, unchecked: the vector is in
    // bounds, a position may not be), then the set of exactly those
    // positions met earlier in this buffer, if any: the same positions
    // hold the same keys, checked when that set was read. Anything else
    // takes the checked path below, which reports faults in key order.
    const positions: number[] = new Array(len);
    let h = len;
    for (let i = 0; i < len; i++) {
      const k = pointsAt(this.u8, at + i * kw, kw);
      positions[i] = k;
      h = (Math.imul(h ^ k, 0x9e3779b1) + i) | 0;
    }
    const byPositions = this.keySetsByPositions.get(h);
    if (byPositions !== undefined && samePositionList(byPositions.at, positions)) {
      if ((this.bytes -= byPositions.bytes) < 0) throw budgetExceeded(at);
      this.keySets.set(first, byPositions);
      return byPositions;
    }
    const before = this.bytes;
    const out: string[] = new Array(len);
    let prevAt = -1;
    let textLen = 0;
    for (let i = 0; i < len; i++) {
      const k = i === 0 ? first : this.follow(at + i * kw, kw);
      positions[i] = k;
      out[i] = this.key(k);
      textLen += this.keyReader.len + 1;
      if (prevAt >= 0 && this.keyOrder(prevAt, k) >= 0) {
        throw fail("UnsortedKeys", "map keys are not strictly ascending", at + i * kw);
      }
      prevAt = k;
    }
    // Past FRESH_MAX new key sets in one buffer, the rest are taken for
    // one-offs (the keys of a dictionary in each record): neither remembered
    // for later buffers nor counted towards a maker, whose bookkeeping (a
    // copy of the key bytes, an entry in the shape table that fills and is
    // swept) was most of the cost of such a map after its object.
    const counted = ++this.freshSets <= FRESH_MAX;
    const remember = counted && len <= SEEN_MAX_KEYS && textLen <= SEEN_MAX_TEXT;
    const text = remember ? new Uint8Array(textLen) : NO_TEXT;
    if (remember) {
      const u8 = this.u8;
      for (let i = 0, o = 0; i < len; i++) {
        // Each key was checked to end with a NUL inside the buffer.
        let p = positions[i];
        while (u8[p] !== 0) text[o++] = u8[p++];
        text[o++] = 0;
      }
    }
    const make = counted ? makerFor(out, this.u8, types) : null;
    const set: KeySet = { at: positions, keys: out, bytes: before - this.bytes, make, tries: 1, text, fresh: true };
    this.keySets.set(first, set);
    this.keySetsByPositions.set(h, set);
    if (remember) seen[slot] = set;
    return set;
  }

  keyOrder(a: number, b: number): number {
    const u8 = this.u8;
    for (;;) {
      const x = u8[a++];
      const y = u8[b++];
      if (x !== y || x === 0) return x - y;
    }
  }

  value(slot: number, pw: number, packed: number, depth: number): Decoded {
    if (--this.nodes < 0) throw budgetExceeded(slot);
    const t = packed >> 2;
    switch (t) {
      case T.Null: return null;
      case T.Bool: return this.uint(slot, pw) !== 0;
      case T.Int: return this.int(slot, pw);
      case T.UInt: return this.uintv(slot, pw);
      case T.Float: return this.float(slot, pw);
      case T.String: return this.string(slot, pw, packed);
      case T.Map: return this.map(this.follow(slot, pw), 1 << (packed & 3), depth + 1);
      case T.Vector: return this.vector(this.follow(slot, pw), 1 << (packed & 3), depth + 1);
      case T.Key: return this.key(this.follow(slot, pw));
      case T.IndirectInt: return this.int(this.follow(slot, pw), 1 << (packed & 3));
      case T.IndirectUInt: return this.uintv(this.follow(slot, pw), 1 << (packed & 3));
      case T.IndirectFloat: return this.float(this.follow(slot, pw), 1 << (packed & 3));
      case T.Blob: {
        const at = this.follow(slot, pw);
        const len = this.size(at, 1 << (packed & 3), 1, 0);
        if ((this.bytes -= len) < 0) throw budgetExceeded(at);
        // A copy even when the input is a Node Buffer (whose slice is a view).
        return this.copy ? new Uint8Array(this.u8.subarray(at, at + len)) : this.u8.subarray(at, at + len);
      }
      default:
        if (!isKnownType(t)) throw fail("UnknownType", `unknown type code ${t}`, slot);
        return this.typed(this.follow(slot, pw), t, 1 << (packed & 3), depth + 1);
    }
  }

  /** The string in `slot` (type byte `packed`), node already charged. */
  string(slot: number, pw: number, packed: number): string {
    const w = 1 << (packed & 3);
    const at = this.follow(slot, pw);
    const len = this.size(at, w, 1, 1);
    if (this.u8[at + len] !== 0) throw fail("MissingNul", "string without its NUL", at + len);
    if ((this.bytes -= len) < 0) throw budgetExceeded(at);
    // Decoded at every reference, each charged to the budget. A cache by
    // position (for strings a builder shared) cost more than it saved: most
    // strings below the highest position read so far are no references
    // back but values of records whose fields were not written in key
    // order, and each went through the cache (without it, the decode of
    // twitter.json and gsoc-2018.json is 1.5x faster, of apache_builds.json
    // 1.4x, on Node 20). A string a hostile buffer references over and over
    // is thus decoded each time: the budget's bytes bound the total, as its
    // nodes bound the arrays of a vector read at each reference (a table
    // for strings of 64 bytes or more only kept 20,000 references to one
    // 4 KB string to one decode, 3-5 ms against 66 ms to reach the budget,
    // but cost 4-6% on github_events.json, so it was not kept).
    const s = readUtf8(this.u8, at, len);
    if (s === undefined) throw fail("InvalidUtf8", "string is not valid UTF-8", at);
    return s;
  }

  /** {@link value} of a slot whose type byte `packed` is a string's (for makers). */
  strv(slot: number, pw: number, packed: number): string {
    if (--this.nodes < 0) throw budgetExceeded(slot);
    return this.string(slot, pw, packed);
  }

  /** {@link value} of a slot whose type is an integer (for makers). */
  intv(slot: number, pw: number): number | bigint {
    if (--this.nodes < 0) throw budgetExceeded(slot);
    return this.int(slot, pw);
  }

  /** {@link value} of a slot whose type is a float (for makers). */
  floatv(slot: number, pw: number): number {
    if (--this.nodes < 0) throw budgetExceeded(slot);
    return this.float(slot, pw);
  }

  map(at: number, w: number, depth: number): { [key: string]: Decoded } {
    if (depth > this.maxDepth) throw fail("DepthLimit", `nesting deeper than ${this.maxDepth}`, at);
    const len = this.size(at, w, w + 1, 0);
    const prefix = at - 3 * w;
    if (prefix < 0) throw fail("OffsetOutOfBounds", "map prefix before the buffer", at);
    const keysAt = this.follow(prefix, w);
    const kw = this.uint(prefix + w, w);
    if (kw !== 1 && kw !== 2 && kw !== 4 && kw !== 8) throw fail("BadWidth", `keys width ${kw}`, prefix + w);
    const klen = this.size(keysAt, kw, kw, 0);
    if (klen !== len) throw fail("KeyValueLengthMismatch", `${klen} keys for ${len} values`, at);
    const types = at + len * w;
    const set = this.keys(keysAt, kw, len, types);
    if (set.make !== null) {
      const made = set.make(this, at, w, types, depth) as { [key: string]: Decoded };
      if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
      return made;
    }
    const keys = set.keys;
    let out: { [key: string]: Decoded };
    if (set.fresh) {
      set.fresh = false;
      out = dictionaryObject();
    } else {
      out = {};
    }
    const u8 = this.u8;
    if (this.nodes >= len && mayRun(u8, at, w, len)) {
      // Values that are all ASCII strings laid out together (a dictionary of
      // strings): one text decode, charged as the vector path charges it.
      const values: Decoded[] = new Array(len);
      const bytes = asciiRun(u8, at, w, len, this.bytes, values);
      if (bytes >= 0) {
        this.nodes -= len;
        this.bytes -= bytes;
        for (let i = 0; i < len; i++) {
          const k = keys[i];
          if (k === "__proto__") Object.defineProperty(out, k, { value: values[i], enumerable: true, writable: true, configurable: true });
          else out[k] = values[i];
        }
        if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
        return out;
      }
    }
    for (let i = 0; i < len; i++) {
      const k = keys[i];
      let v: Decoded;
      try {
        v = this.value(at + i * w, w, u8[types + i], depth);
      } catch (e) {
        throw e instanceof FlexError ? e.within(k) : e;
      }
      if (k === "__proto__") Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      else out[k] = v;
    }
    if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
    return out;
  }

  vector(at: number, w: number, depth: number): Decoded[] {
    if (depth > this.maxDepth) throw fail("DepthLimit", `nesting deeper than ${this.maxDepth}`, at);
    const len = this.size(at, w, w + 1, 0);
    const types = at + len * w;
    const u8 = this.u8;
    if (len < 8 && w >= 4 && this.nodes >= len && allFloats(u8, types, len)) {
      this.nodes -= len;
      if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
      return this.smallFloats(at, w, len);
    }
    if (len <= 3 && len > 0) return this.smallVector(at, w, len, types, depth);
    const out: Decoded[] = new Array(len);
    if (len >= 8 && this.numbers(at, w, len, out)) {
      if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
      return out;
    }
    if (len >= 8 && this.nodes >= len) {
      // All ASCII strings laid out together: one text decode (see asciiRun).
      const bytes = asciiRun(u8, at, w, len, this.bytes, out);
      if (bytes >= 0) {
        this.nodes -= len;
        this.bytes -= bytes;
        if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
        return out;
      }
    }
    for (let i = 0; i < len; i++) {
      try {
        out[i] = this.value(at + i * w, w, u8[types + i], depth);
      } catch (e) {
        throw e instanceof FlexError ? e.within(i) : e;
      }
    }
    if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
    return out;
  }

  /**
   * The untyped vector of `len` (1 to 3) elements at `at` (types at
   * `types`) as an array literal of its decoded elements, with the walk's
   * charges and errors: pairs and singletons (`[id, [..]]`, `[x]`) are
   * common, and a `new Array(len)` filled element by element starts holey
   * and changes element kind as it fills (a list of 20,000 `[i, [i, [i]]]`
   * decoded about twice as fast on Node 20 this way).
   */
  private smallVector(at: number, w: number, len: number, types: number, depth: number): Decoded[] {
    const u8 = this.u8;
    let i = 0;
    let out: Decoded[];
    try {
      const a = this.value(at, w, u8[types], depth);
      if (len === 1) {
        out = [a];
      } else {
        i = 1;
        const b = this.value(at + w, w, u8[types + 1], depth);
        if (len === 2) {
          out = [a, b];
        } else {
          i = 2;
          out = [a, b, this.value(at + 2 * w, w, u8[types + 2], depth)];
        }
      }
    } catch (e) {
      throw e instanceof FlexError ? e.within(i) : e;
    }
    if ((this.bytes -= 2) < 0) throw budgetExceeded(at);
    return out;
  }



  /**
   * The `len` (1 to 7) floats of `w` (4 or 8) bytes from `at` (in bounds:
   * the vector's size was checked) as an array built whole. Coordinates
   * (GeoJSON's pairs), vectors and matrices rows: one array literal holds
   * its doubles unboxed from the start, where filling a `new Array(len)`
   * through `value` boxed every element as a heap number and moved the
   * array through two element kinds (canada.json, all coordinate pairs,
   * decoded about 2.5x faster on Node 20).
   */
  private smallFloats(at: number, w: number, len: number): Decoded[] {
    const dv = this.dv;
    if (w === 8) {
      switch (len) {
        case 1: return [dv.getFloat64(at, true)];
        case 2: return [dv.getFloat64(at, true), dv.getFloat64(at + 8, true)];
        case 3: return [dv.getFloat64(at, true), dv.getFloat64(at + 8, true), dv.getFloat64(at + 16, true)];
        default: {
          const out = [dv.getFloat64(at, true), dv.getFloat64(at + 8, true), dv.getFloat64(at + 16, true), dv.getFloat64(at + 24, true)];
          for (let i = 4; i < len; i++) out.push(dv.getFloat64(at + 8 * i, true));
          return out;
        }
      }
    }
    const out = [dv.getFloat32(at, true)];
    for (let i = 1; i < len; i++) out.push(dv.getFloat32(at + 4 * i, true));
    return out;
  }

  /**
   * Fills `out` with the elements of the untyped vector at `at` in bulk when
   * they are all floats, or all integers in the "auto" mode (the JSON path
   * writes numeric arrays as untyped vectors), and returns true; returns
   * false, having read nothing, for any other vector. An inline scalar is
   * read at the vector's width whatever its type byte's width bits say, so
   * only the types are compared. The result and the budget charged are the
   * per-element walk's.
   */
  numbers(at: number, w: number, len: number, out: Decoded[]): boolean {
    const u8 = this.u8;
    const types = at + len * w;
    const t0 = u8[types] >> 2;
    const ints = (t0 === T.Int || t0 === T.UInt) && this.mode === "auto";
    // A float narrower than 4 bytes is an error, which the walk reports.
    if (t0 === T.Float ? w < 4 : !ints) return false;
    if (this.nodes < len) return false;
    for (let i = 1; i < len; i++) if (u8[types + i] >> 2 !== t0) return false;
    if (w < 4) {
      // One- and two-byte integers (indices, small counts) read in place.
      this.nodes -= len;
      this.narrowInts(at, w, len, t0 === T.Int, out);
      return true;
    }
    const copy = littleEndianCopy(u8, at, len * w);
    if (copy === null) return false;
    this.nodes -= len;
    if (ints) this.bulkInts(copy, at, w, len, t0 === T.Int, out);
    else if (w === 8) {
      const a = new Float64Array(copy, 0, len);
      for (let i = 0; i < len; i++) out[i] = a[i];
    } else {
      const a = new Float32Array(copy, 0, len);
      for (let i = 0; i < len; i++) out[i] = a[i];
    }
    return true;
  }

  /** `len` integers of `w` (1 or 2) bytes at `at` into `out`, as {@link int} and {@link uint} read them. */
  narrowInts(at: number, w: number, len: number, signed: boolean, out: Decoded[]): void {
    const u8 = this.u8;
    if (w === 1) {
      if (signed) for (let i = 0; i < len; i++) out[i] = (u8[at + i] << 24) >> 24;
      else for (let i = 0; i < len; i++) out[i] = u8[at + i];
      return;
    }
    for (let i = 0, p = at; i < len; i++, p += 2) {
      const v = u8[p] | (u8[p + 1] << 8);
      out[i] = signed ? (v << 16) >> 16 : v;
    }
  }

  /**
   * `len` integers of `w` (2, 4 or 8) bytes from `copy` (a little-endian
   * copy of the vector at `at`) into `out`, in the "auto" mode: safe
   * integers as numbers, every other value through {@link int} /
   * {@link uintv}, which make it a bigint.
   */
  bulkInts(copy: ArrayBufferLike, at: number, w: number, len: number, signed: boolean, out: Decoded[]): void {
    if (w === 2 || w === 4) {
      const a = w === 2 ? (signed ? new Int16Array(copy, 0, len) : new Uint16Array(copy, 0, len))
        : signed ? new Int32Array(copy, 0, len) : new Uint32Array(copy, 0, len);
      for (let i = 0; i < len; i++) out[i] = a[i];
      return;
    }
    const words = new Uint32Array(copy, 0, 2 * len);
    for (let i = 0; i < len; i++) {
      const hi = words[2 * i + 1];
      // Exact whenever |value| < 2^53; anything larger takes the checked read.
      const v = (signed ? hi | 0 : hi) * TWO32 + words[2 * i];
      out[i] = v >= -MAX_SAFE && v <= MAX_SAFE ? v : signed ? this.int(at + i * 8, 8) : this.uintv(at + i * 8, 8);
    }
  }

  typed(at: number, t: number, w: number, depth: number): Decoded[] {
    if (depth > this.maxDepth) throw fail("DepthLimit", `nesting deeper than ${this.maxDepth}`, at);
    let elem: number;
    let len: number;
    if (isFixedVector(t)) {
      elem = fixedElement(t);
      len = fixedLength(t);
      if (at + len * w > this.n) throw fail("SizeOutOfBounds", "vector runs past the end", at);
    } else {
      elem = typedElement(t);
      len = this.size(at, w, w, 0);
    }
    if ((this.nodes -= len) < 0) throw budgetExceeded(at);
    const out: Decoded[] = new Array(len);
    if (len === 0) return out;
    // Bulk reads: the typed vector checked in bounds above, copied once on
    // little-endian hosts (see littleEndianCopy) and read through a view.
    const copy = w === 1 || (elem !== T.Int && elem !== T.UInt && elem !== T.Float) ? null : littleEndianCopy(this.u8, at, len * w);
    switch (elem) {
      case T.Int:
        if (copy !== null && this.mode === "auto") this.bulkInts(copy, at, w, len, true, out);
        else for (let i = 0; i < len; i++) out[i] = this.int(at + i * w, w);
        break;
      case T.UInt:
        if (copy !== null && this.mode === "auto") this.bulkInts(copy, at, w, len, false, out);
        else for (let i = 0; i < len; i++) out[i] = this.uintv(at + i * w, w);
        break;
      case T.Float:
        if (copy !== null && w === 8) {
          const a = new Float64Array(copy, 0, len);
          for (let i = 0; i < len; i++) out[i] = a[i];
        } else if (copy !== null && w === 4) {
          const a = new Float32Array(copy, 0, len);
          for (let i = 0; i < len; i++) out[i] = a[i];
        } else if (w === 8) for (let i = 0; i < len; i++) out[i] = f64At(this.u8, at + i * 8);
        else for (let i = 0; i < len; i++) out[i] = this.float(at + i * w, w);
        break;
      case T.Bool:
        for (let i = 0; i < len; i++) out[i] = this.uint(at + i * w, w) !== 0;
        break;
      default:
        for (let i = 0; i < len; i++) out[i] = this.key(this.follow(at + i * w, w));
    }
    return out;
  }
}

/**
 * Decodes a whole buffer into plain JavaScript values, checking everything it
 * reads (safe on untrusted bytes; see the module notes for the mapping).
 */
export function decode(bytes: BytesLike, options: DecodeOptions = {}): Decoded {
  const u8 = bytesOf(bytes);
  const d = new Decoder(u8, options);
  try {
    const [slot, w, packed] = rootOf(u8);
    return d.value(slot, w, packed, 0);
  } catch (e) {
    // Bytes the verifier rejects fail with its error (kind, offset, path), as
    // Python's `loads` and every verifier here report them: a cycle, which the
    // decoder alone sees only as nesting past its limit, is a `Cycle`, and a
    // broken buffer whose sharing exhausts the budget before the break is
    // reached is reported broken. Only the failure pays for the second pass.
    if (e instanceof FlexError) verify(u8, { maxDepth: d.maxDepth });
    throw e;
  }
}

// ---- encode -------------------------------------------------------------------

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

/** Pushes `v` onto `b` as one value (see the module notes for the mapping). */
export function pushValue(b: Builder, v: unknown, maxDepth = 64): void {
  push(b, v, 0, depthLimit(maxDepth));
}

function push(b: Builder, v: unknown, depth: number, maxDepth: number): void {
  switch (typeof v) {
    case "string":
      b.string(v);
      return;
    case "number":
      if (isIntElement(v)) b.int(v);
      else b.double(v);
      return;
    case "boolean":
      b.bool(v);
      return;
    case "bigint":
      if (v >= I64_MIN && v <= I64_MAX) b.int(v);
      else b.uint(v);
      return;
    case "undefined":
      b.null();
      return;
    case "object":
      break;
    default:
      throw fail("Unsupported", `cannot encode a ${typeof v}`);
  }
  if (v === null) {
    b.null();
    return;
  }
  if (depth >= maxDepth) throw fail("DepthLimit", `nesting deeper than ${maxDepth} (cyclic object?)`);
  if (Array.isArray(v)) {
    if (v.length === 0) {
      b.emptyVector();
      return;
    }
    if (v.length >= 8 && typeof v[0] === "number" && allNumbers(v)) {
      // The same bytes as pushing each, in one pass.
      b.numberVector(v as number[]);
      return;
    }
    b.startVector();
    if (v.length >= 8 && typeof v[0] === "string" && allStrings(v)) {
      // The same bytes as pushing each, in one write when they are ASCII.
      b.strings(v as string[]);
      b.endVector();
      return;
    }
    for (let i = 0; i < v.length; i++) {
      const e = v[i];
      const te = typeof e;
      if (te === "function" || te === "symbol") b.null();
      else push(b, e, depth + 1, maxDepth);
    }
    b.endVector();
    return;
  }
  if (ArrayBuffer.isView(v)) {
    pushView(b, v);
    return;
  }
  if (v instanceof Map) {
    pushMap(b, v, depth, maxDepth);
    return;
  }
  const o = v as { [k: string]: unknown; toJSON?: () => unknown; entries?: unknown };
  if (typeof o.toJSON === "function") {
    push(b, o.toJSON(), depth, maxDepth);
    return;
  }
  if (typeof o.entries === "function" && isMap(o)) {
    // A Map of another realm (an iframe, a `vm` context): `instanceof`
    // does not see it, and its entries are no own properties.
    pushMap(b, o, depth, maxDepth);
    return;
  }
  let keys: readonly string[] = Object.keys(o);
  if (keys.length === 0) {
    b.emptyMap();
    return;
  }
  b.startMap();
  // One key is ascending by itself. (Ending it with `endMap` put a call in
  // `push` that documents without one-key objects never reach: V8 then
  // optimized `push` without it and threw that code away at the first
  // such object, and canada.json's encode ran at 14 ms instead of 5.5 in
  // about one run in three after another document.)
  let ascending = true;
  if (keys.length > 1) {
    const shape = shapeOf(keys);
    if (shape.write !== null) {
      shape.write(b, o, depth + 1, maxDepth, push);
      return;
    }
    keys = shape.sorted;
    ascending = shape.ascending;
  }
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const e = o[k];
    const te = typeof e;
    if (te === "undefined" || te === "function" || te === "symbol") continue;
    b.key(k);
    push(b, e, depth + 1, maxDepth);
  }
  // Keys in wire order, each once (an object's own keys): no order check needed.
  if (ascending) b.endMapAscending();
  else b.endMap();
}

/** Pushes the entries of a `Map` (string keys only) as a map. */
function pushMap(b: Builder, m: Map<unknown, unknown>, depth: number, maxDepth: number): void {
  b.startMap();
  for (const [k, e] of m) {
    if (typeof k !== "string") throw fail("Unsupported", "map keys must be strings");
    const te = typeof e;
    if (te === "undefined" || te === "function" || te === "symbol") continue;
    b.key(k);
    push(b, e, depth + 1, maxDepth);
  }
  b.endMap();
}

/** True when `o` is a `Map` of any realm (its internal slot, which `Map.prototype.has` checks). */
function isMap(o: object): o is Map<unknown, unknown> {
  // The tag first, so objects of other classes with an `entries` method
  // (a `Set`, `Headers`, the caller's collections) cost no exception.
  if (Object.prototype.toString.call(o) !== "[object Map]") return false;
  try {
    Map.prototype.has.call(o, undefined);
    return true;
  } catch {
    return false;
  }
}

function allNumbers(v: unknown[]): boolean {
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "number") return false;
  return true;
}

function allStrings(v: unknown[]): boolean {
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
  return true;
}

/** A remembered object shape: its keys in insertion order and in wire order, and its compiled writer. */
interface Shape {
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  /**
   * Keys pushed in `sorted` order are written strictly ascending (none has a
   * lone surrogate, see `wellFormed`): the map needs no order check.
   */
  readonly ascending: boolean;
  /** Objects of this shape met (counts up to {@link WRITE_AFTER}). */
  seen: number;
  /** The compiled writer, once the shape was met often enough (`null` until then, or when it cannot be compiled). */
  write: ShapeWriter | null;
}

/** A shape met for the first time (`seen` 1), or not remembered (`seen` 0). */
function newShape(keys: readonly string[], sorted: readonly string[], ascending: boolean, seen: number): Shape {
  return { keys, sorted, ascending, seen, write: null };
}

// V8 treats a field that has only ever held its first value as a constant,
// and a field that has only held `null` as holding nothing else: code
// optimized on those assumptions is thrown away when the first shape counts
// up or gets its writer, which happens during the second encode. Node then
// sometimes left `push` unoptimized for seconds (canada.json encoded in 15 ms
// instead of 6). Changing both fields of a throwaway shape now, before
// anything is optimized, leaves nothing to throw away later.
{
  const warm = newShape([], [], true, 0);
  warm.seen = 1;
  warm.write = (): void => {};
}

/** Sorted key lists of recently seen object shapes, by first key (bounded). */
const ORDERS = new Map<string, Shape[]>();
const ORDERS_MAX = 256;
/** Shapes remembered per first key (records of several types often start with the same key, such as `id`). */
const SHAPES_PER_KEY = 8;
/** Objects with more keys are not remembered (one such shape would be most of the budget below). */
const ORDER_KEYS_MAX = 4096;
/**
 * Key names held by all remembered shapes together: past it the cache starts
 * over, so it never holds more than about 16,384 names (two lists of each)
 * whatever mix of shapes passes through.
 */
const ORDER_KEYS_TOTAL = 16384;
let orderKeys = 0;
/** New shapes one encode may remember; later ones are sorted and forgotten. */
const FRESH_SHAPES_MAX = 256;
/** New shapes met in the current encode (reset by {@link encode}). */
let freshShapes = 0;

/** Forgets every remembered object shape and its writer (tests). @internal */
export function resetObjectShapes(): void {
  ORDERS.clear();
  orderKeys = 0;
}

/**
 * The shape of an object whose own enumerable keys (those `for...in` with
 * `hasOwnProperty` gives, in that order) are `keys`, at least two of them:
 * the keys in wire order, and the writer compiled for them once the shape
 * has been met {@link WRITE_AFTER} times. Objects of one shape list their
 * keys in the same order, so the sorted list is remembered: a record
 * encoded again costs one pass of comparisons instead of a sort in the
 * builder. Wide records (a row of 80 columns) are remembered too: sorting
 * them again was most of their encode.
 */
function shapeOf(keys: readonly string[]): Shape {
  const n = keys.length;
  const shapes = n > ORDER_KEYS_MAX ? undefined : ORDERS.get(keys[0]);
  if (shapes !== undefined) {
    for (let j = 0; j < shapes.length; j++) {
      const shape = shapes[j];
      const known = shape.keys;
      if (known.length !== n) continue;
      let same = true;
      for (let i = 1; i < n && same; i++) same = known[i] === keys[i];
      if (!same) continue;
      if (shape.seen < WRITE_AFTER && ++shape.seen === WRITE_AFTER) shape.write = writerFor(shape.sorted, shape.ascending);
      return shape;
    }
  }
  let sorted: readonly string[] = keys;
  for (let i = 1; i < n; i++) {
    if (compareUtf8(keys[i - 1], keys[i]) > 0) {
      sorted = sortUtf8(keys.slice());
      break;
    }
  }
  const ascending = wellFormed(sorted);
  // Past FRESH_SHAPES_MAX new shapes in one encode, the rest are taken for
  // one-offs (objects keyed by ids) and not remembered: each would push a
  // recurring shape out and be swept with the table, all for nothing.
  if (n > ORDER_KEYS_MAX || ++freshShapes > FRESH_SHAPES_MAX) return newShape(keys, sorted, ascending, 0);
  let known = shapes;
  if (orderKeys + n > ORDER_KEYS_TOTAL || (known === undefined && ORDERS.size >= ORDERS_MAX)) {
    ORDERS.clear();
    orderKeys = 0;
    known = undefined;
  }
  orderKeys += n;
  const shape = newShape(keys, sorted, ascending, 1);
  if (known !== undefined) {
    if (known.length >= SHAPES_PER_KEY) orderKeys -= known.shift()!.keys.length;
    known.push(shape);
  } else {
    ORDERS.set(keys[0], [shape]);
  }
  return shape;
}

/**
 * The name of a typed array of any realm (`Float64Array`, ...; `undefined`
 * for a `DataView`): the getter of `%TypedArray%.prototype[Symbol.toStringTag]`,
 * which reads the array's internal slot, so neither another realm (an
 * iframe, a `vm` context, where `instanceof` fails) nor a subclass that
 * overrides the tag changes it.
 */
const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag)!
  .get as (this: ArrayBufferView) => string | undefined;

/** Typed vector element kinds by typed array name (`Uint8Array` is a blob). */
const VIEW_KINDS: { readonly [name: string]: ScalarKind | undefined } = {
  Float64Array: "f64", Float32Array: "f32", Int32Array: "i32", Int16Array: "i16", Int8Array: "i8",
  Uint32Array: "u32", Uint16Array: "u16", BigInt64Array: "i64", BigUint64Array: "u64",
};

/** A typed array as a typed vector of its element type; any other view (a `Uint8Array`, a `DataView`) as a blob of its bytes. */
function pushView(b: Builder, v: ArrayBufferView): void {
  const name = typedArrayName.call(v);
  const kind = name === undefined ? undefined : VIEW_KINDS[name];
  if (kind !== undefined) b.typedVector(v as unknown as ArrayLike<number | bigint>, kind);
  else b.blob(v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

let shared: Builder | null = null;

/** Encodes a plain JavaScript value as a complete buffer (a fresh `Uint8Array`). */
export function encode(value: unknown, options?: EncodeOptions): Uint8Array {
  freshShapes = 0;
  if (options !== undefined && (options.share !== undefined || options.dedupKeyVectors !== undefined)) {
    const b = new Builder(options);
    push(b, value, 0, depthLimit(options.maxDepth));
    return b.finishView();
  }
  // Reuse one builder (its buffers and pools) across calls; a nested call
  // (from a toJSON hook) gets its own.
  let b = shared;
  shared = null;
  if (b === null) b = new Builder(sharedBuilderOptions());
  else b.clear();
  try {
    push(b, value, 0, depthLimit(options?.maxDepth));
    return b.finish();
  } finally {
    b.clear();
    shared = b;
  }
}
