/**
 * Key strings remembered across buffers.
 *
 * Records of one kind carry the same keys in every buffer. Decoding each key
 * afresh makes a new JS string every time, which the engine then has to look
 * up in its table of property names before it can store a property under it.
 * {@link KeyReader} keeps the string made for each short key, found by a hash
 * of the key's bytes and proven by comparing every byte, so a key read again
 * (in this buffer or a later one) is the very same string, with no decoding;
 * from its second reading on, it is the engine's own property name.
 *
 * The table is bounded ({@link SLOTS} entries of at most {@link MAX_LEN}
 * bytes, in sets of two: a new key takes the first slot of its set, and the
 * key there moves to the second, replacing the older one) and only ever answers
 * with the string of bytes equal to the ones asked for: a collision costs a
 * decode, never a wrong key.
 */

import { joinWords, u32 } from "./reader.js";
import { readUtf8 } from "./utf8.js";

/** Entries in the table (a power of two: `1 << SLOT_BITS`). */
const SLOT_BITS = 12;
const SLOTS = 1 << SLOT_BITS;
/**
 * Longest key remembered, in bytes; longer keys are decoded every time. Keys
 * of `{string: T}` maps run long (terms, titles, paths: unicode_heavy's
 * glossaries hold keys of up to 111 bytes); at 48, a third of them were
 * decoded again in every buffer.
 */
const MAX_LEN = 128;

/**
 * Each slot's key bytes; `null` for an ASCII key, whose bytes are its
 * string's code units (compared there: no copy made for it, and maps keyed
 * by ids meet most keys once).
 */
const slotBytes: (Uint8Array | null | undefined)[] = new Array(SLOTS).fill(undefined);
const slotStrings: string[] = new Array(SLOTS).fill("");
/**
 * 1 while a slot's string is the one decoded when its key was first met:
 * it becomes the engine's property name ({@link propertyName}) only when the
 * key is met again, so a key met once (maps keyed by ids) costs no more than
 * its decode.
 */
const slotFresh = new Uint8Array(SLOTS);

/** Why {@link KeyReader.read} returned `undefined`. */
export const enum KeyFault {
  /** No NUL between the key's start and the end of the buffer. */
  MissingNul = 1,
  /** The bytes before the NUL are not valid UTF-8. */
  InvalidUtf8 = 2,
}

/** Reads NUL-terminated keys through the shared table (one per decoder). */
export class KeyReader {
  /** Byte length (without the NUL) of the key last read. */
  len = 0;
  /** Why the last read failed, when it did. */
  fault: KeyFault = KeyFault.MissingNul;

  /**
   * The key starting at `at` (which must be inside `u8`): its string, with
   * its byte length in {@link len}; or `undefined` with the reason in
   * {@link fault} (and, for invalid UTF-8, the length in {@link len}).
   */
  read(u8: Uint8Array, at: number): string | undefined {
    const n = u8.length;
    // Up to MAX_LEN bytes and the NUL after them.
    const stop = at + MAX_LEN + 1 < n ? at + MAX_LEN + 1 : n;
    let h = 0;
    let end = at;
    // Find the NUL and hash the bytes before it in one loop.
    while (end < stop) {
      const b = u8[end];
      if (b === 0) break;
      h = Math.imul(h ^ b, 0x01000193);
      end++;
    }
    if (end === stop) {
      // Longer than the table keeps (or unterminated): decoded every time.
      end = u8.indexOf(0, at);
      if (end < 0) {
        this.fault = KeyFault.MissingNul;
        return undefined;
      }
      this.len = end - at;
      return this.decode(u8, at, end - at);
    }
    const len = end - at;
    this.len = len;
    // The first of the two slots of the key's set.
    const first = (Math.imul(h ^ (h >>> 15) ^ len, 0x2c1b3c6d) >>> (32 - SLOT_BITS)) & ~1;
    let slot = first;
    if (!holds(slot, u8, at, len) && !holds((slot = first + 1), u8, at, len)) {
      const s = this.decode(u8, at, len);
      if (s === undefined) return undefined;
      // The set's first key moves to its second slot (replacing the key put
      // in before it), and this one takes the first: two keys of a document
      // that hash to one set both stay, where with one slot a key they
      // replaced each other in every buffer, each decoded again.
      if (slotBytes[first] !== undefined) {
        slotBytes[first + 1] = slotBytes[first];
        slotStrings[first + 1] = slotStrings[first];
        slotFresh[first + 1] = slotFresh[first];
      }
      // As many UTF-16 units as bytes: every byte is ASCII.
      slotBytes[first] = s.length === len ? null : u8.slice(at, end);
      slotStrings[first] = s;
      slotFresh[first] = 1;
      return s;
    }
    // A key met again: from now on handed out as the engine's own name.
    if (slotFresh[slot] !== 0) {
      slotFresh[slot] = 0;
      slotStrings[slot] = propertyName(slotStrings[slot]);
    }
    return slotStrings[slot];
  }

