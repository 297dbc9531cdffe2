package dev.flexbuf

import dev.flexbuf.conformance.Runner
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

class CoreTest {
    /**
     * keyVectorFor lays a type's keys out by arithmetic; its bytes must be
     * those of the same keys written one by one (no pooling: consecutive, each
     * with its NUL) and closed as a typed vector on the value stack, at every
     * alignment of the buffer's end, forced minimum width and key-set size
     * (past 255 bytes of keys the offsets need two bytes, past 65,535 four).
     */
    @Test
    fun keyVectorsForWireKeysMatchTheValueStackPath() {
        fun check(names: List<String>, pad: Int, force: Int) {
            val stack = FlexBuilder(BuilderOptions(share = Share.NONE))
            val block = FlexBuilder(BuilderOptions(share = Share.NONE))
            for (b in listOf(stack, block)) {
                b.forceMinWidth(force)
                b.startVector()
                repeat(pad) { b.string("") }
            }
            stack.startVector()
            for (k in names) stack.key(k)
            stack.endTypedVector()
            block.keyVectorFor(WireKeys(*names.toTypedArray()))
            assertArrayEquals(stack.buffer.copyOf(stack.size), block.buffer.copyOf(block.size), "${names.size} keys after $pad strings, width $force")
        }
        // Keys whose block (names and NULs) is exactly `size` bytes: one of
        // 0-9 a's first, then 9-byte names.
        fun keysOf(size: Int): List<String> {
            val n = (size + 9) / 10
            return listOf("a".repeat(size - 10 * (n - 1) - 1)) + (1 until n).map { "k%08d".format(it) }
        }
        for (size in (0..40) + (230..280)) for (pad in 0..8) for (force in listOf(1, 2)) {
            check(if (size == 0) emptyList() else keysOf(size), pad, force)
        }
        for (size in 65_500..65_560 step 3) for (pad in 0..3) check(keysOf(size), pad, 1)
    }

    /** emptyVector and emptyMap write the bytes of a start and an end, at every alignment and forced width. */
    @Test
    fun emptyContainersInOneCallWriteWhatStartAndEndWrite() {
        for (pad in listOf(0, 1, 3, 7, 250, 300)) for (force in listOf(1, 2, 8)) for (dedup in listOf(false, true)) {
            fun build(oneCall: Boolean): ByteArray {
                val b = FlexBuilder(BuilderOptions(dedupKeyVectors = dedup))
                b.forceMinWidth(force)
                b.startVector()
                b.blob(ByteArray(pad) { 7 })
                for (i in 0 until 3) {
                    if (oneCall) {
                        b.emptyVector()
                        b.emptyMap()
                    } else {
                        b.startVector(); b.endVector()
                        b.startMap(); b.endMap()
                    }
                    b.int(i.toLong())
                }
                b.endVector()
                return b.finish()
            }
            assertArrayEquals(build(false), build(true), "pad $pad, width $force, dedup $dedup")
        }
        val root = FlexBuilder().apply { emptyMap() }.finish()
        val started = FlexBuilder().apply { startMap(); endMap() }.finish()
        assertArrayEquals(started, root)
    }

    private fun hex(b: ByteArray) = Runner.hex(b)

    private fun built(share: Int = Share.KEYS, f: FlexBuilder.() -> Unit): String {
        val b = FlexBuilder(BuilderOptions(share = share))
        b.f()
        return hex(b.finish())
    }

    // Expected bytes: the C++ reference (the same goldens as rust-core/src/builder.rs tests).
    @Test
    fun scalarsAndContainersMatchReference() {
        assertEquals("010401", built { int(1) })
        assertEquals("0000803f0e04", built { double(1.0) })
        assertEquals("00000000000000800708", built { int(Long.MIN_VALUE) })
        assertEquals("ffffffffffffffff0b08", built { uint(-1L) })
        assertEquals("0361626300041401", built { string("abc") })
        assertEquals("00000100002401", built { startMap(); endMap() })
        assertEquals("6200610002030602010201020404042401", built { startMap(); key("b"); int(2); key("a"); int(1); endMap() })
        assertEquals("03010203032c01", built { typedVector(longArrayOf(1, 2, 3)) })
        assertEquals("00004040042201", built { indirectDouble(3.0) })
        assertEquals("026162000204051414042801", built(Share.STRINGS) { startVector(); string("ab"); string("ab"); endVector() })
    }

