// Lesson 3: seeing what the compiler does.
//
// print_loop_nest() shows the loops a schedule produces; lowered_stmt() (or
// compile_to_lowered_stmt(file)) shows the final statement before machine code. Setting the
// environment variable DSL_DEBUG=2 prints the statement after every lowering pass, and
// DSL_DEBUG_TIMING=1 prints how long each pass and LLVM take.
//
// Run it: build/tutorials/lesson_03_inspecting
//         DSL_DEBUG=2 DSL_DEBUG_TIMING=1 build/tutorials/lesson_03_inspecting

#include <cstdio>

#include "dsl/dsl.h"

using namespace dsl;

int main() {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * y;
    consumer(x, y) = producer(x, y) + producer(x + 1, y);

    // By default producer is inlined into consumer: one loop nest.
    std::printf("--- loop nest, producer inlined ---\n");
    consumer.print_loop_nest();

    // compute_root() computes all of producer first, into its own buffer.
    producer.compute_root();
    std::printf("--- loop nest, producer computed at root ---\n");
    consumer.print_loop_nest();

    std::printf("--- lowered statement ---\n%s", consumer.lowered_stmt().c_str());
    consumer.compile_to_lowered_stmt("lesson_03_consumer.stmt");
    std::printf("(also written to lesson_03_consumer.stmt)\n");

    Buffer<int> out = consumer.realize({4, 4});
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 4; i++) {
            if (out(i, j) != i * j + (i + 1) * j) return 1;
        }
    }
    std::printf("lesson 3 passed\n");
    return 0;
}
