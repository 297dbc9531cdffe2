// `cargo xtask bench ts`: the TypeScript SDK side by side with its peers on
// conformance/fixtures, one run, interleaved medians (suite.mjs), in Node (one process
// per fixture) and then in headless Chromium (browser.mjs, one page per
// fixture); both run the decode/encode rows of suite.mjs. With --write, the
// "## TypeScript SDK" section of docs/benchmarks.md is replaced.
//   node bench/bench.mjs [--write] [--time MS] [--only FIXTURE] [--no-browser]
import { readFileSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { pack, unpack } from "msgpackr";
import * as flex from "flatbuffers/mjs/flexbuffers.js";
import * as pure from "../dist/index.js";
import * as node from "../dist/node.js";
import { measure, median as batchedMedian } from "./suite.mjs";

const args = process.argv.slice(2);
const WRITE = args.includes("--write");
const TIME = Number(args[args.indexOf("--time") + 1]) || 150;
const ONLY = args.includes("--only") ? args[args.indexOf("--only") + 1] : null;
const BROWSER = !args.includes("--no-browser");
const root = new URL("../../", import.meta.url);
const gen = new URL("../test/gen/out/", import.meta.url);

/** Decode table columns, and the ratios shown (ours, peer), in Node and in Chromium alike. */
const DECODE_COLS = ["flexbuf", "flexbuf typed", "flatbuffers", "JSON.parse", "msgpackr"];
const DECODE_PAIRS = [["flexbuf", "flatbuffers"], ["flexbuf", "msgpackr"], ["flexbuf typed", "JSON.parse"], ["flexbuf typed", "msgpackr"]];
/** Encode table columns: the owned-buffer coders, their Encoder views, then the peers; and the ratios shown. */
const ENCODE_COLS = ["flexbuf", "flexbuf typed", "flexbuf (view)", "flexbuf typed (view)", "flatbuffers", "JSON.stringify", "msgpackr"];
const ENCODE_PAIRS = [["flexbuf", "flatbuffers"], ["flexbuf", "JSON.stringify"], ["flexbuf typed", "JSON.stringify"], ["flexbuf typed", "msgpackr"], ["flexbuf typed (view)", "JSON.stringify"], ["flexbuf typed (view)", "msgpackr"]];
const ROOTS = {
  user_profile: "UserProfile", api_response: "ApiResponse", chat_thread: "ChatThread", time_series: "TimeSeries",
  unicode_heavy: "UnicodeHeavy", string_flood: "StringFlood", wide_map: "WideMap", metrics_96k: "Metrics",
  repeated_maps: "RepeatedMaps", width_bomb: "WidthBomb", deep_nesting: null,
};

let sink = 0;
const use = (x) => { sink ^= typeof x === "object" && x !== null ? 1 : 0; };

const median = (fns) => batchedMedian(TIME, fns);

const results = [];
// Each fixture runs in its own Node process (the parent only aggregates), so
// JIT state and heap growth from one workload do not bleed into the next.
if (!ONLY) {
  for (const fixture of Object.keys(ROOTS)) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--only", fixture, "--time", String(TIME)], { encoding: "utf8", maxBuffer: 1 << 26 });
    if (child.status !== 0) throw new Error(`bench of ${fixture} failed:\n${child.stderr}`);
    const line = child.stdout.split("\n").find((l) => l.startsWith("{"));
    const r = JSON.parse(line);
    results.push(r);
    console.log(line);
  }
}
for (const [fixture, type] of Object.entries(ROOTS)) {
  if (ONLY !== fixture) continue;
  const text = readFileSync(new URL(`conformance/fixtures/${fixture}.json`, root), "utf8");
  const generic = pure.fromJSON(text);
  const typed = type && existsSync(new URL(`${fixture}.js`, gen)) ? await import(new URL(`${fixture}.js`, gen)) : null;
  const { decode, encode, sizes, peerReads } = await measure({ fb: pure, pack, unpack, flex, time: TIME, fixture, text, typed, type });
  const native = await median({
    "verify pure": () => use(pure.verify(generic)),
    "verify native": () => use(node.verify(generic)),
    "toJSON pure": () => use(pure.toJSON(generic)),
    "toJSON native": () => use(node.toJSON(generic)),
    "fromJSON pure": () => use(pure.fromJSON(text)),
    "fromJSON native": () => use(node.fromJSON(text)),
  });
  results.push({ fixture, decode, encode, native, sizes, peerReads });
  console.log(JSON.stringify({ fixture, decode, encode, native, sizes, peerReads }));
}
if (ONLY) process.exit(0);
const browser = BROWSER ? await (await import("./browser.mjs")).runBrowser(Object.entries(ROOTS), TIME) : null;

