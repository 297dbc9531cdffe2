/**
 * The verifier: one pass over untrusted bytes, linear in their size, with the
 * rules of the Rust core's `verify`: offsets and sizes in bounds (no overflow),
 * widths 1/2/4/8, known type codes, strings and keys UTF-8 and NUL-terminated,
 * map keys strictly ascending, keys and values of equal length, nesting at
 * most 64 deep, no cycles. Shared offsets stay linear as in the core: a
 * container, map keys vector or long string reached a second time is verified
 * again once and then remembered by (position, type), and each key position is
 * checked once; a tree-shaped buffer pays two bits per byte for this.
 */

import { depthLimit } from "./budget.js";
import { fail, FlexError } from "./error.js";
import { Buf, bytesOf, follow, keyLength, readUInt, rootSlot } from "./reader.js";
import type { BytesLike } from "./reader.js";
import { fixedElement, fixedLength, isFixedVector, isInline, isKnownType, T } from "./types.js";
import { isUtf8, readUtf8 } from "./utf8.js";

/** Verifier settings. */
export interface VerifyOptions {
  /** Deepest nesting of vectors and maps accepted (default 64; at most 1024). */
  maxDepth?: number;
  /** Reject maps whose keys are not strictly ascending (default true). */
  requireSortedKeys?: boolean;
}

/** Strings up to this many bytes are checked again at each reference (the core's `SHORT`); longer ones once per position and type. */
const SHORT_STRING = 32;

/** Memo tag of "the keys vector of a map, order checked" (no real packed type uses 0xfc-0xff). */
const MAP_KEYS = 0xfc;

class Verifier {
  readonly b: Buf;
  readonly maxDepth: number;
  readonly sorted: boolean;
  /**
   * Two bits per buffer position, the two words of each 32-position block
   * side by side: "reached" (containers, map keys vectors, long strings) and
   * "a checked key". A tree-shaped buffer reaches each node once, so this is
   * all it pays: a quarter of a byte per byte, where the table it replaced
   * held four bytes per byte.
   */
  readonly marks: Int32Array;
  /** Results of nodes reached a second time, by `position * 256 + packed`: a container's height. */
  memo: Map<number, number> | null = null;
  /** The containers being verified, by depth: one reached again is a cycle. */
  readonly openAt: Int32Array;
  readonly openPacked: Int32Array;

  constructor(b: Buf, options: VerifyOptions) {
    this.b = b;
    this.maxDepth = depthLimit(options.maxDepth);
    this.sorted = options.requireSortedKeys ?? true;
    this.marks = new Int32Array(2 * ((b.u8.length >>> 5) + 1));
    const depths = Math.max(this.maxDepth, 0) + 1;
    this.openAt = new Int32Array(depths);
    this.openPacked = new Int32Array(depths);
  }

  /** Marks `at` reached; returns whether it was already. */
  reach(at: number): boolean {
    const i = 2 * (at >>> 5);
    const mask = 1 << (at & 31);
    const was = (this.marks[i] & mask) !== 0;
    this.marks[i] |= mask;
    return was;
  }

  /** The value remembered for (`at`, `packed`), or -1. */
  recalled(at: number, packed: number): number {
    return this.memo === null ? -1 : this.memo.get(at * 256 + packed) ?? -1;
  }

  remember(at: number, packed: number, value: number): void {
    (this.memo ??= new Map()).set(at * 256 + packed, value);
  }

