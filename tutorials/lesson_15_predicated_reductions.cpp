// Lesson 15: reductions over part of a domain: RDom::where.
//
// r.where(condition) restricts an RDom to the points where the condition holds. Each part of the
// condition is tested just inside the innermost loop it depends on, and a part that bounds a
// loop's variable linearly (r.x <= r.y) moves that loop's start or end instead: a triangular
// domain runs only its triangle, with no test per point.
//
// Run it: build/tutorials/lesson_15_predicated_reductions

#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

bool expect(bool ok, const char *what) {
    if (!ok) std::printf("FAILED: %s\n", what);
    return ok;
}

}  // namespace

int main() {
    Var x("x"), y("y");
    bool ok = true;

    // 1. The number of points inside a circle of radius 5: an inline sum over an explicit RDom
    //    (the expression 1 does not use the RDom, so the RDom is named first).
    RDom r(-5, 11, -5, 11, "r");
    r.where(r.x * r.x + r.y * r.y <= 25);
    Func area("area");
    area() = sum(r, Expr(1));
    int expected = 0;
    for (int j = -5; j <= 5; j++) {
        for (int i = -5; i <= 5; i++)
            expected += i * i + j * j <= 25;
    }
    ok &= expect(Buffer<int>(area.realize())() == expected, "points in the circle");

    // 2. A triangular domain: the sum of m(i, j) for j <= i, the lower triangle. The condition
    //    is linear in r.x, so the inner loop runs from r.y on: no test per point.
    Buffer<int> m(8, 8);
    m.fill([](int i, int j) { return i + 10 * j; });
    RDom t(0, 8, 0, 8, "t");
    t.where(t.y <= t.x);
    Func lower("lower");
    lower() = 0;
    lower() += m(t.x, t.y);
    int triangle = 0;
    for (int j = 0; j < 8; j++) {
        for (int i = j; i < 8; i++)
            triangle += i + 10 * j;
    }
    ok &= expect(Buffer<int>(lower.realize())() == triangle, "lower triangle");
    std::printf("-- the triangle's loops:\n");
    lower.print_loop_nest();

    // 3. A condition that reads a Func stays a test at the update: a histogram of the pixels
    //    above a threshold.
    Buffer<uint8_t> image(32, 16);
    image.fill([](int i, int j) { return static_cast<uint8_t>((i * 13 + j * 7) % 64); });
    RDom p(0, 32, 0, 16, "p");
    p.where(image(p.x, p.y) >= 32);
    Func hist("hist");
    hist(x) = 0;
    hist(image(p.x, p.y) / 8) += 1;
    // A uint8 pixel / 8 can be any bin up to 31: the histogram's buffer must hold all of them
    // (a smaller one is a runtime error naming the output).
    Buffer<int> h = hist.realize({32});
    int low = 0, high = 0;
    for (int b = 0; b < 4; b++)
        low += h(b);
    for (int b = 4; b < 32; b++)
        high += h(b);
    int above = 0;
    for (int j = 0; j < 16; j++) {
        for (int i = 0; i < 32; i++)
            above += (i * 13 + j * 7) % 64 >= 32;
    }
    ok &= expect(low == 0 && high == above, "only the bright pixels are counted");

    if (!ok) return 1;
    std::printf("lesson 15 passed\n");
    return 0;
}
