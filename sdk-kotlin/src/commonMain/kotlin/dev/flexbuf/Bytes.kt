package dev.flexbuf

// Little-endian reads over ByteArray. Callers check bounds first; the JVM's own
// bounds checks remain as a backstop, never a control path.

internal fun ByteArray.u8(p: Int): Int = this[p].toInt() and 0xff

internal fun ByteArray.u16(p: Int): Int = u8(p) or (u8(p + 1) shl 8)

internal fun ByteArray.i32le(p: Int): Int =
    u8(p) or (u8(p + 1) shl 8) or (u8(p + 2) shl 16) or (this[p + 3].toInt() shl 24)

internal fun ByteArray.i64le(p: Int): Long =
    (i32le(p).toLong() and 0xffffffffL) or (i32le(p + 4).toLong() shl 32)

/** Unsigned value of [w] bytes (1, 2, 4, 8) at [p]; 8-byte values come back as raw bits. */
internal fun ByteArray.uintAt(p: Int, w: Int): Long = when (w) {
    1 -> u8(p).toLong()
    2 -> u16(p).toLong()
    4 -> i32le(p).toLong() and 0xffffffffL
    else -> i64le(p)
}

/** Sign-extended value of [w] bytes at [p]. */
internal fun ByteArray.intAt(p: Int, w: Int): Long = when (w) {
    1 -> this[p].toLong()
    2 -> u16(p).toShort().toLong()
    4 -> i32le(p).toLong()
    else -> i64le(p)
}

/** A float stored in [w] bytes (4 or 8) at [p]; narrower widths read as an integer bit pattern are rejected by callers. */
internal fun ByteArray.floatAt(p: Int, w: Int): Double =
    if (w == 4) Float.fromBits(i32le(p)).toDouble() else Double.fromBits(i64le(p))

/**
 * UTF-8 without `java.*`: a validator with the same rules as Rust's
 * `str::from_utf8` (no overlongs, no surrogates, nothing above U+10FFFF), a
 * decoder, and a single-pass encoder that writes straight into a caller's array.
 */
public object Utf8 {
    /** Index of the first byte of the first invalid sequence in `b[from, to)`, or -1 when valid. */
    public fun invalidAt(b: ByteArray, from: Int, to: Int): Int {
        var i = from
        while (i < to) {
            val c = b[i].toInt()
            if (c >= 0) { i++; continue }
            val x = c and 0xff
            val n: Int
            val lo: Int
            val hi: Int
            when {
                x in 0xc2..0xdf -> { n = 1; lo = 0x80; hi = 0xbf }
                x == 0xe0 -> { n = 2; lo = 0xa0; hi = 0xbf }
                x in 0xe1..0xec || x == 0xee || x == 0xef -> { n = 2; lo = 0x80; hi = 0xbf }
                x == 0xed -> { n = 2; lo = 0x80; hi = 0x9f }
                x == 0xf0 -> { n = 3; lo = 0x90; hi = 0xbf }
                x in 0xf1..0xf3 -> { n = 3; lo = 0x80; hi = 0xbf }
                x == 0xf4 -> { n = 3; lo = 0x80; hi = 0x8f }
                else -> return i
            }
            // The sequence needs bytes i+1..i+n.
            if (i + n >= to) return i
            val b1 = b[i + 1].toInt() and 0xff
            if (b1 < lo || b1 > hi) return i
            for (k in 2..n) {
                if ((b[i + k].toInt() and 0xc0) != 0x80) return i
            }
            i += n + 1
        }
        return -1
    }

    /**
     * Decodes `b[from, to)`, which must be valid UTF-8 (callers validate with
     * [invalidAt] or the verifier first; invalid sequences would become U+FFFD).
     * Uses the standard library's common `decodeToString`, which on the JVM is
     * the platform's intrinsified decoder: measured faster than a Kotlin loop.
     */
    public fun decode(b: ByteArray, from: Int, to: Int): String = if (from == to) "" else b.decodeToString(from, to)

    /**
     * Decodes `b[from, to)` from untrusted bytes in one pass, failing with
     * [ErrorKind.InvalidUtf8] at [at] exactly when [invalidAt] finds a bad
     * sequence. The platform decoder (on the JVM `String(bytes, off, len,
     * UTF_8)`, whose ASCII check and Latin-1 copy are intrinsics) replaces every
     * sequence that Rust's `str::from_utf8` rejects with U+FFFD, so a result
     * without U+FFFD is valid; only a result with one (rare: malformed input or
     * a real U+FFFD) pays for the strict check. `Utf8Test` pins that property
     * over every 1- to 3-byte sequence and the 4-byte leads.
     */
    public fun decodeChecked(b: ByteArray, from: Int, to: Int, at: Int): String {
        if (from == to) return ""
        val s = b.decodeToString(from, to)
        // indexOf of a char above U+00FF is O(1) on a Latin-1 string.
        if (s.indexOf('\uFFFD') >= 0 && invalidAt(b, from, to) >= 0) fail(ErrorKind.InvalidUtf8, at)
        return s
    }

