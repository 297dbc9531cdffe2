package dev.flexbuf.fuzz

import com.code_intelligence.jazzer.junit.FuzzTest
import dev.flexbuf.Content
import dev.flexbuf.ErrorKind
import dev.flexbuf.FlexException
import dev.flexbuf.FlexRef
import dev.flexbuf.FlexType
import dev.flexbuf.Json
import dev.flexbuf.jvm.FlexNative
import dev.flexbuf.verify

/**
 * The Kotlin SDK on arbitrary bytes. Must hold: nothing throws but [FlexException] (no
 * IndexOutOfBounds, no StackOverflowError, no OutOfMemoryError); the pure Kotlin verifier and the
 * Rust core over JNI give the same verdict; what the verifier rejects, [Json.toJson] rejects; what it
 * accepts converts to JSON (or fails on the budget or a non-finite float) and reads fully through the
 * checked reader exactly as through the verified one, and equals itself with an equal hash.
 *
 * Without JAZZER_FUZZ this runs the seeds under src/test/resources as a regression test; with
 * JAZZER_FUZZ=1 it fuzzes (fuzz/README.md).
 */
class ReaderFuzzTest {
    private fun kind(block: () -> Unit): ErrorKind? = try { block(); null } catch (e: FlexException) { e.kind }

    /** A bounded walk through every accessor: returns a printable form of the value. */
    private fun walk(r: FlexRef, out: StringBuilder, budget: IntArray, depth: Int = 0) {
        if (--budget[0] < 0 || depth > 64) throw FlexException(ErrorKind.BudgetExceeded, r.offset)
        out.append(r.type.wireName).append(':')
        when (r.type) {
            FlexType.NULL -> {}
            FlexType.BOOL -> out.append(r.asBool())
            FlexType.INT, FlexType.INDIRECT_INT -> out.append(r.asLong())
            FlexType.UINT, FlexType.INDIRECT_UINT -> out.append(r.asULong())
            FlexType.FLOAT, FlexType.INDIRECT_FLOAT -> out.append(r.asDouble().toRawBits())
            FlexType.KEY, FlexType.STRING -> out.append(r.asString().length)
            FlexType.BLOB -> out.append(r.asBlob().size)
            FlexType.MAP -> {
                val m = r.asMap()
                for (i in 0 until minOf(m.size, 64)) {
                    out.append(m.key(i)).append('=')
                    walk(m.value(i), out, budget, depth + 1)
                }
            }
            else -> {
                val v = r.asVector()
                for (i in 0 until minOf(v.size, 64)) walk(v[i], out, budget, depth + 1)
            }
        }
        out.append(';')
    }

    /** True when the whole tree under [root] has under 60,000 values and 512 KiB of text and blobs. */
    private fun withinEqualityBudget(root: FlexRef): Boolean {
        val left = longArrayOf(60_000, 1L shl 19)
        fun visit(r: FlexRef): Boolean {
            if (--left[0] < 0) return false
            when (r.type) {
                FlexType.KEY, FlexType.STRING -> left[1] -= r.asString().encodeToByteArray().size.toLong()
                FlexType.BLOB -> left[1] -= r.asBlob().size.toLong()
                FlexType.MAP -> { val m = r.asMap(); for (i in 0 until m.size) if (!visit(m.value(i))) return false }
                FlexType.NULL, FlexType.BOOL, FlexType.INT, FlexType.INDIRECT_INT, FlexType.UINT,
                FlexType.INDIRECT_UINT, FlexType.FLOAT, FlexType.INDIRECT_FLOAT -> {}
                else -> { val v = r.asVector(); for (i in 0 until v.size) if (!visit(v[i])) return false }
            }
            return left[1] >= 0
        }
        return visit(root)
    }

    private fun read(r: () -> FlexRef): Pair<String?, ErrorKind?> {
        val out = StringBuilder()
        return try {
            walk(r(), out, intArrayOf(4000))
            out.toString() to null
        } catch (e: FlexException) {
            null to e.kind
        }
    }

    // The documented 20-minute run; the regression mode (no JAZZER_FUZZ) ignores it.
    @FuzzTest(maxDuration = "20m")
    fun verifyReadAndJson(data: ByteArray) {
        val verdict = kind { verify(data) }
        val native = kind { FlexNative.verifyNative(data) }
        check((verdict == null) == (native == null)) { "Kotlin verify says $verdict, the core $native" }
        val checked = read { FlexRef.root(data) }
        val json = kind { Json.toJson(data) }
        if (verdict != null) {
            check(json != null) { "toJson accepted bytes verify rejects ($verdict)" }
            return
        }
        check(json == null || json == ErrorKind.BudgetExceeded || json == ErrorKind.NonFiniteFloat) { "toJson failed with $json" }
        val trusted = read { verify(data).root() }
        check(checked == trusted) { "checked read $checked differs from verified read $trusted" }
        val root = verify(data).root()
        // Content.equal, like the core's `==`, runs under an expansion budget (at least
        // 64 Ki nodes and 1 MiB of text) and calls a value it cannot finish unequal to
        // everything, so a shared-offset DAG may differ from itself. As the core's
        // oracle (fuzz/src/walk.rs): only a value whose whole tree is well below
        // that budget must equal itself.
        if (withinEqualityBudget(root)) check(Content.equal(root, root)) { "a value differs from itself" }
        check(Content.hash(root) == Content.hash(verify(data).root())) { "hash is not stable" }
    }
}
