/* Links two static libraries that each carry the runtime, both whole (--whole-archive), so both
 * copies of every runtime symbol reach the linker: the link succeeds because they are weak, and
 * the pipelines of both libraries share one runtime. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dsl/runtime/dsl_runtime.h"

int pipeline_a(int32_t *out, int32_t n);
int pipeline_b(double gain, int32_t *row_sum);

static char handled[1024];

static void handler(const char *message) {
    snprintf(handled, sizeof(handled), "%s", message);
}

int main(void) {
    int failures = 0;
    dsl_set_num_threads(3);
    int32_t out[1000];
    if (pipeline_a(out, 1000) != 0) failures++;
    for (int i = 0; i < 1000; i++)
        failures += out[i] != 2 * i;
    int32_t row_sum = 0;
    if (pipeline_b(1, &row_sum) != 0 || row_sum != 4950) failures++;

    dsl_set_error_handler(handler);
    if (pipeline_b(20, &row_sum) != dsl_error_param_too_large) failures++;
    if (strcmp(handled,
               "Error: Param \"gain\" is 20, above its maximum 10. Set it within its "
               "range.") != 0) {
        fprintf(stderr, "the handler got \"%s\"\n", handled);
        failures++;
    }
    if (failures) {
        fprintf(stderr, "two_libraries: %d checks failed\n", failures);
        return 1;
    }
    printf("two_libraries: both libraries ran on one runtime\n");
    return 0;
}
