// Lesson 13: wrapper Funcs and clones: scheduling the values one consumer reads apart from the
// Func that computes them.
//
// f.in(g) makes a Func "f_in_g" with f_in_g(x, y) = f(x, y), and g reads it instead of f. By
// itself that changes nothing (the wrapper is inlined), but the wrapper can be scheduled: copy a
// tile of f into a small buffer per tile of g, lay it out or vectorize it differently, or give
// f a place to be computed (f.compute_at(f.in(g), y)). f.in() wraps every call to f at once.
//
// f.clone_in(g) makes a copy "f_clone_in_g" of f, definitions and schedule included, that g
// reads instead: two consumers can then each compute their own copy where it suits them.
//
// An ImageParam has in() too: a Func that reads the input, to stage parts of it.
//
// Run it: build/tutorials/lesson_13_wrappers_and_clones

#include <cstdio>
#include <string>

#include "dsl/dsl.h"

using namespace dsl;

namespace {

bool expect(bool ok, const char *what) {
    if (!ok) std::printf("FAILED: %s\n", what);
    return ok;
}

}  // namespace

int main() {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    bool ok = true;

    // 1. A wrapper that gathers a tile of the producer per tile of the consumer. `f` is
    //    computed once at root; each 8x8 tile of `g` copies the 9x8 block of f it reads into
    //    the wrapper's small buffer first.
    {
        Func f("f"), g("g");
        f(x, y) = x * 3 + y;
        g(x, y) = f(x, y) + f(x + 1, y);
        f.compute_root();
        g.tile(x, y, xo, yo, xi, yi, 8, 8);
        f.in(g).compute_at(g, xo).vectorize(x, 4);
        std::printf("-- a tile of f copied per tile of g:\n");
        g.print_loop_nest();
        Buffer<int> out = g.realize({16, 16});
        bool right = true;
        for (int j = 0; j < 16; j++) {
            for (int i = 0; i < 16; i++)
                right &= out(i, j) == 6 * i + 3 + 2 * j;
        }
        ok &= expect(right, "the wrapped pipeline computes the same values");
        ok &= expect(g.loop_nest().find("produce f_in_g") != std::string::npos,
                     "the wrapper has loops of its own");
    }

    // 2. Two consumers of one producer, each with its own wrapper, scheduled differently;
    //    calling f.in(g) again returns the same wrapper.
    {
        Func f("f"), g("g"), h("h"), out("out");
        f(x, y) = x - y;
        g(x, y) = f(x, y) * 2;
        h(x, y) = f(x, y) + 7;
        out(x, y) = g(x, y) + h(x, y);
        f.compute_root();
        g.compute_root();
        h.compute_root();
        f.in(g).compute_at(g, y).vectorize(x, 4);
        f.in(h).compute_at(h, y);
        ok &= expect(f.in(g).name() == "f_in_g", "in(g) twice gives one wrapper");
        Buffer<int> r = out.realize({8, 4});
        ok &= expect(r(5, 2) == (5 - 2) * 2 + (5 - 2) + 7, "two wrappers, same values");
    }

    // 3. A Func computed at a loop of its own wrapper: f is produced per row of f_in_g.
    {
        Func f("f"), g("g");
        f(x, y) = x + y;
        g(x, y) = 2 * f(x, y) + 3;
        f.in(g).compute_root();
        f.compute_at(f.in(g), y);
        std::printf("-- f computed per row of its wrapper:\n");
        g.print_loop_nest();
        Buffer<int> r = g.realize({5, 5});
        ok &= expect(r(4, 4) == 2 * 8 + 3, "f at its wrapper's rows");
    }

    // 4. A clone per consumer: g computes its copy of f per row; h uses f at root.
    {
        Func f("f"), g("g"), h("h"), out("out");
        f(x, y) = x * y;
        g(x, y) = f(x, y) + 1;
        h(x, y) = f(x, y) - 1;
        out(x, y) = g(x, y) * h(x, y);
        f.compute_root();
        g.compute_root();
        h.compute_root();
        f.clone_in(g).compute_at(g, y);
        std::printf("-- f cloned into g:\n");
        out.print_loop_nest();
        Buffer<int> r = out.realize({6, 6});
        ok &= expect(r(5, 5) == 26 * 24, "the clone computes what f computes");
        ok &= expect(out.loop_nest().find("produce f_clone_in_g") != std::string::npos,
                     "the clone has loops of its own");
    }

    // 5. An input has wrappers too. input.in(g) is a Func that g reads instead of the input:
    //    here each row of g first copies the two rows of the input it reads into a small
    //    buffer (its implicit variables are _0 and _1), which the rest of the row then reads.
    {
        Buffer<int> pixels(10, 8);
        pixels.fill([](int u, int v) { return u + 10 * v; });
        ImageParam input(Int(32), 2, "input");
        input.set(pixels);
        Func g("g");
        g(x, y) = input(x, y) + input(x + 1, y + 1);
        input.in(g).compute_at(g, y).vectorize(_0, 4);
        std::printf("-- two rows of the input copied per row of g:\n");
        g.print_loop_nest();
        Buffer<int> r = g.realize({9, 7});
        ok &= expect(r(8, 6) == 68 + 79, "the wrapper reads what the input holds");
        ok &= expect(g.loop_nest().find("produce input_in_g") != std::string::npos,
                     "the input's wrapper has loops of its own");
    }

    if (!ok) return 1;
    std::printf("lesson 13 passed\n");
    return 0;
}
