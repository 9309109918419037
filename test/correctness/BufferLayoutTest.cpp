// Inputs and outputs laid out in unusual ways, each checked against a plain C++ loop: negative
// strides (flipped views), stride 0 on an input (a broadcast), transposed and empty outputs.
// Every schedule must compute the same values into and out of them.
#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "dsl/dsl.h"

namespace dsl {
namespace {

constexpr int W = 37, H = 11;

/// The schedules each layout is realized with.
std::vector<std::pair<std::string, std::function<void(Func &, Var &, Var &)>>> schedules() {
    return {
        {"default", [](Func &, Var &, Var &) {}},
        {"vectorized", [](Func &f, Var &x, Var &) { f.vectorize(x, 8); }},
        {"parallel", [](Func &f, Var &, Var &y) { f.parallel(y); }},
        {"tiled",
         [](Func &f, Var &x, Var &y) {
             Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
             f.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 4).parallel(yo);
         }},
    };
}

/// A W x H int32 view of `memory` (which holds W * H elements) with rows in reverse order in
/// memory: element (x, y) lives at memory[(H - 1 - y) * W + x].
Buffer<int32_t> rows_flipped(std::vector<int32_t> &memory, const std::string &name) {
    return Buffer<int32_t>(Int(32), memory.data() + (H - 1) * W, {{0, W, 1, 0}, {0, H, -W, 0}},
                           name);
}

/// The same with columns reversed: element (x, y) at memory[y * W + (W - 1 - x)].
Buffer<int32_t> columns_flipped(std::vector<int32_t> &memory, const std::string &name) {
    return Buffer<int32_t>(Int(32), memory.data() + (W - 1), {{0, W, -1, 0}, {0, H, W, 0}}, name);
}

int32_t input_value(int x, int y) {
    return x * 7 - y * 13 + (x ^ y);
}

TEST(BufferLayout, NegativeStridesInInputsAndOutputs) {
    for (auto &[schedule_name, schedule] : schedules()) {
        std::vector<int32_t> in_memory(W * H);
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++)
                in_memory[(H - 1 - y) * W + x] = input_value(x, y);
        }
        Buffer<int32_t> input = rows_flipped(in_memory, "flipped_in");
        ImageParam param(Int(32), 2, "flipped_param");
        param.set(input);
        Func clamped = BoundaryConditions::repeat_edge(param);
        Func f("negative_strides_" + schedule_name);
        Var x("x"), y("y");
        // A stencil, so that neighbouring rows (in opposite memory order) are read.
        f(x, y) = clamped(x - 1, y) + 2 * clamped(x, y + 1) - input(x, y) * 3;
        schedule(f, x, y);
        std::vector<int32_t> out_memory(W * H, -1);
        Buffer<int32_t> output = columns_flipped(out_memory, "flipped_out");
        f.realize(output);
        auto at = [&](int px, int py) {
            px = std::min(std::max(px, 0), W - 1);
            py = std::min(std::max(py, 0), H - 1);
            return input_value(px, py);
        };
        int bad = 0;
        for (int py = 0; py < H; py++) {
            for (int px = 0; px < W; px++) {
                int32_t want = at(px - 1, py) + 2 * at(px, py + 1) - input_value(px, py) * 3;
                if (out_memory[py * W + (W - 1 - px)] != want) bad++;
            }
        }
        EXPECT_EQ(bad, 0) << schedule_name;
    }
}

TEST(BufferLayout, StrideZeroInputsBroadcast) {
    // One row of W values seen as an H-row image: stride 0 in y. And one value seen as a
    // whole image: stride 0 in both dimensions.
    std::vector<int16_t> row(W);
    for (int x = 0; x < W; x++)
        row[x] = static_cast<int16_t>(x * x - 50);
    int16_t scalar = 9;
    for (auto &[schedule_name, schedule] : schedules()) {
        Buffer<int16_t> rows(Int(16), row.data(), {{0, W, 1, 0}, {0, H, 0, 0}}, "broadcast_row");
        Buffer<int16_t> everywhere(Int(16), &scalar, {{0, W, 0, 0}, {0, H, 0, 0}}, "one_value");
        Func f("broadcast_" + schedule_name);
        Var x("x"), y("y");
        Func clamped = BoundaryConditions::mirror_image(rows);
        f(x, y) = cast<int32_t>(clamped(x + 1, y - 1)) * everywhere(x, y) + rows(x, y);
        schedule(f, x, y);
        Buffer<int32_t> out = f.realize({W, H});
        int bad = 0;
        for (int py = 0; py < H; py++) {
            for (int px = 0; px < W; px++) {
                int mx = px + 1 < W ? px + 1 : 2 * W - 1 - (px + 1);
                if (out(px, py) != row[mx] * scalar + row[px]) bad++;
            }
        }
        EXPECT_EQ(bad, 0) << schedule_name;
    }
}

TEST(BufferLayout, TransposedAndCroppedOutputs) {
    for (auto &[schedule_name, schedule] : schedules()) {
        Func f("transposed_" + schedule_name);
        Var x("x"), y("y");
        f(x, y) = x * 1000 + y;
        schedule(f, x, y);
        // Storage is H x W; the output's x walks down the storage's columns.
        Buffer<int32_t> storage(H + 4, W + 2);
        Buffer<int32_t> out = storage.transposed(0, 1).cropped(0, 1, W).cropped(1, 2, H);
        out.translate(0, -5);  // coordinates x in [-4, W - 4)
        f.realize(out);
        int bad = 0;
        for (int py = 2; py < H + 2; py++) {
            for (int px = -4; px < W - 4; px++) {
                if (storage(py, px + 5) != px * 1000 + py) bad++;
            }
        }
        EXPECT_EQ(bad, 0) << schedule_name;
        // The rows and columns outside the crop are untouched.
        EXPECT_EQ(storage(0, 0), 0);
        EXPECT_EQ(storage(H + 3, W + 1), 0);
    }
}

TEST(BufferLayout, EmptyOutputsComputeNothing) {
    Func f("empty");
    Var x("x"), y("y");
    f(x, y) = x + y;
    f.vectorize(x, 8).parallel(y);
    for (std::vector<int> sizes : {std::vector<int>{0, 5}, {7, 0}, {0, 0}}) {
        Buffer<int32_t> out = f.realize(sizes);
        EXPECT_EQ(out.number_of_elements(), 0);
    }
}

}  // namespace
}  // namespace dsl
