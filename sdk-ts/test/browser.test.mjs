// Real-browser test: the built package (ES modules from dist/) is served by a
// tiny local HTTP server and loaded in headless Chromium (Debian's chromium,
// driven by playwright-core); the page replays the conformance goldens
// (every values case, every third build case, the invalid corpus without
// its slow DAG bombs) with the
// same harness as Node and reports the result lines back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, normalize, extname } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.FLEXBUF_CHROMIUM ?? "/usr/bin/chromium";
const sdk = fileURLToPath(new URL("..", import.meta.url));
const repo = join(sdk, "..");

const PAGE = `<!doctype html><meta charset="utf-8"><title>flexbuf browser conformance</title>
<script type="module">
import * as fb from "/sdk/dist/index.js";
import { runCases, runInvalid, fromHex } from "/sdk/test/harness.mjs";
import { compiledWriters } from "/sdk/dist/shapes.js";
import { writeUtf8 } from "/sdk/dist/utf8.js";
import { utf8EncodeMismatches } from "/sdk/test/utf8_encode_check.mjs";
const names = ["floats", "google", "indirect", "maps", "roots", "scalars", "sharing", "strings", "vectors"];
const files = await Promise.all(names.map((n) => fetch("/conformance/cases/" + n + ".json").then((r) => r.json())));
let i = 0;
const [, values] = runCases(fb, "ts-browser", files);
const [bytes] = runCases(fb, "ts-browser", files, () => i++ % 3 === 0);
const manifest = await fetch("/conformance/invalid/manifest.json").then((r) => r.json());
const items = await Promise.all(manifest.filter((e) => e.class !== "dag_bomb").map(async (entry) => ({
  entry, bytes: new Uint8Array(await (await fetch("/conformance/invalid/" + entry.file)).arrayBuffer()) })));
const invalid = runInvalid(fb, "ts-browser", items);
// encode's compiled object writers (new Function) work in the page and write what the loop wrote.
const record = { id: 7, name: "n", tags: ["t"], score: 2.5, ok: true, note: null };
const written = Array.from({ length: 12 }, () => Array.from(fb.encode([record, record, record])).join());
const writers = { compiled: compiledWriters(), same: written.every((w) => w === written[0]) };
// Encoder's views hold encode's bytes in the page too, call after call.
const encoder = new fb.Encoder();
const viewsSame = [record, [record, "é"], { a: [1, "é", 2.5] }, record].every((v) => Array.from(encoder.encode(v)).join() === Array.from(fb.encode(v)).join());
// Text outside ASCII of 64 bytes and more (decoded in JS in browsers up to
// 1 KB, by TextDecoder beyond): what was written, and a byte of a character
// replaced by ASCII in the middle or at the end rejected.
const wide = [];
for (const unit of ["é", "日本", "😀", "a語€", "ü".repeat(40) + "x"]) {
  for (const reps of [11, 22, 40, 100, 300, 341, 342, 400]) {
    const s = unit.repeat(reps);
    const bytes = fb.encode(s);
    if (fb.decode(bytes) !== s || fb.root(bytes).asString() !== s) wide.push(["decode", unit, reps]);
    const text = new TextEncoder().encode(s);
    const size = text.length;
    // The string's bytes: where its text starts in the buffer.
    let start = 0;
    while (text.some((b, k) => bytes[start + k] !== b)) start++;
    for (const from of [start + (size >> 1), start + size - 1]) {
      const bad = bytes.slice();
      let i = from;
      while (bad[i] < 0x80) i--;
      bad[i] = 0x41;
      try {
        fb.decode(bad);
        wide.push(["accepted", unit, reps, i - start]);
      } catch (e) {
        if (!(e instanceof fb.FlexError) || e.kind !== "InvalidUtf8") wide.push(["error", unit, reps, String(e)]);
      }
    }
  }
}
const extra = { utf8: utf8EncodeMismatches(writeUtf8), wide, backend: fb.backend, roundTrip: JSON.stringify(fb.decode(fb.encode({ a: [1, "é", 2.5] }))), writers, viewsSame };
window.__result = { lines: [bytes, values, invalid], extra };
</script>`;

