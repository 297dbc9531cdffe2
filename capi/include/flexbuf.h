/*
 * flexbuf.h — C ABI of the flexbuf FlexBuffers core (ABI version 1).
 *
 * Hand-written; the contract of record. A test (capi/tests/header_drift.rs)
 * fails when a declaration here and an export of the library drift apart.
 *
 * CONVENTIONS (apply to every function unless its comment says otherwise)
 *
 * Version check. Call flexbuf_abi_version() first and refuse to run unless it
 *   equals FLEXBUF_ABI_VERSION; then test flexbuf_capabilities() for the
 *   FLEXBUF_CAP_* bits you use. Three compatibility values are independent:
 *   the ABI version (this interface), the protocol version (your application's
 *   conversation, carried by the envelope) and the schema fingerprint (the
 *   payload's type, carried by the envelope).
 *
 * Status. Every function returns a flexbuf_status (FLEXBUF_OK == 0 on
 *   success), except the pure queries flexbuf_abi_version,
 *   flexbuf_capabilities, flexbuf_status_name, flexbuf_type_name and the
 *   flexbuf_last_error_* readers.
 *
 * Failure state. Every output parameter is set to its zeroed state before any
 *   work (when the pointer is not NULL) and written only on success. So on any
 *   failure: pointers are NULL, lengths, handles and numbers 0, bool false,
 *   flexbuf_ref / flexbuf_envelope / flexbuf_buffer / flexbuf_bytes all-zero.
 *
 * Last error. A failing call also records, per thread, a message, the core's
 *   error kind name, a byte offset and a path (flexbuf_last_error_*). Successful
 *   calls leave it untouched (like errno): read it right after a failure.
 *
 * Borrowed input. (const uint8_t *data, size_t len) pairs are borrowed for the
 *   duration of the call only, unless a result views into them (flexbuf_ref,
 *   flexbuf_bytes from a reader, envelope payloads): those stay valid while the
 *   caller keeps the input bytes alive and unchanged. data may be NULL only if
 *   len is 0. A len above PTRDIFF_MAX (e.g. SIZE_MAX) is FLEXBUF_ERR_INVALID_ARG.
 *   Text arguments (const char *, size_t) are UTF-8, not NUL-terminated, and
 *   must not be NULL unless their length is 0; bad UTF-8 is FLEXBUF_ERR_INVALID_ARG.
 *
 * Owned output. flexbuf_buffer results are owned by the caller: data stays
 *   valid until flexbuf_buffer_release(handle), on any thread. Release exactly
 *   once; releasing an unknown, foreign or already released handle returns
 *   FLEXBUF_ERR_BAD_HANDLE and does nothing. Handles are never reused.
 *   Empty results are {NULL, 0, 0} and need no release (release(0) is OK).
 *   No function of this ABI currently returns an empty owned result on success.
 *
 * Views. flexbuf_bytes is a borrowed view, never released. On success its
 *   data is non-NULL, even for zero-length strings and blobs (it then points
 *   into the input: at the string's NUL terminator, or at the blob's position).
 *   String and key views are followed by a NUL byte in the input.
 *
 * Panics and allocation. No panic crosses this boundary: an internal panic is
 *   FLEXBUF_ERR_PANIC. Allocations this layer makes for results (copies into
 *   owned buffers, JSON terminators, bool arrays) report failure as
 *   FLEXBUF_ERR_ALLOC; growth inside the core (builder, JSON text) aborts the
 *   process on out-of-memory as Rust's allocator does.
 *
 * Thread-safety. Functions without a handle are safe to call concurrently
 *   from any thread. A flexbuf_builder is used by one thread at a time (it may
 *   move between threads). flexbuf_ref values are plain data: any thread may
 *   use them concurrently while their buffer is alive. The last error is
 *   thread-local. The handle registry is internally locked.
 */
#ifndef FLEXBUF_H
#define FLEXBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions and capabilities ------------------------------------------ */

/** The ABI version this header describes. */
#define FLEXBUF_ABI_VERSION 1u

