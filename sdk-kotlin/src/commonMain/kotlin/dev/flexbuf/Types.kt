package dev.flexbuf

/**
 * A FlexBuffers value type, as stored in the upper six bits of a packed type byte.
 *
 * [code] is the wire numbering and never changes; [wireName] is the lowercase
 * name the conformance notation uses (`vector_int2`, `indirect_float`, ...).
 */
public enum class FlexType(public val code: Int, public val wireName: String) {
    /** Null. */
    NULL(0, "null"),
    /** Signed integer stored inline. */
    INT(1, "int"),
    /** Unsigned integer stored inline. */
    UINT(2, "uint"),
    /** IEEE-754 float stored inline (4 or 8 bytes). */
    FLOAT(3, "float"),
    /** NUL-terminated map key. */
    KEY(4, "key"),
    /** Length-prefixed, NUL-terminated UTF-8 string. */
    STRING(5, "string"),
    /** Signed integer behind an offset. */
    INDIRECT_INT(6, "indirect_int"),
    /** Unsigned integer behind an offset. */
    INDIRECT_UINT(7, "indirect_uint"),
    /** Float behind an offset. */
    INDIRECT_FLOAT(8, "indirect_float"),
    /** Map: an untyped vector of values prefixed by a keys vector. */
    MAP(9, "map"),
    /** Untyped vector. */
    VECTOR(10, "vector"),
    /** Typed vector of signed integers. */
    VECTOR_INT(11, "vector_int"),
    /** Typed vector of unsigned integers. */
    VECTOR_UINT(12, "vector_uint"),
    /** Typed vector of floats. */
    VECTOR_FLOAT(13, "vector_float"),
    /** Typed vector of keys. */
    VECTOR_KEY(14, "vector_key"),
    /** Deprecated typed vector of strings: read as keys, never written. */
    VECTOR_STRING_DEPRECATED(15, "vector_string_deprecated"),
    /** Fixed vector of two signed integers. */
    VECTOR_INT2(16, "vector_int2"),
    /** Fixed vector of two unsigned integers. */
    VECTOR_UINT2(17, "vector_uint2"),
    /** Fixed vector of two floats. */
    VECTOR_FLOAT2(18, "vector_float2"),
    /** Fixed vector of three signed integers. */
    VECTOR_INT3(19, "vector_int3"),
    /** Fixed vector of three unsigned integers. */
    VECTOR_UINT3(20, "vector_uint3"),
    /** Fixed vector of three floats. */
    VECTOR_FLOAT3(21, "vector_float3"),
    /** Fixed vector of four signed integers. */
    VECTOR_INT4(22, "vector_int4"),
    /** Fixed vector of four unsigned integers. */
    VECTOR_UINT4(23, "vector_uint4"),
    /** Fixed vector of four floats. */
    VECTOR_FLOAT4(24, "vector_float4"),
    /** Length-prefixed bytes. */
    BLOB(25, "blob"),
    /** Boolean stored inline. */
    BOOL(26, "bool"),
    /** Typed vector of booleans. */
    VECTOR_BOOL(36, "vector_bool");

    public companion object {
        private val byCode: Array<FlexType?> = arrayOfNulls<FlexType>(64).also { a ->
            for (t in entries) a[t.code] = t
        }

        /** The type with wire code [code], or null for codes the format does not define. */
        public fun fromCode(code: Int): FlexType? = if (code in 0..63) byCode[code] else null
    }
}

/** Integer type codes and width helpers shared by the builder, reader and verifier. */
internal object T {
    const val NULL = 0
    const val INT = 1
    const val UINT = 2
    const val FLOAT = 3
    const val KEY = 4
    const val STRING = 5
    const val INDIRECT_INT = 6
    const val INDIRECT_UINT = 7
    const val INDIRECT_FLOAT = 8
    const val MAP = 9
    const val VECTOR = 10
    const val VECTOR_INT = 11
    const val VECTOR_UINT = 12
    const val VECTOR_FLOAT = 13
    const val VECTOR_KEY = 14
    const val VECTOR_STRING_DEPRECATED = 15
    const val VECTOR_INT2 = 16
    const val VECTOR_FLOAT4 = 24
    const val BLOB = 25
    const val BOOL = 26
    const val VECTOR_BOOL = 36

    fun known(code: Int): Boolean = code in 0..26 || code == 36

    fun isInline(t: Int): Boolean = t <= FLOAT || t == BOOL

    fun isTypedVector(t: Int): Boolean = t in VECTOR_INT..VECTOR_STRING_DEPRECATED || t == VECTOR_BOOL

    fun isFixed(t: Int): Boolean = t in VECTOR_INT2..VECTOR_FLOAT4

    /** Element type of a typed vector (keys for the deprecated string vector). */
    fun typedElement(t: Int): Int = when (t) {
        VECTOR_INT -> INT
        VECTOR_UINT -> UINT
        VECTOR_FLOAT -> FLOAT
        VECTOR_BOOL -> BOOL
        else -> KEY
    }

    fun fixedElement(t: Int): Int = when ((t - VECTOR_INT2) % 3) {
        0 -> INT
        1 -> UINT
        else -> FLOAT
    }

    fun fixedLength(t: Int): Int = (t - VECTOR_INT2) / 3 + 2

    /** Typed vector type for elements of [elem]; fixed when [fixedLen] is 2..4. */
    fun toTypedVector(elem: Int, fixedLen: Int): Int = when (fixedLen) {
        0 -> when (elem) {
            INT -> VECTOR_INT
            UINT -> VECTOR_UINT
            FLOAT -> VECTOR_FLOAT
            BOOL -> VECTOR_BOOL
            else -> VECTOR_KEY
        }
        else -> VECTOR_INT2 + (fixedLen - 2) * 3 + (elem - INT)
    }

    /** log2 width (0..3) of the smallest unsigned width holding [u]. */
    fun widthU(u: Long): Int = when {
        u ushr 8 == 0L -> 0
        u ushr 16 == 0L -> 1
        u ushr 32 == 0L -> 2
        else -> 3
    }

    /** log2 width of the smallest two's-complement width holding [i]. */
    fun widthI(i: Long): Int {
        val u = i shl 1
        return widthU(if (i >= 0) u else u.inv())
    }

    /** 2 (4 bytes) when [f] survives a round trip through f32, else 3 (NaN is always 8 bytes). */
    fun widthF(f: Double): Int = if (f.toFloat().toDouble() == f) 2 else 3

    fun pack(t: Int, w: Int): Int = (t shl 2) or w
}
