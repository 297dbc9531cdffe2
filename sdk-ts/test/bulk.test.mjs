// Numeric vectors are decoded in bulk (one copy, one typed-array load per
// element) when they are long enough; the element-by-element reads are the
// oracle: every length around the thresholds, every width, values beyond
// 2^53 (bigints), and vectors whose elements do not share one type.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fb from "../dist/index.js";

/** Every range bound of the integer field types, and one past it. */
const EDGES = [-129, -128, 127, 128, 255, 256, -32769, -32768, 32767, 32768, 65535, 65536, -(2 ** 31) - 1, -(2 ** 31),
  2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, -(2 ** 53 - 1), 2 ** 53 - 1, -(2n ** 53n), 2n ** 53n, -1, 0];
const LENGTHS = [0, 1, 7, 8, 31, 32, 33, 64, 255, 256, 257, 1000, 4096, 20000];

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296);
}

/** Values of one kind: small and large ints, beyond 2^53, floats. */
function values(kind, n, r) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const x = r();
    switch (kind) {
      case "small": out.push(Math.floor(x * 200) - 100); break;
      case "i32": out.push(Math.floor(x * 2 ** 32) - 2 ** 31); break;
      case "i64": out.push(i % 97 === 5 ? -(2n ** 63n) + BigInt(i) : i % 89 === 3 ? 2n ** 53n + BigInt(i) : Math.floor((x - 0.5) * 2 ** 53)); break;
      case "u64": out.push(i % 97 === 5 ? 2n ** 64n - 1n - BigInt(i) : Math.floor(x * 2 ** 53)); break;
      case "f64": out.push((x - 0.5) * 1e10); break;
      case "f32": out.push(Math.fround(x * 1000)); break;
      case "edges": out.push(EDGES[i % EDGES.length]); break;
      // The bounds of one- and two-byte elements, which keep the vector that narrow.
      case "i8": out.push([-128, -1, 0, 1, 127][i % 5]); break;
      case "u8": out.push([0, 1, 127, 128, 255][i % 5]); break;
      case "i16": out.push([-32768, -129, -128, -1, 0, 127, 128, 32767][i % 8]); break;
      case "u16": out.push([0, 255, 256, 32768, 65535][i % 5]); break;
    }
  }
  return out;
}

/** The oracle: the lazy reader, element by element. */
function perElement(buf) {
  const v = fb.root(buf).asVector();
  const out = [];
  for (let i = 0; i < v.length; i++) {
    const e = v.get(i);
    out.push(e.isFloat ? e.asNumber() : e.asInt());
  }
  return out;
}

test("untyped numeric vectors decode in bulk exactly as element by element", () => {
  const r = rng(7);
  let n = 0;
  for (const kind of ["small", "i32", "i64", "u64", "f64", "f32", "edges", "i8", "u8", "i16", "u16"]) {
    for (const len of LENGTHS) {
      for (const width of [1, 2, 4, 8]) {
        const b = new fb.Builder();
        b.forceMinWidth(width);
        b.startVector();
        for (const v of values(kind, len, r)) {
          if (kind === "f32") b.float(v);
          else if (kind === "f64") b.double(v);
          else if (kind === "u64" || kind === "u8" || kind === "u16") b.uint(v);
          else b.int(v);
        }
        b.endVector();
        const buf = b.finish();
        assert.deepEqual(fb.decode(buf), perElement(buf), `${kind} x${len} at width ${width}`);
        n++;
      }
    }
  }
  assert.ok(n > 300);
});

test("typed numeric vectors decode in bulk exactly as element by element", () => {
  const r = rng(11);
  const kinds = {
    small: ["i8", "i16", "i32", "i64", "u8"], i32: ["i32", "i64"], i64: ["i64"], u64: ["u64"], f64: ["f64"], f32: ["f32", "f64"],
    // The bounds of the one- and two-byte widths, signed and unsigned.
    i8: ["i8", "i16"], u8: ["u8", "u16"], i16: ["i16"], u16: ["u16", "u32"],
  };
  for (const [kind, stores] of Object.entries(kinds)) {
    for (const store of stores) {
      for (const len of LENGTHS) {
        let vals = values(kind, len, r);
        if (store === "u8") vals = vals.map((v) => Math.abs(v));
        const b = new fb.Builder();
        b.typedVector(vals, store);
        const buf = b.finish();
        assert.deepEqual(fb.decode(buf), perElement(buf), `${kind} as ${store} x${len}`);
      }
    }
  }
});

