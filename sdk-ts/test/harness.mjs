// Conformance harness shared by the Node runner, the node:test suite and the
// browser page: replays case ops into the builder ("bytes"), verifies and
// annotates goldens ("values") and checks the invalid corpus ("invalid").
// Every function takes the flexbuf module (`fb`) so the same code runs
// against the pure-TS build, the native-backed Node entry and a browser.

export function fromHex(s) {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16);
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(b) {
  const parts = new Array(b.length);
  for (let i = 0; i < b.length; i++) parts[i] = HEX[b[i]];
  return parts.join("");
}

function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && !(c >= 0xd800 && c <= 0xdfff) ? 2 : 1;
  }
  return n;
}

function f32FromBits(hex) {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setUint32(0, parseInt(hex, 16));
  return dv.getFloat32(0);
}

function f64FromBits(hex) {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setBigUint64(0, BigInt("0x" + hex));
  return dv.getFloat64(0);
}

const big = (v) => (typeof v === "string" ? BigInt(v) : BigInt(v));

function scalars(kind, width, values) {
  if (kind === "float") return values.map((v) => (width === 4 ? f32FromBits(v) : f64FromBits(v)));
  if (kind === "bool") return values;
  return values.map((v) => (typeof v === "string" ? BigInt(v) : v));
}

function kindName(kind, width) {
  if (kind === "bool") return "bool";
  if (kind === "float") return width === 4 ? "f32" : "f64";
  return (kind === "int" ? "i" : "u") + width * 8;
}

/** Replays `ops` with C++ sharing `flags`; returns the finished bytes (throws on builder errors). */
export function build(fb, flags, ops) {
  const b = new fb.Builder({ share: flags });
  const marks = [];
  for (const op of ops) {
    const [name, ...a] = op;
    switch (name) {
      case "null": b.null(); break;
      case "bool": b.bool(a[0]); break;
      case "int": b.int(big(a[0])); break;
      case "uint": b.uint(big(a[0])); break;
      case "float": b.float(f32FromBits(a[0])); break;
      case "double": b.double(f64FromBits(a[0])); break;
      case "key": b.key(a[0]); break;
      case "string": b.string(a[0]); break;
      case "blob": b.blob(fromHex(a[0])); break;
      case "indirect_int": b.indirectInt(big(a[0])); break;
      case "indirect_uint": b.indirectUInt(big(a[0])); break;
      case "indirect_float": b.indirectFloat(f32FromBits(a[0])); break;
      case "indirect_double": b.indirectDouble(f64FromBits(a[0])); break;
      case "start_map": b.startMap(); break;
      case "end_map": b.endMap(); break;
      case "start_vector": b.startVector(); break;
      case "end_vector": b.endVectorAs(a[0], a[1]); break;
      case "scalar_vector": b.scalarVector(scalars(a[0], a[1], a[2]), kindName(a[0], a[1])); break;
      case "fixed_vector": b.fixedVector(scalars(a[0], a[1], a[2]), kindName(a[0], a[1])); break;
      case "typed_vector": b.typedVector(scalars(a[0], a[1], a[2]), kindName(a[0], a[1])); break;
      case "force_min_width": b.forceMinWidth(a[0]); break;
      case "mark": {
        const h = b.lastValue();
        if (!h) throw new Error("mark with no value");
        marks.push(h);
        break;
      }
      case "reuse": b.reuseValue(marks[a[0]]); break;
      default: throw new Error(`unknown op ${name}`);
    }
  }
  return b.finish();
}

/** The payload string of a float, as the Rust runner writes it. */
function floatPayload(f, fb) {
  if (Number.isNaN(f)) return "nan";
  if (f === Infinity) return "inf";
  if (f === -Infinity) return "-inf";
  return fb.formatFloat(f);
}