    @Test
    fun keysSortByUnsignedBytes() {
        val bytes = FlexBuilder().apply { startMap(); key("é"); int(2); key("z"); int(1); endMap() }.finish()
        val m = verify(bytes).root().asMap()
        assertEquals(listOf("z", "é"), (0 until m.size).map { m.key(it) })
        assertEquals(2L, m["é"].asLong())
        assertTrue(Utf8.compare("z", "é") < 0)
        assertTrue(Utf8.compare("\uFFFF", "\uD83D\uDE00") < 0, "a BMP char sorts below a supplementary one in UTF-8")
    }

    @Test
    fun mapsOfKeysTiedOnTheirFirstEightBytesSortByTheirWholeBytes() {
        // Keys from shared 8-byte heads and tails (ASCII and not), pushed
        // shuffled, in maps short enough for the insertion sort and long
        // enough for the merge sort: read back in unsigned byte order, each
        // with its own value; a key of a tie pushed twice is an error.
        val heads = listOf("", "a", "abcdefgh", "abcdefgz", "éééé", "k")
        val tails = listOf("", "a", "aa", "b", "é", "\uD83D\uDE00", "zzzzzzzzz", "~")
        val all = heads.flatMap { h -> tails.flatMap { t -> (0 until 6).map { n -> h + t + "0".repeat(n) } } }.distinct()
        val rnd = java.util.Random(1205)
        for (round in 0 until 200) {
            val push = all.shuffled(rnd).take(1 + rnd.nextInt(all.size))
            val want = push.sortedWith { a, b -> Utf8.compare(a, b) }
            val b = FlexBuilder()
            b.startMap()
            push.forEachIndexed { i, k -> b.key(k); b.int(i.toLong()) }
            b.endMap()
            val m = verify(b.finish()).root().asMap()
            assertEquals(want, (0 until m.size).map { m.key(it) }, "round $round")
            for (i in want.indices) assertEquals(want[i], push[m.value(i).asLong().toInt()], "round $round")
            val tied = want.filter { k -> k.encodeToByteArray().size >= 8 && want.count { o -> o.encodeToByteArray().take(8) == k.encodeToByteArray().take(8) } > 1 }
            if (tied.isNotEmpty()) {
                val repeated = tied[rnd.nextInt(tied.size)]
                val e = assertThrows<FlexException> {
                    FlexBuilder().apply { startMap(); (push + repeated).forEach { key(it); nul() }; endMap() }
                }
                assertTrue(e.message!!.contains("duplicate key $repeated"), e.message)
            }
        }
    }

    @Test
    fun singlePassStringsPickTheRightPrefixWidth() {
        // Lengths around the 1- and 2-byte prefix limits, ASCII and 3-byte characters.
        for (n in listOf(0, 1, 84, 85, 86, 100, 255, 256, 21845, 21846, 70000)) {
            for (unit in listOf("a", "€", "😀")) {
                val s = unit.repeat(n / unit.length.coerceAtLeast(1))
                val b = FlexBuilder()
                b.startVector(); b.int(7); b.string(s); b.endVector()
                val bytes = b.finish()
                val v = verify(bytes).root().asVector()
                assertEquals(s, v[1].asString(), "length $n of $unit")
                assertEquals(s.encodeToByteArray().size, (v[1].bytesRange().toInt() - (v[1].bytesRange() ushr 32).toInt()))
            }
        }
    }

