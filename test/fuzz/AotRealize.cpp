#include "AotRealize.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

#include "dsl/runtime/dsl_runtime.h"

#ifndef DSL_FUZZ_C_COMPILER
#define DSL_FUZZ_C_COMPILER "cc"
#endif

namespace dsl::fuzz {

namespace {

/// Removes a folder and everything in it when it goes out of scope.
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "dsl_fuzz_aot_XXXXXX").string();
        if (mkdtemp(pattern.data())) path = pattern;
    }
    ~TempDir() {
        std::error_code ignored;
        if (!path.empty()) std::filesystem::remove_all(path, ignored);
    }
};

}  // namespace

Realization aot_realize(const FuzzCase &c, std::string &error) {
    TempDir dir;
    if (dir.path.empty()) {
        error = "could not create a temporary folder";
        return Realization({});
    }
    std::string prefix = (dir.path / "fuzz_case").string();
    std::vector<Argument> args;
    if (c.reads_param) args.emplace_back(c.param);
    for (size_t i = 0; i < c.inputs.size(); i++)
        if (c.input_read[i]) args.emplace_back(c.inputs[i]);
    try {
        // The host's code, with the NPU where the case offloads to it.
        const Target target =
            c.target.has_feature(Target::Feature::NPU) ? c.target : Target::host();
        Func(c.output).compile_to_static_library(prefix, args, "fuzz_case", target);
    } catch (const Error &e) {
        error = std::string("compile_to_static_library threw: ") + e.what();
        return Realization({});
    }
    std::string command = std::string(DSL_FUZZ_C_COMPILER) + " -shared -Wl,-Bsymbolic -o " +
                          prefix + ".so -Wl,--whole-archive " + prefix +
                          ".a -Wl,--no-whole-archive -lpthread -lm";
    if (std::system(command.c_str()) != 0) {
        error = "linking the library into a shared object failed: " + command;
        return Realization({});
    }
    void *library = dlopen((prefix + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        error = std::string("dlopen: ") + dlerror();
        return Realization({});
    }
    using Entry = int (*)(void **);
    auto entry = reinterpret_cast<Entry>(dlsym(library, "fuzz_case_argv"));
    if (!entry) {
        error = "the library has no fuzz_case_argv";
        dlclose(library);
        return Realization({});
    }
    std::vector<Buffer<>> outputs;
    for (Type t : c.output.types())
        outputs.emplace_back(t, c.output_size);
    int32_t param = c.param.get();
    std::vector<void *> argv;
    if (c.reads_param) argv.push_back(&param);
    for (size_t i = 0; i < c.inputs.size(); i++) {
        if (c.input_read[i])
            argv.push_back(const_cast<Buffer<> &>(c.input_buffers[i]).raw_buffer());
    }
    for (Buffer<> &b : outputs)
        argv.push_back(b.raw_buffer());
    int status = entry(argv.data());
    dlclose(library);
    if (status != 0) {
        error = "fuzz_case_argv returned " + std::to_string(status);
        return Realization({});
    }
    return Realization(outputs);
}

}  // namespace dsl::fuzz