  value(slot: number, pw: number, packed: number, typeAt: number, depth: number): number {
    const t = packed >> 2;
    if (!isKnownType(t)) throw fail("UnknownType", `unknown type code ${t}`, typeAt);
    const w = 1 << (packed & 3);
    if (isInline(t)) {
      if (t === T.Float && pw < 4) throw fail("BadWidth", `a float cannot be ${pw} bytes wide`, slot);
      return 0;
    }
    const target = follow(this.b, slot, pw);
    switch (t) {
      case T.IndirectInt:
      case T.IndirectUInt:
      case T.IndirectFloat:
        if (t === T.IndirectFloat && w < 4) throw fail("BadWidth", `a float cannot be ${w} bytes wide`, typeAt);
        this.span(target, w, 1);
        return 0;
      case T.Key:
        this.key(target);
        return 0;
      case T.String:
      case T.Blob: {
        const len = this.size(target, w);
        const nul = t === T.String ? 1 : 0;
        this.span(target, len, 1);
        this.span(target + len, nul, 1);
        if (t === T.String) {
          if (this.b.u8[target + len] !== 0) throw fail("MissingNul", "string without its NUL", target + len);
          // A long string reached again is checked once more, then remembered.
          const again = len > SHORT_STRING && this.reach(target);
          if (again && this.recalled(target, packed) >= 0) return 0;
          if (!isUtf8(this.b.u8, target, len)) throw fail("InvalidUtf8", "string is not valid UTF-8", target);
          if (again) this.remember(target, packed, 0);
        }
        return 0;
      }
      default:
        if (isFixedVector(t)) {
          if (fixedElement(t) === T.Float && w < 4) throw fail("BadWidth", `a float cannot be ${w} bytes wide`, typeAt);
          this.depthOk(depth + 1, target);
          this.span(target, fixedLength(t), w);
          return 1;
        }
        return this.container(t, target, w, packed, depth);
    }
  }

  depthOk(level: number, at: number): void {
    if (level > this.maxDepth) throw fail("DepthLimit", `nesting deeper than ${this.maxDepth}`, at);
  }

  /**
   * Vectors (untyped and typed) and maps: verified in full the first time
   * their position is reached, and the second time (the first may have been
   * as another type, or this is a cycle), then taken from the memo.
   */
  container(t: number, target: number, w: number, packed: number, depth: number): number {
    this.depthOk(depth + 1, target);
    const again = this.reach(target);
    if (again) {
      const h = this.recalled(target, packed);
      if (h >= 0) {
        this.depthOk(depth + h, target);
        return h;
      }
      for (let d = 0; d < depth; d++) {
        if (this.openAt[d] === target && this.openPacked[d] === packed) {
          throw fail("Cycle", "a container contains itself", target);
        }
      }
    }
    this.openAt[depth] = target;
    this.openPacked[depth] = packed;
    const height = this.containerBody(t, target, w, depth);
    if (again) this.remember(target, packed, height);
    return height;
  }

  containerBody(t: number, target: number, w: number, depth: number): number {
    const len = this.size(target, w);
    let height: number;
    const u8 = this.b.u8;
    if (t === T.Vector || t === T.Map) {
      this.span(target, len, w + 1);
      let keys: [number, number] | null = null;
      if (t === T.Map) keys = this.mapKeys(target, w, len);
      let h = 0;
      for (let i = 0; i < len; i++) {
        const typeAt = target + len * w + i;
        try {
          const child = this.value(target + i * w, w, u8[typeAt], typeAt, depth + 1);
          if (child > h) h = child;
        } catch (e) {
          throw this.locate(e, keys, i);
        }
      }
      height = h + 1;
    } else if (t === T.VectorKey || t === T.VectorStringDeprecated) {
      this.span(target, len, w);
      for (let i = 0; i < len; i++) {
        const k = follow(this.b, target + i * w, w);
        try {
          this.key(k);
        } catch (e) {
          throw e instanceof FlexError ? e.within(i) : e;
        }
      }
      height = 1;
    } else if (t === T.VectorFloat && w < 4 && len > 0) {
      // No float is 1 or 2 bytes wide, but an empty vector has no element to
      // misread: the core and the C++ reference accept it (DEVIATIONS.md).
      throw fail("BadWidth", `a float cannot be ${w} bytes wide`, target);
    } else if (t === T.VectorInt || t === T.VectorUInt || t === T.VectorFloat || t === T.VectorBool) {
      this.span(target, len, w);
      height = 1;
    } else {
      throw fail("UnknownType", `type ${t} is not a container`, target);
    }
    return height;
  }

