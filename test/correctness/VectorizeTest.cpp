// Vectorized loops compute what the reference evaluator computes, tails included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <vector>

#include "common/GuardPage.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

TEST(Vectorize, PointwiseEveryTypeWithTails) {
    Var x("x"), y("y");
    for (Type t : {Int(8), Int(16), Int(32), Int(64), UInt(8), UInt(16), UInt(32), Float(32),
                   Float(64), Float(16)}) {
        Func f("vec_" + t.to_string());
        Expr e = cast(t, x * 37 - y * 11 + 5);
        f(x, y) = select(e > cast(t, 20), e / cast(t, 3), e * cast(t, 2)) + cast(t, x % 5);
        f.vectorize(x, 8);
        Realization r = f.realize({21, 3});  // 21 = 2 * 8 + 5: a masked tail
        EXPECT_TRUE(matches_reference(f, r)) << t;
        std::string stmt = f.lowered_stmt();
        EXPECT_NE(stmt.find("ramp("), std::string::npos) << stmt;
    }
}

TEST(Vectorize, StencilWithBoundaryCondition) {
    Buffer<> in = random_buffer(UInt(16), {37, 9}, 21);
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func blur_x("vblur_x"), blur_y("vblur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
    blur_x.compute_root().vectorize(x, 16);
    blur_y.vectorize(x, 8);
    Buffer<uint16_t> out = blur_y.realize({37, 9});
    EXPECT_TRUE(matches_reference(blur_y, out));
}

TEST(Vectorize, StridedAndGatheredAccesses) {
    Buffer<> in = random_buffer(Float(32), {64}, 22);
    Var x("x");
    Func f("strided");
    Func input(in);
    f(x) = input(x * 2) + input(63 - x) + input(clamp(cast<int>(input(x) * 4.0f) + 32, 0, 63));
    f.vectorize(x, 8);
    Buffer<float> out = f.realize({32});
    EXPECT_TRUE(matches_reference(f, out));
}

// A vector's tail gathers from a table of 8- and 16-bit lanes with a mask, and the lanes that are
// off index past the table's end. They must read nothing there (x86 has no gather of narrow
// lanes; code generation points them at a lane that is on): results against the reference for
// tails of every length, on the host and on AVX2, from tables that end just before a page that
// faults when read.
TEST(Vectorize, MaskedGathersOfNarrowLanes) {
    Var x("x");
    for (Type t : {UInt(8), Int(8), UInt(16), Int(16)}) {
        for (int width : {1, 7, 16, 23, 31, 40}) {
            test::GuardedCopy table(random_buffer(t, {width + 10}, 31 + width));
            Func lut(table.buffer());
            Func f("narrow_gather_" + t.to_string());
            f(x) = lut(select(x % 3 == 0, x + 10, x + 9 - x % 2));
            f.vectorize(x, 16);
            std::vector<Target> targets = {Target::host()};
            if (Target::host().has_feature(Target::Feature::AVX2))
                targets.push_back(Target("x86-64-linux-avx2-fma"));
            for (const Target &target : targets) {
                Buffer<> out = f.realize({width}, target);
                EXPECT_TRUE(matches_reference(f, out))
                    << t << " width " << width << " " << target.to_string();
            }
            if (width == 23) {
                std::string ir = test::llvm_ir_of(f, Target::host());
                EXPECT_NE(ir.find(".gathered"), std::string::npos) << ir;
            }
        }
    }
}

// Strides 2, 3, 4, -1, -2 and -4 of every element type, each reaching the first or last
// element of an input that holds exactly what is read (so that a load spanning more would read
// past it; valgrind and the sanitizer build see that), with a tail.
TEST(Vectorize, SmallConstantStridesEveryTypeAtBufferEdges) {
    for (Type t : {UInt(8), Int(16), Int(32), Float(32), Float(64)}) {
        for (int stride : {2, 3, 4, -1, -2, -4}) {
            const int lanes = 16, n = 37;  // two vectors and a tail
            const int step = stride > 0 ? stride : -stride;
            const int size = (n - 1) * step + 1;
            Buffer<> in = random_buffer(t, {size}, 100 + step);
            Var x("x");
            Func input(in);
            Func f("stride_" + std::to_string(stride > 0 ? stride : 10 - stride) + "_" +
                   std::to_string(t.bits()) + (t.is_float() ? "f" : "i"));
            Expr at = stride > 0 ? x * stride : (n - 1 - x) * step;
            f(x) = input(at) + input(clamp(at + 1, 0, size - 1));
            f.vectorize(x, lanes);
            Buffer<> out = f.realize({n});
            EXPECT_TRUE(matches_reference(f, out)) << t << ", stride " << stride;
        }
    }
}

// Upsampling reads: x / k (plus offsets) for k = 2, 3, 4, from an input and from a computed
// Func, with outputs starting at every phase, so that the lanes' first element varies.
TEST(Vectorize, DividedRampLoadsEveryPhase) {
    Buffer<> in = random_buffer(Int(16), {40}, 7);
    Var x("x");
    Func input(in);
    Func g("div_ramp_g"), f("div_ramp_f");
    g(x) = input(clamp(x, 0, 39)) * 3;
    f(x) = input(x / 2) + input(x / 3 + 1) + input((x + 5) / 4 - 1) + g(x / 2 - 2);
    g.compute_root().vectorize(x, 8);
    f.vectorize(x, 16);
    for (int min = 0; min < 4; min++) {
        Buffer<> out(Int(16), {60});
        out.translate(0, min);
        f.realize(out);
        EXPECT_TRUE(matches_reference(f, out)) << "output starting at " << min;
    }
}

// An upsampling's other tap, f(x / 2 - 1 + 2 * (x % 2)), and its kin x / k + c * (x % k) + d for
// k = 2, 3, 4: one dense load and a shuffle per phase, not a gather. Each table holds exactly what
// bounds inference asks for, next to a page that faults, at either end, with outputs starting at
// every phase and a tail.
TEST(Vectorize, DividedRampWithRemainderLoadsEveryPhase) {
    struct Case {
        int k, c;
    };
    for (Case cs : {Case{2, 2}, Case{2, -1}, Case{3, 1}, Case{3, -2}, Case{4, 3}}) {
        for (int min = 0; min < cs.k; min++) {
            const int n = 37;
            auto floor_div = [&](int v) { return v >= 0 ? v / cs.k : -((-v + cs.k - 1) / cs.k); };
            // What bounds inference asks of the table: x % k taken as anything in [0, k).
            const int lo = floor_div(min) + std::min(0, cs.c * (cs.k - 1));
            const int hi = floor_div(min + n - 1) + std::max(0, cs.c * (cs.k - 1));
            for (bool at_start : {false, true}) {
                test::GuardedCopy table(random_buffer(Float(32), {hi - lo + 1}, 40 + min),
                                        at_start);
                Func lut(table.buffer());
                Var x("x");
                Func f("rem_ramp_" + std::to_string(cs.k) + "_" + std::to_string(cs.c + 4));
                f(x) = lut(x / cs.k + cs.c * (x % cs.k) - lo) * 2.0f;
                f.vectorize(x, 16);
                Buffer<> out(Float(32), {n});
                out.translate(0, min);
                f.realize(out);
                EXPECT_TRUE(matches_reference(f, out))
                    << "k " << cs.k << ", c " << cs.c << ", output starting at " << min;
                if (cs.k == 2 && cs.c == 2 && min == 0 && !at_start) {
                    // Lanes read 10 elements: a dense load of 10, masked per phase.
                    std::string stmt = f.lowered_stmt();
                    EXPECT_NE(stmt.find(", 1, 10)] if "), std::string::npos) << stmt;
                }
            }
        }
    }
}

// A stencil's taps along the vectorized x, f(x + s) for constant shifts s, share two loads (the
// lowest and highest shift) and a shuffle of both per shift between, when the shifts span at most
// a vector, the lanes are 32 bits or wider and the target shuffles two vectors in one instruction
// (AVX-512). Each table holds exactly what the taps read, next to a page that faults at either
// end: the two loads read nothing the taps did not. Outputs of two vectors and a tail, against
// the reference, for shifts that do and do not qualify, on the host and on AVX2.
TEST(Vectorize, ShiftedTapsShareTwoLoads) {
    struct Case {
        std::vector<int> shifts;
        bool shared;  // whether the taps of 16 lanes of 32 bits share two loads
    };
    const std::vector<Case> cases = {{{-2, -1, 0, 1, 2}, true}, {{-1, 0, 1}, true},
                                     {{0, 3, 7, 5}, true},      {{-8, 0, 8}, true},
                                     {{-9, 0, 8}, false},       {{0, 1}, false}};
    std::vector<Target> targets = {Target::host()};
    if (Target::host().has_feature(Target::Feature::AVX2))
        targets.push_back(Target("x86-64-linux-avx2-fma"));
    // A shuffle of two loaded vectors (a broadcast shuffles one vector and poison).
    const std::regex two_vector_shuffle(R"(shufflevector <16 x (float|i32|double)> %[^,]+, <16 x)"
                                        R"( (float|i32|double)> %)");
    for (Type t : {Float(32), Int(32), Float(64), UInt(16)}) {
        for (size_t i = 0; i < cases.size(); i++) {
            const Case &cs = cases[i];
            const int lo = *std::min_element(cs.shifts.begin(), cs.shifts.end());
            const int hi = *std::max_element(cs.shifts.begin(), cs.shifts.end());
            const int n = 37;  // two vectors of 16 and a tail
            for (bool at_start : {false, true}) {
                test::GuardedCopy table(random_buffer(t, {n + hi - lo}, 60 + static_cast<int>(i)),
                                        at_start);
                Func lut(table.buffer());
                Var x("x");
                Func f("shifted_" + std::to_string(i) + "_" + std::to_string(t.bits()) +
                       (t.is_float() ? "f" : "i"));
                Expr sum = cast(t, 0);
                for (size_t k = 0; k < cs.shifts.size(); k++)
                    sum = sum + lut(x + cs.shifts[k] - lo) * cast(t, static_cast<int>(k) + 1);
                f(x) = sum;
                f.vectorize(x, 16);
                for (const Target &target : targets) {
                    Buffer<> out = f.realize({n}, target);
                    EXPECT_TRUE(matches_reference(f, out))
                        << t << ", case " << i << ", " << target.to_string()
                        << (at_start ? ", table after a guard page" : "");
                    if (at_start) continue;
                    const std::string ir = test::llvm_ir_of(f, target);
                    const bool expected =
                        cs.shared && t.bits() >= 32 && target.has_feature(Target::Feature::AVX512);
                    EXPECT_EQ(std::regex_search(ir, two_vector_shuffle), expected)
                        << t << ", case " << i << ", " << target.to_string();
                }
            }
        }
    }
}

TEST(Vectorize, UpdateStageOverAPureVar) {
    Buffer<> in = random_buffer(Int(32), {19, 6}, 23);
    Func f("vsum");
    Var x("x");
    RDom r(0, 6, "r");
    f(x) = 0;
    f(x) += Func(in)(x, r) * (r + 1);
    f.vectorize(x, 4);
    f.update(0).vectorize(x, 4);
    Buffer<int> out = f.realize({19});
    EXPECT_TRUE(matches_reference(f, out));
}

// A guarded split whose last vector has one lane (17 = 16 + 1): in that tail a Tuple update
// stores one element whose index the simplifier knows, while the values (bound before the
// stores) still name the lane. It runs once, as scalars, quietly (it used to warn that every
// lane would store to the same place), and stays right.
TEST(Vectorize, AGuardedTailOfOneLaneRunsAsScalars) {
    Buffer<> in = random_buffer(Int(32), {16, 6, 2}, 29);
    Func f("one_lane_tail");
    Var x("x"), xo("xo"), xi("xi");
    RDom r(0, 6, "r");
    f(x) = Tuple(x, 2 * x);
    f(x) = Tuple(f(x)[0] * 3 + Func(in)(x % 16, r, x / 16) * (r + 1), f(x)[1] + f(x)[0]);
    f.bound(x, 0, 17);
    f.update(0).split(x, xo, xi, 16, TailStrategy::GuardWithIf).reorder(xi, r, xo).vectorize(xi);
    testing::internal::CaptureStderr();
    Realization out = f.realize({17});
    const std::string warnings = testing::internal::GetCapturedStderr();
    EXPECT_TRUE(matches_reference(f, out));
    EXPECT_EQ(warnings.find("stays scalar"), std::string::npos) << warnings;
}

// A loop that cannot be vectorized runs as scalars with a warning that names it, through
// lowering's warnings (so that code from the disk cache warns again).
TEST(Vectorize, ALoopThatStaysScalarWarnsOnce) {
    Func p("per_lane_producer"), f("stays_scalar");
    Var x("x"), xo("xo"), xi("xi");
    p(x) = x * 2;
    f(x) = p(x) + p(x + 1);
    f.split(x, xo, xi, 4).vectorize(xi);
    p.compute_at(f, xi);
    testing::internal::CaptureStderr();
    Buffer<int> out = f.realize({16});
    const std::string warnings = testing::internal::GetCapturedStderr();
    // Once, though the loop is in both versions of the pipeline (a dense output and another).
    const size_t at = warnings.find("the loop stays_scalar.s0.xi stays scalar, because");
    EXPECT_NE(at, std::string::npos) << warnings;
    EXPECT_EQ(warnings.find("stays scalar", at + 30), std::string::npos) << warnings;
    for (int i = 0; i < 16; i++)
        ASSERT_EQ(out(i), 4 * i + 2) << i;
}

// numpy broadcasting of inputs whose extents are known only at run time: each read of `a` and
// `b` is `select(extent == 1, 0, x)`, a scalar choice that would make every vector load a
// gather. The loop nest is versioned on those conditions (lowering/UnswitchUniformSelects.h):
// where no input broadcasts, dense loads; where one does, the selects. Each input lies next to
// a page that faults, so the dense version may not run on a broadcast input of one column.
TEST(Vectorize, BroadcastSelectsAreUnswitched) {
    ImageParam a(Float(32), 2, "bcast_a"), b(Float(32), 2, "bcast_b");
    Var x("x"), y("y");
    Func f("bcast_f");
    f(x, y) = a(select(a.width() == 1, 0, x), select(a.height() == 1, 0, y)) * 2.0f +
              b(select(b.width() == 1, 0, x), select(b.height() == 1, 0, y));
    f.vectorize(x, 16);
    const std::string stmt = f.lowered_stmt();
    // The version for no broadcast loads `a` as dense vectors.
    EXPECT_NE(stmt.find("bcast_a[ramp("), std::string::npos) << stmt;
    struct Case {
        int aw, ah, bw, bh;
    };
    for (Case c : {Case{37, 5, 37, 5}, Case{37, 5, 1, 5}, Case{1, 5, 37, 5}, Case{37, 5, 37, 1},
                   Case{1, 1, 37, 5}}) {
        for (bool at_start : {false, true}) {
            test::GuardedCopy ga(random_buffer(Float(32), {c.aw, c.ah}, 3), at_start);
            test::GuardedCopy gb(random_buffer(Float(32), {c.bw, c.bh}, 4), at_start);
            a.set(ga.buffer());
            b.set(gb.buffer());
            Buffer<float> out(37, 5);
            f.realize(out);
            const Buffer<float> av(ga.buffer()), bv(gb.buffer());
            int wrong = 0;
            for (int j = 0; j < 5; j++) {
                for (int i = 0; i < 37; i++) {
                    float want = av(c.aw == 1 ? 0 : i, c.ah == 1 ? 0 : j) * 2.0f +
                                 bv(c.bw == 1 ? 0 : i, c.bh == 1 ? 0 : j);
                    wrong += out(i, j) != want;
                }
            }
            EXPECT_EQ(wrong, 0) << "a " << c.aw << "x" << c.ah << ", b " << c.bw << "x" << c.bh;
        }
    }
}

// A concatenation of three inputs along y: each vector of a row is
// `select(y < 3, a[ramp], select(y < 5, b[ramp], c[ramp]))`, a scalar choice between loads, which
// would load every input for each vector stored. The row's loop is versioned on those conditions
// (lowering/UnswitchUniformSelects.h): each version loads the one input it stores.
TEST(Vectorize, ConcatenationSelectsBetweenLoadsAreUnswitched) {
    ImageParam a(Float(32), 2, "cat_a"), b(Float(32), 2, "cat_b"), c(Float(32), 2, "cat_c");
    Var x("x"), y("y");
    Func f("cat_f");
    f(x, y) = select(y < 3, a(x, clamp(y, 0, 2)),
                     select(y < 5, b(x, clamp(y - 3, 0, 1)), c(x, clamp(y - 5, 0, 3))));
    f.vectorize(x, 8, TailStrategy::GuardWithIf).parallel(y);
    // The version for dense inputs (the first, up to the statement's top-level else).
    const std::string stmt = f.lowered_stmt();
    const size_t produce = stmt.find("produce cat_f");
    ASSERT_NE(produce, std::string::npos) << stmt;
    const std::string dense = stmt.substr(produce, stmt.find("\nelse {", produce) - produce);
    EXPECT_NE(dense.find("if ((cat_f.s0.y < 3))"), std::string::npos) << dense;
    EXPECT_EQ(dense.find("select("), std::string::npos) << dense;
    Buffer<float> av = random_buffer(Float(32), {21, 3}, 7),
                  bv = random_buffer(Float(32), {21, 2}, 8),
                  cv = random_buffer(Float(32), {21, 4}, 9);
    a.set(av);
    b.set(bv);
    c.set(cv);
    Buffer<float> out = f.realize({21, 9});
    for (int j = 0; j < 9; j++)
        for (int i = 0; i < 21; i++)
            ASSERT_EQ(out(i, j), j < 3   ? av(i, j)
                                 : j < 5 ? bv(i, j - 3)
                                         : cv(i, j - 5))
                << i << ", " << j;
}

// Vectors whose first lane is aligned read an upsampling's f(x / k) at x16(b) + <0, 0, 1, 1,
// ...> once simplified, and a transposed convolution's interleave of phase planes, f(x / 2, x %
// 2), at x16(b) + <0, 0, 1, ...> + <0, 1, 0, ...> * x16(plane stride): dense loads of the runs
// the lanes read and a shuffle (codegen/PlanarLoads.cpp), not gathers. Inputs next to a page
// that faults at either end; outputs aligned and not, with tails; then the main loop's IR.
TEST(Vectorize, AlignedUpsamplingAndPhaseInterleavesLoadRuns) {
    Var x("x");
    for (int k : {2, 3, 4}) {
        for (bool at_start : {false, true}) {
            test::GuardedCopy table(random_buffer(Float(32), {23}, 50 + k), at_start);
            Func lut(table.buffer());
            Func f("planar_up_" + std::to_string(k));
            f(x) = lut(x / k) * 2.0f;
            f.vectorize(x, 16);
            for (int min : {0, 1}) {
                Buffer<> out(Float(32), {23 * k - min});
                out.translate(0, min);
                f.realize(out);
                EXPECT_TRUE(matches_reference(f, out)) << "k " << k << ", from " << min;
            }
        }
    }
    ImageParam planes(Float(32), 2, "planar_phases");
    Func g("planar_interleave");
    g(x) = planes(x / 2, x % 2) + 1.0f;
    g.vectorize(x, 16);
    for (int w : {37, 40}) {
        for (bool at_start : {false, true}) {
            test::GuardedCopy in(random_buffer(Float(32), {w, 2}, static_cast<uint64_t>(w)),
                                 at_start);
            planes.set(in.buffer());
            Buffer<float> out(2 * w);
            g.realize(out);
            const Buffer<float> p(in.buffer());
            int wrong = 0;
            for (int i = 0; i < 2 * w; i++)
                wrong += out(i) != p(i / 2, i % 2) + 1.0f;
            EXPECT_EQ(wrong, 0) << "planes of " << w;
        }
    }
    // Runs of one element: each plane's lanes all read the same one (x / 16 of an aligned
    // vector).
    Func one("planar_one");
    one(x) = planes(x / 16, x % 2);
    one.vectorize(x, 16);
    test::GuardedCopy ones(random_buffer(Float(32), {5, 2}, 9));
    planes.set(ones.buffer());
    Buffer<float> got(80);
    one.realize(got);
    const Buffer<float> q(ones.buffer());
    int wrong = 0;
    for (int i = 0; i < 80; i++)
        wrong += got(i) != q(i / 16, i % 2);
    EXPECT_EQ(wrong, 0);
    // Dense buffers and whole vectors only: no gather is left.
    ImageParam dense(Float(32), 2, "planar_dense");
    Func h("planar_ir");
    h(x) = dense(x / 2, x % 2);
    dense.dim(0).set_stride(1);
    h.output_buffer().dim(0).set_min(0).set_extent(64).set_stride(1);
    h.vectorize(x, 16);
    const std::string ir = test::llvm_ir_of(h, Target("x86-64-linux-avx512"));
    EXPECT_EQ(test::count_of(ir, "gather"), 0) << ir;
}

TEST(Vectorize, MainLoopIsUnmaskedAndStridedBuffersStillWork) {
    Var x("x"), y("y");
    Func f("vmain");
    f(x, y) = x * 2 + y;
    f.vectorize(x, 8);
    std::string stmt = f.lowered_stmt();
    // The dense version's main loop stores whole vectors without a mask; only the tail has one.
    EXPECT_NE(stmt.find("vmain[ramp(((vmain.s0.x * 8)"), std::string::npos) << stmt;
    // A transposed output (stride 0 is not 1) takes the general version.
    Buffer<int> t = Buffer<int>(7, 19).transposed(0, 1);
    f.realize(t);
    EXPECT_TRUE(matches_reference(f, t));
    Buffer<int> dense(19, 7);
    f.realize(dense);
    EXPECT_TRUE(matches_reference(f, dense));
}

TEST(Vectorize, ErrorsForImpossibleVectorization) {
    Func f("vf");
    Var x("x");
    RDom r(0, 4, "r");
    f(x) = x;
    f(r) += 1;
    Param<int> width("width", 8);
    EXPECT_THROW(f.vectorize(x, width), CompileError);
    Func racy("vracy");
    racy(x) = x;
    racy(0) += r;  // all lanes would add into racy(0)
    racy.update(0).vectorize(r);
    EXPECT_THROW(racy.realize({8}), CompileError);
    f.vectorize(x);  // extent known only at run time
    try {
        f.realize({8});
        FAIL() << "expected a CompileError";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("cannot vectorize the loop vf.s0.x"),
                  std::string::npos)
            << e.what();
    }
}

