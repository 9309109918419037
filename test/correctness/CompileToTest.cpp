// compile_to (several files of one compilation, by Halide's OutputFileType), compile_to_bitcode
// and infer_arguments, on Funcs and Pipelines.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/ErrorCheck.h"
#include "common/TempDirectory.h"
#include "dsl/dsl.h"

namespace dsl {
namespace {

bool starts_with(const std::string &s, const std::string &prefix) {
    return s.compare(0, prefix.size(), prefix) == 0;
}

TEST(CompileTo, WritesEachFileOfOneCompilation) {
    ImageParam input(Float(32), 2, "ct_input");
    Param<float> gain("ct_gain");
    Var x("x"), y("y");
    Func scaled("ct_scaled");
    scaled(x, y) = input(x, y) * gain + 1.0f;
    test::TempDirectory dir;
    const std::string d = dir.path() + "/";
    scaled.compile_to({{OutputFileType::object, d + "f.o"},
                       {OutputFileType::assembly, d + "f.s"},
                       {OutputFileType::bitcode, d + "f.bc"},
                       {OutputFileType::llvm_assembly, d + "f.ll"},
                       {OutputFileType::c_header, d + "f.h"},
                       {OutputFileType::static_library, d + "lib_f.a"},
                       {OutputFileType::stmt, d + "f.stmt"},
                       {OutputFileType::stmt_html, d + "f.html"}},
                      {input, gain}, "ct_fn");
    EXPECT_TRUE(starts_with(test::read_file(d + "f.o"),
                            "\x7f"
                            "ELF"));
    EXPECT_TRUE(starts_with(test::read_file(d + "f.bc"), "BC\xc0\xde"));
    EXPECT_TRUE(starts_with(test::read_file(d + "lib_f.a"), "!<arch>\n"));
    EXPECT_CONTAINS(test::read_file(d + "f.s"), "ct_fn:");
    EXPECT_CONTAINS(test::read_file(d + "f.ll"), "define");
    EXPECT_CONTAINS(test::read_file(d + "f.ll"), "@ct_fn(");
    // The header declares the function with the arguments in the order given.
    EXPECT_CONTAINS(test::read_file(d + "f.h"),
                    "int ct_fn(dsl_buffer_t *ct_input, float ct_gain, dsl_buffer_t *ct_scaled)");
    EXPECT_CONTAINS(test::read_file(d + "f.stmt"), "produce ct_scaled");
    EXPECT_CONTAINS(test::read_file(d + "f.html"), "<!DOCTYPE html>");
    // The library holds the pipeline's object and the runtime's.
    EXPECT_CONTAINS(test::read_file(d + "lib_f.a"), "ct_fn.o");

    // compile_to_bitcode is the same file alone; an empty name means the Func's.
    scaled.compile_to_bitcode(d + "g.bc", {input, gain});
    EXPECT_TRUE(starts_with(test::read_file(d + "g.bc"), "BC\xc0\xde"));
    EXPECT_CONTAINS(test::read_file(d + "g.bc"), "ct_scaled");
}

TEST(CompileTo, AFileTypeDslDoesNotWriteIsRefusedBeforeAnythingIsWritten) {
    Var x("x");
    Func f("ct_refused");
    f(x) = x * 2;
    test::TempDirectory dir;
    const std::string object = dir.path() + "/f.o";
    const std::string message = test::message_of([&] {
        f.compile_to({{OutputFileType::object, object},
                      {OutputFileType::python_extension, dir.path() + "/f.py.cpp"}},
                     {}, "");
    });
    EXPECT_CONTAINS(message, "ct_refused");
    EXPECT_CONTAINS(message, "OutputFileType::python_extension");
    EXPECT_CONTAINS(message, "it writes assembly, bitcode");
    EXPECT_FALSE(std::ifstream(object).good());
}

TEST(CompileTo, InferArgumentsListsImageParamsThenParamsByName) {
    ImageParam b(UInt(8), 2, "ia_b"), a(UInt(8), 3, "ia_a");
    Param<int> width("ia_width"), height("ia_height");
    Param<float> frac("ia_frac");
    Var x("x"), y("y"), c("c");
    Func f("ia_f");
    f(x, y, c) = frac * cast<float>(a(clamp(x, 0, width), clamp(y, 0, height), c) + b(x, y));
    std::vector<Argument> args = f.infer_arguments();
    std::vector<std::string> names;
    for (const Argument &arg : args)
        names.push_back(arg.name());
    EXPECT_EQ(names,
              (std::vector<std::string>{"ia_a", "ia_b", "ia_frac", "ia_height", "ia_width"}));
    EXPECT_TRUE(args[0].is_buffer());
    EXPECT_EQ(args[0].dimensions(), 3);
    EXPECT_EQ(args[0].type(), UInt(8));
    EXPECT_FALSE(args[2].is_buffer());
    EXPECT_EQ(args[2].type(), Float(32));
    // They compile the Func ahead of time as they are.
    test::TempDirectory dir;
    f.compile_to({{OutputFileType::c_header, dir.path() + "/f.h"}}, args, "ia_fn");
    EXPECT_CONTAINS(test::read_file(dir.path() + "/f.h"),
                    "int ia_fn(dsl_buffer_t *ia_a, dsl_buffer_t *ia_b, float ia_frac, int32_t "
                    "ia_height, int32_t ia_width, dsl_buffer_t *ia_f)");

    // A Pipeline's arguments are those of all its outputs; a Buffer read directly is none.
    Buffer<float> table(4);
    table.fill(1.0f);
    Func g("ia_g");
    g(x) = table(x % 4) + cast<float>(width);
    Pipeline p({f, g});
    names.clear();
    for (const Argument &arg : p.infer_arguments())
        names.push_back(arg.name());
    EXPECT_EQ(names,
              (std::vector<std::string>{"ia_a", "ia_b", "ia_frac", "ia_height", "ia_width"}));
}

}  // namespace
}  // namespace dsl
