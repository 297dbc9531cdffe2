package dev.flexbuf

import dev.flexbuf.conformance.Runner
import dev.flexbuf.jvm.FlexNative
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.io.File
import java.lang.management.ManagementFactory

/**
 * Hostile input stays bounded (issue 18): DAG bombs and 1,000-deep nesting end in a clean [FlexException]
 * within a second, and the thread allocates less than a limit while failing (the JVM's per-thread allocation
 * counter, which unlike heap snapshots does not depend on when the collector runs).
 */
class HostileInputTest {
    private val invalid = File(System.getProperty("flexbuf.repo", "..")).resolve("conformance/invalid")
    private val threads = ManagementFactory.getThreadMXBean() as com.sun.management.ThreadMXBean

    /** Runs [block], which must throw a [FlexException]; checks time and allocation; returns its kind. */
    private fun refused(what: String, block: () -> Unit): ErrorKind {
        val id = Thread.currentThread().id
        val allocatedBefore = threads.getThreadAllocatedBytes(id)
        val start = System.nanoTime()
        val error = try {
            block()
            null
        } catch (e: FlexException) {
            e
        }
        val seconds = (System.nanoTime() - start) / 1e9
        val allocated = threads.getThreadAllocatedBytes(id) - allocatedBefore
        assertTrue(error != null, "$what succeeded")
        assertTrue(seconds < 1.0, "$what took $seconds s")
        assertTrue(allocated < MAX_BYTES, "$what allocated $allocated bytes")
        return error!!.kind
    }

    private fun bombs(): List<File> =
        (invalid.listFiles { f -> f.name.startsWith("dag_bomb_") && f.name.endsWith(".bin") } ?: emptyArray()).sortedBy { it.name }

    @Test
    fun dagBombsVerifyButExpansionFailsOnTheBudget() {
        val files = bombs()
        assertTrue(files.size >= 5, "only ${files.size} DAG bombs")
        for (f in files) {
            val bytes = f.readBytes()
            verify(bytes)
            assertEquals(ErrorKind.BudgetExceeded, refused("${f.name} toJson") { Json.toJson(bytes) })
            assertEquals(ErrorKind.BudgetExceeded, refused("${f.name} checked read") { Runner.checkedRead(FlexRef.root(bytes)) })
            assertEquals(ErrorKind.BudgetExceeded, refused("${f.name} native toJson") { FlexNative.toJsonNative(bytes) })
        }
    }

    @Test
    fun aBufferNested1000DeepIsRejected() {
        val bytes = invalid.resolve("depth_bomb_1000_vectors.bin").readBytes()
        assertEquals(ErrorKind.DepthLimit, refused("verify") { verify(bytes) })
        assertEquals(ErrorKind.DepthLimit, refused("toJson") { Json.toJson(bytes) })
        assertEquals(ErrorKind.DepthLimit, refused("checked read") { Runner.checkedRead(FlexRef.root(bytes)) })
        assertEquals(ErrorKind.DepthLimit, refused("native verify") { FlexNative.verifyNative(bytes) })
    }

    @Test
    fun jsonNested1000DeepIsRejected() {
        val text = "[".repeat(1000) + "]".repeat(1000)
        assertEquals(ErrorKind.DepthLimit, refused("native fromJson") { FlexNative.fromJsonNative(text) })
    }

    private companion object {
        const val MAX_BYTES = 64L shl 20
    }
}
