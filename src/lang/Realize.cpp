// Running pipelines with the JIT: lowering, compiling (once per distinct lowered pipeline),
// passing the inputs and outputs, and turning error codes into RuntimeErrors.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>

#include "codegen/TargetMapping.h"
#include "dsl/Func.h"
#include "dsl/Pipeline.h"
#include "dsl/Target.h"
#include "ir/Error.h"
#include "ir/IRPrinter.h"
#include "jit/DiskCache.h"
#include "jit/JITModule.h"
#include "jit/PipelineKey.h"
#include "lang/DefinitionKey.h"
#include "lang/Function.h"
#include "lang/JITCompile.h"
#include "lang/JITTarget.h"
#include "lang/Realize.h"

#include "jit/ExternFunctions.h"
#include "lang/StmtHtml.h"
#include "lang/StoredArguments.h"
#include "lowering/Lower.h"
#include "runtime/Runtime.h"

namespace dsl {

namespace {

using lang::CompiledPipeline;
using lang::Function;

/// A name usable as a C symbol.
std::string symbol_name(const std::string &func) {
    std::string s = "dsl_pipeline_";
    for (char c : func)
        s += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return s;
}

}  // namespace

namespace lang {
std::string names_of(const std::vector<Function> &outputs) {
    std::string s;
    for (const Function &o : outputs)
        s += (s.empty() ? "" : ", ") + o.name();
    return s;
}
}  // namespace lang

namespace {

using lang::names_of;

/// The JIT's compile cache: for each Func realized as an output and each target (with its LLVM
/// level and stride version), the pipeline last compiled for it. It lives here rather than in the
/// Func because lowering copies the Funcs it reads, on any thread, and must never read what another
/// thread is writing. Compilation runs outside the lock, so threads compile different pipelines at
/// once; threads that need the same Func's pipeline at once wait for the first one's compilation
/// (and get its error, if it fails).
class CompileCache {
  public:
    using Compiled = std::shared_ptr<CompiledPipeline>;

    /// The pipeline compiled for `f` when nothing that lowering reads has changed since
    /// (`epoch`, see lang::pipeline_epoch) and it was for the same target: no lowering needed.
    Compiled unchanged(const Function &f, uint64_t epoch, const std::string &target) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = entries_.find({&f.contents(), target});
        if (it == entries_.end() || it->second.func.lock() != f.shared()) return nullptr;
        const Entry &e = it->second;
        return e.epoch == epoch ? e.compiled : nullptr;
    }

    /// The pipeline for `f` whose lowered form is `key`: the cached one if it has that key,
    /// else `build()`'s. `epoch` is the pipeline epoch read before lowering.
    template <typename Build>
    Compiled get(const Function &f, const std::string &key, uint64_t epoch,
                 const std::string &target, const Build &build) {
        const lang::FunctionContents *id = &f.contents();
        std::promise<Compiled> promise;
        std::shared_future<Compiled> pending;
        bool mine = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            auto it = entries_.find({id, target});
            // The weak reference tells a live Func from a new one at a freed one's address.
            if (it != entries_.end() && it->second.func.lock() == f.shared() &&
                it->second.compiled->key == key) {
                it->second.epoch = epoch;
                return it->second.compiled;
            }
            auto flight = in_flight_.find({id, key});
            if (flight != in_flight_.end()) {
                pending = flight->second;
            } else {
                pending = promise.get_future().share();
                in_flight_[{id, key}] = pending;
                mine = true;
            }
        }
        if (!mine) return pending.get();
        Compiled compiled;
        try {
            compiled = build();
        } catch (...) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                in_flight_.erase({id, key});
            }
            promise.set_exception(std::current_exception());
            throw;
        }
        {
            std::lock_guard<std::mutex> lock(mutex_);
            in_flight_.erase({id, key});
            // Drop the pipelines of Funcs that no longer exist.
            for (auto e = entries_.begin(); e != entries_.end();)
                e = e->second.func.expired() ? entries_.erase(e) : std::next(e);
            entries_[{id, target}] = {f.shared(), compiled, epoch};
        }
        promise.set_value(compiled);
        return compiled;
    }

  private:
    struct Entry {
        std::weak_ptr<lang::FunctionContents> func;
        Compiled compiled;
        uint64_t epoch;  // the pipeline epoch its lowering started at
    };
    std::mutex mutex_;
    /// By Func and target (with the LLVM level and stride version).
    std::map<std::pair<const lang::FunctionContents *, std::string>, Entry> entries_;
    std::map<std::pair<const lang::FunctionContents *, std::string>, std::shared_future<Compiled>>
        in_flight_;
};

