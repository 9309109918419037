#pragma once
/// The names that lowering derives (a buffer's fields, a stage's loops) are all built here, so
/// that passes agree on them without scattering string concatenation around (DESIGN.md §3).

#include <string>

namespace dsl::ir::names {

/// The host pointer of buffer `b` is the name `b` itself: Load and Store refer to it.
inline std::string buffer_host(const std::string &b) {
    return b;
}
/// The `dsl_buffer_t *` of a buffer argument.
inline std::string buffer_struct(const std::string &b) {
    return b + ".buffer";
}
inline std::string buffer_min(const std::string &b, int dim) {
    return b + ".min." + std::to_string(dim);
}
inline std::string buffer_extent(const std::string &b, int dim) {
    return b + ".extent." + std::to_string(dim);
}
inline std::string buffer_stride(const std::string &b, int dim) {
    return b + ".stride." + std::to_string(dim);
}

}  // namespace dsl::ir::names
