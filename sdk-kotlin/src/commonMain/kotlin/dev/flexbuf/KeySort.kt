package dev.flexbuf

/**
 * Sorts map entries by their keys' bytes (unsigned, as the format orders
 * keys) for [FlexBuilder.endMap], on primitive arrays: no boxing, and scratch
 * kept between maps by its caller.
 *
 * Each key's first eight bytes are read once into a word whose signed order
 * is their unsigned byte order; two entries are compared by those words and,
 * only when the words are equal, by the keys' remaining bytes. Short maps
 * (most objects) are sorted by insertion, longer ones by a merge sort.
 */
internal class KeySort {
    private var words = LongArray(16)
    private var tmp = IntArray(16)

    /** Bytes held (for the builder's retention bound). */
    val heapBytes: Long get() = words.size * 8L + tmp.size * 4L

    /**
     * Puts in `order[0, n)` the indices `0 until n` of the keys that start at
     * `keyAt(i)` in [buf] (each ending with a NUL), in ascending byte order.
     */
    fun sort(buf: ByteArray, n: Int, order: IntArray, keyAt: (Int) -> Int) {
        if (words.size < n) words = LongArray(maxOf(n, words.size * 2))
        val w = words
        for (i in 0 until n) {
            order[i] = i
            w[i] = headWord(buf, keyAt(i))
        }
        if (n <= INSERTION_MAX) {
            insertion(buf, order, 0, n, keyAt)
            return
        }
        if (tmp.size < n) tmp = IntArray(maxOf(n, tmp.size * 2))
        mergeSort(buf, order, tmp, 0, n, keyAt)
    }

    /** Drops scratch grown past [limit] bytes. */
    fun bound(limit: Int) {
        if (heapBytes > limit) {
            words = LongArray(16)
            tmp = IntArray(16)
        }
    }

    private fun compare(buf: ByteArray, x: Int, y: Int, keyAt: (Int) -> Int): Int {
        val a = words[x]
        val b = words[y]
        if (a != b) return if (a < b) -1 else 1
        // Equal words: both keys share their first eight bytes, or both end
        // (with the same bytes) within them.
        return compareFrom(buf, keyAt(x), keyAt(y))
    }

    private fun insertion(buf: ByteArray, order: IntArray, from: Int, to: Int, keyAt: (Int) -> Int) {
        for (i in from + 1 until to) {
            val v = order[i]
            var j = i - 1
            while (j >= from && compare(buf, order[j], v, keyAt) > 0) {
                order[j + 1] = order[j]
                j--
            }
            order[j + 1] = v
        }
    }

    private fun mergeSort(buf: ByteArray, order: IntArray, tmp: IntArray, from: Int, to: Int, keyAt: (Int) -> Int) {
        if (to - from <= INSERTION_MAX) {
            insertion(buf, order, from, to, keyAt)
            return
        }
        val mid = (from + to) ushr 1
        mergeSort(buf, order, tmp, from, mid, keyAt)
        mergeSort(buf, order, tmp, mid, to, keyAt)
        if (compare(buf, order[mid - 1], order[mid], keyAt) <= 0) return
        order.copyInto(tmp, from, from, to)
        var i = from
        var j = mid
        var k = from
        while (i < mid && j < to) {
            order[k++] = if (compare(buf, tmp[j], tmp[i], keyAt) < 0) tmp[j++] else tmp[i++]
        }
        while (i < mid) order[k++] = tmp[i++]
        while (j < to) order[k++] = tmp[j++]
    }

    internal companion object {
        /** Maps up to this many entries are sorted by insertion. */
        const val INSERTION_MAX = 16

        /**
         * The first eight bytes of the NUL-terminated key at [at] (zero past
         * its end), big-endian, with the sign bit flipped: signed order of
         * two words is the unsigned order of those bytes.
         */
        fun headWord(buf: ByteArray, at: Int): Long {
            var w = 0L
            var i = 0
            var ended = false
            while (i < 8) {
                val b = if (ended) 0 else buf[at + i].toInt() and 0xff
                if (b == 0) ended = true
                w = (w shl 8) or b.toLong()
                i++
            }
            return w xor Long.MIN_VALUE
        }

        /** Unsigned byte order of the NUL-terminated keys at [a] and [b]. */
        fun compareFrom(buf: ByteArray, a: Int, b: Int): Int {
            if (a == b) return 0
            var i = a
            var j = b
            while (true) {
                val x = buf[i].toInt() and 0xff
                val y = buf[j].toInt() and 0xff
                if (x != y) return x - y
                if (x == 0) return 0
                i++; j++
            }
        }
    }
}
