// Producers computed inside their consumer's loops give the same result as at root.
#include <gtest/gtest.h>

#include <string>

#include "common/ErrorCheck.h"
#include "common/PipelineCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::matches_reference;
using test::random_buffer;

TEST(ComputeAt, BlurWithProducerPerRowAndPerTile) {
    Buffer<> in = random_buffer(UInt(16), {29, 23}, 41);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func blur_x("cblur_x"), blur_y("cblur_y");
    blur_x(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;

    blur_x.compute_at(blur_y, y);  // three rows of blur_x per output row
    Buffer<uint16_t> a = blur_y.realize({29, 23});
    EXPECT_TRUE(matches_reference(blur_y, a));
    std::string nest = blur_y.loop_nest();
    EXPECT_NE(nest.find("for cblur_y.s0.y:\n    produce cblur_x:"), std::string::npos) << nest;

    blur_y.tile(x, y, xo, yo, xi, yi, 8, 4).vectorize(xi, 4);  // tails in both dimensions
    blur_x.compute_at(blur_y, xo).vectorize(x, 4);
    Buffer<uint16_t> b = blur_y.realize({29, 23});
    EXPECT_TRUE(matches_reference(blur_y, b));

    blur_y.parallel(yo);
    Buffer<uint16_t> c(29, 23);
    c.translate(0, 5).translate(1, -3);
    blur_y.realize(c);
    EXPECT_TRUE(matches_reference(blur_y, c));
}

TEST(ComputeAt, ProducerWithUpdatesInsideAnUpdate) {
    Var x("x"), y("y");
    RDom r(0, 5, "r");
    Func sums("csums"), out("cout");
    sums(x, y) = x;
    sums(x, y) += y * r;
    out(x) = 0;
    out(x) += sums(x, r) + sums(x + 1, r);
    sums.compute_at(out, x);
    EXPECT_NO_THROW(out.update(0));
    Buffer<int> b = out.realize({7});
    EXPECT_TRUE(matches_reference(out, b));
}

TEST(ComputeAt, IllegalLocationsListTheLegalOnes) {
    Var x("x"), y("y"), z("z");
    Func g("cg"), f("cf"), h("ch");
    g(x, y) = x + y;
    f(x, y) = g(x, y) * 2;
    g.compute_at(f, z);
    std::string msg = test::message_of([&] { f.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "Func \"cg\" is scheduled compute_at(cf, z), but cf has no loop \"z\"");
    EXPECT_CONTAINS(msg, "Legal locations for cg are: root, cf.y, cf.x");
    // A second consumer makes compute_at impossible.
    h(x, y) = f(x, y) + g(x, y);
    g.compute_at(f, x);
    f.compute_root();
    msg = test::message_of([&] { h.realize({4, 4}); });
    EXPECT_CONTAINS(msg, "but \"ch\" uses it too");
}

// A Func computed at a loop of a Func that reads it only through another Func computed further
// in (a convolution's padded input per strip of rows, read by tiles computed per column).
struct StripsAndTiles {
    Func edge, tile, out;
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    StripsAndTiles(const Buffer<> &in, const std::string &prefix)
        : edge(prefix + "_edge"), tile(prefix + "_tile"), out(prefix + "_out") {
        Func clamped = BoundaryConditions::repeat_edge(in);
        RDom r(-1, 3, -1, 3, prefix + "_r");
        edge(x, y) = clamped(x, y) * 3 + x;
        tile(x, y) = 0;
        tile(x, y) += edge(x + r.x, y + r.y) * (r.x + 2);
        out(x, y) = tile(x, y) + tile(x + 1, y) / 2;
        out.tile(x, y, xo, yo, xi, yi, 8, 4);
        tile.compute_at(out, xo);
    }
};

TEST(ComputeAt, AtALoopOfAConsumerOfItsConsumer) {
    Buffer<> in = random_buffer(Int(32), {45, 22}, 11);
    for (bool sliding : {false, true}) {
        StripsAndTiles p(in, sliding ? "islide" : "istrip");
        if (sliding) {
            p.edge.store_root().compute_at(p.out, p.yo);
        } else {
            p.edge.compute_at(p.out, p.yo);
        }
        Buffer<int> b = p.out.realize({45, 22});
        EXPECT_TRUE(matches_reference(p.out, b));
        // The edge Func is computed per strip, outside the tiles' loop.
        std::string nest = p.out.loop_nest();
        std::string name = sliding ? "islide" : "istrip";
        size_t strip = nest.find("for " + name + "_out.s0.yo"),
               edge = nest.find("produce " + name + "_edge"),
               column = nest.find("for " + name + "_out.s0.xo");
        ASSERT_NE(edge, std::string::npos) << nest;
        EXPECT_LT(strip, edge) << nest;
        EXPECT_LT(edge, column) << nest;
        if (sliding) {
            EXPECT_CONTAINS(nest, "produce islide_edge (sliding window over");
        }
    }
}

TEST(ComputeAt, AtALoopOfAConsumerOfItsConsumerMustHoldEveryReader) {
    Buffer<> in = random_buffer(Int(32), {30, 12}, 12);
    {
        // Inside the loop where the Func that reads it is computed: that Func is outside.
        StripsAndTiles p(in, "iinner");
        p.edge.compute_at(p.out, p.xi);
        std::string msg = test::message_of([&] { p.out.realize({30, 12}); });
        EXPECT_CONTAINS(msg, "but \"iinner_tile\" uses it too");
        EXPECT_CONTAINS(msg, "not inside iinner_out.xi");
    }
    {
        // A specialization that puts the readers' loop outside it.
        StripsAndTiles p(in, "ispec");
        Param<int> flag("ispec_flag");
        p.out.specialize(flag > 0).reorder(p.xi, p.yi, p.yo, p.xo);
        p.edge.compute_at(p.out, p.yo);
        flag.set(1);
        std::string msg = test::message_of([&] { p.out.realize({30, 12}); });
        EXPECT_CONTAINS(msg, "but \"ispec_tile\" uses it too");
        EXPECT_CONTAINS(msg, "in a specialization of ispec_out");
    }
    {
        // A reader whose split rounds up reads past what would be computed for it.
        StripsAndTiles p(in, "iround");
        Var xt("xt"), xu("xu");
        p.tile.update().split(p.x, xt, xu, 4, TailStrategy::RoundUp);
        p.edge.compute_at(p.out, p.yo);
        std::string msg = test::message_of([&] { p.out.realize({30, 12}); });
        EXPECT_CONTAINS(msg, "rounds up");
    }
}

TEST(ComputeAt, EachStageThatUsesTheProducerComputesItInItsOwnLoop) {
    // consumer(x) = 170 - producer(x); consumer(x) += producer(x) / 2: the producer is computed
    // at x in both stages, as Halide's lesson 9 shows with a C loop.
    Var x("x");
    Func producer("producer"), consumer("consumer");
    producer(x) = x * 17;
    consumer(x) = 170 - producer(x);
    consumer(x) += producer(x) / 2;
    producer.compute_at(consumer, x);
    std::string nest = consumer.loop_nest();
    size_t first = nest.find("produce producer");
    ASSERT_NE(first, std::string::npos) << nest;
    EXPECT_NE(nest.find("produce producer", first + 1), std::string::npos) << nest;
    Buffer<int> out = consumer.realize({10});
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(out(i), 170 - 17 * i + 17 * i / 2);
}

TEST(ComputeAt, StagesWithDifferentLoopsAndAReductionLoop) {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = (x * y) / 10 + 8;
    consumer(x, y) = x + y;
    consumer(x, 0) += producer(x, x);
    consumer(0, y) += producer(y, 9 - y);
    producer.compute_at(consumer, x);  // update 1 loops over y only
    std::string message = test::message_of([&] { consumer.realize({10, 10}); });
    EXPECT_CONTAINS(message, "update 1 of consumer, which uses it too, has no loop \"x\"");

    // A reduction loop: the producer is computed per r, inside x.
    RDom r(0, 5);
    Func p("p"), c("c");
    p(x) = x % 8;
    c(x) = x + 10 + p(x);
    c(x) += r + p(x + r);
    p.compute_at(c, x);
    Buffer<int> out = c.realize({10});
    for (int i = 0; i < 10; i++) {
        int expected = i + 10 + i % 8;
        for (int k = 0; k < 5; k++)
            expected += k + (i + k) % 8;
        EXPECT_EQ(out(i), expected);
    }
}

TEST(ComputeAt, OutermostLoopOfAConsumerFollowsTheConsumer) {
    // blurx at the outermost loop of blury: computed once per production of blury, wherever
    // blury is computed (here per tile of the output, in parallel).
    Var x("x"), y("y"), xi("xi"), yi("yi"), t("t");
    Func in("in"), blurx("blurx"), blury("blury"), out("out");
    in(x, y) = x + 2 * y;
    blurx(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
    blury(x, y) = (blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 9;
    out(x, y) = blury(x, y) * 2;
    blurx.compute_at(blury, Var::outermost());
    out.tile(x, y, xi, yi, 16, 16).fuse(x, y, t).parallel(t);
    blury.compute_at(out, t);
    std::string nest = out.loop_nest();
    size_t produce_y = nest.find("produce blury");
    size_t produce_x = nest.find("produce blurx");
    size_t blury_loop = nest.find("for blury.s0.y");
    ASSERT_NE(produce_x, std::string::npos) << nest;
    EXPECT_LT(produce_y, produce_x) << nest;
    EXPECT_LT(produce_x, blury_loop) << nest;
    Buffer<int> r = out.realize({64, 48});
    for (int j = 0; j < 48; j++) {
        for (int i = 0; i < 64; i++) {
            int sum = 0;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++)
                    sum += (i + dx) + 2 * (j + dy);
            }
            ASSERT_EQ(r(i, j), sum / 9 * 2) << i << ", " << j;
        }
    }
}

// Funcs of no dimensions (a scale and an offset computed from a reduction, as a dynamic
// quantization computes them) computed in each iteration of their consumer's loop: one reads
// the other there, and the consumer reads both.
TEST(ComputeAt, FuncsOfNoDimensionsInAConsumersLoop) {
    Buffer<float> in(6);
    for (int i = 0; i < 6; i++)
        in(i) = float(i + 1);
    Var x("x");
    RDom r(0, 6, "r");
    Func lo("lo"), scale("scale"), offset("offset"), out("out");
    lo() = minimum(in(r.x));
    scale() = lo() * 2;
    offset() = scale() + lo();
    out(x) = in(x) / scale() + offset();
    lo.compute_root();
    scale.compute_at(out, x);
    offset.compute_at(out, x);
    Buffer<float> o = out.realize({6});
    for (int i = 0; i < 6; i++)
        ASSERT_FLOAT_EQ(o(i), float(i + 1) / 2.0f + 3.0f) << i;
}

}  // namespace
}  // namespace dsl
