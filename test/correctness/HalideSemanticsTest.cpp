// What Halide's own correctness tests expect of programs that are valid in Halide: each test
// here is one such expectation, written for dsl and checked against plain C++.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

// An extern stage's function written against Halide's runtime names (dsl_runtime.h).
extern "C" int halide_names_extern_fill(halide_buffer_t *out) {
    if (out->is_bounds_query()) return halide_error_code_success;
    if (out->type != halide_type_of<int32_t>()) return 1;
    const halide_dimension_t &d = out->dim[0];
    for (int x = d.min; x < d.min + d.extent; x++)
        reinterpret_cast<int32_t *>(out->host)[(x - d.min) * d.stride] = x * 7;
    return halide_error_code_success;
}
DSL_EXTERN_STAGE(halide_names_extern_fill);

namespace dsl {
namespace {

// Code written for Halide's runtime compiles and runs: its C names, with Halide's type codes
// (a handle is 3 and a bfloat 4, which tracing handlers and extern stages compare against).
TEST(HalideSemantics, HalideRuntimeNames) {
    static_assert(halide_type_int == 0 && halide_type_uint == 1 && halide_type_float == 2 &&
                      halide_type_handle == 3 && halide_type_bfloat == 4,
                  "Halide's halide_type_code_t values");
    EXPECT_EQ(static_cast<int>(Handle().code()), halide_type_handle);
    EXPECT_EQ(static_cast<int>(BFloat(16).code()), halide_type_bfloat);
    halide_type_t t = halide_type_of<float>();
    EXPECT_EQ(t.code, halide_type_float);
    Func f("halide_names_extern");
    f.define_extern("halide_names_extern_fill", {}, Int(32), 1);
    Buffer<int> out = f.realize({10});
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(out(i), i * 7) << i;
}

// Halide's unique_func_image: two Funcs given one name. Lowering tells Funcs apart by name, so
// a consumer and a producer both called "same" computed the consumer from itself (zeros): now
// an error that names them. Funcs of one name in different pipelines stay fine.
TEST(HalideSemantics, FuncsOfOneNameInOnePipelineAreRefused) {
    Var x("x");
    Func producer("same"), consumer("same");
    producer(x) = x + 1;
    consumer(x) = producer(x) * 2;
    for (bool root : {false, true}) {
        if (root) producer.compute_root();
        EXPECT_CONTAINS(test::message_of([&] { consumer.realize({4}); }),
                        "Func \"same\" calls a Func named \"same\", but the pipeline's output "
                        "\"same\" is another Func of that name. Funcs of one pipeline need "
                        "distinct names");
    }
    Func a("twice_read"), b("twice_read"), out("twice_out");
    a(x) = x;
    b(x) = x * 10;
    out(x) = a(x) + b(x);
    EXPECT_CONTAINS(test::message_of([&] { out.realize({4}); }),
                    "Func \"twice_out\" calls two different Funcs named \"twice_read\"");
    Func left("twice_left"), right("twice_right"), both("twice_both");
    left(x) = a(x) + 1;
    right(x) = b(x) + 2;
    both(x) = left(x) + right(x);
    const std::string msg = test::message_of([&] { both.realize({4}); });
    EXPECT_TRUE(msg.find("Funcs \"twice_left\" and \"twice_right\" call two different Funcs "
                         "named \"twice_read\"") != std::string::npos ||
                msg.find("Funcs \"twice_right\" and \"twice_left\" call two different Funcs "
                         "named \"twice_read\"") != std::string::npos)
        << msg;
    // Copies of one definition may share a name (the NN layer builds such copies).
    Func copy("same_copy"), twin("same_copy"), copies("copies_sum");
    copy(x) = x * 3;
    twin(x) = x * 3;
    copies(x) = copy(x) + twin(x);
    Buffer<int> six = copies.realize({4});
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(six(i), i * 6) << i;
    Buffer<int> alone = producer.realize({4});
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(alone(i), i + 1) << i;
}

// Halide's lots_of_dimensions: pow with an integer constant exponent multiplies in the base's
// own type (a uint64 squared stays a uint64); other exponents are floats.
TEST(HalideSemantics, PowOfAnIntegerConstantKeepsTheType) {
    Var x("x");
    Expr big = cast<uint64_t>(x) + (uint64_t{1} << 33);
    EXPECT_EQ(pow(big, 2).type(), UInt(64));
    EXPECT_EQ(pow(cast<float>(x), 3).type(), Float(32));
    EXPECT_EQ(pow(x, 2.0f).type(), Float(32));
    EXPECT_EQ(pow(cast<int16_t>(x), 0).type(), Int(16));
    Func f("pow_integer_exponents");
    f(x) = {pow(big, 2), pow(cast<float>(x) + 0.5f, 3), pow(cast<float>(x) + 1, -2),
            pow(cast<int>(x) - 2, 5)};
    Realization r = f.realize({6});
    Buffer<uint64_t> squares = r[0];
    Buffer<float> cubes = r[1], inverse_squares = r[2];
    Buffer<int> fifth = r[3];
    for (int i = 0; i < 6; i++) {
        const uint64_t b = static_cast<uint64_t>(i) + (uint64_t{1} << 33);
        EXPECT_EQ(squares(i), b * b) << i;
        const float c = static_cast<float>(i) + 0.5f;
        EXPECT_EQ(cubes(i), c * c * c) << i;
        const float d = static_cast<float>(i) + 1;
        EXPECT_FLOAT_EQ(inverse_squares(i), 1 / (d * d)) << i;
        EXPECT_EQ(fifth(i), (i - 2) * (i - 2) * (i - 2) * (i - 2) * (i - 2)) << i;
    }
}

// Halide's parameter_constraints: a coordinate divided by a Param of unknown sign is bounded
// (by the quotients of the dividend's ends), so the producer's region is known; the Param's
// range is then checked when the pipeline runs.
TEST(HalideSemantics, DivisionByAParamIsBounded) {
    Var x("x"), y("y");
    Param<float> p("bounded_division_p");
    p.set_range(1, 10);
    Buffer<float> input(100, 100);
    for (int j = 0; j < 100; j++) {
        for (int i = 0; i < 100; i++)
            input(i, j) = static_cast<float>(i * 100 + j);
    }
    Func g("bounded_division_g"), f("bounded_division_f");
    g(x, y) = input(x, y) + 1.0f;
    g.compute_root();
    f(x, y) = g(cast<int>(x / p), y);
    p.set(2.0f);
    Buffer<float> out = f.realize({100, 100});
    for (int j : {0, 57, 99}) {
        for (int i : {0, 1, 98, 99})
            EXPECT_EQ(out(i, j), input(i / 2, j) + 1.0f) << i << ", " << j;
    }
    p.set(0.0f);
    EXPECT_CONTAINS(test::message_of<RuntimeError>([&] {
                        f.realize({100, 100});
                    }),
                    "Param \"bounded_division_p\" is 0, below its minimum 1");

    // An integer divisor of any sign, zero included (x / 0 is 0).
    Param<int> q("bounded_division_q");
    Func h("bounded_division_h"), k("bounded_division_k");
    h(x) = x * 2 + 1;
    h.compute_root();
    k(x) = h(x / q);
    for (int divisor : {7, -3, 0}) {
        q.set(divisor);
        Buffer<int> result = k.realize({50});
        for (int i = 0; i < 50; i++) {
            // Euclidean division, as dsl's (and Halide's) integer division rounds.
            int quotient = 0;
            if (divisor != 0) {
                quotient = i / divisor;
                if (quotient * divisor > i) quotient += divisor > 0 ? -1 : 1;
            }
            EXPECT_EQ(result(i), quotient * 2 + 1) << i << " / " << divisor;
        }
    }
}

// Halide's partial_realization: realize(sizes) over a region smaller than the pipeline writes
// computes into a larger buffer and returns the region asked for, a crop of it.
TEST(HalideSemantics, RealizeGrowsWhereThePipelineWritesOutside) {
    Var x("x"), y("y"), xi("xi"), yi("yi");
    // A histogram scattered over 199 bins, 100 of them asked for.
    Func im("partial_im"), hist("partial_hist");
    RDom r(0, 100, 0, 100, "partial_r");
    im(x, y) = x + y;
    hist(im(r.x, r.y)) += 1;
    Buffer<int> h = hist.realize({100});
    EXPECT_EQ(h.dim(0).min(), 0);
    EXPECT_EQ(h.dim(0).extent(), 100);
    for (int i = 0; i < 100; i++)
        EXPECT_EQ(h(i), i + 1) << i;
    // Tiles that round up: 30 x 20 is computed as 32 x 24.
    Func f("partial_tiles");
    f(x, y) = x + y;
    f.tile(x, y, xi, yi, 16, 8, TailStrategy::RoundUp);
    Buffer<int> buf = f.realize({30, 20});
    EXPECT_EQ(buf.dim(0).extent(), 30);
    EXPECT_EQ(buf.dim(1).extent(), 20);
    EXPECT_EQ(buf.dim(0).stride(), 1);
    EXPECT_EQ(buf.dim(1).stride(), 32);
    for (int j = 0; j < 20; j++) {
        for (int i = 0; i < 30; i++)
            EXPECT_EQ(buf(i, j), i + j) << i << ", " << j;
    }
    // A buffer the caller gives is not replaced: too small is an error that says why.
    Buffer<int> small(30, 20);
    EXPECT_CONTAINS(test::message_of<RuntimeError>([&] { f.realize(small); }), "partial_tiles");
}

std::vector<size_t> stack_test_mallocs;

void *counting_malloc(JITUserContext *, size_t bytes) {
    stack_test_mallocs.push_back(bytes);
    return std::malloc(bytes);
}

void counting_free(JITUserContext *, void *pointer) {
    std::free(pointer);
}

// Halide's pseudostack_shares_slots: Funcs stored on the stack whose size is known only at run
// time. Small regions are on the stack; large ones (a chain of 19 Funcs over tiles of 20000
// bytes, or of 2 MB: 38 MB at once, which overflowed the stack) take heap slots that every
// tile reuses, not one malloc per tile; and each Func is dead once the next one is computed
// (a Free after its last use), so its slot serves the one after next: two slots for the
// chain, not one per Func.
TEST(HalideSemantics, RunTimeSizedStackAllocationsUseSlots) {
    Var x("x"), xo("xo"), xi("xi");
    std::vector<Func> chain{Func("stack_chain_0")};
    chain[0](x) = cast<uint8_t>(x);
    for (int i = 1; i < 20; i++) {
        chain.emplace_back("stack_chain_" + std::to_string(i));
        chain[i](x) = chain[i - 1](x - 1) + chain[i - 1](x + 1);
    }
    Func &out = chain.back();
    Param<int> tile("stack_chain_tile");
    out.split(x, xo, xi, tile);
    for (int i = 0; i < 19; i++)
        chain[i].compute_at(out, xo).store_in(MemoryType::Stack);
    out.jit_handlers().custom_malloc = counting_malloc;
    out.jit_handlers().custom_free = counting_free;
    for (int size : {64, 20000, 1 << 21}) {
        stack_test_mallocs.clear();
        tile.set(size);
        const int tiles = size < 20000 ? 8 : 2;
        Buffer<uint8_t> result = out.realize({size * tiles});
        // Each output is a sum of binomially weighted inputs: 2^19 x modulo 256 over shifted x.
        for (int i : {0, 1, size - 1, size * tiles - 1}) {
            uint32_t want = 0, weight = 1;  // C(19, k) computed row by row
            for (int k = 0; k <= 19; k++) {
                want += weight * static_cast<uint8_t>(i - 19 + 2 * k);
                weight = weight * static_cast<uint32_t>(19 - k) / static_cast<uint32_t>(k + 1);
            }
            EXPECT_EQ(result(i), static_cast<uint8_t>(want)) << "tile " << size << " at " << i;
        }
        if (size <= 64) {
            EXPECT_TRUE(stack_test_mallocs.empty()) << size;
        } else {
            EXPECT_EQ(stack_test_mallocs.size(), 2u) << size;
        }
    }
}

// Halide's stack_allocations: g computed per tile of h, and f, which g reads, at the same loop.
// g's region per tile is a constant (the tile and its margin); f's, asked for g's region
// clamped into the image and a margin more, is not, but it is never more than 8 x 7: both live
// on the stack, with no malloc per tile. The partial tiles at the right and bottom edges (10 is
// no multiple of 4 or 3) take smaller regions of the same storage.
TEST(HalideSemantics, ProducersOfAProducerInATileLiveOnTheStack) {
    Func f("stack_tile_f"), g("stack_tile_g"), h("stack_tile_h");
    Var x("x"), y("y"), xi("xi"), yi("yi");
    f(x, y) = x + y;
    g(x, y) = f(x - 1, y + 1) * f(x + 1, y - 1);
    h(x, y) = g(x + 1, y + 1) + g(x - 1, y - 1);
    f.compute_at(h, x);
    g.compute_at(h, x);
    h.tile(x, y, xi, yi, 4, 3).vectorize(xi);
    h.jit_handlers().custom_malloc = counting_malloc;
    h.jit_handlers().custom_free = counting_free;
    stack_test_mallocs.clear();
    Buffer<int> out = h.realize({10, 10});
    EXPECT_TRUE(stack_test_mallocs.empty()) << stack_test_mallocs.size() << " mallocs";
    auto fv = [](int i, int j) { return i + j; };
    auto gv = [&](int i, int j) { return fv(i - 1, j + 1) * fv(i + 1, j - 1); };
    for (int j = 0; j < 10; j++) {
        for (int i = 0; i < 10; i++)
            ASSERT_EQ(out(i, j), gv(i + 1, j + 1) + gv(i - 1, j - 1)) << i << ", " << j;
    }
}

// A Func computed at root over a region whose size has a small constant bound (x % 1000 of
// any output) lives on the stack in storage of that bound, as Halide places it; store_in(Heap)
// still allocates it on the heap (Halide's store_in test).
TEST(HalideSemantics, RootRegionsOfASmallConstantBoundLiveOnTheStack) {
    for (MemoryType where : {MemoryType::Auto, MemoryType::Heap}) {
        Func f("stack_root_f"), g("stack_root_g");
        Var x("x");
        f(x) = x * 7;
        f.compute_root().store_in(where);
        g(x) = f(x % 1000) + f(0);
        g.jit_handlers().custom_malloc = counting_malloc;
        g.jit_handlers().custom_free = counting_free;
        for (int width : {10, 1024}) {
            stack_test_mallocs.clear();
            Buffer<int> out = g.realize({width});
            EXPECT_EQ(stack_test_mallocs.size(), where == MemoryType::Heap ? 1u : 0u) << width;
            for (int i = 0; i < width; i++)
                ASSERT_EQ(out(i), (i % 1000) * 7) << i;
        }
    }
}

/// `v` with the lowest bit of its mantissa cleared.
template <typename T, typename Bits>
T cleared(T v) {
    Bits b;
    std::memcpy(&b, &v, sizeof b);
    b &= ~Bits(1);
    std::memcpy(&v, &b, sizeof b);
    return v;
}

TEST(HalideSemantics, FuzzFloatStoresClearsTheLowestMantissaBit) {
    const Target fuzzed = get_jit_target_from_environment().with_feature(Target::FuzzFloatStores);
    EXPECT_NE(fuzzed.to_string().find("fuzz_float_stores"), std::string::npos);
    Var x("x");
    {
        // Values of few significant bits are stored as they are.
        Func f("fuzz_few_bits");
        f(x) = (x - 42.5f) / 16.0f;
        f.vectorize(x, 8);
        Buffer<float> plain = f.realize({100}), fuzz = f.realize({100}, fuzzed);
        for (int i = 0; i < 100; i++)
            EXPECT_EQ(fuzz(i), plain(i)) << i;
    }
    {
        // Every store rounds: the producer's (on the stack, vectorized) and the output's.
        Func g("fuzz_producer"), h("fuzz_consumer");
        g(x) = sqrt(cast<float>(x) + 0.3333f) / 17.0f;
        h(x) = g(x) * 3.0f + cast<double>(g(x + 1));
        g.compute_root().vectorize(x, 8);
        Buffer<double> out = h.realize({200}, fuzzed);
        int changed = 0;
        for (int i = 0; i < 200; i++) {
            auto gv = [](int j) {
                return cleared<float, uint32_t>(std::sqrt(float(j) + 0.3333f) / 17.0f);
            };
            const float g0 = gv(i);
            const double want = cleared<double, uint64_t>(double(g0 * 3.0f) + double(gv(i + 1)));
            EXPECT_EQ(out(i), want) << i;
            changed += gv(i) != std::sqrt(float(i) + 0.3333f) / 17.0f;
        }
        // About half of the producer's values used their last bit.
        EXPECT_GT(changed, 50);
        EXPECT_LT(changed, 150);
    }
}

}  // namespace
}  // namespace dsl
