package dev.flexbuf

import kotlin.concurrent.atomics.AtomicReference
import kotlin.concurrent.atomics.ExperimentalAtomicApi

/**
 * Generated coders by serial name (the Kotlin qualified class name of the
 * generated type). Thread-safe: readers see an immutable snapshot, writers
 * swap in a copy, so lookups never lock and never see a half-written table.
 */
@OptIn(ExperimentalAtomicApi::class)
public class FlexCoderRegistry {
    private val table = AtomicReference<Map<String, FlexCoder<*>>>(emptyMap())

    /** Registers [coder] under [serialName], replacing any previous one. */
    public fun register(serialName: String, coder: FlexCoder<*>) {
        while (true) {
            val old = table.load()
            val next = HashMap(old)
            next[serialName] = coder
            if (table.compareAndSet(old, next)) return
        }
    }

    /** The coder registered under [serialName], or null. */
    public fun find(serialName: String): FlexCoder<*>? = table.load()[serialName]

    /** Number of registered coders. */
    public val size: Int get() = table.load().size

    public companion object {
        /** The process-wide registry that generated registrars fill and [dev.flexbuf.serialization.Flex] consults by default. */
        public val default: FlexCoderRegistry = FlexCoderRegistry()
    }
}
