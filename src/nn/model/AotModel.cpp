// Compiling a model ahead of time: one static library and a C header (dsl/nn/Model.h).
#include "nn/model/AotModel.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "aot/AotModule.h"
#include "aot/CallSequence.h"
#include "codegen/TargetMapping.h"
#include "dsl/Error.h"
#include "dsl/nn/Model.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/Lower.h"
#include "nn/graph/DataDependentShapes.h"
#include "nn/graph/InputShapes.h"
#include "nn/graph/OpBuilder.h"
#include "nn/graph/QdqFusion.h"
#include "nn/graph/Rewrite.h"
#include "nn/model/CompiledModel.h"
#include "nn/onnx/OnnxReader.h"
#include "runtime/RuntimeObjects.h"

namespace dsl::nn {

namespace {

/// Offsets in one arena: each block at the lowest 64-byte aligned offset where it fits among
/// the live ones.
class ArenaPlanner {
  public:
    int64_t allocate(int64_t bytes) {
        bytes = std::max<int64_t>(64, (bytes + 63) / 64 * 64);
        int64_t offset = 0;
        for (const auto &[start, size] : live_) {
            if (start - offset >= bytes) break;
            offset = std::max(offset, start + size);
        }
        live_.insert({offset, bytes});
        peak_ = std::max(peak_, offset + bytes);
        return offset;
    }
    void release(int64_t offset) {
        auto it = std::find_if(live_.begin(), live_.end(),
                               [&](const auto &b) { return b.first == offset; });
        internal_assert(it != live_.end()) << "arena block at " << offset << " released twice";
        live_.erase(it);
    }
    int64_t peak() const { return peak_; }

  private:
    std::set<std::pair<int64_t, int64_t>> live_;  ///< (offset, bytes), by offset
    int64_t peak_ = 0;
};

/// Plans and writes the library of one compiled model.
class StaticModelWriter {
  public:
    StaticModelWriter(const model::CompiledModel &cm, const graph::Graph &g,
                      const StaticModelOptions &options)
        : cm_(cm), g_(g), options_(options) {}

