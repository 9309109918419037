/* A plain C program linked with nothing of dsl but a model compiled by `dsl-onnx compile` (and
 * -lpthread -ldl), for the CPU or for OpenCL. It runs the model twice on one input (the static
 * arena reused: the same results), then on another input and the first again, checks what it
 * can on its own (each row of probabilities sums to 1), writes the input
 * and outputs as .npy files into the directory argv[1] (CompareWithRun.cmake compares them with
 * `dsl-onnx run`), and checks the errors of a wrong input size and of a NULL buffer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_model.h"
#include "test_buffers.h" /* CHECK, keep_message (test/aot) */

enum { N = 2, C = 3, H = 17, W = 19, F = 8, PH = H / 2, PW = W / 2, K = 5 };

static int failures = 0;

/* A dense float buffer of `rank` extents given outermost first (as numpy writes shapes). */
static dsl_buffer_t make_buffer(float *data, dsl_dimension_t *dim, int rank, const int *shape) {
    dsl_buffer_t b;
    memset(&b, 0, sizeof b);
    b.host = (uint8_t *)data;
    b.type.code = dsl_type_float;
    b.type.bits = 32;
    b.type.lanes = 1;
    b.dimensions = rank;
    b.dim = dim;
    int32_t stride = 1;
    for (int d = 0; d < rank; d++) {
        dim[d].min = 0;
        dim[d].extent = shape[rank - 1 - d];
        dim[d].stride = stride;
        dim[d].flags = 0;
        stride *= dim[d].extent;
    }
    return b;
}

/* numpy's format, version 1.0: a little-endian float32 array in C order. */
static void write_npy(const char *dir, const char *name, const float *data, int rank,
                      const int *shape) {
    char path[4096], header[256], dims[128] = "";
    size_t n = 1;
    for (int d = 0; d < rank; d++) {
        char one[32];
        snprintf(one, sizeof one, "%d,%s", shape[d], d + 1 < rank ? " " : "");
        strcat(dims, one);
        n *= (size_t)shape[d];
    }
    if (rank > 1) dims[strlen(dims) - 1] = '\0'; /* "(2, 5)", but "(2,)" for one axis */
    int len = snprintf(header, sizeof header,
                       "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }", dims);
    int total = 10 + len + 1;
    int pad = (64 - total % 64) % 64;
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    unsigned short header_len = (unsigned short)(len + pad + 1);
    fwrite("\x93NUMPY\x01\x00", 1, 8, f);
    fputc(header_len & 0xff, f);
    fputc(header_len >> 8, f);
    fwrite(header, 1, (size_t)len, f);
    for (int i = 0; i < pad; i++)
        fputc(' ', f);
    fputc('\n', f);
    fwrite(data, sizeof(float), n, f);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: nn_aot_model_c_test OUTPUT_DIR\n");
        return 2;
    }
    dsl_set_error_handler(keep_message);
    const int x_shape[4] = {N, C, H, W}, pooled_shape[4] = {N, F, PH, PW}, probs_shape[2] = {N, K};
    float *x = malloc(sizeof(float) * N * C * H * W);
    float *pooled = malloc(sizeof(float) * N * F * PH * PW);
    float *probs = malloc(sizeof(float) * N * K);
    float *pooled2 = malloc(sizeof(float) * N * F * PH * PW);
    float *probs2 = malloc(sizeof(float) * N * K);
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = sinf(0.37f * (float)i) + 0.25f * cosf(0.011f * (float)(i * i % 977));
    dsl_dimension_t x_dim[4], pooled_dim[4], probs_dim[2];
    dsl_buffer_t xb = make_buffer(x, x_dim, 4, x_shape);
    dsl_buffer_t pooled_b = make_buffer(pooled, pooled_dim, 4, pooled_shape);
    dsl_buffer_t probs_b = make_buffer(probs, probs_dim, 2, probs_shape);

    int status = aot_model_run(&xb, &probs_b, &pooled_b);
    CHECK(status == 0, "aot_model_run returned %d: %s", status, last_message);
    for (int n = 0; n < N; n++) {
        double sum = 0;
        for (int k = 0; k < K; k++)
            sum += probs[n * K + k];
        CHECK(fabs(sum - 1.0) < 1e-5, "row %d of probs sums to %f", n, sum);
    }

    /* Again, into other memory: the arena holds the last run's intermediates. */
    dsl_buffer_t pooled_b2 = make_buffer(pooled2, pooled_dim, 4, pooled_shape);
    dsl_buffer_t probs_b2 = make_buffer(probs2, probs_dim, 2, probs_shape);
    status = aot_model_run(&xb, &probs_b2, &pooled_b2);
    CHECK(status == 0, "the second run returned %d: %s", status, last_message);
    CHECK(memcmp(pooled, pooled2, sizeof(float) * N * F * PH * PW) == 0 &&
              memcmp(probs, probs2, sizeof(float) * N * K) == 0,
          "the second run differs from the first");

    /* Another input, then the first again: each run reads the input it is given (on a GPU, no
     * stale device copy of the last one), and the caller's buffers keep no device copies. */
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = -x[i];
    status = aot_model_run(&xb, &probs_b2, &pooled_b2);
    CHECK(status == 0, "the run on another input returned %d: %s", status, last_message);
    CHECK(memcmp(pooled, pooled2, sizeof(float) * N * F * PH * PW) != 0,
          "another input gave the same outputs");
    for (int i = 0; i < N * C * H * W; i++)
        x[i] = -x[i];
    status = aot_model_run(&xb, &probs_b2, &pooled_b2);
    CHECK(status == 0, "the fourth run returned %d: %s", status, last_message);
    CHECK(memcmp(pooled, pooled2, sizeof(float) * N * F * PH * PW) == 0 &&
              memcmp(probs, probs2, sizeof(float) * N * K) == 0,
          "the first input again gave other outputs");
    CHECK(xb.device == 0 && probs_b2.device == 0 && pooled_b2.device == 0,
          "an argument kept a device copy");

    write_npy(argv[1], "x", x, 4, x_shape);
    write_npy(argv[1], "pooled", pooled, 4, pooled_shape);
    write_npy(argv[1], "probs", probs, 2, probs_shape);

    /* An input of another size: the library runs the sizes it was compiled for. */
    const int wrong_shape[4] = {N, C, H - 1, W};
    dsl_dimension_t wrong_dim[4];
    dsl_buffer_t wrong = make_buffer(x, wrong_dim, 4, wrong_shape);
    last_message[0] = '\0';
    status = aot_model_run(&wrong, &probs_b, &pooled_b);
    CHECK(status != 0 && strlen(last_message) > 0,
          "an input of the wrong size: status %d, message \"%s\"", status, last_message);
    printf("wrong size: %d: %s\n", status, last_message);

    /* A NULL output and an output without memory. */
    last_message[0] = '\0';
    status = aot_model_run(&xb, NULL, &pooled_b);
    CHECK(status == dsl_error_buffer_argument_is_null && strstr(last_message, "\"probs\""),
          "a NULL buffer: status %d, message \"%s\"", status, last_message);
    probs_b2.host = NULL;
    last_message[0] = '\0';
    status = aot_model_run(&xb, &probs_b2, &pooled_b);
    CHECK(status == dsl_error_buffer_argument_is_null && strstr(last_message, "\"probs\""),
          "no host memory: status %d, message \"%s\"", status, last_message);
    printf("no memory: %d: %s\n", status, last_message);

    free(x);
    free(pooled);
    free(probs);
    free(pooled2);
    free(probs2);
    if (failures) fprintf(stderr, "%d checks failed\n", failures);
    return failures ? 1 : 0;
}
