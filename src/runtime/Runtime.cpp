#include "runtime/Runtime.h"

#include <cstdlib>

extern "C" {

void *dsl_runtime_malloc(uint64_t bytes) {
    // aligned_alloc needs a size that is a multiple of the alignment.
    uint64_t rounded = (bytes + 63) & ~uint64_t(63);
    if (rounded == 0) rounded = 64;
    return std::aligned_alloc(64, rounded);
}

void dsl_runtime_free(void *pointer) {
    std::free(pointer);
}
}

namespace dsl::runtime {

std::vector<RuntimeSymbol> runtime_symbols() {
    return {
        {kMallocSymbol, reinterpret_cast<void *>(&dsl_runtime_malloc)},
        {kFreeSymbol, reinterpret_cast<void *>(&dsl_runtime_free)},
#define DSL_RUNTIME_SYMBOL(f) {#f, reinterpret_cast<void *>(&f)}
        DSL_RUNTIME_SYMBOL(dsl_runtime_parallel_for),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_bad_dimensions),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_bad_type),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_buffer_is_null),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_access_out_of_bounds),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_output_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_bound_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_param_too_small),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_param_too_large),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_out_of_memory),
        DSL_RUNTIME_SYMBOL(dsl_runtime_error_buffer_too_large),
#undef DSL_RUNTIME_SYMBOL
    };
}

}  // namespace dsl::runtime
