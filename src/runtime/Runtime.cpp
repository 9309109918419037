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
    };
}

}  // namespace dsl::runtime
