/*
 * Hostile input stays bounded through the C ABI (issue 18): every DAG bomb of
 * the invalid corpus verifies but fails to expand to JSON with
 * FLEXBUF_ERR_BUDGET; the 1,000-deep buffer fails verify, root and to_json
 * with FLEXBUF_ERR_INVALID_BUFFER (kind DepthLimit); 1,000-deep JSON text
 * fails from_json with FLEXBUF_ERR_JSON (kind DepthLimit). Each call returns within a second,
 * and the process's peak resident memory grows by less than 64 MiB.
 *
 * Usage: test_hostile <conformance/invalid dir>
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <time.h>

#include "common.h"

static int failures = 0;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long peak_kb(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

static void expect(bool ok, const char *what, const char *name) {
    if (!ok) {
        fprintf(stderr, "FAIL %s: %s (last error: %s)\n", name, what, flexbuf_last_error_message());
        failures++;
    }
}

/* Runs one call, timed; returns its status. */
#define TIMED(status, call, name)                                      \
    do {                                                               \
        double start_ = now();                                         \
        status = (call);                                               \
        expect(now() - start_ < 1.0, #call " took over a second", name); \
    } while (0)

static void dag_bomb(const char *dir, const char *file) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    uint8_t *data;
    size_t len;
    if (read_file(path, &data, &len) != 0) {
        expect(false, "cannot read the file", file);
        return;
    }
    flexbuf_status s;
    TIMED(s, flexbuf_verify(data, len), file);
    expect(s == FLEXBUF_OK, "a DAG bomb is a valid buffer", file);
    flexbuf_buffer json;
    TIMED(s, flexbuf_to_json(data, len, 0, &json), file);
    expect(s == FLEXBUF_ERR_BUDGET, "to_json must fail on the budget", file);
    expect(json.data == NULL && json.len == 0 && json.handle == 0, "to_json left a non-zero buffer", file);
    flexbuf_buffer_release(json.handle);
    free(data);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <conformance/invalid dir>\n", argv[0]);
        return 2;
    }
    long base = peak_kb();
    DIR *d = opendir(argv[1]);
    if (!d) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 2;
    }
    int bombs = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "dag_bomb_", 9) == 0 && n > 4 && strcmp(e->d_name + n - 4, ".bin") == 0) {
            dag_bomb(argv[1], e->d_name);
            bombs++;
        }
    }
    closedir(d);
    expect(bombs >= 5, "fewer than 5 DAG bombs in the corpus", argv[1]);

    char path[4096];
    snprintf(path, sizeof path, "%s/depth_bomb_1000_vectors.bin", argv[1]);
    uint8_t *data;
    size_t len;
    if (read_file(path, &data, &len) != 0) {
        expect(false, "cannot read the file", path);
    } else {
        const char *name = "depth_bomb_1000_vectors.bin";
        flexbuf_status s;
        TIMED(s, flexbuf_verify(data, len), name);
        expect(s == FLEXBUF_ERR_INVALID_BUFFER && strcmp(flexbuf_last_error_kind(), "DepthLimit") == 0,
               "verify must fail with DepthLimit", name);
        flexbuf_ref root;
        TIMED(s, flexbuf_root(data, len, &root), name);
        expect(s == FLEXBUF_ERR_INVALID_BUFFER, "root must fail", name);
        flexbuf_buffer json;
        TIMED(s, flexbuf_to_json(data, len, 0, &json), name);
        expect(s == FLEXBUF_ERR_INVALID_BUFFER, "to_json must fail", name);
        flexbuf_buffer_release(json.handle);
        free(data);
    }

    char text[2001];
    memset(text, '[', 1000);
    memset(text + 1000, ']', 1000);
    text[2000] = 0;
    flexbuf_buffer parsed;
    flexbuf_status s;
    TIMED(s, flexbuf_from_json(text, 2000, &parsed), "1000-deep JSON");
    expect(s == FLEXBUF_ERR_JSON && strcmp(flexbuf_last_error_kind(), "DepthLimit") == 0,
           "from_json must fail with FLEXBUF_ERR_JSON, kind DepthLimit", "1000-deep JSON");
    flexbuf_buffer_release(parsed.handle);

    long grew = peak_kb() - base;
    expect(grew < 64 * 1024, "peak RSS grew by 64 MiB or more", "process");
    size_t live = 1;
    flexbuf_live_buffers(&live);
    expect(live == 0, "owned buffers were not released", "process");
    printf("hostile: %d DAG bombs, 1000-deep buffer and JSON: %s (peak RSS grew %ld KiB)\n", bombs,
           failures ? "FAILED" : "bounded", grew);
    return failures ? 1 : 0;
}
