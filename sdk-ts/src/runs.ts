/**
 * Vectors of ASCII strings in one text decode.
 *
 * A builder writes the strings of a vector one after the other (each with its
 * size prefix and NUL), so they usually fill one region of the buffer. When
 * every byte of that region is ASCII, one native decode of the region gives a
 * JS string whose character offsets are the byte offsets, and each element is
 * a substring of it: one call of the platform's decoder instead of one per
 * element (in browsers, where a `TextDecoder` call costs about 200 ns, and on
 * Node, where a native slice costs about 45 ns), and substrings are cheap.
 *
 * Everything is checked first, and any vector that does not fit the case
 * (an element that is not a string, a bad offset, size or NUL, a region much
 * larger than its strings, a byte that is not ASCII) is left untouched for the
 * element-by-element path, which produces the usual values and errors.
 */

import { T } from "./types.js";
import { looseText, seemsNonAscii } from "./utf8.js";

/** Fewer elements are not worth the bookkeeping. */
const RUN_MIN = 8;
/** Off only in tests, which compare the run path with the element-by-element one. */
let enabled = true;

/**
 * For tests: with `false`, {@link asciiRun} declines every vector, so every
 * decoder reads element by element (the oracle for the run path).
 */
export function useRuns(on: boolean): void {
  enabled = on;
}
/** Positions and lengths of the elements, reused between calls (grown as needed, up to RETAIN elements). */
let scratch = new Float64Array(512);
const RETAIN = 1 << 16;

/**
 * Whether {@link asciiRun} may take the untyped vector of `n` elements of
 * width `vw` at `d`: long enough, and its first element a string. A cheap
 * test for callers to make before allocating the array it fills.
 */
export function mayRun(u8: Uint8Array, d: number, vw: number, n: number): boolean {
  return n >= RUN_MIN && enabled && u8[d + n * vw] >> 2 === T.String;
}

/**
 * Decodes the untyped vector of `n` elements of width `vw` at `d` in `u8`
 * into `out` when all of them are ASCII strings laid out in one region, and
 * returns the number of string bytes read (to charge to the budget); returns
 * -1 when the vector does not qualify or its strings' bytes would exceed
 * `budget` (some of `out` may then have been written: the caller fills all
 * of it element by element). The caller checked that the vector
 * (its `n` slots and type bytes) lies inside `u8`.
 */
export function asciiRun(u8: Uint8Array, d: number, vw: number, n: number, budget: number, out: unknown[]): number {
  if (n < RUN_MIN || !enabled) return -1;
  const size = u8.length;
  const types = d + n * vw;
  const pos = n * 2 > scratch.length ? (n * 2 > RETAIN * 2 ? new Float64Array(n * 2) : (scratch = new Float64Array(n * 2))) : scratch;
  let lo = Infinity;
  let hi = -1;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const t = u8[types + i];
    if (t >> 2 !== T.String) return -1;
    const slot = d + i * vw;
    let off: number;
    if (vw === 1) off = u8[slot];
    else if (vw === 2) off = u8[slot] | (u8[slot + 1] << 8);
    else if (vw === 4) off = (u8[slot] | (u8[slot + 1] << 8) | (u8[slot + 2] << 16) | (u8[slot + 3] << 24)) >>> 0;
    else return -1;
    const sw = 1 << (t & 3);
    const at = slot - off;
    if (off > slot || sw > 4 || at < sw) return -1;
    let len = u8[at - sw];
    if (sw >= 2) len |= u8[at - sw + 1] << 8;
    if (sw === 4) len = (len | (u8[at - 2] << 16) | (u8[at - 1] << 24)) >>> 0;
    const end = at + len;
    if (end >= size || u8[end] !== 0) return -1;
    // Text with a byte outside ASCII at an element's start, middle or end
    // would be decoded for nothing: give up before decoding.
    if (len > 0 && seemsNonAscii(u8, at, len)) return -1;
    pos[2 * i] = at;
    pos[2 * i + 1] = len;
    if (at < lo) lo = at;
    if (end > hi) hi = end;
    total += len;
  }
  // Regions much larger than their strings (elements far apart, or shared
  // from elsewhere) would decode bytes for nothing.
  const limit = 2 * total + 16 * n;
  if (hi - lo > limit || total > budget) return -1;
  if (hi - lo <= CHUNK) return decodeGroup(u8, lo, hi, pos, 0, n, out) ? total : -1;
  // A large region goes in pieces: consecutive elements whose strings span at
  // most CHUNK bytes, one decode each (V8 makes strings above 128 KB in its
  // large-object space, where one 160 KB string took 150 µs against 15-20 µs
  // for the same bytes in pieces of 16-64 KB). Pieces of elements out of
  // order may overlap; the bytes decoded stay within the same bound.
  let decoded = 0;
  let g = 0;
  let glo = pos[0];
  let ghi = pos[0] + pos[1];
  for (let i = 1; i <= n; i++) {
    if (i < n) {
      const at = pos[2 * i];
      const end = at + pos[2 * i + 1];
      const nlo = at < glo ? at : glo;
      const nhi = end > ghi ? end : ghi;
      if (nhi - nlo <= CHUNK) {
        glo = nlo;
        ghi = nhi;
        continue;
      }
    }
    decoded += ghi - glo;
    if (decoded > limit || !decodeGroup(u8, glo, ghi, pos, g, i, out)) return -1;
    if (i < n) {
      g = i;
      glo = pos[2 * i];
      ghi = glo + pos[2 * i + 1];
    }
  }
  return total;
}

/** Largest region decoded in one call. */
const CHUNK = 1 << 16;

/**
 * Elements `from` to `to` (exclusive) of `pos` as substrings of one decode of
 * `u8[lo, hi)`, which holds all of them; false when that region is not all
 * ASCII (some of `out` may have been written).
 */
function decodeGroup(u8: Uint8Array, lo: number, hi: number, pos: Float64Array, from: number, to: number, out: unknown[]): boolean {
  const text = looseText(u8, lo, hi);
  // Every valid sequence of two or more bytes decodes to fewer UTF-16 units
  // than it has bytes, and every invalid byte to U+FFFD: the same length and
  // no U+FFFD mean every byte was ASCII, so offsets carry over.
  if (text.length !== hi - lo || text.indexOf("\ufffd") >= 0) return false;
  for (let i = from; i < to; i++) {
    const at = pos[2 * i] - lo;
    out[i] = text.substring(at, at + pos[2 * i + 1]);
  }
  return true;
}
