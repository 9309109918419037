// The operator library's kernels on a GPU: the autoscheduler's GPU mode over the whole
// pipeline of an output tensor.
#include "nn/ops/GpuSchedule.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "autoschedule/Model.h"
#include "dsl/Error.h"
#include "dsl/Pipeline.h"
#include "lang/Function.h"

namespace dsl::nn {

bool has_gpu_loops(const Func &f) {
    for (const auto &[name, func] : lang::find_transitive_calls({lang::Function(f.contents())})) {
        (void)name;
        for (int s = 0; s < func.stages(); s++) {
            for (const schedule::Dim &d : func.stage(s).schedule.dims) {
                if (d.for_type == ir::ForType::GPUBlock) return true;
            }
        }
    }
    return false;
}

bool schedule_output_for_gpu(const Tensor &t, const Target &target) {
    Func f = t.func();
    if (f.args().empty()) return false;  // one value: computed on the host
    // The region of the output: the tensor's shape, whose symbols (the inputs' extents, values
    // read from small tensors) take the estimates their ImageParams and Params carry.
    for (int d = 0; d < t.rank(); d++)
        f.set_estimate(f.args()[static_cast<size_t>(d)], 0, t.dim(t.rank() - 1 - d));
    try {
        // Analysing the pipeline changes no schedule: where it fails, the operator's CPU
        // schedule is still there to use.
        autoschedule::Model probe({f}, target);
    } catch (const CompileError &) {
        return false;
    }
    // The operators' CPU schedules bound some Funcs to their register tiles (a matrix
    // product's accumulator to a multiple of the vector width): the GPU computes the regions
    // its consumers need instead.
    for (const auto &[name, func] : lang::find_transitive_calls({lang::Function(f.contents())})) {
        if (name == f.name()) continue;
        func.schedule().bounds.clear();
        func.schedule().alignments.clear();
    }
    const AutoSchedulerResults r = Pipeline(f).auto_schedule(target);
    // DSL_NN_SCHEDULES=1 shows each schedule as the C++ that would write it by hand.
    const char *show = std::getenv("DSL_NN_SCHEDULES");
    if (show && *show && std::string(show) != "0") {
        std::cerr << "// GPU schedule of " << f.name() << "\n" << r.schedule_source << "\n";
    }
    return true;
}

}  // namespace dsl::nn
