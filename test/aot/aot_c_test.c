/* A plain C program linked only with the generated library (and -lpthread -ldl): results
 * against a C loop, the bounds query, error codes for wrong buffers, the metadata. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_buffers.h"

#include "aot_blur.h"

static int failures = 0;

int main(void) {
    enum { W = 203, H = 77 };
    dsl_set_error_handler(keep_message);

    /* Bounds query: the input's host is NULL; the pipeline fills in the region it needs. */
    dsl_dimension_t in_dim[2], out_dim[2];
    uint16_t *out = malloc(sizeof(uint16_t) * W * H);
    dsl_buffer_t output = test_buffer_u16(out, out_dim, 10, W, 20, H);
    dsl_buffer_t query = test_buffer_u16(NULL, in_dim, 0, 0, 0, 0);
    int status = aot_blur(&query, &output);
    CHECK(status == 0, "bounds query returned %d: %s", status, last_message);
    CHECK(in_dim[0].min == 9 && in_dim[0].extent == W + 2, "x: [%d, +%d)", in_dim[0].min,
          in_dim[0].extent);
    CHECK(in_dim[1].min == 19 && in_dim[1].extent == H + 2, "y: [%d, +%d)", in_dim[1].min,
          in_dim[1].extent);

    /* Run it on an input of exactly that region. */
    int iw = in_dim[0].extent, ih = in_dim[1].extent;
    uint16_t *in = malloc(sizeof(uint16_t) * iw * ih);
    for (int i = 0; i < iw * ih; i++)
        in[i] = (uint16_t)((i * 7919u) ^ (i >> 3));
    dsl_buffer_t input = test_buffer_u16(in, in_dim, in_dim[0].min, iw, in_dim[1].min, ih);
    status = aot_blur(&input, &output);
    CHECK(status == 0, "aot_blur returned %d: %s", status, last_message);
    int mismatches = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            uint16_t bx[3];
            for (int dy = -1; dy <= 1; dy++) {
                int row = y + 1 + dy; /* input row of output row y + dy */
                int col = x + 1;
                bx[dy + 1] = (uint16_t)((uint16_t)(in[row * iw + col - 1] + in[row * iw + col] +
                                                   in[row * iw + col + 1]) /
                                        3);
            }
            uint16_t expected = (uint16_t)((uint16_t)(bx[0] + bx[1] + bx[2]) / 3);
            if (out[y * W + x] != expected && mismatches++ < 5)
                CHECK(0, "out(%d, %d) = %d, expected %d", x, y, out[y * W + x], expected);
        }
    }

    /* Wrong buffers give error codes and messages, never a crash. */
    input.type.bits = 8;
    status = aot_blur(&input, &output);
    CHECK(status == dsl_error_bad_type, "wrong type: %d", status);
    CHECK(strstr(last_message, "input") != NULL, "message: %s", last_message);
    input.type.bits = 16;
    input.dimensions = 3;
    status = aot_blur(&input, &output);
    CHECK(status == dsl_error_bad_dimensions, "wrong rank: %d", status);
    input.dimensions = 2;
    in_dim[0].extent -= 1; /* one column short */
    status = aot_blur(&input, &output);
    CHECK(status == dsl_error_access_out_of_bounds, "too small: %d", status);
    CHECK(strstr(last_message, "input") != NULL, "message: %s", last_message);
    in_dim[0].extent += 1;
    /* An output without memory is a bounds query too: the blur writes exactly its region. */
    output.host = NULL;
    status = aot_blur(&input, &output);
    CHECK(status == 0, "bounds query on the output: %d", status);
    CHECK(out_dim[0].min == 10 && out_dim[0].extent == W && out_dim[1].min == 20 &&
              out_dim[1].extent == H,
          "output region: [%d, +%d) x [%d, +%d)", out_dim[0].min, out_dim[0].extent, out_dim[1].min,
          out_dim[1].extent);
    output.host = (uint8_t *)out;
    /* Layouts no pipeline can use, refused before anything is read or written. */
    out_dim[1].extent = -2;
    status = aot_blur(&input, &output);
    CHECK(status == dsl_error_buffer_extents_negative, "negative extent: %d", status);
    CHECK(strstr(last_message, "has extent -2 in dimension 1") != NULL, "message: %s",
          last_message);
    out_dim[1].extent = H;
    out_dim[1].stride = 0; /* every row in the same memory */
    status = aot_blur(&input, &output);
    CHECK(status == dsl_error_buffer_overlaps, "overlapping output: %d", status);
    CHECK(strstr(last_message, "has stride 0 in dimension 1") != NULL, "message: %s", last_message);
    out_dim[1].stride = 1 << 30; /* rows 2^30 elements apart: offsets past 32 bits */
    status = aot_blur(&input, &output);
    CHECK(status == dsl_error_buffer_too_large, "huge strides: %d", status);
    CHECK(strstr(last_message, "more than the 2^31 - 1 a pipeline addresses") != NULL,
          "message: %s", last_message);
    out_dim[1].stride = W;
    /* The input's constraint: dense rows (dim(0).set_stride(1)). */
    in_dim[0].stride = 2;
    in_dim[1].stride = 2 * iw;
    status = aot_blur(&input, &output);
    CHECK(status == dsl_error_constraint_violated, "strided input: %d", status);
    CHECK(strstr(last_message,
                 "\"input\" has stride 2 in dimension 0, but ImageParam "
                 "\"input\" requires 1") != NULL,
          "message: %s", last_message);
    in_dim[0].stride = 1;
    in_dim[1].stride = iw;

    /* The argv entry and the metadata. */
    void *args[2] = {&input, &output};
    CHECK(aot_blur_argv(args) == 0, "argv: %s", last_message);
    const dsl_pipeline_metadata_t *md = aot_blur_metadata();
    CHECK(md->version == 1 && md->num_arguments == 2, "metadata: %d args", md->num_arguments);
    CHECK(strcmp(md->name, "aot_blur") == 0, "name %s", md->name);
    CHECK(strcmp(md->arguments[0].name, "input") == 0 &&
              md->arguments[0].kind == dsl_argument_input_buffer &&
              md->arguments[0].dimensions == 2 && md->arguments[0].type.bits == 16,
          "argument 0");
    CHECK(md->arguments[1].kind == dsl_argument_output_buffer, "argument 1");
    CHECK(strlen(md->target) > 0, "target");

    free(in);
    free(out);
    if (failures) return 1;
    printf("aot_c_test passed (target %s)\n", md->target);
    return 0;
}
