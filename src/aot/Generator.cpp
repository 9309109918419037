// GeneratorBase: the members a generator declares, its params set from text, and building and
// compiling its pipeline (dsl/Generator.h).
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "dsl/Generator.h"
#include "dsl/Pipeline.h"
#include "lang/Function.h"
#include "lang/Realize.h"

namespace dsl {

namespace {

// The generator whose members are being constructed on this thread, and the bytes it spans.
struct UnderConstruction {
    GeneratorBase *generator = nullptr;
    const char *begin = nullptr;
    size_t size = 0;
};
thread_local UnderConstruction under_construction;

std::string in_quotes(const std::string &s) {
    return "\"" + s + "\"";
}

template <typename Members>
std::string member_names(const Members &members) {
    std::string s;
    for (const auto *m : members)
        s += (s.empty() ? "" : ", ") + m->member_name();
    return s;
}

// How messages about the generator `name` start.
std::string error_prefix(const std::string &name) {
    return name.empty() ? "Error: unnamed Generator: "
                        : "Error: Generator " + in_quotes(name) + ": ";
}

std::string kind_word(detail::GeneratorMember::Kind kind) {
    switch (kind) {
        case detail::GeneratorMember::Kind::Param:
            return "GeneratorParam";
        case detail::GeneratorMember::Kind::Input:
            return "Input";
        case detail::GeneratorMember::Kind::Output:
            return "Output";
    }
    return "member";
}

}  // namespace

namespace detail {

GeneratorMember::GeneratorMember(Kind kind, const std::string &name) : kind_(kind), name_(name) {
    const char *self = reinterpret_cast<const char *>(this);
    const UnderConstruction &c = under_construction;
    if (c.generator == nullptr || self < c.begin || self >= c.begin + c.size) {
        throw CompileError("Error: " + kind_word(kind) + " " + in_quotes(name) +
                           " is declared outside a Generator; declare it as a data member of a "
                           "class derived from dsl::Generator<YourClass>.");
    }
}

void join_generator(GeneratorParamBase *member) {
    under_construction.generator->check_new_name(member);
    under_construction.generator->params_.push_back(member);
}

void join_generator(GeneratorInputBase *member) {
    under_construction.generator->check_new_name(member);
    under_construction.generator->inputs_.push_back(member);
}

void join_generator(GeneratorOutputBase *member) {
    under_construction.generator->check_new_name(member);
    under_construction.generator->outputs_.push_back(member);
}

}  // namespace detail

GeneratorBase::RegistrationScope::RegistrationScope(GeneratorBase *generator, size_t object_size) {
    under_construction.generator = generator;
    under_construction.begin = reinterpret_cast<const char *>(generator);
    under_construction.size = object_size;
}

GeneratorBase::GeneratorBase(size_t object_size) : registration_scope_(this, object_size) {}

GeneratorBase::~GeneratorBase() {
    if (under_construction.generator == this) under_construction = UnderConstruction();
}

void GeneratorBase::check_new_name(const detail::GeneratorMember *member) const {
    auto same_name = [&](const auto &members) {
        for (const auto *m : members) {
            if (m->member_name() == member->member_name()) return true;
        }
        return false;
    };
    if (same_name(params_) || same_name(inputs_) || same_name(outputs_)) {
        throw CompileError("Error: a Generator declares two members named " +
                           in_quotes(member->member_name()) +
                           " (GeneratorParams, Inputs and Outputs share one namespace, and "
                           "\"target\" is built in); rename one.");
    }
}

void GeneratorBase::set_param(const std::string &name, const std::string &value) {
    const std::string who = error_prefix(name_);
    if (pipeline_) {
        throw CompileError(who + "cannot set " + in_quotes(name) +
                           " after the pipeline is built; set every GeneratorParam first.");
    }
    for (detail::GeneratorParamBase *p : params_) {
        if (p->member_name() != name) continue;
        try {
            p->set_from_string(value);
        } catch (const CompileError &e) {
            throw CompileError(who + detail::without_error_prefix(e.what()));
        }
        return;
    }
    std::string hint;
    for (const detail::GeneratorInputBase *in : inputs_) {
        if (in->member_name() == name) {
            hint = " " + in_quotes(name) +
                   " is an Input: its value is passed when the compiled function runs.";
        }
    }
    throw CompileError(who + "there is no GeneratorParam " + in_quotes(name) + "." + hint +
                       " Its GeneratorParams are: " + member_names(params_) + ".");
}

void GeneratorBase::check_input_count(size_t count) const {
    if (count == inputs_.size()) return;
    std::string names;
    for (const detail::GeneratorInputBase *in : inputs_)
        names += (names.empty() ? "" : ", ") + in->member_name();
    throw CompileError(error_prefix(name_) + "apply() gives " + std::to_string(count) +
                       " values for its " + std::to_string(inputs_.size()) + " Inputs (" +
                       (names.empty() ? std::string("none") : names) +
                       "); give one per Input, in declaration order.");
}

Pipeline GeneratorBase::build_pipeline() {
    if (pipeline_) return *pipeline_;
    const std::string who = error_prefix(name_);
    if (outputs_.empty()) {
        throw CompileError(who +
                           "it declares no Output; declare one, e.g. "
                           "Output<Buffer<uint8_t, 2>> output{\"output\"};");
    }
    for (detail::GeneratorInputBase *in : inputs_)
        in->prepare(name_);
    try {
        call_generate();
        std::vector<Func> outs;
        for (detail::GeneratorOutputBase *out : outputs_) {
            out->check_defined();
            outs.push_back(out->output_func());
        }
        for (size_t i = 0; i < outs.size(); i++) {
            for (size_t j = 0; j < i; j++) {
                if (outs[i].name() != outs[j].name()) continue;
                throw CompileError("the Outputs " + in_quotes(outputs_[j]->member_name()) +
                                   " and " + in_quotes(outputs_[i]->member_name()) +
                                   " are the same Func " + in_quotes(outs[i].name()) +
                                   "; define each Output as its own Func.");
            }
        }
        call_schedule();
        if (using_autoscheduler()) {
            MachineParams params = machine_params.value().empty()
                                       ? MachineParams::host()
                                       : MachineParams(machine_params.value());
            const std::string name = autoscheduler.value().empty() ? "dsl" : autoscheduler.value();
            schedule_source_ =
                Pipeline(outs).auto_schedule(name, get_target(), params).schedule_source;
        }
        pipeline_ = Pipeline(outs);
    } catch (const CompileError &e) {
        throw CompileError(who + detail::without_error_prefix(e.what()));
    }
    return *pipeline_;
}

TuneResults GeneratorBase::tune(const TuneOptions &options) {
    if (pipeline_) {
        throw CompileError(error_prefix(name_) +
                           "tune() builds the pipeline itself; call it before anything else "
                           "builds it.");
    }
    if (!using_autoscheduler()) autoscheduler.set("dsl");
    Pipeline p = build_pipeline();
    for (detail::GeneratorInputBase *in : inputs_)
        in->bind_for_tuning(name_, options.seed);
    try {
        TuneResults r = p.auto_tune(get_target(), options);
        schedule_source_ = r.schedule_source;
        return r;
    } catch (const CompileError &e) {
        throw CompileError(error_prefix(name_) + detail::without_error_prefix(e.what()));
    }
}

namespace detail {

void bind_random_buffer(ImageParam &p, const std::string &generator_name, uint64_t seed) {
    std::vector<int> mins, sizes;
    for (int d = 0; d < p.dimensions(); d++) {
        Dimension dim = p.dim(d);
        if (!dim.min_estimate().defined() || !dim.extent_estimate().defined()) {
            throw CompileError(error_prefix(generator_name) + "Input " + in_quotes(p.name()) +
                               " has no estimate of dimension " + std::to_string(d) +
                               "; the tuner makes an input of the estimated size: give one in "
                               "schedule(), e.g. " +
                               p.name() + ".dim(" + std::to_string(d) + ").set_estimate(0, 1024).");
        }
        mins.push_back(evaluate<int32_t>(dim.min_estimate()));
        sizes.push_back(evaluate<int32_t>(dim.extent_estimate()));
    }
    Buffer<> b(p.type(), sizes);
    // Values in [0, 1) for floats, bytes in [0, 255] otherwise (small enough that sums of a
    // few stay in range; the tuner compares schedules with each other, not with a reference).
    std::mt19937_64 rng(seed);
    const size_t n = static_cast<size_t>(b.number_of_elements());
    const Type t = p.type();
    if (t.is_float() && t.bits() == 32) {
        float *v = static_cast<float *>(b.data());
        for (size_t i = 0; i < n; i++)
            v[i] = static_cast<float>(rng() % 65536) / 65536.0f;
    } else if (t.is_float() && t.bits() == 64) {
        double *v = static_cast<double *>(b.data());
        for (size_t i = 0; i < n; i++)
            v[i] = static_cast<double>(rng() % 65536) / 65536.0;
    } else {
        uint8_t *v = static_cast<uint8_t *>(b.data());
        const size_t bytes = static_cast<size_t>(t.bytes());
        for (size_t i = 0; i < n; i++) {
            std::memset(v + i * bytes, 0, bytes);
            v[i * bytes] = static_cast<uint8_t>(rng() % (t.is_bool() ? 2 : 256));
        }
    }
    for (int d = 0; d < p.dimensions(); d++)
        b.translate(d, mins[d]);
    p.set(b);
}

}  // namespace detail

std::vector<Argument> GeneratorBase::arguments() const {
    std::vector<Argument> args;
    for (const detail::GeneratorInputBase *in : inputs_)
        args.push_back(in->argument());
    return args;
}

std::string GeneratorBase::emit_word(Emit e) {
    switch (e) {
        case Emit::StaticLibrary:
            return "static_library";
        case Emit::Header:
            return "h";
        case Emit::Object:
            return "object";
        case Emit::Stmt:
            return "stmt";
        case Emit::Assembly:
            return "assembly";
        case Emit::LlvmIr:
            return "llvm_ir";
        case Emit::PTX:
            return "ptx";
        case Emit::OpenCL:
            return "cl";
        case Emit::Schedule:
            return "schedule";
    }
    return "";
}

std::string GeneratorBase::emit_extension(Emit e) {
    switch (e) {
        case Emit::StaticLibrary:
            return ".a";
        case Emit::Header:
            return ".h";
        case Emit::Object:
            return ".o";
        case Emit::Stmt:
            return ".stmt";
        case Emit::Assembly:
            return ".s";
        case Emit::LlvmIr:
            return ".ll";
        case Emit::PTX:
            return ".ptx";
        case Emit::OpenCL:
            return ".cl";
        case Emit::Schedule:
            return ".schedule.h";
    }
    return "";
}

void GeneratorBase::emit(const std::string &output_dir, const std::string &function_name,
                         const std::vector<Emit> &emits) {
    const std::string fn = function_name.empty() ? name_ : function_name;
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec || !std::filesystem::is_directory(output_dir)) {
        throw CompileError(error_prefix(name_) + "cannot create the output folder " +
                           in_quotes(output_dir) + (ec ? " (" + ec.message() + ")" : "") +
                           "; pass a folder you can write to with -o.");
    }
    Pipeline f = build_pipeline();
    const std::vector<Argument> args = arguments();
    const Target t = get_target();
    const std::string base = (std::filesystem::path(output_dir) / fn).string();
    try {
        for (Emit e : emits) {
            const std::string file = base + emit_extension(e);
            switch (e) {
                case Emit::StaticLibrary:
                    f.compile_to_static_library(base, args, fn, t);
                    break;
                case Emit::Header:
                    f.compile_to_header(file, args, fn, t);
                    break;
                case Emit::Object:
                    f.compile_to_object(file, args, fn, t);
                    break;
                case Emit::Stmt:
                    f.compile_to_lowered_stmt(file);
                    break;
                case Emit::Assembly:
                    f.compile_to_assembly(file, args, fn, t);
                    break;
                case Emit::LlvmIr:
                    f.compile_to_llvm_ir(file, args, fn, t);
                    break;
                case Emit::Schedule: {
                    if (!using_autoscheduler()) {
                        throw CompileError(error_prefix(name_) +
                                           "-e schedule writes the schedule the autoscheduler "
                                           "chose, but none ran; add autoscheduler=dsl.");
                    }
                    std::ofstream out(file);
                    out << schedule_source_;
                    if (!out.good())
                        throw CompileError(error_prefix(name_) + "cannot write " + in_quotes(file) +
                                           ".");
                    break;
                }
                case Emit::PTX:
                case Emit::OpenCL: {
                    bool ptx = e == Emit::PTX;
                    if (!t.has_feature(ptx ? Target::Feature::CUDA : Target::Feature::OpenCL)) {
                        throw CompileError(
                            error_prefix(name_) + "-e " + emit_word(e) + " writes the " +
                            (ptx ? "PTX of CUDA" : "OpenCL C of OpenCL") +
                            " kernels, but the target " + in_quotes(t.to_string()) + " has no " +
                            (ptx ? "cuda" : "opencl") + " feature; add it (e.g. " + "target=host-" +
                            (ptx ? "cuda" : "opencl") + ").");
                    }
                    std::ofstream out(file);
                    std::vector<lang::Function> outs;
                    for (const Func &o : f.outputs())
                        outs.push_back(lang::Function(o.contents()));
                    out << lang::device_code(outs, t, ptx ? DeviceAPI::CUDA : DeviceAPI::OpenCL);
                    if (!out.good())
                        throw CompileError(error_prefix(name_) + "cannot write " + in_quotes(file) +
                                           ".");
                    break;
                }
            }
        }
    } catch (const CompileError &e) {
        throw CompileError(error_prefix(name_) + detail::without_error_prefix(e.what()));
    }
}

