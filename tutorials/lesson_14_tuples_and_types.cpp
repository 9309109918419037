// Lesson 14: several values per point (Tuples), and the types of expressions.
//
// A Func may compute a Tuple: f(x) = Tuple(a, b). Its values are computed together, stored
// in one buffer each, and read as f(x)[0], f(x)[1]. Reductions that carry more than one value
// (an argmax keeps the best value and where it was) are written with Tuples.
//
// Every Expr has a type. The rules that give a type to `a + b` are at the top of dsl/Expr.h;
// this lesson shows the ones that surprise people coming from C.
//
// Run it: build/tutorials/lesson_14_tuples_and_types

#include <cstdio>

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

    // 1. A Tuple-valued Func: realize() gives one buffer per element.
    Func polar("polar");
    Expr fx = cast<float>(x) - 2, fy = cast<float>(y) - 2;
    polar(x, y) = Tuple(sqrt(fx * fx + fy * fy), atan2(fy, fx));
    Realization r = polar.realize({5, 5});
    Buffer<float> radius(r[0]), angle(r[1]);
    ok &= expect(radius(4, 2) == 2.0f && angle(4, 2) == 0.0f, "each element has its buffer");

    // 2. An argmax as an update over a Tuple: the best value and where it was, updated together.
    //    tuple_select picks between two Tuples, element by element.
    Buffer<int> data(10);
    for (int i = 0; i < 10; i++)
        data(i) = (i * 7) % 10;  // 0 7 4 1 8 5 2 9 6 3: the largest, 9, is at 7
    Func best("best");
    RDom r10(0, 10);
    best() = Tuple(-1, 0);
    Expr better = data(r10) > best()[0];
    best() = tuple_select(better, Tuple(data(r10), r10), Tuple(best()[0], best()[1]));
    Realization b = best.realize();
    ok &= expect(Buffer<int>(b[0])() == 9 && Buffer<int>(b[1])() == 7, "argmax by hand");

    // The inline argmax does the same over an RDom.
    Tuple a = argmax(data(r10));
    ok &= expect(evaluate<int>(a[0]) == 7, "inline argmax");

    // 3. Types. An integer literal takes the type of the other operand; a float literal makes
    //    the expression float.
    Expr u8 = cast<uint8_t>(x);
    ok &= expect((u8 + 1).type() == UInt(8), "u8 + 1 stays uint8");
    ok &= expect((u8 * 0.5f).type() == Float(32), "u8 * 0.5f is float");
    // Narrow unsigned arithmetic wraps: widen first when the sum can pass 255.
    ok &= expect(evaluate<uint8_t>(cast<uint8_t>(Expr(200)) + cast<uint8_t>(Expr(100))) == 44,
                 "uint8 wraps");
    ok &= expect(evaluate<uint16_t>(cast<uint16_t>(cast<uint8_t>(Expr(200))) + 100) == 300,
                 "widen first");
    // Signed meets unsigned: a signed type of the wider width.
    ok &= expect((cast<int8_t>(x) + cast<uint16_t>(x)).type() == Int(16), "int8 + uint16");
    // Integer division rounds down (Euclidean), not toward zero as in C; div_round_to_zero
    // gives C's.
    ok &= expect(evaluate<int>(Expr(-7) / 2) == -4, "-7 / 2 is -4");
    ok &= expect(evaluate<int>(div_round_to_zero(Expr(-7), Expr(2))) == -3, "C's -7 / 2");
    // a op= b keeps a's type.
    Expr acc = cast<int>(x);
    acc += 1.5f;
    ok &= expect(acc.type() == Int(32), "+= keeps the type");
    // The type's range, as constants.
    ok &= expect(evaluate<int16_t>(Int(16).max()) == 32767, "Type::max()");

    if (!ok) return 1;
    std::printf("lesson 14 passed\n");
    return 0;
}
