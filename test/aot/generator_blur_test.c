/* Links only the box_blur libraries the generator program wrote at build time (radius 1 with the
 * defaults, radius 3 for host-avx2 without parallel rows) and checks both against a C loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_buffers.h"

#include "box_blur_r1.h"
#include "box_blur_r3_avx2.h"

enum { W = 67, H = 31 };

static int clamp(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* The blur with repeated edges, as the generator defines it: a sum over the window divided by
 * its size, rounding down. */
static uint16_t expected(const uint16_t *in, int x, int y, int radius) {
    uint32_t sum = 0;
    for (int dy = -radius; dy <= radius; dy++) {
        for (int dx = -radius; dx <= radius; dx++) {
            sum += in[clamp(y + dy, 0, H - 1) * W + clamp(x + dx, 0, W - 1)];
        }
    }
    return (uint16_t)(sum / (uint32_t)((2 * radius + 1) * (2 * radius + 1)));
}

typedef int (*blur_fn)(dsl_buffer_t *, dsl_buffer_t *);

static int check(const char *name, blur_fn fn, int radius, const uint16_t *in) {
    uint16_t *out = malloc(sizeof(uint16_t) * W * H);
    dsl_dimension_t in_dim[2], out_dim[2];
    dsl_buffer_t input = test_buffer_u16((uint16_t *)in, in_dim, 0, W, 0, H);
    dsl_buffer_t output = test_buffer_u16(out, out_dim, 0, W, 0, H);
    int failures = 0;
    int status = fn(&input, &output);
    if (status != 0) {
        fprintf(stderr, "%s returned %d\n", name, status);
        failures++;
    }
    for (int y = 0; y < H && failures < 10; y++) {
        for (int x = 0; x < W && failures < 10; x++) {
            uint16_t want = expected(in, x, y, radius);
            if (out[y * W + x] != want) {
                fprintf(stderr, "%s(%d, %d) = %u, expected %u\n", name, x, y, out[y * W + x], want);
                failures++;
            }
        }
    }
    free(out);
    return failures;
}

int main(void) {
    uint16_t *in = malloc(sizeof(uint16_t) * W * H);
    for (int i = 0; i < W * H; i++)
        in[i] = (uint16_t)((i * 7919u + 13u) % 65536u);
    int failures = check("box_blur_r1", box_blur_r1, 1, in) +
                   check("box_blur_r3_avx2", box_blur_r3_avx2, 3, in);
    free(in);
    if (failures) return 1;
    printf("generator_blur_test: both libraries match the C loop\n");
    return 0;
}