std::atomic<uint64_t> lowerings{0}, compilations{0};
std::atomic<uint64_t> disk_cache_hits{0}, disk_cache_misses{0}, disk_cache_rejected{0},
    disk_cache_stores{0};

void count_disk_cache_outcome(const jit::DiskCacheOutcome &outcome) {
    using Lookup = jit::DiskCacheOutcome::Lookup;
    if (outcome.lookup == Lookup::Hit) disk_cache_hits++;
    if (outcome.lookup == Lookup::Missing) disk_cache_misses++;
    if (outcome.lookup == Lookup::Rejected) disk_cache_rejected++;
    if (outcome.stored) disk_cache_stores++;
}

/// The pipeline of `outputs` for `target`, in the version for the strides `strides` names: the
/// one compiled last time when no Func or Param changed since (no lowering at all), else the
/// one in memory or in the disk cache under the key of its definitions (still no lowering),
/// else lowered and compiled.
std::shared_ptr<CompiledPipeline> compile(const std::vector<Function> &outputs,
                                          const Target &target, lowering::StrideVersions strides) {
    const Function &f = outputs[0];
    const std::string names = names_of(outputs);
    lang::check_jit_target(names, target, Target::host());
    codegen::CpuTarget cpu = codegen::cpu_target_for(target);
    cpu.opt_level = lang::jit_opt_level();
    std::string target_key = target.to_string() + " O" + std::to_string(cpu.opt_level) +
                             (strides == lowering::StrideVersions::Dense ? " dense" : " any");
    // The cache is by the first output; the others are part of what is compiled.
    for (size_t i = 1; i < outputs.size(); i++)
        target_key += " +" + outputs[i].name();
    // Functions bound by Pipeline::set_jit_externs are linked in: part of the key.
    std::map<std::string, void *> bound;
    for (const auto &[name, function] : outputs[0].contents().jit_externs) {
        bound[name] = function.address();
        std::ostringstream address;
        address << function.address();
        target_key += " extern " + name + "=" + address.str();
    }
    jit::ScopedJITExterns bind(bound);
    // Never destroyed: JIT modules must not outlive LLVM's own statics at exit.
    static CompileCache *cache = new CompileCache;
    // Read before lowering: a change made meanwhile (by another thread) makes the entry stale.
    uint64_t epoch = lang::pipeline_epoch();
    if (auto compiled = cache->unchanged(f, epoch, target_key)) return compiled;
    // The profiler names the pipeline after its outputs, as the user does.
    lowering::Instrumentation instrumentation = lowering::instrumentation_for(target);
    instrumentation.profile_name = names;
    lang::PipelineCompilation compilation(outputs, symbol_name(names), target_key, cpu, strides,
                                          instrumentation);
    lowerings += compilation.lowerings();
    return cache->get(f, compilation.key(), epoch, target_key, [&] {
        compilations++;
        int before = compilation.lowerings();
        std::shared_ptr<CompiledPipeline> compiled = compilation.compile();
        if (instrumentation.profile) compiled->profile_name = names;
        lowerings += compilation.lowerings() - before;
        count_disk_cache_outcome(compiled->jit->disk_cache_outcome());
        return compiled;
    });
}

/// The ParamMap of the call running on this thread (ScopedParamMap), or null.
thread_local const ParamMap *current_params = nullptr;

}  // namespace

lang::ScopedParamMap::ScopedParamMap(const ParamMap &params) : outer_(current_params) {
    current_params = &params;
}

lang::ScopedParamMap::~ScopedParamMap() {
    current_params = outer_;
}

