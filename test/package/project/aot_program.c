/* Links only the generated library (plus pthread and dl). */
#include <stdio.h>

#include "brighten.h"

int main(void) {
    enum { W = 37, H = 5 };
    uint8_t in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++)
        in[i] = (uint8_t)(i * 7);
    dsl_dimension_t in_dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    dsl_dimension_t out_dim[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    dsl_buffer_t input = {0, NULL, in, 0, {dsl_type_uint, 8, 1}, 2, in_dim, NULL};
    dsl_buffer_t output = {0, NULL, out, 0, {dsl_type_uint, 8, 1}, 2, out_dim, NULL};
    int status = brighten(&input, &output);
    if (status != 0) {
        printf("brighten returned %d\n", status);
        return 1;
    }
    for (int i = 0; i < W * H; i++) {
        int expected = in[i] + 3 > 255 ? 255 : in[i] + 3;
        if (out[i] != expected) {
            printf("out[%d] = %d, expected %d\n", i, out[i], expected);
            return 1;
        }
    }
    printf("aot_program passed\n");
    return 0;
}
