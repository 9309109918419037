// ParamMap: values of Params and ImageParams for one realize() or infer_input_bounds() call,
// in place of those they were set to (Halide's ParamMap).

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "common/ErrorCheck.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

using test::message_of;

struct Fixture {
    Param<int32_t> offset{"pm_offset", 42};
    Param<float> divisor{"pm_divisor", 1.0f};
    ImageParam image{UInt(8), 2, "pm_image"};
    Var x{"x"}, y{"y"};
    Func f{"pm_f"};
    Buffer<uint8_t> first{10, 10}, second{10, 10};

    Fixture() {
        f(x, y) = image(x, y) + cast<uint8_t>(offset / divisor);
        first.fill([](int i, int j) { return i + 10 * j; });
        second.fill([](int i, int j) { return 10 * i + j; });
        image.set(first);
    }
};

TEST(ParamMap, ValuesForOneCallOnly) {
    Fixture t;
    const Target target = get_jit_target_from_environment();
    ParamMap params;
    params.set(t.offset, 22);
    params.set(t.divisor, 2.0f);
    params.set(t.image, t.second);
    Buffer<uint8_t> mapped = t.f.realize({10, 10}, target, params);
    Buffer<uint8_t> partial = t.f.realize({10, 10}, target, {{t.offset, 12}});
    Buffer<uint8_t> braced = t.f.realize({10, 10}, target, {{t.offset, 16}, {t.image, t.second}});
    Buffer<uint8_t> plain = t.f.realize({10, 10}, target);
    for (int j = 0; j < 10; j++) {
        for (int i = 0; i < 10; i++) {
            ASSERT_EQ(mapped(i, j), 10 * i + j + 11);
            ASSERT_EQ(partial(i, j), i + 10 * j + 12);
            ASSERT_EQ(braced(i, j), 10 * i + j + 16);
            ASSERT_EQ(plain(i, j), i + 10 * j + 42) << "the Params keep their own values";
        }
    }
    EXPECT_EQ(t.offset.get(), 42);
    EXPECT_TRUE(t.image.get().same_as(t.first));

    // The same through a Pipeline, into a given buffer.
    Buffer<uint8_t> out(10, 10);
    Pipeline(t.f).realize(Realization({Buffer<>(out)}), target, {{t.divisor, 0.5f}});
    EXPECT_EQ(out(3, 4), 43 + 84);
}

TEST(ParamMap, BoundsQueriesIntoAGivenBuffer) {
    Fixture t;
    Buffer<uint8_t> needed;
    t.f.infer_input_bounds({20, 30}, get_jit_target_from_environment(), {{t.image, &needed}});
    ASSERT_TRUE(needed.defined());
    EXPECT_EQ(needed.dim(0).extent(), 20);
    EXPECT_EQ(needed.dim(1).extent(), 30);
    EXPECT_EQ(t.image.get().dim(0).extent(), 10) << "the ImageParam keeps its buffer";
}

TEST(ParamMap, ThreadsRealizeOnePipelineWithTheirOwnValues) {
    Fixture t;
    const Target target = get_jit_target_from_environment();
    t.f.compile_jit(target);
    std::vector<int> wrong(4, 0);
    std::vector<std::thread> threads;
    for (int k = 0; k < 4; k++) {
        threads.emplace_back([&, k] {
            for (int run = 0; run < 20; run++) {
                Buffer<uint8_t> out = t.f.realize({10, 10}, target, {{t.offset, 10 * k + run}});
                for (int j = 0; j < 10; j++) {
                    for (int i = 0; i < 10; i++)
                        wrong[k] += out(i, j) != i + 10 * j + 10 * k + run;
                }
            }
        });
    }
    for (std::thread &th : threads)
        th.join();
    for (int k = 0; k < 4; k++)
        EXPECT_EQ(wrong[k], 0) << "thread " << k;
}

TEST(ParamMap, BuffersOfTheWrongTypeAreRefused) {
    Fixture t;
    Buffer<float> floats(10, 10);
    EXPECT_CONTAINS(message_of([&] {
                        ParamMap m{{t.image, floats}};
                    }),
                    "ImageParam \"pm_image\" holds uint8 but was given a buffer of float32 in "
                    "a ParamMap");
    EXPECT_CONTAINS(message_of([&] {
                        ParamMap m{{t.image, static_cast<Buffer<uint8_t> *>(nullptr)}};
                    }),
                    "a null Buffer pointer");
}

}  // namespace
}  // namespace dsl
