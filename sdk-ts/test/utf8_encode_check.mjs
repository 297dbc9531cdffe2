// Strings of every length from 0 to 300 UTF-16 units in several alphabets
// (and with lone surrogates at the start, middle and end) written by
// `writeUtf8` at an odd offset: the bytes must be TextEncoder's, the count
// returned their number, and nothing written past them. Shared by the Node
// test and the browser test, whose thresholds differ (Node hands strings
// from 20 units to its native writer, browsers from 48 to `encodeInto` and
// ASCII below 256 to a JS loop).
const ALPHABETS = {
  ascii: (i) => String.fromCharCode(0x20 + (i * 7) % 95),
  latin: (i) => (i % 3 ? "é" : "a"),
  cjk: (i) => (i % 5 ? "語" : "x"),
  emoji: (i) => (i % 2 ? "😀" : "é"),
  mixed: (i) => ["a", "ß", "€", "😀", "z", "ж"][i % 6],
};

function* samples() {
  for (const [name, unit] of Object.entries(ALPHABETS)) {
    for (let len = 0; len <= 300; len++) {
      let s = "";
      while (s.length < len) s += unit(s.length);
      s = s.slice(0, len); // may cut a surrogate pair: a lone high surrogate at the end
      yield [name, s];
    }
  }
  for (const len of [1, 19, 20, 47, 48, 49, 255, 256, 300]) {
    const body = "a".repeat(len);
    yield ["lone-start", "\udc00" + body];
    yield ["lone-end", body + "\ud800"];
    yield ["lone-middle", body.slice(0, len >> 1) + "\udfff\ud800" + body.slice(len >> 1)];
  }
}

/** The samples whose bytes differ from TextEncoder's (empty when all agree). */
export function utf8EncodeMismatches(writeUtf8) {
  const te = new TextEncoder();
  const bad = [];
  const buf = new Uint8Array(4096);
  for (const [name, s] of samples()) {
    buf.fill(0xaa);
    const want = te.encode(s);
    const n = writeUtf8(buf, 3, s);
    const ok = n === want.length && want.every((b, i) => buf[3 + i] === b) && buf[2] === 0xaa && buf[3 + n] === 0xaa;
    if (!ok) bad.push(`${name}/${s.length}`);
  }
  return bad;
}
