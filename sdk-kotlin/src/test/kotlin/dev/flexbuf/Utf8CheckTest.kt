package dev.flexbuf

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import kotlin.random.Random

/**
 * [Utf8.decodeChecked] trusts the platform decoder to mark every sequence the
 * verifier's rule ([Utf8.invalidAt]) rejects with U+FFFD. These tests pin that
 * over every sequence of one or two bytes, of three bytes with a lead C0-FF, 4-byte leads F0-F7 with every
 * second and third byte (fourth byte from a set covering each class), and
 * random mixes, so a JDK whose decoder accepted more would fail here.
 */
class Utf8CheckTest {
    private fun rejected(b: ByteArray, from: Int = 0, to: Int = b.size): Boolean =
        try { Utf8.decodeChecked(b, from, to, from); false } catch (e: FlexException) {
            assertEquals(ErrorKind.InvalidUtf8, e.kind)
            true
        }

    private fun agree(b: ByteArray) {
        val invalid = Utf8.invalidAt(b, 0, b.size) >= 0
        if (invalid != rejected(b)) {
            throw AssertionError("bytes ${b.joinToString(" ") { "%02x".format(it) }}: invalidAt says invalid=$invalid")
        }
        if (!invalid) assertEquals(Utf8.decode(b, 0, b.size), Utf8.decodeChecked(b, 0, b.size, 0))
    }

    @Test
    fun everyShortSequenceAgreesWithTheVerifiersRule() {
        for (a in 0..255) agree(byteArrayOf(a.toByte()))
        for (a in 0..255) for (b in 0..255) agree(byteArrayOf(a.toByte(), b.toByte()))
        val three = ByteArray(3)
        for (a in 0xc0..0xff) for (b in 0..255) for (c in 0..255) {
            three[0] = a.toByte(); three[1] = b.toByte(); three[2] = c.toByte()
            agree(three)
        }
        val four = ByteArray(4)
        val lasts = intArrayOf(0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0xbf, 0xc0, 0xf4, 0xff)
        for (a in 0xf0..0xf7) for (b in 0..255) for (c in 0..255) for (d in lasts) {
            four[0] = a.toByte(); four[1] = b.toByte(); four[2] = c.toByte(); four[3] = d.toByte()
            agree(four)
        }
    }

    @Test
    fun randomTextWithDamageAgrees() {
        val rnd = Random(16)
        // One of each lead class: ASCII, C2-DF, E0, E1-EC, ED, EE-EF, F0, F1-F3, F4.
        val pieces = listOf(
            "a", "é", "Ж", "€", "\u0800", "語", "한", "\uD7FF", "\uE000", "\uFFFD",
            "\uD83D\uDE00", "\uD8C0\uDC00", "\uDBFF\uDFFF", "z", " ",
        ).map { Utf8.encode(it) }
        repeat(40_000) {
            val out = ArrayList<Byte>()
            repeat(1 + rnd.nextInt(if (it % 2 == 0) 12 else 40)) { out.addAll(pieces[rnd.nextInt(pieces.size)].toList()) }
            val b = out.toByteArray()
            if (rnd.nextBoolean()) b[rnd.nextInt(b.size)] = rnd.nextInt(256).toByte()
            agree(b)
        }
    }

    @Test
    fun aRealReplacementCharacterIsAccepted() {
        assertEquals("a\uFFFDb", Utf8.decodeChecked(Utf8.encode("a\uFFFDb"), 0, 5, 0))
        // An offset into a larger buffer: only the range is checked.
        val b = byteArrayOf(0xff.toByte(), 'o'.code.toByte(), 'k'.code.toByte(), 0xc0.toByte())
        assertEquals("ok", Utf8.decodeChecked(b, 1, 3, 1))
    }

    /** [s] with every lone surrogate replaced by U+FFFD (what the encoder writes for one). */
    private fun sanitized(s: String): String {
        val out = StringBuilder()
        var i = 0
        while (i < s.length) {
            val c = s[i]
            if (c.isHighSurrogate() && i + 1 < s.length && s[i + 1].isLowSurrogate()) {
                out.append(c).append(s[i + 1])
                i += 2
                continue
            }
            out.append(if (c.isSurrogate()) '\uFFFD' else c)
            i++
        }
        return out.toString()
    }

    @Test
    fun theEncoderWritesWhatTheJdkWritesForRunsOfEveryWidth() {
        // Characters at the edges of each UTF-8 length, surrogate pairs, and
        // lone surrogates, in runs of random lengths (the encoder loops over
        // runs of one width), at random offsets into the destination.
        val classes = listOf(
            charArrayOf('\u0000', 'a', ' ', '\u007f'),
            charArrayOf('\u0080', 'é', 'Ж', '\u07ff'),
            charArrayOf('\u0800', '語', '\ud7ff', '\ue000', '\uFFFD', '\uffff'),
            charArrayOf('\ud800', '\udbff', '\udc00', '\udfff'),
        )
        val pairs = listOf("\uD83D\uDE00", "\uD800\uDC00", "\uDBFF\uDFFF", "\uD840\uDC3D")
        val rnd = Random(29)
        repeat(20_000) {
            val sb = StringBuilder()
            repeat(1 + rnd.nextInt(6)) {
                val run = 1 + rnd.nextInt(if (rnd.nextInt(4) == 0) 40 else 4)
                when (val k = rnd.nextInt(5)) {
                    4 -> repeat(run) { sb.append(pairs[rnd.nextInt(pairs.size)]) }
                    else -> repeat(run) { sb.append(classes[k][rnd.nextInt(classes[k].size)]) }
                }
            }
            val s = sb.toString()
            val expected = sanitized(s).toByteArray(Charsets.UTF_8)
            val at = rnd.nextInt(4)
            val dst = ByteArray(at + 3 * s.length)
            val end = Utf8.encodeInto(s, dst, at)
            assertEquals(at + expected.size, end, s)
            assertEquals(expected.toList(), dst.copyOfRange(at, end).toList(), s)
        }
    }

    @Test
    fun aReusedScratchOfAnyLengthGivesTheSameBytes() {
        // One scratch reused across strings, as the builder does: stale text
        // after each string, sometimes exactly as long as the string (too
        // short for the sentinel: a fresh one is used), sometimes longer.
        // Strings end in each kind of character, a lone high surrogate
        // included (it must not pair with the sentinel after it).
        val tails = listOf("a", "é", "語", "\uD83D\uDE00", "\uD800", "\uDC00", "")
        val heads = listOf("", "plain ascii ", "Ж", "語語", "\uDBFF")
        val rnd = Random(31)
        var scratch = CharArray(0)
        repeat(5_000) {
            val sb = StringBuilder(heads[rnd.nextInt(heads.size)])
            repeat(rnd.nextInt(30)) { sb.append("aé語\uD83D\uDE00 "[rnd.nextInt(6)]) }
            sb.append(tails[rnd.nextInt(tails.size)])
            val s = sb.toString()
            when (rnd.nextInt(3)) {
                0 -> scratch = CharArray(s.length)
                1 -> if (scratch.size <= s.length) scratch = CharArray(s.length + 1 + rnd.nextInt(8)) { "aé語"[it % 3] }
                else -> {}
            }
            val expected = sanitized(s).toByteArray(Charsets.UTF_8)
            val dst = ByteArray(3 * s.length)
            val end = Utf8.encodeInto(s, dst, 0, scratch)
            assertEquals(expected.toList(), dst.copyOfRange(0, end).toList(), s)
        }
    }
}
