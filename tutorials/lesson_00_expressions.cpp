// Lesson 0: expressions.
//
// Everything in dsl is built from expressions (`Expr`): C++ operators on `Var`s, numbers and
// other Exprs build a tree that the compiler later turns into loops and machine code. This
// lesson shows what those trees look like, which types they get, and what an error says.
//
// Run it: build/tutorials/lesson_00_expressions

#include <cstdio>
#include <iostream>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    Var x("x"), y("y");

    // A Var is an int32 expression. Operators build a tree; printing shows it.
    Expr e = (x + 1) * y - x / 2;
    std::cout << "e              = " << e << "  : " << e.type() << "\n";

    // A C++ number next to an Expr takes the Expr's type...
    Expr pixel = cast<uint8_t>(x);
    Expr brighter = pixel + 10;
    std::cout << "brighter       = " << brighter << "  : " << brighter.type() << "\n";

    // ...a float number next to an integer Expr makes the expression float32...
    Expr scaled = pixel * 0.5f;
    std::cout << "scaled         = " << scaled << "  : " << scaled.type() << "\n";

    // ...and mixed widths widen: uint8 + int16 is int16.
    Expr wide = pixel + cast<int16_t>(y);
    std::cout << "wide           = " << wide << "  : " << wide.type() << "\n";

    // Comparisons give bools; select picks lane by lane.
    Expr clamped = select(x<0, 0, x> 255, 255, x);
    std::cout << "clamped        = " << clamped << "\n";

    // Integer division rounds toward negative infinity for positive divisors, so that x / 2
    // and x % 2 describe a pixel grid consistently for negative coordinates too.
    std::cout << "semantics      : -7 / 2 == -4 and -7 % 2 == 1 (see include/dsl/Expr.h)\n";

    // Mistakes are reported as dsl::CompileError with a message that says what to do.
    try {
        Expr bad = pixel + 300;  // 300 does not fit in uint8
        std::cout << bad << "\n";
        return 1;  // not reached
    } catch (const CompileError &err) {
        std::cout << "error caught   : " << err.what() << "\n";
    }
    return 0;
}