    @Test
    fun verifierRejectsWithKindAndPath() {
        val e = assertThrows<FlexException> { verify(byteArrayOf(0xff.toByte(), 0xff.toByte(), 0xff.toByte())) }
        assertEquals(ErrorKind.BadWidth, e.kind)
        // A key with a non-UTF-8 byte below a map entry: the path names the entry.
        val ok = FlexBuilder().apply { startMap(); key("a"); startMap(); key("b"); string("x"); endMap(); endMap() }.finish()
        val bad = ok.copyOf()
        val at = bad.indexOfFirst { it == 'x'.code.toByte() }
        bad[at] = 0xff.toByte()
        val e2 = assertThrows<FlexException> { verify(bad) }
        assertEquals(ErrorKind.InvalidUtf8, e2.kind)
        assertEquals("$.a.b", e2.path)
    }

    @Test
    fun dedupKeyVectorsShareOneKeysVector() {
        fun build(dedup: Boolean) = FlexBuilder(BuilderOptions(dedupKeyVectors = dedup)).apply {
            startVector()
            for (i in 0 until 3) { startMap(); key("a"); int(i); key("b"); int(i); endMap() }
            endVector()
        }.finish()
        val plain = build(false)
        val dedup = build(true)
        assertTrue(dedup.size < plain.size)
        assertEquals(verify(plain).root(), verify(dedup).root())
        val v = verify(dedup).root().asVector()
        assertEquals(1, (0 until 3).map { v[it].asMap().keysOffset }.toSet().size)
    }

    @Test
    fun builderClearCapsRetainedCapacity() {
        val b = FlexBuilder(BuilderOptions(maxRetainedCapacity = 4096))
        b.blob(ByteArray(1 shl 20))
        b.finish()
        assertTrue(b.capacity >= 1 shl 20)
        b.clear()
        assertTrue(b.capacity <= 4096, "capacity ${b.capacity} kept after clear")
        b.int(5)
        assertEquals("050401", hex(b.finish()))
    }

    @Test
    fun builderClearCapsItsStacksAndPools() {
        // One giant payload (a long vector, deep nesting, a map of many keys
        // and strings) must not leave a reused builder holding its stacks or
        // pools: clear() bounds them as it bounds the buffer.
        val limit = 64 * 1024
        for (share in listOf(Share.KEYS, Share.KEYS_AND_STRINGS)) {
            val b = FlexBuilder(BuilderOptions(share = share, dedupKeyVectors = true, maxRetainedCapacity = limit))
            b.startVector()
            repeat(200_000) { b.int(it.toLong()) }
            repeat(20_000) { b.startVector() }
            repeat(20_000) { b.endVector() }
            b.startMap()
            repeat(20_000) { b.key("k$it"); b.string("s$it") }
            b.endMap()
            b.endVector()
            b.finish()
            assertTrue(b.scratchCapacity > 10L * limit, "grew to ${b.scratchCapacity}")
            b.clear()
            assertTrue(b.scratchCapacity <= limit, "kept ${b.scratchCapacity} after clear")
            // Still a working builder, with sharing intact.
            b.startVector(); b.string("x"); b.string("x"); b.endVector()
            assertEquals(listOf("x", "x"), verify(b.finish()).root().asVector().let { v -> (0 until v.size).map { v[it].asString() } })
        }
        // Small payloads keep their stacks and pools between buffers.
        val b = FlexBuilder(BuilderOptions(maxRetainedCapacity = limit))
        b.startVector(); repeat(1_000) { b.int(it.toLong()) }; b.endVector(); b.finish()
        val kept = b.scratchCapacity
        b.clear()
        assertEquals(kept, b.scratchCapacity)
    }