#define FLEXBUF_CAP_READER   (1ull << 0) /* flexbuf_verify, flexbuf_root, flexbuf_ref_* */
#define FLEXBUF_CAP_BUILDER  (1ull << 1) /* flexbuf_builder_* */
#define FLEXBUF_CAP_JSON     (1ull << 2) /* flexbuf_to_json, flexbuf_from_json */
#define FLEXBUF_CAP_ENVELOPE (1ull << 3) /* flexbuf_envelope_* */
#define FLEXBUF_CAP_SCHEMA   (1ull << 4) /* flexbuf_schema_fingerprint */

/* ---- status codes ------------------------------------------------------- */

typedef int32_t flexbuf_status;

enum {
    FLEXBUF_OK = 0,                  /* success */
    FLEXBUF_ERR_NULL_ARG = 1,        /* a required pointer was NULL (or NULL with len > 0) */
    FLEXBUF_ERR_INVALID_ARG = 2,     /* len > PTRDIFF_MAX, text not UTF-8, unknown kind/width/option,
                                        misaligned array, zeroed or hand-made ref */
    FLEXBUF_ERR_INVALID_BUFFER = 3,  /* bytes are not a valid FlexBuffer (verification failed) */
    FLEXBUF_ERR_TYPE = 4,            /* the value has another type than the call needs */
    FLEXBUF_ERR_RANGE = 5,           /* number does not fit the C type; index above 2^32-1 in a ref */
    FLEXBUF_ERR_INDEX = 6,           /* index past the end of a vector or map; unmarked reuse slot */
    FLEXBUF_ERR_NOT_FOUND = 7,       /* key absent from a map; message absent from a schema */
    FLEXBUF_ERR_BUILDER = 8,         /* builder misuse: unbalanced end, duplicate key, bad root count,
                                        NUL in a key, mixed typed vector, finish twice without clear... */
    FLEXBUF_ERR_JSON = 9,            /* malformed JSON, or NaN/infinity that JSON cannot hold */
    FLEXBUF_ERR_BUDGET = 10,         /* expansion of shared data (to JSON) over budget */
    FLEXBUF_ERR_ENVELOPE = 11,       /* malformed envelope, or protocol version not the expected one */
    FLEXBUF_ERR_FINGERPRINT = 12,    /* envelope schema fingerprint not the expected one */
    FLEXBUF_ERR_SCHEMA = 13,         /* compiled schema unreadable */
    FLEXBUF_ERR_BAD_HANDLE = 14,     /* unknown, foreign or already released handle / freed builder */
    FLEXBUF_ERR_ALLOC = 15,          /* memory for a result could not be allocated */
    FLEXBUF_ERR_PANIC = 16,          /* internal panic caught at the boundary (a bug) */
    FLEXBUF_ERR_OTHER = 17           /* any other core error */
};

/* ---- value types (the wire format's type codes) ------------------------- */

typedef uint32_t flexbuf_type;

enum {
    FLEXBUF_TYPE_NULL = 0,
    FLEXBUF_TYPE_INT = 1,
    FLEXBUF_TYPE_UINT = 2,
    FLEXBUF_TYPE_FLOAT = 3,
    FLEXBUF_TYPE_KEY = 4,
    FLEXBUF_TYPE_STRING = 5,
    FLEXBUF_TYPE_INDIRECT_INT = 6,
    FLEXBUF_TYPE_INDIRECT_UINT = 7,
    FLEXBUF_TYPE_INDIRECT_FLOAT = 8,
    FLEXBUF_TYPE_MAP = 9,
    FLEXBUF_TYPE_VECTOR = 10,
    FLEXBUF_TYPE_VECTOR_INT = 11,
    FLEXBUF_TYPE_VECTOR_UINT = 12,
    FLEXBUF_TYPE_VECTOR_FLOAT = 13,
    FLEXBUF_TYPE_VECTOR_KEY = 14,
    FLEXBUF_TYPE_VECTOR_STRING_DEPRECATED = 15,
    FLEXBUF_TYPE_VECTOR_INT2 = 16,
    FLEXBUF_TYPE_VECTOR_UINT2 = 17,
    FLEXBUF_TYPE_VECTOR_FLOAT2 = 18,
    FLEXBUF_TYPE_VECTOR_INT3 = 19,
    FLEXBUF_TYPE_VECTOR_UINT3 = 20,
    FLEXBUF_TYPE_VECTOR_FLOAT3 = 21,
    FLEXBUF_TYPE_VECTOR_INT4 = 22,
    FLEXBUF_TYPE_VECTOR_UINT4 = 23,
    FLEXBUF_TYPE_VECTOR_FLOAT4 = 24,
    FLEXBUF_TYPE_BLOB = 25,
    FLEXBUF_TYPE_BOOL = 26,
    FLEXBUF_TYPE_VECTOR_BOOL = 36
};

