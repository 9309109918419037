#pragma once
/// The runtime's object files, embedded in the compiler so that it can copy them into the static
/// libraries it writes (DESIGN.md §5). Part of the compiler, not of the runtime: the bytes are
/// generated at build time (cmake/EmbedRuntimeObjects.cmake) from the objects of the
/// dsl_runtime_objects target, for the host the compiler was built on.

#include <cstddef>
#include <vector>

namespace dsl::runtime {

struct EmbeddedObject {
    const char *name;  // the archive member name, e.g. "dsl_runtime_threadpool.o"
    const unsigned char *data;
    size_t size;
};

/// Every object file of the runtime, sorted by name. The bytes live as long as the program.
std::vector<EmbeddedObject> runtime_objects();

}  // namespace dsl::runtime
