// The verifier's bookkeeping of shared offsets: a DAG stays linear, depth
// counts through shared subtrees, and on buffers full of sharing (reused
// values, shared strings and keys vectors, cycles, one place read as two
// types), damaged or not, the pure-TS verifier gives the Rust core's verdict
// (through the native addon, which `cargo xtask build-all` builds).
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as pure from "../dist/index.js";
import { outcome as outcomeOf } from "./harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const native = existsSync(join(here, "..", "native", "index.node")) ? await import("../dist/node.js") : null;

/** A small seeded generator (mulberry32), so a failure names a reproducible case. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { int: (lo, hi) => lo + Math.floor(next() * (hi - lo)), bool: () => next() < 0.5 };
}

const outcome = (f) => outcomeOf(pure, f);

/** The error `f` throws as `kind@offset path` (`ok` when none). */
function located(f) {
  try {
    f();
    return "ok";
  } catch (e) {
    if (e instanceof pure.FlexError) return `${e.kind}@${e.offset} ${pure.formatPath(e.path)}`;
    throw e;
  }
}

/** A root vector of `levels` + 1 vectors, each but the first holding the one before it twice. */
function dag(levels) {
  const b = new pure.Builder();
  b.startVector();
  b.startVector();
  b.int(7);
  b.endVector();
  for (let i = 0; i < levels; i++) {
    const below = b.lastValue();
    b.startVector();
    b.reuseValue(below);
    b.reuseValue(below);
    b.endVector();
  }
  b.endVector();
  return b.finish();
}

test("shared subtrees verify in linear time, and depth counts through them", () => {
  const bytes = dag(60); // 2^60 paths, nested 62 deep
  const start = performance.now();
  pure.verify(bytes, { maxDepth: 62 });
  assert.ok(performance.now() - start < 1000, "the paths were walked");
  assert.equal(outcome(() => pure.verify(bytes, { maxDepth: 61 })), "DepthLimit");
  // A subtree met first near the root and again deeper is counted in full there.
  const b = new pure.Builder();
  b.startVector();
  b.startVector();
  b.startVector();
  b.int(1);
  b.endVector();
  b.endVector();
  const deep = b.lastValue();
  b.startVector();
  b.startVector();
  b.reuseValue(deep);
  b.endVector();
  b.endVector();
  b.endVector();
  const skew = b.finish();
  pure.verify(skew, { maxDepth: 5 });
  assert.equal(outcome(() => pure.verify(skew, { maxDepth: 4 })), "DepthLimit");
});

test("a vector holding itself is a Cycle at any depth limit (capped at 1024), and a limit that is not a number is refused", () => {
  const loop = new Uint8Array([1, 0, 40, 2, 40, 1]); // its one element points back at the vector
  for (const maxDepth of [2, 2.5, 64, 1024, Infinity]) {
    assert.equal(outcome(() => pure.verify(loop, { maxDepth })), "Cycle", `maxDepth ${maxDepth}`);
    assert.equal(outcome(() => pure.decode(loop, { maxDepth })), "Cycle", `decode, maxDepth ${maxDepth}`);
  }
  assert.equal(outcome(() => pure.verify(loop, { maxDepth: 0 })), "DepthLimit");
  // A cyclic object, and text nested past any limit, stop at the 1024 cap
  // too instead of overflowing the stack.
  const self = {};
  self.self = self;
  assert.equal(outcome(() => pure.encode(self, { maxDepth: Infinity })), "DepthLimit");
  assert.equal(outcome(() => pure.fromJSON("[".repeat(5000) + "]".repeat(5000), { maxDepth: Infinity })), "DepthLimit");
  // NaN would pass every depth check and record no path: the cycle would overflow the stack.
  for (const f of [() => pure.verify(loop, { maxDepth: NaN }), () => pure.decode(loop, { maxDepth: NaN }), () => pure.encode(self, { maxDepth: NaN })]) {
    assert.throws(f, TypeError);
  }
});

/**
 * A buffer of 1-byte-wide strings, keys, vectors and maps written bottom-up
 * as a builder would, except that elements point at any node before them and
 * now and then at their own container (a cycle), at a node as another type
 * than it was written as (a string read as a vector, a map's keys as a plain
 * key vector), or at keys out of order; some strings are long (past the
 * verifier's 32 bytes) and some are not UTF-8.
 */
