#include "PipelineCheck.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "lang/FuncEvaluator.h"

namespace dsl::test {

using namespace ir;

namespace {

/// The element at `pos` as a scalar Value.
Value read_value(const Buffer<> &b, const int *pos) {
    uint64_t bits = 0;
    std::memcpy(&bits, b.byte_address(pos), b.type().bytes());
    Value v;
    v.type = b.type();
    v.lanes.push_back(scalar_from_bits(b.type(), bits));
    return v;
}

}  // namespace

::testing::AssertionResult matches_reference(const Func &f, const Realization &outputs,
                                             double tolerance) {
    lang::FuncEvaluator reference;
    lang::Function func(f.contents());
    int mismatches = 0;
    std::ostringstream report;
    if (outputs.size() > 0 && outputs[0].dimensions() == func.dimensions() &&
        outputs[0].number_of_elements() > 0) {
        std::vector<int64_t> min, max;
        for (int d = 0; d < outputs[0].dimensions(); d++) {
            min.push_back(outputs[0].dim(d).min());
            max.push_back(outputs[0].dim(d).max());
        }
        reference.require_region(func, min, max);
    }
    for (size_t v = 0; v < outputs.size(); v++) {
        const Buffer<> &b = outputs[v];
        const Type t = b.type();
        b.for_each_element([&](const int *pos) {
            std::vector<int64_t> coords(pos, pos + b.dimensions());
            Value expected = reference.at(func, coords, static_cast<int>(v));
            // Where the semantics leave the value unspecified (e.g. a float converted to an
            // integer type it does not fit), any result is right.
            if (expected.undefined) return;
            Value got = read_value(b, pos);
            bool ok = got.same_values(expected);
            if (!ok && t.is_float()) {
                double g = got.as_float(), w = expected.as_float();
                ok = std::fabs(g - w) <= tolerance * std::max(1.0, std::fabs(w));
            }
            if (!ok && mismatches++ < 5) {
                report << "\n  " << f.name() << "[" << v << "](";
                for (size_t i = 0; i < coords.size(); i++)
                    report << (i ? ", " : "") << coords[i];
                report << ") = " << got.to_string() << ", reference " << expected.to_string();
            }
        });
    }
    if (mismatches == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << mismatches << " elements differ from the reference" << report.str();
}

::testing::AssertionResult matches_reference(const Func &f, const Buffer<> &output,
                                             double tolerance) {
    return matches_reference(f, Realization({output}), tolerance);
}

Buffer<> random_buffer(Type t, const std::vector<int> &sizes, uint64_t seed) {
    Buffer<> b(t, sizes);
    std::mt19937_64 rng(seed);
    b.for_each_element([&](const int *pos) {
        Value v;
        if (t.is_float()) {
            v = Value::of_float(t, std::uniform_int_distribution<int>(-64, 63)(rng) / 8.0);
        } else if (t.is_int()) {
            v = Value::of_int(t, std::uniform_int_distribution<int>(-50, 50)(rng));
        } else {
            v = Value::of_uint(t,
                               std::uniform_int_distribution<int>(0, t.is_bool() ? 1 : 100)(rng));
        }
        uint64_t bits = scalar_bits(t, v.lanes[0]);
        std::memcpy(b.byte_address(pos), &bits, t.bytes());
    });
    return b;
}

namespace {
std::string file_text(const std::string &path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
}  // namespace

std::string llvm_ir_of(Func f, const Target &target) {
    std::string path = ::testing::TempDir() + "dsl_llvm_ir_" + f.name() + ".ll";
    f.compile_to_llvm_ir(path, target);
    return file_text(path);
}

std::string assembly_of(Func f, const Target &target) {
    std::string path = ::testing::TempDir() + "dsl_assembly_" + f.name() + ".s";
    f.compile_to_assembly(path, target);
    return file_text(path);
}

Func two_tap_repeat_edge(const std::string &name, const Buffer<> &in, int lanes) {
    Var x("x");
    Func edge = BoundaryConditions::repeat_edge(in);
    Func f(name);
    f(x) = edge(x - 1) + edge(x + 1);
    f.vectorize(x, lanes);
    return f;
}

int count_of(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        n++;
    return n;
}

}  // namespace dsl::test