    StaticModel write(const std::string &directory) {
        seq_.name = options_.name + "_run";
        seq_.gpu = options_.target.has_gpu_feature();
        declare_arguments();
        ArenaPlanner arena;
        std::map<std::string, int64_t> arena_offset;
        ir::Module pipelines;
        pipelines.name = options_.name;
        // The function compiled for each canonical key, and its arguments' canonical names:
        // a step of the same key (a repeated block) calls it with its own buffers.
        std::map<std::string, const model::Kernel *> compiled;
        for (const model::CompiledModel::Step &s : cm_.steps()) {
            place_output(s, arena, arena_offset);
            const lowering::LoweredPipeline &lowered = s.kernel->lowered();
            const ir::LoweredFunc &lf = lowered.module.functions.at(0);
            // This step's buffer for each of its arguments.
            std::vector<int> buffers;
            std::vector<bool> writes;
            for (size_t i = 0; i < lf.args.size(); i++) {
                const ir::LoweredArgument &a = lf.args[i];
                const bool output = a.kind == ir::LoweredArgument::Kind::OutputBuffer;
                writes.push_back(output);
                if (output) {
                    buffers.push_back(where_.at(s.output));
                    continue;
                }
                const lowering::PipelineInput &in = lowered.inputs.at(i);
                internal_assert(in.is_buffer) << s.where << ": a scalar argument in a static model";
                buffers.push_back(in.buffer.defined() ? constant_buffer(in.buffer)
                                                      : runtime_buffer(s, in));
            }
            aot::SequenceCall call;
            // On a GPU target, a step without kernels reads and writes on the host.
            call.on_host = seq_.gpu && !s.gpu;
            const std::string &key = s.kernel->canonical_key();
            auto shared = key.empty() ? compiled.end() : compiled.find(key);
            if (shared != compiled.end()) {
                // The first function of this key, with this step's buffers in its order.
                const model::Kernel &first = *shared->second;
                call.function = first.lowered().module.functions.at(0).name;
                const std::vector<std::string> &mine = s.kernel->canonical_arguments();
                for (const std::string &name : first.canonical_arguments()) {
                    auto at = std::find(mine.begin(), mine.end(), name);
                    internal_assert(at != mine.end())
                        << s.where << ": no argument " << name << " for the shared function "
                        << call.function;
                    const size_t i = static_cast<size_t>(at - mine.begin());
                    call.buffers.push_back(buffers[i]);
                    call.writes.push_back(writes[i]);
                }
                result_.shared_steps++;
            } else {
                if (!key.empty()) compiled[key] = s.kernel.get();
                call.function = lf.name;
                call.buffers = buffers;
                call.writes = writes;
                pipelines.functions.push_back(lf);
                for (const ir::GPUKernel &k : lowered.module.kernels)
                    pipelines.kernels.push_back(k);
            }
            if (elements(s.output) > 0) seq_.calls.push_back(call);
            for (const std::string &dead : s.last_uses) {
                arena.release(arena_offset.at(dead));
            }
        }
        seq_.arena_bytes = arena.peak();
        result_.arena_bytes = arena.peak();
        result_.pipelines = static_cast<int>(pipelines.functions.size());

        std::filesystem::create_directories(std::filesystem::path(directory) / "dsl" / "runtime");
        result_.library = (std::filesystem::path(directory) / (options_.name + ".a")).string();
        result_.header = (std::filesystem::path(directory) / (options_.name + ".h")).string();
        std::vector<std::pair<std::string, std::string>> members;
        members.push_back(
            {options_.name + ".o",
             aot::compile_call_sequence(pipelines, seq_, codegen::cpu_target_for(target()))});
        for (const runtime::EmbeddedObject &o : runtime::runtime_objects())
            members.push_back(
                {o.name, std::string(reinterpret_cast<const char *>(o.data), o.size)});
        aot::write_static_library(result_.library, members);
        aot::write_file(result_.header, header(), "dsl-onnx compile");
        aot::write_file(
            (std::filesystem::path(directory) / "dsl" / "runtime" / "dsl_runtime.h").string(),
            model::runtime_header_text(), "dsl-onnx compile");
        return result_;
    }

  private:
    [[noreturn]] void fail(const std::string &m) const { throw CompileError(g_.source + ": " + m); }

    Target target() const {
        return options_.fp_contract ? options_.target.with_feature(Target::Feature::FP_CONTRACT)
                                    : options_.target;
    }

    int64_t elements(const std::string &value) const {
        int64_t n = 1;
        for (int e : extents_.at(value))
            n *= e;
        return n;
    }

    int add_buffer(const aot::SequenceBuffer &b) {
        seq_.buffers.push_back(b);
        return static_cast<int>(seq_.buffers.size()) - 1;
    }

    /// The model's inputs, then its outputs, are the entry point's arguments.
    void declare_arguments() {
        std::set<std::string> c_names;
        auto argument = [&](const std::string &name, const std::string &type, Type t,
                            const std::vector<int> &extents) {
            std::string c;
            for (char ch : name)
                c += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
            if (c.empty() || std::isdigit(static_cast<unsigned char>(c[0]))) c = "v" + c;
            std::string unique = c;
            for (int k = 2; c_names.count(unique); k++)
                unique = c + "_" + std::to_string(k);
            c_names.insert(unique);
            c_arguments_.push_back(unique);
            aot::SequenceBuffer b;
            b.kind = aot::SequenceBuffer::Kind::Argument;
            b.argument = static_cast<int>(seq_.arguments.size());
            seq_.arguments.push_back(unique);
            b.type = t;
            b.extents = extents;
            where_[name] = add_buffer(b);
            extents_[name] = extents;
            ModelValue mv;
            mv.name = name;
            mv.type = type;
            for (auto e = extents.rbegin(); e != extents.rend(); ++e)
                mv.shape.push_back(std::to_string(*e));
            return mv;
        };
        for (const graph::ValueInfo &v : g_.inputs) {
            std::vector<int> extents;
            for (auto d = v.shape->rbegin(); d != v.shape->rend(); ++d)
                extents.push_back(static_cast<int>(d->value));
            result_.inputs.push_back(
                argument(v.name, graph::onnx_type_name(*v.type), *v.type, extents));
        }
        std::map<std::string, const model::CompiledModel::Step *> producer;
        for (const model::CompiledModel::Step &s : cm_.steps())
            producer[s.output] = &s;
        for (const ModelValue &o : cm_.outputs()) {
            if (!producer.count(o.name) || where_.count(o.name)) {
                fail("output \"" + o.name + "\" is " +
                     (where_.count(o.name) ? "an input or another output" : "a constant") +
                     " of the model; a compiled library computes each output with a pipeline, "
                     "so this model cannot be compiled ahead of time.");
            }
            // Its extents are known once its step is planned; the argument is filled in then.
            seq_.outputs.push_back(static_cast<int>(seq_.arguments.size()));
            result_.outputs.push_back(argument(o.name, o.type, producer[o.name]->type, {}));
        }
    }