/* Element kinds of bulk vectors: the C type of the array passed in. */
typedef uint32_t flexbuf_elem;

enum {
    FLEXBUF_ELEM_I8 = 1,   /* int8_t */
    FLEXBUF_ELEM_I16 = 2,  /* int16_t */
    FLEXBUF_ELEM_I32 = 3,  /* int32_t */
    FLEXBUF_ELEM_I64 = 4,  /* int64_t */
    FLEXBUF_ELEM_U8 = 5,   /* uint8_t */
    FLEXBUF_ELEM_U16 = 6,  /* uint16_t */
    FLEXBUF_ELEM_U32 = 7,  /* uint32_t */
    FLEXBUF_ELEM_U64 = 8,  /* uint64_t */
    FLEXBUF_ELEM_F32 = 9,  /* float */
    FLEXBUF_ELEM_F64 = 10, /* double */
    FLEXBUF_ELEM_BOOL = 11 /* one byte per element; non-zero is true */
};

/* flexbuf_to_json options */
#define FLEXBUF_JSON_PRETTY 1u

/* Deepest value a flexbuf_ref can name (the verifier's nesting limit). */
#define FLEXBUF_MAX_DEPTH 64

/* ---- data types --------------------------------------------------------- */

/* A borrowed view of bytes owned by someone else (never released). */
typedef struct flexbuf_bytes {
    const uint8_t *data;
    size_t len;
} flexbuf_bytes;

/* An owned result: data valid until flexbuf_buffer_release(handle). */
typedef struct flexbuf_buffer {
    const uint8_t *data;
    size_t len;
    uint64_t handle;
} flexbuf_buffer;

/*
 * One value inside a verified buffer: the caller's buffer plus the path of
 * element indices from the root (map entries in sorted key order). Plain data:
 * copy it freely; it holds no library memory and is never released. It is
 * valid while buf..buf+len stays alive and unchanged. Only `type` may be read
 * directly; the other fields are private. 280 bytes.
 */
typedef struct flexbuf_ref {
    const uint8_t *buf;
    size_t len;
    flexbuf_type type;
    uint32_t depth;
    uint32_t path[FLEXBUF_MAX_DEPTH];
} flexbuf_ref;

/* An opened envelope. payload views into the envelope bytes (not verified). */
typedef struct flexbuf_envelope {
    uint16_t protocol;
    uint16_t reserved;
    uint32_t reserved2;
    uint64_t fingerprint;
    flexbuf_bytes payload;
} flexbuf_envelope;

/* Opaque builder, created by flexbuf_builder_new, freed by flexbuf_builder_free. */
typedef struct flexbuf_builder flexbuf_builder;

/* ---- version, capabilities, names --------------------------------------- */

/* The library's ABI version (compare with FLEXBUF_ABI_VERSION before any other
 * call). No status: cannot fail. Thread-safe. */
uint32_t flexbuf_abi_version(void);

/* Bitmask of FLEXBUF_CAP_* this library provides. No status: cannot fail.
 * Thread-safe. */
uint64_t flexbuf_capabilities(void);

/* Static, NUL-terminated name of a status ("FLEXBUF_ERR_TYPE"), or
 * "FLEXBUF_ERR_UNKNOWN". Never NULL; never free it; valid for the life of the
 * process. Thread-safe. */
const char *flexbuf_status_name(flexbuf_status status);

/* Static, NUL-terminated name of a type code ("map", "vector_int", ...), or
 * "unknown". Never NULL; never free it; valid for the life of the process.
 * Thread-safe. */
const char *flexbuf_type_name(flexbuf_type type);

/* ---- last error (thread-local) ------------------------------------------ */

/* Status of this thread's last failed call; FLEXBUF_OK if none since the last
 * clear. Thread-safe (per thread). */
flexbuf_status flexbuf_last_error_status(void);

/* Message of this thread's last failure ("" if none). Borrowed, NUL-terminated,
 * never NULL; valid until the next failing call or flexbuf_clear_last_error on
 * this thread (successful calls do not invalidate it). Do not free. */
