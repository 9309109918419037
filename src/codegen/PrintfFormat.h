#pragma once
/// A Print intrinsic's format (ir/IR.h: `{k}` for value k, `{{` for `{`) as a C printf format,
/// for GPU kernels, which print with the device's printf (OpenCL C's printf, CUDA's vprintf).

#include <string>
#include <vector>

#include "dsl/Type.h"

namespace dsl::codegen {

struct PrintfFormat {
    /// The format: each {k} a conversion for value k's type (%d, %u, %ld or %lld, %lu or %llu,
    /// %f for floats of 32 bits or fewer, %e for doubles, as the CPU prints them), `%` as `%%`.
    std::string text;
    /// The values the conversions read, in order (a value written twice is read twice).
    std::vector<size_t> values;
};

/// `format` with values of `types` (scalars) in printf's terms; `long_modifier` is the length
/// modifier of 64-bit integers ("l" in OpenCL C, "ll" for CUDA).
PrintfFormat printf_format(const std::string &format, const std::vector<Type> &types,
                           const std::string &long_modifier);

}  // namespace dsl::codegen
