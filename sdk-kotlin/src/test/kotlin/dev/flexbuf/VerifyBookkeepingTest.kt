package dev.flexbuf

import dev.flexbuf.jvm.FlexNative
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.lang.management.ManagementFactory
import kotlin.random.Random

/**
 * The verifier's bookkeeping of shared offsets: a tree costs a few bits per byte, a DAG stays
 * linear, depth counts through shared subtrees, and on buffers full of sharing (reused values,
 * shared strings and keys vectors), damaged or not, it gives the Rust core's verdict.
 */
class VerifyBookkeepingTest {
    private val threads = ManagementFactory.getThreadMXBean() as com.sun.management.ThreadMXBean

    /** Bytes the current thread allocates while running [block]. */
    private fun allocatedBy(block: () -> Unit): Long {
        val id = Thread.currentThread().id
        val before = threads.getThreadAllocatedBytes(id)
        block()
        return threads.getThreadAllocatedBytes(id) - before
    }

    /** A vector of [n] small records: maps of shared keys holding ints, strings and vectors. */
    private fun records(n: Int): ByteArray {
        val b = FlexBuilder(BuilderOptions(maxRetainedCapacity = 64 shl 20))
        b.startVector()
        for (i in 0 until n) {
            b.startMap()
            b.key("id"); b.int(i.toLong())
            b.key("name"); b.string("record number $i")
            b.key("score"); b.double(i * 0.5)
            b.key("tags"); b.startVector(); b.string("t${i % 7}"); b.string("u${i % 11}"); b.endVector()
            b.endMap()
        }
        b.endVector()
        return b.finish()
    }

    /**
     * A root vector of [levels] + 1 vectors, each but the first holding the one
     * before it twice: 2^levels paths over a few hundred bytes, nested
     * [levels] + 2 deep.
     */
    private fun dag(levels: Int): ByteArray {
        val b = FlexBuilder()
        b.startVector()
        b.startVector(); b.int(7); b.endVector()
        repeat(levels) {
            val below = b.lastValue()
            b.startVector(); b.reuseValue(below); b.reuseValue(below); b.endVector()
        }
        b.endVector()
        return b.finish()
    }

    @Test
    fun aTreeCostsAQuarterOfAByteAPerByte() {
        val bytes = records(100_000)
        verify(bytes) // loads and compiles everything first
        val allocated = allocatedBy { verify(bytes) }
        // Two bits per position and a stack of open containers; the verifier this one
        // replaced allocated an Int per position (four bytes per byte).
        assertTrue(allocated < bytes.size / 2, "verify of ${bytes.size} bytes allocated $allocated")
    }

    @Test
    fun sharedSubtreesVerifyInLinearTimeAndDepthCountsThroughThem() {
        val bytes = dag(60)
        val start = System.nanoTime()
        verify(bytes, VerifyOptions(maxDepth = 62))
        assertTrue((System.nanoTime() - start) / 1e9 < 1.0, "2^60 paths were walked")
        val e = try {
            verify(bytes, VerifyOptions(maxDepth = 61)); null
        } catch (x: FlexException) {
            x
        }
        assertEquals(ErrorKind.DepthLimit, e?.kind)
        // A shared subtree met again at a greater depth is still counted in full.
        val b = FlexBuilder()
        b.startVector()
        b.startVector(); b.startVector(); b.int(1); b.endVector(); b.endVector()
        val deep = b.lastValue()
        b.startVector(); b.startVector(); b.reuseValue(deep); b.endVector(); b.endVector()
        b.endVector()
        val skew = b.finish()
        verify(skew, VerifyOptions(maxDepth = 5))
        val tooDeep = try { verify(skew, VerifyOptions(maxDepth = 4)); null } catch (x: FlexException) { x }
        assertEquals(ErrorKind.DepthLimit, tooDeep?.kind)
    }

    /** Buffers that share in every way a builder can: reused vectors and maps, shared strings, shared keys vectors. */
    private fun sharingBuffer(r: Random): ByteArray {
        val share = if (r.nextBoolean()) Share.KEYS_AND_STRINGS else Share.KEYS
        val b = FlexBuilder(BuilderOptions(share = share, dedupKeyVectors = r.nextBoolean()))
        val kept = ArrayList<ValueHandle>()
        fun leaf() {
            when (r.nextInt(5)) {
                0 -> b.string(listOf("a", "same text", "x".repeat(40), "ü".repeat(20))[r.nextInt(4)])
                1 -> b.int(r.nextLong(-300, 300))
                2 -> b.typedVector(intArrayOf(1, 2, r.nextInt()))
                3 -> b.blob(ByteArray(r.nextInt(0, 40)) { it.toByte() })
                else -> b.double(r.nextDouble())
            }
        }
        fun node(depth: Int) {
            if (kept.isNotEmpty() && r.nextInt(4) == 0) {
                b.reuseValue(kept[r.nextInt(kept.size)])
                return
            }
            if (depth > 4 || r.nextInt(3) == 0) {
                leaf()
            } else if (r.nextBoolean()) {
                b.startVector()
                repeat(r.nextInt(0, 5)) { node(depth + 1) }
                b.endVector()
            } else {
                b.startMap()
                for (k in listOf("alpha", "beta", "gamma", "delta", "épsilon").filter { r.nextBoolean() }) {
                    b.key(k); node(depth + 1)
                }
                b.endMap()
            }
            if (r.nextInt(3) == 0) kept.add(b.lastValue())
        }
        b.startVector()
        repeat(r.nextInt(1, 8)) { node(0) }
        b.endVector()
        return b.finish()
    }

