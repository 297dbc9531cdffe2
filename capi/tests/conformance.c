/*
 * The C conformance runner: replays the conformance build cases through the
 * ABI builder, reads the goldens back through the ABI reader and rejects the
 * invalid corpus through the ABI only.
 *
 * Usage: conformance <exported dir> <conformance/invalid dir>
 *   <exported dir> holds cases.txt and invalid.txt written by
 *   `cargo run --manifest-path capi/Cargo.toml --example export_cases`.
 *   With FLEXBUF_DAMAGED naming a damaged-buffer file (written by
 *   `flexbuf-conformance damage`, see conformance/README.md "Agreement"),
 *   the agreement category runs too.
 *
 * Prints one JSON result line per category (as the other runners of
 * `cargo xtask conformance`) and exits 1 when any check failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>

#include "common.h"

#define MAX_FAILURES_KEPT 50
#define ERR_CAP 512

/* ---- results ----------------------------------------------------------- */

typedef struct {
    const char *category;
    size_t passed, total;
    char *failures[MAX_FAILURES_KEPT];
    size_t kept;
} category;

static void record(category *c, const char *name, const char *error) {
    c->total++;
    if (!error) {
        c->passed++;
        return;
    }
    if (c->kept < MAX_FAILURES_KEPT) {
        size_t n = strlen(name) + strlen(error) + 3;
        char *s = malloc(n);
        if (s) {
            snprintf(s, n, "%s: %s", name, error);
            c->failures[c->kept++] = s;
        }
    }
}

static void print_json_string(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            putchar('\\');
            putchar(ch);
        } else if (ch < 0x20) {
            printf("\\u%04x", ch);
        } else {
            putchar(ch);
        }
    }
    putchar('"');
}

static void print_category(category *c) {
    printf("{\"lang\":\"c\",\"category\":");
    print_json_string(c->category);
    printf(",\"passed\":%zu,\"total\":%zu,\"failures\":[", c->passed, c->total);
    for (size_t i = 0; i < c->kept; i++) {
        if (i) putchar(',');
        print_json_string(c->failures[i]);
        free(c->failures[i]);
    }
    printf("]}\n");
    c->kept = 0;
}

/* ---- error text -------------------------------------------------------- */

static void fail(char *err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, ERR_CAP, fmt, ap);
    va_end(ap);
}

static void fail_status(char *err, const char *what, flexbuf_status s) {
    fail(err, "%s: %s (%s)", what, flexbuf_status_name(s), flexbuf_last_error_message());
}

/* ---- tokens ------------------------------------------------------------ */

/* Splits line in place on spaces into at most max tokens; returns the count. */
static size_t tokenize(char *line, char **tok, size_t max) {
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \n", &save); t && n < max; t = strtok_r(NULL, " \n", &save)) tok[n++] = t;
    return n;
}

static uint64_t parse_hex_u64(const char *s) { return strtoull(s, NULL, 16); }

static double bits_to_double(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static float bits_to_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ---- replaying ops through the builder --------------------------------- */

static flexbuf_elem elem_of(const char *kind, int width) {
    if (strcmp(kind, "int") == 0) return width == 1 ? FLEXBUF_ELEM_I8 : width == 2 ? FLEXBUF_ELEM_I16 : width == 4 ? FLEXBUF_ELEM_I32 : FLEXBUF_ELEM_I64;
    if (strcmp(kind, "uint") == 0) return width == 1 ? FLEXBUF_ELEM_U8 : width == 2 ? FLEXBUF_ELEM_U16 : width == 4 ? FLEXBUF_ELEM_U32 : FLEXBUF_ELEM_U64;
    if (strcmp(kind, "float") == 0) return width == 4 ? FLEXBUF_ELEM_F32 : FLEXBUF_ELEM_F64;
    return FLEXBUF_ELEM_BOOL;
}

/* Packs the n value tokens of a bulk op into a malloc'ed C array of the element type. */
static void *pack_elements(const char *kind, int width, char **vals, size_t n) {
    void *arr = malloc(n * (size_t)width + 8);
    if (!arr) return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *v = vals[i];
        if (strcmp(kind, "int") == 0) {
            int64_t x = strtoll(v, NULL, 10);
            if (width == 1) ((int8_t *)arr)[i] = (int8_t)x;
            else if (width == 2) ((int16_t *)arr)[i] = (int16_t)x;
            else if (width == 4) ((int32_t *)arr)[i] = (int32_t)x;
            else ((int64_t *)arr)[i] = x;
        } else if (strcmp(kind, "uint") == 0) {
            uint64_t x = strtoull(v, NULL, 10);
            if (width == 1) ((uint8_t *)arr)[i] = (uint8_t)x;
            else if (width == 2) ((uint16_t *)arr)[i] = (uint16_t)x;
            else if (width == 4) ((uint32_t *)arr)[i] = (uint32_t)x;
            else ((uint64_t *)arr)[i] = x;
        } else if (strcmp(kind, "float") == 0) {
            uint64_t bits = parse_hex_u64(v);
            if (width == 4) ((float *)arr)[i] = bits_to_float((uint32_t)bits);
            else ((double *)arr)[i] = bits_to_double(bits);
        } else {
            ((uint8_t *)arr)[i] = (uint8_t)(v[0] == '1');
        }
    }
    return arr;
}