  private decode(u8: Uint8Array, at: number, len: number): string | undefined {
    const s = readUtf8(u8, at, len);
    if (s === undefined) this.fault = KeyFault.InvalidUtf8;
    return s;
  }
}

/** Whether `slot` holds the key of the `len` bytes at `at` (compared byte by byte). */
function holds(slot: number, u8: Uint8Array, at: number, len: number): boolean {
  const known = slotBytes[slot];
  let i = 0;
  if (known === null) {
    const str = slotStrings[slot];
    if (str.length !== len) return false;
    while (i < len && str.charCodeAt(i) === u8[at + i]) i++;
  } else {
    if (known === undefined || known.length !== len) return false;
    while (i < len && known[i] === u8[at + i]) i++;
  }
  return i === len;
}

/**
 * Holds one property at a time for {@link propertyName}. Kept in dictionary
 * mode (a property added and deleted): storing under a new name then costs a
 * hash-table insert, where a fresh `{}` made a new hidden class for every
 * name, each hung off the empty object's class. With that, and every key
 * turned into a property name when first met, a map of 50,000 distinct keys
 * decoded in 89 ms (1.8 µs a key, 59% of it here; maps keyed by ids, such as
 * `{string: T}` dictionaries, are like that): now 23 ms.
 */
const holder: Record<string, number> = Object.create(null);
holder.dictionaryMode = 0;
delete holder.dictionaryMode;

/**
 * `s` as the engine's own property-name string when it can hand one back
 * (a string equal to `s`, so the result is the same whatever it does): later
 * stores under it skip the engine's name lookup.
 */
function propertyName(s: string): string {
  holder[s] = 0;
  for (const k in holder) {
    delete holder[k];
    return k;
  }
  return s;
}

/**
 * Where the offset of width `kw` at `p` (inside `u8`) points, unchecked:
 * the position may lie outside the buffer (or before it). For finding key
 * sets met before, whose positions are then compared exactly.
 */
export function pointsAt(u8: Uint8Array, p: number, kw: number): number {
  switch (kw) {
    case 1: return p - u8[p];
    case 2: return p - (u8[p] | (u8[p + 1] << 8));
    case 4: return p - u32(u8, p);
    default: return p - joinWords(u32(u8, p + 4), u32(u8, p));
  }
}

/**
 * Whether the elements of the keys vector at `at` (width `kw`, inside
 * `u8`, as many as `positions`) point at `positions`. Reads only.
 */
export function samePositions(u8: Uint8Array, at: number, kw: number, positions: readonly number[]): boolean {
  for (let i = 0; i < positions.length; i++) {
    if (pointsAt(u8, at + i * kw, kw) !== positions[i]) return false;
  }
  return true;
}

/**
 * Whether the bytes at `positions` in `u8` (inside it or not) are byte for
 * byte `text`: each key's bytes and its NUL, one key after the other.
 */
export function sameKeyText(u8: Uint8Array, positions: readonly number[], text: Uint8Array): boolean {
  const n = u8.length;
  let o = 0;
  for (let i = 0; i < positions.length; i++) {
    let p = positions[i];
    for (;;) {
      if (p >= n) return false;
      const b = text[o++];
      if (u8[p++] !== b) return false;
      if (b === 0) break;
    }
  }
  return true;
}
