/* Two generated libraries, each carrying the runtime, linked into one C program. */
#include <stdio.h>
#include <string.h>

#include "aot_blur.h"
#include "aot_scale.h"

int main(void) {
    enum { W = 19, H = 6 };
    int failures = 0;

    uint8_t image[W * H];
    for (int i = 0; i < W * H; i++)
        image[i] = (uint8_t)(i * 13);
    float scaled[W * H];
    dsl_dimension_t image_dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    dsl_dimension_t scaled_dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    dsl_buffer_t image_buffer = {0, NULL, image, 0, {dsl_type_uint, 8, 1}, 2, image_dim, NULL};
    dsl_buffer_t scaled_buffer = {
        0, NULL, (uint8_t *)scaled, 0, {dsl_type_float, 32, 1}, 2, scaled_dim, NULL};
    /* The argument order chosen when compiling: gain, image, offset, then the output. */
    int status = aot_scale(0.5f, &image_buffer, 7, &scaled_buffer);
    if (status != 0) {
        printf("aot_scale returned %d\n", status);
        return 1;
    }
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float expected = (float)image[y * W + x] * 0.5f + (float)(7 + x);
            if (scaled[y * W + x] != expected) failures++;
        }
    }
    /* A Param outside its declared range is an error. */
    status = aot_scale(0.5f, &image_buffer, 1000, &scaled_buffer);
    if (status != dsl_error_param_too_large) {
        printf("offset 1000: %d\n", status);
        failures++;
    }

    uint16_t in[(W + 2) * (H + 2)], out[W * H];
    for (int i = 0; i < (W + 2) * (H + 2); i++)
        in[i] = (uint16_t)(i % 300);
    dsl_dimension_t in_dim[2] = {{-1, W + 2, 1, 0}, {-1, H + 2, W + 2, 0}};
    dsl_dimension_t out_dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    dsl_buffer_t in_buffer = {0, NULL, (uint8_t *)in, 0, {dsl_type_uint, 16, 1}, 2, in_dim, NULL};
    dsl_buffer_t out_buffer = {0,       NULL, (uint8_t *)out, 0, {dsl_type_uint, 16, 1}, 2,
                               out_dim, NULL};
    dsl_set_num_threads(2);
    status = aot_blur(&in_buffer, &out_buffer);
    if (status != 0) {
        printf("aot_blur returned %d\n", status);
        return 1;
    }
    /* The centre pixel of a constant-gradient region: check a few against the C formula. */
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            unsigned s = 0;
            for (int dy = 0; dy < 3; dy++) {
                int row = (y + dy) * (W + 2);
                s += (uint16_t)((uint16_t)(in[row + x] + in[row + x + 1] + in[row + x + 2]) / 3);
            }
            if (out[y * W + x] != (uint16_t)((uint16_t)s / 3)) failures++;
        }
    }
    if (strcmp(aot_blur_metadata()->name, "aot_blur") != 0 ||
        strcmp(aot_scale_metadata()->name, "aot_scale") != 0) {
        failures++;
    }
    if (failures) {
        printf("%d mismatches\n", failures);
        return 1;
    }
    printf("aot_two_libraries_test passed\n");
    return 0;
}
