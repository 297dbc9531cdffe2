/**
 * UTF-8 without intermediate copies.
 *
 * Encoding writes straight into the caller's buffer in one pass: a JS loop for
 * short strings (no call overhead), `TextEncoder.encodeInto` for long ones.
 * Decoding validates strictly (overlong forms, surrogates, code points above
 * U+10FFFF and truncated sequences are errors), with a JS loop for short strings
 * (and, in browsers, for text outside ASCII up to 1 KB) and the platform's
 * decoder for the rest.
 */

import { HOST_LITTLE_ENDIAN } from "./types.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Node's native UTF-8 slice/write of `Buffer.prototype`, which accept any
 * `Uint8Array` and skip the `subarray` + `TextDecoder`/`TextEncoder` call
 * overhead (measured about 2x faster for 8..64-byte strings). Absent in
 * browsers and Workers, where the standard APIs serve.
 */
interface NodeBufferProto {
  utf8Slice?: (this: Uint8Array, start: number, end: number) => string;
  utf8Write?: (this: Uint8Array, s: string, offset: number, length: number) => number;
  ucs2Slice?: (this: Uint8Array, start: number, end: number) => string;
}
const nodeProto: NodeBufferProto | undefined = (globalThis as { Buffer?: { prototype: NodeBufferProto } }).Buffer?.prototype;
const utf8Slice = typeof nodeProto?.utf8Slice === "function" ? nodeProto.utf8Slice : undefined;
const utf8Write = typeof nodeProto?.utf8Write === "function" ? nodeProto.utf8Write : undefined;
/** Node's UTF-16LE slice, for strings decoded to UTF-16 units in JS (little-endian hosts only). */
const ucs2Slice = typeof nodeProto?.ucs2Slice === "function" && HOST_LITTLE_ENDIAN ? nodeProto.ucs2Slice : undefined;

/**
 * Strings shorter than this are encoded by the JS loop: on Node below 20
 * UTF-16 units (beyond, one call of its native `utf8Write` costs less: about
 * 40 ns for 16-64 ASCII characters, against 34-104 ns for the loop), in
 * browsers below 48. Measured on Node 20 and Chromium 156.
 */
const ENCODE_LOOP_MAX = utf8Write !== undefined ? 20 : 48;
/**
 * In browsers, strings of {@link ENCODE_LOOP_MAX} units up to this are still
 * encoded in JS, by {@link textLoop} (Chromium's `encodeInto` on a `subarray`
 * costs about 350-500 ns a call); longer ones go to `encodeInto`. The loop is
 * a second copy in a function of its own: routing these strings through
 * `writeUtf8`'s own loop (a threshold of 256 there) made Chromium compile that
 * loop slowly for some thresholds and some fixtures (user_profile 1.5x
 * slower), where the copy measured faster on every fixture (unicode_heavy's
 * typed encode 1.25x, user_profile 1.15x).
 */
const TEXT_LOOP_MAX = utf8Write !== undefined ? 0 : 256;
/** Strings with fewer bytes than this may be decoded by the JS loop ({@link utf8Loop}). */
const DECODE_LOOP_MAX = 64;
/** ASCII strings of at most this many bytes are decoded by {@link asciiArgs}. */
const ARGS_MAX = 32;
/**
 * Strings with fewer bytes than this are decoded in JS: on Node up to 16
 * bytes (beyond, one call of its native slice costs less than the loop: about
 * 45 ns for 16-64 bytes, against 22 ns for {@link asciiArgs} at 16 bytes and
 * 90-160 ns for {@link utf8Loop} at 24-48, measured on Node 20), elsewhere
 * below 64 (a `subarray` and a `TextDecoder` call cost more than the loop
 * for them).
 */
const LOOP_BELOW = utf8Slice !== undefined ? ARGS_MAX + 1 : DECODE_LOOP_MAX;

