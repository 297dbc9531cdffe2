package dev.flexbuf

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * Every reader that recurses into nested containers up to the 1024-level cap
 * (`verify` with `maxDepth = 1024`, `Json.write` of an unverified reference,
 * `FlexRef.equals` and `hashCode`) ends at the cap with its own result or a
 * [FlexException] on a fresh thread of the JVM's default 1 MB stack, while
 * its code may still be interpreted (interpreted frames are the largest):
 * never a `StackOverflowError`.
 */
class DeepStackTest {
    /** `levels` vectors, one inside the other, around one int. */
    private fun nested(levels: Int): ByteArray {
        val b = FlexBuilder()
        repeat(levels) { b.startVector() }
        b.int(7)
        repeat(levels) { b.endVector() }
        return b.finish()
    }

    /** Runs [block] on a fresh thread of [stack] bytes of stack (1 MB by default); returns what it returned or threw. */
    private fun onSmallStack(stack: Long = 1L shl 20, block: () -> Any?): Any? {
        var result: Any? = null
        val t = Thread(null, {
            result = try {
                block()
            } catch (e: Throwable) {
                e
            }
        }, "small stack", stack)
        t.start()
        t.join()
        return result
    }

    private fun kind(outcome: Any?): ErrorKind? = (outcome as? FlexException)?.kind

    @Test
    fun verifyAtTheCapAcceptsAndRefusesWithoutOverflowingTheStack() {
        // The verifier walks containers with a stack of its own: an eighth of the default stack is plenty
        // (the recursive verifier it replaced overflowed 1 MB in about one run in three).
        val eighth = 1L shl 17
        val deepest = VerifyOptions(maxDepth = 1024)
        val atCap = nested(1024)
        assertEquals(Unit, onSmallStack(eighth) { verify(atCap, deepest); Unit })
        val past = nested(1025)
        val refused = onSmallStack(eighth) { verify(past, deepest) }
        assertEquals(ErrorKind.DepthLimit, kind(refused), "got $refused")
        // The error names the path down to the level past the cap.
        assertEquals("$" + "[0]".repeat(1024), (refused as FlexException).path)
        // A larger option is capped, not taken.
        assertEquals(ErrorKind.DepthLimit, kind(onSmallStack(eighth) { verify(past, VerifyOptions(maxDepth = Int.MAX_VALUE)) }))
    }

    @Test
    fun jsonOfAnUnverifiedReferenceEndsAtTheCap() {
        val text = onSmallStack { Json.write(FlexRef.root(nested(1024))) }
        assertEquals("[".repeat(1024) + "7" + "]".repeat(1024), text)
        assertEquals(ErrorKind.DepthLimit, kind(onSmallStack { Json.write(FlexRef.root(nested(1026))) }))
    }

    @Test
    fun equalityAndHashOfDeepValuesEndAtTheCap() {
        val a = FlexRef.root(nested(1024))
        val b = FlexRef.root(nested(1024))
        val c = FlexRef.root(nested(1023))
        assertEquals(true, onSmallStack { a == b })
        assertEquals(false, onSmallStack { a == c })
        val h = onSmallStack { a.hashCode() }
        assertTrue(h is Int, "got $h")
        assertEquals(h, onSmallStack { b.hashCode() })
        // Past the cap: equality is false and the hash a constant, as for any unreadable value.
        val x = FlexRef.root(nested(1100))
        val y = FlexRef.root(nested(1100))
        assertEquals(false, onSmallStack { x == y })
        assertTrue(onSmallStack { x.hashCode() } is Int)
    }
}
