// Map keys come back through a table shared by every decode (keys.ts): a key
// met once is handed out as decoded, a key met again as the engine's property
// name. Whatever the table holds, every map must come back with exactly its
// own keys: maps with more distinct keys than the table has slots (so slots
// are replaced while a buffer is read), keys that share a slot, keys met
// once, twice and many times, keys longer than the table keeps, numeric
// keys, and `__proto__`.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fb from "../dist/index.js";

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

/** A map of `keys` (any order) to their index, as a buffer. */
function mapOf(keys) {
  const b = new fb.Builder();
  b.startMap();
  keys.forEach((k, i) => {
    b.key(k);
    b.int(i);
  });
  b.endMap();
  return b.finish();
}

/** Checks that `bytes` decodes to exactly `keys` mapped to their indices. */
function assertMap(bytes, keys, label) {
  const got = fb.decode(bytes);
  const want = Object.fromEntries(keys.map((k, i) => [k, i]));
  assert.equal(Object.keys(got).length, keys.length, label);
  for (const [k, i] of Object.entries(want)) assert.equal(got[k], i, `${label}: ${JSON.stringify(k)}`);
  assert.deepEqual(got, want, label);
}

test("a map of 20,000 distinct keys decodes to its keys, the first time and again", () => {
  const r = rng(7);
  const keys = Array.from({ length: 20000 }, (_, i) => `k${i}-${Math.floor(r() * 1e9).toString(36)}`);
  const bytes = mapOf(keys);
  for (let pass = 0; pass < 3; pass++) assertMap(bytes, keys, `pass ${pass}`);
});

test("keys that recur across buffers come back right while other keys churn the table", () => {
  const r = rng(11);
  const common = ["id", "name", "email", "naïve", "日本語", "emoji 😀", "x".repeat(127), "y".repeat(128), "z".repeat(300)];
  for (let round = 0; round < 40; round++) {
    // Keys met once each, enough of them to replace most slots between rounds.
    const once = Array.from({ length: 3000 }, (_, i) => `r${round}-${i}-${Math.floor(r() * 1e6)}`);
    const keys = common.concat(once);
    assertMap(mapOf(keys), keys, `round ${round}`);
  }
});

test("short keys that differ in one byte, in many buffers, never come back as each other", () => {
  // 2 * 26 * 26 keys of two or three letters: many pairs share a slot.
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const keys = [];
  for (const a of letters) for (const b of letters) keys.push(a + b, a + b + "!");
  for (let i = 0; i < 5; i++) {
    const r = rng(100 + i);
    const part = keys.filter(() => r() < 0.5);
    assertMap(mapOf(part), part, `subset ${i}`);
  }
});

test("numeric and special keys keep their meaning", () => {
  const keys = ["0", "1", "10", "007", "4294967294", "4294967295", "-1", "1e3", "__proto__", "constructor", "toString", ""];
  for (let i = 0; i < 3; i++) {
    const got = fb.decode(mapOf(keys));
    assert.equal(Object.getPrototypeOf(got), Object.prototype);
    assert.deepEqual(Object.keys(got).sort(), keys.slice().sort());
    keys.forEach((k, j) => assert.equal(Object.getOwnPropertyDescriptor(got, k)?.value, j, k));
  }
});

test("maps of many one-off shapes decode like JSON.parse of the same data", () => {
  const value = Array.from({ length: 3000 }, (_, i) => ({ [`k${i}`]: i, [`m${i * 7}`]: `v${i}`, x: i / 4 }));
  const bytes = fb.encode(value);
  for (let pass = 0; pass < 2; pass++) assert.deepEqual(fb.decode(bytes), JSON.parse(JSON.stringify(value)));
});

test("ASCII and other keys of one byte length, sharing slots, never come back as each other", () => {
  // ASCII keys are proven by their string's units, others by their bytes:
  // keys of 2 and 3 bytes of both kinds, thousands of each, share slots.
  const ascii = [];
  for (let a = 0x20; a < 0x7f; a++) for (let b = 0x20; b < 0x7f; b += 3) ascii.push(String.fromCharCode(a, b), String.fromCharCode(a, b, 0x41 + (a % 26)));
  const other = [];
  for (let c = 0x80; c < 0x800; c++) other.push(String.fromCharCode(c));
  for (let c = 0x800; c < 0x1800; c += 2) other.push(String.fromCharCode(c));
  for (let i = 0; i < 8; i++) {
    const r = rng(300 + i);
    const part = ascii.filter(() => r() < 0.4).concat(other.filter(() => r() < 0.4));
    assertMap(mapOf(part), part, `mix ${i}`);
  }
});

