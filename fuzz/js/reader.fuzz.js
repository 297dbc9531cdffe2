// Jazzer.js fuzz target for the pure TypeScript runtime (sdk-ts/dist, built by
// `cargo xtask build-all` or `npx tsc -p sdk-ts`): verify, the checked reader,
// decode and toJSON on arbitrary bytes. Must hold: nothing throws but a
// FlexError (no RangeError, no stack overflow, no TypeError); what verify
// rejects, decode and toJSON reject with its error kind; what it accepts, decode expands (or
// refuses on the budget), with the keys the checked reader reads in every map,
// and toJSON converts (or refuses on the budget or a non-finite float), and a
// bounded checked walk ends only in a FlexError or its own bound. Run: see fuzz/README.md.
import * as fb from "../../sdk-ts/dist/index.js";

function kind(f) {
  try {
    f();
    return null;
  } catch (e) {
    if (e instanceof fb.FlexError) return e.kind;
    throw e;
  }
}

class Bound extends Error {}

function walk(r, budget, depth = 0) {
  if (--budget.n < 0 || depth > 64) throw new Bound();
  switch (r.typeName) {
    case "null": return;
    case "bool": r.asBool(); return;
    case "int": case "uint": case "indirect_int": case "indirect_uint": r.asBigInt(); return;
    case "float": case "indirect_float": r.asNumber(); return;
    case "key": case "string": r.asString(); return;
    case "blob": r.asBlob(); return;
    case "map": {
      const m = r.asMap();
      for (let i = 0; i < Math.min(m.length, 64); i++) {
        m.key(i);
        walk(m.value(i), budget, depth + 1);
      }
      return;
    }
    default: {
      const v = r.asVector();
      for (let i = 0; i < Math.min(v.length, 64); i++) walk(v.get(i), budget, depth + 1);
    }
  }
}

/**
 * Checks that `value` (what decode made of `r`) holds the keys the checked
 * reader reads, map by map: decode takes its key strings from a table
 * shared across buffers, which must never answer with another key.
 */
function sameKeys(value, r, budget, depth = 0) {
  if (--budget.n < 0 || depth > 64) throw new Bound();
  if (r.typeName === "map") {
    const m = r.asMap();
    const keys = [];
    for (let i = 0; i < m.length; i++) keys.push(m.key(i));
    const got = Object.keys(value);
    if (got.length !== keys.length || [...got].sort().join("\0") !== [...keys].sort().join("\0")) {
      throw new Error(`decode gave keys ${JSON.stringify(got)} where the reader reads ${JSON.stringify(keys)}`);
    }
    for (let i = 0; i < Math.min(m.length, 64); i++) sameKeys(value[keys[i]], m.value(i), budget, depth + 1);
  } else if (Array.isArray(value) && r.typeName.includes("vector")) {
    const v = r.asVector();
    for (let i = 0; i < Math.min(v.length, 64); i++) sameKeys(value[i], v.get(i), budget, depth + 1);
  }
}

export function fuzz(data) {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.length);
  const verdict = kind(() => fb.verify(bytes));
  try {
    kind(() => walk(fb.root(bytes), { n: 4000 }));
  } catch (e) {
    if (!(e instanceof Bound)) throw e;
  }
  let value;
  const decoded = kind(() => { value = fb.decode(bytes); });
  const json = kind(() => fb.toJSON(bytes));
  if (verdict !== null) {
    if (decoded !== verdict) throw new Error(`decode gives ${decoded ?? "a value"} for bytes verify rejects with ${verdict}`);
    if (json !== verdict) throw new Error(`toJSON gives ${json ?? "text"} for bytes verify rejects with ${verdict}`);
    return;
  }
  if (decoded !== null && decoded !== "BudgetExceeded") throw new Error(`decode of verified bytes failed: ${decoded}`);
  if (decoded === null) {
    try {
      sameKeys(value, fb.root(bytes), { n: 4000 });
    } catch (e) {
      if (!(e instanceof Bound)) throw e;
    }
  }
  if (json !== null && json !== "BudgetExceeded" && json !== "NonFiniteFloat") throw new Error(`toJSON of verified bytes failed: ${json}`);
}
