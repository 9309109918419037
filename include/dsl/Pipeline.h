#pragma once
/// `Pipeline`: several output Funcs computed by one compiled function, sharing the Funcs they
/// both use (computed once) and one pass over their loops where the schedule allows.
///
///   Func gradient_x, gradient_y;   // both read `smoothed`, computed at root once
///   Pipeline p({gradient_x, gradient_y});
///   Realization r = p.realize({640, 480});   // r[0]: gradient_x, r[1]: gradient_y
///
/// A Func converts to the Pipeline of itself, so whatever takes a Pipeline takes a Func.

#include <map>
#include <string>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/AutoSchedule.h"
#include "dsl/Func.h"
#include "dsl/JIT.h"
#include "dsl/Target.h"

namespace dsl {

class ParamMap;

class Pipeline {
  public:
    /// An empty pipeline (defined() is false).
    Pipeline() = default;
    Pipeline(const Func &output);                // NOLINT: implicit by design
    Pipeline(const std::vector<Func> &outputs);  // NOLINT: implicit by design
    Pipeline(std::initializer_list<Func> outputs) : Pipeline(std::vector<Func>(outputs)) {}

    bool defined() const { return !outputs_.empty(); }
    const std::vector<Func> &outputs() const { return outputs_; }

    /// Computes every output over [0, size) in each dimension (all outputs have as many
    /// dimensions as `sizes`); one buffer per output value, in the order of the outputs.
    /// Without a target, for the one the last compile_jit() was given, else
    /// get_jit_target_from_environment() (as Func::realize).
    Realization realize(const std::vector<int> &sizes = {});
    Realization realize(const std::vector<int> &sizes, const Target &target);
    /// (Braced sizes, `{}` for none, are sizes rather than a Realization.)
    Realization realize(std::initializer_list<int> sizes) {
        return realize(std::vector<int>(sizes));
    }
    Realization realize(std::initializer_list<int> sizes, const Target &target) {
        return realize(std::vector<int>(sizes), target);
    }
    /// The same with the values of `params` in place of those its Params and ImageParams were
    /// set to, for this call only (ParamMap, dsl/Param.h): `f.realize({w, h}, target, {{gain,
    /// 2.0f}, {input, frame}})`. Calls on several threads may each bring their own.
    Realization realize(const std::vector<int> &sizes, const Target &target,
                        const ParamMap &params);
    Realization realize(std::initializer_list<int> sizes, const Target &target,
                        const ParamMap &params) {
        return realize(std::vector<int>(sizes), target, params);
    }
    void realize(const Realization &outputs, const Target &target, const ParamMap &params);
    /// The same with the handlers of `context` (dsl/JIT.h) in place of the pipeline's.
    Realization realize(JITUserContext *context, const std::vector<int> &sizes = {});
    Realization realize(JITUserContext *context, const std::vector<int> &sizes,
                        const Target &target);
    void realize(JITUserContext *context, const Realization &outputs);
    void realize(JITUserContext *context, const Realization &outputs, const Target &target);
    /// The runtime's replacements when realize() runs the pipeline (dsl/JIT.h): those of its
    /// first output Func (the same as outputs()[0].jit_handlers()).
    JITHandlers &jit_handlers();
    /// Binds the C functions this pipeline calls by name (extern stages, DSL_EXTERN calls) to
    /// these functions when it is JIT-compiled, in place of the ones recorded by DSL_EXTERN /
    /// DSL_EXTERN_STAGE or exported by the program. Held by the first output Func. (The
    /// reference evaluator still calls the DSL_EXTERN function.)
    void set_jit_externs(const std::map<std::string, JITExtern> &externs);
    const std::map<std::string, JITExtern> &get_jit_externs();
    /// Computes into existing buffers: one per value of each output, in order (their mins and
    /// extents say where).
    void realize(const Realization &outputs);
    void realize(const Realization &outputs, const Target &target);
    /// Into one buffer, for a pipeline of one output of one value (as Func::realize(buffer)).
    template <typename T, int D>
    void realize(const Buffer<T, D> &output) {
        realize(Realization({Buffer<>(output)}));
    }
    template <typename T, int D>
    void realize(const Buffer<T, D> &output, const Target &target) {
        realize(Realization({Buffer<>(output)}), target);
    }
    /// Lowers and compiles now (see Func::compile_jit).
    void compile_jit(const Target &target = get_jit_target_from_environment());
    /// See Func::infer_input_bounds.
    void infer_input_bounds(const std::vector<int> &sizes, const Target &target = Target::host());
    void infer_input_bounds(const Realization &outputs, const Target &target = Target::host());
    /// With `params` for this call: an ImageParam mapped to a Buffer is read from it; one
    /// mapped to a `Buffer<> *` gets the region there, and the ImageParam keeps its own.
    void infer_input_bounds(const std::vector<int> &sizes, const Target &target,
                            const ParamMap &params);

