// The TypeScript coders generated from every conformance schema, as the
// typed fuzz target (typed.fuzz.js) and its seed writer (typed_seeds.mjs)
// both number them: each module of sdk-ts/test/gen/out (made by
// `cargo xtask build-all` / `cargo xtask test`) in file-name order, each
// type in export-name order, named `<schema stem>.<Type>`. A type is a pair
// of exports `decode<Type>(bytes, options)` and `encode<Type>(value)`.
import { existsSync, readdirSync } from "node:fs";

const gen = new URL("../../sdk-ts/test/gen/out/", import.meta.url);
if (!existsSync(gen)) {
  throw new Error("sdk-ts/test/gen/out is missing: run `cargo xtask build-all` (it generates the coders)");
}

/** `{ name, decode, encode }` for every generated type, in the order above. */
export const CODERS = [];
for (const file of readdirSync(gen).filter((f) => f.endsWith(".js")).sort()) {
  const m = await import(new URL(file, gen));
  const stem = file.slice(0, -3);
  for (const name of Object.keys(m).sort()) {
    const t = /^decode([A-Z]\w*)$/.exec(name)?.[1];
    if (t === undefined || t.endsWith("From") || typeof m[`encode${t}`] !== "function") continue;
    CODERS.push({ name: `${stem}.${t}`, decode: m[name], encode: m[`encode${t}`] });
  }
}
if (CODERS.length === 0 || CODERS.length > 256) throw new Error(`${CODERS.length} generated coders: one byte must pick each`);