/**
 * Writes the UTF-8 of `s` at `at` (the caller reserved `3 * s.length` bytes) and
 * returns the number of bytes written. Lone surrogates become U+FFFD, as with
 * `TextEncoder`.
 */
export function writeUtf8(buf: Uint8Array, at: number, s: string): number {
  return writeUtf8Range(buf, at, s, 0, s.length);
}

/**
 * {@link writeUtf8} of `s.slice(from, to)`, read from `s` itself: `fromJSON`
 * writes its strings' text straight from the JSON text (a flat string).
 * Handed substrings instead (sliced or concatenated strings, another kind
 * of string to V8), the loops here were optimized for both kinds, and the
 * typed and generic encodes that share them ran 12-17% slower in any
 * process that had called `fromJSON` once (chat_thread's typed encode
 * 149-157 µs against 130-132 µs on Node; 1.3x-1.4x slower in Chromium).
 * A surrogate pair is one only within the range.
 */
export function writeUtf8Range(buf: Uint8Array, at: number, s: string, from: number, to: number): number {
  if (to - from < ENCODE_LOOP_MAX) {
    let p = at;
    for (let i = from; i < to; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        buf[p++] = c;
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 0x3f);
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = i + 1 < to ? s.charCodeAt(i + 1) : 0;
          if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            i++;
            buf[p++] = 0xf0 | (c >> 18);
            buf[p++] = 0x80 | ((c >> 12) & 0x3f);
            buf[p++] = 0x80 | ((c >> 6) & 0x3f);
            buf[p++] = 0x80 | (c & 0x3f);
            continue;
          }
          c = 0xfffd;
        }
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 0x3f);
        buf[p++] = 0x80 | (c & 0x3f);
      }
    }
    return p - at;
  }
  return writeLong(buf, at, s, from, to);
}

/**
 * {@link writeUtf8Range} for {@link ENCODE_LOOP_MAX} units or more:
 * Node's native writer, or in browsers a JS loop below {@link TEXT_LOOP_MAX}
 * units and `encodeInto` beyond (the native writers take the substring). A
 * function of its own: with this tail inside it, Chromium's optimized
 * `writeUtf8` ran its short-string loop about 4x slower (4.1 µs against 1.0
 * µs for user_profile's 37 short strings), and the typed encode of
 * user_profile took 1.4x-1.6x as long.
 */
function writeLong(buf: Uint8Array, at: number, s: string, from: number, to: number): number {
  if (to - from < TEXT_LOOP_MAX) return textLoop(buf, at, s, from, to);
  const t = from === 0 && to === s.length ? s : s.slice(from, to);
  if (utf8Write !== undefined) return utf8Write.call(buf, t, at, buf.length - at);
  // A plain view: `subarray` of the builder's subclass would look up its species.
  return encoder.encodeInto(t, new Uint8Array(buf.buffer, buf.byteOffset + at, buf.length - at)).written;
}

/**
 * The JS loop of {@link writeUtf8Range} again, for browsers' strings of
 * {@link ENCODE_LOOP_MAX} to {@link TEXT_LOOP_MAX} units (see there why a copy).
 */
function textLoop(buf: Uint8Array, at: number, s: string, from: number, to: number): number {
  let p = at;
  for (let i = from; i < to; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      buf[p++] = c;
    } else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6);
      buf[p++] = 0x80 | (c & 0x3f);
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < to ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
          i++;
          buf[p++] = 0xf0 | (c >> 18);
          buf[p++] = 0x80 | ((c >> 12) & 0x3f);
          buf[p++] = 0x80 | ((c >> 6) & 0x3f);
          buf[p++] = 0x80 | (c & 0x3f);
          continue;
        }
        c = 0xfffd;
      }
      buf[p++] = 0xe0 | (c >> 12);
      buf[p++] = 0x80 | ((c >> 6) & 0x3f);
      buf[p++] = 0x80 | (c & 0x3f);
    }
  }
  return p - at;
}

