// Times the generic `decode` and `encode` against `JSON.parse` /
// `JSON.stringify` (from and to bytes) and msgpackr on JSON files given on
// the command line (any size), such as the public benchmark documents
// canada.json, citm_catalog.json and twitter.json (the data/ directory of
// serde-rs/json-benchmark), msgpackr through its module `pack` and `unpack`
// (standard MessagePack, as bench/bench.mjs measures it):
//
//   npm run build && node bench/json_files.mjs canada.json twitter.json
//
// `--large` times four documents of many keys instead (built here; the
// Python SDK's tools/large_dicts.py builds the same): ids_50k, one object of
// 50,000 keys `key<n>` in scrambled order; ids_50k_sorted, the same keys
// inserted in order; records_5k, 5,000 ids each to a record of 3 fields;
// one_off_5k, 5,000 objects of two keys of their own.
//
// Each file: 15 rounds, each running every contender for about 30 ms in
// turn; medians per call and peer time / flexbuf time. Run it on a quiet
// machine, twice, and quote it only when the runs agree.
import { readFileSync } from "node:fs";
import { pack, unpack } from "msgpackr";
import * as fb from "../dist/index.js";
import { interleaved } from "./rounds.mjs";

const paths = process.argv.slice(2);
if (paths.length === 0) {
  console.error("usage: node bench/json_files.mjs <file.json>... | --large");
  process.exit(2);
}
const range = (n, f) => Array.from({ length: n }, (_, i) => f(i));
const LARGE = {
  ids_50k: () => Object.fromEntries(range(50000, (i) => [`key${(i * 7919) % 50000}`, i])),
  ids_50k_sorted: () => Object.fromEntries(range(50000, (i) => [`key${String(i).padStart(5, "0")}`, i])),
  records_5k: () => Object.fromEntries(range(5000, (i) => [`id${i}`, { name: `n${i}`, v: i, ok: true }])),
  one_off_5k: () => range(5000, (i) => ({ [`a${i}`]: i, [`b${i}`]: "x" })),
};
const documents = paths[0] === "--large"
  ? Object.entries(LARGE).map(([name, make]) => [name, JSON.stringify(make())])
  : paths.map((path) => [path, readFileSync(path, "utf8")]);
const te = new TextEncoder();
const td = new TextDecoder();
for (const [path, text] of documents) {
  const value = JSON.parse(text);
  const bytes = fb.encode(value);
  const jsonBytes = te.encode(text);
  const packed = pack(value);
  const contenders = {
    "flexbuf decode": () => fb.decode(bytes),
    "JSON.parse": () => JSON.parse(td.decode(jsonBytes)),
    "msgpackr unpack": () => unpack(packed),
    "flexbuf encode": () => fb.encode(value),
    "JSON.stringify": () => te.encode(JSON.stringify(value)),
    "msgpackr pack": () => pack(value),
  };
  const m = interleaved(contenders);
  const ratio = (peer, ours) => `${(m[peer] / m[ours]).toFixed(2)}x`;
  console.log(
    `${path}: ` + Object.entries(m).map(([k, v]) => `${k} ${v.toFixed(3)} ms`).join(", ") +
      ` | decode vs JSON.parse ${ratio("JSON.parse", "flexbuf decode")}, vs msgpackr ${ratio("msgpackr unpack", "flexbuf decode")};` +
      ` encode vs JSON.stringify ${ratio("JSON.stringify", "flexbuf encode")}, vs msgpackr ${ratio("msgpackr pack", "flexbuf encode")}`,
  );
}