/** The annotated notation `[type, width, payload]` of a reference. */
export function annotate(fb, r, depth = 0, limits = { values: 4000000, bytes: 256 << 20, depth: 256, nul: false }, state = { values: 0, bytes: 0 }) {
  if (++state.values > limits.values) throw new Error("too many values");
  const t = r.typeName;
  const inline = ["null", "int", "uint", "float", "bool"].includes(t);
  const width = inline ? r.slotWidth : r.width;
  let payload;
  switch (t) {
    case "null": payload = null; break;
    case "bool": payload = r.asBool(); break;
    case "int": case "indirect_int": case "uint": case "indirect_uint": payload = r.asBigInt().toString(); break;
    case "float": case "indirect_float": payload = floatPayload(r.asNumber(), fb); break;
    case "key": case "string": {
      const s = r.asString();
      state.bytes += utf8Length(s);
      if (state.bytes > limits.bytes) throw new Error("too many bytes");
      if (t === "string" && limits.nul) {
        const [at, len] = r.sizedSpan();
        if (r.b.u8[at + len] !== 0) throw new Error("string without NUL");
      }
      payload = s;
      break;
    }
    case "blob": {
      const b = r.asBlob();
      state.bytes += b.length;
      if (state.bytes > limits.bytes) throw new Error("too many bytes");
      payload = toHex(b);
      break;
    }
    case "map": {
      if (depth >= limits.depth) throw new Error("too deep");
      const m = r.asMap();
      payload = [];
      for (let i = 0; i < m.length; i++) {
        const k = m.key(i);
        state.bytes += utf8Length(k);
        payload.push([k, annotate(fb, m.value(i), depth + 1, limits, state)]);
      }
      break;
    }
    default: {
      if (depth >= limits.depth) throw new Error("too deep");
      const v = r.asVector();
      payload = [];
      for (let i = 0; i < v.length; i++) payload.push(annotate(fb, v.get(i), depth + 1, limits, state));
    }
  }
  return [t, width, payload];
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function clip(s, n) {
  return s.length > n ? s.slice(0, n) + "…" : s;
}

/** "bytes": our builder writes the golden bytes (or refuses where the case records a refusal). */
export function checkBytes(fb, c) {
  let bytes;
  try {
    bytes = build(fb, c.flags, c.ops);
  } catch (e) {
    if (c.deviation === "typed-string-vector") return null;
    return `builder failed: ${e.message}`;
  }
  if (c.deviation === "typed-string-vector") return "builder wrote bytes although this case records that it refuses";
  const hex = toHex(bytes);
  return hex === c.bytes ? null : `bytes differ\n  ours:   ${clip(hex, 300)}\n  golden: ${clip(c.bytes, 300)}`;
}

/** "values": the golden verifies and reads back as the annotated value (checked read too). */
export function checkValue(fb, c) {
  const bytes = fromHex(c.bytes);
  try {
    fb.verify(bytes);
  } catch (e) {
    return `verify failed: ${e.message}`;
  }
  let got;
  try {
    got = annotate(fb, fb.root(bytes));
  } catch (e) {
    return `read failed: ${e.message}`;
  }
  if (!same(got, c.value)) return `value differs\n  ours:   ${clip(JSON.stringify(got), 300)}\n  golden: ${clip(JSON.stringify(c.value), 300)}`;
  return null;
}

const VERIFIER_ONLY = ["unsorted_keys", "duplicate_keys", "key_value_length_mismatch"];
const UNTRUSTED = { values: 200000, bytes: 16 << 20, depth: 64, nul: true };

/** "invalid": one corpus entry (`bytes` are the file's contents). */
export function checkInvalid(fb, entry, bytes) {
  let verdict = null;
  try {
    fb.verify(bytes);
  } catch (e) {
    verdict = e;
  }
  let json;
  let jsonErr = null;
  try {
    json = fb.toJSON(bytes);
  } catch (e) {
    jsonErr = e;
  }
  let walked;
  let walkErr = null;
  try {
    walked = annotate(fb, fb.root(bytes), 0, UNTRUSTED);
  } catch (e) {
    walkErr = e;
  }
  let decodeErr = null;
  try {
    fb.decode(bytes);
  } catch (e) {
    decodeErr = e;
  }
  if (entry.valid) {
    if (verdict) return `valid file rejected by verify: ${verdict.message}`;
    if (entry.expand === "budget") {
      if (!jsonErr) return `toJSON expanded a DAG bomb to ${json.length} chars`;
      if (jsonErr.kind !== "BudgetExceeded") return `toJSON failed with ${jsonErr.kind}, not BudgetExceeded`;
      if (!decodeErr) return "decode expanded a DAG bomb";
      if (decodeErr.kind !== "BudgetExceeded") return `decode failed with ${decodeErr.kind}, not BudgetExceeded`;
      return null;
    }
    if (jsonErr) return `toJSON failed: ${jsonErr.message}`;
    if (entry.json !== undefined && json !== entry.json) return `toJSON gives ${clip(json, 200)}, the manifest ${clip(entry.json, 200)}`;
    if (decodeErr) return `decode of a valid file failed: ${decodeErr.message}`;
    if (walkErr) return `checked read of a valid file failed: ${walkErr.message}`;
    return null;
  }
  if (!verdict) return "verify accepted an invalid file";
  if (!(verdict instanceof fb.FlexError)) return `verify threw a non-FlexError: ${verdict}`;
  if (entry.error && entry.error !== "any" && verdict.kind !== entry.error) {
    return `verify fails with ${verdict.kind} (${verdict.message}), the manifest says ${entry.error}`;
  }
  if (!jsonErr) return "toJSON accepted an invalid file";
  if (!decodeErr) return "decode accepted an invalid file";
  if (!(decodeErr instanceof fb.FlexError)) return `decode threw a non-FlexError: ${decodeErr}`;
  if (!walkErr && !VERIFIER_ONLY.includes(entry.class)) return `checked read accepted an invalid file as ${clip(JSON.stringify(walked), 200)}`;
  return null;
}

/** A category result line. */
export function category(lang, name) {
  return { lang, category: name, passed: 0, total: 0, failures: [] };
}

export function record(cat, item, failure) {
  cat.total++;
  if (failure === null) cat.passed++;
  else if (cat.failures.length < 50) cat.failures.push(`${item}: ${failure}`);
}

/** Runs bytes + values over case files (`files`: parsed JSON of conformance/cases/*.json). */
export function runCases(fb, lang, files, filter = () => true) {
  const bytes = category(lang, "bytes");
  const values = category(lang, "values");
  for (const f of files) {
    for (const c of f.cases) {
      if (!filter(c)) continue;
      record(bytes, c.name, guard(() => checkBytes(fb, c)));
      record(values, c.name, guard(() => checkValue(fb, c)));
    }
  }
  return [bytes, values];
}

function guard(f) {
  try {
    return f();
  } catch (e) {
    return `threw ${e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : e}`;
  }
}

/** Runs the invalid corpus (`items`: [{entry, bytes}]). */
export function runInvalid(fb, lang, items) {
  const cat = category(lang, "invalid");
  for (const { entry, bytes } of items) record(cat, `${entry.file} (${entry.class})`, guard(() => checkInvalid(fb, entry, bytes)));
  return cat;
}

// Agreement: damaged buffers with the Rust core's verdicts (conformance/README.md,
// "Agreement"). Full reads stop at 20,000 values: damaged DAG bombs stay valid.
const AGREEMENT_LIMITS = { values: 20000, bytes: 16 << 20, depth: 64, nul: true };
const WALK_LIMITS = new Set(["too many values", "too many bytes", "too deep", "string without NUL"]);

/** `ok`, or the kind of the FlexError `f` throws (anything else is rethrown). */
export function outcome(fb, f) {
  try {
    f();
    return "ok";
  } catch (e) {
    if (e instanceof fb.FlexError) return e.kind;
    throw e;
  }
}

/** "agreement": one damaged buffer; `verify` and `json` are the core's outcomes ("ok" or an error kind). */
export function checkDamaged(fb, verify, json, bytes) {
  const ours = outcome(fb, () => fb.verify(bytes));
  if (ours !== verify) return `core says ${verify}, verify says ${ours}`;
  let walkOk = true;
  try {
    annotate(fb, fb.root(bytes), 0, AGREEMENT_LIMITS);
  } catch (e) {
    if (!(e instanceof fb.FlexError) && !WALK_LIMITS.has(e && e.message)) throw e;
    walkOk = e instanceof fb.FlexError ? e.kind : "limit";
  }
  if (verify !== "ok") {
    for (const [name, f] of [["decode", () => fb.decode(bytes)], ["toJSON", () => fb.toJSON(bytes)]]) {
      const got = outcome(fb, f);
      if (got === "ok") return `${name} accepted a buffer verify rejects`;
      if (got !== verify) return `${name} fails with ${got}, the core's verify with ${verify}`;
    }
    return null;
  }
  const decoded = outcome(fb, () => fb.decode(bytes));
  if (decoded !== "ok" && !(decoded === "BudgetExceeded" && json === "BudgetExceeded")) {
    return `decode of an accepted buffer failed with ${decoded} (the core's toJSON: ${json})`;
  }
  const text = outcome(fb, () => fb.toJSON(bytes));
  if (text !== json) return `toJSON gives ${text}, the core ${json}`;
  if (walkOk !== true && walkOk !== "limit") return `checked read of an accepted buffer failed with ${walkOk}`;
  return null;
}

/** Runs the agreement category (`items`: [{name, verify, json, bytes}]). */
export function runAgreement(fb, lang, items) {
  const cat = category(lang, "agreement");
  for (const d of items) record(cat, d.name, guard(() => checkDamaged(fb, d.verify, d.json, d.bytes)));
  return cat;
}
