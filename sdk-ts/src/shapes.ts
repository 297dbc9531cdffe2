/**
 * Code compiled per key set: object builders for the generic decoder's maps,
 * and object writers for the generic encoder's objects ({@link writerFor},
 * at the end of this file).
 *
 * A map decoded by storing `out[key] = value` into a fresh `{}` goes through
 * the engine's generic keyed store (one store site sees every shape there
 * is) and, past a handful of properties, grows the object's out-of-line
 * property storage as it goes. An object literal with the keys written out
 * is made at its final shape in one step, with every property in the
 * object itself, as `JSON.parse` makes its objects.
 *
 * So once a key set has been met in {@link COMPILE_AFTER} decoded buffers,
 * {@link makerFor} compiles a function that decodes the map's values into
 * such a literal. Keys enter the source only as `JSON.stringify` string
 * literals (any string is one), never as code. Key sets with a `__proto__`
 * key (which a literal would take as the prototype), with more than
 * {@link MAX_KEYS} keys or with more than {@link MAX_TEXT} units of key
 * text are left to the keyed stores, as is everything when the environment
 * refuses to compile code from strings (a Content Security Policy without
 * `unsafe-eval`, Cloudflare Workers): the first refusal turns
 * compiling off for the life of the process. The table is bounded
 * ({@link MAX_SHAPES} key sets; when full, the ones not compiled yet are
 * forgotten); what it cannot hold is decoded the plain way.
 */

import type { Builder } from "./builder.js";
import { FlexError } from "./error.js";
import { T } from "./types.js";

/** The decoder interface the compiled makers call (the generic decoder's). */
export interface ValueSource {
  readonly u8: Uint8Array;
  value(slot: number, pw: number, packed: number, depth: number): unknown;
  /** `value` for a slot whose type is a string. */
  strv(slot: number, pw: number, packed: number): unknown;
  /** `value` for a slot whose type is an integer. */
  intv(slot: number, pw: number): unknown;
  /** `value` for a slot whose type is a float. */
  floatv(slot: number, pw: number): unknown;
}

/**
 * Decodes the `keys.length` values of the map at `at` (element width `w`,
 * type bytes at `types`) into an object with those keys, in key order; an
 * error from a value is given the key's path segment.
 */
export type MapMaker = (d: ValueSource, at: number, w: number, types: number, depth: number) => { [key: string]: unknown };

/** Buffers a key set is met in before its maker is compiled. */
const COMPILE_AFTER = 4;
/** Largest key set compiled. */
const MAX_KEYS = 128;
/** Longest key text (UTF-16 units, all keys together) compiled: bounds each maker's source. */
const MAX_TEXT = 4096;
/** Key sets remembered (compiled or counting). */
const MAX_SHAPES = 512;

interface Shape {
  readonly keys: readonly string[];
  seen: number;
  make: MapMaker | null;
}

/** Key sets by their first key. */
const byFirst = new Map<string, Shape[]>();
let shapes = 0;
let compiling = true;
let compiled = 0;

/**
 * The maker for maps with exactly `keys` (strictly ascending, as a checked
 * keys vector holds them), or `null` while the key set is still being
 * counted, when it cannot be compiled, or when the table is full. Called
 * once per key set and buffer.
 */
export function makerFor(keys: readonly string[], u8: Uint8Array, types: number): MapMaker | null {
  const n = keys.length;
  if (!compiling || n === 0 || n > MAX_KEYS) return null;
  const first = keys[0];
  let list = byFirst.get(first);
  if (list !== undefined) {
    for (let s = 0; s < list.length; s++) {
      const shape = list[s];
      if (!sameKeys(shape.keys, keys)) continue;
      if (shape.make === null && ++shape.seen >= COMPILE_AFTER) shape.make = compile(shape.keys, u8, types);
      return shape.make;
    }
  }
  if (keys.includes("__proto__") || textLength(keys) > MAX_TEXT) return null;
  if (shapes >= MAX_SHAPES && !forgetCounting()) return null;
  if (list === undefined) byFirst.set(first, (list = []));
  list.push({ keys: keys.slice(), seen: 1, make: null });
  shapes++;
  return null;
}

/**
 * Makes room in a full table by forgetting the key sets still being counted
 * (compiled ones stay, so at most {@link MAX_SHAPES} makers are ever
 * compiled, and a stream of one-off key sets cannot keep a recurring one from
 * being compiled later); false when every entry is compiled.
 */
function forgetCounting(): boolean {
  shapes = 0;
  for (const [first, list] of byFirst) {
    const kept = list.filter((shape) => shape.make !== null);
    if (kept.length === 0) byFirst.delete(first);
    else byFirst.set(first, kept);
    shapes += kept.length;
  }
  return shapes < MAX_SHAPES;
}

function textLength(keys: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < keys.length; i++) n += keys[i].length;
  return n;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The maker for `keys`, or `null` (and no more compiling) if the environment
 * refuses. The map being decoded when it is compiled (type bytes at `types`
 * in `u8`) is taken as the sample of the values' types: a field that held a
 * string, an integer or a float there is read with that type's own call when
 * its type byte says so again (a call the engine can inline, where `value`
 * dispatches on every type), and with `value` otherwise.
 */
