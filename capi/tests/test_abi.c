/*
 * Tests of the flexbuf C ABI contract: ownership (double release, foreign
 * handles, use after clear), zeroed outputs on failure, NULL pointers, huge
 * lengths, empty results, the last error, every function family, and
 * concurrent use. Built with -fsanitize=address,undefined and run under
 * valgrind by capi/tests/Makefile.
 *
 * Usage: test_abi <exported dir>   (schema.bin / schema.txt from export_cases)
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>

#include "common.h"

_Static_assert(sizeof(flexbuf_bytes) == 16, "flexbuf_bytes layout");
_Static_assert(sizeof(flexbuf_buffer) == 24, "flexbuf_buffer layout");
_Static_assert(sizeof(flexbuf_ref) == 280, "flexbuf_ref layout");
_Static_assert(sizeof(flexbuf_envelope) == 32, "flexbuf_envelope layout");

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                                                   \
    do {                                                                                              \
        checks++;                                                                                     \
        if (!(cond)) {                                                                                \
            failures++;                                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s %s)\n", __FILE__, __LINE__, #cond, \
                    flexbuf_status_name(flexbuf_last_error_status()), flexbuf_last_error_message());    \
        }                                                                                             \
    } while (0)

#define CHECK_STATUS(call, want) CHECK((call) == (want))
#define OK(call) CHECK_STATUS(call, FLEXBUF_OK)

static bool all_zero(const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

/* Fills an output with garbage so the test sees whether a failure zeroed it. */
#define DIRTY(x) memset(&(x), 0xA5, sizeof(x))

/* {"a":1,"b":"xy","c":[1,2,3],"d":{"e":true},"f":2.5,"g":"","h":blob(0)} */
static flexbuf_buffer build_sample(flexbuf_builder *b) {
    flexbuf_buffer out = {0};
    int64_t three[3] = {1, 2, 3};
    OK(flexbuf_builder_start_map(b));
    OK(flexbuf_builder_key(b, "a", 1));
    OK(flexbuf_builder_int(b, 1));
    OK(flexbuf_builder_key(b, "b", 1));
    OK(flexbuf_builder_string(b, "xy", 2));
    OK(flexbuf_builder_key(b, "c", 1));
    OK(flexbuf_builder_vector_int64(b, three, 3));
    OK(flexbuf_builder_key(b, "d", 1));
    OK(flexbuf_builder_start_map(b));
    OK(flexbuf_builder_key(b, "e", 1));
    OK(flexbuf_builder_bool(b, true));
    OK(flexbuf_builder_end_map(b));
    OK(flexbuf_builder_key(b, "f", 1));
    OK(flexbuf_builder_double(b, 2.5));
    OK(flexbuf_builder_key(b, "g", 1));
    OK(flexbuf_builder_string(b, NULL, 0));
    OK(flexbuf_builder_key(b, "h", 1));
    OK(flexbuf_builder_blob(b, NULL, 0));
    OK(flexbuf_builder_end_map(b));
    OK(flexbuf_builder_finish(b, &out));
    return out;
}

static void test_version(void) {
    CHECK(flexbuf_abi_version() == FLEXBUF_ABI_VERSION);
    uint64_t caps = flexbuf_capabilities();
    CHECK(caps & FLEXBUF_CAP_READER);
    CHECK(caps & FLEXBUF_CAP_BUILDER);
    CHECK(caps & FLEXBUF_CAP_JSON);
    CHECK(caps & FLEXBUF_CAP_ENVELOPE);
    CHECK(caps & FLEXBUF_CAP_SCHEMA);
    CHECK(strcmp(flexbuf_status_name(FLEXBUF_ERR_TYPE), "FLEXBUF_ERR_TYPE") == 0);
    CHECK(strcmp(flexbuf_status_name(-1), "FLEXBUF_ERR_UNKNOWN") == 0);
    CHECK(strcmp(flexbuf_status_name(1000), "FLEXBUF_ERR_UNKNOWN") == 0);
    CHECK(strcmp(flexbuf_type_name(FLEXBUF_TYPE_VECTOR_BOOL), "vector_bool") == 0);
    CHECK(strcmp(flexbuf_type_name(30), "unknown") == 0);
    CHECK(strcmp(flexbuf_type_name(UINT32_MAX), "unknown") == 0);
}