test("a vector that mixes types, or a budget too small for it, takes the element-by-element path", () => {
  for (const len of [8, 300, 5000]) {
    const b = new fb.Builder();
    b.startVector();
    for (let i = 0; i < len; i++) {
      if (i === len - 1) b.string("end");
      else if (i % 2) b.double(i + 0.5);
      else b.int(i);
    }
    b.endVector();
    const buf = b.finish();
    const got = fb.decode(buf);
    assert.equal(got.length, len);
    assert.equal(got[len - 1], "end");
    assert.equal(got[1], 1.5);
    assert.equal(got[2], 2);
    // One node short: the walk's own BudgetExceeded, at the element it reaches.
    const limits = { maxNodes: len, maxBytes: 1 << 20 };
    assert.throws(() => fb.decode(buf, { budget: limits }), (e) => e instanceof fb.FlexError && e.kind === "BudgetExceeded");
  }
  const b = new fb.Builder();
  b.startVector();
  for (let i = 0; i < 1000; i++) b.double(i / 3);
  b.endVector();
  const buf = b.finish();
  // 1001 nodes are needed (the vector and its elements).
  assert.throws(() => fb.decode(buf, { budget: { maxNodes: 1000, maxBytes: 1 << 20 } }), (e) => e.kind === "BudgetExceeded");
  assert.equal(fb.decode(buf, { budget: { maxNodes: 1001, maxBytes: 1 << 20 } }).length, 1000);
});

test("typed list fields read in bulk give exactly the per-element reads, range errors included", () => {
  const r = rng(3);
  const readers = {
    i8: [-128, 127, (c, p, w, t) => c.int(p, w, t, -128, 127)],
    u16: [0, 65535, (c, p, w, t) => c.int(p, w, t, 0, 65535)],
    i32: [-(2 ** 31), 2 ** 31 - 1, (c, p, w, t) => c.int(p, w, t, -(2 ** 31), 2 ** 31 - 1)],
    u32: [0, 2 ** 32 - 1, (c, p, w, t) => c.int(p, w, t, 0, 2 ** 32 - 1)],
    i64: [-(2 ** 53 - 1), 2 ** 53 - 1, (c, p, w, t) => c.i64(p, w, t)],
    u64: [0, 2 ** 53 - 1, (c, p, w, t) => c.u64(p, w, t)],
  };
  const oracle = (buf, read) => {
    const c = new fb.DecodeContext(buf);
    const v = fb.root(buf).asVector();
    const out = [];
    for (let i = 0; i < v.length; i++) {
      const e = v.get(i);
      try {
        out.push(read(c, e.pos, e.slotWidth, (e.type << 2) | [1, 2, 4, 8].indexOf(e.width)));
      } catch (x) {
        return { error: x.kind, index: i };
      }
    }
    return out;
  };
  const bulk = (buf, lo, hi, read) => {
    const c = new fb.DecodeContext(buf);
    const [p, w, t] = c.root();
    try {
      return c.ints(p, w, t, lo, hi, read);
    } catch (x) {
      return { error: x.kind, index: x.path?.[0] };
    }
  };
  for (const [name, [lo, hi, read]] of Object.entries(readers)) {
    for (const kind of ["small", "i32", "i64", "u64", "edges"]) {
      for (const len of [1, 8, 300, 5000]) {
        const vals = values(kind, len, r);
        for (const store of kind === "u64" ? ["u64"] : ["i64", "i32"]) {
          if (store === "i32" && kind !== "small" && kind !== "i32") continue;
          for (let shift = 0; shift < (kind === "edges" ? EDGES.length : 1); shift++) {
            if (shift > 0) vals.push(vals.shift());
            const b = new fb.Builder();
            b.typedVector(vals, store);
            const buf = b.finish();
            assert.deepEqual(bulk(buf, lo, hi, read), oracle(buf, read), `${name} from ${kind} as ${store} x${len}`);
          }
        }
      }
    }
  }
});

test("f32 list fields round doubles the way the f32 reader does, in bulk or not", () => {
  for (const len of [3, 40, 5000]) {
    const vals = Array.from({ length: len }, (_, i) => i / 7);
    const b = new fb.Builder();
    b.typedVector(vals, "f64");
    const buf = b.finish();
    const c = new fb.DecodeContext(buf);
    const [p, w, t] = c.root();
    const got = c.numbers(p, w, t, (cx, q, qw, qt) => cx.f32(q, qw, qt), true);
    assert.deepEqual(got, vals.map(Math.fround));
  }
});

test("decoded blobs are copies, also when the input is a Node Buffer", () => {
  const bytes = Buffer.from(fb.encode({ b: new Uint8Array([5, 6, 7]) }));
  const first = fb.decode(bytes).b;
  first[0] = 99;
  assert.equal(fb.decode(bytes).b[0], 5);
});

/** Vectors of strings decoded in one text decode must equal the element-by-element reads. */
function stringVector(strings, options) {
  const b = new fb.Builder(options);
  b.startVector();
  for (const s of strings) {
    if (typeof s === "string") b.string(s);
    else b.int(s);
  }
  b.endVector();
  return b.finish();
}

