// Lesson 10: image borders without paying for them everywhere.
//
// A stencil reads outside its input at the borders. BoundaryConditions wrap an input so that it
// is defined everywhere (lesson 4 used repeat_edge). Tests and clamps at every pixel would cost
// time in the middle of the image, where they never fire, so lowering splits each loop into
// the iterations before the border's tests all pass, a "steady state" where they all do, and the
// iterations after; the steady state's code has no test and no clamp.
//
// Clamps (repeat_edge, clamp(x, ...)) are split on in innermost loops. A condition marked with
// likely(), the way constant_exterior marks its own, is split on in any loop whose variable it
// bounds, also when the test sits in loops inside it: a loop over tiles whose pixels are
// unrolled gets a steady state where every pixel of the tile is inside. The steady state's loop
// bounds are named `<loop>.steady_first` and `<loop>.steady_end` in lowered_stmt().
//
// Run it: build/tutorials/lesson_10_boundaries_and_likely

#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

int count(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        n++;
    return n;
}

}  // namespace

int main() {
    const int width = 40, height = 12;
    Buffer<float> input(width, height);
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++)
            input(x, y) = static_cast<float>((x * 7 + y * 3) % 11);
    }

    // A 3x3 box sum with zeros outside the image, written with a test of our own marked likely
    // (BoundaryConditions::constant_exterior(input, 0.0f) builds the same Func).
    Var x("x"), y("y");
    Expr inside = x >= 0 && x < width && y >= 0 && y < height;
    Func zero("zero");
    zero(x, y) =
        select(likely(inside), input(clamp(x, 0, width - 1), clamp(y, 0, height - 1)), 0.0f);
    Func box("box");
    RDom r(-1, 3, -1, 3, "r");
    box(x, y) = 0.0f;
    box(x, y) += zero(x + r.x, y + r.y);

    // Tiles of 4 pixels, unrolled, with the kernel's taps unrolled too: the test sits inside
    // the loop over tiles, and that loop is split so that its middle tiles read the input with
    // neither test nor clamp.
    Var xo("xo"), xi("xi");
    box.update().split(x, xo, xi, 4).reorder(r.x, xi, r.y, xo, y).unroll(xi).unroll(r.x);

    std::string stmt = box.lowered_stmt();
    std::printf("the loop over rows is split: %s\n",
                count(stmt, "box.s1.y.steady_first =") > 0 ? "yes" : "no");
    std::printf("the loop over tiles is split: %s\n",
                count(stmt, "box.s1.xo.steady_first =") > 0 ? "yes" : "no");

    // The same results as a plain C++ loop.
    Buffer<float> out = box.realize({width, height});
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++) {
            float sum = 0.0f;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    int xx = i + dx, yy = j + dy;
                    if (xx >= 0 && xx < width && yy >= 0 && yy < height) sum += input(xx, yy);
                }
            }
            if (out(i, j) != sum) {
                std::printf("box(%d, %d) = %g, expected %g\n", i, j, out(i, j), sum);
                return 1;
            }
        }
    }
    if (count(stmt, "steady_first =") == 0) return 1;
    std::printf("lesson 10 passed\n");
    return 0;
}
