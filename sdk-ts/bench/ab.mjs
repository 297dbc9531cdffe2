// A/B of two builds of the package in one process: both builds are loaded
// as separate modules (with their own copy of the generated coders), and
// their typed encode, typed decode, generic encode or generic decode (`gdec`:
// `decode` of the `fromJSON` bytes) of one fixture runs in
// interleaved rounds beside the JSON peer, so both see the same machine.
//
//   npm run build && cp -r dist /tmp/after
//   git stash && npm run build && cp -r dist /tmp/before && git stash pop && npm run build
//   node bench/ab.mjs --a /tmp/before --b /tmp/after --fixture user_profile --type UserProfile \
//       [--mode enc|dec|genc|gdec] [--rounds 30] [--browser]
//   node bench/ab.mjs --a /tmp/before --b /tmp/after --file twitter.json --mode genc|gdec
//
// (`--file` times the generic `encode` or `decode` of any JSON document.)
//
// Prints the median time per call of A, B and the peer (`JSON.stringify` to
// bytes, or `JSON.parse` from bytes for `dec` and `gdec`), and the median over rounds of
// peer time / A and peer time / B. With `--browser` the same runs in headless
// Chromium (Debian's, as the benchmark and the browser test use it). The
// builds must be directories the script can import (a `dist/` copy); the
// generated coders come from `test/gen/out` (`cargo xtask build-all` writes
// them), rewritten to import the build under test. Run each comparison at
// least twice: Chromium's optimized code for some functions differs from one
// page load to the next (one of four runs of the same pair measured the
// builds level where the other three put B 1.6x-1.8x ahead).
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";

const sdk = fileURLToPath(new URL("..", import.meta.url));
const repo = join(sdk, "..");
const args = process.argv.slice(2);
const opt = (name, dflt) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : dflt);
const A = opt("a"), B = opt("b"), file = opt("file"), fixture = opt("fixture") ?? (file && basename(file, ".json"));
const type = opt("type") ?? null;
const mode = opt("mode", "enc"), rounds = Number(opt("rounds", "30"));
// `--file` (any JSON document) takes the generic modes only: it has no generated coders.
const generic = ["genc", "gdec"].includes(mode);
if (!A || !B || !fixture || (!type && !file) || (file && !generic) || !["enc", "dec", "genc", "gdec"].includes(mode)) {
  console.error(
    "usage: node bench/ab.mjs --a DIR --b DIR (--fixture NAME --type ROOT | --file DOC.json) [--mode enc|dec|genc|gdec] [--rounds N] [--browser]\n" +
      "(--file: genc or gdec only)",
  );
  process.exit(2);
}

/**
 * The measurement, run in Node or in the page: `pkgA`/`pkgB` are the two
 * builds, `genA`/`genB` their generated coders. Returns the medians.
 */
function measure({ pkgA, pkgB, genA, genB, text, type, mode, rounds }) {
  const te = new TextEncoder();
  const td = new TextDecoder();
  const value = JSON.parse(text);
  const jsonBytes = te.encode(text);
  const ga = pkgA.fromJSON(text), gb = pkgB.fromJSON(text);
  const same = (x, y) => x.length === y.length && x.every((b, i) => b === y[i]);
  // Without a root type (a document given by `--file`) only the generic modes run.
  const typed = type !== null;
  const va = typed ? genA[`decode${type}`](ga) : null;
  const vb = typed ? genB[`decode${type}`](gb) : null;
  const ea = typed ? genA[`encode${type}`] : null, eb = typed ? genB[`encode${type}`] : null;
  const ba = typed ? ea(va) : pkgA.encode(value), bb = typed ? eb(vb) : pkgB.encode(value);
  if (!same(ba, bb)) throw new Error("the two builds write different bytes");
  const fns = {
    enc: { A: () => ea(va).length, B: () => eb(vb).length, peer: () => te.encode(JSON.stringify(value)).length },
    dec: { A: () => (genA[`decode${type}`](ba) ? 1 : 0), B: () => (genB[`decode${type}`](bb) ? 1 : 0), peer: () => (JSON.parse(td.decode(jsonBytes)) ? 1 : 0) },
    genc: { A: () => pkgA.encode(value).length, B: () => pkgB.encode(value).length, peer: () => te.encode(JSON.stringify(value)).length },
    gdec: { A: () => (pkgA.decode(ga) ? 1 : 0), B: () => (pkgB.decode(gb) ? 1 : 0), peer: () => (JSON.parse(td.decode(jsonBytes)) ? 1 : 0) },
  }[mode];
  let sink = 0;
  const names = ["A", "B", "peer"];
  const run = (n, ms) => {
    const times = { A: [], B: [], peer: [] };
    const ratios = { A: [], B: [] };
    for (let r = 0; r < n; r++) {
      const t = {};
      // The order rotates and reverses, so no build always runs first.
      const order = names.slice(r % 3).concat(names.slice(0, r % 3));
      for (const m of r % 2 ? order.reverse() : order) {
        const f = fns[m];
        const t0 = performance.now();
        let calls = 0;
        while (performance.now() - t0 < ms) {
          for (let i = 0; i < 5; i++) sink ^= f();
          calls += 5;
        }
        t[m] = ((performance.now() - t0) * 1000) / calls;
        times[m].push(t[m]);
      }
      ratios.A.push(t.peer / t.A);
      ratios.B.push(t.peer / t.B);
    }
    const med = (a) => a.sort((x, y) => x - y)[a.length >> 1];
    return { A: med(times.A), B: med(times.B), peer: med(times.peer), "peer/A": med(ratios.A), "peer/B": med(ratios.B), sink };
  };
  run(6, 20); // warm-up: every function compiled before the measured rounds
  return run(rounds, 20);
}

