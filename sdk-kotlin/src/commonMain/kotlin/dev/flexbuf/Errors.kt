package dev.flexbuf

/** What went wrong; mirrors the Rust core's `ErrorKind` names so errors map one to one. */
public enum class ErrorKind {
    /** The buffer is shorter than a FlexBuffer can be, or a read ran past its end. */
    Truncated,
    /** An offset points outside the buffer. */
    OffsetOutOfBounds,
    /** A width field is not 1, 2, 4 or 8 (or a float narrower than 4 bytes). */
    BadWidth,
    /** A packed type byte names no known type. */
    UnknownType,
    /** A size runs past the buffer. */
    SizeOutOfBounds,
    /** Nesting deeper than the configured limit. */
    DepthLimit,
    /** A container reaches itself through offsets. */
    Cycle,
    /** A string or key is not valid UTF-8. */
    InvalidUtf8,
    /** A key or string lacks its terminating NUL byte. */
    MissingNul,
    /** Map keys are not in strictly ascending unsigned-byte order. */
    UnsortedKeys,
    /** A map's keys vector and values differ in length. */
    KeyValueLengthMismatch,
    /** A value has a different type than the operation needs. */
    TypeMismatch,
    /** A number does not fit the requested type. */
    OutOfRange,
    /** An index past the end of a vector. */
    IndexOutOfBounds,
    /** A key absent from a map. */
    KeyNotFound,
    /** Expanding the buffer would exceed the expansion budget. */
    BudgetExceeded,
    /** The builder was asked for a call sequence the format cannot represent. */
    Builder,
    /** A floating-point value JSON cannot represent. */
    NonFiniteFloat,
    /** A vector decoded as a fixed-length array (`[T; N]` in a schema) has another length (typed decode). */
    ArrayLength,
    /** A required field is absent (typed decode). */
    MissingField,
    /** Null in a field that is not optional (typed decode). */
    UnexpectedNull,
    /** An integer that is not a value of the field's enum (typed decode). */
    UnknownEnumValue,
    /** A union map with zero or several entries, or an unknown variant (typed decode). */
    BadUnion,
    /** Malformed JSON text or a native-library failure reported as text. */
    Message,
}

/**
 * The one exception type of the library: a [kind], the byte [offset] into the
 * input when known, and the [path] from the root (`$.items[3].name`) when known.
 */
public class FlexException(
    public val kind: ErrorKind,
    public val offset: Int = -1,
    detail: String? = null,
    private var segments: String? = null,
) : RuntimeException(null as String?) {
    private val detail: String? = detail

    /** The path from the root, `$` followed by `.key`, `["odd key"]` and `[3]` segments; null when unknown. */
    public val path: String? get() = segments?.let { "$$it" }

    /** Prepends a map-key segment (a map entry on the way from the root). */
    public fun inKey(key: String): FlexException {
        segments = keySegment(key) + (segments ?: "")
        return this
    }

    /** Prepends a vector-index segment. */
    public fun inIndex(index: Int): FlexException {
        segments = "[$index]" + (segments ?: "")
        return this
    }

    override val message: String
        get() = buildString {
            append(kind.name)
            if (detail != null) append(": ").append(detail)
            if (offset >= 0) append(" at offset ").append(offset)
            path?.let { append(" at ").append(it) }
        }

    /** Stack traces cost more than the decode that failed; paths and offsets locate the problem. */
    override fun fillInStackTrace(): Throwable = this

    internal companion object {
        fun keySegment(k: String): String {
            val plain = k.isNotEmpty() && (k[0].isAsciiLetter() || k[0] == '_') &&
                k.all { it.isAsciiLetter() || it == '_' || it in '0'..'9' }
            if (plain) return ".$k"
            val sb = StringBuilder("[\"")
            for (c in k) {
                if (c == '"' || c == '\\') sb.append('\\')
                sb.append(c)
            }
            return sb.append("\"]").toString()
        }

        private fun Char.isAsciiLetter() = this in 'a'..'z' || this in 'A'..'Z'
    }
}

internal fun fail(kind: ErrorKind, offset: Int, detail: String? = null): Nothing =
    throw FlexException(kind, offset, detail)
