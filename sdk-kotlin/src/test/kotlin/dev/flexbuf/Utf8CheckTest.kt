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
        val pieces = listOf("a", "é", "€", "\uD83D\uDE00", "\uFFFD", "z").map { Utf8.encode(it) }
        repeat(20_000) {
            val out = ArrayList<Byte>()
            repeat(1 + rnd.nextInt(12)) { out.addAll(pieces[rnd.nextInt(pieces.size)].toList()) }
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
}
