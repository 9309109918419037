// Pipeline::auto_schedule (dsl/AutoSchedule.h, src/autoschedule/): pipelines of each shape the
// heuristic handles (stencil chains computed per strip, cheap Funcs inlined, look-up tables at
// root, reductions in register tiles, reductions without pure loops split by rfactor, Tuples,
// several outputs) give the reference evaluator's values once auto-scheduled, and the schedule
// it reports as source says what it did. The estimates and their errors, MachineParams, and
// Pipeline::get_func are covered too. The image apps auto-scheduled are in test/apps.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "autoschedule/Heuristic.h"
#include "autoschedule/Model.h"
#include "autoschedule/ScheduleWriter.h"
#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"
#include "gpu/GPUTestUtil.h"
#include "jit/DiskCache.h"
#include "lang/Realize.h"

namespace {

using namespace dsl;
using dsl::test::matches_reference;
using dsl::test::message_of;
using dsl::test::random_buffer;

std::string auto_schedule(const Pipeline &p_in, const Target &t = Target::host()) {
    Pipeline p = p_in;
    return p.auto_schedule(t, MachineParams(2, 8u << 20, 40)).schedule_source;
}

/// bx and by: a 1 2 1 blur along x, then one along y, of `input` with its edges repeated.
void define_blurs(const ImageParam &input, Func bx, Func by, const Var &x, const Var &y) {
    Func clamped = BoundaryConditions::repeat_edge(input);
    bx(x, y) = clamped(x - 1, y) + clamped(x, y) * 2.0f + clamped(x + 1, y);
    by(x, y) = bx(x, y - 1) + bx(x, y) * 2.0f + bx(x, y + 1);
}

/// Two blurs over an input with its edges repeated, and an output that reads the second at two
/// rows: the stencil chain of the CPU and GPU tests.
struct StencilChain {
    ImageParam input{Float(32), 2, "input"};
    Var x{"x"}, y{"y"};
    Func bx{"bx"}, by{"by"}, out{"out"};
    StencilChain() {
        input.set(random_buffer(Float(32), {203, 157}, 1));
        define_blurs(input, bx, by, x, y);
        out(x, y) = sqrt(by(x, y) * by(x, y) + 1.0f) - by(x, y - 1) * 0.5f;
    }
};

TEST(AutoSchedule, StencilChainIsComputedPerStripAndMatches) {
    StencilChain chain;
    Func out = chain.out;
    out.set_estimate(chain.x, 0, 203).set_estimate(chain.y, 0, 157);
    std::string source = auto_schedule(out);
    // The blurs are computed per strip of the output's rows, which run in parallel; the output
    // is vectorized; the boundary condition is inlined.
    EXPECT_CONTAINS(source, "by.compute_at(out, yo)");
    EXPECT_CONTAINS(source, "bx.compute_at(out, yo)");
    EXPECT_CONTAINS(source, "out.vectorize(x, ");
    EXPECT_CONTAINS(source, ".parallel(yo)");
    EXPECT_EQ(source.find("repeat_edge.compute"), std::string::npos) << source;
    EXPECT_TRUE(matches_reference(out, out.realize({203, 157}), 1e-5));
    // Other sizes than the estimate run too (smaller than a strip and than a vector).
    EXPECT_TRUE(matches_reference(out, out.realize({7, 3}), 1e-5));
}

// The same chain without a boundary condition, over an input of exactly the size it reads (as
// the tensors of an NN model are): the blurs computed per strip of the output read no point of
// the input outside it, so the vectors at the ends of their rows are guarded, not shifted
// inwards (which lowering allows to start a vector before a strip's region).
TEST(AutoSchedule, StripsOverAnInputOfExactlyTheSizeReadStayInsideIt) {
    ImageParam input(Float(32), 2, "input");
    input.dim(0).set_bounds(0, 205).dim(1).set_bounds(0, 159);
    Var x("x"), y("y");
    Func bx("bx"), by("by"), out("out");
    bx(x, y) = input(x - 1, y) + input(x, y) * 2.0f + input(x + 1, y);
    by(x, y) = bx(x, y - 1) + bx(x, y) * 2.0f + bx(x, y + 1);
    out(x, y) = sqrt(by(x, y) * by(x, y) + 1.0f) - by(x, y - 1) * 0.5f;
    out.set_estimate(x, 1, 203).set_estimate(y, 2, 156);
    std::string source = auto_schedule(out);
    EXPECT_CONTAINS(source, "bx.compute_at(out, yo)");
    input.set(random_buffer(Float(32), {205, 159}, 3));
    Buffer<float> result(203, 156);
    result.set_min({1, 2});
    out.realize(result);
    EXPECT_TRUE(matches_reference(out, result, 1e-5));
}

TEST(AutoSchedule, PointwiseFuncsAreInlined) {
    Buffer<> in = random_buffer(Int(32), {100, 80}, 2);
    Var x("x"), y("y");
    Func a("a"), b("b"), out("out");
    a(x, y) = Func(in)(x, y) * 3;
    b(x, y) = a(x, y) + 7;
    out(x, y) = b(x, y) * b(x, y);
    out.set_estimates({{0, 100}, {0, 80}});
    std::string source = auto_schedule(out);
    EXPECT_EQ(source.find("a.compute"), std::string::npos) << source;
    EXPECT_EQ(source.find("b.compute"), std::string::npos) << source;
    EXPECT_TRUE(matches_reference(out, out.realize({100, 80})));
}

TEST(AutoSchedule, LookUpTableIsComputedAtRoot) {
    Buffer<> in = random_buffer(UInt(8), {300, 200}, 3);
    ImageParam input(UInt(8), 2, "input");
    input.set(in);
    input.dim(0).set_estimate(0, 300).dim(1).set_estimate(0, 200);
    Var x("x"), y("y"), i("i");
    Func table("table"), out("out");
    table(i) = cast<uint8_t>(clamp(sqrt(cast<float>(i)) * 16.0f, 0.0f, 255.0f));
    out(x, y) = table(input(x, y));
    out.set_estimate(x, 0, 300).set_estimate(y, 0, 200);
    std::string source = auto_schedule(out);
    EXPECT_CONTAINS(source, "table.compute_root()");
    EXPECT_TRUE(matches_reference(out, out.realize({300, 200})));
}

TEST(AutoSchedule, ReductionIsComputedInRegisterTiles) {
    const int n = 67, m = 45, k = 33;
    Buffer<> a = random_buffer(Float(32), {k, m}, 4), b = random_buffer(Float(32), {n, k}, 5);
    Var x("x"), y("y");
    RDom r(0, k, "r");
    Func prod("prod"), out("out");
    prod(x, y) = 0.0f;
    prod(x, y) += Func(a)(r, y) * Func(b)(x, r);
    out(x, y) = max(prod(x, y), 0.0f);
    out.set_estimate(x, 0, n).set_estimate(y, 0, m);
    std::string source = auto_schedule(out);
    EXPECT_CONTAINS(source, "prod.compute_at(out, yo)");
    EXPECT_CONTAINS(source, "prod.update(0).reorder(x, y, r_x)");
    EXPECT_CONTAINS(source, ".unroll(yi)");
    EXPECT_TRUE(matches_reference(out, out.realize({n, m}), 1e-5));
}

// A window slid along the second and third dimensions with the first innermost (a depthwise
// convolution over channels-innermost images, zero-padded through a likely condition): tiles of
// one vector of channels by 4 x 2 pixels, the taps unrolled, and the loops the boundary tests
// are left unfused, so that lowering gives them steady states: images in parallel when there
// are enough of them, else the rows of tiles.
TEST(AutoSchedule, SlidingWindowTilesBothDimensionsAndKeepsBoundaryLoopsApart) {
    for (int images : {1, 6}) {
        const int channels = 16, width = 32, height = 32;
        Buffer<float> in = random_buffer(Float(32), {channels, width, height, images}, 20 + images);
        Buffer<float> weights = random_buffer(Float(32), {channels, 3, 3}, 9);
        ImageParam input(Float(32), 4, "dw_in");
        input.set(in);
        Var c("c"), x("x"), y("y"), n("n");
        Expr inside = x >= 0 && x < width && y >= 0 && y < height;
        Func padded("padded"), conv("conv"), out("out");
        padded(c, x, y, n) = select(
            likely(inside), input(c, clamp(x, 0, width - 1), clamp(y, 0, height - 1), n), 0.0f);
        RDom r(0, 3, 0, 3, "r");
        conv(c, x, y, n) = 0.0f;
        conv(c, x, y, n) += padded(c, x + r.x - 1, y + r.y - 1, n) * Func(weights)(c, r.x, r.y);
        out(c, x, y, n) = max(conv(c, x, y, n), 0.0f);
        out.set_estimates({{0, channels}, {0, width}, {0, height}, {0, images}});
        std::string source = auto_schedule(out);
        EXPECT_CONTAINS(source, "conv.compute_at(out, co)");
        EXPECT_CONTAINS(source, ".bound_extent(x, 4).bound_extent(y, 2)");
        EXPECT_CONTAINS(source, ".unroll(r_x)");
        EXPECT_EQ(source.find("fuse("), std::string::npos) << source;
        // Two threads: 6 images are enough tasks, 1 is not.
        EXPECT_CONTAINS(source, images == 1 ? ".parallel(yo)" : ".parallel(n)");
        Buffer<float> result = out.realize({channels, width, height, images});
        for (int i = 0; i < images; i++) {
            for (int py = 0; py < height; py++) {
                for (int px = 0; px < width; px++) {
                    for (int ch = 0; ch < channels; ch++) {
                        float sum = 0;
                        for (int ky = 0; ky < 3; ky++) {
                            for (int kx = 0; kx < 3; kx++) {
                                int sx = px + kx - 1, sy = py + ky - 1;
                                if (sx < 0 || sx >= width || sy < 0 || sy >= height) continue;
                                sum += in(ch, sx, sy, i) * weights(ch, kx, ky);
                            }
                        }
                        ASSERT_NEAR(result(ch, px, py, i), std::max(sum, 0.0f), 1e-4f)
                            << ch << ", " << px << ", " << py << ", " << i;
                    }
                }
            }
        }
    }
}

// Channel loops: an RGB output whose three channels are computed from the same demosaicked
// values (as a camera's colour correction reads red(x, y), green(x, y) and blue(x, y)) gets its
// channel loop innermost and unrolled, so that the three channels read those values once and
// they are inlined rather than stored at root; the colour planes they read are computed per
// strip. An output whose channels read only their own channel keeps its loops.
TEST(AutoSchedule, ChannelLoopsGoInnermostWhereTheyShareReads) {
    Buffer<> raw = random_buffer(Float(32), {96, 64}, 30);
    ImageParam input(Float(32), 2, "raw");
    input.set(raw);
    Var x("x"), y("y"), c("c");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func plane("plane"), red("red"), green("green"), blue("blue"), out("out");
    plane(x, y) = sqrt(abs(clamped(x, y - 1)) + 2.0f * abs(clamped(x, y)) + abs(clamped(x, y + 1)));
    red(x, y) = sqrt(plane(x - 1, y) * plane(x + 1, y) + 1.0f) + plane(x, y) * 0.25f;
    green(x, y) = sqrt(plane(x, y - 1) * plane(x, y + 1) + 2.0f) - plane(x, y) * 0.5f;
    blue(x, y) = sqrt(plane(x - 1, y - 1) * plane(x + 1, y + 1) + 3.0f) + plane(x, y);
    Expr rgb[3] = {1.4f * red(x, y) - 0.3f * green(x, y) - 0.1f * blue(x, y),
                   -0.2f * red(x, y) + 1.35f * green(x, y) - 0.15f * blue(x, y),
                   -0.05f * red(x, y) - 0.35f * green(x, y) + 1.4f * blue(x, y)};
    out(x, y, c) = select(c == 0, rgb[0], c == 1, rgb[1], rgb[2]);
    out.set_estimates({{0, 96}, {0, 64}, {0, 3}});
    std::string source = auto_schedule(out);
    EXPECT_CONTAINS(source,
                    "out.split(c, co, ci, 3, TailStrategy::ShiftInwards)"
                    ".reorder(ci, x, y, co).unroll(ci)");
    for (const char *f : {"red.compute", "green.compute", "blue.compute"})
        EXPECT_EQ(source.find(f), std::string::npos) << source;
    EXPECT_CONTAINS(source, "plane.compute_at(out, yo_co)");
    EXPECT_TRUE(matches_reference(out, out.realize({96, 64, 3}), 1e-4));
    // Other sizes: smaller planes, and more channels than estimated (the last three shift
    // inwards over the ones before).
    EXPECT_TRUE(matches_reference(out, out.realize({17, 5, 3}), 1e-4));
    EXPECT_TRUE(matches_reference(out, out.realize({40, 24, 5}), 1e-4));
    // A buffer of fewer channels than the split: refused, naming the output and the fix.
    Buffer<float> two_channels(17, 5, 2);
    std::string m = message_of<RuntimeError>([&] { out.realize(two_channels); });
    EXPECT_CONTAINS(m, "output \"out\" at [-1, 1] in dimension 2");
    EXPECT_CONTAINS(m, "GuardWithIf");

    // Each channel reads its own channel of the input: nothing to share.
    ImageParam rgb_in(Float(32), 3, "rgb_in");
    rgb_in.set(random_buffer(Float(32), {96, 64, 3}, 31));
    Func gain("gain");
    gain(x, y, c) = sqrt(abs(rgb_in(x, y, c))) * 2.0f + rgb_in(x, y, c);
    gain.set_estimates({{0, 96}, {0, 64}, {0, 3}});
    std::string plain = auto_schedule(gain);
    EXPECT_EQ(plain.find("unroll"), std::string::npos) << plain;
    EXPECT_TRUE(matches_reference(gain, gain.realize({96, 64, 3}), 1e-5));
}

TEST(AutoSchedule, SerialReductionIsSplitByRFactor) {
    Buffer<> in = random_buffer(UInt(8), {512, 400}, 6);
    ImageParam input(UInt(8), 2, "input");
    input.set(in);
    Var i("i");
    RDom r(0, 512, 0, 400, "r");
    Func hist("hist");
    hist(i) = 0;
    hist(cast<int>(input(r.x, r.y))) += 1;
    hist.set_estimate(i, 0, 256);
    std::string source = auto_schedule(hist);
    EXPECT_CONTAINS(source, "rfactor(");
    EXPECT_CONTAINS(source, ".parallel(u)");
    Buffer<int32_t> h = hist.realize({256});
    // (The reference evaluator would take a minute over 200,000 points per bin.)
    std::vector<int> expected(256, 0);
    Buffer<uint8_t> pixels(in);
    pixels.for_each_element([&](int x, int y) { expected[pixels(x, y)]++; });
    for (int b = 0; b < 256; b++)
        EXPECT_EQ(h(b), expected[b]) << "bin " << b;
    // Scheduling again undoes the rfactor first: the same schedule, not partials of partials,
    // and the source applies to a fresh copy of the algorithm.
    std::string again = auto_schedule(hist);
    EXPECT_EQ(again, source);
    EXPECT_EQ(Pipeline(hist).funcs().size(), 2u);  // hist and its one intermediate
    Buffer<int32_t> h2 = hist.realize({256});
    for (int b = 0; b < 256; b++)
        EXPECT_EQ(h2(b), expected[b]) << "bin " << b;
}

TEST(AutoSchedule, TuplesAndSeveralOutputs) {
    Buffer<> in = random_buffer(Float(32), {90, 70}, 7);
    Var x("x"), y("y");
    Func pair("pair"), sum("sum"), diff("diff");
    Func src(in);
    pair(x, y) = Tuple(src(x, y) + src(x + 1, y), src(x, y) * 2.0f);
    sum(x, y) = pair(x, y)[0] + pair(x, y + 1)[1];
    diff(x, y) = pair(x, y)[0] - pair(x, y + 1)[1];
    sum.set_estimate(x, 0, 89).set_estimate(y, 0, 69);
    diff.set_estimate(x, 0, 89).set_estimate(y, 0, 69);
    Pipeline p({sum, diff});
    auto_schedule(p);
    Realization r = p.realize({89, 69});
    EXPECT_TRUE(matches_reference(sum, r[0], 1e-6));
    EXPECT_TRUE(matches_reference(diff, r[1], 1e-6));
}

TEST(AutoSchedule, ReplacesTheScheduleThereWas) {
    Buffer<> in = random_buffer(Int(16), {64, 64}, 8);
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f"), g("g");
    f(x, y) = Func(in)(x, y) + Func(in)(x, y + 1) * Func(in)(x + 1, y);
    g(x, y) = f(x, y) + f(x + 1, y + 1);
    f.compute_root().split(x, xo, xi, 4).unroll(xi);
    g.set_estimate(x, 0, 62).set_estimate(y, 0, 62);
    std::string source = auto_schedule(g);
    EXPECT_EQ(source.find("unroll"), std::string::npos) << source;
    EXPECT_EQ(g.loop_nest().find("xi"), std::string::npos) << g.loop_nest();
    EXPECT_TRUE(matches_reference(g, g.realize({62, 62})));
}

TEST(AutoSchedule, EstimatesThroughParams) {
    Buffer<> in = random_buffer(Float(32), {50, 40}, 9);
    ImageParam input(Float(32), 2, "input");
    input.set(in);
    Param<int> width("width");
    width.set(50);
    width.set_estimate(50);
    Var x("x"), y("y");
    RDom r(0, width, "r");
    Func rowsum("rowsum"), out("out");
    rowsum(y) = 0.0f;
    rowsum(y) += input(r, y);
    out(x, y) = input(x, y) / (rowsum(y) + 100.0f);
    out.set_estimate(x, 0, width).set_estimate(y, 0, 40);
    auto_schedule(out);
    EXPECT_TRUE(matches_reference(out, out.realize({50, 40}), 1e-5));
}

TEST(AutoSchedule, ScheduleSourceNamesTheFuncsByName) {
    Buffer<> in = random_buffer(Float(32), {40, 40}, 10);
    Var x("x"), y("y");
    Func f("f"), out("out");
    f(x, y) = Func(in)(x, y) * Func(in)(x, y + 1) + 1.0f;
    out(x, y) = f(x, y) + f(x + 1, y) + f(x, y + 1) + f(x + 1, y + 1);
    out.set_estimate(x, 0, 39).set_estimate(y, 0, 39);
    Pipeline p(out);
    AutoSchedulerResults r = p.auto_schedule(Target::host(), MachineParams(4, 1u << 20, 40));
    EXPECT_EQ(r.scheduler_name, "dsl");
    EXPECT_EQ(r.machine_params_string, "4,1048576,40");
    EXPECT_CONTAINS(r.schedule_source, "Func out = pipeline.get_func(\"out\");");
    EXPECT_CONTAINS(r.schedule_source, "Var ");
    EXPECT_GT(r.baseline_cost, r.estimated_cost);
    EXPECT_EQ(p.get_func("f").name(), "f");
    EXPECT_EQ(p.get_func(p.funcs().size() - 1).name(), "out");
}

TEST(AutoSchedule, HalideNamesMeanTheBuiltInOne) {
    Var x("x");
    Func f("f");
    f(x) = x * 2;
    f.set_estimate(x, 0, 1000);
    Pipeline p(f);
    EXPECT_EQ(p.auto_schedule("Adams2019", Target::host()).scheduler_name, "dsl");
    EXPECT_EQ(p.auto_schedule("Mullapudi2016", Target::host(), MachineParams::generic())
                  .machine_params_string,
              "16,16777216,40");
    Buffer<int32_t> out = f.realize({1000});
    EXPECT_EQ(out(999), 1998);
}

// GPU targets: each group is a kernel of 32 x 8 threads per block; the Funcs that the group's
// root reads, computed per strip on a CPU, are computed per block into shared memory by the
// block's threads. Run through OpenCL (PoCL here).
TEST(AutoScheduleGPU, StencilChainIsComputedPerBlockInSharedMemory) {
    const Target t = dsl::test::opencl_target();
    DSL_REQUIRE_GPU(t);
    StencilChain chain;
    Func out = chain.out;
    // (Whole blocks at the estimate: by's one more row per 8 is its only recompute.)
    out.set_estimate(chain.x, 0, 256).set_estimate(chain.y, 0, 160);
    std::string source = auto_schedule(out, t);
    // The output's last tiles shift inwards, so that the blurs have the same size in every
    // block (shared memory has a constant size).
    EXPECT_CONTAINS(source,
                    "out.split(x, xo, xi, 32, TailStrategy::ShiftInwards)"
                    ".split(y, yo, yi, 8, TailStrategy::ShiftInwards)"
                    ".reorder(xi, yi, xo, yo).gpu_threads(xi, yi).gpu_blocks(xo, yo)");
    EXPECT_CONTAINS(source, "by.compute_at(out, xo).gpu_threads(x, y)");
    // bx, which by reads, is a kernel of its own: the size of a Func read by another one
    // computed per block is not a constant the compiler can see.
    EXPECT_CONTAINS(source, "bx.compute_root().split(x, xo, xi, 32, TailStrategy::GuardWithIf)");
    EXPECT_TRUE(matches_reference(out, out.realize({203, 157}, t), 1e-5));
    EXPECT_TRUE(matches_reference(out, out.realize({32, 8}, t), 1e-5));
    // A buffer of less than a tile: refused, naming the output.
    Buffer<float> small(7, 3);
    EXPECT_CONTAINS(message_of<RuntimeError>([&] { out.realize(small, t); }), "output \"out\"");
    // The source applied again schedules the same kernels.
    Pipeline p(out);
    p.apply_schedule_source(source);
    EXPECT_TRUE(matches_reference(out, out.realize({50, 20}, t), 1e-5));
}

// An update with pure loops is tiled over them with its RVars in each thread; an update with
// none (a histogram) runs on the host between kernels.
TEST(AutoScheduleGPU, UpdatesRunOnTheDeviceOverTheirPureLoops) {
    const Target t = dsl::test::opencl_target();
    DSL_REQUIRE_GPU(t);
    Buffer<> in = random_buffer(UInt(8), {120, 90}, 5);
    Var x("x"), y("y"), i("i");
    RDom r(0, 90, "r");
    Func column("column"), hist("hist"), out("out");
    column(x) = 0;
    column(x) += cast<int>(Func(in)(x, r));
    RDom all(0, 120, 0, 90, "all");
    hist(i) = 0;
    hist(cast<int>(Func(in)(all.x, all.y))) += 1;
    out(x, y) = column(x) * 2 + hist(cast<int>(Func(in)(x, y))) - cast<int>(Func(in)(x, y));
    out.set_estimates({{0, 120}, {0, 90}});
    std::string source = auto_schedule(out, t);
    EXPECT_CONTAINS(source, "column.update(0).split(x, xo, xi, ");
    EXPECT_CONTAINS(source, ".reorder(r_x, xi, xo).gpu_threads(xi).gpu_blocks(xo)");
    EXPECT_EQ(source.find("hist.update(0)"), std::string::npos) << source;
    EXPECT_TRUE(matches_reference(out, out.realize({120, 90}, t)));
}

TEST(AutoScheduleErrors, OutputWithoutEstimate) {
    Var x("x"), y("y");
    Func f("blurry");
    f(x, y) = x + y;
    f.set_estimate(x, 0, 10);
    std::string m = message_of([&] { Pipeline(f).auto_schedule(Target::host()); });
    EXPECT_CONTAINS(m, "\"blurry\" has no estimate of its dimension y");
    EXPECT_CONTAINS(m, "blurry.set_estimate(y, 0, 1024)");
}

TEST(AutoScheduleErrors, RDomOverAParamWithoutValue) {
    Param<int> n("count");
    Var x("x");
    RDom r(0, n, "r");
    Func f("total");
    f(x) = 0;
    f(x) += r + x;
    f.set_estimate(x, 0, 10);
    std::string m = message_of([&] { Pipeline(f).auto_schedule(Target::host()); });
    EXPECT_CONTAINS(m, "\"count\"");
    EXPECT_CONTAINS(m, "set_estimate");
}

TEST(AutoScheduleErrors, UnboundedLookUp) {
    Buffer<> in = random_buffer(Int(32), {10}, 11);
    Var x("x");
    Func table("table"), f("f");
    table(x) = x * x;
    f(x) = table(Func(in)(x));
    f.set_estimate(x, 0, 10);
    std::string m = message_of([&] { Pipeline(f).auto_schedule(Target::host()); });
    EXPECT_CONTAINS(m, "\"f\" reads \"table\" at coordinates that cannot be bounded");
    EXPECT_CONTAINS(m, "table.set_estimate(x, min, extent)");
}

TEST(AutoScheduleErrors, BadNamesAndTargets) {
    Var x("x");
    Func f("f");
    f(x) = x;
    f.set_estimate(x, 0, 10);
    EXPECT_CONTAINS(message_of([&] { Pipeline(f).auto_schedule("Ansor", Target::host()); }),
                    "there is no autoscheduler \"Ansor\"");
    EXPECT_CONTAINS(message_of([&] { MachineParams("8,lots,40"); }), "cannot read \"8,lots,40\"");
    EXPECT_CONTAINS(message_of([&] { f.set_estimate(Var("z"), 0, 4); }),
                    "set_estimate() of \"z\", which is not one of its pure Vars");
    EXPECT_CONTAINS(message_of([&] { Pipeline(f).get_func("g"); }), "its Funcs are f");
}

TEST(MachineParams, StringRoundTrip) {
    MachineParams p("8,33554432,20");
    EXPECT_EQ(p.parallelism, 8);
    EXPECT_EQ(p.last_level_cache_size, 33554432u);
    EXPECT_EQ(p.balance, 20.0f);
    EXPECT_EQ(MachineParams(p.to_string()).to_string(), p.to_string());
    EXPECT_GE(MachineParams::host().parallelism, 1);
}

// The schedule source applied to a new copy of the algorithm gives the same loop nest.
// The cost model's constants: written and read back as text, errors naming the file and the
// line, the file that DSL_MACHINE_FILE names read by MachineCosts::host(), and measured
// numbers that are all positive.
TEST(MachineCosts, FileRoundTripAndErrors) {
    dsl::test::TempDirectory dir;
    MachineCosts c;
    c.threads = 3;
    c.vector_op_ns = 0.5;
    c.dram_bytes_per_ns = 7.25;
    c.llc_bytes = 12345678;
    const std::string path = dir.path() + "/a/b/machine.txt";
    c.save(path);
    MachineCosts back = MachineCosts::load(path);
    EXPECT_EQ(back.to_string(), c.to_string());
    EXPECT_EQ(back.source, path);
    {
        dsl::test::ScopedEnvironmentVariable env("DSL_MACHINE_FILE", path);
        EXPECT_EQ(MachineCosts::default_path(), path);
        EXPECT_EQ(MachineCosts::host().to_string(), c.to_string());
    }
    {
        // No file there: the defaults.
        dsl::test::ScopedEnvironmentVariable env("DSL_MACHINE_FILE", dir.path() + "/none.txt");
        EXPECT_EQ(MachineCosts::host().source, "defaults");
    }
    const std::string bad = dir.path() + "/bad.txt";
    dsl::test::write_file(bad, "# comment\nthreads=2\nvector_op_ns=fast\n");
    std::string m = message_of([&] { MachineCosts::load(bad); });
    EXPECT_CONTAINS(m, bad + ", line 3");
    EXPECT_CONTAINS(m, "\"vector_op_ns\" is \"fast\"");
    EXPECT_CONTAINS(m, "dsl-calibrate");
    dsl::test::write_file(bad, "threads=2\nwarp_size=32\n");
    EXPECT_CONTAINS(message_of([&] { MachineCosts::load(bad); }), "unknown name \"warp_size\"");
    dsl::test::write_file(bad, "dram_bytes_per_ns=0\n");
    EXPECT_CONTAINS(message_of([&] { MachineCosts::load(bad); }), "bandwidth of 0");
    EXPECT_CONTAINS(message_of([&] { MachineCosts::load(dir.path() + "/missing.txt"); }),
                    "cannot read the machine file");
}

TEST(MachineCosts, MeasuredNumbersArePositive) {
    MachineCosts c = MachineCosts::measure();
    EXPECT_EQ(c.source, "measured");
    EXPECT_GE(c.threads, 1);
    for (double v : {c.vector_op_ns, c.l1_bytes_per_ns, c.l2_bytes_per_ns, c.llc_bytes_per_ns,
                     c.dram_bytes_per_ns, c.dram_parallel_bytes_per_ns}) {
        EXPECT_GT(v, 0);
        EXPECT_TRUE(std::isfinite(v));
    }
    EXPECT_GE(c.parallel_loop_ns, 0);
    EXPECT_GT(c.balance(8), 0);
}

// The estimate is a time: with memory free and parallel loops free, it is the vector operations
// and loads at MachineCosts' rates, so it doubles when an operation costs twice as much (and
// the baseline, scalar and serial, costs more than the schedule).
TEST(MachineCosts, EstimatedCostIsTheModelledTime) {
    dsl::test::TempDirectory dir;
    auto estimate = [&](double op_ns) {
        MachineCosts c;
        c.vector_op_ns = op_ns;
        c.l1_bytes_per_ns = c.l2_bytes_per_ns = c.llc_bytes_per_ns = c.dram_bytes_per_ns =
            c.dram_parallel_bytes_per_ns = 1e30;
        c.parallel_loop_ns = 0;
        const std::string path = dir.path() + "/m" + std::to_string(op_ns) + ".txt";
        c.save(path);
        dsl::test::ScopedEnvironmentVariable env("DSL_MACHINE_FILE", path);
        Buffer<> in = random_buffer(Float(32), {512, 256}, 11);
        Var x("x"), y("y");
        Func out("out");
        out(x, y) = Func(in)(x, y) * 3.0f + 1.0f;
        out.set_estimate(x, 0, 512).set_estimate(y, 0, 256);
        return Pipeline(out).auto_schedule(Target::host(), MachineParams(2, 8u << 20, 40));
    };
    AutoSchedulerResults one = estimate(0.25), two = estimate(0.5);
    EXPECT_GT(one.estimated_cost, 0);
    EXPECT_NEAR(two.estimated_cost, 2 * one.estimated_cost, 1e-9 * one.estimated_cost);
    EXPECT_GT(one.baseline_cost, one.estimated_cost);
}

TEST(ApplyScheduleSource, RoundTrip) {
    Buffer<> in = random_buffer(UInt(8), {300, 200}, 12);
    auto build = [&](Func &out) {
        ImageParam input(UInt(8), 2, "input");
        input.set(in);
        Var x("x"), y("y"), i("i");
        RDom r(0, 300, 0, 200, "r");
        Func clamped = BoundaryConditions::repeat_edge(input);
        Func hist("hist"), blur("blur"), table("table");
        hist(i) = 0;
        hist(cast<int>(input(r.x, r.y))) += 1;
        table(i) = cast<uint8_t>(hist(i) % 251);
        blur(x, y) = cast<uint16_t>(clamped(x - 1, y)) + clamped(x + 1, y) + clamped(x, y - 1) +
                     clamped(x, y + 1);
        out = Func("out");
        out(x, y) = table(clamped(x, y)) + cast<uint8_t>(blur(x, y) / 4 + blur(x + 1, y + 1) / 4);
        out.set_estimate(x, 0, 300).set_estimate(y, 0, 200);
        return Pipeline(out);
    };
    Func first, second;
    Pipeline p1 = build(first);
    std::string source =
        p1.auto_schedule(Target::host(), MachineParams(2, 8u << 20, 40)).schedule_source;
    Pipeline p2 = build(second);
    p2.apply_schedule_source(source);
    EXPECT_EQ(first.loop_nest(), second.loop_nest()) << source;
    EXPECT_TRUE(matches_reference(second, second.realize({300, 200})));
}

TEST(ApplyScheduleSource, WrittenByHand) {
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x * y;
    g(x, y) = f(x, y) + f(x + 1, y);
    Pipeline p(g);
    p.apply_schedule_source(R"(
        // Tiles of 8 x 4, f per tile.
        Func f = pipeline.get_func("f"), g = pipeline.get_func("g");
        Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
        g.tile(x, y, xo, yo, xi, yi, 8, 4).vectorize(xi).parallel(yo);
        f.compute_at(g, xo).store_in(MemoryType::Stack);
    )");
    EXPECT_CONTAINS(g.loop_nest(), "vectorized for g.s0.xi");
    EXPECT_CONTAINS(g.loop_nest(), "parallel for g.s0.yo");
    EXPECT_TRUE(matches_reference(g, g.realize({37, 21})));
}

// atomic() and allow_race_conditions() read back: a sum over an RVar folded as vectors.
TEST(ApplyScheduleSource, AtomicUpdates) {
    Var x("x");
    RDom r(0, 50, "r");
    Func f("atomic_src");
    f(x) = 0;
    f(x) += x * r;
    Pipeline p(f);
    p.apply_schedule_source(R"(
        Func f = pipeline.get_func("atomic_src");
        RVar r("r.x");
        f.update(0).atomic(false).vectorize(r, 8);
    )");
    EXPECT_CONTAINS(f.lowered_stmt(), "vector_reduce");
    EXPECT_TRUE(matches_reference(f, f.realize({10})));
}

TEST(ApplyScheduleSourceErrors, NamesTheLine) {
    Var x("x");
    Func f("f");
    f(x) = x;
    Pipeline p(f);
    EXPECT_CONTAINS(message_of([&] {
                        p.apply_schedule_source(
                            "Func f = pipeline.get_func(\"f\");\nVar x(\"x\");\nf.spin(x);");
                    }),
                    "line 3, at \"spin\": apply_schedule_source does not know the directive spin");
    EXPECT_CONTAINS(
        message_of([&] {
            p.apply_schedule_source("Func f = pipeline.get_func(\"f\");\nf.vectorize(z);");
        }),
        "line 2, at \"z\": no Var or RVar \"z\" is declared above");
    EXPECT_CONTAINS(
        message_of([&] { p.apply_schedule_source("Func h = pipeline.get_func(\"h\");"); }),
        "no Func is named \"h\"");
}

// The tuner's per-Func choices (Knobs::placement, Knobs::group_strip_rows) replace the
// heuristic's where they are possible, and the schedule still computes the same values.
TEST(AutoScheduleKnobs, PerFuncChoicesReplaceTheHeuristics) {
    Buffer<> in = random_buffer(Float(32), {100, 60}, 15);
    ImageParam input(Float(32), 2, "input");
    input.set(in);
    Var x("x"), y("y");
    Func bx("bx"), by("by"), sum("sum"), out("out");
    define_blurs(input, bx, by, x, y);
    RDom r(0, 3, "r");
    sum(x, y) = 0.0f;
    sum(x, y) += by(x, y + r);
    out(x, y) = sum(x, y) * 0.0625f;
    out.set_estimate(x, 0, 100).set_estimate(y, 0, 60);
    auto schedule = [&](const autoschedule::Knobs &k) {
        autoschedule::reset_schedules({out});
        autoschedule::Model model({out}, Target::host());
        autoschedule::ScheduleWriter writer("knobs");
        autoschedule::schedule_pipeline(model, writer, MachineParams(2, 8u << 20, 40), k);
        return writer.source();
    };
    // The heuristic: bx per strip of by (which sum's update reads, so at root), sum in
    // register tiles of the output.
    const std::string plain = schedule({});
    EXPECT_CONTAINS(plain, "bx.compute_at(by, yo)");
    EXPECT_CONTAINS(plain, "sum.compute_at(out, ");
    autoschedule::Knobs k;
    k.placement["bx"] = autoschedule::Placement::Root;
    k.placement["sum"] = autoschedule::Placement::Inline;  // it has an update: not possible
    std::string chosen = schedule(k);
    EXPECT_CONTAINS(chosen, "bx.compute_root()");
    EXPECT_CONTAINS(chosen, "sum.compute_at(out, ");
    EXPECT_CONTAINS(k.to_string(), "bx=root sum=inline");
    EXPECT_TRUE(matches_reference(out, out.realize({100, 60}), 1e-5));
    autoschedule::Knobs rows;
    rows.group_strip_rows["by"] = 8;
    chosen = schedule(rows);
    EXPECT_CONTAINS(chosen, "by.compute_root().vectorize(x, ");
    EXPECT_CONTAINS(chosen, ".split(y, yo, yi, 8)");
    EXPECT_CONTAINS(chosen, "bx.compute_at(by, yo)");
    EXPECT_CONTAINS(rows.to_string(), "by.strip_rows=8");
    EXPECT_TRUE(matches_reference(out, out.realize({100, 60}), 1e-5));
}

// On a GPU the blocks' tile is a knob (Knobs::gpu_tile_x, gpu_tile_y): the heuristic's 32 x 8
// by default, another shape when the tuner asks for one, still within what the region holds.
TEST(AutoScheduleKnobs, GpuBlockTile) {
    const Target t = dsl::test::opencl_target();
    StencilChain chain;
    Func out = chain.out;
    out.set_estimate(chain.x, 0, 256).set_estimate(chain.y, 0, 160);
    auto schedule = [&](const autoschedule::Knobs &k) {
        autoschedule::reset_schedules({out});
        autoschedule::Model model({out}, t);
        autoschedule::ScheduleWriter writer("knobs");
        autoschedule::schedule_pipeline(model, writer, MachineParams(2, 8u << 20, 40), k);
        return writer.source();
    };
    EXPECT_CONTAINS(schedule(autoschedule::Knobs()),
                    "out.split(x, xo, xi, 32, TailStrategy::ShiftInwards)"
                    ".split(y, yo, yi, 8, TailStrategy::ShiftInwards)");
    autoschedule::Knobs k;
    k.gpu_tile_x = 64;
    k.gpu_tile_y = 4;
    EXPECT_CONTAINS(k.to_string(), "gpu_tile=64x4");
    std::string wide = schedule(k);
    EXPECT_CONTAINS(wide,
                    "out.split(x, xo, xi, 64, TailStrategy::ShiftInwards)"
                    ".split(y, yo, yi, 4, TailStrategy::ShiftInwards)");
    // 128 rows would be 8192 threads: the rows are cut to what a block may have (1024).
    k.gpu_tile_y = 128;
    EXPECT_CONTAINS(schedule(k), ".split(y, yo, yi, 16, TailStrategy::ShiftInwards)");
    if (!dsl::test::gpu_unavailable(t).empty()) return;
    Pipeline p(out);
    p.apply_schedule_source(wide);
    EXPECT_TRUE(matches_reference(out, out.realize({203, 157}, t), 1e-5));
}

// The tuner on a GPU target (OpenCL here): it searches the kernels' schedules, blocks' tiles
// included, checks each candidate against the built-in schedule's output, and leaves the
// pipeline with the fastest, which still computes the same values.
TEST(AutoTune, TunesGpuKernels) {
    const Target t = dsl::test::opencl_target();
    DSL_REQUIRE_GPU(t);
    StencilChain chain;
    Func out = chain.out;
    out.set_estimate(chain.x, 0, 256).set_estimate(chain.y, 0, 160);
    chain.input.set(random_buffer(Float(32), {256, 160}, 2));
    dsl::test::TempDirectory dir;
    TuneOptions o;
    o.seconds = 6;
    o.repetitions = 2;
    o.progress = false;
    o.log_file = dir.path() + "/tune.jsonl";
    o.machine = MachineParams(2, 8u << 20, 40);
    Pipeline p(out);
    TuneResults r = p.auto_tune(t, o);
    EXPECT_GE(r.measured, 2);
    EXPECT_LE(r.best_ms, r.heuristic_ms);
    EXPECT_CONTAINS(r.schedule_source, "gpu_blocks(");
    std::ifstream log(o.log_file);
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    EXPECT_CONTAINS(text, "gpu_tile=");
    // Nothing but GPU knobs is drawn: every candidate keeps the CPU-only knobs' defaults
    // (strips, parallelism, rfactor, vectors, register tiles, panels).
    const autoschedule::Knobs defaults;
    const std::vector<std::string> cpu_knobs = {
        "strip_rows=" + std::to_string(defaults.strip_rows) + " ",
        "min_parallel_points=" + std::to_string(defaults.min_parallel_points) + " ",
        "min_rfactor_points=" + std::to_string(defaults.min_rfactor_points) + " ",
        "vector_registers=0 ",
        "tile_vectors=0 ",
        "tile_rows=0 ",
        "tile_columns=1 ",
        "panels=1"};
    std::istringstream lines(text);
    int candidates = 0;
    for (std::string line; std::getline(lines, line); candidates++) {
        for (const std::string &knob : cpu_knobs)
            EXPECT_CONTAINS(line, knob);
    }
    EXPECT_GE(candidates, 3);
    chain.input.set(random_buffer(Float(32), {203, 157}, 1));
    EXPECT_TRUE(matches_reference(out, out.realize({203, 157}, t), 1e-5));
}

// The measured tuner: a few seconds on a small pipeline measure several candidates, log each as
// a line of JSON, keep the fastest (never slower than the built-in schedule, which is measured
// first) and leave the pipeline scheduled with it, computing the same values.
TEST(AutoTune, MeasuresCandidatesAndKeepsTheFastest) {
    Buffer<> in = random_buffer(Float(32), {256, 128}, 13);
    ImageParam input(Float(32), 2, "input");
    input.set(in);
    Var x("x"), y("y");
    Func bx("bx"), by("by"), out("out");
    define_blurs(input, bx, by, x, y);
    out(x, y) = by(x, y) * 0.0625f;
    out.set_estimate(x, 0, 256).set_estimate(y, 0, 128);
    dsl::test::TempDirectory dir;
    TuneOptions o;
    o.seconds = 4;
    o.repetitions = 2;
    o.progress = false;
    o.log_file = dir.path() + "/tune.jsonl";
    o.machine = MachineParams(2, 8u << 20, 40);
    Pipeline p(out);
    TuneResults r = p.auto_tune(Target::host(), o);
    EXPECT_GE(r.measured, 2);
    EXPECT_LE(r.best_ms, r.heuristic_ms);
    EXPECT_GT(r.best_ms, 0);
    EXPECT_CONTAINS(r.schedule_source, "pipeline.get_func(\"out\")");
    EXPECT_CONTAINS(r.best_parameters, "strip_rows=");
    std::ifstream log(o.log_file);
    std::string line;
    int lines = 0;
    while (std::getline(log, line)) {
        EXPECT_EQ(line.front(), '{') << line;
        EXPECT_CONTAINS(line, "\"ms\": ");
        lines++;
    }
    EXPECT_EQ(lines, r.measured + 1);  // the built-in schedule, then every candidate
    EXPECT_TRUE(matches_reference(out, out.realize({256, 128}), 1e-5));
}

// With two jobs, helper processes compile each generation's candidates into the disk cache
// (a fresh one here), and the tuning process loads every one of them from it instead of
// compiling it again; the search still checks and times each. With the user's cache off, they
// hand the code over through a directory of the tuner's own, which is gone afterwards.
TEST(AutoTune, HelperProcessesCompileTheCandidates) {
    Buffer<> in = random_buffer(Float(32), {256, 128}, 15);
    ImageParam input(Float(32), 2, "input");
    input.set(in);
    Var x("x"), y("y");
    Func bx("bx"), by("by"), out("out");
    define_blurs(input, bx, by, x, y);
    out(x, y) = by(x, y) * 0.0625f + 1.0f;
    out.set_estimate(x, 0, 256).set_estimate(y, 0, 128);
    TuneOptions o;
    o.seconds = 4;
    o.repetitions = 2;
    o.progress = false;
    o.jobs = 2;
    o.machine = MachineParams(2, 8u << 20, 40);
    Pipeline p(out);
    {
        dsl::test::TempDirectory dir;
        dsl::test::ScopedEnvironmentVariable cache("DSL_CACHE_DIR", dir.path());
        const lang::JITCounters before = lang::jit_counters();
        TuneResults r = p.auto_tune(Target::host(), o);
        const lang::JITCounters after = lang::jit_counters();
        EXPECT_GE(r.compiled_by_helpers, 2);
        EXPECT_EQ(r.crashed, 0);
        EXPECT_GE(r.measured, r.compiled_by_helpers);
        EXPECT_GE(after.disk_cache_hits - before.disk_cache_hits,
                  static_cast<uint64_t>(r.compiled_by_helpers));
        EXPECT_LE(r.best_ms, r.heuristic_ms);
    }
    EXPECT_TRUE(matches_reference(out, out.realize({256, 128}), 1e-5));
    {
        dsl::test::ScopedEnvironmentVariable cache("DSL_CACHE_DIR", std::string("off"));
        o.seconds = 3;
        const lang::JITCounters before = lang::jit_counters();
        TuneResults r = p.auto_tune(Target::host(), o);
        const lang::JITCounters after = lang::jit_counters();
        EXPECT_GE(r.compiled_by_helpers, 2);
        EXPECT_GE(after.disk_cache_hits - before.disk_cache_hits,
                  static_cast<uint64_t>(r.compiled_by_helpers));
        EXPECT_FALSE(jit::DiskCache::from_environment().has_value());
    }
}

TEST(AutoTune, NoBudgetGivesTheBuiltInSchedule) {
    Buffer<> in = random_buffer(Int(32), {64, 64}, 14);
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = Func(in)(x, y) * Func(in)(x, y + 1) + 3;
    g(x, y) = f(x, y) + f(x + 1, y) + f(x, y + 1);
    g.set_estimate(x, 0, 63).set_estimate(y, 0, 62);
    Pipeline p(g);
    TuneOptions o;
    o.seconds = 0;
    o.progress = false;
    o.machine = MachineParams(2, 8u << 20, 40);
    TuneResults r = p.auto_tune(Target::host(), o);
    std::string built_in = p.auto_schedule(Target::host(), o.machine).schedule_source;
    // The same directives (the headers differ).
    EXPECT_EQ(r.schedule_source.substr(r.schedule_source.find('\n')),
              built_in.substr(built_in.find('\n')));
    EXPECT_EQ(r.best_ms, r.heuristic_ms);
}

}  // namespace
