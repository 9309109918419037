#pragma once
/// The runtime functions that generated code calls. For the JIT they are linked by address; AOT
/// libraries will carry their own copy.

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
/// Allocates `bytes` bytes aligned to 64 bytes; null when out of memory.
void *dsl_runtime_malloc(uint64_t bytes);
void dsl_runtime_free(void *pointer);
}

namespace dsl::runtime {

constexpr const char *kMallocSymbol = "dsl_runtime_malloc";
constexpr const char *kFreeSymbol = "dsl_runtime_free";

struct RuntimeSymbol {
    std::string name;
    void *address;
};

/// Every runtime function generated code may call, with its address.
std::vector<RuntimeSymbol> runtime_symbols();

}  // namespace dsl::runtime