/* Applies one op line; returns the status of the builder call. */
static flexbuf_status apply_op(flexbuf_builder *b, char *line, char *err) {
    char *tok[4096 + 8];
    size_t n = tokenize(line, tok, sizeof tok / sizeof tok[0]);
    if (n < 2) {
        fail(err, "malformed op line");
        return FLEXBUF_ERR_INVALID_ARG;
    }
    const char *op = tok[1];
    if (!strcmp(op, "null")) return flexbuf_builder_null(b);
    if (!strcmp(op, "start_map")) return flexbuf_builder_start_map(b);
    if (!strcmp(op, "end_map")) return flexbuf_builder_end_map(b);
    if (!strcmp(op, "start_vector")) return flexbuf_builder_start_vector(b);
    if (!strcmp(op, "mark")) {
        size_t slot;
        return flexbuf_builder_mark(b, &slot);
    }
    if (!strcmp(op, "bool")) return flexbuf_builder_bool(b, tok[2][0] == '1');
    if (!strcmp(op, "int")) return flexbuf_builder_int(b, strtoll(tok[2], NULL, 10));
    if (!strcmp(op, "uint")) return flexbuf_builder_uint(b, strtoull(tok[2], NULL, 10));
    if (!strcmp(op, "indirect_int")) return flexbuf_builder_indirect_int(b, strtoll(tok[2], NULL, 10));
    if (!strcmp(op, "indirect_uint")) return flexbuf_builder_indirect_uint(b, strtoull(tok[2], NULL, 10));
    if (!strcmp(op, "float")) return flexbuf_builder_float(b, bits_to_float((uint32_t)parse_hex_u64(tok[2])));
    if (!strcmp(op, "indirect_float")) return flexbuf_builder_indirect_float(b, bits_to_float((uint32_t)parse_hex_u64(tok[2])));
    if (!strcmp(op, "double")) return flexbuf_builder_double(b, bits_to_double(parse_hex_u64(tok[2])));
    if (!strcmp(op, "indirect_double")) return flexbuf_builder_indirect_double(b, bits_to_double(parse_hex_u64(tok[2])));
    if (!strcmp(op, "force_min_width")) return flexbuf_builder_force_min_width(b, (uint32_t)strtoul(tok[2], NULL, 10));
    if (!strcmp(op, "reuse")) return flexbuf_builder_reuse(b, (size_t)strtoull(tok[2], NULL, 10));
    if (!strcmp(op, "end_vector")) return flexbuf_builder_end_vector_as(b, tok[2][0] == '1', tok[3][0] == '1');
    if (!strcmp(op, "key") || !strcmp(op, "string") || !strcmp(op, "blob")) {
        uint8_t *bytes;
        size_t len;
        if (hex_decode(tok[2], &bytes, &len) != 0) {
            fail(err, "bad hex in %s op", op);
            return FLEXBUF_ERR_INVALID_ARG;
        }
        flexbuf_status s = !strcmp(op, "key")      ? flexbuf_builder_key(b, (const char *)bytes, len)
                           : !strcmp(op, "string") ? flexbuf_builder_string(b, (const char *)bytes, len)
                                                   : flexbuf_builder_blob(b, bytes, len);
        free(bytes);
        return s;
    }
    if (!strcmp(op, "scalar_vector") || !strcmp(op, "fixed_vector") || !strcmp(op, "typed_vector")) {
        const char *kind = tok[2];
        int width = atoi(tok[3]);
        size_t count = (size_t)strtoull(tok[4], NULL, 10);
        if (count + 5 != n) {
            fail(err, "bulk op with %zu values, line has %zu tokens", count, n);
            return FLEXBUF_ERR_INVALID_ARG;
        }
        void *arr = pack_elements(kind, width, tok + 5, count);
        if (!arr) {
            fail(err, "out of memory");
            return FLEXBUF_ERR_ALLOC;
        }
        flexbuf_elem e = elem_of(kind, width);
        flexbuf_status s = !strcmp(op, "scalar_vector")  ? flexbuf_builder_scalar_vector(b, e, arr, count)
                           : !strcmp(op, "fixed_vector") ? flexbuf_builder_fixed_vector(b, e, arr, count)
                                                         : flexbuf_builder_typed_vector(b, e, arr, count);
        free(arr);
        return s;
    }
    fail(err, "unknown op %s", op);
    return FLEXBUF_ERR_INVALID_ARG;
}