function stringsByElement(buf) {
  const v = fb.root(buf).asVector();
  const out = [];
  for (let i = 0; i < v.length; i++) out.push(v.get(i).asString());
  return out;
}

function typedStrs(buf, options) {
  const c = new fb.DecodeContext(buf, options);
  const [p, w, t] = c.root();
  return c.strs(p, w, t);
}

test("vectors of strings decode in one text decode exactly as element by element", () => {
  const r = rng(5);
  const word = (n) => Array.from({ length: n }, () => String.fromCharCode(32 + Math.floor(r() * 95))).join("");
  const cases = [];
  for (const len of [0, 1, 7, 8, 9, 100, 3000]) {
    cases.push(Array.from({ length: len }, (_, i) => word(i % 70)));
    // One element that is not ASCII, at the start, middle or end.
    for (const at of [0, len >> 1, len - 1]) {
      if (len === 0) continue;
      const v = Array.from({ length: len }, (_, i) => word(5 + (i % 20)));
      v[at] = v[at] + "é€😀";
      cases.push(v);
    }
    // A string of 128 bytes or more: its size prefix is not ASCII.
    if (len > 2) cases.push(Array.from({ length: len }, (_, i) => word(i === 1 ? 300 : 10)));
    // With NUL and control characters inside the strings.
    cases.push(Array.from({ length: len }, (_, i) => `a\u0000b\u0001${i}\u007f`));
  }
  // Repeated strings, shared by the builder: elements refer back to one copy.
  cases.push(Array.from({ length: 200 }, (_, i) => `s${i % 7}`));
  let n = 0;
  for (const strings of cases) {
    for (const options of [undefined, { share: fb.Share.Keys | fb.Share.Strings }]) {
      const buf = stringVector(strings, options);
      assert.deepEqual(fb.decode(buf), strings);
      assert.deepEqual(stringsByElement(buf), strings);
      assert.deepEqual(typedStrs(buf), strings);
      n++;
    }
  }
  assert.ok(n > 40);
});

test("vectors of strings spanning more than one 64 KB piece decode exactly as element by element", () => {
  const r = rng(11);
  const word = (n) => Array.from({ length: n }, () => String.fromCharCode(32 + Math.floor(r() * 95))).join("");
  const cases = [];
  // About 400 KB of strings: several pieces, with pieces ending mid-vector.
  const big = Array.from({ length: 10000 }, (_, i) => word(10 + (i % 61)));
  cases.push(big);
  // One element that is not ASCII, in the first, a middle and the last piece.
  for (const at of [3, 5000, 9999]) {
    const v = big.slice();
    v[at] = v[at] + "é";
    cases.push(v);
  }
  // Strings of 64 KB and more, alone in their pieces, between short ones.
  cases.push(["a", "x".repeat(70000), "b", "y".repeat(65536), "c", "d", "e", "f", "g"]);
  for (const strings of cases) {
    const buf = stringVector(strings);
    assert.deepEqual(fb.decode(buf), strings);
    assert.deepEqual(typedStrs(buf), strings);
  }
  // Elements in no order: shared strings far apart, referred to alternately
  // (each pair of neighbours spans more than a piece), between unique fillers.
  const far = [];
  far.push("first " + word(20));
  for (let i = 0; i < 200; i++) far.push(word(1000));
  far.push("last " + word(20));
  for (let i = 0; i < 2000; i++) far.push(i % 2 ? far[0] : far[201]);
  const shared = stringVector(far, { share: fb.Share.Keys | fb.Share.Strings });
  assert.ok(shared.length < 260000, "the repeated strings are shared");
  assert.deepEqual(stringsByElement(shared), far);
  assert.deepEqual(fb.decode(shared), far);
  assert.deepEqual(typedStrs(shared), far);
});

test("a vector of strings with a bad element gets the element-by-element error", () => {
  const strings = Array.from({ length: 20 }, (_, i) => `value ${i}`);
  const buf = stringVector(strings);
  // Corrupt one byte of element 13 into a lone continuation byte.
  const text = new TextEncoder().encode("value 13");
  let at = -1;
  for (let i = 0; i + text.length <= buf.length && at < 0; i++) {
    if (text.every((b, k) => buf[i + k] === b)) at = i;
  }
  assert.ok(at > 0);
  const bad = buf.slice();
  bad[at + 2] = 0x80;
  for (const f of [() => fb.decode(bad), () => typedStrs(bad)]) {
    assert.throws(f, (e) => e instanceof fb.FlexError && e.kind === "InvalidUtf8" && e.offset === at && e.path[0] === 13);
  }
  // A missing NUL after element 4.
  const nul = buf.slice();
  const four = new TextEncoder().encode("value 4");
  let p4 = -1;
  for (let i = 0; i + four.length < nul.length && p4 < 0; i++) {
    if (four.every((b, k) => nul[i + k] === b) && nul[i + four.length] === 0) p4 = i;
  }
  nul[p4 + four.length] = 0x41;
  for (const f of [() => fb.decode(nul), () => typedStrs(nul)]) {
    assert.throws(f, (e) => e instanceof fb.FlexError && e.kind === "MissingNul" && e.path[0] === 4);
  }
  // A mixed vector and a budget too small for the strings take the same paths as before.
  const mixed = stringVector([...strings.slice(0, 10), 7, ...strings.slice(10)]);
  assert.deepEqual(fb.decode(mixed), [...strings.slice(0, 10), 7, ...strings.slice(10)]);
  const total = strings.reduce((a, s) => a + s.length, 0);
  for (const f of [(o) => fb.decode(buf, o), (o) => typedStrs(buf, o)]) {
    assert.throws(() => f({ budget: { maxNodes: 1000, maxBytes: total - 1 } }), (e) => e.kind === "BudgetExceeded");
  }
  assert.deepEqual(typedStrs(buf, { budget: { maxNodes: 1000, maxBytes: total } }), strings);
});

