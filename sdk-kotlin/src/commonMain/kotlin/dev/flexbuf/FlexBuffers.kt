package dev.flexbuf

import kotlin.concurrent.atomics.AtomicReference
import kotlin.concurrent.atomics.ExperimentalAtomicApi

/**
 * A thread-safe, lock-free pool of typed builders. Builders are cleared on
 * return, and [FlexBuilder.clear] drops any buffer grown beyond
 * [maxRetainedCapacity], so one giant payload never pins memory; at most
 * [maxPooled] builders are kept.
 */
@OptIn(ExperimentalAtomicApi::class)
public class BuilderPool(
    private val options: BuilderOptions = BuilderOptions.TYPED,
    /** Most builders kept. */
    public val maxPooled: Int = 16,
    /** Largest buffer a pooled builder keeps. */
    public val maxRetainedCapacity: Int = 1 shl 20,
) {
    private class Node(val builder: FlexBuilder, val next: Node?, val depth: Int)

    private val head = AtomicReference<Node?>(null)

    /** A cleared builder, from the pool or new. */
    public fun acquire(): FlexBuilder {
        while (true) {
            val h = head.load() ?: return FlexBuilder(options.copy(maxRetainedCapacity = maxRetainedCapacity))
            if (head.compareAndSet(h, h.next)) return h.builder
        }
    }

    /** Clears [b] and returns it to the pool (dropped when the pool is full). */
    public fun release(b: FlexBuilder) {
        b.clear()
        while (true) {
            val h = head.load()
            val depth = h?.depth ?: 0
            if (depth >= maxPooled) return
            if (head.compareAndSet(h, Node(b, h, depth + 1))) return
        }
    }

    /** Builders currently pooled. */
    public val pooled: Int get() = head.load()?.depth ?: 0

    /** Runs [block] with a borrowed builder. */
    public inline fun <R> use(block: (FlexBuilder) -> R): R {
        val b = acquire()
        try {
            return block(b)
        } finally {
            release(b)
        }
    }
}

/** Encoding and decoding of typed values with generated coders. */
public object FlexBuffers {
    /** The shared builder pool used by [encode]. */
    public val pool: BuilderPool = BuilderPool()

    /** Encodes [value] as a complete buffer (a fresh array). */
    public fun <T> encode(coder: FlexCoder<T>, value: T): ByteArray = pool.use { b ->
        coder.encode(b, EncodeContext(), value)
        b.finish()
    }

    /**
     * Encodes [value] into the caller-owned [builder] (cleared first) and returns the
     * length. The bytes are `builder.buffer[0, length)`: they are valid only until the
     * next call on [builder] (any push, [FlexBuilder.clear] or another encode), which
     * may overwrite or replace the array. Copy them if they must outlive that.
     */
    public fun <T> encodeToBuffer(coder: FlexCoder<T>, value: T, builder: FlexBuilder, cx: EncodeContext = EncodeContext()): Int {
        builder.clear()
        cx.reset()
        coder.encode(builder, cx, value)
        return builder.finishInPlace()
    }

    /**
     * Decodes the root value of untrusted [bytes] in one checked pass (no separate
     * verification): every read is bounds-checked, every string returned is
     * checked UTF-8, nesting and expansion are bounded ([DecodeContext]), and any
     * problem is a [FlexException] naming the field path. For every buffer [verify]
     * accepts the result is exactly [decodeStrict]'s; parts of the buffer the
     * type does not read (unknown fields) are not checked.
     */
    public fun <T> decode(coder: FlexCoder<T>, bytes: ByteArray): T =
        coder.decode(FlexRef.root(bytes), DecodeContext(bytes.size))

    /** Verifies the whole of untrusted [bytes] first (unknown fields included), then decodes the root value. */
    public fun <T> decodeStrict(coder: FlexCoder<T>, bytes: ByteArray): T =
        coder.decode(verify(bytes).root(), DecodeContext(bytes.size))

    /** Decodes an already verified buffer. */
    public fun <T> decode(coder: FlexCoder<T>, verified: Verified): T =
        coder.decode(verified.root(), DecodeContext(verified.bytes.size))

    /** Decodes by key only (never by position), for buffers written with another schema version; one checked pass, as [decode]. */
    public fun <T> decodeKeyed(coder: FlexCoder<T>, bytes: ByteArray): T =
        coder.decode(FlexRef.root(bytes), DecodeContext(Budget.forInput(bytes.size), keyedOnly = true))
}
