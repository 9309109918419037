#pragma once
/// A loader of our own for the relocatable x86-64 ELF objects the JIT compiles: it maps their
/// sections, applies their relocations and names their functions, with none of ORC's set-up. The
/// first pipeline a process loads from the disk cache then links in about 0.1 ms instead of the
/// 2-4 ms that creating an LLJIT and its first lookup cost. It handles what LLVM emits for our
/// modules (code and read-only data; PC-relative, PLT, GOT and absolute relocations) and says
/// why it cannot load anything else, so that the caller falls back to ORC's JITLink.

#include <cstddef>
#include <map>
#include <memory>
#include <string>

namespace dsl::jit {

class LoadedObject {
  public:
    /// Loads `size` bytes of a relocatable ELF object for x86-64 into executable memory of
    /// this process. Undefined symbols are resolved to the runtime's functions (see
    /// RuntimeSymbols.h), then to this process's (libc, libm). Null, with `*problem` set, when
    /// the object holds something this loader does not handle. With DSL_PERF_MAP=1 in the
    /// environment, its functions are appended to /tmp/perf-<pid>.map, so that `perf report`
    /// names them (a pipeline's function and each of its parallel loops' tasks).
    static std::unique_ptr<LoadedObject> load(const char *bytes, size_t size, std::string *problem);
    ~LoadedObject();
    LoadedObject(const LoadedObject &) = delete;
    LoadedObject &operator=(const LoadedObject &) = delete;

    /// The address of a global symbol the object defines, or null.
    void *symbol(const std::string &name) const;

  private:
    LoadedObject() = default;
    void *memory_ = nullptr;
    size_t size_ = 0;
    std::map<std::string, void *> symbols_;
};

}  // namespace dsl::jit