namespace {

/// The value that the call's ParamMap gives input `in`, or null.
const ParamMap::Mapping *mapped(const lowering::PipelineInput &in) {
    if (!current_params || !in.param.defined()) return nullptr;
    return current_params->find(&in.param.contents());
}

/// The buffer input `in` reads: a Buffer the pipeline reads directly, else the ParamMap's,
/// else the ImageParam's (undefined if none).
Buffer<> bound_buffer(const lowering::PipelineInput &in) {
    if (in.buffer.defined()) return in.buffer;
    const ParamMap::Mapping *m = mapped(in);
    if (m && !m->is_scalar()) return m->buffer();  // undefined for a bounds-query pointer
    return in.param.contents().buffer;
}

/// The ImageParams without a buffer that infer_input_bounds() asks the pipeline about: each is
/// passed without memory, and the pipeline writes the region it needs into its dimensions.
struct BoundsQuery {
    struct Input {
        std::shared_ptr<ir::ParameterContents> param;
        /// Where the answer goes instead of the ImageParam (a ParamMap's `Buffer<> *`), if
        /// anywhere.
        const ParamMap::Mapping *out = nullptr;
        Type type;
        dsl_buffer_t raw{};
        std::vector<dsl_dimension_t> dims;
    };
    std::vector<std::unique_ptr<Input>> inputs;
    /// Each input's answer to the query before, which the query starts from (constraints read
    /// it: an input's extent set from another dimension's).
    std::map<const ir::ParameterContents *, std::vector<dsl_dimension_t>> before;
};

using TaskFn = int (*)(JITUserContext *, int, uint8_t *);
using DoTaskFn = int (*)(JITUserContext *, TaskFn, int, uint8_t *);

/// task(context, i, closure) for each i in [min, min + extent) on the thread pool, through
/// do_task if set.
int pool_par_for(JITUserContext *context, DoTaskFn do_task, TaskFn task, int min, int extent,
                 uint8_t *closure) {
    struct Iteration {
        JITUserContext *context;
        DoTaskFn do_task;
        TaskFn task;
        uint8_t *closure;
    } it{context, do_task, task, closure};
    auto one = [](void *c, int32_t index) -> int {
        const Iteration &i = *static_cast<const Iteration *>(c);
        return i.do_task ? i.do_task(i.context, i.task, index, i.closure)
                         : i.task(i.context, index, i.closure);
    };
    return dsl_runtime_default_parallel_for(one, &it, min, extent);
}

/// The runtime hooks that call a JITUserContext's handlers.
struct HandlerHooks {
    JITUserContext *context;
    JITHandlers handlers;
    dsl_runtime_hooks_t hooks{};

    HandlerHooks(const JITHandlers &of_func, JITUserContext *given) {
        handlers = of_func;
        if (given) {
            const JITHandlers &h = given->handlers;
            if (h.custom_print) handlers.custom_print = h.custom_print;
            if (h.custom_error) handlers.custom_error = h.custom_error;
            if (h.custom_malloc) handlers.custom_malloc = h.custom_malloc;
            if (h.custom_free) handlers.custom_free = h.custom_free;
            if (h.custom_trace) handlers.custom_trace = h.custom_trace;
            if (h.custom_do_par_for) handlers.custom_do_par_for = h.custom_do_par_for;
            if (h.custom_do_task) handlers.custom_do_task = h.custom_do_task;
        }
        own.handlers = handlers;
        context = given ? given : &own;
        hooks.context = this;
        hooks.user_context = context;
        if (handlers.custom_print) hooks.print = print;
        if (handlers.custom_error) hooks.error = error;
        if (handlers.custom_malloc) hooks.malloc = allocate;
        if (handlers.custom_free) hooks.free = release;
        if (handlers.custom_trace) hooks.trace = trace;
        if (handlers.custom_do_par_for || handlers.custom_do_task) hooks.do_par_for = par_for;
    }
    // hooks.context points at this object: it must stay where it was built.
    HandlerHooks(const HandlerHooks &) = delete;
    HandlerHooks &operator=(const HandlerHooks &) = delete;

