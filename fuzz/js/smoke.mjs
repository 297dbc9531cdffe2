// Runs the Jazzer.js target's `fuzz` function without Jazzer.js: first every
// seed and every file of corpus/ (regression replay), then seeded random
// mutations of them (bytes flipped, cut, copied, inserted) for a number of
// seconds. Not coverage-guided; it exists for machines where the Jazzer.js
// native fuzzer cannot load (its 4.0.0 prebuild needs glibc 2.38) and as a
// quick check that the target itself works.
//   node smoke.mjs [--target typed.fuzz.js] [seconds=60] [seed=18] [dirs...]
// (the target defaults to reader.fuzz.js, its dirs to ../seeds/verify_read
// and corpus; typed.fuzz.js's to ../seeds/typed_decode_ts and corpus_typed).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const argv = process.argv.slice(2);
const target = argv[0] === "--target" ? argv.splice(0, 2)[1] : "reader.fuzz.js";
const { fuzz } = await import(new URL(target, import.meta.url));
const [seconds = "60", seedArg = "18", ...dirs] = argv;
const roots = dirs.length
  ? dirs
  : target === "typed.fuzz.js" ? ["../seeds/typed_decode_ts", "corpus_typed"] : ["../seeds/verify_read", "corpus"];
const inputs = [];
for (const dir of roots) {
  let names = [];
  try {
    names = readdirSync(dir).sort();
  } catch {
    continue;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isFile() && statSync(p).size <= 16384) inputs.push(readFileSync(p));
  }
}
if (inputs.length === 0) throw new Error("no seeds");

let state = BigInt(seedArg) ^ 0x9e3779b97f4a7c15n | 1n;
function next() {
  state ^= state >> 12n;
  state ^= (state << 25n) & 0xffffffffffffffffn;
  state ^= state >> 27n;
  return Number(((state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn) >> 32n);
}
const below = (n) => next() % n;

function mutate(src) {
  let b = Buffer.from(src);
  for (let k = 0, n = 1 + below(4); k < n; k++) {
    if (b.length === 0) b = Buffer.from([below(256)]);
    const at = below(b.length);
    switch (below(5)) {
      case 0: b[at] = below(256); break;
      case 1: b[at] ^= 1 << below(8); break;
      case 2: b = b.subarray(0, at); break;
      case 3: { const len = 1 + below(Math.min(16, b.length - at)); b.copy(b, below(b.length), at, at + len); break; }
      default: b = Buffer.concat([b.subarray(0, at), Buffer.from([below(256)]), b.subarray(at)]);
    }
  }
  return b;
}

let runs = 0;
for (const input of inputs) {
  fuzz(input);
  runs++;
}
const end = Date.now() + Number(seconds) * 1000;
while (Date.now() < end) {
  const input = mutate(inputs[below(inputs.length)]);
  try {
    fuzz(input);
  } catch (e) {
    console.error(`finding after ${runs} runs, input ${input.toString("hex")}`);
    throw e;
  }
  runs++;
}
console.log(`smoke: ${runs} runs (${inputs.length} seeds) in ${seconds} s, no finding`);