static void test_release(void) {
    flexbuf_buffer buf;
    DIRTY(buf);
    OK(flexbuf_from_json("[1,2]", 5, &buf));
    CHECK(buf.data != NULL && buf.len > 0 && buf.handle != 0);
    size_t live = 0;
    OK(flexbuf_live_buffers(&live));
    CHECK(live >= 1);
    OK(flexbuf_buffer_release(buf.handle));
    /* Double release: an error status, nothing freed twice (ASan/valgrind would see it). */
    CHECK_STATUS(flexbuf_buffer_release(buf.handle), FLEXBUF_ERR_BAD_HANDLE);
    CHECK(strstr(flexbuf_last_error_message(), "already released") != NULL);
    /* Foreign and random handles. */
    uint64_t foreign[] = {1, 2, 3, 42, 0xdeadbeef, UINT64_MAX, (uint64_t)(uintptr_t)&buf, buf.handle + 1};
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++)
        CHECK_STATUS(flexbuf_buffer_release(foreign[i]), FLEXBUF_ERR_BAD_HANDLE);
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 1000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        CHECK_STATUS(flexbuf_buffer_release(x), FLEXBUF_ERR_BAD_HANDLE);
    }
    /* Handle 0 (empty or failed results) is a no-op. */
    OK(flexbuf_buffer_release(0));
    CHECK_STATUS(flexbuf_live_buffers(NULL), FLEXBUF_ERR_NULL_ARG);
}

