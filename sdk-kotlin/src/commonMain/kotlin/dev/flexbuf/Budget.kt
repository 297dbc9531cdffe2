package dev.flexbuf

/**
 * The expansion budget: a cap on nodes and output bytes for anything that
 * expands a buffer into a tree (JSON, host objects, typed decode), so a small
 * buffer describing an exponential DAG fails with [ErrorKind.BudgetExceeded].
 */
public class Budget(private var nodesLeft: Long, private var bytesLeft: Long) {
    /** Charges one node. */
    public fun node() {
        if (nodesLeft <= 0) fail(ErrorKind.BudgetExceeded, -1)
        nodesLeft--
    }

    /** Charges [n] output bytes. */
    public fun bytes(n: Long) {
        if (n > bytesLeft) fail(ErrorKind.BudgetExceeded, -1)
        bytesLeft -= n
    }

    public companion object {
        /** Nodes allowed per input byte (as in the Rust core). */
        public const val NODES_PER_INPUT_BYTE: Long = 64
        /** Output bytes allowed per input byte. */
        public const val BYTES_PER_INPUT_BYTE: Long = 256

        /** The default budget for an input of [len] bytes. */
        public fun forInput(len: Int): Budget =
            Budget(maxOf(len * NODES_PER_INPUT_BYTE, 1L shl 16), maxOf(len * BYTES_PER_INPUT_BYTE, 1L shl 20))

        /** No limit. */
        public fun unlimited(): Budget = Budget(Long.MAX_VALUE, Long.MAX_VALUE)
    }
}
