// Lesson 5: update definitions and reductions.
//
// A Func can be redefined after its pure definition by updates, which may write any point and
// iterate over a reduction domain (RDom). Updates run in order, each over its whole domain.
//
// Run it: build/tutorials/lesson_05_update_definitions

#include <cstdio>
#include <vector>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    Buffer<uint8_t> image(40, 30);
    image.for_each_element(
        [&](int x, int y) { image(x, y) = static_cast<uint8_t>((x * x + y * 7) % 256); });

    // A histogram: start at zero, then add one at each pixel's value (a scatter update).
    Func histogram("histogram");
    Var i("i");
    RDom r(0, image.width(), 0, image.height(), "r");
    histogram(i) = 0;
    histogram(image(r.x, r.y)) += 1;
    Buffer<int> hist = histogram.realize({256});

    std::vector<int> expected(256, 0);
    image.for_each_element([&](int x, int y) { expected[image(x, y)]++; });
    for (int b = 0; b < 256; b++) {
        if (hist(b) != expected[b]) return 1;
    }
    std::printf("histogram of %d pixels matches\n", image.width() * image.height());

    // A running sum: each point adds its left neighbour, in order of the RDom.
    Func running("running");
    Var x("x");
    RDom k(1, 9, "k");
    running(x) = x;
    running(k) = running(k - 1) + running(k);
    Buffer<int> sums = running.realize({10});
    std::printf("running sum of 0..9 = %d\n", sums(9));
    if (sums(9) != 45) return 1;

    // Inline reductions: sum() makes the update for you.
    Func row_sum("row_sum");
    Var y("y");
    RDom across(0, image.width(), "across");
    row_sum(y) = sum(cast<int>(image(across, y)));
    Buffer<int> rows = row_sum.realize({image.height()});
    int check = 0;
    for (int xx = 0; xx < image.width(); xx++)
        check += image(xx, 3);
    if (rows(3) != check) return 1;
    std::printf("row sums match\nlesson 5 passed\n");
    return 0;
}
