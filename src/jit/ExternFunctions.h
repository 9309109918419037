#pragma once
/// The program's functions that pipelines call by name (DSL_EXTERN, dsl/Extern.h): what the JIT
/// links those calls to, and how the reference evaluator calls them.

#include <map>
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

/// The functions bound by name for the pipeline being compiled on this thread
/// (Pipeline::set_jit_externs), while an instance lives; they come before recorded ones.
class ScopedJITExterns {
  public:
    explicit ScopedJITExterns(const std::map<std::string, void *> &externs);
    ~ScopedJITExterns();
    ScopedJITExterns(const ScopedJITExterns &) = delete;
    ScopedJITExterns &operator=(const ScopedJITExterns &) = delete;

  private:
    const std::map<std::string, void *> *previous_;
};

/// The address the JIT links `name` to, from the bound or recorded functions; null if neither
/// has it.
void *jit_extern_address(const std::string &name);
/// Every bound and recorded function, by name (bound ones win).
std::map<std::string, void *> jit_extern_addresses();

}  // namespace dsl::jit
