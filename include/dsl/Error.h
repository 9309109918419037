#pragma once
/// The exceptions dsl throws. Every message names the Func, stage, buffer or variable involved
/// and, where there is one, says how to fix the problem.

#include <stdexcept>
#include <string>

namespace dsl {

/// Base of every error dsl reports.
class Error : public std::runtime_error {
  public:
    explicit Error(const std::string &message) : std::runtime_error(message) {}
};

/// A mistake in the user's program found while building or compiling it: a type mismatch, an
/// illegal schedule, a Func used before it is defined, ...
class CompileError : public Error {
  public:
    using Error::Error;
};

/// A problem found while running a pipeline: an input buffer too small, a Param out of range, ...
class RuntimeError : public Error {
  public:
    using Error::Error;
};

/// A bug in dsl itself. The message carries the file and line where it was detected; please
/// report it.
class InternalError : public Error {
  public:
    using Error::Error;
};

}  // namespace dsl