test("maps of ASCII strings decoded from one run: the values, budget verdicts and errors of entry-by-entry reads", async () => {
  const { useRuns } = await import("../dist/runs.js");
  const { resetShapes } = await import("../dist/shapes.js");
  const sf = await import("./gen/out/string_flood.js");
  // Generic decode would compile these maps' key sets into object literals
  // after a few buffers (shapes.ts), which never take the run path.
  resetShapes(false);
  const r = rng(77);
  const word = (n) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(r() * 26))).join("");
  const dict = (n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${String(i).padStart(3, "0")}${word(1 + (i % 7))}`, word(3 + (i % 11))]));
  const buffers = [];
  for (const n of [7, 8, 9, 20, 64]) {
    const map = dict(n);
    // Generated (keys and values as the typed encoder writes them) and generic encodings.
    buffers.push(sf.encodeStringFlood({ strings: [], map }));
    buffers.push(fb.encode({ map, strings: [] }));
    // Values that break the run: non-ASCII, a number, a key that is not ASCII.
    const keys = Object.keys(map);
    buffers.push(fb.encode({ map: { ...map, [keys[n >> 1]]: "é" + word(4) }, strings: [] }));
    buffers.push(fb.encode({ map: { ...map, [keys[n - 1]]: 12345 }, strings: [] }));
    buffers.push(fb.encode({ map: { ...map, ["ключ"]: word(5) }, strings: [] }));
  }
  const outcome = (f) => {
    try {
      return { value: f() };
    } catch (e) {
      if (!(e instanceof fb.FlexError)) throw e;
      return { kind: e.kind, path: fb.formatPath(e.path), offset: e.offset };
    }
  };
  const both = (f) => {
    useRuns(false);
    try {
      const want = outcome(f);
      useRuns(true);
      return [outcome(f), want];
    } finally {
      useRuns(true);
    }
  };
  let compared = 0;
  for (const buf of buffers) {
    const decoders = [(o) => sf.decodeStringFlood(buf, o), (o) => fb.decode(buf, o)];
    for (const decode of decoders) {
      const [got, want] = both(() => decode({}));
      assert.deepEqual(got, want);
      // Every byte budget from nothing to enough, and node budgets around the entries.
      for (let maxBytes = 0; maxBytes <= 1200; maxBytes++) {
        const [g, w] = both(() => decode({ budget: { maxNodes: 1 << 20, maxBytes } }));
        assert.deepEqual(g, w, `maxBytes ${maxBytes}`);
        compared++;
      }
      for (let maxNodes = 0; maxNodes <= 80; maxNodes++) {
        const [g, w] = both(() => decode({ budget: { maxNodes, maxBytes: 1 << 20 } }));
        assert.deepEqual(g, w, `maxNodes ${maxNodes}`);
        compared++;
      }
    }
    // Seeded mutations: the same values or the same errors either way.
    for (let m = 0; m < 60; m++) {
      const bytes = buf.slice();
      for (let k = 0; k < 1 + (m % 3); k++) bytes[Math.floor(r() * bytes.length)] = Math.floor(r() * 256);
      for (const decode of [(o) => sf.decodeStringFlood(bytes, o), (o) => fb.decode(bytes, o)]) {
        const [g, w] = both(() => decode({}));
        assert.deepEqual(g, w, `mutation ${m}`);
        compared++;
      }
    }
  }
  resetShapes(true);
  assert.ok(compared > 5000, `${compared} comparisons`);
});

test("Builder.strings writes lists longer than one joined piece as string() would", () => {
  const r = rng(9001);
  const ascii = "abcdefghijklmnopqrstuvwxyz0123456789 ";
  const text = (len) => Array.from({ length: len }, () => ascii[Math.floor(r() * ascii.length)]).join("");
  // One builder for every build, each after a buffer of 0x7f bytes: bytes
  // the one write leaves unwritten (a piece's last NUL) show as 7f.
  const b = new fb.Builder({ initialCapacity: 1 << 20 });
  const build = (list, bulk) => {
    b.clear();
    // (Small enough that the builder keeps its buffer: 3 bytes a unit are reserved.)
    b.string("\u007f".repeat(340000));
    b.finish();
    b.clear();
    b.startVector();
    if (bulk) b.strings(list);
    else for (const s of list) b.string(s);
    b.endVector();
    return Buffer.from(b.finish()).toString("hex");
  };
  const lengths = [
    () => Math.floor(r() * 60),
    () => 200 + Math.floor(r() * 56),
    () => (r() < 0.5 ? 255 : Math.floor(r() * 4)),
  ];
  for (let round = 0; round < 12; round++) {
    const len = lengths[round % 3];
    // Up to 330 K units: one to ten pieces of 32 K units.
    const list = Array.from({ length: 300 + Math.floor(r() * 1000) }, () => text(len()));
    if (round % 4 === 3) {
      // Not ASCII in a later piece: pieces already written are written again per string.
      list[list.length - 1 - Math.floor(r() * 50)] = "ascii and then ж";
    }
    assert.equal(build(list, true), build(list, false), `round ${round}`);
  }
});

test("Builder.numberVector and encode's number arrays write what pushing each number writes", () => {
  const r = rng(5150);
  const specials = [0, -0, 0.5, -1.5, 1e300, NaN, Infinity, -Infinity, 2 ** 53 - 1, -(2 ** 53) + 1, 2 ** 53, 9223372036854776000, 3.4e38];
  let rounds = 0;
  for (let round = 0; round < 600; round++) {
    const n = [0, 1, 7, 8, 9, 40, 300][Math.floor(r() * 7)];
    const kind = round % 4;
    const list = Array.from({ length: n }, () => {
      if (r() < 0.1) return specials[Math.floor(r() * specials.length)];
      const big = [2 ** 7, 2 ** 15, 2 ** 31, 2 ** 52][Math.floor(r() * 4)];
      if (kind === 0) return Math.floor((r() - 0.5) * 2 * big);
      if (kind === 1) return Math.fround((r() - 0.5) * big);
      if (kind === 2) return (r() - 0.5) * big;
      return r() < 0.5 ? Math.floor(r() * big) : r() * big;
    });
    const filler = Math.floor(r() * 9);
    const min = [1, 1, 2, 8][Math.floor(r() * 4)];
    const build = (direct) => {
      const b = new fb.Builder();
      b.startVector();
      b.blob(new Uint8Array(filler));
      b.forceMinWidth(min);
      if (direct) b.numberVector(list);
      else {
        b.startVector();
        for (const x of list) {
          if (Number.isSafeInteger(x) && !(x === 0 && 1 / x < 0)) b.int(x);
          else b.double(x);
        }
        b.endVector();
      }
      b.int(7);
      b.endVector();
      return Buffer.from(b.finish()).toString("hex");
    };
    assert.equal(build(true), build(false), `round ${round}: ${n} numbers, min ${min}`);
    // encode takes the same path for arrays of 8 or more numbers, and the
    // general one for anything else (a string among them).
    const one = (x) => {
      const b = new fb.Builder();
      b.startVector();
      for (const e of x) {
        if (typeof e === "number" && Number.isSafeInteger(e) && !(e === 0 && 1 / e < 0)) b.int(e);
        else if (typeof e === "number") b.double(e);
        else b.string(e);
      }
      b.endVector();
      return Buffer.from(b.finish()).toString("hex");
    };
    assert.equal(Buffer.from(fb.encode(list)).toString("hex"), one(list), `round ${round}: encode`);
    if (n > 0) {
      const mixed = list.slice();
      mixed[Math.floor(r() * n)] = "x";
      assert.equal(Buffer.from(fb.encode(mixed)).toString("hex"), one(mixed), `round ${round}: mixed`);
    }
    if (n >= 8) rounds++;
  }
  assert.ok(rounds > 200, `${rounds} rounds of 8 or more numbers`);
});

test("Builder.stringVector writes what startVector, string() and endVector write", () => {
  const r = rng(7707);
  const other = ["é", "ж", "語", "😀", "\ud800"];
  const text = (len) => Array.from({ length: len }, () => (r() < 0.1 ? other[Math.floor(r() * other.length)] : "q")).join("");
  let wide = 0;
  for (let round = 0; round < 500; round++) {
    const n = [0, 1, 2, 3, 40, 300][Math.floor(r() * 6)] + Math.floor(r() * 3);
    const lens = [0, 3, 20, 70, 300];
    const list = Array.from({ length: n }, () => text(lens[Math.floor(r() * lens.length)] + Math.floor(r() * 4)));
    // Fillers around the 1- and 2-byte offset limits, forced widths, sharing.
    const filler = [0, 1, 200, 255, 300, 65000, 65530][Math.floor(r() * 7)] + Math.floor(r() * 9);
    const min = [1, 1, 2, 4][Math.floor(r() * 4)];
    const share = r() < 0.3 ? fb.Share.Keys | fb.Share.Strings : fb.Share.Keys;
    const build = (direct) => {
      const b = new fb.Builder({ share });
      b.startVector();
      b.blob(new Uint8Array(filler));
      b.forceMinWidth(min);
      if (direct) b.stringVector(list);
      else {
        b.startVector();
        for (const s of list) b.string(s);
        b.endVector();
      }
      b.int(7);
      b.endVector();
      return b.finish();
    };
    const bytes = build(true);
    assert.equal(Buffer.from(bytes).toString("hex"), Buffer.from(build(false)).toString("hex"),
      `round ${round}: ${n} strings, filler ${filler}, min ${min}, share ${share}`);
    const v = fb.decode(bytes);
    assert.deepEqual(v[1], list.map((s) => new TextDecoder().decode(new TextEncoder().encode(s))));
    if (filler > 60000 && n > 0) wide++;
  }
  assert.ok(wide > 20, `${wide} rounds past the 2-byte limit`);
});

test("Builder.strings writes what string() writes for each element, runs of ASCII or not", () => {
  const r = rng(4242);
  const pick = (chars) => chars[Math.floor(r() * chars.length)];
  const ascii = "abcXYZ019 -_.:/\u0000\u007f";
  const other = ["é", "ж", "語", "😀", "\ud800", "\udfff", "\u0080", "\u00ff"];
  const text = (len, mixed) => Array.from({ length: len }, () => (mixed && r() < 0.05 ? pick(other) : pick(ascii))).join("");
  let runs = 0;
  for (let round = 0; round < 400; round++) {
    const n = [0, 1, 7, 8, 9, 20, 64][round % 7];
    const mixed = round % 5 === 0;
    const long = round % 11 === 0;
    const list = Array.from({ length: n }, () => text(long && r() < 0.2 ? 200 + Math.floor(r() * 100) : Math.floor(r() * 60), mixed));
    const before = Array.from({ length: round % 3 }, () => text(1 + (round % 4), false));
    for (const share of [fb.Share.Keys, fb.Share.Keys | fb.Share.Strings]) {
      const build = (bulk) => {
        const b = new fb.Builder({ share });
        b.startVector();
        // Something before the strings, so they start at every alignment.
        for (const s of before) b.string(s);
        if (round % 2) b.double(1.5);
        if (bulk) b.strings(list);
        else for (const s of list) b.string(s);
        // And a string shared with one of the list's (string sharing).
        if (n > 0) b.string(list[0]);
        b.endVector();
        return Buffer.from(b.finish()).toString("hex");
      };
      assert.equal(build(true), build(false), `round ${round}, share ${share}`);
      if (n >= 8 && !mixed && !long && share === fb.Share.Keys) runs++;
    }
    // The generic encoder takes arrays of strings the same way.
    const doc = { list, n };
    const viaBuilder = (() => {
      const b = new fb.Builder();
      b.startMap();
      b.key("list");
      b.startVector();
      for (const s of list) b.string(s);
      b.endVector();
      b.key("n");
      b.int(n);
      b.endMap();
      return Buffer.from(b.finish()).toString("hex");
    })();
    assert.equal(Buffer.from(fb.encode(doc)).toString("hex"), viaBuilder, `round ${round}: encode`);
  }
  assert.ok(runs > 50, `${runs} rounds took the one-write path`);
});

test("vector and map widths across the offset limits are the Rust core's (from-json of the same JSON)", async () => {
  // Offsets that straddle the 1-, 2- and 4-byte limits: keys pooled far
  // back, strings of every size class before the containers that point at
  // them, and documents past 64 KiB; the widths the builder picks from its
  // two bounds (the lowest target's own slot, the last slot) or its
  // per-element search must be the core's, whose bytes are the C++
  // reference's.
  const { spawnSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const cli = process.env.FLEXBUF_CLI ?? fileURLToPath(new URL("../../target/release/flexbuf", import.meta.url));
  const r = rng(20261205);
  const names = Array.from({ length: 40 }, (_, i) => `key${i}${"k".repeat(i % 7)}`);
  const str = () => "s".repeat([0, 1, 30, 120, 250, 300, 700, 3000][Math.floor(r() * 8)]) + Math.floor(r() * 1000);
  const value = (depth) => {
    const x = r();
    if (depth < 4 && x < 0.2) {
      // Keys inserted in byte order: `encode` writes an object's keys
      // sorted, `from-json` in text order, so only then are the bytes equal.
      const keys = Array.from({ length: Math.floor(r() * 9) }, () => names[Math.floor(r() * names.length)]);
      const o = {};
      for (const k of [...new Set(keys)].sort()) o[k] = value(depth + 1);
      return o;
    }
    if (depth < 4 && x < 0.35) return Array.from({ length: Math.floor(r() * 9) }, () => value(depth + 1));
    if (x < 0.7) return str();
    return [Math.floor(r() * 300) - 150, Math.floor(r() * 2 ** 40), true, null][Math.floor(r() * 4)];
  };
  // Two slots of one vector pointing at one shared string, eight slots
  // apart, with the string pushed just under each offset limit: the first
  // slot's offset fits a width where the last one's does not.
  const shared = { share: fb.Share.KeysAndStrings };
  for (const [from, to] of [[225, 270], [65500, 65545]]) {
    for (let len = from; len < to; len++) {
      const doc = ["", "y".repeat(len), ["", 1, 2, 3, 4, 5, 6, ""], { a: "", b: 1, c: 2, d: 3, e: "" }];
      const c = spawnSync(cli, ["from-json", "--share", "keys-and-strings"], { input: JSON.stringify(doc) });
      assert.equal(c.status, 0, `${cli}: ${c.stderr ?? c.error}`);
      assert.deepEqual(Buffer.from(fb.encode(doc, shared)).toString("hex"), Buffer.from(c.stdout).toString("hex"), `filler ${len}`);
    }
  }
  for (const n of [5, 40, 200, 900]) {
    const doc = Array.from({ length: n }, () => value(0));
    const text = JSON.stringify(doc);
    const c = spawnSync(cli, ["from-json"], { input: text, maxBuffer: 1 << 28 });
    assert.equal(c.status, 0, `${cli}: ${c.stderr ?? c.error}`);
    const core = new Uint8Array(c.stdout);
    assert.ok(n < 200 || core.length > 65536, `document of ${n} values spans ${core.length} bytes`);
    assert.deepEqual(Buffer.from(fb.encode(doc)).toString("hex"), Buffer.from(core).toString("hex"), `${n} values`);
    assert.deepEqual(Buffer.from(fb.fromJSON(text)).toString("hex"), Buffer.from(core).toString("hex"), `${n} values, fromJSON`);
  }
});

test("short float vectors (coordinates) decode as element by element, at every length, width and budget", () => {
  const specials = [0, -0, 1.5, -2.25, NaN, Infinity, -Infinity, 5e-324, 1.7976931348623157e308, 43.420273000000009];
  for (let len = 1; len <= 8; len++) {
    for (const kind of ["f64", "f32"]) {
      for (const width of [1, 4, 8]) {
        const b = new fb.Builder();
        b.forceMinWidth(width);
        // A list of pairs/triples/... as GeoJSON holds them, then one alone.
        b.startVector();
        for (let row = 0; row < 3; row++) {
          b.startVector();
          for (let i = 0; i < len; i++) {
            const v = specials[(row * len + i) % specials.length];
            if (kind === "f32") b.float(v);
            else b.double(v);
          }
          b.endVector();
        }
        b.endVector();
        const buf = b.finish();
        const got = fb.decode(buf);
        // The oracle: the lazy reader, element by element.
        const v = fb.root(buf).asVector();
        for (let row = 0; row < 3; row++) {
          const r = v.get(row).asVector();
          const want = [];
          for (let i = 0; i < r.length; i++) want.push(r.get(i).asNumber());
          assert.deepEqual(got[row], want, `${kind} x${len} at width ${width}`);
          assert.ok(Array.isArray(got[row]));
        }
        // Every node counted: 1 + 3 * (1 + len) nodes pass, one fewer fails.
        const nodes = 1 + 3 * (1 + len);
        assert.equal(fb.decode(buf, { budget: { maxNodes: nodes, maxBytes: 1 << 20 } }).length, 3);
        assert.throws(() => fb.decode(buf, { budget: { maxNodes: nodes - 1, maxBytes: 1 << 20 } }), (e) => e.kind === "BudgetExceeded");
        got[0].push(1);
        assert.equal(got[0].length, len + 1);
      }
    }
  }
  // Floats mixed with another type in a short vector: each element keeps its type.
  const b = new fb.Builder();
  b.startVector();
  b.double(0.5);
  b.int(3);
  b.endVector();
  assert.deepEqual(fb.decode(b.finish()), [0.5, 3]);
});

test("vectors of one to three elements decode as element by element: values, budgets and error paths", () => {
  // Every mix of element kinds a short vector holds in documents (numbers,
  // strings, null, booleans, nested vectors and maps): how each is pushed,
  // what it decodes to, and the nodes its decode charges.
  const kinds = [
    [(b) => b.int(-7), -7, 1], [(b) => b.uint(300), 300, 1], [(b) => b.double(0.25), 0.25, 1],
    [(b) => b.string("héllo"), "héllo", 1], [(b) => b.null(), null, 1], [(b) => b.bool(true), true, 1],
    [(b) => { b.startVector(); b.int(1); b.endVector(); }, [1], 2],
    [(b) => { b.startMap(); b.key("a"); b.string("x"); b.endMap(); }, { a: "x" }, 2],
  ];
  const r = rng(0x5e11);
  for (let round = 0; round < 400; round++) {
    const len = 1 + Math.floor(r() * 4); // 1..4: the short path and the one after it
    const picks = Array.from({ length: len }, () => kinds[Math.floor(r() * kinds.length)]);
    const b = new fb.Builder();
    b.startVector();
    for (let row = 0; row < 2; row++) {
      b.startVector();
      for (const [push] of picks) push(b);
      b.endVector();
    }
    b.endVector();
    const buf = b.finish();
    const got = fb.decode(buf);
    const want = picks.map(([, value]) => value);
    assert.deepEqual(got, [want, want], `${JSON.stringify(want)}`);
    got[0].push(0);
    assert.equal(got[0].length, len + 1, "a plain growable array");
    // The node budget: exactly enough passes, one fewer fails.
    const nodes = 1 + 2 * (1 + picks.reduce((n, [, , k]) => n + k, 0));
    assert.equal(fb.decode(buf, { budget: { maxNodes: nodes, maxBytes: 1 << 20 } }).length, 2);
    assert.throws(() => fb.decode(buf, { budget: { maxNodes: nodes - 1, maxBytes: 1 << 20 } }), (e) => e.kind === "BudgetExceeded");
  }
  // A bad element: the error names its index inside the short vector.
  for (let len = 1; len <= 4; len++) {
    for (let bad = 0; bad < len; bad++) {
      const b = new fb.Builder();
      b.startVector();
      b.startVector();
      for (let i = 0; i < len; i++) b.string(i === bad ? "\u00ff\u00ff" : "ok");
      b.endVector();
      b.endVector();
      const buf = new Uint8Array(b.finish());
      // Break the bad string's UTF-8: its first byte (0xc3) becomes a stray continuation byte.
      const at = buf.findIndex((x, j) => x === 0xc3 && buf[j + 1] === 0xbf && buf[j + 2] === 0xc3);
      assert.ok(at > 0);
      buf[at] = 0xbf;
      assert.throws(() => fb.decode(buf), (e) => e.kind === "InvalidUtf8" && e.path[0] === 0 && e.path[1] === bad,
        `string ${bad} of ${len}`);
    }
  }
});

test("ints at every forced width and floats before and after the decoder's DataView read back as pushed", () => {
  // The generic decoder reads 4-byte integers from the bytes and its first
  // few floats by copying them, before any DataView exists; later floats and
  // 8-byte integers go through the view. Every mix must read the same.
  const ints = [0, 1, -1, 127, -128, 32767, -32768, 2147483647, -2147483648, 4294967295, -4294967296, 2 ** 53 - 1, -(2 ** 53 - 1)];
  const floats = [0.5, -1.25, 3.4028234663852886e38, 1e-300, Math.PI, -0, Infinity, -Infinity];
  for (const width of [1, 2, 4, 8]) {
    for (let nf = 0; nf <= floats.length; nf++) {
      const b = new fb.Builder();
      b.forceMinWidth(width);
      b.startVector();
      const want = [];
      // Floats first (read before anything makes the view), then ints
      // with the same floats between them.
      for (let i = 0; i < nf; i++) {
        b.double(floats[i]);
        want.push(floats[i]);
      }
      for (let i = 0; i < ints.length; i++) {
        b.int(ints[i]);
        want.push(ints[i]);
        if (i < nf) {
          b.double(floats[i]);
          want.push(floats[i]);
        }
      }
      b.startMap();
      b.key("f");
      b.double(floats[nf % floats.length]);
      b.key("i");
      b.int(-7);
      b.endMap();
      want.push({ f: floats[nf % floats.length], i: -7 });
      b.endVector();
      const got = fb.decode(b.finish());
      // A float alone at the root, at this width: read before any view.
      const root = new fb.Builder();
      root.forceMinWidth(width);
      root.double(floats[nf % floats.length]);
      assert.ok(Object.is(fb.decode(root.finish()), floats[nf % floats.length]), `root float ${nf} at width ${width}`);
      assert.equal(got.length, want.length, `width ${width}, ${nf} floats`);
      for (let i = 0; i < want.length; i++) {
        if (typeof want[i] === "number") assert.ok(Object.is(got[i], want[i]), `width ${width}, ${nf} floats, [${i}]: ${got[i]} for ${want[i]}`);
        else assert.deepEqual(got[i], want[i], `width ${width}, ${nf} floats, [${i}]`);
      }
    }
  }
});