    /// Every Func the outputs reach, producers before consumers (outputs last). A Func by
    /// name; a CompileError lists the names when none matches.
    std::vector<Func> funcs() const;
    Func get_func(const std::string &name) const;
    /// The Func at `index` of funcs().
    Func get_func(size_t index) const;

    /// Schedules every Func of the pipeline for `target` (docs/autoschedule.md): which Funcs
    /// to inline, to compute at root or per tile of their consumers, the tiles, vectors, unrolled
    /// loops and parallel loops, from the estimates of the outputs' sizes (Func::set_estimate)
    /// and of the inputs (ImageParam::dim(d).set_estimate, Param::set_estimate). Replaces the
    /// Funcs' schedules; the result carries the schedule as C++ source. A CompileError names
    /// what lacks an estimate.
    AutoSchedulerResults auto_schedule(const Target &target = Target::host(),
                                       const MachineParams &params = MachineParams::host());
    /// The same, for code that names one of Halide's autoschedulers ("Mullapudi2016",
    /// "Adams2019", "Li2018"): each means the built-in one, as does "dsl".
    AutoSchedulerResults auto_schedule(const std::string &autoscheduler_name, const Target &target,
                                       const MachineParams &params = MachineParams::host());

    /// Searches for a faster schedule than auto_schedule's by measuring (docs/autoschedule.md):
    /// the heuristic's parameters (strip heights, recompute limits, inlining margins, vector
    /// widths, register tile shapes and order, panels, parallel thresholds) are sampled, then
    /// refined by mutation; the cost model ranks each generation and the fastest candidates by
    /// the model are compiled, checked against the heuristic's output and timed, at the
    /// outputs' estimated sizes on the inputs bound to the ImageParams. Leaves the pipeline
    /// scheduled with the fastest. A CompileError names an ImageParam without a buffer.
    TuneResults auto_tune(const Target &target = Target::host(),
                          const TuneOptions &options = TuneOptions());

    /// Applies a schedule written as C++ source, as auto_schedule() returns it (and as dsl-tune
    /// writes it): each Func's schedule is reset, then the source's directives are applied to
    /// the Funcs it names through get_func(). It reads declarations of Funcs, Vars and RVars
    /// and chains of directives (split, fuse, reorder, tile, vectorize, unroll, parallel,
    /// serial, compute_root/at/inline, store_root/at, bound, bound_extent, store_in, rfactor);
    /// a CompileError names the line of anything else.
    void apply_schedule_source(const std::string &source);

    /// The loop nest (see Func::print_loop_nest), and the lowered statement.
    std::string loop_nest() const;
    void print_loop_nest() const;
    std::string lowered_stmt() const;
    void compile_to_lowered_stmt(const std::string &filename, StmtOutputFormat format = Text) const;

    /// Ahead of time, as the Func methods of the same names: one C function `fn_name` taking the
    /// arguments, then one buffer per output value of each output in turn.
    void compile_to_static_library(const std::string &prefix, const std::vector<Argument> &args,
                                   const std::string &fn_name,
                                   const Target &target = Target::host());
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target::host());
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target::host());
    void compile_to_file(const std::string &prefix, const std::vector<Argument> &args,
                         const std::string &fn_name, const Target &target = Target::host());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target = Target::host());
    void compile_to_llvm_ir(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name, const Target &target = Target::host());
    void compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name, const Target &target = Target::host());
    void compile_to(const std::map<OutputFileType, std::string> &output_files,
                    const std::vector<Argument> &args, const std::string &fn_name,
                    const Target &target = Target::host());
    /// The Params and ImageParams the pipeline reads (see Func::infer_arguments).
    std::vector<Argument> infer_arguments() const;

  private:
    std::vector<Func> outputs_;
};

}  // namespace dsl