    /// The output of step `s`: its extents, and a block of the arena unless it is a model
    /// output (an argument).
    void place_output(const model::CompiledModel::Step &s, ArenaPlanner &arena,
                      std::map<std::string, int64_t> &arena_offset) {
        if (!s.value_params.empty()) {
            fail(s.where + ": the shape or indices of \"" + s.output +
                 "\" depend on the values of \"" + s.value_params[0].value +
                 "\", which the model computes; a compiled library needs them known while "
                 "compiling.");
        }
        std::map<std::string, Expr> bindings;
        for (size_t j = 0; j < s.inputs.size(); j++) {
            const std::vector<int> &in = extents_.at(s.inputs[j]);
            for (size_t d = 0; d < s.extent_names[j].size(); d++)
                bindings[s.extent_names[j][d]] = Expr(in.at(d));
        }
        std::vector<int> extents;
        int64_t n = 1;
        for (int64_t extent : s.extents(bindings)) {
            n *= std::max<int64_t>(extent, 1);
            if (extent < 0 || n > std::numeric_limits<int32_t>::max()) {
                fail(s.where + ": output \"" + s.output + "\" would have an extent of " +
                     std::to_string(extent) + " or more than 2^31 - 1 elements.");
            }
            extents.push_back(static_cast<int>(extent));
        }
        extents_[s.output] = extents;
        auto w = where_.find(s.output);
        if (w != where_.end()) {
            // A model output: its argument.
            seq_.buffers[static_cast<size_t>(w->second)].extents = extents;
            for (ModelValue &o : result_.outputs) {
                if (o.name != s.output) continue;
                o.shape.clear();
                for (auto e = extents.rbegin(); e != extents.rend(); ++e)
                    o.shape.push_back(std::to_string(*e));
            }
            return;
        }
        aot::SequenceBuffer b;
        b.kind = aot::SequenceBuffer::Kind::Arena;
        b.type = s.type;
        b.extents = extents;
        b.offset = arena.allocate(elements(s.output) * s.type.bytes());
        arena_offset[s.output] = b.offset;
        where_[s.output] = add_buffer(b);
    }

    int constant_buffer(const Buffer<> &c) {
        auto found = constants_.find(c.data());
        if (found != constants_.end()) return found->second;
        aot::SequenceBuffer b;
        b.kind = aot::SequenceBuffer::Kind::Constant;
        b.type = c.type();
        for (int d = 0; d < c.dimensions(); d++) {
            internal_assert(c.stride(d) == (d ? c.stride(d - 1) * c.extent(d - 1) : 1))
                << "a model constant is not dense";
            b.extents.push_back(c.extent(d));
        }
        b.data = c.data();
        result_.constant_bytes += c.number_of_elements() * c.type().bytes();
        return constants_[c.data()] = add_buffer(b);
    }

    int runtime_buffer(const model::CompiledModel::Step &s, const lowering::PipelineInput &in) {
        for (size_t j = 0; j < s.params.size(); j++) {
            if (s.params[j]->contents() == in.param.shared()) return where_.at(s.inputs[j]);
        }
        internal_error << s.where << ": no value for the pipeline's input \"" << in.name << "\"";
        return -1;
    }

