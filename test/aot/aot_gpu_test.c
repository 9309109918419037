/* A plain C program calling a pipeline whose two stages are OpenCL kernels (or CUDA kernels,
 * built with DSL_AOT_CUDA): the output is left on the device (device-dirty) until
 * dsl_buffer_copy_to_host; the results against a C loop; a second run after the input changed
 * on the host. Exits 77 (skipped) without a device. Against the tests' stand-in CUDA driver
 * (DSL_LIBCUDA naming fake_cuda), which runs no kernels, the values are not checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_buffers.h"

#ifdef DSL_AOT_CUDA
#include "aot_gpu_blur_cuda.h"
#define aot_gpu_blur aot_gpu_blur_cuda
#else
#include "aot_gpu_blur.h"
#endif

/* Whether kernels really run (not so on the stand-in CUDA driver). */
static int kernels_run(void) {
#ifdef DSL_AOT_CUDA
    const char *driver = getenv("DSL_LIBCUDA");
    return !(driver && strstr(driver, "fake_cuda"));
#else
    return 1;
#endif
}

static int failures = 0;

static int check_blur(const uint16_t *in, int iw, const uint16_t *out, int w, int h) {
    int bad = 0;
    if (!kernels_run()) return 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            unsigned rows[3];
            for (int k = 0; k < 3; k++) {
                const uint16_t *row = in + (y + k) * iw + x;
                /* uint16 arithmetic wraps, as the pipeline's does. */
                rows[k] = (uint16_t)((uint16_t)(row[0] + row[1] + row[2]) / 3);
            }
            uint16_t expected = (uint16_t)((uint16_t)(rows[0] + rows[1] + rows[2]) / 3);
            if (out[y * w + x] != expected && bad++ < 3)
                fprintf(stderr, "(%d, %d): %u, expected %u\n", x, y, out[y * w + x], expected);
        }
    }
    return bad;
}

int main(void) {
    enum { W = 100, H = 37, IW = W + 2, IH = H + 2 };
    dsl_set_error_handler(keep_message);
    dsl_dimension_t in_dim[2], out_dim[2];
    uint16_t *in = malloc(sizeof(uint16_t) * IW * IH);
    uint16_t *out = malloc(sizeof(uint16_t) * W * H);
    for (int i = 0; i < IW * IH; i++)
        in[i] = (uint16_t)((i * 7919u) ^ (i >> 3));
    dsl_buffer_t input = test_buffer_u16(in, in_dim, -1, IW, -1, IH);
    dsl_buffer_t output = test_buffer_u16(out, out_dim, 0, W, 0, H);
    int status = aot_gpu_blur(&input, &output);
    if (status != 0 && strstr(last_message, "compile here but cannot run")) {
        printf("skipped: %s\n", last_message);
        return 77;
    }
    CHECK(status == 0, "aot_gpu_blur returned %d: %s", status, last_message);
    CHECK(output.device != 0, "the output has no device copy");
    CHECK(output.flags & dsl_buffer_flag_device_dirty, "the output is not device-dirty");
    memset(out, 0, sizeof(uint16_t) * W * H);
    CHECK(dsl_buffer_copy_to_host(&output) == 0, "copy to host: %s", last_message);
    CHECK(!(output.flags & dsl_buffer_flag_device_dirty), "still device-dirty after the copy");
    CHECK(check_blur(in, IW, out, W, H) == 0, "wrong blur");

    /* The caller writes the input again: marked host-dirty, the next run copies it. */
    for (int i = 0; i < IW * IH; i++)
        in[i] = (uint16_t)(i * 31u);
    dsl_buffer_set_host_dirty(&input);
    status = aot_gpu_blur(&input, &output);
    CHECK(status == 0, "second run returned %d: %s", status, last_message);
    CHECK(dsl_buffer_copy_to_host(&output) == 0, "copy to host: %s", last_message);
    CHECK(check_blur(in, IW, out, W, H) == 0, "wrong blur after the input changed");

    CHECK(dsl_buffer_device_free(&input) == 0, "free input: %s", last_message);
    CHECK(dsl_buffer_device_free(&output) == 0, "free output: %s", last_message);
    CHECK(output.device == 0 && input.device == 0, "device handles left after the free");
    free(in);
    free(out);
    if (failures) return 1;
    printf("aot_gpu_test: ok\n");
    return 0;
}