/* ---- one case ---------------------------------------------------------- */

typedef struct {
    char **lines;
    size_t n, cap;
} lines;

static int push_line(lines *l, const char *text) {
    if (l->n == l->cap) {
        size_t next = l->cap ? l->cap * 2 : 16;
        char **grown = realloc(l->lines, next * sizeof *grown);
        if (!grown) return -1;
        l->lines = grown;
        l->cap = next;
    }
    l->lines[l->n] = strdup(text);
    if (!l->lines[l->n]) return -1;
    l->n++;
    return 0;
}

static void clear_lines(lines *l) {
    for (size_t i = 0; i < l->n; i++) free(l->lines[i]);
    l->n = 0;
}

/* "bytes identical": replays the ops; NULL on success, else err. */
static const char *check_bytes(int flags, bool refuses, lines *ops, const uint8_t *golden, size_t golden_len, char *err) {
    flexbuf_builder *b = NULL;
    flexbuf_status s = flexbuf_builder_new((uint32_t)flags, &b);
    if (s != FLEXBUF_OK) {
        fail_status(err, "builder_new", s);
        return err;
    }
    const char *result = NULL;
    err[0] = 0;
    for (size_t i = 0; i < ops->n && s == FLEXBUF_OK; i++) {
        char *copy = strdup(ops->lines[i]);
        if (!copy) {
            fail(err, "out of memory");
            flexbuf_builder_free(b);
            return err;
        }
        s = apply_op(b, copy, err);
        free(copy);
        if (s != FLEXBUF_OK && !refuses) {
            if (!err[0]) fail_status(err, ops->lines[i], s);
            result = err;
        }
    }
    flexbuf_buffer out = {0};
    if (s == FLEXBUF_OK) {
        s = flexbuf_builder_finish(b, &out);
        if (s != FLEXBUF_OK && !refuses) {
            fail_status(err, "finish", s);
            result = err;
        }
    }
    if (s == FLEXBUF_OK) {
        if (refuses) {
            fail(err, "builder wrote %zu bytes although the case records that it refuses", out.len);
            result = err;
        } else if (out.len != golden_len || memcmp(out.data, golden, golden_len) != 0) {
            fail(err, "bytes differ (ours %zu bytes, golden %zu bytes)", out.len, golden_len);
            result = err;
        }
    } else if (out.data != NULL || out.len != 0 || out.handle != 0) {
        fail(err, "failed finish did not leave the documented zeroed buffer");
        result = err;
    }
    if (flexbuf_buffer_release(out.handle) != FLEXBUF_OK) {
        fail(err, "release of a finished buffer failed");
        result = err;
    }
    if (flexbuf_builder_free(b) != FLEXBUF_OK) {
        fail(err, "builder_free failed");
        result = err;
    }
    return result;
}

static bool is_inline(flexbuf_type t) {
    return t == FLEXBUF_TYPE_NULL || t == FLEXBUF_TYPE_INT || t == FLEXBUF_TYPE_UINT || t == FLEXBUF_TYPE_FLOAT || t == FLEXBUF_TYPE_BOOL;
}

static bool bytes_equal_hex(flexbuf_bytes view, const char *hex) {
    uint8_t *want;
    size_t len;
    if (hex_decode(hex, &want, &len) != 0) return false;
    bool same = view.data != NULL && view.len == len && (len == 0 || memcmp(view.data, want, len) == 0);
    free(want);
    return same;
}