// The same work in two stricter places: a page whose Content Security
// Policy refuses code compiled from strings (as Cloudflare Workers and many
// sites do), and a module Web Worker. Each encodes and decodes a batch of
// records often enough for the compiled writers and object builders to be
// tried, and reports the bytes and the decoded JSON of the last round.
function work(fb, compiledShapes, compiledWriters) {
  const records = Array.from({ length: 40 }, (_, i) => ({ id: i, name: "n" + i, tags: ["t", "é"], score: i / 4, ok: i % 2 === 0, note: null, at: 1700000000000 + i }));
  let bytes, decoded;
  for (let round = 0; round < 30; round++) {
    bytes = fb.encode(records);
    decoded = fb.decode(bytes);
  }
  return { bytes: Array.from(bytes).join(), json: JSON.stringify(decoded), shapes: compiledShapes(), writers: compiledWriters() };
}
const WORK = `
import * as fb from "/sdk/dist/index.js";
import { compiledShapes, compiledWriters } from "/sdk/dist/shapes.js";
${work.toString()}
export function run() { return work(fb, compiledShapes, compiledWriters); }
`;
const CSP_PAGE = `<!doctype html><meta charset="utf-8"><title>flexbuf under a CSP</title>
<script type="module" src="/csp.mjs"></script>`;
const CSP_SCRIPT = `
import { run } from "/work.mjs";
const violations = [];
document.addEventListener("securitypolicyviolation", (e) => violations.push(e.violatedDirective));
let evalRefused = false;
try { new Function("return 1"); } catch { evalRefused = true; }
const result = run();
window.__result = { ...result, evalRefused, violations };
`;
const WORKER_PAGE = `<!doctype html><meta charset="utf-8"><title>flexbuf in a Worker</title>
<script type="module">
const w = new Worker("/worker.mjs", { type: "module" });
w.onmessage = (e) => { window.__result = e.data; };
w.onerror = (e) => { window.__result = { error: String(e.message) }; };
</script>`;
const WORKER_SCRIPT = `
import { run } from "/work.mjs";
postMessage({ ...run(), global: typeof document === "undefined" ? "worker" : "page" });
`;
// Buffers in a SharedArrayBuffer (WebAssembly threads' memory, buffers
// shared between workers), in a cross-origin isolated page where such
// buffers exist: every reader gives what it gives for the same bytes in an
// ordinary buffer, and invalid text there is still invalid. Chromium's
// TextDecoder refuses views of shared memory with the TypeError it throws
// for invalid text, and long strings go to it.
const SHARED_PAGE = `<!doctype html><meta charset="utf-8"><title>flexbuf on shared memory</title>
<script type="module">
import * as fb from "/sdk/dist/index.js";
const texts = [];
for (const unit of ["x", "é", "日本", "😀", "a\\ufffdb"]) for (const reps of [3, 40, 300, 700, 30000]) texts.push(unit.repeat(reps));
const longKey = "key-" + "k".repeat(80);
const wideKey = "ключ".repeat(30);
const bytes = fb.encode({ [longKey]: texts, [wideKey]: { nested: texts.slice(5, 10) } });
const shared = (b) => { const u = new Uint8Array(new SharedArrayBuffer(b.length)); u.set(b); return u; };
const attempt = (f) => { try { return f(); } catch (e) { return "threw " + (e instanceof fb.FlexError ? e.kind : String(e)); } };
const s = shared(bytes);
const out = { isolated: self.crossOriginIsolated };
out.decode = attempt(() => JSON.stringify(fb.decode(s)) === JSON.stringify(fb.decode(bytes)));
out.toJSON = attempt(() => fb.toJSON(s) === fb.toJSON(bytes));
out.verify = attempt(() => { fb.verify(s); return true; });
out.root = attempt(() => texts.every((t, i) => fb.root(s).asMap().get(longKey).asVector().get(i).asString() === t));
// A byte in the middle of a long non-ASCII string made ASCII: rejected as in an ordinary buffer.
const long = new TextEncoder().encode(texts[13]);
let start = 0;
while (long.some((b, k) => bytes[start + k] !== b)) start++;
const bad = bytes.slice();
let i = start + (long.length >> 1);
while (bad[i] < 0xc0) i--;
bad[i] = 0x41;
out.invalid = [attempt(() => fb.decode(shared(bad))), attempt(() => fb.verify(shared(bad))), attempt(() => fb.decode(bad))];
window.__result = out;
</script>`;
const ISOLATED = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };

const ROUTES = {
  "/shared": ["text/html", SHARED_PAGE, ISOLATED],
  "/work.mjs": ["text/javascript", WORK, {}],
  "/csp": ["text/html", CSP_PAGE, { "content-security-policy": "script-src 'self'" }],
  "/csp.mjs": ["text/javascript", CSP_SCRIPT, {}],
  "/worker": ["text/html", WORKER_PAGE, {}],
  "/worker.mjs": ["text/javascript", WORKER_SCRIPT, {}],
};

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".html": "text/html" };

