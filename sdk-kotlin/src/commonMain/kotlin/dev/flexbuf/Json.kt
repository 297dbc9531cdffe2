package dev.flexbuf

/** FlexBuffers to compact JSON text, as the Rust core's `to_json` writes it. */
public object Json {
    /** Verifies [buf] and converts it to JSON, within the default expansion budget. */
    public fun toJson(buf: ByteArray): String = write(verify(buf).root(), Budget.forInput(buf.size))

    /** Converts the value [r] (checked or trusted) to JSON. */
    public fun write(r: FlexRef, budget: Budget = Budget.forInput(r.buffer.size)): String {
        val sb = StringBuilder()
        value(r, budget, sb, 0)
        return sb.toString()
    }

    private fun value(r: FlexRef, budget: Budget, out: StringBuilder, depth: Int) {
        budget.node()
        if (depth > 1024) fail(ErrorKind.DepthLimit, r.offset)
        val before = out.length
        when (r.t) {
            T.NULL -> out.append("null")
            T.BOOL -> out.append(if (r.asBool()) "true" else "false")
            T.INT, T.INDIRECT_INT -> out.append(r.asLong())
            T.UINT, T.INDIRECT_UINT -> out.append(r.asULong().toString())
            T.FLOAT, T.INDIRECT_FLOAT -> {
                val f = r.asDouble()
                if (f.isNaN() || f.isInfinite()) fail(ErrorKind.NonFiniteFloat, r.offset)
                out.append(formatDouble(f))
            }
            T.STRING, T.KEY -> {
                val s = r.asString()
                budget.bytes(s.length.toLong())
                escape(out, s)
            }
            T.BLOB -> {
                val b = r.asBlob()
                budget.bytes(b.size * 4L / 3 + 4)
                out.append('"')
                base64(out, b)
                out.append('"')
            }
            T.MAP -> {
                val m = r.asMap()
                out.append('{')
                for (i in 0 until m.size) {
                    if (i > 0) out.append(',')
                    val k = m.key(i)
                    budget.bytes(k.length + 4L)
                    escape(out, k)
                    out.append(':')
                    try { value(m.value(i), budget, out, depth + 1) } catch (e: FlexException) { throw e.inKey(k) }
                }
                out.append('}')
                budget.bytes(2)
                return
            }
            else -> {
                val v = r.asVector()
                out.append('[')
                for (i in 0 until v.size) {
                    if (i > 0) out.append(',')
                    try { value(v[i], budget, out, depth + 1) } catch (e: FlexException) { throw e.inIndex(i) }
                }
                out.append(']')
                budget.bytes(2)
                return
            }
        }
        budget.bytes((out.length - before).toLong())
    }

    /** JSON string escaping as the Rust core does it (`\u00XX` for other controls). */
    public fun escape(out: StringBuilder, s: String) {
        out.append('"')
        for (c in s) {
            when {
                c == '"' -> out.append("\\\"")
                c == '\\' -> out.append("\\\\")
                c == '\n' -> out.append("\\n")
                c == '\r' -> out.append("\\r")
                c == '\t' -> out.append("\\t")
                c == '\b' -> out.append("\\b")
                c == '\u000c' -> out.append("\\f")
                c < ' ' -> {
                    out.append("\\u00")
                    out.append(HEX[c.code shr 4]).append(HEX[c.code and 15])
                }
                else -> out.append(c)
            }
        }
        out.append('"')
    }

    private const val HEX = "0123456789abcdef"
    private const val B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    private fun base64(out: StringBuilder, d: ByteArray) {
        var i = 0
        while (i < d.size) {
            val rem = d.size - i
            val b0 = d[i].toInt() and 0xff
            val b1 = if (rem > 1) d[i + 1].toInt() and 0xff else 0
            val b2 = if (rem > 2) d[i + 2].toInt() and 0xff else 0
            val n = (b0 shl 16) or (b1 shl 8) or b2
            out.append(B64[(n shr 18) and 63]).append(B64[(n shr 12) and 63])
            out.append(if (rem > 1) B64[(n shr 6) and 63] else '=')
            out.append(if (rem > 2) B64[n and 63] else '=')
            i += 3
        }
    }

    /**
     * The shortest decimal reading back to [f], spelled as Rust's `{:?}` does:
     * `1.0`, `0.1`, `1e300`, `5e-324`, `1.5e-7` (exponent form below 1e-4 and from 1e16).
     */
    public fun formatDouble(f: Double): String {
        if (f.isNaN()) return "NaN"
        if (f.isInfinite()) return if (f > 0) "inf" else "-inf"
        if (f == 0.0) return if (1.0 / f < 0) "-0.0" else "0.0"
        val neg = f < 0
        // The platform's shortest round-trip digits, re-spelled.
        val s = (if (neg) -f else f).toString()
        val ePos = s.indexOfFirst { it == 'E' || it == 'e' }
        val mant = if (ePos >= 0) s.substring(0, ePos) else s
        var exp = if (ePos >= 0) s.substring(ePos + 1).toInt() else 0
        val dot = mant.indexOf('.')
        val intPart = if (dot >= 0) mant.substring(0, dot) else mant
        val frac = if (dot >= 0) mant.substring(dot + 1) else ""
        var digits = intPart + frac
        exp += intPart.length // value = 0.digits * 10^exp
        val lead = digits.indexOfFirst { it != '0' }
        digits = digits.substring(lead)
        exp -= lead
        digits = digits.trimEnd('0')
        if (digits.isEmpty()) digits = "0"
        val abs = if (neg) -f else f
        digits = shortest(digits, exp, abs)
        val sb = StringBuilder()
        if (neg) sb.append('-')
        if (abs < 1e-4 || abs >= 1e16) {
            sb.append(digits[0])
            if (digits.length > 1) sb.append('.').append(digits, 1, digits.length)
            sb.append('e').append(exp - 1)
        } else if (exp <= 0) {
            sb.append("0.")
            repeat(-exp) { sb.append('0') }
            sb.append(digits)
        } else if (exp >= digits.length) {
            sb.append(digits)
            repeat(exp - digits.length) { sb.append('0') }
            sb.append(".0")
        } else {
            sb.append(digits, 0, exp).append('.').append(digits, exp, digits.length)
        }
        return sb.toString()
    }

    /** Some platforms print more digits than needed (JDK < 19): keep the fewest that still read back as [abs]. */
    private fun shortest(digits: String, exp: Int, abs: Double): String {
        for (k in 1 until digits.length) {
            for (candidate in roundings(digits, k)) {
                if ("0.${candidate}e$exp".toDouble() == abs) return candidate.trimEnd('0').ifEmpty { "0" }
            }
        }
        return digits
    }

    /** [digits] cut to [k] digits, and the same rounded up (when that does not carry past the first digit). */
    private fun roundings(digits: String, k: Int): List<String> {
        val down = digits.substring(0, k)
        val chars = down.toCharArray()
        var i = k - 1
        while (i >= 0 && chars[i] == '9') { chars[i] = '0'; i-- }
        if (i < 0) return listOf(down)
        chars[i] = chars[i] + 1
        val up = chars.concatToString()
        // The nearer candidate first, as a shortest-digits algorithm would choose.
        return if (digits[k] >= '5') listOf(up, down) else listOf(down, up)
    }
}
