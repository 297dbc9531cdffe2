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

/** Task name -> median µs per operation (null when the task threw); each sample is a batch of calls. */
export async function median(Bench, time, fns) {
  const bench = new Bench({ time, warmupTime: Math.min(50, time) });
  const batches = {};
  for (const [name, fn] of Object.entries(fns)) {
    if (!fn) continue;
    let k;
    try {
      k = batchOf(fn);
    } catch {
      k = 1;
    }
    batches[name] = k;
    bench.add(name, () => {
      for (let i = 0; i < k; i++) fn();
    });
  }
  await bench.run();
  const out = {};
  for (const t of bench.tasks) out[t.name] = t.result?.error ? null : (t.result.latency.p50 * 1000) / batches[t.name];
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
 *   d.Bench tinybench's; d.text the fixture's JSON; d.typed its generated module (or null) and d.type its root type.
 */
export async function measure({ fb, pack, unpack, flex, Bench, time, fixture, text, typed, type }) {
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
    const v = dec(generic);
    t = { v, bytes: enc(v), dec, enc };
  }
  const peerReads = works(() => flex.toObject(theirsBuf));
  const decode = await median(Bench, time, {
    "flexbuf": () => use(fb.decode(generic)),
    "flexbuf typed": t && (() => use(t.dec(t.bytes))),
    "flatbuffers": peerReads ? () => use(flex.toObject(theirsBuf)) : null,
    "JSON.parse": () => use(JSON.parse(td.decode(jsonBytes))),
    "msgpackr": () => use(unpack(msg)),
  });
  const encode = await median(Bench, time, {
    "flexbuf": () => use(fb.encode(value)),
    "flexbuf typed": t && (() => use(t.enc(t.v))),
    "flatbuffers": () => use(flex.encode(value)),
    "JSON.stringify": () => use(te.encode(JSON.stringify(value))),
    "msgpackr": () => use(pack(value)),
  });
  const sizes = { json: jsonBytes.length, flexbuf: generic.length, typed: t?.bytes.length ?? null, flatbuffers: theirs.length, msgpackr: msg.length };
  return { fixture, decode, encode, sizes, peerReads, sink };
}