static void test_builder_ownership(void) {
    flexbuf_builder *b = NULL;
    CHECK_STATUS(flexbuf_builder_new(0, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_builder_new(8, &b), FLEXBUF_ERR_INVALID_ARG);
    CHECK(b == NULL);
    OK(flexbuf_builder_new(1, &b));
    CHECK(b != NULL);

    flexbuf_buffer first = build_sample(b);
    CHECK(first.len > 0);
    /* Finish again before clear: the same bytes, a new owned copy. */
    flexbuf_buffer again;
    OK(flexbuf_builder_finish(b, &again));
    CHECK(again.handle != first.handle && again.len == first.len && memcmp(again.data, first.data, first.len) == 0);
    OK(flexbuf_buffer_release(again.handle));
    /* Pushing after finish is refused until clear, and leaves the bytes alone. */
    CHECK_STATUS(flexbuf_builder_int(b, 5), FLEXBUF_ERR_BUILDER);
    CHECK_STATUS(flexbuf_builder_start_vector(b), FLEXBUF_ERR_BUILDER);

    /* Use after clear: the finished buffer stays valid and readable; the builder is reusable. */
    OK(flexbuf_builder_clear(b));
    flexbuf_ref root;
    OK(flexbuf_root(first.data, first.len, &root));
    CHECK(root.type == FLEXBUF_TYPE_MAP);
    flexbuf_buffer second = build_sample(b);
    CHECK(second.len == first.len && memcmp(second.data, first.data, first.len) == 0);
    CHECK(second.handle != first.handle);
    OK(flexbuf_buffer_release(first.handle));
    OK(flexbuf_buffer_release(second.handle));
    CHECK_STATUS(flexbuf_buffer_release(first.handle), FLEXBUF_ERR_BAD_HANDLE);

    /* Marks do not survive clear. */
    size_t slot = 99;
    OK(flexbuf_builder_clear(b));
    OK(flexbuf_builder_start_vector(b));
    OK(flexbuf_builder_string(b, "shared", 6));
    OK(flexbuf_builder_mark(b, &slot));
    CHECK(slot == 0);
    OK(flexbuf_builder_reuse(b, 0));
    CHECK_STATUS(flexbuf_builder_reuse(b, 1), FLEXBUF_ERR_INDEX);
    OK(flexbuf_builder_clear(b));
    CHECK_STATUS(flexbuf_builder_reuse(b, 0), FLEXBUF_ERR_INDEX);
    DIRTY(slot);
    CHECK_STATUS(flexbuf_builder_mark(b, &slot), FLEXBUF_ERR_BUILDER);
    CHECK(slot == 0);

    /* Reuse shares bytes: two strings, one copy. */
    OK(flexbuf_builder_clear(b));
    OK(flexbuf_builder_start_vector(b));
    OK(flexbuf_builder_string(b, "ab", 2));
    OK(flexbuf_builder_mark(b, &slot));
    OK(flexbuf_builder_reuse(b, slot));
    OK(flexbuf_builder_end_vector(b));
    flexbuf_buffer shared;
    OK(flexbuf_builder_finish(b, &shared));
    uint8_t want[] = {0x02, 0x61, 0x62, 0x00, 0x02, 0x04, 0x05, 0x14, 0x14, 0x04, 0x28, 0x01};
    CHECK(shared.len == sizeof want && memcmp(shared.data, want, sizeof want) == 0);
    OK(flexbuf_buffer_release(shared.handle));

    /* Free: NULL is a no-op; double free and foreign pointers are errors. */
    OK(flexbuf_builder_free(NULL));
    OK(flexbuf_builder_free(b));
    CHECK_STATUS(flexbuf_builder_free(b), FLEXBUF_ERR_BAD_HANDLE);
    int on_stack = 0;
    CHECK_STATUS(flexbuf_builder_free((flexbuf_builder *)&on_stack), FLEXBUF_ERR_BAD_HANDLE);
    CHECK_STATUS(flexbuf_builder_free((flexbuf_builder *)(uintptr_t)0x1000), FLEXBUF_ERR_BAD_HANDLE);
}

static void test_builder_errors(void) {
    flexbuf_builder *b;
    OK(flexbuf_builder_new(1, &b));
    flexbuf_buffer out;

    /* NULL builder everywhere. */
    CHECK_STATUS(flexbuf_builder_int(NULL, 1), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_builder_start_map(NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_builder_clear(NULL), FLEXBUF_ERR_NULL_ARG);
    DIRTY(out);
    CHECK_STATUS(flexbuf_builder_finish(NULL, &out), FLEXBUF_ERR_NULL_ARG);
    CHECK(all_zero(&out, sizeof out));
    CHECK_STATUS(flexbuf_builder_finish(b, NULL), FLEXBUF_ERR_NULL_ARG);

    /* NULL data with a length, huge lengths, invalid UTF-8. */
    CHECK_STATUS(flexbuf_builder_string(b, NULL, 3), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_builder_key(b, NULL, 1), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_builder_blob(b, NULL, 1), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_builder_string(b, "x", SIZE_MAX), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_builder_blob(b, (const uint8_t *)"x", SIZE_MAX / 2 + 1), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_builder_string(b, "\xff\xfe", 2), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_builder_key(b, "\xc0\x80", 2), FLEXBUF_ERR_INVALID_ARG);

    /* Misuse reported by end/finish. */
    OK(flexbuf_builder_clear(b));
    CHECK_STATUS(flexbuf_builder_end_map(b), FLEXBUF_ERR_BUILDER);
    CHECK(strcmp(flexbuf_last_error_kind(), "Builder") == 0);
    OK(flexbuf_builder_clear(b));
    DIRTY(out);
    CHECK_STATUS(flexbuf_builder_finish(b, &out), FLEXBUF_ERR_BUILDER);
    CHECK(all_zero(&out, sizeof out));
    OK(flexbuf_builder_clear(b));
    OK(flexbuf_builder_start_map(b));
    OK(flexbuf_builder_key(b, "k", 1));
    OK(flexbuf_builder_null(b));
    OK(flexbuf_builder_key(b, "k", 1));
    OK(flexbuf_builder_null(b));
    CHECK_STATUS(flexbuf_builder_end_map(b), FLEXBUF_ERR_BUILDER);
    CHECK(strstr(flexbuf_last_error_message(), "duplicate") != NULL);
    OK(flexbuf_builder_clear(b));
    OK(flexbuf_builder_start_map(b));
    OK(flexbuf_builder_key(b, "a\0b", 3));
    OK(flexbuf_builder_int(b, 1));
    CHECK_STATUS(flexbuf_builder_end_map(b), FLEXBUF_ERR_BUILDER);
    CHECK(strstr(flexbuf_last_error_message(), "NUL") != NULL);

    /* Widths, element kinds, alignment, fixed lengths. */
    OK(flexbuf_builder_clear(b));
    CHECK_STATUS(flexbuf_builder_force_min_width(b, 3), FLEXBUF_ERR_INVALID_ARG);
    OK(flexbuf_builder_force_min_width(b, 8));
    int32_t ints[5] = {1, 2, 3, 4, 5};
    CHECK_STATUS(flexbuf_builder_typed_vector(b, 99, ints, 2), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_builder_typed_vector(b, FLEXBUF_ELEM_I32, NULL, 2), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_builder_typed_vector(b, FLEXBUF_ELEM_I32, (const char *)ints + 1, 2), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_builder_typed_vector(b, FLEXBUF_ELEM_I64, ints, SIZE_MAX / 4), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_builder_fixed_vector(b, FLEXBUF_ELEM_I32, ints, 5), FLEXBUF_ERR_BUILDER);
    OK(flexbuf_builder_clear(b));
    uint8_t many[300] = {0};
    CHECK_STATUS(flexbuf_builder_scalar_vector(b, FLEXBUF_ELEM_U8, many, 300), FLEXBUF_ERR_BUILDER);
    OK(flexbuf_builder_free(b));
}

static void test_bulk_and_reader(void) {
    flexbuf_builder *b;
    OK(flexbuf_builder_new(1, &b));
    int64_t i64[3] = {-1, 300, 7};
    uint64_t u64[2] = {UINT64_MAX, 1};
    double f64[2] = {0.5, -2.0};
    uint8_t bools[3] = {1, 0, 7};
    int16_t fixed[3] = {1, -2, 3};
    OK(flexbuf_builder_start_map(b));
    OK(flexbuf_builder_key(b, "bools", 5));
    OK(flexbuf_builder_typed_vector(b, FLEXBUF_ELEM_BOOL, bools, 3));
    OK(flexbuf_builder_key(b, "doubles", 7));
    OK(flexbuf_builder_vector_double(b, f64, 2));
    OK(flexbuf_builder_key(b, "empty", 5));
    OK(flexbuf_builder_vector_int64(b, NULL, 0));
    OK(flexbuf_builder_key(b, "fixed", 5));
    OK(flexbuf_builder_fixed_vector(b, FLEXBUF_ELEM_I16, fixed, 3));
    OK(flexbuf_builder_key(b, "ints", 4));
    OK(flexbuf_builder_vector_int64(b, i64, 3));
    OK(flexbuf_builder_key(b, "uints", 5));
    OK(flexbuf_builder_vector_uint64(b, u64, 2));
    OK(flexbuf_builder_key(b, "ind", 3));
    OK(flexbuf_builder_indirect_uint(b, 1u << 20));
    OK(flexbuf_builder_end_map(b));
    flexbuf_buffer buf;
    OK(flexbuf_builder_finish(b, &buf));
    OK(flexbuf_builder_free(b));

    flexbuf_ref root, v, e;
    OK(flexbuf_root(buf.data, buf.len, &root));
    size_t n;
    OK(flexbuf_ref_len(&root, &n));
    CHECK(n == 7);
    flexbuf_bytes key;
    OK(flexbuf_ref_key_at(&root, 0, &key));
    CHECK(key.len == 5 && memcmp(key.data, "bools", 5) == 0 && key.data[5] == 0);

    OK(flexbuf_ref_lookup(&root, "bools", 5, &v));
    CHECK(v.type == FLEXBUF_TYPE_VECTOR_BOOL);
    bool bv;
    OK(flexbuf_ref_index(&v, 2, &e));
    OK(flexbuf_ref_bool(&e, &bv));
    CHECK(bv == true);

    OK(flexbuf_ref_lookup(&root, "ints", 4, &v));
    CHECK(v.type == FLEXBUF_TYPE_VECTOR_INT);
    uint8_t slot, own;
    OK(flexbuf_ref_widths(&v, &slot, &own));
    CHECK(own == 2); /* 300 needs two bytes */
    int64_t iv;
    OK(flexbuf_ref_index(&v, 1, &e));
    OK(flexbuf_ref_int(&e, &iv));
    CHECK(iv == 300);
    /* child may alias its parent */
    OK(flexbuf_ref_index(&v, 0, &v));
    OK(flexbuf_ref_int(&v, &iv));
    CHECK(iv == -1);
    uint64_t uv;
    DIRTY(uv);
    CHECK_STATUS(flexbuf_ref_uint(&v, &uv), FLEXBUF_ERR_RANGE);
    CHECK(uv == 0);

    OK(flexbuf_ref_lookup(&root, "uints", 5, &v));
    OK(flexbuf_ref_index(&v, 0, &e));
    OK(flexbuf_ref_uint(&e, &uv));
    CHECK(uv == UINT64_MAX);
    DIRTY(iv);
    CHECK_STATUS(flexbuf_ref_int(&e, &iv), FLEXBUF_ERR_RANGE);
    CHECK(iv == 0);

    double dv;
    OK(flexbuf_ref_lookup(&root, "doubles", 7, &v));
    CHECK(v.type == FLEXBUF_TYPE_VECTOR_FLOAT);
    OK(flexbuf_ref_index(&v, 1, &e));
    OK(flexbuf_ref_double(&e, &dv));
    CHECK(dv == -2.0);

    OK(flexbuf_ref_lookup(&root, "fixed", 5, &v));
    CHECK(v.type == FLEXBUF_TYPE_VECTOR_INT3);
    OK(flexbuf_ref_len(&v, &n));
    CHECK(n == 3);

    OK(flexbuf_ref_lookup(&root, "empty", 5, &v));
    OK(flexbuf_ref_len(&v, &n));
    CHECK(n == 0);
    DIRTY(e);
    CHECK_STATUS(flexbuf_ref_index(&v, 0, &e), FLEXBUF_ERR_INDEX);
    CHECK(all_zero(&e, sizeof e));

    OK(flexbuf_ref_lookup(&root, "ind", 3, &v));
    CHECK(v.type == FLEXBUF_TYPE_INDIRECT_UINT);
    OK(flexbuf_ref_uint(&v, &uv));
    CHECK(uv == 1u << 20);
    OK(flexbuf_ref_double(&v, &dv));
    CHECK(dv == 1048576.0);

    /* Errors name the problem, zero the output, and set the last error. */
    DIRTY(v);
    CHECK_STATUS(flexbuf_ref_lookup(&root, "nope", 4, &v), FLEXBUF_ERR_NOT_FOUND);
    CHECK(all_zero(&v, sizeof v));
    CHECK(strcmp(flexbuf_last_error_kind(), "KeyNotFound") == 0);
    CHECK_STATUS(flexbuf_ref_lookup(&root, "\xff", 1, &v), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_ref_lookup(&root, NULL, 1, &v), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_ref_lookup(&root, "ints", 4, NULL), FLEXBUF_ERR_NULL_ARG);
    DIRTY(iv);
    CHECK_STATUS(flexbuf_ref_int(&root, &iv), FLEXBUF_ERR_TYPE);
    CHECK(iv == 0);
    CHECK(strcmp(flexbuf_last_error_kind(), "TypeMismatch") == 0);
    CHECK(flexbuf_last_error_offset() >= 0);
    flexbuf_bytes view;
    DIRTY(view);
    CHECK_STATUS(flexbuf_ref_string(&root, &view), FLEXBUF_ERR_TYPE);
    CHECK(view.data == NULL && view.len == 0);
    CHECK_STATUS(flexbuf_ref_blob(&root, &view), FLEXBUF_ERR_TYPE);
    CHECK_STATUS(flexbuf_ref_index(&root, SIZE_MAX, &e), FLEXBUF_ERR_INDEX);
    CHECK_STATUS(flexbuf_ref_type(NULL, NULL), FLEXBUF_ERR_NULL_ARG);
    flexbuf_type t;
    CHECK_STATUS(flexbuf_ref_type(NULL, &t), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_ref_type(&root, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_ref_widths(&root, NULL, &own), FLEXBUF_ERR_NULL_ARG);

    /* A zeroed ref (the output of a failed call) and hand-edited refs: errors, never crashes. */
    flexbuf_ref zero_ref;
    memset(&zero_ref, 0, sizeof zero_ref);
    CHECK_STATUS(flexbuf_ref_type(&zero_ref, &t), FLEXBUF_ERR_INVALID_ARG);
    flexbuf_ref edited = root;
    edited.depth = 65;
    CHECK_STATUS(flexbuf_ref_type(&edited, &t), FLEXBUF_ERR_INVALID_ARG);
    edited = root;
    edited.depth = 3;
    edited.path[0] = 1000;
    CHECK_STATUS(flexbuf_ref_type(&edited, &t), FLEXBUF_ERR_INDEX);
    edited = root;
    edited.len = SIZE_MAX;
    CHECK_STATUS(flexbuf_ref_type(&edited, &t), FLEXBUF_ERR_INVALID_ARG);
    edited = root;
    edited.len = 2; /* shorter than any FlexBuffer */
    CHECK_STATUS(flexbuf_ref_type(&edited, &t), FLEXBUF_ERR_INVALID_BUFFER);

    OK(flexbuf_buffer_release(buf.handle));
}

static void test_empty_results(void) {
    /* Empty string, key and blob: success, length 0, data non-NULL (pointing into the input). */
    flexbuf_buffer buf;
    OK(flexbuf_from_json("{\"\":\"\"}", 7, &buf));
    flexbuf_ref root, v;
    OK(flexbuf_root(buf.data, buf.len, &root));
    flexbuf_bytes key, str;
    OK(flexbuf_ref_key_at(&root, 0, &key));
    CHECK(key.data != NULL && key.len == 0 && key.data[0] == 0);
    CHECK(key.data >= buf.data && key.data < buf.data + buf.len);
    OK(flexbuf_ref_lookup(&root, "", 0, &v));
    OK(flexbuf_ref_lookup(&root, NULL, 0, &v));
    OK(flexbuf_ref_string(&v, &str));
    CHECK(str.data != NULL && str.len == 0 && str.data[0] == 0);
    size_t n = 99;
    OK(flexbuf_ref_len(&v, &n));
    CHECK(n == 0);
    OK(flexbuf_buffer_release(buf.handle));

    flexbuf_builder *b;
    OK(flexbuf_builder_new(0, &b));
    OK(flexbuf_builder_blob(b, NULL, 0));
    OK(flexbuf_builder_finish(b, &buf));
    OK(flexbuf_builder_free(b));
    OK(flexbuf_root(buf.data, buf.len, &root));
    flexbuf_bytes blob;
    OK(flexbuf_ref_blob(&root, &blob));
    CHECK(blob.data != NULL && blob.len == 0);
    OK(flexbuf_buffer_release(buf.handle));

    /* Empty input: rejected as truncated, not a crash; NULL allowed with length 0. */
    CHECK_STATUS(flexbuf_verify(NULL, 0), FLEXBUF_ERR_INVALID_BUFFER);
    CHECK(strcmp(flexbuf_last_error_kind(), "Truncated") == 0);
    DIRTY(root);
    CHECK_STATUS(flexbuf_root(NULL, 0, &root), FLEXBUF_ERR_INVALID_BUFFER);
    CHECK(all_zero(&root, sizeof root));
    DIRTY(buf);
    CHECK_STATUS(flexbuf_from_json(NULL, 0, &buf), FLEXBUF_ERR_JSON);
    CHECK(all_zero(&buf, sizeof buf));
}

static void test_huge_and_null_inputs(void) {
    static const uint8_t one[3] = {1, 4, 1};
    flexbuf_ref root;
    flexbuf_buffer buf;
    flexbuf_envelope env;
    uint64_t fp;
    size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, (size_t)PTRDIFF_MAX + 1};
    for (size_t i = 0; i < 3; i++) {
        size_t huge = sizes[i];
        CHECK_STATUS(flexbuf_verify(one, huge), FLEXBUF_ERR_INVALID_ARG);
        DIRTY(root);
        CHECK_STATUS(flexbuf_root(one, huge, &root), FLEXBUF_ERR_INVALID_ARG);
        CHECK(all_zero(&root, sizeof root));
        DIRTY(buf);
        CHECK_STATUS(flexbuf_to_json(one, huge, 0, &buf), FLEXBUF_ERR_INVALID_ARG);
        CHECK(all_zero(&buf, sizeof buf));
        CHECK_STATUS(flexbuf_from_json("1", huge, &buf), FLEXBUF_ERR_INVALID_ARG);
        CHECK_STATUS(flexbuf_envelope_wrap(1, 2, one, huge, &buf), FLEXBUF_ERR_INVALID_ARG);
        CHECK(all_zero(&buf, sizeof buf));
        DIRTY(env);
        CHECK_STATUS(flexbuf_envelope_open(one, huge, &env), FLEXBUF_ERR_INVALID_ARG);
        CHECK(all_zero(&env, sizeof env));
        DIRTY(fp);
        CHECK_STATUS(flexbuf_schema_fingerprint(one, huge, "a", 1, &fp), FLEXBUF_ERR_INVALID_ARG);
        CHECK(fp == 0);
        CHECK_STATUS(flexbuf_schema_fingerprint(one, 3, "a", huge, &fp), FLEXBUF_ERR_INVALID_ARG);
    }
    CHECK(strstr(flexbuf_last_error_message(), "address space") != NULL);
    /* NULL with a length; NULL outputs. */
    CHECK_STATUS(flexbuf_verify(NULL, 3), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_root(NULL, 3, &root), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_root(one, 3, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_to_json(NULL, 3, 0, &buf), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_to_json(one, 3, 0, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_from_json(NULL, 1, &buf), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_from_json("1", 1, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_envelope_wrap(1, 2, NULL, 1, &buf), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_envelope_wrap(1, 2, one, 3, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_envelope_open(NULL, 24, &env), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_envelope_open(one, 3, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_envelope_open_expect(one, 3, 1, 1, NULL), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_schema_fingerprint(NULL, 3, "a", 1, &fp), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_schema_fingerprint(one, 3, NULL, 1, &fp), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_schema_fingerprint(one, 3, "a", 1, NULL), FLEXBUF_ERR_NULL_ARG);
    size_t needed;
    CHECK_STATUS(flexbuf_last_error_copy(NULL, 5, &needed), FLEXBUF_ERR_NULL_ARG);
    CHECK_STATUS(flexbuf_last_error_copy(NULL, 0, NULL), FLEXBUF_ERR_NULL_ARG);
}

static void test_last_error(void) {
    OK(flexbuf_clear_last_error());
    CHECK(flexbuf_last_error_status() == FLEXBUF_OK);
    CHECK(strcmp(flexbuf_last_error_message(), "") == 0);
    CHECK(strcmp(flexbuf_last_error_kind(), "") == 0);
    CHECK(strcmp(flexbuf_last_error_path(), "") == 0);
    CHECK(flexbuf_last_error_offset() == -1);

    /* A verify failure carries the core's kind and offset. */
    static const uint8_t bad_width[3] = {0, 4, 3};
    CHECK_STATUS(flexbuf_verify(bad_width, 3), FLEXBUF_ERR_INVALID_BUFFER);
    CHECK(flexbuf_last_error_status() == FLEXBUF_ERR_INVALID_BUFFER);
    CHECK(strcmp(flexbuf_last_error_kind(), "BadWidth") == 0);
    CHECK(flexbuf_last_error_offset() == 2);
    const char *msg = flexbuf_last_error_message();
    CHECK(strstr(msg, "width 3") != NULL);
    /* Successful calls leave it (and the borrowed pointer) alone. */
    OK(flexbuf_verify((const uint8_t *)"\x01\x04\x01", 3));
    CHECK(msg == flexbuf_last_error_message());
    CHECK(strcmp(flexbuf_last_error_kind(), "BadWidth") == 0);

    /* Copying: full length reported, truncated copy always terminated. */
    size_t needed = 0;
    char small[6];
    OK(flexbuf_last_error_copy(small, sizeof small, &needed));
    CHECK(needed == strlen(msg));
    CHECK(strlen(small) == 5 && strncmp(small, msg, 5) == 0);
    OK(flexbuf_last_error_copy(NULL, 0, &needed));
    CHECK(needed == strlen(msg));
    char big[512];
    OK(flexbuf_last_error_copy(big, sizeof big, &needed));
    CHECK(strcmp(big, msg) == 0);

    /* JSON errors carry the offset; duplicate keys name their path. */
    flexbuf_buffer buf;
    CHECK_STATUS(flexbuf_from_json("[1,", 3, &buf), FLEXBUF_ERR_JSON);
    CHECK(flexbuf_last_error_offset() == 3);
    CHECK_STATUS(flexbuf_from_json("{\"a\":{\"b\":1,\"b\":2}}", 19, &buf), FLEXBUF_ERR_JSON);
    CHECK(strstr(flexbuf_last_error_path(), "a") != NULL);
    OK(flexbuf_clear_last_error());
    CHECK(flexbuf_last_error_offset() == -1);
}

static void test_json(void) {
    const char *text = "{\"b\":[1,2.5,\"x\",null,true],\"a\":-7}";
    flexbuf_buffer fb, json, pretty;
    OK(flexbuf_from_json(text, strlen(text), &fb));
    OK(flexbuf_to_json(fb.data, fb.len, 0, &json));
    const char *want = "{\"a\":-7,\"b\":[1,2.5,\"x\",null,true]}";
    CHECK(json.len == strlen(want) && memcmp(json.data, want, json.len) == 0);
    CHECK(json.data[json.len] == 0);
    OK(flexbuf_to_json(fb.data, fb.len, FLEXBUF_JSON_PRETTY, &pretty));
    CHECK(pretty.len > json.len && strchr((const char *)pretty.data, '\n') != NULL);
    flexbuf_buffer bad;
    DIRTY(bad);
    CHECK_STATUS(flexbuf_to_json(fb.data, fb.len, 2, &bad), FLEXBUF_ERR_INVALID_ARG);
    CHECK(all_zero(&bad, sizeof bad));
    OK(flexbuf_buffer_release(fb.handle));
    OK(flexbuf_buffer_release(json.handle));
    OK(flexbuf_buffer_release(pretty.handle));

    /* NaN cannot be JSON. */
    flexbuf_builder *b;
    OK(flexbuf_builder_new(1, &b));
    OK(flexbuf_builder_double(b, NAN));
    OK(flexbuf_builder_finish(b, &fb));
    OK(flexbuf_builder_free(b));
    DIRTY(bad);
    CHECK_STATUS(flexbuf_to_json(fb.data, fb.len, 0, &bad), FLEXBUF_ERR_JSON);
    CHECK(all_zero(&bad, sizeof bad));
    OK(flexbuf_buffer_release(fb.handle));
    CHECK_STATUS(flexbuf_from_json("\"\xff\"", 3, &bad), FLEXBUF_ERR_INVALID_ARG);
    CHECK_STATUS(flexbuf_from_json("[1] x", 5, &bad), FLEXBUF_ERR_JSON);
}

static void test_envelope(void) {
    flexbuf_buffer payload, framed;
    OK(flexbuf_from_json("{\"x\":1}", 7, &payload));
    OK(flexbuf_envelope_wrap(7, 0x1122334455667788u, payload.data, payload.len, &framed));
    CHECK(framed.len == payload.len + 24);
    CHECK(memcmp(framed.data, "FXE\x01", 4) == 0);

    flexbuf_envelope env;
    OK(flexbuf_envelope_open(framed.data, framed.len, &env));
    CHECK(env.protocol == 7 && env.fingerprint == 0x1122334455667788u);
    CHECK(env.payload.len == payload.len && env.payload.data == framed.data + 24);
    CHECK(memcmp(env.payload.data, payload.data, payload.len) == 0);
    flexbuf_ref root, x;
    OK(flexbuf_root(env.payload.data, env.payload.len, &root));
    OK(flexbuf_ref_lookup(&root, "x", 1, &x));

    OK(flexbuf_envelope_open_expect(framed.data, framed.len, 7, 0x1122334455667788u, &env));
    DIRTY(env);
    CHECK_STATUS(flexbuf_envelope_open_expect(framed.data, framed.len, 8, 0x1122334455667788u, &env), FLEXBUF_ERR_ENVELOPE);
    CHECK(all_zero(&env, sizeof env));
    CHECK(strcmp(flexbuf_last_error_kind(), "Envelope") == 0);
    DIRTY(env);
    CHECK_STATUS(flexbuf_envelope_open_expect(framed.data, framed.len, 7, 1, &env), FLEXBUF_ERR_FINGERPRINT);
    CHECK(all_zero(&env, sizeof env));
    CHECK(flexbuf_last_error_offset() == 8);
    CHECK(strstr(flexbuf_last_error_message(), "by key") != NULL);

    /* Damaged frames. */
    CHECK_STATUS(flexbuf_envelope_open(framed.data, 10, &env), FLEXBUF_ERR_ENVELOPE);
    CHECK_STATUS(flexbuf_envelope_open(framed.data, framed.len - 1, &env), FLEXBUF_ERR_ENVELOPE);
    uint8_t *copy = malloc(framed.len);
    memcpy(copy, framed.data, framed.len);
    copy[0] = 'X';
    CHECK_STATUS(flexbuf_envelope_open(copy, framed.len, &env), FLEXBUF_ERR_ENVELOPE);
    free(copy);

    /* An empty payload is framed too (and then fails verification, not the frame). */
    flexbuf_buffer empty;
    OK(flexbuf_envelope_wrap(1, 0, NULL, 0, &empty));
    CHECK(empty.len == 24);
    OK(flexbuf_envelope_open(empty.data, empty.len, &env));
    CHECK(env.payload.len == 0);
    CHECK_STATUS(flexbuf_root(env.payload.data, env.payload.len, &root), FLEXBUF_ERR_INVALID_BUFFER);

    OK(flexbuf_buffer_release(empty.handle));
    OK(flexbuf_buffer_release(framed.handle));
    OK(flexbuf_buffer_release(payload.handle));
}

static void test_schema(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/schema.bin", dir);
    uint8_t *schema;
    size_t len;
    CHECK(read_file(path, &schema, &len) == 0);
    snprintf(path, sizeof path, "%s/schema.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f || !schema) {
        free(schema);
        return;
    }
    char name[256], hex[64];
    CHECK(fscanf(f, "%255s %63s", name, hex) == 2);
    fclose(f);
    uint64_t want = strtoull(hex, NULL, 16), fp = 0;
    OK(flexbuf_schema_fingerprint(schema, len, name, strlen(name), &fp));
    CHECK(fp == want && fp != 0);
    DIRTY(fp);
    CHECK_STATUS(flexbuf_schema_fingerprint(schema, len, "capi.test.Nope", 14, &fp), FLEXBUF_ERR_NOT_FOUND);
    CHECK(fp == 0);
    CHECK_STATUS(flexbuf_schema_fingerprint(schema, len - 1, name, strlen(name), &fp), FLEXBUF_ERR_INVALID_BUFFER);
    flexbuf_buffer not_schema;
    OK(flexbuf_from_json("{\"format\":1}", 12, &not_schema));
    CHECK_STATUS(flexbuf_schema_fingerprint(not_schema.data, not_schema.len, name, strlen(name), &fp), FLEXBUF_ERR_SCHEMA);
    OK(flexbuf_buffer_release(not_schema.handle));
    free(schema);
}

/* ---- threads ------------------------------------------------------------ */

typedef struct {
    int id;
    int errors;
} worker_arg;

static void *worker(void *p) {
    worker_arg *w = p;
    flexbuf_builder *b;
    if (flexbuf_builder_new(1, &b) != FLEXBUF_OK) {
        w->errors++;
        return NULL;
    }
    for (int i = 0; i < 300; i++) {
        flexbuf_buffer buf;
        flexbuf_builder_clear(b);
        flexbuf_builder_start_map(b);
        flexbuf_builder_key(b, "id", 2);
        flexbuf_builder_int(b, w->id * 1000 + i);
        flexbuf_builder_end_map(b);
        if (flexbuf_builder_finish(b, &buf) != FLEXBUF_OK) {
            w->errors++;
            continue;
        }
        flexbuf_ref root, v;
        int64_t got = -1;
        if (flexbuf_root(buf.data, buf.len, &root) != FLEXBUF_OK || flexbuf_ref_lookup(&root, "id", 2, &v) != FLEXBUF_OK ||
            flexbuf_ref_int(&v, &got) != FLEXBUF_OK || got != w->id * 1000 + i)
            w->errors++;
        /* Each thread's last error is its own. */
        if (flexbuf_ref_lookup(&root, "missing", 7, &v) != FLEXBUF_ERR_NOT_FOUND ||
            flexbuf_last_error_status() != FLEXBUF_ERR_NOT_FOUND || strcmp(flexbuf_last_error_kind(), "KeyNotFound") != 0)
            w->errors++;
        if (flexbuf_buffer_release(buf.handle) != FLEXBUF_OK) w->errors++;
        if (flexbuf_buffer_release(buf.handle) != FLEXBUF_ERR_BAD_HANDLE) w->errors++;
    }
    if (flexbuf_builder_free(b) != FLEXBUF_OK) w->errors++;
    return NULL;
}

static void test_threads(void) {
    enum { N = 4 };
    pthread_t threads[N];
    worker_arg args[N];
    for (int i = 0; i < N; i++) {
        args[i] = (worker_arg){.id = i, .errors = 0};
        CHECK(pthread_create(&threads[i], NULL, worker, &args[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK(args[i].errors == 0);
    }
    /* Another thread's failures did not touch this thread's last error. */
    OK(flexbuf_clear_last_error());
    CHECK(flexbuf_last_error_status() == FLEXBUF_OK);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <exported dir>\n", argv[0]);
        return 2;
    }
    test_version();
    test_release();
    test_builder_ownership();
    test_builder_errors();
    test_bulk_and_reader();
    test_empty_results();
    test_huge_and_null_inputs();
    test_last_error();
    test_json();
    test_envelope();
    test_schema(argv[1]);
    test_threads();
    size_t live = 1;
    OK(flexbuf_live_buffers(&live));
    CHECK(live == 0);
    printf("test_abi: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