  private:
    JITUserContext own;
    static HandlerHooks &of(void *c) { return *static_cast<HandlerHooks *>(c); }
    static void print(void *c, const char *line) {
        of(c).handlers.custom_print(of(c).context, line);
    }
    /// The message without the "Error: " that starts it when it is thrown or printed, as
    /// Halide's error handlers receive theirs.
    static void error(void *c, const char *message) {
        constexpr char prefix[] = "Error: ";
        constexpr size_t length = sizeof(prefix) - 1;
        if (std::strncmp(message, prefix, length) == 0) message += length;
        of(c).handlers.custom_error(of(c).context, message);
    }
    static void *allocate(void *c, uint64_t bytes) {
        return of(c).handlers.custom_malloc(of(c).context, static_cast<size_t>(bytes));
    }
    static void release(void *c, void *block) { of(c).handlers.custom_free(of(c).context, block); }
    static int32_t trace(void *c, const dsl_trace_event_t *event) {
        return of(c).handlers.custom_trace(of(c).context, event);
    }
    /// A parallel loop's iterations as Halide-style tasks: each runs the pipeline's iteration
    /// with these hooks (on whatever thread the handler picks) and keeps the first error.
    struct Task {
        dsl_task_fn fn;
        void *closure;
        const dsl_runtime_hooks_t *hooks;
        std::atomic<int> error{0};
    };
    static int run_task(JITUserContext *, int index, uint8_t *t) {
        Task &task = *reinterpret_cast<Task *>(t);
        const dsl_runtime_hooks_t *before = dsl_runtime_swap_hooks(task.hooks);
        int result = task.fn(task.closure, index);
        dsl_runtime_swap_hooks(before);
        int none = 0;
        if (result) task.error.compare_exchange_strong(none, result);
        return result;
    }
    static int par_for(void *c, dsl_task_fn fn, void *closure, int32_t min, int32_t extent) {
        HandlerHooks &h = of(c);
        Task task{fn, closure, &h.hooks};
        auto *t = reinterpret_cast<uint8_t *>(&task);
        int result =
            h.handlers.custom_do_par_for
                ? h.handlers.custom_do_par_for(h.context, run_task, min, extent, t)
                : pool_par_for(h.context, h.handlers.custom_do_task, run_task, min, extent, t);
        return result ? result : task.error.load();
    }
};

/// Runs the pipeline on `outputs`. With `output_query`, the outputs have no memory and the
/// pipeline only writes into their dimensions the regions they must have.
void run(const std::string &name, const CompiledPipeline &p,
         const std::vector<dsl_buffer_t *> &outputs, BoundsQuery *query = nullptr,
         const HandlerHooks *handlers = nullptr, bool output_query = false) {
    const ir::LoweredFunc &lf = p.lowered.module.functions[0];
    std::vector<void *> argv;
    std::vector<uint64_t> scalars(lf.args.size());
    size_t next_output = 0;
    for (size_t i = 0; i < lf.args.size(); i++) {
        const ir::LoweredArgument &a = lf.args[i];
        if (a.kind == ir::LoweredArgument::Kind::OutputBuffer) {
            dsl_buffer_t *out = outputs[next_output++];
            // The compiled function would take an output without memory for a bounds query.
            if (!output_query && !out->host && !out->device) {
                throw RuntimeError("Error: buffer \"" + a.name +
                                   "\" has no memory (its host "
                                   "pointer is null). Allocate it, or wrap memory that holds "
                                   "its elements.");
            }
            argv.push_back(out);
            continue;
        }
        const lowering::PipelineInput &in = p.lowered.inputs[i];
        const ParamMap::Mapping *m = mapped(in);
        if (!in.is_buffer) {
            const ir::ParameterContents &param = in.param.contents();
            user_assert(param.has_value || (m && m->is_scalar()))
                << "Param \"" << in.name << "\" has no value; call " << in.name
                << ".set(...) before realizing \"" << name << "\".";
            scalars[i] = m ? m->bits() : param.scalar_bits;
            argv.push_back(&scalars[i]);
        } else {
            const Buffer<> b = bound_buffer(in);
            if (query && !b.defined()) {
                auto q = std::make_unique<BoundsQuery::Input>();
                q->param = in.param.shared();
                q->out = m && m->takes_bounds() ? m : nullptr;
                q->type = in.type;
                q->dims.assign(static_cast<size_t>(std::max(in.dimensions, 1)),
                               dsl_dimension_t{0, 0, 1, 0});
                auto before = query->before.find(&in.param.contents());
                if (before != query->before.end()) q->dims = before->second;
                q->raw.type = detail::to_raw_type(in.type);
                q->raw.dimensions = in.dimensions;
                q->raw.dim = q->dims.data();
                argv.push_back(&q->raw);
                query->inputs.push_back(std::move(q));
                continue;
            }
            user_assert(b.defined())
                << "ImageParam \"" << in.name << "\" has no buffer; call " << in.name
                << ".set(buffer) before realizing \"" << name << "\".";
            // A compiled library treats an input without memory as a bounds query; realize()
            // has no way to answer one, and would compute nothing.
            if (!b.raw_buffer()->host) {
                throw RuntimeError("Error: input \"" + in.name + "\" of \"" + name +
                                   "\" has no memory (its host pointer is null). Pass a buffer "
                                   "that holds the input's elements.");
            }
            argv.push_back(b.raw_buffer());
        }
    }
    // Buffers the caller put on a device keep their device copies (see Buffer::copy_to_device).
    std::vector<bool> on_device_before(lf.args.size(), false);
    for (size_t i = 0; i < lf.args.size(); i++) {
        if (lf.args[i].is_buffer())
            on_device_before[i] = static_cast<dsl_buffer_t *>(argv[i])->device != 0;
    }
    dsl_runtime_clear_last_error();
    // Installed for every call, handlers or not: they also carry the user context that
    // user_context_value() hands extern stages.
    const dsl_runtime_hooks_t *outer =
        handlers ? dsl_runtime_swap_hooks(&handlers->hooks) : nullptr;
    int status = p.jit->argv_function(lf.name)(argv.data());
    // A profiled pipeline reports after each run, through the call's print handler (Halide's
    // JIT does so too); the report covers the runs since dsl_profiler_reset().
    if (!p.profile_name.empty() && !output_query)
        dsl_profiler_report_pipeline(p.profile_name.c_str());
    if (handlers) dsl_runtime_swap_hooks(outer);
    // GPU kernels leave their outputs on the device: realize() hands back host buffers, so
    // bring home what it put there and release those copies.
    for (size_t i = 0; i < lf.args.size(); i++) {
        if (!lf.args[i].is_buffer() || on_device_before[i]) continue;
        auto *raw = static_cast<dsl_buffer_t *>(argv[i]);
        if (!raw->device) continue;
        int copied = status == 0 ? dsl_buffer_copy_to_host(raw) : 0;
        int freed = dsl_buffer_device_free(raw);
        if (status == 0) status = copied ? copied : freed;
    }
    // A custom error handler has had the message: realize() returns, as Halide's does.
    if (status != 0 && handlers && handlers->handlers.custom_error) return;
    if (status != 0) {
        std::string message = dsl_runtime_last_error();
        if (message.empty())
            message =
                "Error: pipeline \"" + name + "\" failed with code " + std::to_string(status) + ".";
        throw RuntimeError(message);
    }
}

/// Whether every buffer `p` reads or writes is dense in its first dimension (stride 1), as the
/// version of a pipeline compiled with StrideVersions::Dense needs.
bool all_dense(const CompiledPipeline &p, const std::vector<Buffer<>> &outputs) {
    auto dense = [](const Buffer<> &b) {
        const dsl_buffer_t *raw = b.defined() ? b.raw_buffer() : nullptr;
        return !raw || raw->dimensions == 0 || raw->dim[0].stride == 1;
    };
    for (const lowering::PipelineInput &in : p.lowered.inputs) {
        if (!in.is_buffer) continue;
        if (!dense(bound_buffer(in))) return false;
    }
    for (const Buffer<> &b : outputs) {
        if (!dense(b)) return false;
    }
    return true;
}

void check_outputs(const std::vector<Function> &funcs, const std::vector<Buffer<>> &outputs) {
    size_t values = 0;
    for (const Function &f : funcs)
        values += static_cast<size_t>(f.outputs());
    const std::string names = names_of(funcs);
    user_assert(outputs.size() == values)
        << (funcs.size() == 1 ? "Func \"" + names + "\" computes "
                              : "The pipeline of \"" + names + "\" computes ")
        << values << " value" << (values == 1 ? "" : "s") << " per point, but realize() was given "
        << outputs.size() << " buffer" << (outputs.size() == 1 ? "" : "s") << ".";
    size_t k = 0;
    for (const Function &f : funcs) {
        for (int i = 0; i < f.outputs(); i++, k++) {
            const Buffer<> &b = outputs[k];
            user_assert(b.defined())
                << "realize of \"" << f.name() << "\" into an undefined buffer.";
            user_assert(b.type() == f.output_types()[i])
                << "Func \"" << f.name() << "\" computes " << f.output_types()[i]
                << " but output buffer " << k << " (\"" << b.name() << "\") holds " << b.type()
                << ".";
            user_assert(b.dimensions() == f.dimensions())
                << "Func \"" << f.name() << "\" has " << f.dimensions()
                << " dimensions but output buffer " << k << " (\"" << b.name() << "\") has "
                << b.dimensions() << ".";
        }
    }
}

}  // namespace