function serve() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(PAGE);
      return;
    }
    const route = ROUTES[url.pathname];
    if (route !== undefined) {
      res.writeHead(200, { "content-type": route[0], ...route[2] });
      res.end(route[1]);
      return;
    }
    const roots = { "/sdk/": sdk, "/conformance/": join(repo, "conformance") };
    for (const [prefix, dir] of Object.entries(roots)) {
      if (!url.pathname.startsWith(prefix)) continue;
      const path = normalize(join(dir, decodeURIComponent(url.pathname.slice(prefix.length))));
      if (!path.startsWith(dir) || !existsSync(path) || !statSync(path).isFile()) break;
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
      res.end(readFileSync(path));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/**
 * Runs `body` with `open(path)`, which loads a page of the local server in
 * headless Chromium and returns the `window.__result` it sets and the page
 * errors it raised.
 */
async function withChromium(body) {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (cargo xtask test does it with apt)`);
  const server = await serve();
  const profile = mkdtempSync(join(tmpdir(), "flexbuf-chromium-"));
  // A fresh profile directory per run (playwright passes it as --user-data-dir).
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const open = async (path) => {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
    const result = await page.waitForFunction(() => window.__result, null, { timeout: 150000 }).then((h) => h.jsonValue());
    await page.close();
    return { result, errors };
  };
  try {
    await body(open);
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

test("the built package replays the conformance goldens in headless Chromium", { timeout: 180000 }, async () => {
  await withChromium(async (open) => {
    const { result, errors } = await open("/");
    assert.deepEqual(errors, []);
    for (const l of result.lines) console.log(JSON.stringify(l));
    for (const l of result.lines) {
      assert.ok(l.total > 0, `${l.category}: nothing replayed`);
      assert.deepEqual(l.failures, [], l.category);
      assert.equal(l.passed, l.total, l.category);
    }
    assert.deepEqual(result.extra.utf8, [], "the browser's string writer disagrees with TextEncoder");
    assert.deepEqual(result.extra.wide, [], "the browser's reading of long non-ASCII strings");
    assert.equal(result.extra.backend, "pure");
    assert.equal(result.extra.roundTrip, '{"a":[1,"é",2.5]}');
    assert.ok(result.extra.writers.compiled > 0, "encode compiled an object writer in the page");
    assert.ok(result.extra.writers.same, "bytes written by the compiled writer equal the loop's");
    assert.equal(result.extra.viewsSame, true, "Encoder.encode wrote encode's bytes in the page");
  });
});

test("in shared memory (a cross-origin isolated page), buffers read as ordinary ones and invalid text stays invalid", { timeout: 180000 }, async () => {
  await withChromium(async (open) => {
    const { result, errors } = await open("/shared");
    assert.deepEqual(errors, []);
    assert.equal(result.isolated, true, "the page is cross-origin isolated (SharedArrayBuffer exists)");
    assert.equal(result.decode, true, "decode");
    assert.equal(result.toJSON, true, "toJSON");
    assert.equal(result.verify, true, "verify");
    assert.equal(result.root, true, "the lazy reader");
    assert.deepEqual(result.invalid, ["threw InvalidUtf8", "threw InvalidUtf8", "threw InvalidUtf8"]);
  });
});

test("under a CSP that refuses eval, and in a module Web Worker, encode and decode give Node's results", { timeout: 180000 }, async () => {
  const fb = await import("../dist/index.js");
  const { compiledShapes, compiledWriters } = await import("../dist/shapes.js");
  const want = work(fb, compiledShapes, compiledWriters);
  assert.ok(want.writers > 0 && want.shapes > 0, "in Node the batch compiles writers and object builders");
  await withChromium(async (open) => {
    const csp = await open("/csp");
    assert.deepEqual(csp.errors, []);
    assert.equal(csp.result.evalRefused, true, "the page's CSP refuses new Function");
    assert.equal(csp.result.bytes, want.bytes);
    assert.equal(csp.result.json, want.json);
    assert.equal(csp.result.writers, 0, "no writer was compiled under the CSP");
    assert.equal(csp.result.shapes, 0, "no object builder was compiled under the CSP");
    const worker = await open("/worker");
    assert.deepEqual(worker.errors, []);
    assert.equal(worker.result.error, undefined);
    assert.equal(worker.result.global, "worker");
    assert.equal(worker.result.bytes, want.bytes);
    assert.equal(worker.result.json, want.json);
    assert.ok(worker.result.writers > 0, "a Worker may compile writers");
  });
});
