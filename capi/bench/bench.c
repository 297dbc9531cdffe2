/*
 * C side of the ABI round-trip benchmark: verify + one field read through the
 * C ABI, on small and large messages (the shared fixtures converted with
 * flexbuf_from_json). The Rust side is capi/examples/bench_rust.rs, which does
 * the same work with the core directly and prints the same line format:
 *
 *   <case> <fixture> <bytes> <median ns per operation>
 *
 * Usage: bench <conformance/fixtures dir>
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "common.h"

#define SAMPLES 31

static volatile int64_t sink;

/* Thread CPU time: time spent descheduled on a shared machine does not count. */
static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct {
    const uint8_t *data;
    size_t len;
    const char *field;
    const flexbuf_ref *root; /* pre-verified root for the read-only case */
} input;

/* One ABI round trip: verify, look one field up, read it. */
static int round_trip(const input *in) {
    flexbuf_ref root, v;
    int64_t x;
    if (flexbuf_root(in->data, in->len, &root) != FLEXBUF_OK) return -1;
    if (flexbuf_ref_lookup(&root, in->field, strlen(in->field), &v) != FLEXBUF_OK) return -1;
    if (flexbuf_ref_int(&v, &x) != FLEXBUF_OK) return -1;
    sink = x;
    return 0;
}

/* The field read alone, on a root verified once. */
static int read_only(const input *in) {
    flexbuf_ref v;
    int64_t x;
    if (flexbuf_ref_lookup(in->root, in->field, strlen(in->field), &v) != FLEXBUF_OK) return -1;
    if (flexbuf_ref_int(&v, &x) != FLEXBUF_OK) return -1;
    sink = x;
    return 0;
}

/* Median ns per call of f over SAMPLES samples of enough iterations to last ~2 ms. */
static double measure(int (*f)(const input *), const input *in) {
    size_t iters = 1;
    for (;;) {
        double t0 = now_ns();
        for (size_t i = 0; i < iters; i++)
            if (f(in) != 0) return -1;
        if (now_ns() - t0 > 2e6 || iters > (1u << 26)) break;
        iters *= 2;
    }
    double samples[SAMPLES];
    for (int s = 0; s < SAMPLES; s++) {
        double t0 = now_ns();
        for (size_t i = 0; i < iters; i++) f(in);
        samples[s] = (now_ns() - t0) / (double)iters;
    }
    qsort(samples, SAMPLES, sizeof samples[0], cmp_double);
    return samples[SAMPLES / 2];
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <conformance/fixtures dir>\n", argv[0]);
        return 2;
    }
    if (flexbuf_abi_version() != FLEXBUF_ABI_VERSION) return 2;
    static const char *fixtures[][2] = {{"user_profile", "id"}, {"api_response", "total"}, {"time_series", "interval_ms"}};
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.json", argv[1], fixtures[i][0]);
        uint8_t *text;
        size_t text_len;
        if (read_file(path, &text, &text_len) != 0) {
            fprintf(stderr, "cannot read %s\n", path);
            return 1;
        }
        flexbuf_buffer fb;
        if (flexbuf_from_json((const char *)text, text_len, &fb) != FLEXBUF_OK) {
            fprintf(stderr, "%s: %s\n", path, flexbuf_last_error_message());
            return 1;
        }
        free(text);
        flexbuf_ref root;
        if (flexbuf_root(fb.data, fb.len, &root) != FLEXBUF_OK) return 1;
        input in = {fb.data, fb.len, fixtures[i][1], &root};
        double rt = measure(round_trip, &in);
        double ro = measure(read_only, &in);
        if (rt < 0 || ro < 0) {
            fprintf(stderr, "%s: read failed: %s\n", fixtures[i][0], flexbuf_last_error_message());
            return 1;
        }
        printf("verify_read %s %zu %.1f\n", fixtures[i][0], fb.len, rt);
        printf("read %s %zu %.1f\n", fixtures[i][0], fb.len, ro);
        flexbuf_buffer_release(fb.handle);
    }
    return 0;
}
