// Lesson 9: compiling ahead of time, and generators.
//
// realize() compiles a pipeline while the program runs (JIT). Ahead-of-time (AOT) compilation
// writes it instead to a static library and a C header, which any C or C++ program links
// (with -lpthread -ldl) without the dsl compiler. This lesson
//   1. compiles a pipeline with Func::compile_to_static_library,
//   2. writes the same pipeline as a Generator, the form build systems use: a class whose
//      compile-time settings (GeneratorParams), inputs and output are members,
//   3. sets its GeneratorParams from text, runs it through the JIT, and emits its files,
// all into a temporary folder, which it prints and removes.
//
// Run it: build/tutorials/lesson_09_aot_and_generators

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "dsl/Generator.h"
#include "dsl/dsl.h"

using namespace dsl;
namespace fs = std::filesystem;

// Step 2: the generator. GeneratorParams are fixed when the library is compiled (here, an
// offset and whether rows run in parallel); Inputs become the arguments of the compiled
// function, in the order they are declared; the Output is the Func that generate() defines.
class Brighten : public Generator<Brighten> {
  public:
    GeneratorParam<int> offset{"offset", 0, -8, 8};
    GeneratorParam<bool> parallel_rows{"parallel_rows", false};
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<float> gain{"gain", 1.0f, 0.0f, 10.0f};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Expr v = cast<float>(input(x, y)) * gain + offset.value();
        output(x, y) = cast<uint8_t>(clamp(v, 0.0f, 255.0f));
    }

    // The schedule may depend on the target (the GeneratorParam `target`, default "host").
    void schedule() {
        output.vectorize(x, get_target().natural_vector_size<uint8_t>());
        if (parallel_rows) output.parallel(y);
    }

  private:
    Var x{"x"}, y{"y"};
};

// Registered under a name, as a generator program's command line finds it.
DSL_REGISTER_GENERATOR(Brighten, brighten)

namespace {

// The lines of a generated header that declare functions.
void print_declarations(const fs::path &header) {
    std::ifstream in(header);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("int ", 0) == 0 || line.rfind("const ", 0) == 0) {
            std::printf("    %s\n", line.c_str());
        }
    }
}

}  // namespace

int main() {
    const fs::path dir =
        fs::temp_directory_path() / ("dsl_lesson_09_" + std::to_string(::getpid()));
    fs::create_directories(dir);

    // Step 1: a pipeline compiled straight to a library. The argument list says which Params
    // and ImageParams the function takes, and in which order; the output buffer comes last.
    {
        ImageParam input(UInt(8), 2, "input");
        Param<float> gain("gain", 1.0f);
        Var x("x"), y("y");
        Func brighter("brighter");
        brighter(x, y) = cast<uint8_t>(clamp(cast<float>(input(x, y)) * gain, 0.0f, 255.0f));
        brighter.vectorize(x, 16);
        brighter.compile_to_static_library((dir / "brighter").string(), {input, gain});
        std::printf("Step 1: compile_to_static_library wrote brighter.a and brighter.h:\n");
        print_declarations(dir / "brighter.h");
    }

    // Step 3: the generator, created from the registry by name, with GeneratorParams set from
    // text exactly as the command line would (a bad value is a CompileError naming it).
    std::unique_ptr<GeneratorBase> g = create_generator("brighten");
    g->set_param("offset", "3");
    g->set_param("parallel_rows", "true");
    try {
        g->set_param("offset", "12");
    } catch (const CompileError &e) {
        std::printf("\nStep 3: a value outside the range is refused:\n  %s\n", e.what());
    }
    std::printf("\nIts members, in declaration order:\n");
    for (const auto *p : g->params()) {
        std::printf("  GeneratorParam %-14s = %-6s (%s)\n", p->member_name().c_str(),
                    p->value_string().c_str(), p->describe().c_str());
    }
    for (const auto *in : g->inputs()) {
        std::printf("  Input  %-22s (%s)\n", in->member_name().c_str(), in->describe().c_str());
    }
    for (const auto *out : g->outputs()) {
        std::printf("  Output %-22s (%s)\n", out->member_name().c_str(), out->describe().c_str());
    }

    // The generator's pipeline runs through the JIT like any other; its Inputs are an
    // ImageParam and a Param.
    Brighten &b = static_cast<Brighten &>(*g);
    Pipeline pipeline = g->build_pipeline();
    Buffer<uint8_t> image(64, 8);
    image.for_each_element([&](int x, int y) { image(x, y) = static_cast<uint8_t>(x * 4 + y); });
    b.input.set(image);
    b.gain.set(1.5f);
    Buffer<uint8_t> result = pipeline.realize({64, 8});
    int mismatches = 0;
    result.for_each_element([&](int x, int y) {
        float v = image(x, y) * 1.5f + 3.0f;
        int want = v > 255.0f ? 255 : static_cast<int>(v);
        if (result(x, y) != want) mismatches++;
    });
    std::printf("\nThe JIT result matches a loop: %s\n", mismatches == 0 ? "yes" : "no");

    // What the command line does: emit files named after the function.
    g->emit(dir.string(), "brighten_offset3",
            {GeneratorBase::Emit::StaticLibrary, GeneratorBase::Emit::Header,
             GeneratorBase::Emit::Stmt});
    std::printf("\nemit wrote:");
    for (const char *ext : {".a", ".h", ".stmt"}) {
        bool there = fs::exists(dir / ("brighten_offset3" + std::string(ext)));
        std::printf(" brighten_offset3%s%s", ext, there ? "" : " (missing!)");
        if (!there) mismatches++;
    }
    std::printf("\n");
    print_declarations(dir / "brighten_offset3.h");

    // In a project, the generator lives in its own .cpp, linked with dsl_generator_main:
    //   add_executable(brighten_gen brighten_generator.cpp)
    //   target_link_libraries(brighten_gen PRIVATE dsl_generator_main)
    // and the build runs it:
    //   brighten_gen -g brighten -o <dir> -e static_library,h -f brighten_offset3 offset=3
    //                parallel_rows=true target=host-avx2
    std::printf(
        "\nThe same from a generator program:\n"
        "  brighten_gen -g brighten -o out -f brighten_offset3 offset=3 "
        "parallel_rows=true\n");

    fs::remove_all(dir);
    return mismatches == 0 ? 0 : 1;
}
