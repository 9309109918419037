// Links only the two_outputs library the generator program wrote at build time (scaled.type =
// float32) and calls it as Halide's AOT programs do: dsl::Buffer objects, fixed to two and one
// dimensions, passed where the function takes dsl_buffer_t pointers.
#include <cmath>
#include <cstdio>

#include "dsl/Buffer.h"
#include "two_outputs_f32.h"

int main() {
    constexpr int kWidth = 19, kHeight = 7;
    dsl::Buffer<uint8_t, 2> input(kWidth, kHeight);
    input.for_each_element([&](int x, int y) { input(x, y) = static_cast<uint8_t>(x * 7 + y); });
    dsl::Buffer<float, 2> scaled(kWidth, kHeight);
    dsl::Buffer<int32_t, 1> row_sums(kHeight);

    int status = two_outputs_f32(input, 1.5f, scaled, row_sums);
    if (status != 0) {
        std::fprintf(stderr, "two_outputs_f32 returned %d\n", status);
        return 1;
    }
    int failures = 0;
    for (int y = 0; y < kHeight; y++) {
        int sum = 0;
        for (int x = 0; x < kWidth; x++) {
            sum += input(x, y);
            float want = input(x, y) * 1.5f;
            if (std::fabs(scaled(x, y) - want) > 1e-5f && failures++ < 10)
                std::fprintf(stderr, "scaled(%d, %d) = %g, expected %g\n", x, y, scaled(x, y),
                             want);
        }
        if (row_sums(y) != sum && failures++ < 10)
            std::fprintf(stderr, "row_sums(%d) = %d, expected %d\n", y, row_sums(y), sum);
    }
    if (failures) return 1;
    std::printf("Success!\n");
    return 0;
}
