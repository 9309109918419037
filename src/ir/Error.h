#pragma once
/// Internal helpers for reporting errors. A report is a stream that throws when the statement
/// that built it ends:
///   user_assert(lanes > 0) << "Func \"" << name << "\": vector width must be positive.";
///   internal_assert(a.type() == b.type()) << a << " vs " << b;

#include <sstream>
#include <string>
#include <vector>

#include "dsl/Error.h"

namespace dsl::internal {

enum class ErrorKind { Compile, Runtime, Internal };

class ErrorReport {
  public:
    ErrorReport(ErrorKind kind, const char *file, int line, const char *condition);
    ErrorReport(const ErrorReport &) = delete;
    ErrorReport &operator=(const ErrorReport &) = delete;
    /// Throws the error. Safe because a report only lives until the end of its statement.
    ~ErrorReport() noexcept(false);

    template <typename T>
    ErrorReport &operator<<(const T &value) {
        msg_ << value;
        return *this;
    }

  private:
    ErrorKind kind_;
    std::ostringstream msg_;
};

/// A warning: printed to stderr as "dsl: warning: ..." when the statement ends.
class WarningReport {
  public:
    WarningReport() = default;
    WarningReport(const WarningReport &) = delete;
    WarningReport &operator=(const WarningReport &) = delete;
    ~WarningReport();

    template <typename T>
    WarningReport &operator<<(const T &value) {
        msg_ << value;
        return *this;
    }

  private:
    std::ostringstream msg_;
};

/// While one lives, the warnings reported on its thread are also kept in it (the JIT stores
/// those of lowering with the compiled pipeline, to report them again when it loads the
/// pipeline without lowering). Captures nest; the innermost one keeps them.
class WarningCapture {
  public:
    WarningCapture();
    ~WarningCapture();
    WarningCapture(const WarningCapture &) = delete;
    WarningCapture &operator=(const WarningCapture &) = delete;
    const std::vector<std::string> &warnings() const { return warnings_; }

  private:
    friend class WarningReport;
    std::vector<std::string> warnings_;
    WarningCapture *outer_;
};

/// Prints a warning as a WarningReport does (for one reported before and kept).
void print_warning(const std::string &message);

}  // namespace dsl::internal

/// Reports something in the user's program that is legal but has no effect.
#define user_warning ::dsl::internal::WarningReport()

#define DSL_ERROR_REPORT(kind, cond) \
    ::dsl::internal::ErrorReport(::dsl::internal::ErrorKind::kind, __FILE__, __LINE__, cond)

/// Reports a bug in dsl.
#define internal_error DSL_ERROR_REPORT(Internal, nullptr)
#define internal_assert(c) \
    if (c) {               \
    } else                 \
        DSL_ERROR_REPORT(Internal, #c)
/// Reports a mistake in the user's program found while building or compiling it.
#define user_error DSL_ERROR_REPORT(Compile, nullptr)
#define user_assert(c) \
    if (c) {           \
    } else             \
        DSL_ERROR_REPORT(Compile, nullptr)
