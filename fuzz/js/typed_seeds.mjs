// Writes the seeds of typed.fuzz.js (../seeds/typed_decode_ts) from the Rust
// typed_decode seeds (../seeds/typed_decode): both take one byte that picks
// the generated type, then the buffer; the Rust target picks from
// `dispatch::TYPES` (conformance/typed-rust/src/dispatch.rs), this one from
// typed_coders.mjs. Run from fuzz/js after `cargo xtask build-all`, and again
// whenever a schema gains, loses or renames a type:
//   node typed_seeds.mjs
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { CODERS } from "./typed_coders.mjs";

const dispatch = readFileSync(new URL("../../conformance/typed-rust/src/dispatch.rs", import.meta.url), "utf8");
const start = dispatch.indexOf("pub const TYPES");
const body = dispatch.slice(start, dispatch.indexOf("];", start));
// Each entry: (schema, "namespace.Type", coder!(..)); the schema is a constant
// or a literal path, whose file stem names the TypeScript module.
const consts = Object.fromEntries([...dispatch.matchAll(/const (\w+): &str = "([^"]+)";/g)].map((m) => [m[1], m[2]]));
const rust = [...body.matchAll(/\(\s*("([^"]+)"|\w+),\s*"([\w.]+)",\s*coder!/g)].map((m) => {
  const schema = m[2] ?? consts[m[1]];
  if (schema === undefined) throw new Error(`unknown schema constant ${m[1]}`);
  const stem = schema.split("/").pop().replace(/\.fxs$/, "");
  return `${stem}.${m[3].split(".").pop()}`;
});
const entries = body.split("coder!(").length - 1;
if (rust.length !== entries) throw new Error(`read ${rust.length} of the ${entries} entries of dispatch::TYPES`);
const index = new Map(CODERS.map((c, i) => [c.name, i]));
const from = new URL("../seeds/typed_decode/", import.meta.url);
const to = new URL("../seeds/typed_decode_ts/", import.meta.url);
rmSync(to, { recursive: true, force: true });
mkdirSync(to, { recursive: true });
let written = 0;
for (const file of readdirSync(from).sort()) {
  const data = readFileSync(new URL(file, from));
  if (data.length === 0) continue;
  const name = rust[data[0] % rust.length];
  const i = index.get(name);
  if (i === undefined) throw new Error(`${file}: no TypeScript coder for ${name}`);
  const out = Buffer.from(data);
  out[0] = i;
  writeFileSync(new URL(file, to), out);
  written++;
}
console.log(`wrote ${written} seeds for ${CODERS.length} TypeScript coders into fuzz/seeds/typed_decode_ts`);
