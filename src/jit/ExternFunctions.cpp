#include "jit/ExternFunctions.h"

#include <map>
#include <mutex>

namespace dsl::jit {

namespace {

struct Table {
    std::mutex mutex;
    std::map<std::string, ExternFunction> functions;
};

// Built on first use: registrations run from other translation units' static initialisers.
Table &table() {
    static Table t;
    return t;
}

}  // namespace

void add_extern_function(ExternFunction f) {
    Table &t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    std::string name = f.name;
    t.functions[name] = std::move(f);
}

std::optional<ExternFunction> find_extern_function(const std::string &name) {
    Table &t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.functions.find(name);
    if (it == t.functions.end()) return std::nullopt;
    return it->second;
}

std::vector<ExternFunction> extern_functions() {
    Table &t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    std::vector<ExternFunction> all;
    for (const auto &entry : t.functions)
        all.push_back(entry.second);
    return all;
}

namespace {
thread_local const std::map<std::string, void *> *bound = nullptr;
}  // namespace

ScopedJITExterns::ScopedJITExterns(const std::map<std::string, void *> &externs)
    : previous_(bound) {
    bound = &externs;
}

ScopedJITExterns::~ScopedJITExterns() {
    bound = previous_;
}

void *jit_extern_address(const std::string &name) {
    if (bound) {
        auto it = bound->find(name);
        if (it != bound->end()) return it->second;
    }
    auto recorded = find_extern_function(name);
    return recorded ? recorded->address : nullptr;
}

std::map<std::string, void *> jit_extern_addresses() {
    std::map<std::string, void *> all;
    for (const ExternFunction &f : extern_functions())
        all[f.name] = f.address;
    if (bound) {
        for (const auto &[name, address] : *bound)
            all[name] = address;
    }
    return all;
}

}  // namespace dsl::jit
