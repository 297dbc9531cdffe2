// The measurements of one fixture, shared by the Node run (bench.mjs) and the
// headless Chromium run (browser.mjs): every dependency comes in as an
// argument, so the same code runs in both and the columns mean the same.

/**
 * How many calls of `fn` make one sample of about a millisecond. Browsers
 * clamp `performance.now()` (100 µs, or 5 µs when cross-origin isolated), so
 * one call per sample would measure the clock; batches measure the code.
 */
function batchOf(fn) {
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < 5) {
    fn();
    n++;
    elapsed = performance.now() - start;
  }
  return Math.max(1, Math.ceil(n / elapsed));
}

/**
 * Milliseconds each task runs before its batch is sized: the engine optimizes
 * a function only after many calls (generated decoders measured up to 4x slower
 * after 100 ms of warm-up than after 300 ms).
 */
const WARM_MS = 300;

/**
 * Task name -> median µs per call (null when the task threw). The tasks of one
 * comparison run interleaved: each round runs one batch (about a millisecond
 * of calls) of every task, in an order that rotates and reverses from round to
 * round, so a change of the machine's speed (a shared machine switches between
 * speeds minutes apart) falls on every task alike instead of on whichever task
 * ran through it. `time` is each task's share in milliseconds (one round per
 * millisecond, at least 21 rounds).
 */
export function median(time, fns) {
  const out = {};
  const tasks = [];
  for (const [name, fn] of Object.entries(fns)) {
    if (!fn) continue;
    try {
      // Warm first, so the batch is sized from optimized code.
      const until = performance.now() + WARM_MS;
      while (performance.now() < until) fn();
      tasks.push({ name, fn, k: batchOf(fn), samples: [] });
    } catch {
      out[name] = null;
    }
  }
  const batch = (t) => {
    const start = performance.now();
    for (let i = 0; i < t.k; i++) t.fn();
    return (performance.now() - start) / t.k;
  };
  for (const t of tasks) for (let i = 0; i < 5; i++) batch(t);
  const rounds = Math.max(21, Math.round(time));
  for (let r = 0; r < rounds; r++) {
    const order = tasks.slice(r % tasks.length).concat(tasks.slice(0, r % tasks.length));
    if (r % 2 === 1) order.reverse();
    for (const t of order) t.samples.push(batch(t));
  }
  for (const t of tasks) {
    const s = t.samples.sort((a, b) => a - b);
    out[t.name] = s[s.length >> 1] * 1000;
  }
  return out;
}

function works(f) {
  try {
    f();
    return true;
  } catch {
    return false;
  }
}

/**
 * Decode and encode rows of one fixture.
 * @param d.fb the flexbuf package; d.pack/d.unpack msgpackr's; d.flex npm flatbuffers' flexbuffers;
 *   d.text the fixture's JSON; d.typed its generated module (or null) and d.type its root type.
 */
export async function measure({ fb, pack, unpack, flex, time, fixture, text, typed, type }) {
  const te = new TextEncoder();
  const td = new TextDecoder();
  let sink = 0;
  const use = (x) => { sink ^= typeof x === "object" && x !== null ? 1 : 0; };
  const value = JSON.parse(text);
  const generic = fb.fromJSON(text);
  const jsonBytes = te.encode(text);
  const msg = pack(value);
  const theirs = flex.encode(value);
  const theirsBuf = theirs.buffer.slice(theirs.byteOffset, theirs.byteOffset + theirs.byteLength);
  let t = null;
  if (typed && type) {
    const dec = typed[`decode${type}`];
    const enc = typed[`encode${type}`];
    const into = typed[`encode${type}Into`];
    const v = dec(generic);
    t = { v, bytes: enc(v), dec, enc, into };
  }
  const peerReads = works(() => flex.toObject(theirsBuf));
  const decode = median(time, {
    "flexbuf": () => use(fb.decode(generic)),
    "flexbuf typed": t && (() => use(t.dec(t.bytes))),
    "flatbuffers": peerReads ? () => use(flex.toObject(theirsBuf)) : null,
    "JSON.parse": () => use(JSON.parse(td.decode(jsonBytes))),
    "msgpackr": () => use(unpack(msg)),
  });
  // Encoder: the same bytes as views of one reused buffer (no fresh
  // ArrayBuffer per call; msgpackr's pack also writes into a kept buffer).
  const encoder = new fb.Encoder();
  const encode = median(time, {
    "flexbuf": () => use(fb.encode(value)),
    "flexbuf typed": t && (() => use(t.enc(t.v))),
    "flexbuf (view)": () => use(encoder.encode(value)),
    "flexbuf typed (view)": t && (() => use(encoder.encodeTyped(t.v, t.into))),
    "flatbuffers": () => use(flex.encode(value)),
    "JSON.stringify": () => use(te.encode(JSON.stringify(value))),
    "msgpackr": () => use(pack(value)),
  });
  const sizes = { json: jsonBytes.length, flexbuf: generic.length, typed: t?.bytes.length ?? null, flatbuffers: theirs.length, msgpackr: msg.length };
  return { fixture, decode, encode, sizes, peerReads, sink };
}
