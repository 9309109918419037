// JIT through the installed package: a gradient, saved and loaded back as a PNG.
#include <cstdio>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    Var x("x"), y("y");
    Func f("gradient");
    f(x, y) = cast<uint8_t>(x * 4 + y);
    f.vectorize(x, 16).parallel(y);
    Buffer<uint8_t> out = f.realize({40, 30});
    save_image(out, "gradient.png");
    Buffer<uint8_t> back = load_image("gradient.png");
    for (int y0 = 0; y0 < 30; y0++) {
        for (int x0 = 0; x0 < 40; x0++) {
            if (out(x0, y0) != static_cast<uint8_t>(x0 * 4 + y0) || back(x0, y0) != out(x0, y0)) {
                std::printf("mismatch at (%d, %d)\n", x0, y0);
                return 1;
            }
        }
    }
    std::printf("jit_program passed\n");
    return 0;
}