const fmt = (x) => (x === null || x === undefined ? "n/a" : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const ratio = (a, b) => (a == null || b == null ? "n/a" : `${(b / a).toFixed(2)}x`);

function table(title, key, cols, base, peers, rows = results) {
  let s = `### ${title}\n\nMedian µs per operation (lower is better); ratios are peer time / flexbuf time (above 1: flexbuf faster).\n\n`;
  s += `| fixture | ${cols.join(" | ")} | ${peers.map(([a, b]) => `${a} vs ${b}`).join(" | ")} |\n`;
  s += `| --- | ${cols.map(() => "---:").join(" | ")} | ${peers.map(() => "---:").join(" | ")} |\n`;
  for (const r of rows) {
    const row = r[key];
    s += `| ${r.fixture} | ${cols.map((c) => fmt(row[c])).join(" | ")} | ${peers.map(([a, b]) => ratio(row[a], row[b])).join(" | ")} |\n`;
  }
  return s + "\n";
}

function targets(results) {
  const lines = [];
  const check = (label, pairs) => {
    const bad = pairs.filter((p) => p.ok === false);
    const na = pairs.filter((p) => p.ok === null);
    const measured = pairs.length - na.length;
    lines.push(`- ${label}: ${bad.length === 0 ? `**met** on the ${measured} measurable fixture(s)` : "**not met**"}${bad.length ? ` (fails on ${bad.map((p) => `${p.f} ${p.r}`).join(", ")})` : ""}${na.length ? `; n/a on ${na.map((p) => p.f).join(", ")}` : ""}`);
  };
  const pair = (f, a, b, factor = 1) => ({ f, ok: a == null || b == null ? null : b / a >= factor, r: a && b ? `${(b / a).toFixed(2)}x` : "" });
  check("generic decode at least 3x faster than npm flatbuffers flexbuffers", results.map((r) => pair(r.fixture, r.decode["flexbuf"], r.decode["flatbuffers"], 3)));
  check("typed decode faster than JSON.parse from bytes on every fixture", results.map((r) => pair(r.fixture, r.decode["flexbuf typed"], r.decode["JSON.parse"])));
  check("typed encode faster than JSON.stringify to bytes on every fixture", results.map((r) => pair(r.fixture, r.encode["flexbuf typed"], r.encode["JSON.stringify"])));
  check("generic encode at least as fast as JSON.stringify to bytes", results.map((r) => pair(r.fixture, r.encode["flexbuf"], r.encode["JSON.stringify"])));
  check("generic decode at least as fast as msgpackr", results.map((r) => pair(r.fixture, r.decode["flexbuf"], r.decode["msgpackr"])));
  check("typed decode at least as fast as msgpackr", results.map((r) => pair(r.fixture, r.decode["flexbuf typed"], r.decode["msgpackr"])));
  return lines.join("\n") + "\n";
}

function browserSection({ rows, version }) {
  return `### Chromium

The same decode and encode tasks (\`bench/suite.mjs\`) in headless Chromium (${version}), driven by playwright-core as in
\`test/browser.test.mjs\`: the pure-TS package from \`dist/\` and the generated coders served as ES modules, one fresh page
per fixture, the same interleaved rounds.

${table("Chromium: decode (bytes -> JS values)", "decode", DECODE_COLS, "flexbuf", DECODE_PAIRS, rows)}${table("Chromium: encode (JS values -> bytes)", "encode", ENCODE_COLS, "flexbuf", ENCODE_PAIRS, rows)}### Targets in Chromium (this run)

${targets(rows)}`;
}

const section = `## TypeScript SDK

Command: \`cargo xtask bench ts\` (runs \`node bench/bench.mjs --write\` in \`sdk-ts/\`; the contenders of one table row run interleaved, round after round (${TIME} rounds; each round one batch of about 1 ms of calls of every contender, in an order that rotates and reverses), medians over rounds of the time per call, one run;
each fixture in its own Node process, then all of them again in headless Chromium, see "Chromium" below).
![TypeScript: peer time / flexbuf typed time per fixture, Node and Chromium, log scale](bench/ts.svg)

(Every median of this run: \`docs/bench/ts.json\`, written with the chart by \`cargo xtask bench ts\`.)
Node ${process.version}, ${process.arch}. Peers: npm \`flatbuffers\` (its \`flexbuffers\`), \`JSON.parse(TextDecoder.decode(bytes))\` /
\`TextEncoder.encode(JSON.stringify(v))\`, \`msgpackr\`. "flexbuf" is the generic \`decode\`/\`encode\` of plain values;
"flexbuf typed" the coders generated by \`flexbuf gen --lang ts\` from \`conformance/schemas\` (\`deep_nesting\` has none: its
schema does not describe the fixture's list levels). "(view)" is the same encode through an \`Encoder\`: the same bytes, returned
as a view of one reused buffer instead of a fresh \`Uint8Array\` (as msgpackr's \`pack\` writes into a kept buffer); the targets
count the owned-buffer columns. Decoding is checked (safe on untrusted bytes) in every flexbuf column.
"n/a" for flatbuffers decode: its reader throws on that fixture (8-byte-wide vectors, or its own large buffers).
The machine has 2 cores shared with other jobs and switches between speeds minutes apart: absolute medians move between runs by up to 3x; interleaving keeps the ratios of one row comparable.

${table("Decode (bytes -> JS values)", "decode", DECODE_COLS, "flexbuf", DECODE_PAIRS)}${table("Encode (JS values -> bytes)", "encode", ENCODE_COLS, "flexbuf", ENCODE_PAIRS)}${table("Pure TS vs native core (neon) on Node", "native", ["verify pure", "verify native", "toJSON pure", "toJSON native", "fromJSON pure", "fromJSON native"], null, [["verify native", "verify pure"], ["toJSON native", "toJSON pure"], ["fromJSON native", "fromJSON pure"]])}### Sizes (bytes)

| fixture | JSON | flexbuf | flexbuf typed | flatbuffers | msgpackr |
| --- | ---: | ---: | ---: | ---: | ---: |
${results.map((r) => `| ${r.fixture} | ${r.sizes.json} | ${r.sizes.flexbuf} | ${r.sizes.typed ?? "n/a"} | ${r.sizes.flatbuffers} | ${r.sizes.msgpackr} |`).join("\n")}

### Targets (this run)

${targets(results)}
${browser ? browserSection(browser) : "### Chromium\n\nNot run (`--no-browser`).\n"}
### Native decision

The Node entry (\`import "flexbuf"\` on Node) routes \`verify\`, \`toJSON\` and \`fromJSON\` through the native core when the
ratio column of the native table is above 1 for them (one call per message, \`Uint8Array\` in, string or one new buffer out);
\`decode\`, \`encode\` and the typed coders always run in TypeScript: they produce or consume JS objects, and building those
from native code needs one N-API call per value, which costs more than the TypeScript decode itself (DESIGN.md, "Cross once").
A native object-building decode was not implemented, so it has no column here.
`;

if (WRITE) {
  const path = new URL("docs/benchmarks.md", root);
  let doc = existsSync(path) ? readFileSync(path, "utf8") : "# Benchmarks\n";
  const start = doc.indexOf("## TypeScript SDK");
  if (start >= 0) {
    const next = doc.indexOf("\n## ", start + 3);
    doc = doc.slice(0, start) + section + (next >= 0 ? doc.slice(next + 1) : "");
  } else {
    doc = doc.trimEnd() + "\n\n" + section;
  }
  writeFileSync(path, doc);
  console.log(`wrote the "## TypeScript SDK" section of ${fileURLToPath(path)}`);
  // Every median (µs per call) for the chart xtask draws (docs/bench/ts.{json,svg}).
  const pick = (rows) => rows.map(({ fixture, decode, encode }) => ({ fixture, decode, encode }));
  const raw = { unit: "µs per call (median)", node: pick(results), chromium: browser ? pick(browser.rows) : null };
  const target = new URL("target/", root);
  mkdirSync(target, { recursive: true });
  writeFileSync(new URL("ts-bench.json", target), JSON.stringify(raw, null, 1) + "\n");
} else {
  console.log(section);
}
if (sink === 42) console.log("");