namespace lang {
JITCounters jit_counters() {
    return {lowerings.load(),         compilations.load(),        disk_cache_hits.load(),
            disk_cache_misses.load(), disk_cache_rejected.load(), disk_cache_stores.load()};
}

void count_lowerings(int n) {
    lowerings += static_cast<uint64_t>(n);
}
}  // namespace lang

int default_do_par_for(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *),
                       int min, int extent, uint8_t *closure) {
    return pool_par_for(context, context ? context->handlers.custom_do_task : nullptr, task, min,
                        extent, closure);
}

int default_do_task(JITUserContext *context, int (*task)(JITUserContext *, int, uint8_t *),
                    int index, uint8_t *closure) {
    return task(context, index, closure);
}

/// Refuses outputs without a definition; `what` ends the message ("realizing it").
void require_defined(const std::vector<Function> &outputs, const char *what) {
    for (const Function &f : outputs) {
        user_assert(f.has_pure_definition())
            << "Func \"" << f.name() << "\" has no definition; define it before " << what << ".";
    }
}

namespace lang {

namespace {

/// The compiled pipeline of `outputs` for `buffers`: the version for dense buffers, the common
/// case (and what compile_jit() prepares); the one for any strides is compiled the first time a
/// buffer that is not dense comes.
std::shared_ptr<CompiledPipeline> compiled_for(const std::vector<Function> &outputs,
                                               const std::vector<Buffer<>> &buffers,
                                               const Target &target) {
    check_outputs(outputs, buffers);
    auto compiled = compile(outputs, target, lowering::StrideVersions::Dense);
    if (!all_dense(*compiled, buffers))
        compiled = compile(outputs, target, lowering::StrideVersions::Any);
    return compiled;
}

/// The name of a buffer realize() makes: the Func's, numbered, so that buffers of two realizations
/// of one Func (or two values of one Tuple) read by one later pipeline are distinct inputs.
std::string realized_buffer_name(const std::string &func) {
    static std::atomic<int> counter{0};
    return func + "_" + std::to_string(counter.fetch_add(1));
}

std::vector<dsl_buffer_t *> raw_buffers(const std::vector<Buffer<>> &buffers) {
    std::vector<dsl_buffer_t *> raws;
    for (const Buffer<> &b : buffers)
        raws.push_back(b.raw_buffer());
    return raws;
}

/// The region each of `buffers` (the outputs' buffers, in order) must have for the pipeline to
/// compute theirs: the answer of a bounds query on outputs without memory.
std::vector<std::vector<dsl_dimension_t>> regions_needed(const std::vector<Function> &outputs,
                                                         const CompiledPipeline &compiled,
                                                         const std::vector<Buffer<>> &buffers,
                                                         JITUserContext *context) {
    std::vector<dsl_buffer_t> asked(buffers.size());
    std::vector<std::vector<dsl_dimension_t>> dims(buffers.size());
    std::vector<dsl_buffer_t *> raws;
    for (size_t i = 0; i < buffers.size(); i++) {
        const dsl_buffer_t *b = buffers[i].raw_buffer();
        dims[i].assign(b->dim, b->dim + b->dimensions);
        asked[i] = *b;
        asked[i].host = nullptr;
        asked[i].device = 0;
        asked[i].device_interface = nullptr;
        asked[i].dim = dims[i].data();
        raws.push_back(&asked[i]);
    }
    HandlerHooks handlers(outputs[0].contents().jit_handlers, context);
    run(names_of(outputs), compiled, raws, nullptr, &handlers, true);
    return dims;
}

/// Buffers over [0, size) for every value of each output.
std::vector<Buffer<>> output_buffers(const std::vector<Function> &outputs,
                                     const std::vector<int> &sizes) {
    std::vector<Buffer<>> buffers;
    for (const Function &f : outputs) {
        user_assert(static_cast<int>(sizes.size()) == f.dimensions())
            << "Func \"" << f.name() << "\" has " << f.dimensions()
            << " dimensions, but realize() was given " << sizes.size() << " sizes.";
        for (int i = 0; i < f.outputs(); i++)
            buffers.emplace_back(f.output_types()[i], sizes, realized_buffer_name(f.name()));
    }
    return buffers;
}

}  // namespace

void realize_pipeline(const std::vector<Function> &outputs, const std::vector<Buffer<>> &buffers,
                      const Target &target, JITUserContext *context) {
    require_defined(outputs, "realizing it");
    HandlerHooks handlers(outputs[0].contents().jit_handlers, context);
    run(names_of(outputs), *compiled_for(outputs, buffers, target), raw_buffers(buffers), nullptr,
        &handlers);
}

std::vector<Buffer<>> realize_pipeline(const std::vector<Function> &outputs,
                                       const std::vector<int> &sizes, const Target &target,
                                       JITUserContext *context) {
    require_defined(outputs, "realizing it");
    std::vector<Buffer<>> buffers = output_buffers(outputs, sizes);
    auto compiled = compiled_for(outputs, buffers, target);
    if (compiled->lowered.outputs_may_grow) {
        // Halide's realize(): where updates or rounded-up splits write outside the region asked
        // for, compute into buffers as large as the pipeline needs and return the region asked
        // for, a crop of them.
        std::vector<std::vector<dsl_dimension_t>> needed =
            regions_needed(outputs, *compiled, buffers, context);
        bool grew = false;
        for (size_t i = 0; i < buffers.size(); i++) {
            for (int d = 0; d < buffers[i].dimensions(); d++) {
                grew |= needed[i][d].min != buffers[i].dim(d).min() ||
                        needed[i][d].extent != buffers[i].dim(d).extent();
            }
        }
        if (grew) {
            std::vector<Buffer<>> larger;
            for (size_t i = 0; i < buffers.size(); i++) {
                std::vector<int> mins, extents;
                for (const dsl_dimension_t &d : needed[i]) {
                    mins.push_back(d.min);
                    extents.push_back(d.extent);
                }
                larger.emplace_back(buffers[i].type(), extents, buffers[i].name());
                if (!mins.empty()) larger.back().set_min(mins);
            }
            realize_pipeline(outputs, larger, target, context);
            for (size_t i = 0; i < buffers.size(); i++) {
                Buffer<> crop = larger[i];
                for (int d = 0; d < crop.dimensions(); d++)
                    crop.crop(d, buffers[i].dim(d).min(), buffers[i].dim(d).extent());
                buffers[i] = crop;
            }
            return buffers;
        }
    }
    realize_pipeline(outputs, buffers, target, context);
    return buffers;
}

void infer_input_bounds(const std::vector<Function> &outputs, const std::vector<int> &sizes,
                        const Target &target) {
    require_defined(outputs, "inferring the bounds of its inputs");
    infer_input_bounds(outputs, output_buffers(outputs, sizes), target);
}

void infer_input_bounds(const std::vector<Function> &outputs, const std::vector<Buffer<>> &buffers,
                        const Target &target) {
    require_defined(outputs, "inferring the bounds of its inputs");
    auto compiled = compiled_for(outputs, buffers, target);
    bool any_unbound = false;
    for (const lowering::PipelineInput &in : compiled->lowered.inputs) {
        any_unbound |= in.is_buffer && in.param.defined() && !bound_buffer(in).defined();
    }
    // An output without memory (Buffer(nullptr, sizes)) is asked too: it gets the region the
    // pipeline writes, with the constraints on it applied.
    bool output_query = false;
    for (const Buffer<> &b : buffers)
        output_query |= !b.raw_buffer()->host && !b.raw_buffer()->device;
    if (!any_unbound && !output_query) return;  // nothing to ask: the pipeline is not run
    // Asked again while an answer changes: a constraint may read a region another answer
    // moves (an input's extent set from the output's, the output's from itself), as Halide
    // asks until the regions stop changing.
    constexpr int kMaxPasses = 16;
    std::vector<std::shared_ptr<ir::ParameterContents>> answered;
    std::vector<std::vector<int>> previous;
    std::map<const ir::ParameterContents *, std::vector<dsl_dimension_t>> before;
    for (int pass = 0;; pass++) {
        user_assert(pass < kMaxPasses)
            << "Inferring the bounds of the inputs of \"" << names_of(outputs)
            << "\": the regions still change after " << kMaxPasses
            << " queries (a constraint that grows a region every time it is applied?). Make "
               "the constraints reach a fixed point.";
        for (const auto &param : answered)
            param->buffer = Buffer<>();  // asked again
        answered.clear();
        BoundsQuery query;
        query.before = before;
        run(names_of(outputs), *compiled, raw_buffers(buffers), &query, nullptr, output_query);
        std::vector<std::vector<int>> regions;
        for (const auto &q : query.inputs) {
            before[q->param.get()] = q->dims;
            std::vector<int> sizes, mins;
            for (int d = 0; d < q->raw.dimensions; d++) {
                sizes.push_back(q->dims[d].extent);
                mins.push_back(q->dims[d].min);
            }
            Buffer<> b(q->type, sizes, q->param->name);
            if (!mins.empty()) b.set_min(mins);
            if (q->out) {
                q->out->set_bounds(b);
            } else {
                q->param->buffer = b;
                answered.push_back(q->param);
            }
            regions.push_back(mins);
            regions.push_back(sizes);
        }
        for (const Buffer<> &o : buffers) {
            std::vector<int> region;
            for (int d = 0; d < o.dimensions(); d++) {
                region.push_back(o.min(d));
                region.push_back(o.extent(d));
            }
            regions.push_back(region);
        }
        if (regions == previous) return;
        previous = std::move(regions);
    }
}

void compile_pipeline_jit(const std::vector<Function> &outputs, const Target &target) {
    require_defined(outputs, "compiling it");
    compile(outputs, target, lowering::StrideVersions::Dense);
}

lowering::LoweredPipeline lower_pipeline(const std::vector<Function> &outputs) {
    return lowering::lower(outputs, symbol_name(names_of(outputs)));
}

Target default_jit_target(const Function &f) {
    const std::optional<Target> &compiled = f.contents().jit_target;
    return compiled ? *compiled : get_jit_target_from_environment();
}

}  // namespace lang