// A float converted to an integer out of its range (or NaN) gives an unspecified value, but a
// value: a clamp of it holds, so it can index a table safely. Vectorized and scalar.
// A float clamped between constants inside an 8- or 16-bit type's range converts without a second
// clamp (code generation's own, for values out of range); clamps that reach outside the range keep
// it. NaN, infinities, huge values and the ends of each range, against the reference.
TEST(Vectorize, ConversionsOfFloatsClampedIntoTheRange) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> values = {nan,   inf,  -inf,   1e20f,   -1e20f,   254.6f,    255.4f,
                                       -0.7f, 0.5f, 127.9f, -128.6f, 65535.4f, -32768.9f, 3.0f};
    Buffer<float> in(48);
    for (int i = 0; i < 48; i++)
        in(i) = values[static_cast<size_t>(i) % values.size()];
    Var x("x");
    for (Type t : {UInt(8), Int(8), UInt(16), Int(16)}) {
        const double lo = t.is_int() ? -std::ldexp(1.0, t.bits() - 1) : 0.0;
        const double hi =
            t.is_int() ? std::ldexp(1.0, t.bits() - 1) - 1 : std::ldexp(1.0, t.bits()) - 1;
        for (bool inside : {true, false}) {
            float a = static_cast<float>(inside ? lo + 1 : lo - 10),
                  b = static_cast<float>(inside ? hi : hi + 10);
            Func f("clamped_conversion_" + t.to_string() + (inside ? "_in" : "_out"));
            f(x) = cast(t, clamp(in(x)*1.5f, a, b)) + cast(t, max(min(in(x), b), a));
            f.vectorize(x, 16);
            Buffer<> out = f.realize({48});
            EXPECT_TRUE(matches_reference(f, out)) << t << (inside ? " inside" : " outside");
            std::string ir = test::llvm_ir_of(f, Target::host());
            EXPECT_EQ(ir.find("llvm.maxnum") == std::string::npos, inside) << t << "\n" << ir;
        }
    }
}

