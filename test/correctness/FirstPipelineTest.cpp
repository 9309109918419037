#include <gtest/gtest.h>

#include "dsl/dsl.h"

namespace dsl {
namespace {

TEST(Pipeline, PointwiseFunc) {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x + y * 10;
    Buffer<int> out = f.realize({4, 3});
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 4; i++)
            EXPECT_EQ(out(i, j), i + j * 10);
    }
}

}  // namespace
}  // namespace dsl