Realization Func::realize(const std::vector<int> &sizes) {
    return realize(sizes, lang::default_jit_target(Function(contents_)));
}

Realization Func::realize(const std::vector<int> &sizes, const Target &target) {
    return Realization(lang::realize_pipeline({Function(contents_)}, sizes, target));
}

void Func::realize(const Realization &outputs) {
    realize(outputs, lang::default_jit_target(Function(contents_)));
}

void Func::realize(const Realization &outputs, const Target &target) {
    lang::realize_pipeline({Function(contents_)}, outputs.buffers(), target);
}

Realization Func::realize(JITUserContext *context, const std::vector<int> &sizes) {
    return realize(context, sizes, lang::default_jit_target(Function(contents_)));
}

Realization Func::realize(JITUserContext *context, const std::vector<int> &sizes,
                          const Target &target) {
    return Realization(lang::realize_pipeline({Function(contents_)}, sizes, target, context));
}

void Func::realize(JITUserContext *context, const Realization &outputs) {
    realize(context, outputs, lang::default_jit_target(Function(contents_)));
}

void Func::realize(JITUserContext *context, const Realization &outputs, const Target &target) {
    lang::realize_pipeline({Function(contents_)}, outputs.buffers(), target, context);
}

JITHandlers &Func::jit_handlers() {
    return contents_->jit_handlers;
}

