#include "ir/Error.h"

#include <algorithm>
#include <atomic>
#include <iostream>

#include "dsl/Error.h"

namespace dsl {

namespace {
std::atomic<CompileTimeErrorReporter *> compile_time_reporter{nullptr};
}

void set_custom_compile_time_error_reporter(CompileTimeErrorReporter *reporter) {
    compile_time_reporter.store(reporter);
}

}  // namespace dsl

namespace dsl::internal {

ErrorReport::ErrorReport(ErrorKind kind, const char *file, int line, const char *condition)
    : kind_(kind) {
    if (kind_ == ErrorKind::Internal) {
        msg_ << "Internal error at " << file << ":" << line;
        if (condition) msg_ << " (condition failed: " << condition << ")";
        msg_ << ": ";
    } else {
        msg_ << "Error: ";
    }
}

ErrorReport::~ErrorReport() noexcept(false) {
    std::string text = msg_.str();
    if (kind_ == ErrorKind::Internal) text += "\nThis is a bug in dsl; please report it.";
    if (kind_ != ErrorKind::Runtime) {
        if (CompileTimeErrorReporter *r = compile_time_reporter.load()) r->error(text.c_str());
    }
    switch (kind_) {
        case ErrorKind::Compile:
            throw CompileError(text);
        case ErrorKind::Runtime:
            throw RuntimeError(text);
        case ErrorKind::Internal:
            throw InternalError(text);
    }
}

namespace {
thread_local WarningCapture *current_capture = nullptr;
}

WarningCapture::WarningCapture() : outer_(current_capture) {
    current_capture = this;
}

WarningCapture::~WarningCapture() {
    current_capture = outer_;
}

void print_warning(const std::string &message) {
    if (CompileTimeErrorReporter *r = compile_time_reporter.load()) {
        r->warning(message.c_str());
        return;
    }
    std::cerr << "dsl: warning: " << message << "\n";
}

WarningReport::~WarningReport() {
    const std::string message = msg_.str();
    if (current_capture) {
        // Once per capture (one lowering): a loop copied into several specializations of a
        // pipeline warns once.
        std::vector<std::string> &seen = current_capture->warnings_;
        if (std::find(seen.begin(), seen.end(), message) != seen.end()) return;
        seen.push_back(message);
    }
    print_warning(message);
}

}  // namespace dsl::internal
