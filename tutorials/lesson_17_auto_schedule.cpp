// Lesson 17: letting the autoscheduler write the schedule.
//
// Writing a schedule is an expert's job; Pipeline::auto_schedule does a good first one from the
// algorithm alone, given estimates of the sizes it will run at:
//   - out.set_estimate(x, 0, 1536) says the output is usually 1536 wide (estimates never limit
//     what the compiled code accepts; they only guide the choices);
//   - input.dim(0).set_estimate(...) and Param::set_estimate(...) do the same for inputs that
//     sizes depend on (an RDom over input.width(), say);
//   - Pipeline(out).auto_schedule(target) replaces every Func's schedule: cheap Funcs inlined,
//     stencils computed per strip of their consumer's rows, tables at root, reductions summed
//     in registers, vectors of the target's width, strips in parallel. It returns the schedule
//     as C++ source, made of the directives a person writes, to read, keep and edit.
// MachineParams says what machine to plan for (threads, last-level cache); host() is this one.
//
// Run it: build/tutorials/lesson_17_auto_schedule

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

/// A sharpened image: a separable blur of the input, then input + amount * (input - blur).
struct Sharpen {
    Var x{"x"}, y{"y"};
    Func blur_x{"blur_x"}, blur_y{"blur_y"}, out{"sharpened"};
};

Sharpen make_sharpen(const ImageParam &input) {
    Sharpen s;
    Var x = s.x, y = s.y;
    Func in = BoundaryConditions::repeat_edge(input);
    s.blur_x(x, y) =
        (in(x - 2, y) + 4 * in(x - 1, y) + 6 * in(x, y) + 4 * in(x + 1, y) + in(x + 2, y)) / 16.0f;
    s.blur_y(x, y) = (s.blur_x(x, y - 2) + 4 * s.blur_x(x, y - 1) + 6 * s.blur_x(x, y) +
                      4 * s.blur_x(x, y + 1) + s.blur_x(x, y + 2)) /
                     16.0f;
    s.out(x, y) = clamp(in(x, y) + 1.5f * (in(x, y) - s.blur_y(x, y)), 0.0f, 1.0f);
    return s;
}

double milliseconds(Func f, Buffer<float> &out) {
    f.realize(out);  // compiles
    double best = 1e30;
    for (int i = 0; i < 5; i++) {
        auto start = std::chrono::steady_clock::now();
        f.realize(out);
        double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        best = ms < best ? ms : best;
    }
    return best;
}

}  // namespace

int main() {
    const int width = 1536, height = 1024;
    Buffer<float> image(width, height);
    image.for_each_element([&](int x, int y) {
        image(x, y) = 0.5f + 0.5f * std::sin(x * 0.05f) * std::cos(y * 0.03f);
    });
    ImageParam input(Float(32), 2, "input");
    input.set(image);

    // 1. The algorithm alone: every Func is inlined into the output (blur_y's 5 taps of
    //    blur_x's 5 taps: 25 loads per pixel), in one serial loop.
    Sharpen plain = make_sharpen(input);
    Buffer<float> expected(width, height);
    double plain_ms = milliseconds(plain.out, expected);

    // 2. The same algorithm, auto-scheduled for this machine at this size.
    Sharpen s = make_sharpen(input);
    s.out.set_estimate(s.x, 0, width).set_estimate(s.y, 0, height);
    Pipeline p(s.out);
    AutoSchedulerResults r = p.auto_schedule(Target::host(), MachineParams::host());
    std::printf("The schedule the autoscheduler chose:\n%s\n", r.schedule_source.c_str());
    std::printf("Its loop nest:\n%s\n", s.out.loop_nest().c_str());

    Buffer<float> out(width, height);
    double auto_ms = milliseconds(s.out, out);
    std::printf("default schedule: %.2f ms; auto-scheduled: %.2f ms\n", plain_ms, auto_ms);

    // The schedule never changes the values.
    float worst = 0;
    out.for_each_element(
        [&](int x, int y) { worst = std::fmax(worst, std::fabs(out(x, y) - expected(x, y))); });
    if (worst > 1e-5f) {
        std::printf("the auto-scheduled output differs by %g\n", worst);
        return 1;
    }
    // It computes blur_x per strip of the output's rows, in parallel, and inlines blur_y (each
    // of its points is read once).
    if (r.schedule_source.find("blur_x.compute_at(sharpened, ") == std::string::npos ||
        r.schedule_source.find(".parallel(") == std::string::npos) {
        std::printf("unexpected schedule\n");
        return 1;
    }
    std::printf("Same values; the autoscheduler's estimate of the speed-up: %.1fx\n",
                r.baseline_cost / r.estimated_cost);
    return 0;
}