    std::string header() const {
        std::string guard = "DSL_MODEL_";
        for (char c : options_.name)
            guard += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        guard += "_H";
        std::ostringstream h;
        h << "/* Generated by dsl-onnx from "
          << std::filesystem::path(g_.source).filename().string() << ": do not edit. */\n#ifndef "
          << guard << "\n#define " << guard << "\n\n"
          << "#include \"dsl/runtime/dsl_runtime.h\"\n\n"
          << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
          << "/* Runs the model on these sizes only (shapes as ONNX writes them, outermost "
             "first):\n";
        size_t a = 0;
        auto line = [&](const ModelValue &v, const char *kind) {
            h << " *   " << c_arguments_[a++] << ": " << kind << ", " << v.type << " (";
            for (size_t i = 0; i < v.shape.size(); i++)
                h << (i ? ", " : "") << v.shape[i];
            h << ")\n";
        };
        for (const ModelValue &v : result_.inputs)
            line(v, "input");
        for (const ModelValue &v : result_.outputs)
            line(v, "output");
        h << " * A buffer's dimension 0 is the innermost axis (a numpy array of shape (1, 3, 8, "
             "8)\n"
          << " * is a dsl_buffer_t of extents 8, 8, 3, 1), from 0, with stride 1 and rows that\n"
          << " * follow one another (dimension 1's stride equal to dimension 0's extent: a dense\n"
          << " * array). Returns 0, or a\n"
          << " * dsl_error_code_t after reporting the error to the handler (see\n"
          << " * dsl_set_error_handler). The intermediate tensors live in one static arena of\n"
          << " * " << result_.arena_bytes << " bytes: one call at a time."
          << (seq_.gpu ? "\n * Its kernels run on the GPU (" + options_.target.to_string() +
                             "): the intermediates and the\n * constants keep their device "
                             "copies from call to call; the arguments are host\n * memory "
                             "before and after (outputs copied back, device copies released)."
                       : std::string())
          << " */\n"
          << "int " << seq_.name << "(";
        for (size_t i = 0; i < c_arguments_.size(); i++)
            h << (i ? ", " : "") << "dsl_buffer_t *" << c_arguments_[i];
        h << ");\n\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif\n";
        return h.str();
    }

    const model::CompiledModel &cm_;
    const graph::Graph &g_;
    const StaticModelOptions &options_;
    aot::CallSequence seq_;
    StaticModel result_;
    std::vector<std::string> c_arguments_;
    /// Each value's buffer in the sequence and its extents (innermost first).
    std::map<std::string, int> where_;
    std::map<std::string, std::vector<int>> extents_;
    std::map<const void *, int> constants_;
};

}  // namespace

StaticModel compile_model_to_static_library(const std::string &path, const std::string &directory,
                                            const StaticModelOptions &options) {
    if (!aot::is_c_identifier(options.name)) {
        throw CompileError(path + ": the name of a compiled model must be a C identifier, not \"" +
                           options.name + "\".");
    }
    if (options.target.arch != Target::host().arch) {
        throw CompileError(path + ": a compiled model carries the runtime for " +
                           Target::host().to_string() + " only, not for " +
                           options.target.to_string() + ".");
    }
    graph::Graph g = onnx::read_model(path);
    graph::fix_input_shapes(g, options.shapes, "a compiled library has fixed sizes");
    graph::fold_into_convolutions(g);
    graph::count_selected_elements(g);
    if (options.fuse_quantized) graph::fuse_quantized_groups(g);
    ModelOptions mo;
    mo.target = options.target;
    mo.fp_contract = options.fp_contract;
    mo.fuse_quantized = options.fuse_quantized;
    mo.fixed_point_requantization = options.fixed_point_requantization;
    mo.auto_schedule = options.auto_schedule;
    std::unique_ptr<model::CompiledModel> cm;
    try {
        cm = std::make_unique<model::CompiledModel>(g, mo, std::map<std::string, Buffer<>>{},
                                                    options.name);
    } catch (const graph::NeedsInputValues &e) {
        throw CompileError(std::string(e.what()) +
                           " A compiled library cannot be specialized on an input's values.");
    }
    return StaticModelWriter(*cm, g, options).write(directory);
}

}  // namespace dsl::nn