const char *flexbuf_last_error_message(void);

/* The core's error kind name of the last failure ("Truncated", "Cycle",
 * "KeyNotFound", ...; "" for failures of this layer such as NULL arguments).
 * Same lifetime and ownership as flexbuf_last_error_message. */
const char *flexbuf_last_error_kind(void);

/* Path from the root of the last failure ("$.a[2]"), "" when unknown. Same
 * lifetime and ownership as flexbuf_last_error_message. */
const char *flexbuf_last_error_path(void);

/* Byte offset into the input of the last failure, -1 when unknown.
 * Thread-safe (per thread). */
int64_t flexbuf_last_error_offset(void);

/* Copies the last error message into buf (caller-owned, cap bytes), always
 * NUL-terminated when cap > 0 and truncated to cap-1 bytes; *needed receives
 * the full message length (without NUL). buf may be NULL only if cap is 0.
 * needed must not be NULL. On failure *needed is 0 and the last error is
 * replaced. Thread-safe (per thread). */
flexbuf_status flexbuf_last_error_copy(char *buf, size_t cap, size_t *needed);

/* Resets this thread's last error to none (status FLEXBUF_OK, "" strings,
 * offset -1). Always FLEXBUF_OK. Invalidates pointers from the readers above. */
flexbuf_status flexbuf_clear_last_error(void);

/* ---- owned buffers ------------------------------------------------------ */

/* Releases the owned buffer with this handle; its data pointer becomes
 * invalid. handle 0 (an empty or failed result) is a no-op returning
 * FLEXBUF_OK. An unknown, foreign or already released handle returns
 * FLEXBUF_ERR_BAD_HANDLE and changes nothing. Thread-safe: any thread may
 * release any buffer, but release each handle once. */
flexbuf_status flexbuf_buffer_release(uint64_t handle);

/* *count receives the number of owned buffers not yet released, process-wide
 * (for leak checks in tests). count must not be NULL; on failure *count is 0.
 * Thread-safe. */
flexbuf_status flexbuf_live_buffers(size_t *count);

/* ---- verification and reading ------------------------------------------- */

/* Verifies data (bounds, widths, type codes, UTF-8, NUL terminators, strictly
 * sorted keys, key/value lengths, nesting depth <= 64, cycles) in time linear
 * in len. data is borrowed for the call. Failure: FLEXBUF_ERR_INVALID_BUFFER
 * with the core's kind and offset in the last error. Thread-safe. */
flexbuf_status flexbuf_verify(const uint8_t *data, size_t len);

/* Verifies data, then sets *root to its root value. The ref borrows data: keep
 * the bytes alive and unchanged while the ref or any ref/view derived from it
 * is used. root must not be NULL; on failure *root is all-zero. Thread-safe. */
flexbuf_status flexbuf_root(const uint8_t *data, size_t len, flexbuf_ref *root);

/* *type receives the value's type code (FLEXBUF_TYPE_*). ref is borrowed for
 * the call. On failure *type is 0. Thread-safe. */
flexbuf_status flexbuf_ref_type(const flexbuf_ref *ref, flexbuf_type *type);

/* *slot_width receives the width in bytes of the value's slot in its parent
 * (the root's: the trailer width); *value_width the width from its packed type
 * (an inline scalar's stored width, or a container's/string's size width).
 * Both must not be NULL; on failure both are 0. Thread-safe. */
flexbuf_status flexbuf_ref_widths(const flexbuf_ref *ref, uint8_t *slot_width, uint8_t *value_width);

/* *value receives a bool value (FLEXBUF_ERR_TYPE for other types). On failure
 * *value is false. Thread-safe. */
flexbuf_status flexbuf_ref_bool(const flexbuf_ref *ref, bool *value);

/* *value receives an integer (int, uint, indirect int/uint) as int64_t;
 * an unsigned value above INT64_MAX is FLEXBUF_ERR_RANGE. On failure *value
 * is 0. Thread-safe. */
flexbuf_status flexbuf_ref_int(const flexbuf_ref *ref, int64_t *value);

/* *value receives an integer as uint64_t; a negative value is
 * FLEXBUF_ERR_RANGE. On failure *value is 0. Thread-safe. */
flexbuf_status flexbuf_ref_uint(const flexbuf_ref *ref, uint64_t *value);