test("a record type first met after hundreds of one-off key sets decodes the same in every buffer", () => {
  // Past 256 new key sets a buffer stops adding to the shared tables; maps
  // decoded after that, of any key set, still come back as JSON.parse's.
  const value = {
    ids: Array.from({ length: 600 }, (_, i) => ({ [`id${i}`]: i, [`tag${i}`]: "t" })),
    records: Array.from({ length: 50 }, (_, i) => ({ name: `n${i}`, v: i, ok: i % 2 === 0, "é": [i] })),
  };
  const bytes = fb.encode(value);
  const want = JSON.parse(JSON.stringify(value));
  for (let pass = 0; pass < 8; pass++) {
    const got = fb.decode(bytes);
    assert.deepStrictEqual(got, want, `pass ${pass}`);
    for (const o of [got.ids[599], got.records[0], got.records[49]]) {
      assert.equal(Object.getPrototypeOf(o), Object.prototype);
      assert.ok(Object.prototype.hasOwnProperty.call(o, Object.keys(o)[0]));
    }
  }
});

/** The first slot of the key's set in keys.ts's table (its hash, replicated here to find keys that share a set). */
function setOf(key) {
  const u8 = new TextEncoder().encode(key);
  let h = 0;
  for (const b of u8) h = Math.imul(h ^ b, 0x01000193);
  return (Math.imul(h ^ (h >>> 15) ^ u8.length, 0x2c1b3c6d) >>> 20) & ~1;
}

test("keys that share a set of the table, ASCII and not, come back as themselves in any order", () => {
  // Groups of four keys hashing to one set (each set holds two): every
  // read of a group moves keys between the set's slots and replaces some.
  const groups = new Map();
  for (let i = 0; groups.size < 3 || [...groups.values()].filter((g) => g.length >= 4).length < 3; i++) {
    const k = i % 3 === 0 ? `é${i}` : i % 3 === 1 ? `key${i}` : `日${i}本`;
    const s = setOf(k);
    if (!groups.has(s)) groups.set(s, []);
    groups.get(s).push(k);
  }
  const sets = [...groups.values()].filter((g) => g.length >= 4).slice(0, 3).map((g) => g.slice(0, 4));
  assert.equal(sets.length, 3);
  const r = rng(31);
  for (let round = 0; round < 200; round++) {
    const g = sets[round % 3];
    // One to four keys of the group, in a random order, in a map or alone.
    const part = g.filter(() => r() < 0.6);
    if (part.length === 0) part.push(g[round % 4]);
    assertMap(mapOf(part), part, `round ${round}: ${JSON.stringify(part)}`);
    for (const k of part) assertMap(mapOf([k]), [k], `round ${round}: ${JSON.stringify(k)} alone`);
  }
});

test("dictionaries of subsets of one vocabulary, many sharing a first key, decode to their own keys", () => {
  // Key sets are found again by where their keys are, beside the table by
  // first key (which keeps one set per first key): every subset must come
  // back with exactly its keys and values, whichever came before it.
  const vocab = ["env", "region", "zone", "é", "日本", "team", "version", "\u{1f600}", "a", "ab"];
  const r = rng(7);
  const rows = [];
  for (let i = 0; i < 3000; i++) {
    const labels = {};
    for (const k of vocab) if (r() < 0.6) labels[k] = `${k}-${Math.floor(r() * 5)}`;
    const counts = {};
    for (const k of vocab) if (r() < 0.3) counts[k] = Math.floor(r() * 1000);
    rows.push({ id: i, labels, counts });
  }
  const bytes = fb.encode(rows);
  const back = fb.decode(bytes);
  assert.deepEqual(back, JSON.parse(JSON.stringify(rows)));
  // The same buffer decodes the same twice (sets met again across buffers).
  assert.deepEqual(fb.decode(bytes), back);
});
