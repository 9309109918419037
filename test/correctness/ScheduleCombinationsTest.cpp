// Combinations of directives on the pipelines of the scheduling acceptance list (a stencil, a
// reduction, a multi-stage chain, a histogram), on sizes the factors do not divide: every
// schedule must give the reference evaluator's answer.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

/// A pipeline: its Funcs by role, built fresh for each schedule.
struct Pipeline {
    Func out;
    std::vector<Func> stages;  // producers, in the order the schedules refer to them
};
using Builder = std::function<Pipeline()>;
using Schedule = std::function<void(Pipeline &)>;

void check_schedules(const std::string &name, const Builder &build,
                     const std::vector<Schedule> &schedules, const std::vector<int> &size) {
    for (size_t i = 0; i < schedules.size(); i++) {
        Pipeline p = build();
        schedules[i](p);
        Buffer<> out = p.out.realize(size)[0];
        EXPECT_TRUE(matches_reference(p.out, out)) << name << ", schedule " << i << ":\n"
                                                   << p.out.loop_nest();
    }
}

Var x("x"), y("y"), c("c"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), t("t");

TEST(ScheduleCombinations, Stencil) {
    Buffer<> in = random_buffer(UInt(16), {53, 41}, 51);
    Builder build = [&] {
        Func clamped = BoundaryConditions::mirror_interior(in);
        Func bx, by;
        bx(x, y) = (clamped(x - 1, y) + 2 * clamped(x, y) + clamped(x + 1, y)) / 4;
        by(x, y) = (bx(x, y - 1) + 2 * bx(x, y) + bx(x, y + 1)) / 4;
        return Pipeline{by, {bx}};
    };
    std::vector<Schedule> schedules = {
        [](Pipeline &) {},
        [](Pipeline &p) { p.stages[0].compute_root().vectorize(x, 16).parallel(y); },
        [](Pipeline &p) {
            p.out.tile(x, y, xo, yo, xi, yi, 16, 8).vectorize(xi, 8).parallel(yo);
            p.stages[0].compute_at(p.out, xo).vectorize(x, 8);
        },
        [](Pipeline &p) {
            p.out.split(y, yo, yi, 16).parallel(yo).vectorize(x, 16, TailStrategy::ShiftInwards);
            p.stages[0].store_at(p.out, yo).compute_at(p.out, yi).vectorize(x, 16);
        },
        [](Pipeline &p) {
            p.out.fuse(x, y, t).parallel(t, 64).vectorize(t, 4);
            p.stages[0].compute_root().unroll(x, 3).reorder(y, x);
        },
        [](Pipeline &p) {
            p.out.tile(x, y, xo, yo, xi, yi, 32, 32);  // RoundUp would write past the output
            p.stages[0].store_root().compute_at(p.out, yi).vectorize(x, 8, TailStrategy::RoundUp);
        },
    };
    check_schedules("stencil", build, schedules, {53, 41});
}

TEST(ScheduleCombinations, ReductionWithUpdates) {
    Buffer<> in = random_buffer(Int(32), {37, 29}, 52);
    Builder build = [&] {
        Func rows, out;
        RDom r(0, 37, "r");
        rows(y) = 0;
        rows(y) += in(r, y);
        out(x, y) = in(x, y) * 100 + rows(y);
        out(x, y) += x * y;
        return Pipeline{out, {rows}};
    };
    std::vector<Schedule> schedules = {
        [](Pipeline &) {},
        [](Pipeline &p) {
            p.stages[0].compute_root().update(0).vectorize(y, 8).parallel(y);
            p.out.update(0).vectorize(x, 8).parallel(y);
        },
        [](Pipeline &p) {
            p.stages[0].compute_at(p.out, y);
            p.out.update(0).tile(x, y, xo, yo, xi, yi, 8, 4).unroll(xi);
        },
        [](Pipeline &p) {
            Var u("u");
            RVar ro("ro"), ri("ri");
            p.stages[0].compute_root();
            Func partial = p.stages[0].update(0).split(RVar("r.x"), ro, ri, 8).rfactor(ri, u);
            partial.compute_root().vectorize(u, 8);
        },
    };
    check_schedules("reduction", build, schedules, {37, 29});
}

