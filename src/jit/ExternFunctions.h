#pragma once
/// The program's functions that pipelines call by name (DSL_EXTERN, dsl/Extern.h): what the JIT
/// links those calls to, and how the reference evaluator calls them.

#include <optional>
#include <string>
#include <vector>

#include "dsl/Extern.h"
#include "dsl/Type.h"

namespace dsl::jit {

struct ExternFunction {
    std::string name;
    void *address = nullptr;
    detail::ExternInvoker invoker = nullptr;
    Type result;
    std::vector<Type> args;
};

/// Records (or replaces) a function. Thread-safe.
void add_extern_function(ExternFunction f);

/// The function recorded under `name`, if any.
std::optional<ExternFunction> find_extern_function(const std::string &name);

/// Every function recorded so far.
std::vector<ExternFunction> extern_functions();

}  // namespace dsl::jit
