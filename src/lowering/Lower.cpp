#include "lowering/Lower.h"

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "ir/CSE.h"
#include "ir/Error.h"
#include "ir/IRPrinter.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "lowering/AutoTails.h"
#include "lowering/BoundsInference.h"
#include "lowering/BufferChecks.h"
#include "lowering/BufferConstraints.h"
#include "lowering/ComputeWith.h"
#include "lowering/DividedRampLoads.h"
#include "lowering/EarlyFrees.h"
#include "lowering/FuncValueBounds.h"
#include "lowering/FuzzFloatStores.h"
#include "lowering/HoistInvariantCalls.h"
#include "lowering/IndexConstants.h"
#include "lowering/InlineFunctions.h"
#include "lowering/Memoization.h"
#include "lowering/OffloadGPULoops.h"
#include "lowering/OffloadNPULoops.h"
#include "lowering/PartitionLoops.h"
#include "lowering/Profiling.h"
#include "lowering/RealizationOrder.h"
#include "lowering/RegisterAccumulators.h"
#include "lowering/ScheduleFunctions.h"
#include "lowering/SkipStages.h"
#include "lowering/SpecializeDenseBuffers.h"
#include "lowering/StorageFlattening.h"
#include "lowering/Tracing.h"
#include "lowering/TransposedGathers.h"
#include "lowering/TrimNoOps.h"
#include "lowering/UnrollLoops.h"
#include "lowering/UnswitchUniformSelects.h"
#include "lowering/VectorizeLoops.h"
#include "schedule/RaceConditions.h"

namespace dsl::lowering {

using namespace ir;

namespace {

int env_int(const char *name) {
    const char *v = std::getenv(name);
    return v ? std::atoi(v) : 0;
}

/// Prints and times the passes, as DSL_DEBUG and DSL_DEBUG_TIMING ask.
class PassLog {
  public:
    /// `function` names the pipeline in each line: several pipelines may be lowered at once (a
    /// model's kernels are).
    explicit PassLog(std::string function)
        : function_(std::move(function)),
          debug_(env_int("DSL_DEBUG")),
          timing_(env_int("DSL_DEBUG_TIMING")),
          last_(now()) {}
    void pass(const char *name, const Stmt &s) {
        auto t = now();
        double ms = std::chrono::duration<double, std::milli>(t - last_).count();
        // One write per line, so that lines of pipelines lowered at once do not mix.
        std::ostringstream line;
        if (timing_)
            line << "dsl: lowering " << function_ << ", pass " << name << ": " << ms << " ms\n";
        if (debug_ >= 2) line << "dsl: " << function_ << " after " << name << ":\n" << s << "\n";
        if (timing_ || debug_ >= 2) std::cerr << line.str();
        last_ = now();
    }

  private:
    static std::chrono::steady_clock::time_point now() { return std::chrono::steady_clock::now(); }
    std::string function_;
    int debug_, timing_;
    std::chrono::steady_clock::time_point last_;
};

class LoopNestPrinter : public IRVisitor {
  public:
    explicit LoopNestPrinter(const Environment *env) : env_(env) {}
    std::ostringstream out;

  protected:
    using IRVisitor::visit;
    void visit(const ProducerConsumer *op) override {
        if (!op->is_producer) {
            include(op->body);
            return;
        }
        line() << "produce " << op->name << note(op->name, false) << ":\n";
        depth_++;
        include(op->body);
        depth_--;
    }
    void visit(const For *op) override {
        if (env_) {
            // A prefetch's loops over its region: one line says what it fetches.
            auto prefetch = env_->prefetch_notes.find(op->name);
            if (prefetch != env_->prefetch_notes.end()) {
                line() << prefetch->second << "\n";
                return;
            }
        }
        line() << (op->for_type == ForType::Serial ? ""
                                                   : std::string(to_string(op->for_type)) + " ")
               << "for " << op->name << ":\n";
        depth_++;
        include(op->body);
        depth_--;
    }
    void visit(const Provide *op) override { line() << op->name << "(...) = ...\n"; }
    void visit(const Realize *op) override {
        // Stored where it is computed: the produce line says it all.
        const auto *first =
            op->body.as<Block>() ? op->body.as<Block>()->first.as<ProducerConsumer>() : nullptr;
        if (first && first->name == op->name && first->is_producer) {
            include(op->body);
            return;
        }
        line() << "store " << op->name << note(op->name, true) << ":\n";
        depth_++;
        include(op->body);
        depth_--;
    }
    void visit(const LetStmt *op) override { include(op->body); }
    void visit(const IfThenElse *op) override {
        // A specialization shows its condition; a split's guard just that there is a test.
        bool specialization = op->else_case.defined();
        if (specialization) {
            line() << "if " << op->condition << ":\n";
        } else {
            line() << "if (...):\n";
        }
        depth_++;
        include(op->then_case);
        depth_--;
        if (specialization) {
            line() << "else:\n";
            depth_++;
            include(op->else_case);
            depth_--;
        }
    }

