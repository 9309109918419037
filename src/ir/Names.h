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
/// The buffer whose field (one of the three above) `name` is ("in.extent.1" -> "in"), or ""
/// when `name` is not a buffer's field.
inline std::string field_buffer(const std::string &name) {
    for (const char *field : {".min.", ".extent.", ".stride."}) {
        size_t at = name.rfind(field);
        if (at == std::string::npos || at == 0) continue;
        size_t digits = at + std::char_traits<char>::length(field);
        if (digits < name.size() &&
            name.find_first_not_of("0123456789", digits) == std::string::npos) {
            return name.substr(0, at);
        }
    }
    return "";
}
inline bool is_buffer_field(const std::string &name) {
    return !field_buffer(name).empty();
}

/// The element type code, bits and dimension count of a buffer argument (for checks).
inline std::string buffer_type_code(const std::string &b) {
    return b + ".type.code";
}
inline std::string buffer_type_bits(const std::string &b) {
    return b + ".type.bits";
}
inline std::string buffer_dimensions(const std::string &b) {
    return b + ".dimensions";
}

/// The buffer holding value `index` of a Func with `outputs` values per point: the Func's own
/// name for a single value, `f.0`, `f.1`, ... for a Tuple.
inline std::string func_buffer(const std::string &func, int index, int outputs) {
    return outputs == 1 ? func : func + "." + std::to_string(index);
}

/// The loop variable of `var` in stage `stage` of Func `func`: "f.s0.x".
inline std::string stage_var(const std::string &func, int stage, const std::string &var) {
    return func + ".s" + std::to_string(stage) + "." + var;
}
/// Bounds (inclusive) of a loop or a stage dimension: "f.s0.x.min", "f.s0.x.max".
inline std::string min_of(const std::string &loop) {
    return loop + ".min";
}
inline std::string max_of(const std::string &loop) {
    return loop + ".max";
}
/// Where a partitioned loop's steady state starts and ends (PartitionLoops): "f.s0.x.steady_first",
/// "f.s0.x.steady_end". The loops before and after it, its edges, run a few iterations.
inline std::string steady_first(const std::string &loop) {
    return loop + ".steady_first";
}
inline std::string steady_end(const std::string &loop) {
    return loop + ".steady_end";
}
/// The region of Func `func` that is allocated, per dimension: "f.x.min_realized", ...
inline std::string realized_min(const std::string &func, const std::string &var) {
    return func + "." + var + ".min_realized";
}
inline std::string realized_max(const std::string &func, const std::string &var) {
    return func + "." + var + ".max_realized";
}
inline std::string realized_extent(const std::string &func, const std::string &var) {
    return func + "." + var + ".extent_realized";
}
/// Where the bound_extent() window of Func `func` along `var` starts (and ends, for storage):
/// "f.x.window_min", "f.x.window_max".
inline std::string window_min(const std::string &func, const std::string &var) {
    return func + "." + var + ".window_min";
}
inline std::string window_max(const std::string &func, const std::string &var) {
    return func + "." + var + ".window_max";
}
/// What stage `stage` of Func `func` needs along `var` in one iteration of the loop it is
/// computed in, which its bound_extent() window must hold: "f.x.s1.needed_min", ...
inline std::string needed_min(const std::string &func, const std::string &var, int stage) {
    return func + "." + var + ".s" + std::to_string(stage) + ".needed_min";
}
inline std::string needed_max(const std::string &func, const std::string &var, int stage) {
    return func + "." + var + ".s" + std::to_string(stage) + ".needed_max";
}

}  // namespace dsl::ir::names
