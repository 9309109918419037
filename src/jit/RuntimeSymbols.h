#pragma once
/// The runtime's functions as the JIT sees them: by name and address. The runtime itself
/// (src/runtime) stays free of the C++ library, so this table lives here.

#include <string>
#include <vector>

namespace dsl::jit {

struct RuntimeSymbol {
    std::string name;
    void *address;
};

/// Every runtime function generated code may call, with its address in this process.
std::vector<RuntimeSymbol> runtime_symbols();

/// Whether `name` is one of runtime_symbols().
bool is_runtime_symbol(const std::string &name);

}  // namespace dsl::jit