function structure(r) {
  const out = [];
  const starts = [];
  const packs = [];
  const keys = [];
  for (const k of ["a", "b", "c", "d"]) {
    keys.push(out.length);
    out.push(k.charCodeAt(0), 0);
  }
  const text = (len) => Array.from({ length: len }, (_, j) => (r.int(0, 60) === 0 ? 0xc3 : 97 + ((j * 7 + len) % 26)));
  const element = (self, slot) => {
    const roll = r.int(0, 20);
    if (roll === 0) return [slot - self, 40]; // the container itself: a cycle
    if (roll === 1 || starts.length === 0) return [r.int(0, 100), 4]; // an int
    const j = r.int(0, starts.length);
    const off = slot - starts[j];
    if (off < 0 || off > 255) return [3, 4];
    const packed = r.int(0, 8) === 0 ? [40, 20, 16, 100, 36, 44][r.int(0, 6)] : packs[j];
    return [off, packed];
  };
  /** Writes `n` elements and their type bytes; returns where they start. */
  const elements = (n) => {
    const self = out.length;
    const types = [];
    for (let e = 0; e < n; e++) {
      const [off, packed] = element(self, out.length);
      out.push(off);
      types.push(packed);
    }
    out.push(...types);
    return self;
  };
  const nodes = r.int(2, 9);
  for (let node = 0; node < nodes && out.length <= 180; node++) {
    const kind = r.int(0, 3);
    if (kind === 0) {
      const t = text(r.bool() ? r.int(1, 12) : r.int(33, 48));
      out.push(t.length);
      starts.push(out.length);
      packs.push(20);
      out.push(...t, 0);
    } else if (kind === 1) {
      const n = r.int(1, 5);
      out.push(n);
      starts.push(elements(n));
      packs.push(40);
    } else {
      const n = r.int(2, 4);
      let chosen = [...keys].sort(() => r.int(0, 3) - 1).slice(0, n);
      if (r.int(0, 6) !== 0) chosen = chosen.sort((x, y) => x - y);
      out.push(n);
      const kv = out.length;
      for (const k of chosen) out.push(out.length - k);
      const prefix = out.length;
      out.push(prefix - kv, 1, n);
      starts.push(elements(n), kv);
      packs.push(36, 56);
    }
  }
  if (starts.length === 0) {
    out.push(1);
    starts.push(out.length);
    packs.push(20);
    out.push(120, 0);
  }
  const last = starts.length - 1;
  out.push(Math.min(out.length - starts[last], 255), packs[last], 1);
  return new Uint8Array(out);
}

/** A builder's buffer that shares in every way a builder can: reused values, shared strings, shared keys vectors. */
function sharing(r) {
  const share = r.bool() ? pure.Share.Keys | pure.Share.Strings : pure.Share.Keys;
  const b = new pure.Builder({ share, dedupKeyVectors: r.bool() });
  const kept = [];
  const leaf = () => {
    switch (r.int(0, 5)) {
      case 0:
        b.string(["a", "same text", "x".repeat(40), "ü".repeat(20)][r.int(0, 4)]);
        break;
      case 1:
        b.int(r.int(-300, 300));
        break;
      case 2:
        b.typedVector([1, 2, r.int(0, 1 << 30)], "i32");
        break;
      case 3:
        b.blob(new Uint8Array(r.int(0, 40)));
        break;
      default:
        b.double(r.int(0, 1000) / 7);
    }
  };
  const node = (depth) => {
    if (kept.length > 0 && r.int(0, 4) === 0) {
      b.reuseValue(kept[r.int(0, kept.length)]);
      return;
    }
    if (depth > 4 || r.int(0, 3) === 0) {
      leaf();
    } else if (r.bool()) {
      b.startVector();
      const n = r.int(0, 5);
      for (let i = 0; i < n; i++) node(depth + 1);
      b.endVector();
    } else {
      b.startMap();
      for (const k of ["alpha", "beta", "gamma", "delta", "épsilon"]) {
        if (!r.bool()) continue;
        b.key(k);
        node(depth + 1);
      }
      b.endMap();
    }
    if (r.int(0, 3) === 0) kept.push(b.lastValue());
  };
  b.startVector();
  const n = r.int(1, 8);
  for (let i = 0; i < n; i++) node(0);
  b.endVector();
  return b.finish();
}

test("small structures with cycles and aliases get the core's verdict, from decode and toJSON too", { skip: native ? false : "native addon not built" }, () => {
  const r = rng(7);
  const seen = new Map();
  for (let i = 0; i < 40000; i++) {
    const bytes = structure(r);
    const ours = located(() => pure.verify(bytes));
    const what = `structure ${i}: ${bytes.join(",")}`;
    // The native error comes with the same kind, offset and path.
    assert.equal(located(() => native.verify(bytes)), ours, what);
    // The one-pass decode and toJSON reject exactly these, with the verifier's
    // error (a cycle is a Cycle, not nesting past the limit).
    const decoded = located(() => pure.decode(bytes));
    assert.equal(decoded.startsWith("BudgetExceeded") ? "ok" : decoded, ours, `decode of ${what}`);
    assert.equal(located(() => pure.toJSON(bytes)), ours, `toJSON of ${what}`);
    const kind = ours.split("@")[0];
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
  }
  for (const kind of ["ok", "Cycle", "InvalidUtf8", "UnsortedKeys"]) {
    assert.ok((seen.get(kind) ?? 0) >= 20, `verdicts: ${JSON.stringify([...seen])}`);
  }
});

test("buffers full of sharing, damaged or not, get the core's verdict", { skip: native ? false : "native addon not built" }, () => {
  const r = rng(20261207);
  let accepted = 0;
  let rejected = 0;
  for (let i = 0; i < 3000; i++) {
    const bytes = sharing(r);
    // Every third buffer as built; the others with one to three bytes changed.
    if (i % 3 !== 0) {
      const n = r.int(1, 4);
      for (let j = 0; j < n; j++) bytes[r.int(0, bytes.length)] = r.int(0, 256);
    }
    const ours = outcome(() => pure.verify(bytes));
    const core = outcome(() => native.verify(bytes));
    assert.equal(ours, core, `buffer ${i}: ${bytes.join(",")}`);
    if (ours === "ok") accepted++;
    else rejected++;
  }
  assert.ok(accepted > 1000 && rejected > 500, `accepted ${accepted}, rejected ${rejected}`);
});
