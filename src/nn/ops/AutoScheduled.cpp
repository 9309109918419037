// The operator library's kernels scheduled by the built-in autoscheduler: on a GPU, every
// kernel (its GPU mode over the whole pipeline of an output tensor); on a CPU, the kernels that
// no operator schedules (a normalisation, a softmax, a chain of elementwise operators).
#include "nn/ops/AutoScheduled.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "autoschedule/Model.h"
#include "dsl/Error.h"
#include "dsl/Pipeline.h"
#include "ir/IR.h"
#include "lang/Function.h"

namespace dsl::nn {

namespace {

/// DSL_NN_SCHEDULES=1 shows each schedule the autoscheduler chose as the C++ that would write it
/// by hand.
void show_schedule(const char *device, const Func &f, const AutoSchedulerResults &r) {
    const char *show = std::getenv("DSL_NN_SCHEDULES");
    if (show && *show && std::string(show) != "0") {
        std::cerr << "// " << device << " schedule of " << f.name() << "\n"
                  << r.schedule_source << "\n";
    }
}

}  // namespace

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
    show_schedule("GPU", f, Pipeline(f).auto_schedule(target));
    return true;
}

namespace {

/// Whether some Func of the pipeline of `f` carries a schedule of its own: a directive given to
/// one of its stages, a compute or store level, bounds, a storage choice, specializations; or is
/// an extern stage. The Funcs of inline reductions (sum, maximum, ...) are computed innermost
/// unless told otherwise, which is no choice of an operator's.
bool has_own_schedule(const Func &f) {
    using Kind = schedule::LoopLevel::Kind;
    for (const auto &[name, func] : lang::find_transitive_calls({lang::Function(f.contents())})) {
        (void)name;
        if (func.is_extern()) return true;
        const schedule::FuncSchedule &s = func.schedule();
        const Kind k = s.compute_level.kind;
        if ((k != Kind::Default && k != Kind::Innermost) || !s.store_level.is_default())
            return true;
        if (!s.bounds.empty() || !s.alignments.empty() || !s.storage_folds.empty() ||
            !s.storage_alignment.empty() || !s.storage_order.empty() ||
            s.memory_type != ir::MemoryType::Auto)
            return true;
        for (int st = 0; st < func.stages(); st++) {
            const lang::Definition &d = func.stage(st);
            if (d.schedule.touched || !d.specializations.empty()) return true;
        }
    }
    return false;
}

/// Whether the default schedule of an output (inlined producers, a vector along the innermost
/// axis, threads over the rest) leaves work to a better one: a Func with updates (a reduction,
/// which the default computes at root, serially), or a Func with arithmetic of its own that a
/// consumer reads at several points (which inlining computes again for each).
bool beyond_pointwise(const autoschedule::Model &model) {
    for (const std::string &name : model.order()) {
        const autoschedule::FuncInfo &info = model.info(name);
        if (info.stages.size() > 1) return true;
        if (!info.is_output && !info.pointwise && info.stages[0].ops > 0) return true;
    }
    return false;
}

}  // namespace

bool auto_schedules_on_cpu(const Tensor &t, const Target &target) {
    Func f = t.func();
    if (f.args().empty() || t.schedule() || has_own_schedule(f)) return false;
    for (int d = 0; d < t.rank(); d++) {
        // An extent known only when the model runs has no estimate on the CPU.
        if (!is_const(t.dim(t.rank() - 1 - d))) return false;
    }
    for (int d = 0; d < t.rank(); d++)
        f.set_estimate(f.args()[static_cast<size_t>(d)], 0, t.dim(t.rank() - 1 - d));
    try {
        // Analysing the pipeline changes no schedule.
        return beyond_pointwise(autoschedule::Model({f}, target));
    } catch (const CompileError &) {
        return false;
    }
}

bool schedule_output_automatically(const Tensor &t, const Target &target) {
    if (!auto_schedules_on_cpu(t, target)) return false;
    Func f = t.func();
    show_schedule("CPU", f, Pipeline(f).auto_schedule(target));
    return true;
}

}  // namespace dsl::nn
