package dev.flexbuf

import defects.Address
import defects.AddressFlexCoder
import defects.Contact
import defects.ContactFlexCoder
import defects.Profile
import defects.ProfileFlexCoder
import defects.Shape
import defects.ShapeFlexCoder
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** The previous implementation's data defects (DESIGN.md), each pinned. */
class DefectRegressionTest {
    @Test
    fun equalBufferBackedMapsHashEqually() {
        // Same content, different insertion order, sharing and widths.
        val a = FlexBuilder(BuilderOptions(share = Share.NONE)).apply {
            startMap(); key("b"); int(2); key("a"); string("x"); endMap()
        }.finish()
        val b = FlexBuilder(BuilderOptions(share = Share.ALL)).apply {
            forceMinWidth(4); startMap(); key("a"); string("x"); key("b"); uint(2); endMap()
        }.finish()
        val ra = verify(a).root()
        val rb = verify(b).root()
        assertEquals(ra, rb)
        assertEquals(ra.hashCode(), rb.hashCode())
        assertEquals(1, hashSetOf(ra, rb).size)
    }

    @Test
    fun validEmptyMapValidates() {
        val empty = FlexBuilder().apply { startMap(); endMap() }.finish()
        assertEquals(0, verify(empty).root().asMap().size)
        val nested = FlexBuilder().apply { startVector(); startMap(); endMap(); startMap(); endMap(); endVector() }.finish()
        assertEquals(2, verify(nested).root().asVector().size)
        assertEquals("[{},{}]", Json.toJson(nested))
    }

    @Test
    fun explicitNullIsNotTheDefault() {
        val bytes = FlexBuilder().apply { startMap(); key("id"); uint(1); key("nickname"); nul(); endMap() }.finish()
        val p = FlexBuffers.decode(ProfileFlexCoder, bytes)
        assertNull(p.nickname)
        assertEquals(18, p.age, "absent takes the default")
        val absent = FlexBuffers.decode(ProfileFlexCoder, FlexBuilder().apply { startMap(); key("id"); uint(1); endMap() }.finish())
        assertEquals("anon", absent.nickname)
        // Round trip keeps the null explicit.
        assertNull(FlexBuffers.decode(ProfileFlexCoder, FlexBuffers.encode(ProfileFlexCoder, p)).nickname)
    }

    @Test
    fun missingRequiredFieldNeverReturnsTheNeighbour() {
        // {"zip": "Zip"}: positional decode of Address would read "Zip" as the street.
        val bytes = FlexBuilder().apply { startMap(); key("zip"); string("Zip"); endMap() }.finish()
        val e = assertThrows<FlexException> { FlexBuffers.decode(AddressFlexCoder, bytes) }
        assertEquals(ErrorKind.MissingField, e.kind)
        assertEquals("$.street", e.path)
        // Two keys in the wrong shape: the layout is not proven, lookup by key is used.
        val shifted = FlexBuilder().apply { startMap(); key("street2"); string("Main"); key("zip"); string("Zip"); endMap() }.finish()
        assertEquals("$.street", assertThrows<FlexException> { FlexBuffers.decode(AddressFlexCoder, shifted) }.path)
        // Same shape, other names: defaults, never the neighbour's values.
        val contact = FlexBuffers.decode(ContactFlexCoder, FlexBuffers.encode(AddressFlexCoder, Address("Main", "Zip")))
        assertEquals(Contact(email = "", phone = "none"), contact)
    }

    @Test
    fun fastPathAndKeyedDecodeAgree() {
        val p = Profile(id = 7u, nickname = "n", age = null, note = "x", score = 2.5, active = false, tint = null)
        val bytes = FlexBuffers.encode(ProfileFlexCoder, p)
        assertEquals(p, FlexBuffers.decode(ProfileFlexCoder, bytes))
        assertEquals(p, FlexBuffers.decodeKeyed(ProfileFlexCoder, bytes))
        val view = defects.ProfileView.of(bytes)
        assertEquals(7u, view.id)
        assertNull(view.age)
        assertEquals("n", view.nickname)
    }

    @Test
    fun nullUnionsAndNullPayloadsFailAsTheRustCodersDo() {
        // Found by the typed agreement of `cargo xtask conformance`: a null where a union is decoded is a null
        // (the Rust coders' UnexpectedNull), and a null variant payload of a message type is a type error, as
        // a null message read as the value itself is; a scalar payload rejects null like a field.
        val outcome = { bytes: ByteArray ->
            try {
                "ok ${FlexBuffers.decode(ShapeFlexCoder, bytes)}"
            } catch (e: FlexException) {
                "${e.kind} at ${e.path ?: "$"}"
            }
        }
        val root = FlexBuilder().apply { nul() }.finish()
        assertEquals("UnexpectedNull at $", outcome(root))
        val nullSquare = FlexBuilder().apply { startMap(); key("square"); nul(); endMap() }.finish()
        assertEquals("TypeMismatch at $.square", outcome(nullSquare))
        val nullLabel = FlexBuilder().apply { startMap(); key("Label"); nul(); endMap() }.finish()
        assertEquals("UnexpectedNull at $.Label", outcome(nullLabel))
        val label = FlexBuilder().apply { startMap(); key("Label"); string("x"); endMap() }.finish()
        assertEquals("ok ${Shape.Label("x")}", outcome(label))
    }

    @Test
    fun keysOutOfOrderAreRefusedNotReadAsAbsent() {
        // Found by the typed agreement: a map whose layout is not proven is read by key (binary search),
        // and over keys out of order the search missed keys that were there, so those fields silently
        // took their defaults. Its keys are now checked first, as the Rust coders check them.
        val bytes = FlexBuilder().apply { startMap(); key("age"); int(30); key("id"); int(7); key("note"); string("x"); endMap() }.finish()
        val p = FlexBuffers.decode(ProfileFlexCoder, bytes)
        assertEquals(Triple(7u, 30, "x"), Triple(p.id, p.age, p.note))
        val m = FlexRef.root(bytes).asMap()
        val (at, w) = m.keysOffset to m.keysWidth
        val target = { i: Int -> at + i * w - (bytes[at + i * w].toInt() and 0xff) }
        val (k0, k2) = target(0) to target(2)
        val unsorted = bytes.copyOf()
        unsorted[at] = (at - k2).toByte()
        unsorted[at + 2 * w] = (at + 2 * w - k0).toByte()
        assertEquals(ErrorKind.UnsortedKeys, assertThrows<FlexException> { verify(unsorted) }.kind)
        assertEquals(ErrorKind.UnsortedKeys, assertThrows<FlexException> { FlexBuffers.decode(ProfileFlexCoder, unsorted) }.kind)
    }
}