/* *value receives a float (f32 widened exactly) or an integer converted to the
 * nearest double. On failure *value is 0.0. Thread-safe. */
flexbuf_status flexbuf_ref_double(const flexbuf_ref *ref, double *value);

/* *view receives the UTF-8 bytes (without NUL) of a string or key, viewed in
 * the ref's buffer: valid while that buffer lives; never release it. data is
 * non-NULL on success even for "" and is followed by a NUL byte. On failure
 * *view is {NULL, 0}. Thread-safe. */
flexbuf_status flexbuf_ref_string(const flexbuf_ref *ref, flexbuf_bytes *view);

/* *view receives the bytes of a blob, viewed in the ref's buffer (lifetime as
 * flexbuf_ref_string; non-NULL on success even when empty). On failure
 * *view is {NULL, 0}. Thread-safe. */
flexbuf_status flexbuf_ref_blob(const flexbuf_ref *ref, flexbuf_bytes *view);

/* *len receives the number of elements of a vector or entries of a map, or
 * the byte length of a string, key or blob (FLEXBUF_ERR_TYPE for scalars).
 * On failure *len is 0. Thread-safe. */
flexbuf_status flexbuf_ref_len(const flexbuf_ref *ref, size_t *len);

/* *child receives element `index` of any vector (untyped, typed, fixed) or the
 * value of entry `index` of a map (entries in sorted key order). The child
 * borrows the same buffer as ref. FLEXBUF_ERR_INDEX past the end. On failure
 * *child is all-zero. child may alias ref. Thread-safe. */
flexbuf_status flexbuf_ref_index(const flexbuf_ref *ref, size_t index, flexbuf_ref *child);

/* *key receives the key of entry `index` of a map, viewed in the ref's buffer
 * (lifetime as flexbuf_ref_string). On failure *key is {NULL, 0}. Thread-safe. */
flexbuf_status flexbuf_ref_key_at(const flexbuf_ref *ref, size_t index, flexbuf_bytes *key);

/* *child receives the value stored under key (UTF-8, key_len bytes, borrowed
 * for the call) in a map, by binary search. FLEXBUF_ERR_NOT_FOUND when absent,
 * FLEXBUF_ERR_TYPE when ref is not a map. On failure *child is all-zero.
 * child may alias ref. Thread-safe. */
flexbuf_status flexbuf_ref_lookup(const flexbuf_ref *ref, const char *key, size_t key_len, flexbuf_ref *child);

/* ---- builder ------------------------------------------------------------ */
/* A builder is owned by its creator until flexbuf_builder_free; use it from
 * one thread at a time. After a failing call the builder may hold a recorded
 * error that the next end/finish call reports (FLEXBUF_ERR_BUILDER);
 * flexbuf_builder_clear resets it. Using a builder after freeing it is
 * undefined behaviour (only flexbuf_builder_free itself detects it). */

/* *builder receives a new builder with the C++ sharing flags `share` (0..7:
 * 1 keys (the C++ default), 2 strings, 4 key vectors (no effect, as in C++)).
 * Ownership passes to the caller: free it with flexbuf_builder_free. builder
 * must not be NULL; on failure *builder is NULL. Thread-safe. */
flexbuf_status flexbuf_builder_new(uint32_t share, flexbuf_builder **builder);

/* Frees a builder and everything it holds (not owned buffers it finished,
 * which live until released). NULL is a no-op (FLEXBUF_OK); a pointer that is
 * not a live builder (foreign, or already freed) is FLEXBUF_ERR_BAD_HANDLE and
 * nothing is freed. Thread-safe with respect to other builders. */
flexbuf_status flexbuf_builder_free(flexbuf_builder *builder);

/* Resets the builder for a new buffer, keeping its capacity (up to 1 MiB) and
 * forgetting marks and any recorded error. Buffers already finished stay
 * valid. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_clear(flexbuf_builder *builder);

/* Scalar pushes: append one value (to the open vector or map, or as the root).
 * Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_null(flexbuf_builder *builder);
/* Pushes a bool. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_bool(flexbuf_builder *builder, bool value);
/* Pushes a signed integer at the smallest width. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_int(flexbuf_builder *builder, int64_t value);
/* Pushes an unsigned integer at the smallest width. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_uint(flexbuf_builder *builder, uint64_t value);
/* Pushes a 32-bit float. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_float(flexbuf_builder *builder, float value);
/* Pushes a double (stored as 4 bytes when exact in float, as C++). Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_double(flexbuf_builder *builder, double value);

/* Pushes a string: len UTF-8 bytes at text, copied (borrowed for the call).
 * Invalid UTF-8 is FLEXBUF_ERR_INVALID_ARG and pushes nothing. Not thread-safe
 * for the same builder. */
