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

/// dsl reports errors as exceptions, always (Halide's `exceptions_enabled()`, for programs that
/// ask).
constexpr bool exceptions_enabled() {
    return true;
}

/// Receives what dsl reports while a program builds and compiles its pipelines (Halide's
/// CompileTimeErrorReporter): warnings, in place of the lines dsl writes to stderr, and errors
/// (CompileError, InternalError) just before they are thrown. Where error() returns, the
/// exception is thrown as without a reporter (Halide requires error() not to return); it may
/// also throw an exception of its own, or end the program. Errors found while a pipeline runs
/// are RuntimeErrors, which the JIT's custom_error handler (dsl/JIT.h) receives instead.
class CompileTimeErrorReporter {
  public:
    virtual ~CompileTimeErrorReporter() = default;
    virtual void warning(const char *message) = 0;
    virtual void error(const char *message) = 0;
};

/// Installs `reporter` for every thread (null restores the default). The reporter must live as
/// long as it is installed.
void set_custom_compile_time_error_reporter(CompileTimeErrorReporter *reporter);

}  // namespace dsl
