// The operator library's kernels that no operator schedules, on the default schedule (producers
// inlined, a vector along the innermost axis, threads over the others) and auto-scheduled
// (nn::schedule_output with the built-in autoscheduler, as models compile them since issue 34),
// side by side:
//
//   nn_auto/<kernel>/default/threads:T      nn_auto/<kernel>/auto/threads:T
//
// The kernels are ONNX operators at sizes real models give them: the argmax over the classes of
// PP-OCRv4's recogniser (40 steps of 6625), a transformer's attention scores as an Einsum
// (8 heads of 128 x 64), AlexNet's local response normalisation (64 channels of 56 x 56) and a
// running sum (CumSum) over 1024 rows of 256. Inputs are ImageParams whose extents are known, as
// a model compiled for fixed input shapes has them. Each auto-scheduled result is checked
// against the default schedule's before timing.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "dsl/dsl.h"
#include "dsl/nn/Movement.h"
#include "dsl/nn/Norm.h"
#include "dsl/nn/Reduce.h"
#include "dsl/nn/Tensor.h"
#include "dsl/runtime/dsl_runtime.h"

namespace dsl_bench {

namespace {

struct AutoKernel {
    const char *name;
    /// The input's shape, outermost first.
    std::vector<int> shape;
    std::function<dsl::nn::Tensor(const dsl::nn::Tensor &)> build;
};

const std::vector<AutoKernel> &auto_kernels() {
    using namespace dsl;
    static const std::vector<AutoKernel> kernels = {
        {"argmax_1x40x6625",
         {1, 40, 6625},
         [](const nn::Tensor &x) { return nn::argmax(x, 2, false, false); }},
        {"attention_scores_1x8x128x64",
         {1, 8, 128, 64},
         [](const nn::Tensor &x) {
             return nn::einsum("bhid,bhjd->bhij", {x, x});
         }},
        {"lrn_1x64x56x56",
         {1, 64, 56, 56},
         [](const nn::Tensor &x) { return nn::lrn(x, 5, 1e-4f, 0.75f, 1.0f); }},
        {"cumsum_1x1024x256", {1, 1024, 256}, [](const nn::Tensor &x) { return nn::cumsum(x, 1); }},
    };
    return kernels;
}

/// Builds the kernel over the ImageParam `x` (given the kernel's input shape), schedules it on
/// the default schedule or auto-scheduled, compiles it for the host, and returns whether the
/// autoscheduler chose the schedule; `f` and `out` (a buffer of the result's shape) are what to
/// time.
bool build_kernel(const AutoKernel &k, bool automatic, dsl::ImageParam &x, dsl::Func *f,
                  dsl::Buffer<> *out) {
    using namespace dsl;
    const int rank = static_cast<int>(k.shape.size());
    for (int d = 0; d < rank; d++)
        x.dim(d).set_extent(k.shape[static_cast<size_t>(rank - 1 - d)]);
    nn::Tensor in(x);
    nn::Shape shape;
    for (int e : k.shape)
        shape.push_back(Expr(e));
    nn::Tensor y = k.build(nn::Tensor(in.func(), shape));
    const Target target("host-fp_contract");
    const bool chosen = nn::schedule_output(y, target, automatic);
    *f = y.func();
    f->compile_jit(target);
    std::vector<int> sizes;
    for (int a = y.rank() - 1; a >= 0; a--) {
        int64_t v = 0;
        nn::is_const(y.dim(a), &v);
        sizes.push_back(static_cast<int>(v));
    }
    *out = Buffer<>(y.type(), sizes);
    return chosen;
}

void run_auto_kernel(benchmark::State &state, const AutoKernel &k, bool automatic, int threads) {
    using namespace dsl;
    std::vector<int> sizes(k.shape.rbegin(), k.shape.rend());
    Buffer<float> input(sizes);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    input.for_each_value([&](float &v) { v = dist(rng); });
    ImageParam x(Float(32), static_cast<int>(sizes.size()), "x");
    Func f;
    Buffer<> out;
    const bool chosen = build_kernel(k, automatic, x, &f, &out);
    if (chosen != automatic) {
        state.SkipWithError((std::string(k.name) + ": the autoscheduler " +
                             (chosen ? "scheduled" : "did not schedule") + " the kernel")
                                .c_str());
        return;
    }
    x.set(input);
    dsl_set_num_threads(threads);
    f.realize(out);
    // The default schedule's values, for the auto-scheduled kernel to match.
    if (automatic) {
        ImageParam x2(Float(32), static_cast<int>(sizes.size()), "x");
        Func g;
        Buffer<> want;
        build_kernel(k, false, x2, &g, &want);
        x2.set(input);
        g.realize(want);
        // Both dense, of one type: float values (summed in another order, perhaps) or int64
        // indices.
        bool same = true;
        const size_t n = static_cast<size_t>(out.number_of_elements());
        for (size_t i = 0; i < n && same; i++) {
            if (out.type() == Float(32)) {
                const double a = static_cast<const float *>(out.data())[i],
                             b = static_cast<const float *>(want.data())[i];
                same = std::fabs(a - b) <= 1e-4 * (1 + std::fabs(b));
            } else {
                same = static_cast<const int64_t *>(out.data())[i] ==
                       static_cast<const int64_t *>(want.data())[i];
            }
        }
        if (!same) {
            state.SkipWithError((std::string(k.name) + ": auto-scheduled values differ").c_str());
            dsl_set_num_threads(0);
            return;
        }
    }
    for (auto _ : state)
        f.realize(out);
    dsl_set_num_threads(0);
}

const bool registered = [] {
    for (const AutoKernel &k : auto_kernels()) {
        for (bool automatic : {false, true}) {
            for (int threads : {1, 2}) {
                const std::string name = std::string("nn_auto/") + k.name +
                                         (automatic ? "/auto" : "/default") +
                                         "/threads:" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(),
                                             [&k, automatic, threads](benchmark::State &s) {
                                                 run_auto_kernel(s, k, automatic, threads);
                                             })
                    ->Unit(benchmark::kMicrosecond)
                    ->UseRealTime();
            }
        }
    }
    return true;
}();

}  // namespace

}  // namespace dsl_bench