  locate(e: unknown, keys: [number, number] | null, i: number): unknown {
    if (!(e instanceof FlexError)) return e;
    if (keys) {
      try {
        const k = follow(this.b, keys[0] + i * keys[1], keys[1]);
        const n = keyLength(this.b, k);
        const name = readUtf8(this.b.u8, k, n);
        if (name !== undefined) return e.within(name);
      } catch {
        // fall through to the index
      }
    }
    return e.within(i);
  }

  mapKeys(values: number, w: number, len: number): [number, number] {
    const prefix = values - 3 * w;
    if (prefix < 0) throw fail("OffsetOutOfBounds", "map prefix before the buffer", values);
    const keys = follow(this.b, prefix, w);
    const kw = readUInt(this.b, prefix + w, w);
    if (kw !== 1 && kw !== 2 && kw !== 4 && kw !== 8) throw fail("BadWidth", `keys width ${kw}`, prefix + w);
    const klen = this.size(keys, kw);
    if (klen !== len) {
      throw fail("KeyValueLengthMismatch", `${klen} keys for ${len} values`, values);
    }
    const tag = MAP_KEYS | (kw === 1 ? 0 : kw === 2 ? 1 : kw === 4 ? 2 : 3);
    const again = this.reach(keys);
    if (again && this.recalled(keys, tag) >= 0) return [keys, kw];
    this.span(keys, klen, kw);
    const u8 = this.b.u8;
    let prev = -1;
    for (let i = 0; i < klen; i++) {
      const at = follow(this.b, keys + i * kw, kw);
      try {
        this.key(at);
      } catch (e) {
        throw e instanceof FlexError ? e.within(i) : e;
      }
      if (this.sorted && prev >= 0) {
        // Unsigned byte order, strictly ascending (strcmp on NUL-terminated
        // keys): both end in a NUL inside the buffer (checked by `key`), so
        // the loop stops at the first difference or at the first key's end,
        // with no scan for either's length.
        let j = 0;
        let x = u8[prev];
        let y = u8[at];
        while (x === y && x !== 0) {
          j++;
          x = u8[prev + j];
          y = u8[at + j];
        }
        if (x >= y) throw fail("UnsortedKeys", "map keys are not strictly ascending", keys + i * kw);
      }
      prev = at;
    }
    if (again) this.remember(keys, tag, 0);
    return [keys, kw];
  }

  /** Checks that a NUL-terminated UTF-8 key starts at `at`; each position is scanned once however many maps share the key. */
  key(at: number): void {
    const i = 2 * (at >>> 5) + 1;
    const mask = 1 << (at & 31);
    if ((this.marks[i] & mask) !== 0) return;
    const n = keyLength(this.b, at);
    if (!isUtf8(this.b.u8, at, n)) throw fail("InvalidUtf8", "key is not valid UTF-8", at);
    this.marks[i] |= mask;
  }

  size(data: number, w: number): number {
    const at = data - w;
    if (at < 0) throw fail("OffsetOutOfBounds", "size prefix before the buffer", data);
    const len = readUInt(this.b, at, w);
    if (len > this.b.u8.length) throw fail("SizeOutOfBounds", "size larger than the buffer", at);
    return len;
  }

  span(at: number, count: number, unit: number): void {
    if (at + count * unit > this.b.u8.length) throw fail("SizeOutOfBounds", "data runs past the end", at);
  }
}

/**
 * Verifies `bytes`; throws a {@link FlexError} naming the problem, its offset
 * and path. Returns the bytes for chaining.
 */
export function verify(bytes: BytesLike, options: VerifyOptions = {}): Uint8Array {
  const u8 = bytesOf(bytes);
  const b = new Buf(u8);
  const [slot, w, packed] = rootSlot(b);
  const n = u8.length;
  new Verifier(b, options).value(slot, w, packed, n - 2, 0);
  return u8;
}

/** True when `bytes` pass {@link verify}. */
export function isValid(bytes: BytesLike, options: VerifyOptions = {}): boolean {
  try {
    verify(bytes, options);
    return true;
  } catch (e) {
    if (e instanceof FlexError) return false;
    throw e;
  }
}
