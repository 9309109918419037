// Lesson 12: seeing what a pipeline does as it runs: tracing and printing.
//
// print_loop_nest() (lesson 3) shows the loops a schedule makes. Tracing shows them running:
// Func::trace_stores() prints a line for every value stored into a Func, trace_loads() for every
// value read from it, trace_realizations() where its storage begins and ends and which region
// each production computes. print() and print_when() print values from inside an expression.
// The `profile` target feature measures where the time goes, per Func, and require() stops a
// pipeline whose assumptions fail.
//
// The lines go to stderr. This lesson installs its own print handler
// (dsl_set_print_handler, from dsl/runtime/dsl_runtime.h) to keep them and check them. A
// program that wants the events themselves rather than lines (to count them, or check the
// regions computed) sets f.jit_handlers().custom_trace, or dsl_set_trace_handler: it receives
// each event as a dsl_trace_event_t (Halide's halide_trace_event_t).
//
// Run it: build/tutorials/lesson_12_tracing_and_printing

#include <cstdio>
#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/runtime/dsl_runtime.h"

using namespace dsl;

namespace {

std::vector<std::string> lines;

void keep(const char *line) {
    lines.emplace_back(line);
    std::fputs(line, stdout);  // shown as well, so that running the lesson teaches something
}

bool expect(bool ok, const char *what) {
    if (!ok) std::printf("FAILED: %s\n", what);
    return ok;
}

}  // namespace

int main() {
    dsl_set_print_handler(keep);
    Var x("x"), y("y");
    bool ok = true;

    // 1. The order of the stores follows the schedule. By default x is the innermost loop:
    //    Store gradient.0(0, 0) = 0, then (1, 0), (2, 0), ... The ".0" is the Tuple element.
    //    The pipeline's first and last lines are "Begin pipeline gradient.0()" and "End ...".
    std::printf("-- row by row:\n");
    Func gradient("gradient");
    gradient(x, y) = x + y;
    gradient.trace_stores();
    gradient.realize({3, 2});
    ok &= expect(lines.size() == 8 && lines[2] == "Store gradient.0(1, 0) = 1\n",
                 "x varies fastest by default");

    // 2. reorder(y, x) makes y the innermost loop: the stores go down the columns.
    std::printf("-- column by column:\n");
    lines.clear();
    Func columns("columns");
    columns(x, y) = x + y;
    columns.reorder(y, x).trace_stores();
    columns.realize({3, 2});
    ok &= expect(lines[2] == "Store columns.0(0, 1) = 1\n", "y varies fastest after reorder");

    // 3. A vectorized loop stores a vector at a time; vectors print as <a, b, ...>, and each
    //    coordinate is given per lane.
    std::printf("-- vectorized by 4:\n");
    lines.clear();
    Func vectors("vectors");
    vectors(x, y) = x * 10 + y;
    vectors.vectorize(x, 4).trace_stores();
    vectors.realize({8, 1});
    ok &= expect(lines.size() == 4 &&
                     lines[1] == "Store vectors.0(<0, 1, 2, 3>, <0, 0, 0, 0>) = <0, 10, 20, 30>\n",
                 "a vector store is one line");

    // 4. Where a producer is computed decides how much of it exists at once and how often it
    //    is computed. trace_realizations() prints its region each time, and trace_loads()
    //    every value its consumer reads.
    std::printf("-- a producer computed per row of its consumer:\n");
    lines.clear();
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * y;
    consumer(x, y) = producer(x, y) + producer(x + 1, y);
    producer.compute_at(consumer, y).trace_realizations().trace_loads();
    consumer.realize({2, 2});
    // One realization per row, three points wide (x + 1 reaches one past the row).
    ok &= expect(lines[1] == "Begin realization producer.0(0, 3, 0, 1)\n",
                 "the producer's region is a row of three");
    int loads = 0;
    for (const std::string &l : lines)
        loads += l.rfind("Load producer.0(", 0) == 0;
    ok &= expect(loads == 8, "two loads per point of the consumer");

    // 5. print(value, ...) returns value and prints every argument; print_when prints only
    //    where its condition holds. Printing changes no result.
    std::printf("-- print and print_when:\n");
    lines.clear();
    Func f("f");
    Expr e = cast<float>(x) / 2;
    e = print_when(x == 3 && y == 1, e, "is x / 2 at x =", x, ", y =", y);
    f(x, y) = e * 2;
    Buffer<float> out = f.realize({4, 2});
    ok &= expect(out(3, 1) == 3.0f, "print keeps the value");
    ok &= expect(lines.size() == 1 && lines[0] == "1.500000 is x / 2 at x = 3 , y = 1\n",
                 "print_when prints once");

    // 6. Where the time goes: the target feature `profile` counts the time of each Func's own
    //    code, and realize() prints a report after each run. Here the producer, with its 30
    //    cosines a point, takes nearly all of it; the consumer's line is its own additions.
    std::printf("-- the profiler:\n");
    lines.clear();
    Func costly("costly"), cheap("cheap");
    Expr c = cast<float>(x + y);
    for (int i = 0; i < 30; i++)
        c = cos(c);
    costly(x, y) = c;
    cheap(x, y) = costly(x, y) + costly(x + 1, y);
    costly.compute_root();
    cheap.realize({256, 64}, get_jit_target_from_environment().with_feature(Target::Profile));
    double costly_s = 0, cheap_s = 0;
    dsl_profiler_stats("cheap", "costly", &costly_s, nullptr);
    dsl_profiler_stats("cheap", "cheap", &cheap_s, nullptr);
    ok &= expect(lines.size() == 4 && lines[0].rfind("Profile of pipeline \"cheap\"", 0) == 0,
                 "one report: the pipeline, then a line per Func");
    ok &= expect(costly_s > cheap_s, "the producer takes most of the time");

    // 7. require(condition, value, message...) checks what a pipeline assumes while it runs:
    //    where the condition fails, realize() throws a RuntimeError with the message.
    std::printf("-- require:\n");
    Param<int> width("width");
    Func checked("checked");
    checked(x) = require(width % 4 == 0, x * 2, "width must be a multiple of 4, not", width);
    width.set(6);
    try {
        checked.realize({4});
        ok &= expect(false, "require stops the pipeline");
    } catch (const RuntimeError &error) {
        std::printf("%s\n", error.what());
        ok &= expect(std::string(error.what()).find("not 6") != std::string::npos,
                     "the message holds the Param's value");
    }

    dsl_set_print_handler(nullptr);
    if (!ok) return 1;
    std::printf("lesson 12 passed\n");
    return 0;
}
