/* Small helpers shared by the C tests, the conformance runner and the bench. */
#ifndef FLEXBUF_TEST_COMMON_H
#define FLEXBUF_TEST_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flexbuf.h"

/* Value of one hex digit, -1 if c is not one. */
static inline int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decodes hex text ("-" is empty) into a malloc'ed buffer (*out, *len); 0 on
 * success. *out is NULL for an empty result. */
static inline int hex_decode(const char *text, uint8_t **out, size_t *len) {
    *out = NULL;
    *len = 0;
    if (strcmp(text, "-") == 0) return 0;
    size_t n = strlen(text);
    if (n % 2 != 0) return -1;
    uint8_t *buf = malloc(n / 2 ? n / 2 : 1);
    if (!buf) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(buf);
            return -1;
        }
        buf[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = buf;
    *len = n / 2;
    return 0;
}

/* Reads a whole file into a malloc'ed buffer; 0 on success (*data NULL when empty). */
static inline int read_file(const char *path, uint8_t **data, size_t *len) {
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 0, n = 0;
    uint8_t *buf = NULL;
    for (;;) {
        if (n == cap) {
            size_t next = cap ? cap * 2 : 4096;
            uint8_t *grown = realloc(buf, next);
            if (!grown) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = grown;
            cap = next;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    fclose(f);
    if (n == 0) {
        free(buf);
        buf = NULL;
    }
    *data = buf;
    *len = n;
    return 0;
}

#endif