namespace detail {

int declared_dimensions(const std::string &kind, const std::string &name, int dims,
                        int dimensions) {
    if (dimensions != AnyDims && dims != AnyDims && dimensions != dims) {
        throw CompileError("Error: the " + kind + " " + in_quotes(name) + " is a Buffer<T, " +
                           std::to_string(dims) + "> but its constructor gives " +
                           std::to_string(dimensions) + " dimensions; make them agree.");
    }
    if (dimensions < AnyDims || dimensions > 16) {
        throw CompileError("Error: the " + kind + " " + in_quotes(name) + " is declared with " +
                           std::to_string(dimensions) + " dimensions; give 0 to 16.");
    }
    return dimensions != AnyDims ? dimensions : dims;
}

Type required_type(const std::string &generator_name, const std::string &kind,
                   const std::string &name, const Type &t) {
    if (t == Type()) {
        throw CompileError(error_prefix(generator_name) + "the element type of " + kind + " " +
                           in_quotes(name) + " is not set; pass " + name + ".type=<type> (one of " +
                           type_name_list() + ").");
    }
    return t;
}

int required_dimensions(const std::string &generator_name, const std::string &kind,
                        const std::string &name, int dimensions) {
    if (dimensions < 0) {
        throw CompileError(error_prefix(generator_name) + "the number of dimensions of " + kind +
                           " " + in_quotes(name) + " is not set; pass " + name +
                           ".dim=<0 to 16>, or declare it as Buffer<T, dimensions>.");
    }
    return dimensions;
}

void GeneratorInputBase::bind_scalar(const void *, const Type &t) {
    throw CompileError("Error: the Input " + in_quotes(member_name()) +
                       " is a buffer, but apply() gives it a " + t.to_string() +
                       "; give a Buffer.");
}

void GeneratorInputBase::bind_buffer(const Buffer<> &) {
    throw CompileError("Error: the Input " + in_quotes(member_name()) +
                       " is a scalar, but apply() gives it a Buffer; give a number.");
}

void check_output_func(const std::string &output_name, const Func &f, int dimensions,
                       const std::optional<Type> &type) {
    if (!f.defined()) {
        throw CompileError("generate() did not define the Output " + in_quotes(output_name) +
                           "; define it, e.g. " + output_name + "(x, y) = ...;");
    }
    if (f.outputs() != 1) {
        throw CompileError("the Output " + in_quotes(output_name) + " is defined with a Tuple of " +
                           std::to_string(f.outputs()) +
                           " values; generators support one value per Output.");
    }
    if (dimensions != AnyDims && f.dimensions() != dimensions) {
        throw CompileError("the Output " + in_quotes(output_name) + " is declared with " +
                           std::to_string(dimensions) + " dimensions but generate() defines " +
                           f.name() + " with " + std::to_string(f.dimensions()) +
                           "; make them agree.");
    }
    if (type && f.type() != *type) {
        throw CompileError("the Output " + in_quotes(output_name) + " holds " + type->to_string() +
                           " but generate() defines it with " + f.type().to_string() +
                           " values; cast the value, e.g. " + output_name + "(x, y) = cast(" +
                           type->to_string() + ", ...), or change the Output's type.");
    }
}

}  // namespace detail

}  // namespace dsl
