// Pipelines of 200 stages compile (in seconds, not minutes) and compute the right values,
// checked against plain C++ loops. A chain of stencils computed at root every 8th stage (25 loop
// nests, each with 7 stages inlined into it, 128 loads), and a 200-stage chain fully inlined into
// one expression. (docs/compiler.md, "Compile time, measured", has the compile times of longer
// chains.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "dsl/dsl.h"

namespace dsl {
namespace {

constexpr int kStages = 200;

uint32_t source(int x, int y) {
    return static_cast<uint32_t>(x * 7 + y * 13 + 1);
}

TEST(BigPipeline, TwoHundredStencilStagesRootEveryEighth) {
    const int w = 64, h = 6;
    Var x("x"), y("y");
    std::vector<Func> stages;
    Func first("stencil_0");
    first(x, y) = cast<uint32_t>(x * 7 + y * 13 + 1);
    first.compute_root();
    stages.push_back(first);
    for (int i = 1; i <= kStages; i++) {
        Func f("stencil_" + std::to_string(i));
        const Func &p = stages.back();
        f(x, y) = p(x, y) + p(x + 1, y);  // uint32 wraps: every value is defined
        if (i % 8 == 0 && i < kStages) f.compute_root();
        stages.push_back(f);
    }
    stages.back().vectorize(x, 8);
    Buffer<uint32_t> out = stages.back().realize({w, h});

    // The same with arrays: stage i is needed over [0, w + kStages - i).
    std::vector<uint32_t> row(w + kStages);
    int bad = 0;
    for (int py = 0; py < h; py++) {
        for (int px = 0; px < w + kStages; px++)
            row[px] = source(px, py);
        for (int i = 1; i <= kStages; i++) {
            for (int px = 0; px < w + kStages - i; px++)
                row[px] = row[px] + row[px + 1];
        }
        for (int px = 0; px < w; px++)
            bad += out(px, py) != row[px];
    }
    EXPECT_EQ(bad, 0);
}

TEST(BigPipeline, TwoHundredStagesInlinedIntoOneExpression) {
    const int w = 50, h = 7;
    Var x("x"), y("y");
    Func f("chain_0");
    f(x, y) = cast<uint32_t>(x * 7 + y * 13 + 1);
    for (int i = 1; i <= kStages; i++) {
        Func g("chain_" + std::to_string(i));
        // Each stage reads the previous one once, shifted left, right or not at all: the
        // expression grows linearly, and bounds inference follows 200 shifts.
        g(x, y) = f(x + (i % 3) - 1, y) * 3u + cast<uint32_t>(i);
        f = g;
    }
    f.vectorize(x, 8).parallel(y);
    Buffer<uint32_t> out = f.realize({w, h});
    int bad = 0;
    for (int py = 0; py < h; py++) {
        for (int px = 0; px < w; px++) {
            // Stage i at x reads stage i - 1 at x + (i % 3) - 1: walk down to stage 0.
            int sx = px;
            for (int i = kStages; i >= 1; i--)
                sx += (i % 3) - 1;
            uint32_t v = source(sx, py);
            for (int i = 1; i <= kStages; i++) {
                sx -= (i % 3) - 1;
                v = v * 3u + static_cast<uint32_t>(i);
            }
            bad += out(px, py) != v;
        }
    }
    EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace dsl
