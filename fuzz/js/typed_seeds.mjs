// Writes the seeds of typed.fuzz.js (../seeds/typed_decode_ts) from the Rust
// typed_decode seeds (../seeds/typed_decode): both take one byte that picks
// the generated type, then the buffer; the Rust target picks from
// `dispatch::TYPES` (listed in ../seeds/typed_decode.types), this one from
// typed_coders.mjs. Run from fuzz/js after `cargo xtask build-all`, and again
// whenever a schema gains, loses or renames a type:
//   node typed_seeds.mjs
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { CODERS } from "./typed_coders.mjs";

// What the Rust seeds' first byte picks: a line per entry of
// `dispatch::TYPES`, "schema<TAB>namespace.Type" (fuzz/examples/make_seeds.rs
// writes it); the schema's file stem names the TypeScript module.
const rust = readFileSync(new URL("../seeds/typed_decode.types", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => {
    const [schema, type] = line.split("\t");
    return `${schema.split("/").pop().replace(/\.fxs$/, "")}.${type.split(".").pop()}`;
  });
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