const gen = file ? "export {};\n" : readFileSync(join(sdk, "test/gen/out", `${fixture}.js`), "utf8");
const text = readFileSync(file ?? join(repo, "conformance/fixtures", `${fixture}.json`), "utf8");

async function inNode() {
  const tmp = mkdtempSync(join(tmpdir(), "flexbuf-ab-"));
  try {
    const load = async (dir, tag) => {
      const index = pathToFileURL(join(resolve(dir), "index.js")).href;
      const file = join(tmp, `${tag}.mjs`);
      writeFileSync(file, gen.replace(/from "flexbuf"/g, `from "${index}"`));
      return [await import(index), await import(pathToFileURL(file).href)];
    };
    const [pkgA, genA] = await load(A, "a");
    const [pkgB, genB] = await load(B, "b");
    return measure({ pkgA, pkgB, genA, genB, text, type, mode, rounds });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

async function inBrowser() {
  const { chromium } = await import("playwright-core");
  const chromiumPath = process.env.FLEXBUF_CHROMIUM ?? "/usr/bin/chromium";
  const dirs = { a: resolve(A), b: resolve(B) };
  const page = `<!doctype html><meta charset="utf-8"><script type="module">
const pkgA = await import("/a/index.js"), pkgB = await import("/b/index.js");
const genA = await import("/gen/a.js"), genB = await import("/gen/b.js");
const measure = ${measure.toString()};
try { window.__result = measure({ pkgA, pkgB, genA, genB, text: ${JSON.stringify(text)}, type: ${JSON.stringify(type)}, mode: ${JSON.stringify(mode)}, rounds: ${rounds} }); }
catch (e) { window.__result = { error: String(e && e.stack || e) }; }
</script>`;
  const iso = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const send = (body) => { res.writeHead(200, { "content-type": (url.pathname === "/" ? "text/html" : "text/javascript") + "; charset=utf-8", ...iso }); res.end(body); };
    if (url.pathname === "/") return send(page);
    const g = url.pathname.match(/^\/gen\/([ab])\.js$/);
    if (g) return send(gen.replace(/from "flexbuf"/g, `from "/${g[1]}/index.js"`));
    const m = url.pathname.match(/^\/([ab])\/([\w./-]+\.js)$/);
    const path = m && resolve(dirs[m[1]], m[2]);
    if (path && path.startsWith(dirs[m[1]]) && existsSync(path)) return send(readFileSync(path));
    res.writeHead(404);
    res.end();
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const profile = mkdtempSync(join(tmpdir(), "flexbuf-ab-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath, headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu"],
  });
  try {
    const p = await browser.newPage();
    await p.goto(`http://127.0.0.1:${server.address().port}/`);
    const r = await p.waitForFunction(() => window.__result, null, { timeout: 600000 }).then((h) => h.jsonValue());
    if (r.error) throw new Error(r.error);
    return r;
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const r = args.includes("--browser") ? await inBrowser() : await inNode();
const f = (x) => (x >= 100 ? x.toFixed(0) : x.toPrecision(3));
console.log(`${fixture} ${mode} (${args.includes("--browser") ? "Chromium" : "Node"}, ${rounds} rounds): A ${f(r.A)} µs, B ${f(r.B)} µs, peer ${f(r.peer)} µs; peer/A ${r["peer/A"].toFixed(2)}x, peer/B ${r["peer/B"].toFixed(2)}x, B/A time ${(r.A / r.B).toFixed(2)}x faster`);
