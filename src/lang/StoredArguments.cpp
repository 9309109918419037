#include "lang/StoredArguments.h"

#include <charconv>
#include <cstring>
#include <sstream>

#include "ir/Names.h"

namespace dsl::lang {

namespace {

/// Reads the fields of describe_arguments' lines.
class Reader {
  public:
    explicit Reader(const std::string &s) : s_(s) {}
    bool done() const { return pos_ == s_.size(); }
    /// Whether the next line starts with `prefix`; if so, skips it.
    bool skip(const char *prefix) {
        size_t n = std::strlen(prefix);
        if (s_.compare(pos_, n, prefix) != 0) return false;
        pos_ += n;
        return true;
    }

    /// A number followed by `end`.
    bool number(int64_t *v, char end) {
        const char *first = s_.data() + pos_, *last = s_.data() + s_.size();
        auto [ptr, ec] = std::from_chars(first, last, *v);
        if (ec != std::errc() || ptr == last || *ptr != end) return false;
        pos_ += static_cast<size_t>(ptr - first) + 1;
        return true;
    }
    bool name(std::string *out) {
        int64_t length;
        if (!number(&length, ':') || length < 0 ||
            static_cast<uint64_t>(length) + 1 > s_.size() - pos_ ||
            s_[pos_ + static_cast<size_t>(length)] != '\n') {
            return false;
        }
        *out = s_.substr(pos_, static_cast<size_t>(length));
        pos_ += static_cast<size_t>(length) + 1;
        return true;
    }

  private:
    const std::string &s_;
    size_t pos_ = 0;
};

std::string describe(const ir::LoweredArgument &a) {
    std::ostringstream s;
    s << (a.kind == ir::LoweredArgument::Kind::InputBuffer    ? "input buffer"
          : a.kind == ir::LoweredArgument::Kind::OutputBuffer ? "output buffer"
                                                              : "scalar")
      << " \"" << a.name << "\" (" << a.type << ", " << a.dimensions << " dimensions)";
    return s.str();
}

}  // namespace

std::string describe_arguments(const ir::LoweredFunc &f, const std::vector<std::string> &warnings,
                               bool outputs_may_grow, const DefinitionKey &names) {
    std::string s = outputs_may_grow ? "grow\n" : "";
    for (const ir::LoweredArgument &a : f.args) {
        for (int v : {static_cast<int>(a.kind), static_cast<int>(a.type.code()), a.type.bits(),
                      a.type.lanes(), a.dimensions}) {
            s += std::to_string(v) + ' ';
        }
        const std::string name = names.rename(a.name);
        s += std::to_string(name.size()) + ':' + name + '\n';
    }
    for (const std::string &w : warnings)
        s += "w " + std::to_string(w.size()) + ':' + w + '\n';
    return s;
}

bool restore_arguments(const std::string &stored, const std::vector<Function> &output_funcs,
                       const std::string &function, const DefinitionKey &key,
                       lowering::LoweredPipeline *pipeline, std::vector<std::string> *warnings,
                       std::string *problem) {
    using Kind = ir::LoweredArgument::Kind;
    ir::LoweredFunc f;
    f.name = function;
    std::vector<lowering::PipelineInput> inputs;
    // The output buffers the function must take, in order: each Func's values.
    struct Expected {
        const Function *func;
        int index;
    };
    std::vector<Expected> expected;
    std::string names;
    for (const Function &o : output_funcs) {
        for (int i = 0; i < o.outputs(); i++)
            expected.push_back({&o, i});
        names += (names.empty() ? "\"" : ", \"") + o.name() + "\"";
    }
    int outputs = 0;
    Reader reader(stored);
    std::vector<std::string> kept;
    bool grow = false;
    while (!reader.done()) {
        if (reader.skip("grow\n")) {
            grow = true;
            continue;
        }
        if (reader.skip("w ")) {
            std::string w;
            if (!reader.name(&w)) {
                *problem = "its list of warnings does not parse";
                return false;
            }
            kept.push_back(w);
            continue;
        }
        int64_t kind, code, bits, lanes, dimensions;
        ir::LoweredArgument a;
        if (!reader.number(&kind, ' ') || !reader.number(&code, ' ') ||
            !reader.number(&bits, ' ') || !reader.number(&lanes, ' ') ||
            !reader.number(&dimensions, ' ') || !reader.name(&a.name) || kind < 0 || kind > 2 ||
            code < 0 || code > static_cast<int>(TypeCode::BFloat) || bits < 1 || bits > 64 ||
            lanes < 1 || lanes > 1024 || dimensions < 0 || dimensions > 16) {
            *problem = "its argument list does not parse";
            return false;
        }
        a.kind = static_cast<Kind>(kind);
        a.type = Type(static_cast<TypeCode>(code), static_cast<int>(bits), static_cast<int>(lanes));
        a.dimensions = static_cast<int>(dimensions);
        if (a.kind == Kind::OutputBuffer) {
            size_t k = static_cast<size_t>(outputs++);
            bool ok = k < expected.size();
            if (ok) {
                const Function &o = *expected[k].func;
                int i = expected[k].index;
                ok = a.type == o.output_types()[i] && a.dimensions == o.dimensions() &&
                     a.name == key.rename(ir::names::func_buffer(o.name(), i, o.outputs()));
            }
            if (!ok) {
                *problem = "its " + describe(a) + " is not an output of " + names;
                return false;
            }
        } else {
            auto it = key.inputs.find(a.name);
            if (outputs > 0 || it == key.inputs.end() ||
                it->second.is_buffer != (a.kind == Kind::InputBuffer) ||
                it->second.type != a.type || it->second.dimensions != a.dimensions) {
                *problem = "its " + describe(a) + " is not an input of " + names;
                return false;
            }
            inputs.push_back(it->second);
        }
        f.args.push_back(a);
    }
    if (static_cast<size_t>(outputs) != expected.size()) {
        *problem = "it has " + std::to_string(outputs) + " output buffers, not " +
                   std::to_string(expected.size());
        return false;
    }
    pipeline->module = {};
    pipeline->module.name = function;
    pipeline->module.functions.push_back(f);
    pipeline->inputs = std::move(inputs);
    pipeline->outputs.clear();
    for (const Function &o : output_funcs)
        pipeline->outputs.push_back(o.name());
    pipeline->loop_nest.clear();
    pipeline->seconds = 0;
    pipeline->outputs_may_grow = grow;
    *warnings = std::move(kept);
    return true;
}

}  // namespace dsl::lang
