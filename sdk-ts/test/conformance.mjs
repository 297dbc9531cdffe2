// The TypeScript conformance runner: prints one JSON line per category for
// the pure-TS runtime ("ts") and, when the native addon is built, for the
// native-backed Node entry ("ts-native").
//   node test/conformance.mjs [--pure-only]
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import * as pure from "../dist/index.js";
import { runCases, runInvalid, runAgreement } from "./harness.mjs";
import { runTyped, runTypedAgreement } from "./typed_harness.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const conf = join(here, "..", "..", "conformance");

export function loadCases() {
  const dir = join(conf, "cases");
  return readdirSync(dir).filter((f) => f.endsWith(".json")).sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));
}

export function loadInvalid() {
  const dir = join(conf, "invalid");
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
  return manifest.map((entry) => ({ entry, bytes: new Uint8Array(readFileSync(join(dir, entry.file))) }));
}

/**
 * The damaged buffers of the agreement category, from the file `cargo xtask
 * conformance` names in FLEXBUF_DAMAGED (written by `flexbuf-conformance
 * damage`); null without it.
 */
export function loadDamaged(path = process.env.FLEXBUF_DAMAGED) {
  if (!path) return null;
  const data = readFileSync(path);
  if (data.subarray(0, 16).toString("latin1") !== "FLEXBUF-DAMAGED\x01") throw new Error(`${path} is not a damaged-buffer file`);
  const count = data.readUInt32LE(16);
  const out = [];
  let pos = 20;
  for (let i = 0; i < count; i++) {
    const metaLen = data.readUInt32LE(pos);
    const [name, verify, json] = data.subarray(pos + 4, pos + 4 + metaLen).toString("utf8").split("\t");
    pos += 4 + metaLen;
    const len = data.readUInt32LE(pos);
    out.push({ name, verify, json, bytes: new Uint8Array(data.buffer, data.byteOffset + pos + 4, len) });
    pos += 4 + len;
  }
  return out;
}

export async function runAll(fb, lang) {
  const files = loadCases();
  const lines = [...runCases(fb, lang, files), runInvalid(fb, lang, loadInvalid())];
  const damaged = loadDamaged();
  if (damaged) lines.push(runAgreement(fb, lang, damaged));
  lines.push(await runTyped(fb, lang, conf));
  const typedDamaged = process.env.FLEXBUF_TYPED_DAMAGED;
  if (typedDamaged) lines.push(await runTypedAgreement(fb, lang, typedDamaged));
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const lines = await runAll(pure, "ts");
  const nativePath = join(here, "..", "native", "index.node");
  if (!process.argv.includes("--pure-only") && existsSync(nativePath)) {
    const node = await import("../dist/node.js");
    if (node.backend !== "native") throw new Error("native addon present but not loaded");
    lines.push(...(await runAll(node, "ts-native")));
  }
  for (const l of lines) console.log(JSON.stringify(l));
  if (lines.some((l) => l.passed !== l.total)) process.exitCode = 1;
}
