#!/usr/bin/env node
// `npx flexbuf gen --lang ts schema.fxs -o src/gen`: the flexbuf code
// generator, run through the package's native addon (native/index.node), the
// same Rust generator as the `flexbuf` CLI and the other SDKs' build plugins.
//
// Exit status: 0 on success, 1 when the schema has errors (printed as
// file:line:column: ...), 2 for a bad command line or a missing addon.
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

const USAGE = `usage: flexbuf gen --lang <rust|python|ts|kotlin> SCHEMA -o DIR [--ts-int64 auto|checked|bigint]

Generates typed coders for one language from a .fxs schema (its imports are followed).
  --lang L        language to generate
  -o, --output D  output directory (created when missing)
  --ts-int64 P    with --lang ts: how i64/u64 fields are typed (default: auto; see the README)
  -h, --help      this text`;

function usage(message) {
  if (message) process.stderr.write(`error: ${message}\n\n`);
  process.stderr.write(USAGE + "\n");
  process.exit(2);
}

function loadAddon() {
  try {
    return createRequire(import.meta.url)("../native/index.node");
  } catch (e) {
    process.stderr.write(
      "error: `flexbuf gen` runs the code generator in the package's native addon " +
        "(native/index.node), which is not available here" +
        (e && e.code ? ` (${e.code})` : "") +
        ".\nThe addon is built for Linux x86_64 by `cargo xtask build-all`; elsewhere, run the same " +
        "generator as the `flexbuf` CLI (`cargo install --path cli`, then `flexbuf gen ...`) or " +
        "from Python (`python -m flexbuf gen ...`).\n",
    );
    process.exit(2);
  }
}

const [command, ...rest] = process.argv.slice(2);
if (command === "-h" || command === "--help") {
  process.stdout.write(USAGE + "\n");
  process.exit(0);
}
if (command !== "gen") usage(command ? `unknown command \`${command}\`` : "a command is required");

let parsed;
try {
  parsed = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      lang: { type: "string" },
      output: { type: "string", short: "o" },
      "ts-int64": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
} catch (e) {
  usage(e.message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(USAGE + "\n");
  process.exit(0);
}
if (!values.lang) usage("--lang is required");
if (!values.output) usage("-o/--output is required");
if (positionals.length !== 1) usage("exactly one SCHEMA file is required");

const addon = loadAddon();
if (typeof addon.generate !== "function") {
  process.stderr.write("error: this native addon predates `flexbuf gen`; rebuild it with `cargo xtask build-all`\n");
  process.exit(2);
}
const result = addon.generate(values.lang, positionals[0], values.output, values["ts-int64"] ?? null);
if (result.error === "usage") usage(result.message);
if (result.error) {
  // The generator's diagnostics already read `file:line:column: error: ...`.
  process.stderr.write(`${result.message}\n`);
  process.exit(1);
}
for (const path of result.written) process.stdout.write(`wrote ${path}\n`);