    private fun outcome(block: () -> Unit): String = try {
        block(); "ok"
    } catch (e: FlexException) {
        e.kind.name
    }

    /**
     * A buffer of 1-byte-wide strings, keys, vectors and maps written bottom-up
     * as a builder would, except that elements point at any node before them
     * and now and then at their own container (a cycle), at a node as another
     * type than it was written as (a string read as a vector, a key as a
     * string, a map's keys as a plain key vector), or at keys out of order; some strings are long (past the
     * verifier's 32 bytes) and some are not UTF-8.
     */
    private fun structure(r: Random): ByteArray {
        val out = java.io.ByteArrayOutputStream()
        val starts = ArrayList<Int>() // data start of each node
        val packs = ArrayList<Int>() // its packed type as written
        val keys = ArrayList<Int>() // key starts, ascending by text as written
        fun text(len: Int): ByteArray = ByteArray(len) { j ->
            if (r.nextInt(60) == 0) 0xc3.toByte() else ('a' + (j * 7 + len) % 26).code.toByte()
        }
        // Keys first, written in ascending order of their text.
        for (k in listOf("a", "b", "c", "d")) {
            keys.add(out.size()); out.write(k.toByteArray()); out.write(0)
        }
        fun element(self: Int, slot: Int): Pair<Int, Int> {
            val roll = r.nextInt(20)
            if (roll == 0) return (slot - self) to 40 // the container itself: a cycle
            if (roll == 1 || starts.isEmpty()) return r.nextInt(0, 100) to 4 // an int
            val j = r.nextInt(starts.size)
            val off = slot - starts[j]
            if (off !in 0..255) return 3 to 4
            val packed = when (r.nextInt(8)) {
                0 -> listOf(40, 20, 16, 100, 36, 44)[r.nextInt(6)] // read as another type
                else -> packs[j]
            }
            return off to packed
        }
        /** Writes [n] elements and their type bytes; returns where they start. */
        fun elements(n: Int): Int {
            val self = out.size()
            val types = IntArray(n)
            for (e in 0 until n) {
                val (off, packed) = element(self, out.size())
                out.write(off); types[e] = packed
            }
            types.forEach { out.write(it) }
            return self
        }
        repeat(r.nextInt(2, 9)) {
            if (out.size() > 180) return@repeat
            when (r.nextInt(3)) {
                0 -> { // a string, short or long
                    val t = text(if (r.nextBoolean()) r.nextInt(1, 12) else r.nextInt(33, 48))
                    out.write(t.size); starts.add(out.size()); packs.add(20); out.write(t); out.write(0)
                }
                1 -> { // a vector
                    val n = r.nextInt(1, 5)
                    out.write(n)
                    starts.add(elements(n)); packs.add(40)
                }
                else -> { // a map on keys vector of two or three keys, sometimes out of order
                    val n = r.nextInt(2, 4)
                    val chosen = keys.shuffled(r).take(n).let { if (r.nextInt(6) == 0) it else it.sorted() }
                    out.write(n)
                    val kv = out.size()
                    for (k in chosen) out.write(out.size() - k)
                    val prefix = out.size()
                    out.write(prefix - kv); out.write(1); out.write(n)
                    starts.add(elements(n)); packs.add(36)
                    // Its keys vector, for later elements to reach as a plain key vector.
                    starts.add(kv); packs.add(56)
                }
            }
        }
        if (starts.isEmpty()) { out.write(1); starts.add(out.size()); packs.add(20); out.write('x'.code); out.write(0) }
        val root = out.size()
        val last = starts.size - 1
        out.write((root - starts[last]).coerceAtMost(255)); out.write(packs[last]); out.write(1)
        return out.toByteArray()
    }

    @Test
    fun smallStructuresWithCyclesAndAliasesGetTheCoresVerdict() {
        val r = Random(7)
        val seen = HashMap<String, Int>()
        repeat(40_000) { i ->
            val bytes = structure(r)
            val ours = outcome { verify(bytes) }
            val core = outcome { FlexNative.verifyNative(bytes) }
            assertEquals(core, ours, "structure $i: ${bytes.joinToString(",") { (it.toInt() and 0xff).toString() }}")
            seen.merge(ours, 1, Int::plus)
        }
        // The verdicts this test is for all occur.
        for (kind in listOf("ok", "Cycle", "InvalidUtf8", "UnsortedKeys")) {
            assertTrue((seen[kind] ?: 0) >= 20, "verdicts: $seen")
        }
    }

    @Test
    fun buffersFullOfSharingDamagedOrNotGetTheCoresVerdict() {
        val r = Random(20261207)
        var accepted = 0
        var rejected = 0
        repeat(3_000) { i ->
            val bytes = sharingBuffer(r)
            // Every third buffer as built; the others with one to three bytes changed.
            if (i % 3 != 0) repeat(r.nextInt(1, 4)) { bytes[r.nextInt(bytes.size)] = r.nextInt(256).toByte() }
            val ours = outcome { verify(bytes) }
            val core = outcome { FlexNative.verifyNative(bytes) }
            assertEquals(core, ours, "buffer $i: ${bytes.joinToString(",") { (it.toInt() and 0xff).toString() }}")
            if (ours == "ok") accepted++ else rejected++
        }
        // Both verdicts are well represented, or the comparison shows little.
        assertTrue(accepted > 1_000 && rejected > 500, "accepted $accepted, rejected $rejected")
    }
}