/* Compares the value at r with the annotated lines starting at *pos. */
static bool check_value(const flexbuf_ref *r, lines *vals, size_t *pos, char *err, int depth) {
    if (*pos >= vals->n) {
        fail(err, "annotated value ended early");
        return false;
    }
    char line[ERR_CAP];
    char *big = strdup(vals->lines[(*pos)++]);
    if (!big) {
        fail(err, "out of memory");
        return false;
    }
    char *tok[4];
    size_t n = tokenize(big, tok, 4);
    bool ok = false;
    snprintf(line, sizeof line, "at depth %d", depth);
    if (n != 4 || strcmp(tok[0], "v") != 0) {
        fail(err, "malformed value line");
        goto done;
    }
    flexbuf_type want_type = (flexbuf_type)atoi(tok[1]);
    unsigned want_width = (unsigned)atoi(tok[2]);
    const char *payload = tok[3];
    flexbuf_type type;
    uint8_t slot, own;
    flexbuf_status s;
    if ((s = flexbuf_ref_type(r, &type)) != FLEXBUF_OK) {
        fail_status(err, "ref_type", s);
        goto done;
    }
    if (type != want_type || r->type != want_type) {
        fail(err, "%s: type %s, expected %s", line, flexbuf_type_name(type), flexbuf_type_name(want_type));
        goto done;
    }
    if ((s = flexbuf_ref_widths(r, &slot, &own)) != FLEXBUF_OK) {
        fail_status(err, "ref_widths", s);
        goto done;
    }
    unsigned width = is_inline(type) ? slot : own;
    if (width != want_width) {
        fail(err, "%s: %s width %u, expected %u", line, flexbuf_type_name(type), width, want_width);
        goto done;
    }
    switch (type) {
    case FLEXBUF_TYPE_NULL:
        ok = true;
        break;
    case FLEXBUF_TYPE_BOOL: {
        bool v;
        if ((s = flexbuf_ref_bool(r, &v)) != FLEXBUF_OK) fail_status(err, "ref_bool", s);
        else if (v != (payload[0] == '1')) fail(err, "%s: bool %d, expected %s", line, v, payload);
        else ok = true;
        break;
    }
    case FLEXBUF_TYPE_INT:
    case FLEXBUF_TYPE_INDIRECT_INT: {
        int64_t v;
        if ((s = flexbuf_ref_int(r, &v)) != FLEXBUF_OK) fail_status(err, "ref_int", s);
        else if (v != strtoll(payload, NULL, 10)) fail(err, "%s: int %" PRId64 ", expected %s", line, v, payload);
        else ok = true;
        break;
    }
    case FLEXBUF_TYPE_UINT:
    case FLEXBUF_TYPE_INDIRECT_UINT: {
        uint64_t v;
        if ((s = flexbuf_ref_uint(r, &v)) != FLEXBUF_OK) fail_status(err, "ref_uint", s);
        else if (v != strtoull(payload, NULL, 10)) fail(err, "%s: uint %" PRIu64 ", expected %s", line, v, payload);
        else ok = true;
        break;
    }
    case FLEXBUF_TYPE_FLOAT:
    case FLEXBUF_TYPE_INDIRECT_FLOAT: {
        double v;
        if ((s = flexbuf_ref_double(r, &v)) != FLEXBUF_OK) {
            fail_status(err, "ref_double", s);
        } else if (!strcmp(payload, "nan")) {
            if (isnan(v)) ok = true;
            else fail(err, "%s: float %g, expected nan", line, v);
        } else {
            uint64_t bits;
            memcpy(&bits, &v, sizeof bits);
            if (bits == parse_hex_u64(payload)) ok = true;
            else fail(err, "%s: float bits %016" PRIx64 ", expected %s", line, bits, payload);
        }
        break;
    }
    case FLEXBUF_TYPE_STRING:
    case FLEXBUF_TYPE_KEY: {
        flexbuf_bytes v;
        if ((s = flexbuf_ref_string(r, &v)) != FLEXBUF_OK) fail_status(err, "ref_string", s);
        else if (!bytes_equal_hex(v, payload)) fail(err, "%s: string of %zu bytes differs", line, v.len);
        else ok = true;
        break;
    }
    case FLEXBUF_TYPE_BLOB: {
        flexbuf_bytes v;
        if ((s = flexbuf_ref_blob(r, &v)) != FLEXBUF_OK) fail_status(err, "ref_blob", s);
        else if (!bytes_equal_hex(v, payload)) fail(err, "%s: blob of %zu bytes differs", line, v.len);
        else ok = true;
        break;
    }
    default: {
        size_t count = (size_t)strtoull(payload, NULL, 10), len;
        if ((s = flexbuf_ref_len(r, &len)) != FLEXBUF_OK) {
            fail_status(err, "ref_len", s);
            break;
        }
        if (len != count) {
            fail(err, "%s: %s of %zu elements, expected %zu", line, flexbuf_type_name(type), len, count);
            break;
        }
        ok = true;
        for (size_t i = 0; i < count && ok; i++) {
            flexbuf_ref child;
            if (type == FLEXBUF_TYPE_MAP) {
                if (*pos >= vals->n || strncmp(vals->lines[*pos], "k ", 2) != 0) {
                    fail(err, "annotated map entry without a key line");
                    ok = false;
                    break;
                }
                const char *key_hex = vals->lines[(*pos)++] + 2;
                flexbuf_bytes key;
                if ((s = flexbuf_ref_key_at(r, i, &key)) != FLEXBUF_OK) {
                    fail_status(err, "ref_key_at", s);
                    ok = false;
                    break;
                }
                if (!bytes_equal_hex(key, key_hex)) {
                    fail(err, "%s: key %zu differs", line, i);
                    ok = false;
                    break;
                }
                flexbuf_ref found;
                if ((s = flexbuf_ref_lookup(r, (const char *)key.data, key.len, &found)) != FLEXBUF_OK) {
                    fail_status(err, "ref_lookup", s);
                    ok = false;
                    break;
                }
                if ((s = flexbuf_ref_index(r, i, &child)) != FLEXBUF_OK) {
                    fail_status(err, "ref_index", s);
                    ok = false;
                    break;
                }
                if (memcmp(&found, &child, sizeof child) != 0) {
                    fail(err, "%s: lookup of key %zu found another entry", line, i);
                    ok = false;
                    break;
                }
            } else if ((s = flexbuf_ref_index(r, i, &child)) != FLEXBUF_OK) {
                fail_status(err, "ref_index", s);
                ok = false;
                break;
            }
            ok = check_value(&child, vals, pos, err, depth + 1);
        }
        if (ok) {
            /* One past the end is an index error with a zeroed child. */
            flexbuf_ref past;
            s = flexbuf_ref_index(r, count, &past);
            if (s != FLEXBUF_ERR_INDEX || past.buf != NULL) {
                fail(err, "%s: index past the end gave %s", line, flexbuf_status_name(s));
                ok = false;
            }
        }
        break;
    }
    }
done:
    free(big);
    return ok;
}