TEST(ScheduleCombinations, MultiStageChain) {
    Buffer<> in = random_buffer(Float(32), {31, 27}, 53);
    Builder build = [&] {
        Func clamped = BoundaryConditions::repeat_edge(in);
        Func a, b, d, e;
        a(x, y) = clamped(x, y) * 0.5f + 1.0f;
        b(x, y) = a(x - 1, y) + a(x + 1, y);
        d(x, y) = sqrt(abs(b(x, y - 1) - b(x, y + 1))) + exp(-a(x, y) * a(x, y));
        e(x, y, c) = select(c == 0, d(x, y), c == 1, d(x, y) * 2.0f, d(x, y) * d(x, y));
        return Pipeline{e, {a, b, d}};
    };
    std::vector<Schedule> schedules = {
        [](Pipeline &) {},
        [](Pipeline &p) {
            for (Func &f : p.stages)
                f.compute_root().vectorize(x, 8);
            p.out.bound(c, 0, 3).reorder(c, x, y).unroll(c).vectorize(x, 4).parallel(y);
        },
        [](Pipeline &p) {
            p.out.reorder(c, x, y).bound(c, 0, 3).unroll(c);
            p.out.tile(x, y, xo, yo, xi, yi, 8, 8).vectorize(xi, 8).parallel(yo);
            p.stages[2].compute_at(p.out, xo).vectorize(x, 8);
            p.stages[1].compute_at(p.stages[2], y);
            p.stages[0].compute_root().parallel(y);  // b and d both read a
        },
        [](Pipeline &p) {
            p.stages[1].store_root().compute_at(p.stages[2], y).vectorize(x, 16);
            p.stages[2].compute_at(p.out, y);
            p.stages[0].compute_root().vectorize(x, 8, TailStrategy::RoundUp);
        },
    };
    for (size_t i = 0; i < schedules.size(); i++) {
        Pipeline p = build();
        schedules[i](p);
        Buffer<> out = p.out.realize({31, 27, 3})[0];
        EXPECT_TRUE(matches_reference(p.out, out, 1e-5)) << "chain, schedule " << i << ":\n"
                                                         << p.out.loop_nest();
    }
}

TEST(ScheduleCombinations, Histogram) {
    Buffer<> in = random_buffer(UInt(8), {61, 43}, 54);
    Builder build = [&] {
        Func hist, cdf;
        RDom r(0, 61, 0, 43, "r");
        hist(x) = 0;
        hist(clamp(cast<int>(in(r.x, r.y)) % 16, 0, 15)) += 1;
        RDom k(0, 16, "k");
        cdf(x) = 0;
        cdf(x) += select(k <= x, hist(k), 0);
        return Pipeline{cdf, {hist}};
    };
    std::vector<Schedule> schedules = {
        [](Pipeline &) {},
        [](Pipeline &p) {
            p.stages[0].compute_root().vectorize(x, 8);
            p.out.vectorize(x, 4).update(0).vectorize(x, 4);
        },
        [](Pipeline &p) {
            p.stages[0].compute_root();
            p.out.update(0).parallel(x).unroll(RVar("k.x"), 4);
        },
        [](Pipeline &p) {
            // The racy scatter kept serial, the pure update of cdf split and reordered.
            p.stages[0].compute_root().update(0).reorder(RVar("r.y"), RVar("r.x"));
            p.out.update(0).split(x, xo, xi, 3).reorder(xi, RVar("k.x"), xo);
        },
    };
    check_schedules("histogram", build, schedules, {16});
}

}  // namespace
}  // namespace dsl