void Func::infer_input_bounds(const std::vector<int> &sizes, const Target &target) {
    lang::infer_input_bounds({Function(contents_)}, sizes, target);
}

void Func::infer_input_bounds(const Realization &outputs, const Target &target) {
    lang::infer_input_bounds({Function(contents_)}, outputs.buffers(), target);
}

Realization Func::realize(const std::vector<int> &sizes, const Target &target,
                          const ParamMap &params) {
    return Pipeline(*this).realize(sizes, target, params);
}

void Func::realize(const Realization &outputs, const Target &target, const ParamMap &params) {
    Pipeline(*this).realize(outputs, target, params);
}

void Func::infer_input_bounds(const std::vector<int> &sizes, const Target &target,
                              const ParamMap &params) {
    Pipeline(*this).infer_input_bounds(sizes, target, params);
}

void Func::infer_input_bounds(const Buffer<> &output, const Target &target) {
    infer_input_bounds(Realization({output}), target);
}

void Func::compile_jit(const Target &target) {
    contents_->jit_target = target;
    lang::compile_pipeline_jit({Function(contents_)}, target);
}

std::string Func::loop_nest() {
    return lang::lower_pipeline({Function(contents_)}).loop_nest;
}

void Func::print_loop_nest() {
    std::cout << loop_nest();
}

