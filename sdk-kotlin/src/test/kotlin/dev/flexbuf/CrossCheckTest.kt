package dev.flexbuf

import com.google.flatbuffers.FlexBuffers
import com.google.flatbuffers.FlexBuffersBuilder
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.nio.ByteBuffer

/** Both directions against Maven's flatbuffers-java `FlexBuffers`. */
class CrossCheckTest {
    private fun bytesOf(bb: ByteBuffer): ByteArray {
        val out = ByteArray(bb.remaining())
        bb.duplicate().get(out)
        return out
    }

    private fun javaBuilt(): ByteArray {
        val b = FlexBuffersBuilder(ByteBuffer.allocate(1024), FlexBuffersBuilder.BUILDER_FLAG_SHARE_KEYS)
        val m = b.startMap()
        b.putInt("count", 300)
        b.putString("name", "Ada ✓")
        b.putFloat("ratio", 0.25)
        val v = b.startVector()
        b.putInt(1); b.putInt(-2); b.putInt(70000)
        b.endVector("xs", v, true, false)
        b.putBoolean("ok", true)
        b.endMap(null, m)
        return bytesOf(b.finish())
    }

    @Test
    fun weReadWhatJavaWrites() {
        val bytes = javaBuilt()
        val root = verify(bytes).root()
        assertEquals(300L, root["count"].asLong())
        assertEquals("Ada ✓", root["name"].asString())
        assertEquals(0.25, root["ratio"].asDouble())
        val xs = root["xs"].asVector()
        assertEquals(listOf(1L, -2L, 70000L), (0 until xs.size).map { xs[it].asLong() })
        assertEquals(true, root["ok"].asBool())
    }

    @Test
    fun javaReadsWhatWeWrite() {
        val b = FlexBuilder()
        b.startMap()
        b.key("count"); b.int(300)
        b.key("name"); b.string("Ada ✓")
        b.key("xs"); b.typedVector(intArrayOf(1, -2, 70000))
        b.key("nested"); b.startVector(); b.string("a"); b.double(0.1); b.nul(); b.endVector()
        b.endMap()
        val bytes = b.finish()
        val m = FlexBuffers.getRoot(ByteBuffer.wrap(bytes)).asMap()
        assertEquals(300, m.get("count").asInt())
        assertEquals("Ada ✓", m.get("name").asString())
        assertEquals(70000L, m.get("xs").asVector().get(2).asLong())
        assertEquals(0.1, m.get("nested").asVector().get(1).asFloat())
        assertEquals(true, m.get("nested").asVector().get(2).isNull)
    }

    @Test
    fun sameCallsGiveSameBytesForAsciiKeys() {
        // flatbuffers-java stores doubles at 8 bytes; use ints, strings and keys only.
        val j = FlexBuffersBuilder(ByteBuffer.allocate(1024), FlexBuffersBuilder.BUILDER_FLAG_SHARE_KEYS)
        val m = j.startMap()
        j.putInt("b", 2); j.putString("a", "x"); j.putInt("c", -1000)
        j.endMap(null, m)
        val ours = FlexBuilder().apply { startMap(); key("b"); int(2); key("a"); string("x"); key("c"); int(-1000); endMap() }.finish()
        assertArrayEquals(bytesOf(j.finish()), ours)
    }

    @Test
    fun javaSortsNonAsciiKeysBySignedBytes() {
        // Known peer difference: Java compares key bytes as signed, so "é" (0xc3) sorts before "z".
        val j = FlexBuffersBuilder(ByteBuffer.allocate(1024), FlexBuffersBuilder.BUILDER_FLAG_SHARE_KEYS)
        val m = j.startMap()
        j.putInt("z", 1); j.putInt("é", 2)
        j.endMap(null, m)
        val javaBytes = bytesOf(j.finish())
        assertEquals(ErrorKind.UnsortedKeys, assertThrows<FlexException> { verify(javaBytes) }.kind)
        // Ours writes unsigned order, which the C++ reference and our verifier expect.
        val ours = FlexBuilder().apply { startMap(); key("z"); int(1); key("é"); int(2); endMap() }.finish()
        val r = verify(ours).root().asMap()
        assertEquals(listOf("z", "é"), listOf(r.key(0), r.key(1)))
    }
}