TEST(Vectorize, ClampedConversionsOfOutOfRangeFloatsStayInRange) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> values = {nan, inf, -inf, 1e20f, -1e20f, 3.7f, -2.5f, 9.0f, 0.5f};
    Buffer<float> in(64);
    for (int i = 0; i < 64; i++)
        in(i) = values[static_cast<size_t>(i) % values.size()];
    Buffer<int32_t> table(10);
    for (int i = 0; i < 10; i++)
        table(i) = 100 + i;
    Var x("x");
    for (int lanes : {1, 16}) {
        Func index("conv_index_" + std::to_string(lanes)),
            looked("conv_looked_" + std::to_string(lanes));
        index(x) = clamp(cast<int32_t>(in(x)), 0, 9);
        looked(x) = table(clamp(cast<int32_t>(in(x)*1e10f), 0, 9)) +
                    cast<int32_t>(clamp(cast<uint32_t>(in(x)), 0u, 9u));
        if (lanes > 1) {
            index.vectorize(x, lanes);
            looked.vectorize(x, lanes);
        }
        Buffer<int32_t> a = index.realize({64}), b = looked.realize({64});
        for (int i = 0; i < 64; i++) {
            EXPECT_GE(a(i), 0) << in(i);
            EXPECT_LE(a(i), 9) << in(i);
            EXPECT_GE(b(i), 100) << in(i);
            EXPECT_LE(b(i), 118) << in(i);
            if (std::isfinite(in(i)) && std::fabs(in(i)) < 100.0f) {
                EXPECT_EQ(a(i), std::clamp(static_cast<int>(in(i)), 0, 9)) << in(i);
            }
        }
    }
}

}  // namespace
}  // namespace dsl
