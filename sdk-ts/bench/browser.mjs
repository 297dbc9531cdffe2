// The benchmark suite (suite.mjs) in headless Chromium: the built package
// (dist/), the generated coders (test/gen/out), msgpackr and npm
// flatbuffers are served as ES modules by a local HTTP server (an import map
// names the packages), Debian's chromium is driven by playwright-core as in
// test/browser.test.mjs, and each fixture runs in a fresh page.
import { createServer } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, normalize, extname } from "node:path";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const CHROMIUM = process.env.FLEXBUF_CHROMIUM ?? "/usr/bin/chromium";
const sdk = fileURLToPath(new URL("..", import.meta.url));
const repo = join(sdk, "..");

const PAGE = `<!doctype html><meta charset="utf-8"><title>flexbuf bench</title>
<script type="importmap">{ "imports": {
  "flexbuf": "/sdk/dist/index.js",
  "msgpackr": "/sdk/node_modules/msgpackr/index.js",
  "flatbuffers/flexbuffers": "/sdk/node_modules/flatbuffers/mjs/flexbuffers.js"
} }</script>
<script type="module">
import * as fb from "flexbuf";
import { pack, unpack } from "msgpackr";
import * as flex from "flatbuffers/flexbuffers";
import { measure } from "/sdk/bench/suite.mjs";
const q = new URLSearchParams(location.search);
const fixture = q.get("fixture");
const type = q.get("type") || null;
try {
  const text = await fetch("/conformance/fixtures/" + fixture + ".json").then((r) => r.text());
  const typed = type ? await import("/sdk/test/gen/out/" + fixture + ".js") : null;
  window.__result = await measure({ fb, pack, unpack, flex, time: Number(q.get("time")), fixture, text, typed, type });
} catch (e) {
  window.__result = { error: String(e && e.stack || e) };
}
</script>`;

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".html": "text/html" };

function serve() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    // Cross-origin isolation: performance.now() gets 5 µs resolution instead of 100 µs.
    const isolated = { "cross-origin-opener-policy": "same-origin", "cross-origin-embedder-policy": "require-corp" };
    if (url.pathname === "/") {
      res.writeHead(200, { "content-type": "text/html", ...isolated });
      res.end(PAGE);
      return;
    }
    const roots = { "/sdk/": sdk, "/conformance/": join(repo, "conformance") };
    for (const [prefix, dir] of Object.entries(roots)) {
      if (!url.pathname.startsWith(prefix)) continue;
      const path = normalize(join(dir, decodeURIComponent(url.pathname.slice(prefix.length))));
      if (!path.startsWith(dir) || !existsSync(path) || !statSync(path).isFile()) break;
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream", ...isolated });
      res.end(readFileSync(path));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/**
 * Runs `fixtures` ([name, root type or null] pairs) in headless Chromium,
 * `time` ms per task; returns the rows and the browser's version.
 */
export async function runBrowser(fixtures, time) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (cargo xtask test does it with apt)`);
  const server = await serve();
  const profile = mkdtempSync(join(tmpdir(), "flexbuf-bench-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const rows = [];
    let version = "";
    for (const [fixture, type] of fixtures) {
      const page = await browser.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const typedOk = type && existsSync(join(sdk, "test", "gen", "out", `${fixture}.js`));
      const q = new URLSearchParams({ fixture, time: String(time), type: typedOk ? type : "" });
      await page.goto(`http://127.0.0.1:${server.address().port}/?${q}`);
      const r = await page.waitForFunction(() => window.__result, null, { timeout: 600000 }).then((h) => h.jsonValue());
      version ||= await page.evaluate(() => `${navigator.userAgent}, crossOriginIsolated ${self.crossOriginIsolated}`);
      await page.close();
      if (r.error || errors.length) throw new Error(`browser bench of ${fixture} failed: ${r.error ?? errors.join("; ")}`);
      rows.push(r);
      console.log(JSON.stringify({ browser: true, ...r }));
    }
    return { rows, version };
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