function compile(keys: readonly string[], u8: Uint8Array, types: number): MapMaker | null {
  const fields = keys.map((k, j) => {
    const slot = `at + ${j} * w`;
    const general = `d.value(${slot}, w, p, depth)`;
    let read = general;
    switch (u8[types + j] >> 2) {
      case T.String: read = `p >> 2 === ${T.String} ? d.strv(${slot}, w, p) : ${general}`; break;
      case T.Int: read = `p >> 2 === ${T.Int} ? d.intv(${slot}, w) : ${general}`; break;
      case T.Float: read = `p >> 2 === ${T.Float} ? d.floatv(${slot}, w) : ${general}`; break;
    }
    return `${JSON.stringify(k)}: (i = ${j}, p = u8[types + ${j}], ${read})`;
  });
  const body = `return function make(d, at, w, types, depth) {
  const u8 = d.u8;
  let i = 0, p = 0;
  try {
    return {${fields.join(",\n      ")}};
  } catch (e) {
    throw e instanceof FlexError ? e.within(keys[i]) : e;
  }
};`;
  try {
    const make = new Function("keys", "FlexError", body)(keys, FlexError) as MapMaker;
    compiled++;
    return make;
  } catch {
    compiling = false;
    return null;
  }
}

/** Forgets every key set; `enabled` false turns compiling off, as a refusal does (tests). */
export function resetShapes(enabled = true): void {
  byFirst.clear();
  shapes = 0;
  compiling = enabled;
}

/** Makers compiled by this process (tests). */
export function compiledShapes(): number {
  return compiled;
}

/** Objects of one shape `encode` meets before it compiles their writer. */
export const WRITE_AFTER = 8;
/**
 * Fewest keys a compiled writer is made for: smaller objects are written by
 * the loop, whose reads see few shapes, where a call to one of many small
 * writers measured slower (chat_thread: 70 shapes of 1 to 10 keys).
 */
const WRITE_MIN_KEYS = 6;
/** Writers compiled at most (each shape's is kept as long as its shape is). */
const MAX_WRITERS = 1024;
/** Writers compiled so far (none past {@link MAX_WRITERS}). */
let writers = 0;

/** Object writers compiled by this process (tests). */
export function compiledWriters(): number {
  return writers;
}

/**
 * Pushes the entries of object `o`, whose own enumerable keys are exactly
 * the `sorted` list it was compiled for, onto `b` (whose map is open) and
 * ends the map: the same calls the generic loop makes, with each property
 * read by name at its own site (the engine caches one shape there, where the
 * loop's `o[k]` sees every key of every shape).
 */
export type ShapeWriter = (
  b: Builder,
  o: { [key: string]: unknown },
  depth: number,
  maxDepth: number,
  push: (b: Builder, v: unknown, depth: number, maxDepth: number) => void,
) => void;

/**
 * The writer for objects whose wire-ordered keys are `sorted`, or `null`
 * when it is not compiled: fewer than {@link WRITE_MIN_KEYS} keys, more than
 * {@link MAX_KEYS} or {@link MAX_TEXT} units of key text, a `__proto__` key,
 * {@link MAX_WRITERS} compiled already, or compiling refused (which turns it
 * off, as for the makers). Keys enter the source only as `JSON.stringify`
 * literals. `ascending`: {@link wellFormed} of `sorted` (the writer then
 * ends its maps without an order check).
 */
export function writerFor(sorted: readonly string[], ascending: boolean): ShapeWriter | null {
  if (!compiling || writers >= MAX_WRITERS || sorted.length < WRITE_MIN_KEYS || sorted.length > MAX_KEYS) return null;
  if (sorted.includes("__proto__") || textLength(sorted) > MAX_TEXT) return null;
  // Keys go through the builder's per-writer cache of the pool's cells
  // (`keyCached`), so an object of a shape met before with this builder
  // pushes its keys without looking them up by text.
  const fields = sorted.map((k, i) => {
    const key = JSON.stringify(k);
    return `e = o[${key}];
    t = typeof e;
    if (t !== "undefined" && t !== "function" && t !== "symbol") {
      b.keyCached(c, ${i}, ${key});
      if (t === "string") b.string(e);
      else if (t === "number") { if (Number.isSafeInteger(e) && !(e === 0 && 1 / e < 0)) b.int(e); else b.double(e); }
      else if (t === "boolean") b.bool(e);
      else push(b, e, depth, maxDepth);
    }`;
  });
  const body = `const c = { pool: 0, cells: new Array(${sorted.length}).fill(undefined) };
  return function write(b, o, depth, maxDepth, push) {
    let e, t;
    ${fields.join("\n    ")}
    b.${ascending ? "endMapAscending" : "endMap"}();
  };`;
  try {
    const write = new Function(body)() as ShapeWriter;
    writers++;
    return write;
  } catch {
    compiling = false;
    return null;
  }
}

/**
 * True when no key holds a lone surrogate: well-formed keys are UTF-8 in
 * the order {@link writerFor}'s sorted list has them (code point order, as
 * `compareUtf8` sorts), and two distinct ones never become the same bytes,
 * where a lone surrogate is written as U+FFFD, which another key may equal.
 * @internal
 */
export function wellFormed(keys: readonly string[]): boolean {
  for (let j = 0; j < keys.length; j++) {
    const k = keys[j];
    for (let i = 0; i < k.length; i++) {
      const c = k.charCodeAt(i);
      if (c < 0xd800 || c > 0xdfff) continue;
      const next = i + 1 < k.length ? k.charCodeAt(i + 1) : 0;
      if (c > 0xdbff || next < 0xdc00 || next > 0xdfff) return false;
      i++;
    }
  }
  return true;
}