flexbuf_status flexbuf_builder_string(flexbuf_builder *builder, const char *text, size_t len);

/* Pushes a map key (UTF-8, copied). A key containing NUL makes the next end or
 * finish fail with FLEXBUF_ERR_BUILDER. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_key(flexbuf_builder *builder, const char *key, size_t len);

/* Pushes a blob of len bytes, copied (borrowed for the call). Not thread-safe
 * for the same builder. */
flexbuf_status flexbuf_builder_blob(flexbuf_builder *builder, const uint8_t *data, size_t len);

/* Pushes a signed integer stored behind an offset. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_indirect_int(flexbuf_builder *builder, int64_t value);
/* Pushes an unsigned integer stored behind an offset. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_indirect_uint(flexbuf_builder *builder, uint64_t value);
/* Pushes a float stored behind an offset. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_indirect_float(flexbuf_builder *builder, float value);
/* Pushes a double stored behind an offset (as float when exact: a documented
 * deviation from C++, which writes 0 there). Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_indirect_double(flexbuf_builder *builder, double value);

/* Starts a map: then push key, value, key, value, ... Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_start_map(flexbuf_builder *builder);
/* Ends the innermost map, sorting its keys; a duplicate key, an odd entry
 * count or no open map is FLEXBUF_ERR_BUILDER. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_end_map(flexbuf_builder *builder);
/* Starts a vector (its kind is chosen by the end call). Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_start_vector(flexbuf_builder *builder);
/* Ends the innermost vector as an untyped vector. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_end_vector(flexbuf_builder *builder);
/* Ends the innermost vector as typed (one element type, no type bytes) and/or
 * fixed (2..4 numbers, no size); elements that cannot be typed are
 * FLEXBUF_ERR_BUILDER. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_end_vector_as(flexbuf_builder *builder, bool typed, bool fixed);

/* Forces elements of later vectors and maps to at least `width` bytes (1, 2,
 * 4 or 8; anything else is FLEXBUF_ERR_INVALID_ARG). Not thread-safe for the
 * same builder. */
flexbuf_status flexbuf_builder_force_min_width(flexbuf_builder *builder, uint32_t width);

/* Remembers the last pushed value; *slot receives the number to pass to
 * flexbuf_builder_reuse. Marks live until flexbuf_builder_clear. slot must not
 * be NULL; on failure *slot is 0. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_mark(flexbuf_builder *builder, size_t *slot);
/* Pushes a marked value again (offset values share their bytes). A slot not
 * marked since the last clear is FLEXBUF_ERR_INDEX. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_reuse(flexbuf_builder *builder, size_t slot);

/* Bulk vectors: `count` elements of kind `elem` at `values` (an aligned C array
 * of that type, borrowed for the call; NULL only if count is 0).
 * typed_vector: a typed vector at the smallest width holding every element;
 * scalar_vector: at the element type's own width (C++ Vector(const T*, len);
 *   a count that does not fit that width is FLEXBUF_ERR_BUILDER);
 * fixed_vector: a fixed typed vector of 2..4 numbers (C++ FixedTypedVector).
 * Misaligned values or an unknown elem is FLEXBUF_ERR_INVALID_ARG.
 * Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_typed_vector(flexbuf_builder *builder, flexbuf_elem elem, const void *values, size_t count);
/* See flexbuf_builder_typed_vector. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_scalar_vector(flexbuf_builder *builder, flexbuf_elem elem, const void *values, size_t count);
/* See flexbuf_builder_typed_vector. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_fixed_vector(flexbuf_builder *builder, flexbuf_elem elem, const void *values, size_t count);
/* Typed vector of int64_t at the smallest width (values borrowed for the call).
 * Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_vector_int64(flexbuf_builder *builder, const int64_t *values, size_t count);
/* Typed vector of uint64_t at the smallest width. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_vector_uint64(flexbuf_builder *builder, const uint64_t *values, size_t count);
/* Typed vector of double at the smallest width. Not thread-safe for the same builder. */
flexbuf_status flexbuf_builder_vector_double(flexbuf_builder *builder, const double *values, size_t count);

