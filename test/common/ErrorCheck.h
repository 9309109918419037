#pragma once
/// Helpers for tests of error messages.

#include <gtest/gtest.h>

#include <string>

#include "dsl/Error.h"

namespace dsl::test {

/// Runs `f`, expects it to throw `Error` (a dsl::Error subclass), and returns the message.
template <typename Error = CompileError, typename F>
std::string message_of(F f) {
    try {
        f();
    } catch (const Error &e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an error";
    return "";
}

}  // namespace dsl::test

/// Expects `text` (a std::string or C string) to contain `part`.
#define EXPECT_CONTAINS(text, part) \
    EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)
