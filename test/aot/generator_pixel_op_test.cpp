// Links only the pixel_op libraries the generator program wrote at build time: op=mul on uint8
// with bias=0.5, and op=max on int16. Checks them against a loop, and the range of the Input
// "gain" ([0, 10]) when they run.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "pixel_op_max_i16.h"
#include "pixel_op_mul_u8.h"

namespace {

constexpr int kWidth = 37, kHeight = 11;

template <typename T>
dsl_buffer_t make_buffer(T *host, dsl_type_code_t code, dsl_dimension_t *dim) {
    dsl_buffer_t b;
    std::memset(&b, 0, sizeof(b));
    b.host = reinterpret_cast<uint8_t *>(host);
    b.type.code = code;
    b.type.bits = static_cast<uint8_t>(sizeof(T) * 8);
    b.type.lanes = 1;
    b.dimensions = 2;
    dim[0] = {0, kWidth, 1, 0};
    dim[1] = {0, kHeight, kWidth, 0};
    b.dim = dim;
    return b;
}

template <typename T, typename Fn, typename Op>
int check(const char *name, Fn fn, dsl_type_code_t code, float gain, Op op) {
    std::vector<T> in(kWidth * kHeight);
    for (size_t i = 0; i < in.size(); i++) {
        int v = static_cast<int>((i * 37) % 251);
        if (code == dsl_type_int) v -= 100;
        in[i] = static_cast<T>(v);
    }
    std::vector<float> out(in.size());
    dsl_dimension_t in_dim[2], out_dim[2];
    dsl_buffer_t input = make_buffer(in.data(), code, in_dim);
    dsl_buffer_t output = make_buffer(out.data(), dsl_type_float, out_dim);
    int status = fn(&input, gain, &output);
    if (status != 0) {
        std::fprintf(stderr, "%s returned %d\n", name, status);
        return 1;
    }
    int failures = 0;
    for (size_t i = 0; i < in.size() && failures < 10; i++) {
        float want = op(static_cast<float>(in[i]), gain);
        if (std::fabs(out[i] - want) > 1e-5f * std::fabs(want) + 1e-6f) {
            std::fprintf(stderr, "%s: element %zu is %g, expected %g\n", name, i, out[i], want);
            failures++;
        }
    }
    // The Input "gain" is declared in [0, 10]: a larger value is refused when the function runs.
    if (fn(&input, 11.0f, &output) == 0) {
        std::fprintf(stderr, "%s accepted gain = 11, outside [0, 10]\n", name);
        failures++;
    }
    return failures;
}

}  // namespace

int main() {
    dsl_set_error_handler([](const char *) {});  // the refused gain would print a message
    int failures = 0;
    failures += check<uint8_t>("pixel_op_mul_u8", pixel_op_mul_u8, dsl_type_uint, 2.5f,
                               [](float v, float g) { return v * g + 0.5f; });
    failures += check<int16_t>("pixel_op_max_i16", pixel_op_max_i16, dsl_type_int, 7.0f,
                               [](float v, float g) { return v > g ? v : g; });
    if (failures) return 1;
    std::printf("generator_pixel_op_test: both libraries match the loop\n");
    return 0;
}