/* "values identical": verifies the golden and compares every value. */
static const char *check_values(const uint8_t *golden, size_t len, lines *vals, char *err) {
    flexbuf_ref root;
    flexbuf_status s = flexbuf_root(golden, len, &root);
    if (s != FLEXBUF_OK) {
        fail_status(err, "root", s);
        return err;
    }
    size_t pos = 0;
    if (!check_value(&root, vals, &pos, err, 0)) return err;
    if (pos != vals->n) {
        fail(err, "annotated value has %zu unread lines", vals->n - pos);
        return err;
    }
    return NULL;
}

/* ---- invalid corpus ---------------------------------------------------- */

static bool all_zero(const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

/* Reads every value below r (a bounded walk), so odd-but-valid layouts go
 * through every reader call. */
static bool walk(const flexbuf_ref *r, size_t *budget, char *err) {
    if (*budget == 0) return true;
    (*budget)--;
    flexbuf_type t = r->type;
    flexbuf_status s = FLEXBUF_OK;
    if (t == FLEXBUF_TYPE_BOOL) {
        bool v;
        s = flexbuf_ref_bool(r, &v);
    } else if (t == FLEXBUF_TYPE_INT || t == FLEXBUF_TYPE_INDIRECT_INT) {
        int64_t v;
        s = flexbuf_ref_int(r, &v);
    } else if (t == FLEXBUF_TYPE_UINT || t == FLEXBUF_TYPE_INDIRECT_UINT) {
        uint64_t v;
        s = flexbuf_ref_uint(r, &v);
    } else if (t == FLEXBUF_TYPE_FLOAT || t == FLEXBUF_TYPE_INDIRECT_FLOAT) {
        double v;
        s = flexbuf_ref_double(r, &v);
    } else if (t == FLEXBUF_TYPE_STRING || t == FLEXBUF_TYPE_KEY) {
        flexbuf_bytes v;
        s = flexbuf_ref_string(r, &v);
    } else if (t == FLEXBUF_TYPE_BLOB) {
        flexbuf_bytes v;
        s = flexbuf_ref_blob(r, &v);
    } else if (t != FLEXBUF_TYPE_NULL) {
        size_t n;
        s = flexbuf_ref_len(r, &n);
        for (size_t i = 0; s == FLEXBUF_OK && i < n && *budget; i++) {
            flexbuf_ref child;
            if (t == FLEXBUF_TYPE_MAP) {
                flexbuf_bytes key;
                s = flexbuf_ref_key_at(r, i, &key);
                if (s != FLEXBUF_OK) break;
            }
            s = flexbuf_ref_index(r, i, &child);
            if (s == FLEXBUF_OK && !walk(&child, budget, err)) return false;
        }
    }
    if (s != FLEXBUF_OK) {
        fail_status(err, "reading a verified value", s);
        return false;
    }
    return true;
}

static const char *check_invalid(char **tok, const char *dir, char *err) {
    bool valid = tok[1][0] == '1';
    const char *kind = tok[2];
    bool expand_budget = tok[3][0] == '1';
    const char *json_hex = tok[4];
    const char *file = tok[5];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    uint8_t *data;
    size_t len;
    if (read_file(path, &data, &len) != 0) {
        fail(err, "cannot read %s", path);
        return err;
    }
    const char *result = NULL;
    flexbuf_status s = flexbuf_verify(data, len);
    flexbuf_ref root;
    flexbuf_status rs = flexbuf_root(data, len, &root);
    flexbuf_buffer json;
    flexbuf_status js = flexbuf_to_json(data, len, 0, &json);
    if (!valid) {
        if (s != FLEXBUF_ERR_INVALID_BUFFER) {
            fail(err, "verify returned %s, expected FLEXBUF_ERR_INVALID_BUFFER", flexbuf_status_name(s));
            result = err;
        } else if (rs != FLEXBUF_ERR_INVALID_BUFFER || !all_zero(&root, sizeof root)) {
            fail(err, "root returned %s or left a non-zero ref", flexbuf_status_name(rs));
            result = err;
        } else if (js == FLEXBUF_OK || json.data || json.len || json.handle) {
            fail(err, "to_json returned %s or left a non-zero buffer", flexbuf_status_name(js));
            result = err;
        } else if (strcmp(kind, "any") != 0) {
            flexbuf_verify(data, len);
            if (strcmp(flexbuf_last_error_kind(), kind) != 0) {
                fail(err, "error kind %s, expected %s", flexbuf_last_error_kind(), kind);
                result = err;
            }
        }
    } else if (s != FLEXBUF_OK || rs != FLEXBUF_OK) {
        fail(err, "valid file rejected: %s (%s)", flexbuf_status_name(s), flexbuf_last_error_message());
        result = err;
    } else if (expand_budget) {
        if (js != FLEXBUF_ERR_BUDGET) {
            fail(err, "to_json of a DAG bomb returned %s, expected FLEXBUF_ERR_BUDGET", flexbuf_status_name(js));
            result = err;
        }
    } else {
        size_t budget = 100000;
        if (!walk(&root, &budget, err)) {
            result = err;
        } else if (js != FLEXBUF_OK && js != FLEXBUF_ERR_JSON) {
            fail(err, "to_json returned %s", flexbuf_status_name(js));
            result = err;
        } else if (strcmp(json_hex, "-") != 0) {
            uint8_t *want;
            size_t want_len;
            if (js != FLEXBUF_OK || hex_decode(json_hex, &want, &want_len) != 0) {
                fail(err, "to_json returned %s", flexbuf_status_name(js));
                result = err;
            } else {
                if (json.len != want_len || memcmp(json.data, want, want_len) != 0 || json.data[json.len] != 0) {
                    fail(err, "JSON differs: %.*s", (int)(json.len > 200 ? 200 : json.len), (const char *)json.data);
                    result = err;
                }
                free(want);
            }
        }
    }
    if (flexbuf_buffer_release(json.handle) != FLEXBUF_OK) {
        fail(err, "release of the JSON buffer failed");
        result = err;
    }
    free(data);
    return result;
}

/* ---- agreement: damaged buffers ---------------------------------------- */

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The status flexbuf_to_json must give on a verified buffer, from the core's
 * to_json outcome (an ErrorKind name). */
static flexbuf_status json_status(const char *kind) {
    if (!strcmp(kind, "ok")) return FLEXBUF_OK;
    if (!strcmp(kind, "BudgetExceeded")) return FLEXBUF_ERR_BUDGET;
    if (!strcmp(kind, "NonFiniteFloat")) return FLEXBUF_ERR_JSON;
    return FLEXBUF_ERR_INVALID_BUFFER;
}

/* One damaged buffer against the core's verdicts: verify says the same (with
 * the same kind: the ABI is the core); a rejected buffer fails root and
 * to_json with zeroed outputs, to_json with the same kind; an accepted one converts to JSON with the
 * core's outcome and reads fully (a bounded walk) through the reader. */
static const char *check_damaged(const char *verify, const char *json_kind, const uint8_t *data, size_t len,
                                 char *err) {
    const char *result = NULL;
    flexbuf_status s = flexbuf_verify(data, len);
    bool accepted = !strcmp(verify, "ok");
    if ((s == FLEXBUF_OK) != accepted) {
        fail(err, "core says %s, verify returned %s (%s)", verify, flexbuf_status_name(s),
             s == FLEXBUF_OK ? "ok" : flexbuf_last_error_kind());
        return err;
    }
    if (!accepted && strcmp(flexbuf_last_error_kind(), verify) != 0) {
        fail(err, "verify fails with %s, the core with %s", flexbuf_last_error_kind(), verify);
        return err;
    }
    flexbuf_ref root;
    flexbuf_status rs = flexbuf_root(data, len, &root);
    flexbuf_buffer json;
    flexbuf_status js = flexbuf_to_json(data, len, 0, &json);
    if (!accepted) {
        if (rs != FLEXBUF_ERR_INVALID_BUFFER || !all_zero(&root, sizeof root)) {
            fail(err, "root returned %s or left a non-zero ref", flexbuf_status_name(rs));
            result = err;
        } else if (js != FLEXBUF_ERR_INVALID_BUFFER || json.data || json.len || json.handle) {
            fail(err, "to_json returned %s or left a non-zero buffer", flexbuf_status_name(js));
            result = err;
        } else if (strcmp(flexbuf_last_error_kind(), verify) != 0) {
            fail(err, "to_json fails with %s, the core's verify with %s", flexbuf_last_error_kind(), verify);
            result = err;
        }
    } else if (rs != FLEXBUF_OK) {
        fail(err, "root of an accepted buffer returned %s", flexbuf_status_name(rs));
        result = err;
    } else if (js != json_status(json_kind)) {
        fail(err, "to_json returned %s, the core's to_json %s", flexbuf_status_name(js), json_kind);
        result = err;
    } else {
        size_t budget = 20000;
        if (!walk(&root, &budget, err)) result = err;
    }
    if (flexbuf_buffer_release(json.handle) != FLEXBUF_OK) {
        fail(err, "release of the JSON buffer failed");
        result = err;
    }
    return result;
}

/* Runs every record of the file at path; false when the file is unreadable. */
static bool run_agreement(const char *path, category *c) {
    uint8_t *file;
    size_t n;
    if (read_file(path, &file, &n) != 0 || n < 20 || memcmp(file, "FLEXBUF-DAMAGED\x01", 16) != 0) {
        fprintf(stderr, "cannot read the damaged-buffer file %s\n", path);
        free(file);
        return false;
    }
    uint32_t count = le32(file + 16);
    size_t pos = 20;
    char err[ERR_CAP];
    for (uint32_t i = 0; i < count; i++) {
        if (pos + 4 > n) break;
        size_t meta_len = le32(file + pos);
        if (pos + 4 + meta_len + 4 > n) break;
        char *meta = strndup((const char *)file + pos + 4, meta_len);
        pos += 4 + meta_len;
        size_t len = le32(file + pos);
        if (!meta || pos + 4 + len > n) {
            free(meta);
            break;
        }
        /* Each buffer in its own allocation, so ASan sees any read past its end. */
        uint8_t *data = malloc(len ? len : 1);
        if (!data) {
            free(meta);
            break;
        }
        memcpy(data, file + pos + 4, len);
        pos += 4 + len;
        char *verify = strchr(meta, '\t');
        char *json_kind = verify ? strchr(verify + 1, '\t') : NULL;
        err[0] = 0;
        if (!json_kind) {
            record(c, meta, "malformed record");
        } else {
            *verify++ = 0;
            *json_kind++ = 0;
            record(c, meta, check_damaged(verify, json_kind, data, len, err));
        }
        free(data);
        free(meta);
    }
    bool complete = c->total == count;
    if (!complete) fprintf(stderr, "damaged-buffer file %s ends after %zu of %u records\n", path, c->total, count);
    free(file);
    return complete;
}

/* ---- main -------------------------------------------------------------- */

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <exported dir> <conformance/invalid dir>\n", argv[0]);
        return 2;
    }
    if (flexbuf_abi_version() != FLEXBUF_ABI_VERSION || !(flexbuf_capabilities() & FLEXBUF_CAP_BUILDER) ||
        !(flexbuf_capabilities() & FLEXBUF_CAP_READER) || !(flexbuf_capabilities() & FLEXBUF_CAP_JSON)) {
        fprintf(stderr, "library ABI %u does not match the header's %u\n", flexbuf_abi_version(), FLEXBUF_ABI_VERSION);
        return 2;
    }
    static category bytes = {.category = "bytes identical"};
    static category values = {.category = "values identical"};
    static category invalid = {.category = "invalid rejected"};
    char path[4096];
    char err[ERR_CAP];

    snprintf(path, sizeof path, "%s/cases.txt", argv[1]);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    lines ops = {0}, vals = {0};
    char *name = NULL;
    int flags = 0;
    bool refuses = false;
    uint8_t *golden = NULL;
    size_t golden_len = 0;
    ssize_t got;
    while ((got = getline(&line, &cap, f)) != -1) {
        if (got > 0 && line[got - 1] == '\n') line[got - 1] = 0;
        if (!strncmp(line, "case ", 5)) {
            char *rest = line + 5;
            flags = (int)strtol(rest, &rest, 10);
            refuses = strtol(rest, &rest, 10) == 1;
            while (*rest == ' ') rest++;
            free(name);
            name = strdup(rest);
        } else if (!strncmp(line, "o ", 2)) {
            push_line(&ops, line);
        } else if (!strncmp(line, "b ", 2)) {
            free(golden);
            hex_decode(line + 2, &golden, &golden_len);
        } else if (!strncmp(line, "v ", 2) || !strncmp(line, "k ", 2)) {
            push_line(&vals, line);
        } else if (!strcmp(line, "end")) {
            const char *n = name ? name : "?";
            err[0] = 0;
            record(&bytes, n, check_bytes(flags, refuses, &ops, golden, golden_len, err));
            err[0] = 0;
            record(&values, n, check_values(golden, golden_len, &vals, err));
            clear_lines(&ops);
            clear_lines(&vals);
        }
    }
    fclose(f);
    free(line);
    free(name);
    free(golden);
    free(ops.lines);
    free(vals.lines);

    snprintf(path, sizeof path, "%s/invalid.txt", argv[1]);
    f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 2;
    }
    line = NULL;
    cap = 0;
    while ((got = getline(&line, &cap, f)) != -1) {
        char *tok[7];
        if (tokenize(line, tok, 7) != 6 || strcmp(tok[0], "inv") != 0) continue;
        err[0] = 0;
        char label[600];
        snprintf(label, sizeof label, "%s", tok[5]);
        record(&invalid, label, check_invalid(tok, argv[2], err));
    }
    fclose(f);
    free(line);

    static category agreement = {.category = "agreement"};
    const char *damaged = getenv("FLEXBUF_DAMAGED");
    bool agreement_ok = true;
    if (damaged && *damaged) agreement_ok = run_agreement(damaged, &agreement) && agreement.passed == agreement.total;

    size_t live = 1;
    flexbuf_live_buffers(&live);
    if (live != 0) fprintf(stderr, "conformance: %zu owned buffers were not released\n", live);

    bool all = bytes.passed == bytes.total && values.passed == values.total && invalid.passed == invalid.total;
    print_category(&bytes);
    print_category(&values);
    print_category(&invalid);
    if (agreement.total) print_category(&agreement);
    return all && agreement_ok && live == 0 ? 0 : 1;
}
