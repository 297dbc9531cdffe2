// The one-pass checked decode of generated coders against the verifier
// (DESIGN.md principle 2, the Rust core's contract in issue 13): on every
// typed conformance input, its expected bytes and thousands of seeded
// mutations of them, and on the invalid corpus:
// - any bytes: decode returns or throws a FlexError, nothing else;
// - bytes `verify` accepts: decode gives exactly what verify-then-decode
//   gives (`{ verify: true }`), the positional path exactly what the keyed
//   path gives (a proven layout never yields a neighbour's field), and a
//   failure is a schema-level one, never a structural error the verifier
//   would have reported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, basename, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as fb from "../dist/index.js";

const here = dirname(fileURLToPath(import.meta.url));
const conf = join(here, "..", "..", "conformance");
const GEN = join(here, "gen", "out");
assert.ok(existsSync(GEN), "generated coders missing: run `cargo xtask test` (it generates them)");

const STRUCTURAL = new Set(["Truncated", "OffsetOutOfBounds", "SizeOutOfBounds", "BadWidth", "InvalidUtf8", "MissingNul",
  "UnsortedKeys", "KeyValueLengthMismatch", "UnknownType", "DepthLimit"]);

/** A seeded xorshift32: the same mutations on every run. */
function rng(seed) {
  let x = seed | 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** Value or error (kind and path) of one decode. */
function outcome(f) {
  try {
    return { value: f() };
  } catch (e) {
    if (!(e instanceof fb.FlexError)) throw e;
    return { kind: e.kind, path: fb.formatPath(e.path) };
  }
}

const modules = new Map();
async function decoderOf(c) {
  const stem = basename(c.schema, ".fxs");
  if (!modules.has(stem)) modules.set(stem, await import(pathToFileURL(join(GEN, `${stem}.js`)).href));
  const name = c.type.slice(c.type.lastIndexOf(".") + 1);
  return modules.get(stem)[`decode${name}`];
}

const cases = [];
for (const f of readdirSync(join(conf, "typed")).filter((f) => f.endsWith(".json")).sort()) {
  for (const c of JSON.parse(readFileSync(join(conf, "typed", f), "utf8")).cases) {
    const input = c.input !== undefined ? Uint8Array.from(Buffer.from(c.input, "hex")) : new Uint8Array(readFileSync(join(conf, c.input_file)));
    const decode = await decoderOf(c);
    if (!decode) continue;
    const buffers = [input];
    const exp = c.expect?.bytes ?? (c.expect?.bytes_file ? readFileSync(join(conf, c.expect.bytes_file)).toString("hex") : null);
    if (exp) buffers.push(Uint8Array.from(Buffer.from(exp, "hex")));
    cases.push({ name: c.name, decode, buffers });
  }
}

/** Checks the contract on `bytes`; returns whether the verifier accepted them. */
function check(what, decode, bytes) {
  let o;
  try {
    o = outcome(() => decode(bytes));
  } catch (e) {
    assert.fail(`${what}: threw a foreign ${e && e.stack}`);
  }
  try {
    fb.verify(bytes);
  } catch (e) {
    assert.ok(e instanceof fb.FlexError, `${what}: verify threw ${e}`);
    return false;
  }
  assert.deepEqual(outcome(() => decode(bytes, { verify: true })), o, `${what}: verify-then-decode differs`);
  assert.deepEqual(outcome(() => decode(bytes, { keyedOnly: true })), o, `${what}: keyed decode differs from positional`);
  if (o.kind !== undefined) assert.ok(!STRUCTURAL.has(o.kind), `${what}: verified bytes failed with ${o.kind} at ${o.path}`);
  return true;
}

test("typed inputs and their expected bytes: decode agrees with verify-then-decode", () => {
  assert.ok(cases.length >= 100, `${cases.length} typed cases`);
  for (const c of cases) for (const b of c.buffers) check(c.name, c.decode, b);
});

test("seeded mutations of typed inputs: FlexErrors only; verified ones agree with verify-then-decode", () => {
  const next = rng(0x5eed15);
  let total = 0;
  let verified = 0;
  for (const c of cases) {
    for (const original of c.buffers) {
      // Large buffers get fewer mutations: each decode is linear in their size.
      const rounds = original.length > 16384 ? 4 : original.length > 2048 ? 12 : 24;
      for (let r = 0; r < rounds; r++) {
        const bytes = original.slice(0, next(8) === 0 ? Math.max(3, next(original.length + 1)) : original.length);
        const flips = 1 + next(3);
        for (let i = 0; i < flips; i++) {
          const at = next(bytes.length);
          bytes[at] = next(4) === 0 ? bytes[at] ^ (1 << next(8)) : next(256);
        }
        if (check(`${c.name} mutation ${r}`, c.decode, bytes)) verified++;
        total++;
      }
    }
  }
  assert.ok(total >= 3000, `${total} mutations`);
  assert.ok(verified >= 100, `only ${verified} of ${total} mutations verified: the agreement half proves little`);
  console.log(`${total} mutations, ${verified} accepted by the verifier`);
});

test("the invalid corpus: every typed decoder throws FlexErrors only", () => {
  const manifest = JSON.parse(readFileSync(join(conf, "invalid", "manifest.json"), "utf8"));
  const decoders = [...new Set(cases.map((c) => c.decode))];
  let n = 0;
  for (const entry of manifest) {
    const bytes = new Uint8Array(readFileSync(join(conf, "invalid", entry.file)));
    for (const decode of decoders) {
      const o = outcome(() => decode(bytes));
      assert.ok(o.kind !== undefined || o.value !== undefined, entry.file);
      n++;
    }
  }
  assert.ok(n > 200);
});

test("a keys vector at the place of a proven one, pointing at another key, is not taken for the layout", () => {
  // Maps {a: "c", b: 2, ...} with their keys written as a block by
  // keyVectorFor; the string "c" (its NUL-terminated bytes are a key too) lies
  // before the block. Two keys (a vector of two bytes) and six (whole words).
  for (const names of [["a", "b"], ["a", "b", "d", "e", "f", "g"]]) {
    const ks = fb.keySet(names);
    const b = new fb.Builder();
    b.startMap();
    b.string("c");
    const kv = b.keyVectorFor(ks.layout);
    for (let i = 1; i < names.length; i++) b.int(i + 1);
    b.endMapWithKeys(kv);
    const good = b.finish();
    const proven = (buf) => {
      const c = new fb.DecodeContext(buf);
      const [p, w, t] = c.root();
      const d = c.map(p, w, t);
      return c.layout(d, c.w, c.c, ks);
    };
    // Proven in several buffers: the decoder remembers what this vector looks like.
    for (let i = 0; i < 3; i++) assert.equal(proven(good), true);
    // The keys vector's second element now points at "c": keys [a, c, ...], a
    // valid map (verify accepts it) whose vector sits where the proven one did.
    const block = 3 + names.reduce((n, k) => n + k.length + 1, 0); // "c"'s string, then the block
    assert.equal(good[block], names.length, "the keys vector's length follows the block");
    const at = block + 2;
    const bad = good.slice();
    bad[at] = at - 1;
    assert.equal(fb.verify(bad), bad);
    assert.deepEqual(Object.keys(fb.decode(bad)), ["a", "c", ...names.slice(2)]);
    assert.equal(proven(bad), false);
    assert.equal(proven(good), true);
  }
});

test("maps whose keys are not a type's layout: each map's keys vector is checked, also after one of the same keys passed", () => {
  // Two maps {a: 1, c: 2}, each with its own keys vector pointing at the same
  // two keys; the type expects [a, b, c], so both take the keyed path.
  const b = new fb.Builder();
  b.startVector();
  for (let i = 0; i < 2; i++) {
    b.startMap();
    b.key("a");
    b.int(1);
    b.key("c");
    b.int(2);
    b.endMap();
  }
  b.endVector();
  const good = b.finish();
  const maps = fb.root(good).asVector();
  const at = [0, 1].map((i) => maps.get(i).asMap().values.data);
  const ks = fb.keySet(["a", "b", "c"]);
  const layouts = (buf) => {
    const c = new fb.DecodeContext(buf);
    return at.map((d) => c.layout(d, 1, 2, ks));
  };
  assert.deepEqual(layouts(good), [false, false]);
  // The second map's keys vector: its length, then elements pointing at "a" and "c".
  const second = good.indexOf(2, 13);
  assert.equal(second - good[second + 1] + 1, 0, "element 0 points at the first key");
  const bad = good.slice();
  bad[second + 2] = second + 2; // element 1 now points at "a" too: [a, a]
  assert.throws(() => fb.verify(bad), (e) => e.kind === "UnsortedKeys");
  assert.throws(() => layouts(bad), (e) => e instanceof fb.FlexError && e.kind === "UnsortedKeys");
});

test("a key the type does not read is still checked: invalid UTF-8 or no NUL fails the decode, short keys and long", async () => {
  const { decodeStringFlood } = await import(pathToFileURL(join(GEN, "string_flood.js")).href);
  for (const pad of [0, 10, 61, 62, 63, 64, 65, 100]) {
    const extra = `zz${"a".repeat(pad)}é`;
    const bytes = fb.encode({ map: { k: "v" }, strings: ["s"], [extra]: 1 });
    // Valid as written: the extra key is skipped.
    assert.deepEqual(decodeStringFlood(bytes), { map: { k: "v" }, strings: ["s"] });
    // The second byte of "é" (C3 A9) made ASCII: an invalid sequence that
    // keeps the keys in order.
    const name = Buffer.from(extra, "utf8");
    const at = Buffer.from(bytes).indexOf(name);
    assert.ok(at > 0);
    const bad = bytes.slice();
    bad[at + name.length - 1] = 0x41;
    assert.throws(() => fb.verify(bad), (e) => e.kind === "InvalidUtf8");
    assert.deepEqual(outcome(() => decodeStringFlood(bad)).kind, "InvalidUtf8", `pad ${pad}`);
  }
});

test("keys of {string: T} maps read once by the key check: nested maps checked in between, budget and errors unchanged", async () => {
  const { decodeOrder } = await import(pathToFileURL(join(GEN, "defects.js")).href);
  // Each Item carries a key its type does not have, so its map takes the
  // keyed path and its keys vector is checked (and read) between two keys of
  // the outer `by_sku` map: the outer keys must still be its own.
  const long = (c) => `${c}${"é".repeat(20)}`; // 41 bytes, past nothing, cached
  const item = (sku, n) => ({ sku, qty: n, price: 1.5, seller: { id: n, name: `s${n}`, rating: 1 }, tags: [], zz_unknown: n });
  const value = { id: 7, by_sku: { [long("a")]: item("x", 1), [long("b")]: item("y", 2), [long("c")]: item("z", 3) } };
  const bytes = fb.encode(value);
  const order = decodeOrder(bytes);
  assert.deepEqual(Object.keys(order.bySku), [long("a"), long("b"), long("c")]);
  assert.deepEqual(Object.values(order.bySku).map((i) => [i.sku, i.qty, i.seller.name]), [["x", 1, "s1"], ["y", 2, "s2"], ["z", 3, "s3"]]);
  assert.deepEqual(outcome(() => decodeOrder(bytes)), outcome(() => decodeOrder(bytes, { verify: true })));

  // The bytes budget counts every key of the map as before: the smallest
  // budget that decodes is at least the keys' bytes, and one byte less fails.
  const fits = (maxBytes) => outcome(() => decodeOrder(bytes, { budget: { maxNodes: 1 << 20, maxBytes } })).kind === undefined;
  let lo = 0, hi = 1 << 16;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fits(mid)) hi = mid;
    else lo = mid + 1;
  }
  assert.ok(lo >= 3 * Buffer.byteLength(long("a")), `smallest budget ${lo}`);
  assert.equal(fits(lo - 1), false);

  // A key of the map made invalid UTF-8 (its last "é" cut to C3 41) fails as
  // before, also right after the valid bytes were read (and kept) once.
  const name = Buffer.from(long("b"), "utf8");
  const at = Buffer.from(bytes).indexOf(name);
  const bad = bytes.slice();
  bad[at + name.length - 1] = 0x41;
  assert.throws(() => fb.verify(bad), (e) => e.kind === "InvalidUtf8");
  assert.equal(outcome(() => decodeOrder(bad)).kind, "InvalidUtf8");
  // Two keys swapped in place (same length, so the vector stays valid but unsorted).
  const swapped = bytes.slice();
  const a = Buffer.from(bytes).indexOf(Buffer.from(long("a"), "utf8"));
  swapped[a] = 0x64; // "d…" before "b…"
  assert.throws(() => fb.verify(swapped), (e) => e.kind === "UnsortedKeys");
  assert.equal(outcome(() => decodeOrder(swapped)).kind, "UnsortedKeys");
});
