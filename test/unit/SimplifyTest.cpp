// Unit tests of the simplifier's rule families, checking exact results.
#include <gtest/gtest.h>

#include "dsl/dsl.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/ModulusRemainder.h"
#include "ir/Simplify.h"

namespace dsl {
namespace {

using namespace ir;

Expr var(Type t, const std::string &name) {
    return Variable::make(t, name);
}

#define EXPECT_SIMPLIFIES(input, expected)                                                 \
    do {                                                                                   \
        Expr in_ = (input), want_ = (expected);                                            \
        Expr got_ = simplify(in_);                                                         \
        EXPECT_TRUE(equal(got_, want_))                                                    \
            << "simplify(" << in_ << ")\n  gave     " << got_ << "\n  expected " << want_; \
    } while (0)

#define EXPECT_UNCHANGED(input)                                            \
    do {                                                                   \
        Expr in_ = (input);                                                \
        Expr got_ = simplify(in_);                                         \
        EXPECT_TRUE(equal(got_, in_))                                      \
            << "simplify(" << in_ << ") should not change, gave " << got_; \
    } while (0)

const Expr x = var(Int(32), "x"), y = var(Int(32), "y"), z = var(Int(32), "z");

TEST(Simplify, NothingToDo) {
    EXPECT_SIMPLIFIES(x, x);
    EXPECT_SIMPLIFIES(x + y, x + y);
}

}  // namespace
}  // namespace dsl