const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * `u8[lo, hi)` decoded leniently (invalid bytes become U+FFFD), in one call
 * of the platform's decoder: for callers that check the result themselves.
 */
export function looseText(u8: Uint8Array, lo: number, hi: number): string {
  if (utf8Slice !== undefined) return utf8Slice.call(u8, lo, hi);
  return platformText(lenient, u8, lo, hi);
}

/** `SharedArrayBuffer`, where the environment has it. */
const Shared: (new (n: number) => ArrayBufferLike) | undefined =
  typeof SharedArrayBuffer === "function" ? SharedArrayBuffer : undefined;

/**
 * `d.decode` of `u8[lo, hi)`. Browsers' `TextDecoder` refuses a view of a
 * `SharedArrayBuffer` (WebAssembly threads' memory, buffers shared between
 * workers) with the same `TypeError` it throws for invalid text, so valid
 * strings there were reported as invalid UTF-8: the bytes of such a view
 * are decoded from a copy. Only a failed call looks at the buffer.
 */
function platformText(d: TextDecoder, u8: Uint8Array, lo: number, hi: number): string {
  try {
    return d.decode(u8.subarray(lo, hi));
  } catch (e) {
    if (Shared === undefined || !(u8.buffer instanceof Shared)) throw e;
    return d.decode(u8.slice(lo, hi));
  }
}

/** The UTF-8 bytes of `s` as a new array (for keys and probes, not hot paths). */
export function utf8Bytes(s: string): Uint8Array {
  return encoder.encode(s);
}

/**
 * Decodes `len` bytes at `at`; returns `undefined` when they are not valid UTF-8
 * (the caller turns that into an error with its own offset).
 */
export function readUtf8(buf: Uint8Array, at: number, len: number): string | undefined {
  if (len <= ARGS_MAX) {
    const s = asciiArgs(buf, at, len);
    if (s !== undefined) return s;
  }
  if (len >= LOOP_BELOW) {
    if (ucs2Slice !== undefined && len <= WIDE_MAX && seemsNonAscii(buf, at, len)) {
      // Text with a byte outside ASCII at its start, middle or end (CJK,
      // emoji, accented Latin, ...): decoded to UTF-16 in JS and made a string
      // by Node's UTF-16 slice, about 2.6x faster than its UTF-8 slice on CJK
      // and emoji (Node 20: 360 ns against 930 ns for 255 bytes of Japanese)
      // and as fast on mostly-Latin text; ASCII keeps the UTF-8 slice.
      const units = wideUnits(len);
      const u = utf8Units(buf, at, len, units);
      return u < 0 ? undefined : ucs2Slice.call(wideBytes, 0, 2 * u);
    }
    if (utf8Slice !== undefined) {
      // Lenient native decode; U+FFFD in the result means the bytes may be
      // invalid (or hold a real U+FFFD): only then validate strictly.
      const s = utf8Slice.call(buf, at, at + len);
      if (s.indexOf("\ufffd") < 0) return s;
    } else if (len <= UNITS_TEXT_MAX && seemsNonAscii(buf, at, len)) {
      const units = wideUnits(len);
      const u = utf8Units(buf, at, len, units);
      return u < 0 ? undefined : unitsText(units, u);
    }
    try {
      return platformText(decoder, buf, at, at + len);
    } catch {
      return undefined;
    }
  }
  return utf8Loop(buf, at, len);
}

/**
 * True when the first, middle or last of the `len` (at least 1) bytes at `at`
 * is not ASCII: a cheap guess, before decoding, that text is not all ASCII.
 */
export function seemsNonAscii(buf: Uint8Array, at: number, len: number): boolean {
  return (buf[at] | buf[at + (len >> 1)] | buf[at + len - 1]) >= 0x80;
}

const fromCharCode = String.fromCharCode;

