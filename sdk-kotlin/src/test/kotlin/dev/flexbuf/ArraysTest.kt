package dev.flexbuf

import arrays.Body
import arrays.BodyFlexCoder
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** Fixed-length arrays (`[T; N]`): lists of their length, fixed vectors for 2 to 4 numbers. */
class ArraysTest {
    private val body = Body(pos = listOf(1.5f, 2f, 3f), uuid = listOf(1u, 2u, 3u, 4u), flags = listOf(true, false))

    @Test
    fun arraysRoundTripAsListsWithDataClassEquality() {
        val bytes = FlexBuffers.encode(BodyFlexCoder, body)
        val root = FlexRef.root(bytes)
        assertEquals(FlexType.VECTOR_FLOAT3, root["pos"].type)
        assertEquals(FlexType.VECTOR_FLOAT, root["matrix"].type)
        assertEquals(FlexType.VECTOR_BOOL, root["flags"].type)
        val back = FlexBuffers.decode(BodyFlexCoder, bytes)
        assertEquals(body, back)
        assertEquals(body.hashCode(), back.hashCode())
        assertTrue(back.pos is FloatList)
        assertEquals(List(3) { 0.0f }, FlexBuffers.decode(BodyFlexCoder, FlexBuffers.encode(BodyFlexCoder, Body(uuid = body.uuid))).pos)
    }

    @Test
    fun lengthsAreCheckedOnDecodeAndEncode() {
        val short = FlexBuilder().apply { startMap(); key("uuid"); startVector(); uint(1); uint(2); endVector(); endMap() }.finish()
        val e = assertThrows<FlexException> { FlexBuffers.decode(BodyFlexCoder, short) }
        assertEquals(ErrorKind.ArrayLength, e.kind)
        assertEquals("$.uuid", e.path)
        val e2 = assertThrows<FlexException> { FlexBuffers.encode(BodyFlexCoder, body.copy(pos = listOf(1f))) }
        assertEquals(ErrorKind.ArrayLength, e2.kind)
    }
}