/* Finishes the buffer (exactly one root value, no open container) and copies
 * it into *result, owned by the caller until flexbuf_buffer_release. Calling
 * finish again before flexbuf_builder_clear returns a new copy of the same
 * bytes; pushes after finish fail at the next end/finish until clear. result
 * must not be NULL; on failure *result is {NULL, 0, 0}. Not thread-safe for
 * the same builder. */
flexbuf_status flexbuf_builder_finish(flexbuf_builder *builder, flexbuf_buffer *result);

/* ---- JSON --------------------------------------------------------------- */

/* Verifies data and writes it as JSON (options: 0 or FLEXBUF_JSON_PRETTY) into
 * *json, owned by the caller until flexbuf_buffer_release; json->data[len] is
 * a NUL byte. Blobs become base64 strings; NaN/infinity is FLEXBUF_ERR_JSON;
 * expansion of shared data is budgeted (FLEXBUF_ERR_BUDGET). On failure *json
 * is {NULL, 0, 0}. Thread-safe. */
flexbuf_status flexbuf_to_json(const uint8_t *data, size_t len, uint32_t options, flexbuf_buffer *json);

/* Parses len bytes of UTF-8 JSON text (borrowed for the call) into a
 * FlexBuffer in *result, owned by the caller until flexbuf_buffer_release.
 * Malformed JSON, or nesting deeper than the limit (kind DepthLimit), is
 * FLEXBUF_ERR_JSON with the offset in the last error. On
 * failure *result is {NULL, 0, 0}. Thread-safe. */
flexbuf_status flexbuf_from_json(const char *text, size_t len, flexbuf_buffer *result);

/* ---- message envelope --------------------------------------------------- */
/* Layout (24-byte header, little-endian, then the payload): magic "FXE" + 0x01
 * (envelope format 1), u16 protocol version, u16 flags (0), u64 schema
 * fingerprint (0: untyped), u64 payload length. */

/* Frames payload (borrowed for the call, copied) with a protocol version and
 * schema fingerprint into *framed, owned by the caller until
 * flexbuf_buffer_release. The payload is not verified. On failure *framed is
 * {NULL, 0, 0}. Thread-safe. */
flexbuf_status flexbuf_envelope_wrap(uint16_t protocol, uint64_t fingerprint, const uint8_t *payload, size_t len, flexbuf_buffer *framed);

/* Parses an envelope header; opened->payload views into data (valid while data
 * lives; verify it with flexbuf_root before reading). Malformed frames are
 * FLEXBUF_ERR_ENVELOPE. On failure *opened is all-zero. Thread-safe. */
flexbuf_status flexbuf_envelope_open(const uint8_t *data, size_t len, flexbuf_envelope *opened);

/* As flexbuf_envelope_open, but the envelope must carry `protocol`
 * (else FLEXBUF_ERR_ENVELOPE) and `fingerprint` (else FLEXBUF_ERR_FINGERPRINT).
 * On a fingerprint mismatch the writer used another schema version: never
 * decode its payload by position; open it with flexbuf_envelope_open and read
 * fields by key (flexbuf_ref_lookup). On failure *opened is all-zero.
 * Thread-safe. */
flexbuf_status flexbuf_envelope_open_expect(const uint8_t *data, size_t len, uint16_t protocol, uint64_t fingerprint, flexbuf_envelope *opened);

/* ---- schema ------------------------------------------------------------- */

/* *fingerprint receives the schema fingerprint of message `name` (fully
 * qualified, UTF-8, name_len bytes) in a compiled schema (the bytes of
 * flexbuf::schema::Schema::to_bytes, e.g. from `flexbuf gen`), both borrowed
 * for the call. Unknown name: FLEXBUF_ERR_NOT_FOUND; unreadable schema:
 * FLEXBUF_ERR_INVALID_BUFFER or FLEXBUF_ERR_SCHEMA. On failure *fingerprint
 * is 0. Thread-safe. */
flexbuf_status flexbuf_schema_fingerprint(const uint8_t *schema, size_t schema_len, const char *name, size_t name_len, uint64_t *fingerprint);

#ifdef __cplusplus
}
#endif

#endif /* FLEXBUF_H */