/**
 * An ASCII string of at most {@link ARGS_MAX} bytes, or `undefined` when a
 * byte is not ASCII (the caller decodes it as UTF-8 then). One
 * `String.fromCharCode` call with the bytes as arguments: no scratch array
 * and no `apply`, about twice as fast as {@link utf8Loop} for short keys and
 * values (11-22 ns against 20-54 ns for 3-16 bytes on Node 20), and for 17
 * to 32 bytes faster than Node's native `utf8Slice` (49 ns against 110 ns for
 * 24 bytes, each making its string).
 * @internal
 */
export function asciiArgs(buf: Uint8Array, at: number, len: number): string | undefined {
  switch (len) {
    case 0:
      return "";
    case 1: {
      const a = buf[at];
      return (a) < 0x80 ? fromCharCode(a) : undefined;
    }
    case 2: {
      const a = buf[at], b = buf[at + 1];
      return (a | b) < 0x80 ? fromCharCode(a, b) : undefined;
    }
    case 3: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2];
      return (a | b | c) < 0x80 ? fromCharCode(a, b, c) : undefined;
    }
    case 4: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3];
      return (a | b | c | d) < 0x80 ? fromCharCode(a, b, c, d) : undefined;
    }
    case 5: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4];
      return (a | b | c | d | e) < 0x80 ? fromCharCode(a, b, c, d, e) : undefined;
    }
    case 6: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5];
      return (a | b | c | d | e | f) < 0x80 ? fromCharCode(a, b, c, d, e, f) : undefined;
    }
    case 7: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6];
      return (a | b | c | d | e | f | g) < 0x80 ? fromCharCode(a, b, c, d, e, f, g) : undefined;
    }
    case 8: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7];
      return (a | b | c | d | e | f | g | h) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h) : undefined;
    }
    case 9: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8];
      return (a | b | c | d | e | f | g | h | i) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i) : undefined;
    }
    case 10: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8], j = buf[at + 9];
      return (a | b | c | d | e | f | g | h | i | j) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i, j) : undefined;
    }
    case 11: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8], j = buf[at + 9], k = buf[at + 10];
      return (a | b | c | d | e | f | g | h | i | j | k) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i, j, k) : undefined;
    }
    case 12: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8], j = buf[at + 9], k = buf[at + 10], l = buf[at + 11];
      return (a | b | c | d | e | f | g | h | i | j | k | l) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i, j, k, l) : undefined;
    }
    case 13: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8], j = buf[at + 9], k = buf[at + 10], l = buf[at + 11], m = buf[at + 12];
      return (a | b | c | d | e | f | g | h | i | j | k | l | m) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i, j, k, l, m) : undefined;
    }
    case 14: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8], j = buf[at + 9], k = buf[at + 10], l = buf[at + 11], m = buf[at + 12], n = buf[at + 13];
      return (a | b | c | d | e | f | g | h | i | j | k | l | m | n) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i, j, k, l, m, n) : undefined;
    }
    case 15: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8], j = buf[at + 9], k = buf[at + 10], l = buf[at + 11], m = buf[at + 12], n = buf[at + 13], o = buf[at + 14];
      return (a | b | c | d | e | f | g | h | i | j | k | l | m | n | o) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o) : undefined;
    }
    case 16: {
      const a = buf[at], b = buf[at + 1], c = buf[at + 2], d = buf[at + 3], e = buf[at + 4], f = buf[at + 5], g = buf[at + 6], h = buf[at + 7], i = buf[at + 8], j = buf[at + 9], k = buf[at + 10], l = buf[at + 11], m = buf[at + 12], n = buf[at + 13], o = buf[at + 14], p = buf[at + 15];
      return (a | b | c | d | e | f | g | h | i | j | k | l | m | n | o | p) < 0x80 ? fromCharCode(a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p) : undefined;
    }
    case 17: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16) : undefined;
    }
    case 18: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17) : undefined;
    }
    case 19: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18) : undefined;
    }
    case 20: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19) : undefined;
    }
    case 21: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20) : undefined;
    }
    case 22: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21) : undefined;
    }
    case 23: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22) : undefined;
    }
    case 24: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23) : undefined;
    }
    case 25: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24) : undefined;
    }
    case 26: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24], b25 = buf[at + 25];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24 | b25) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24, b25) : undefined;
    }
    case 27: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24], b25 = buf[at + 25], b26 = buf[at + 26];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24 | b25 | b26) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26) : undefined;
    }
    case 28: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24], b25 = buf[at + 25], b26 = buf[at + 26], b27 = buf[at + 27];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24 | b25 | b26 | b27) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27) : undefined;
    }
    case 29: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24], b25 = buf[at + 25], b26 = buf[at + 26], b27 = buf[at + 27], b28 = buf[at + 28];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24 | b25 | b26 | b27 | b28) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27, b28) : undefined;
    }
    case 30: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24], b25 = buf[at + 25], b26 = buf[at + 26], b27 = buf[at + 27], b28 = buf[at + 28], b29 = buf[at + 29];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24 | b25 | b26 | b27 | b28 | b29) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27, b28, b29) : undefined;
    }
    case 31: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24], b25 = buf[at + 25], b26 = buf[at + 26], b27 = buf[at + 27], b28 = buf[at + 28], b29 = buf[at + 29], b30 = buf[at + 30];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24 | b25 | b26 | b27 | b28 | b29 | b30) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27, b28, b29, b30) : undefined;
    }
    case 32: {
      const b0 = buf[at], b1 = buf[at + 1], b2 = buf[at + 2], b3 = buf[at + 3], b4 = buf[at + 4], b5 = buf[at + 5], b6 = buf[at + 6], b7 = buf[at + 7], b8 = buf[at + 8], b9 = buf[at + 9], b10 = buf[at + 10], b11 = buf[at + 11], b12 = buf[at + 12], b13 = buf[at + 13], b14 = buf[at + 14], b15 = buf[at + 15], b16 = buf[at + 16], b17 = buf[at + 17], b18 = buf[at + 18], b19 = buf[at + 19], b20 = buf[at + 20], b21 = buf[at + 21], b22 = buf[at + 22], b23 = buf[at + 23], b24 = buf[at + 24], b25 = buf[at + 25], b26 = buf[at + 26], b27 = buf[at + 27], b28 = buf[at + 28], b29 = buf[at + 29], b30 = buf[at + 30], b31 = buf[at + 31];
      return (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7 | b8 | b9 | b10 | b11 | b12 | b13 | b14 | b15 | b16 | b17 | b18 | b19 | b20 | b21 | b22 | b23 | b24 | b25 | b26 | b27 | b28 | b29 | b30 | b31) < 0x80 ? fromCharCode(b0, b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15, b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27, b28, b29, b30, b31) : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * The JS decoder of {@link readUtf8} for `len` below 64, with the same strict
 * rule as the verifier (exported for tests: Node never takes it past 16 bytes).
 * @internal
 */
export function utf8Loop(buf: Uint8Array, at: number, len: number): string | undefined {
  // Short strings: UTF-16 code units gathered in a reused array of exactly
  // their length, then one String.fromCharCode call: one string allocated,
  // not one per character, and no array resized. ASCII is copied as it is;
  // other text is decoded by utf8Units first.
  const end = at + len;
  const out = UNITS[len];
  let i = at;
  while (i < end) {
    const b = buf[i];
    if (b >= 0x80) break;
    out[i - at] = b;
    i++;
  }
  if (i === end) return String.fromCharCode.apply(null, out);
  const units = wideUnits(len);
  const u = utf8Units(buf, at, len, units);
  if (u < 0) return undefined;
  // unitsText's short branch, written out: calling it here measured Node's
  // typed decode of chat_thread 6-7% slower.
  const exact = UNITS[u];
  for (let j = 0; j < u; j++) exact[j] = units[j];
  return String.fromCharCode.apply(null, exact);
}

/**
 * Decodes `len` bytes at `at` as strict UTF-8 (the verifier's rule: no
 * overlong forms, surrogates, code points above U+10FFFF or truncated
 * sequences) into UTF-16 units in `out` (at least `len` long); returns how
 * many, or -1 when the bytes are not valid UTF-8.
 * @internal
 */
export function utf8Units(buf: Uint8Array, at: number, len: number, out: Uint16Array): number {
  // Continuation bytes are tested as `b ^ 0x80`, at most 0x3f exactly when
  // `b` is 0x80-0xbf (and then its six payload bits), all of a sequence in
  // one compare; surrogates as `cp & 0xf800`. Three-byte sequences (CJK and
  // most other scripts outside Latin, Greek, Cyrillic, Hebrew and Arabic)
  // come first. This loop is most of the decode of text outside ASCII: one
  // branch per test instead of one per byte measured it 12% faster on Node
  // and 15% in Chromium over unicode_heavy's strings.
  const end = at + len;
  let u = 0;
  let i = at;
  while (i < end) {
    const b = buf[i];
    if (b < 0x80) {
      out[u++] = b;
      i++;
      continue;
    }
    if ((b & 0xf0) === 0xe0) {
      if (i + 2 >= end) return -1;
      const c1 = buf[i + 1] ^ 0x80;
      const c2 = buf[i + 2] ^ 0x80;
      const cp = ((b & 0x0f) << 12) | (c1 << 6) | c2;
      if ((c1 | c2) > 0x3f || cp < 0x800 || (cp & 0xf800) === 0xd800) return -1;
      out[u++] = cp;
      i += 3;
      continue;
    }
    if (b >= 0xc2 && b <= 0xdf) {
      if (i + 1 >= end) return -1;
      const c1 = buf[i + 1] ^ 0x80;
      if (c1 > 0x3f) return -1;
      out[u++] = ((b & 0x1f) << 6) | c1;
      i += 2;
      continue;
    }
    if (b >= 0xf0 && b <= 0xf4) {
      if (i + 3 >= end) return -1;
      const c1 = buf[i + 1] ^ 0x80;
      const c2 = buf[i + 2] ^ 0x80;
      const c3 = buf[i + 3] ^ 0x80;
      let cp = ((b & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
      if ((c1 | c2 | c3) > 0x3f || cp < 0x10000 || cp > 0x10ffff) return -1;
      i += 4;
      cp -= 0x10000;
      out[u++] = 0xd800 + (cp >> 10);
      out[u++] = 0xdc00 + (cp & 0x3ff);
      continue;
    }
    return -1;
  }
  return u;
}

/**
 * Browsers: text of at least {@link LOOP_BELOW} bytes up to this many that
 * seems to hold characters outside ASCII is decoded to UTF-16 units in JS
 * and made a string by {@link unitsText}: in Chromium 156 unicode_heavy's
 * typed decode (351 strings of 5 to 476 bytes, mostly CJK) measured about
 * 1.1x faster than with a fatal `TextDecoder` call per string, and
 * chat_thread's 1.07x, with every string up to 1 KB faster in JS (a limit
 * of 256 bytes measured 5-7% slower). Pure ASCII keeps the platform's
 * decoder.
 */
const UNITS_TEXT_MAX = 1024;

/**
 * The first `u` units of `units` as one flat string: one `fromCharCode`
 * call on a plain array of exactly `u` numbers (a reused one below 64, a
 * fresh one above: a string built from concatenated pieces measured 2-4%
 * faster but stays a rope that its first use would flatten, and exact
 * arrays kept for every length would hold up to 4 MB).
 */
function unitsText(units: Uint16Array, u: number): string {
  if (u < DECODE_LOOP_MAX) {
    const piece = UNITS[u];
    for (let k = 0; k < u; k++) piece[k] = units[k];
    return String.fromCharCode.apply(null, piece);
  }
  const all = new Array<number>(u);
  for (let k = 0; k < u; k++) all[k] = units[k];
  return String.fromCharCode.apply(null, all);
}

/** Longer strings take the platform's UTF-8 decoder (no scratch of their size is kept). */
const WIDE_MAX = 1 << 16;
let wide = new Uint16Array(64);
let wideBytes = new Uint8Array(wide.buffer);

/** The scratch units for a string of `len` bytes (grown up to {@link WIDE_MAX}). */
function wideUnits(len: number): Uint16Array {
  if (wide.length < len) {
    // Callers pass at most WIDE_MAX, so the scratch never exceeds it (128 KB).
    wide = new Uint16Array(Math.min(WIDE_MAX, Math.max(len, 2 * wide.length)));
    wideBytes = new Uint8Array(wide.buffer);
  }
  return wide;
}

/** `UNITS[n]`: scratch code units of {@link readUtf8}, an array of exactly n numbers. */
const UNITS: number[][] = Array.from({ length: DECODE_LOOP_MAX }, (_, n) => new Array<number>(n).fill(0));

/** True when `len` bytes at `at` are valid UTF-8. */
export function isUtf8(buf: Uint8Array, at: number, len: number): boolean {
  // Pure ASCII is the common case: scan it without decoding.
  const end = at + len;
  let i = at;
  while (i < end && buf[i] < 0x80) i++;
  if (i === end) return true;
  return readUtf8(buf, i, end - i) !== undefined;
}

/**
 * Compares two strings in the unsigned byte order of their UTF-8 encodings
 * (code point order), which is how FlexBuffers sorts keys.
 */
export function compareUtf8(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (code points >= U+10000) sort after U+E000..U+FFFF in UTF-8.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** Most keys {@link sortUtf8} sorts by insertion rather than by the engine's sort. */
const INSERTION_MAX = 16;

/**
 * Sorts `keys` in place by {@link compareUtf8} and returns them. A sort in
 * UTF-16 code unit order, compared natively, does the work: the engine's
 * own sort (no comparator), or for up to {@link INSERTION_MAX} keys an
 * insertion sort with `<`. That order is UTF-8's except where a surrogate
 * meets a unit from U+E000 up, and those few keys are then moved into
 * place by insertion (past as many moves as keys, the rest is left to a
 * sort by `compareUtf8`, so no set of keys costs more than both sorts).
 * The engine's sort is about 2x faster than sorting by `compareUtf8` from
 * 40 keys up; on 5,000 metric samples of up to eight label and seven
 * counter keys each (`bench/record_datasets.mjs`), the insertion sort took
 * the typed encode from 9.7-10.4 ms to 7.0-7.1 ms (Node 20), where the
 * engine's sort (with `compareUtf8` below 4 keys) was a fifth of it.
 */
export function sortUtf8(keys: string[]): string[] {
  const n = keys.length;
  if (n <= INSERTION_MAX) {
    // Few keys (a record's, a small map's): an insertion sort in the same
    // code unit order, compared natively, costs less than the engine's sort
    // call and its set-up.
    for (let i = 1; i < n; i++) {
      const k = keys[i];
      let j = i - 1;
      if (!(k < keys[j])) continue;
      do {
        keys[j + 1] = keys[j];
        j--;
      } while (j >= 0 && k < keys[j]);
      keys[j + 1] = k;
    }
  } else {
    keys.sort();
  }
  let moves = 0;
  for (let i = 1; i < n; i++) {
    const k = keys[i];
    if (compareUtf8(keys[i - 1], k) <= 0) continue;
    let j = i - 1;
    do {
      keys[j + 1] = keys[j];
      if (++moves > n) {
        keys[j] = k;
        return keys.sort(compareUtf8);
      }
      j--;
    } while (j >= 0 && compareUtf8(keys[j], k) > 0);
    keys[j + 1] = k;
  }
  return keys;
}