    /**
     * Encodes [s] at `dst[at]` and returns the end position. [dst] must have room
     * for `3 * s.length` bytes from [at] (the worst case: every UTF-16 unit takes
     * at most three bytes; a surrogate pair takes four for two units). A lone
     * surrogate is written as U+FFFD.
     */
    public fun encodeInto(s: String, dst: ByteArray, at: Int): Int = encodeInto(s, dst, at, CharArray(s.length + 1))

    /**
     * As [encodeInto], copying the text into [scratch] first (array reads beat
     * per-char calls). A [scratch] of at least `s.length + 1` chars is used as
     * it is; a shorter one is replaced by a fresh array.
     *
     * The char after the text is set to a lone high surrogate, which ends
     * every run loop below: they test one range per character and no index
     * (the surrogate branch checks the index before it pairs).
     */
    public fun encodeInto(s: String, dst: ByteArray, at: Int, scratch: CharArray): Int {
        val n = s.length
        val text = if (scratch.size > n) scratch else CharArray(n + 1)
        s.toCharArray(text, 0, 0, n)
        // The ASCII prefix (all of most text) in a loop bounded by the index,
        // which the JIT compiles with its array checks hoisted (without it,
        // the generated encode of string_flood took 1.5x as long); the rest
        // goes through the run loops, which the sentinel ends (unicode_heavy
        // 73 to 58 µs against the index-tested loops).
        var i = 0
        while (i < n) {
            val c = text[i].code
            if (c >= 0x80) break
            dst[at + i] = c.toByte()
            i++
        }
        if (i == n) return at + n
        text[n] = '\uD800'
        var p = at + i
        while (i < n) {
            var c = text[i].code
            if (c < 0x80) {
                // A run of ASCII: one compare and one store per character.
                do {
                    dst[p++] = c.toByte()
                    c = text[++i].code
                } while (c < 0x80)
                continue
            }
            if (c < 0x800) {
                // A run of two-byte characters (Latin accents, Greek, Cyrillic, Hebrew, Arabic).
                do {
                    dst[p] = (0xc0 or (c shr 6)).toByte()
                    dst[p + 1] = (0x80 or (c and 0x3f)).toByte()
                    p += 2
                    c = text[++i].code
                } while (c in 0x80..0x7ff)
                continue
            }
            if ((c and 0xf800) != 0xd800) {
                // A run of three-byte characters (CJK, Hangul, most symbols).
                do {
                    dst[p] = (0xe0 or (c shr 12)).toByte()
                    dst[p + 1] = (0x80 or ((c shr 6) and 0x3f)).toByte()
                    dst[p + 2] = (0x80 or (c and 0x3f)).toByte()
                    p += 3
                    c = text[++i].code
                } while (c >= 0x800 && (c and 0xf800) != 0xd800)
                continue
            }
            // A surrogate of the text (i < n): a pair when a low one follows within it.
            if (c <= 0xdbff && i + 1 < n && text[i + 1].code in 0xdc00..0xdfff) {
                val cp = 0x10000 + ((c - 0xd800) shl 10) + (text[i + 1].code - 0xdc00)
                dst[p] = (0xf0 or (cp shr 18)).toByte()
                dst[p + 1] = (0x80 or ((cp shr 12) and 0x3f)).toByte()
                dst[p + 2] = (0x80 or ((cp shr 6) and 0x3f)).toByte()
                dst[p + 3] = (0x80 or (cp and 0x3f)).toByte()
                p += 4
                i += 2
                continue
            }
            // A lone surrogate: U+FFFD.
            dst[p] = 0xef.toByte()
            dst[p + 1] = 0xbf.toByte()
            dst[p + 2] = 0xbd.toByte()
            p += 3
            i++
        }
        return p
    }

    /** [s] as a fresh UTF-8 array. */
    public fun encode(s: String): ByteArray {
        val tmp = ByteArray(s.length * 3)
        val end = encodeInto(s, tmp, 0)
        return tmp.copyOf(end)
    }

    /** Compares two strings by their UTF-8 bytes as unsigned values (code point order), as map keys are sorted. */
    public fun compare(a: String, b: String): Int {
        val n = minOf(a.length, b.length)
        for (i in 0 until n) {
            val x = a[i]
            val y = b[i]
            if (x != y) {
                // UTF-16 order differs from code point order only when one side is a surrogate.
                val xs = x.isSurrogate()
                val ys = y.isSurrogate()
                if (xs != ys) return if (xs) 1 else -1
                return x.compareTo(y)
            }
        }
        return a.length - b.length
    }
}
