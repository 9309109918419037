#pragma once
/// Which build of the compiler this is. Defined in a source that CMake generates
/// (cmake/WriteBuildId.cmake) whenever a file of the compiler changes.

namespace dsl::jit {

/// The project's version, e.g. "0.1.0".
const char *build_version();
/// A hash of every source file of the compiler (64 hexadecimal digits).
const char *build_id();

}  // namespace dsl::jit