    @Test
    fun builderMisuseIsAnError() {
        assertThrows<FlexException> { FlexBuilder().apply { startMap(); key("x"); int(1); key("x"); int(2); endMap() } }
        assertThrows<FlexException> { FlexBuilder().endMap() }
        assertThrows<FlexException> { FlexBuilder().apply { int(1); int(2) }.finish() }
        val b = FlexBuilder()
        b.startVector(); b.int(1); b.string("s")
        assertThrows<FlexException> { b.endTypedVector() }
        assertThrows<FlexException> { b.finish() }
        b.clear()
        b.int(1)
        assertEquals("010401", hex(b.finish()))
    }

    @Test
    fun jsonMatchesTheCoreSpelling() {
        val bytes = FlexBuilder().apply {
            startMap(); key("f"); double(0.1); key("g"); double(1e300); key("n"); nul(); key("s"); string("a\"\u0001é"); key("t"); double(3.0); endMap()
        }.finish()
        assertEquals("""{"f":0.1,"g":1e300,"n":null,"s":"a\"\u0001é","t":3.0}""", Json.toJson(bytes))
        assertEquals("5e-324", Json.formatDouble(Double.MIN_VALUE))
        assertEquals("1.5e-7", Json.formatDouble(1.5e-7))
        assertEquals("1e16", Json.formatDouble(1e16))
        assertEquals("123456789.125", Json.formatDouble(123456789.125))
    }

    @Test
    fun checkedReadsNeverReadOutOfBounds() {
        val good = FlexBuilder().apply { startMap(); key("k"); startVector(); string("abc"); int(300); endVector(); endMap() }.finish()
        // Every single-byte corruption either reads fine or fails with a FlexException.
        for (i in good.indices) for (x in listOf(0x00, 0x7f, 0x80, 0xff)) {
            val b = good.copyOf()
            b[i] = x.toByte()
            try { Runner.checkedRead(FlexRef.root(b)) } catch (_: FlexException) { }
            try { Json.toJson(b) } catch (_: FlexException) { }
        }
        assertArrayEquals(good, good.copyOf())
    }

    @Test
    fun contentEqualityIgnoresWidths() {
        val narrow = FlexBuilder().apply { startVector(); int(1); uint(2); double(0.5); endVector() }.finish()
        val wide = FlexBuilder().apply { forceMinWidth(8); startVector(); int(1); int(2); float(0.5f); endVector() }.finish()
        assertEquals(verify(narrow).root(), verify(wide).root())
        assertEquals(verify(narrow).root().hashCode(), verify(wide).root().hashCode())
        val other = FlexBuilder().apply { startVector(); int(1); uint(3); double(0.5); endVector() }.finish()
        assertNotEquals(verify(narrow).root(), verify(other).root())
    }

    // A type's keys are written as one block without the key pool ("a" is pooled by the
    // first map and written again; the last map's "b" is not taken from the block), and a
    // second type with the same keys shares the keys vector. The same calls through the
    // Rust core's EncodeContext::key_vector give these bytes (sdk-ts typed.test.mjs too).
    @Test
    fun typedKeysAreOneBlockOutsideTheKeyPool() {
        val b = FlexBuilder(BuilderOptions(share = Share.KEYS, dedupKeyVectors = true))
        val cx = EncodeContext()
        b.startVector()
        b.startMap(); b.key("a"); b.int(1); b.endMap()
        val kv = cx.keyVector(b, 1L, WireKeys("a", "b"))
        val kv2 = cx.keyVector(b, 2L, WireKeys("a", "b"))
        assertTrue(kv === kv2)
        assertTrue(cx.keyVector(b, 1L, WireKeys("a", "b")) === kv)
        b.startMap(); b.int(2); b.int(3); b.endMapWithKeys(kv)
        b.startMap(); b.int(5); b.int(6); b.endMapWithKeys(kv2)
        b.startMap(); b.key("b"); b.int(4); b.endMap()
        b.endVector()
        assertEquals(
            "610001030101010104610062000205040201020203040409010205060404620001030101010404042116100624242424082801",
            hex(b.finish()),
        )
        assertThrows<FlexException> { WireKeys("b", "a") }
        assertThrows<FlexException> { WireKeys("a\u0000") }
    }
}