std::string Func::lowered_stmt() {
    return ir::module_text(lang::lower_pipeline({Function(contents_)}).module);
}

namespace {
void write_text(const std::string &filename, const std::string &text, const char *what) {
    std::ofstream out(filename);
    user_assert(out.good()) << what << ": cannot write \"" << filename << "\".";
    out << text;
}
}  // namespace

void Func::compile_to_llvm_ir(const std::string &filename, const Target &target) {
    auto lowered = lang::lower_pipeline({Function(contents_)});
    write_text(filename,
               codegen::compile_to_llvm_ir_text(lowered.module, codegen::cpu_target_for(target)),
               "compile_to_llvm_ir");
}

std::string lang::device_code(const std::vector<Function> &outputs, const Target &target,
                              DeviceAPI api) {
    auto lowered = lower_pipeline(outputs);
    user_assert(!lowered.module.kernels.empty())
        << "\"" << names_of(outputs)
        << "\" has no GPU loops (gpu_blocks, gpu_threads or gpu_tile in its schedule), so it "
           "has no device code to write. Schedule some of its loops on the GPU, or write its "
           "assembly (compile_to_assembly) instead.";
    codegen::GPUCode code =
        codegen::compile_gpu_kernels(lowered.module, codegen::cpu_target_for(target));
    if (api == DeviceAPI::OpenCL) return code.opencl;
    if (api == DeviceAPI::CUDA) return code.ptx;
    return code.opencl + code.ptx;
}

void Func::compile_to_device_code(const std::string &filename, const Target &target) {
    write_text(filename, lang::device_code({Function(contents_)}, target, DeviceAPI::Default_GPU),
               "compile_to_device_code");
}

void Func::compile_to_assembly(const std::string &filename, const Target &target) {
    auto lowered = lang::lower_pipeline({Function(contents_)});
    write_text(filename,
               codegen::compile_to_assembly_text(lowered.module, codegen::cpu_target_for(target)),
               "compile_to_assembly");
}

void Func::compile_to_lowered_stmt(const std::string &filename) {
    write_text(filename, lowered_stmt(), "compile_to_lowered_stmt");
}

void Func::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &,
                                   StmtOutputFormat format, const Target &) {
    std::string text = lowered_stmt();
    write_text(filename, format == HTML ? lang::lowered_stmt_html(text, name()) : text,
               "compile_to_lowered_stmt");
}

}  // namespace dsl