  private:
    std::string note(const std::string &func, bool store) const {
        if (!env_) return "";
        const auto &notes = store ? env_->store_notes : env_->produce_notes;
        auto it = notes.find(func);
        return it == notes.end() ? "" : " (" + it->second + ")";
    }
    std::ostream &line() {
        for (int i = 0; i < depth_; i++)
            out << "  ";
        return out;
    }
    const Environment *env_;
    int depth_ = 0;
};

}  // namespace

std::string print_loop_nest(const Stmt &s, const Environment *env) {
    LoopNestPrinter p(env);
    p.include(s);
    return p.out.str();
}

Instrumentation instrumentation_for(const Target &target) {
    Instrumentation i;
    i.trace.loads = target.has_feature(Target::TraceLoads);
    i.trace.stores = target.has_feature(Target::TraceStores);
    i.trace.realizations = target.has_feature(Target::TraceRealizations);
    i.trace.pipeline = target.has_feature(Target::TracePipeline);
    i.profile = target.has_feature(Target::Profile) || target.has_feature(Target::ProfileByTimer);
    i.fuzz_float_stores = target.has_feature(Target::FuzzFloatStores);
    return i;
}

LoweredPipeline lower(const std::vector<lang::Function> &outputs, const std::string &name,
                      StrideVersions strides, Instrumentation instrumentation) {
    auto start = std::chrono::steady_clock::now();
    LoweredPipeline result;
    PassLog log(name);
    Environment env;

    inline_functions(env, outputs);
    realization_order(env);
    // The memoized Funcs' keys, before memoize_tag leaves the definitions.
    const std::map<std::string, MemoizationKey> memoized = memoization_keys(env);
    // What each Func's values can be, for the coordinates read from Funcs.
    const ir::FuncValueBounds value_bounds = func_value_bounds(env);
    ir::ScopedFuncValueBounds use_value_bounds(&value_bounds);
    for (const std::string &func_name : env.order) {
        schedule::serialize_grouped_vector_folds(env.funcs.at(func_name));
        schedule::check_race_conditions(env.func(func_name));
    }
    resolve_compute_levels(env);
    check_compute_with(env);
    resolve_auto_tails(env);
    Stmt s = schedule_functions(env);
    log.pass("schedule functions", s);
    result.loop_nest = print_loop_nest(s, &env);

    s = bounds_inference(env, s);
    log.pass("bounds inference", s);

    s = skip_stages(s);
    log.pass("skip stages", s);

    s = add_memoization(env, memoized, s);
    log.pass("memoization", s);

    s = add_tracing(env, s, instrumentation.trace);
    if (instrumentation.profile) {
        const std::string &label =
            instrumentation.profile_name.empty() ? name : instrumentation.profile_name;
        s = add_profiling(env, label, s);
    }

    // Flattening first: the checks' constraints are assumed in the addresses it computes too.
    s = storage_flattening(env, s);
    log.pass("storage flattening", s);

    if (instrumentation.fuzz_float_stores) {
        s = fuzz_float_stores(s);
        log.pass("fuzz float stores", s);
    }

    std::vector<Expr> memoization_keys_read;
    for (const auto &[func, key] : memoized) {
        memoization_keys_read.insert(memoization_keys_read.end(), key.values.begin(),
                                     key.values.end());
        if (key.eviction_key.defined()) memoization_keys_read.push_back(key.eviction_key);
    }
    std::vector<PipelineInput> inputs = find_inputs(env, memoization_keys_read);
    std::vector<BufferConstraint> constraints = buffer_constraints(env, inputs);
    s = add_buffer_checks(env, inputs, constraints, s, &result.outputs_may_grow);
    s = flatten_input_calls(s);
    log.pass("buffer checks", s);

    // Before the passes that reshape loops (vectors, partitions): the NPU nest as scheduled.
    s = offload_npu_loops(env, s, result.module);
    log.pass("offload NPU loops", s);

    // Versions for dense and strided buffers, over the buffers whose first stride no
    // constraint fixes.
    std::vector<std::string> buffer_args;
    auto add_buffer = [&](const std::string &b) {
        if (!find_constraint(constraints, b, 0, ir::BufferField::Stride)) buffer_args.push_back(b);
    };
    for (const PipelineInput &in : inputs) {
        if (in.is_buffer && in.dimensions > 0) add_buffer(in.name);
    }
    for (const std::string &o : env.outputs) {
        const lang::Function &func = env.func(o);
        if (func.dimensions() == 0) continue;
        for (int i = 0; i < func.outputs(); i++)
            add_buffer(names::func_buffer(o, i, func.outputs()));
    }
    s = specialize_dense_buffers(buffer_args, s, strides);
    log.pass("specialize dense buffers", s);

    s = simplify(s);
    log.pass("simplify", s);

    if (!env.fused.empty()) {
        s = drop_guards_implied_by_loops(s);
        log.pass("fused loops' range tests", s);
    }

    s = trim_no_ops(s);
    log.pass("trim no-ops", s);

    s = unroll_loops(s);
    s = simplify(s);
    log.pass("unroll loops", s);

    s = vectorize_loops(s);
    s = simplify(s);
    log.pass("vectorize loops", s);

    s = unswitch_uniform_selects(s);
    log.pass("unswitch uniform selects", s);

    s = partition_loops(s);
    s = simplify(s);
    log.pass("partition loops", s);

    s = keep_accumulators_in_registers(s);
    log.pass("accumulators in registers", s);

    s = transpose_gathers(s);
    log.pass("transposed gathers", s);

    s = dense_loads_of_divided_ramps(s);
    log.pass("loads of divided ramps", s);

    s = move_index_constants_out(s);
    log.pass("index constants", s);

    s = hoist_invariant_calls(s);
    log.pass("invariant calls out of parallel loops and kernels", s);

    s = common_subexpression_elimination(s);
    log.pass("common subexpression elimination", s);

    LoweredFunc f;
    f.name = name;
    for (const PipelineInput &in : inputs) {
        f.args.push_back(
            {in.name,
             in.is_buffer ? LoweredArgument::Kind::InputBuffer : LoweredArgument::Kind::Scalar,
             in.type, in.dimensions});
    }
    for (const std::string &o : env.outputs) {
        const lang::Function &func = env.func(o);
        for (int i = 0; i < func.outputs(); i++) {
            f.args.push_back({names::func_buffer(o, i, func.outputs()),
                              LoweredArgument::Kind::OutputBuffer, func.output_types()[i],
                              func.dimensions()});
        }
    }

    std::set<std::string> argument_buffers;
    for (const LoweredArgument &a : f.args) {
        if (a.kind != LoweredArgument::Kind::Scalar) argument_buffers.insert(a.name);
    }
    s = offload_gpu_loops(s, name, argument_buffers, result.module.kernels);
    log.pass("offload GPU loops", s);

    s = add_early_frees(s);
    log.pass("frees after last uses", s);

    f.body = s;
    for (const BufferConstraint &c : constraints)
        f.requirements.push_back(describe(c));
    result.module.name = name;
    result.module.functions.push_back(f);
    result.inputs = inputs;
    result.outputs = env.outputs;
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (env_int("DSL_DEBUG") >= 1) std::cerr << "dsl: lowered " << name << ":\n" << s << "\n";
    return result;
}

}  // namespace dsl::lowering
