// The key of a pipeline before lowering (lang/DefinitionKey.h): the Funcs in the order they are
// first met, each with its definitions and schedule, in the serialisation of jit/KeyWriter.h.
// A reference to a Func, Param, reduction domain or buffer is its number (with a letter for
// its kind); the first reference to a Param, domain or buffer is followed by what it holds, and
// a Func's contents follow those of the Func before it.
#include "lang/DefinitionKey.h"

#include <deque>
#include <unordered_map>

#include "dsl/Error.h"
#include "jit/KeyWriter.h"
#include "lowering/BufferConstraints.h"

namespace dsl::lang {

namespace {

using ir::ReductionDomain;

class DefinitionKeyWriter : public jit::KeyWriter {
  public:
    explicit DefinitionKeyWriter(std::string &out) : KeyWriter(out) {}

    /// Why no key can be made; empty while it can.
    std::string failure;
    std::map<std::string, lowering::PipelineInput> inputs;
    /// The key whose canonical names this one writes, or null to write names as they are.
    const DefinitionKey *names = nullptr;
    /// The Funcs', Params' and buffers' names in the order they are first met, each after its
    /// tag ('F', 'P' or 'B').
    std::vector<std::pair<char, std::string>> met;

    void write(const Function &output) {
        reference(output.shared());
        // The output's buffers' constraints (those of other Funcs play no part).
        out_ += "OUT";
        const auto &outputs = output.contents().output_constraints;
        for (size_t i = 0; i < outputs.size(); i++) {
            if (!outputs[i]->any()) continue;
            number(static_cast<int64_t>(i));
            constraints(*outputs[i]);
        }
        out_ += ';';
        while (!pending_.empty() && failure.empty()) {
            std::shared_ptr<FunctionContents> f = pending_.front();
            pending_.pop_front();
            function(*f);
        }
    }

  protected:
    using KeyWriter::visit;

    void name(const std::string &s) override { text(names ? names->rename(s) : s); }

    void visit(const ir::Variable *op) override {
        KeyWriter::visit(op);
        if (op->param.defined()) {
            param(op->param);
            add_input(lowering::input_of(op->param));
        }
        if (op->reduction_domain.defined()) domain(op->reduction_domain);
    }

    void visit(const ir::Call *op) override {
        KeyWriter::visit(op);
        if (op->call_type == ir::Call::CallType::Func) {
            std::shared_ptr<FunctionContents> callee = op->func.lock();
            if (!callee) {
                failure = "a Func it calls no longer exists";
                return;
            }
            reference(callee);
        } else if (op->call_type == ir::Call::CallType::Image) {
            if (op->param.defined()) param(op->param);
            if (op->image.defined()) buffer(op->image);
            add_input(lowering::input_of(op));
        }
    }

  private:
    /// Writes the number of `id` in `numbers` (after `tag`); true when it is met for the first
    /// time, and its contents must follow.
    bool number_of(const void *id, std::unordered_map<const void *, int64_t> &numbers, char tag) {
        auto [it, first] = numbers.emplace(id, static_cast<int64_t>(numbers.size()));
        out_ += tag;
        number(it->second);
        return first;
    }

    void reference(const std::shared_ptr<FunctionContents> &f) {
        if (!number_of(f.get(), funcs_, 'F')) return;
        pending_.push_back(f);
        met.emplace_back('F', f->name);
    }

    void param(const ir::Parameter &p) {
        if (!number_of(p.id(), params_, 'P')) return;
        const ir::ParameterContents &c = p.contents();
        met.emplace_back('P', c.name);
        name(c.name);
        type(c.type);
        number(int(c.is_buffer));
        number(c.dimensions);
        number(int(c.trace_loads));
        include(c.min_value);
        include(c.max_value);
        if (c.constraints && c.constraints->any()) {
            constraints(*c.constraints);
        } else {
            out_ += '_';
        }
        // ImageParam::in(): the Funcs that stand in for the buffer, and their schedules.
        number(static_cast<int64_t>(c.wrappers.size()));
        for (const auto &[consumer, stand_in] : c.wrappers) {
            name(consumer);
            if (std::shared_ptr<FunctionContents> w = stand_in.lock()) {
                reference(w);
            } else {
                out_ += '_';
            }
        }
    }

    void constraints(const ir::BufferConstraints &b) {
        number(static_cast<int64_t>(b.dims.size()));
        for (const ir::DimensionConstraint &d : b.dims) {
            for (ir::BufferField f : ir::kBufferFields)
                include(d[f]);
        }
        // The ImageParams they name without holding them (lowering's inputs include them).
        for (const ir::Parameter &p : lowering::image_params_named(b)) {
            param(p);
            add_input(lowering::input_of(p));
        }
    }

    void buffer(const Buffer<> &b) {
        if (!number_of(b.raw_buffer(), buffers_, 'B')) return;
        met.emplace_back('B', b.name());
        name(b.name());
        type(b.type());
        number(b.dimensions());
        // Its layout is compiled into the code (lowering/BufferConstraints).
        for (int d = 0; d < b.dimensions(); d++) {
            number(b.min(d));
            number(b.extent(d));
            number(b.stride(d));
        }
    }

    void domain(const ReductionDomain &rdom) {
        if (!number_of(rdom.id(), domains_, 'R')) return;
        number(static_cast<int64_t>(rdom.domain().size()));
        for (const ir::ReductionVariable &rv : rdom.domain()) {
            // "r.x": the domain's name, before the variable's.
            const size_t dot = rv.var.rfind('.');
            if (dot != std::string::npos && dot > 0) met.emplace_back('R', rv.var.substr(0, dot));
            name(rv.var);
            include(rv.min);
            include(rv.extent);
        }
        include(rdom.predicate());
    }

    /// The same inputs as lowering's (lowering::find_inputs), from the same nodes.
    void add_input(const lowering::PipelineInput &in) {
        auto [it, added] = inputs.emplace(names ? names->rename(in.name) : in.name, in);
        if (!added && !lowering::same_input(it->second, in))
            failure = "two different inputs are named \"" + in.name + "\"";
    }

    void strings(const std::vector<std::string> &v) {
        number(static_cast<int64_t>(v.size()));
        for (const std::string &s : v)
            text(s);
    }
    void names_of(const std::vector<std::string> &v) {
        number(static_cast<int64_t>(v.size()));
        for (const std::string &s : v)
            name(s);
    }

    /// The pure definition, the updates, and every specialization of either.
    static std::vector<const Definition *> definitions(const FunctionContents &f) {
        std::vector<const Definition *> all{&f.init};
        for (const Definition &d : f.updates)
            all.push_back(&d);
        for (size_t i = 0; i < all.size(); i++) {
            for (const Specialization &s : all[i]->specializations)
                all.push_back(&s.definition);
        }
        return all;
    }

    void loop_level(const schedule::LoopLevel &l) {
        number(static_cast<int>(l.kind));
        name(l.func);
        name(l.var);
        number(l.stage);
    }

    void stage_schedule(const schedule::StageSchedule &s) {
        number(static_cast<int64_t>(s.splits.size()));
        for (const schedule::Split &split : s.splits) {
            number(static_cast<int>(split.kind));
            name(split.old_var);
            name(split.outer);
            name(split.inner);
            include(split.factor);
            number(static_cast<int>(split.tail));
        }
        number(static_cast<int64_t>(s.dims.size()));
        for (const schedule::Dim &d : s.dims) {
            name(d.var);
            number(static_cast<int>(d.for_type));
            number(static_cast<int>(d.device_api));
            number(int(d.is_rvar));
        }
        number(int(s.allow_race_conditions));
        number(int(s.atomic));
        number(s.npu_tile_rows);
        number(s.npu_copies);
        number(static_cast<int64_t>(s.prefetches.size()));
        for (const schedule::Prefetch &p : s.prefetches) {
            name(p.target);
            name(p.at);
            name(p.from);
            include(p.offset);
            number(static_cast<int>(p.strategy));
        }
        name(s.fused_with.func);
        name(s.fused_with.var);
        number(s.fused_with.stage);
        number(static_cast<int>(s.fused_with.other));
        number(static_cast<int64_t>(s.fused_with.align.size()));
        for (const auto &[loop, strategy] : s.fused_with.align) {
            name(loop);
            number(static_cast<int>(strategy));
        }
    }

    void definition(const Definition &d) {
        out_ += "DEF";
        exprs(d.args);
        exprs(d.values);
        include(d.predicate);
        if (d.rdom.defined()) {
            domain(d.rdom);
        } else {
            out_ += '_';
        }
        stage_schedule(d.schedule);
        number(static_cast<int64_t>(d.specializations.size()));
        for (const Specialization &s : d.specializations) {
            include(s.condition);
            definition(s.definition);
        }
        text(d.specialize_fail);
    }

    void function(const FunctionContents &f) {
        // Its pure variables, and those its splits make, are names of the pipeline's too.
        for (const std::string &v : f.args)
            met.emplace_back('V', v);
        for (const Definition *d : definitions(f)) {
            for (const schedule::Split &split : d->schedule.splits) {
                for (const std::string *v : {&split.outer, &split.inner})
                    met.emplace_back('V', *v);
            }
        }
        out_ += "FUNC";
        name(f.name);
        names_of(f.args);
        number(static_cast<int64_t>(f.output_types.size()));
        for (const Type &t : f.output_types)
            type(t);
        number(int(f.has_pure_definition));
        definition(f.init);
        number(static_cast<int64_t>(f.updates.size()));
        for (const Definition &d : f.updates)
            definition(d);
        const schedule::FuncSchedule &s = f.schedule;
        loop_level(s.compute_level);
        loop_level(s.store_level);
        number(static_cast<int64_t>(s.bounds.size()));
        for (const schedule::Bound &b : s.bounds) {
            name(b.var);
            include(b.min);
            include(b.extent);
        }
        number(static_cast<int64_t>(s.alignments.size()));
        for (const schedule::BoundAlignment &a : s.alignments) {
            name(a.var);
            number(a.modulus);
            number(a.remainder);
            number(int(a.extent_only));
        }
        names_of(s.storage_order);
        number(static_cast<int64_t>(s.storage_alignment.size()));
        for (const schedule::StorageAlignment &a : s.storage_alignment) {
            name(a.var);
            include(a.alignment);
        }
        number(static_cast<int64_t>(s.storage_folds.size()));
        for (const schedule::StorageFold &fold : s.storage_folds) {
            name(fold.var);
            number(fold.factor);
            number(int(fold.forward));
        }
        number(static_cast<int>(s.memory_type));
        number(int(f.trace_loads) + 2 * int(f.trace_stores) + 4 * int(f.trace_realizations));
        strings(f.trace_tags);
        number(int(f.memoized));
        number(int(f.eviction_key.defined()));
        if (f.eviction_key.defined()) include(f.eviction_key);
        for (const auto *map : {&f.wrappers, &f.clones}) {
            number(static_cast<int64_t>(map->size()));
            for (const auto &[consumer, stand_in] : *map) {
                name(consumer);
                reference(stand_in);
            }
        }
        number(static_cast<int64_t>(f.specialization_paths.size()));
        for (const std::vector<int> &path : f.specialization_paths) {
            number(static_cast<int64_t>(path.size()));
            for (int i : path)
                number(i);
        }
    }

    std::unordered_map<const void *, int64_t> funcs_, params_, buffers_, domains_;
    std::deque<std::shared_ptr<FunctionContents>> pending_;
};

}  // namespace

std::string DefinitionKey::rename(const std::string &name) const {
    if (canonical.empty()) return name;
    auto boundary = [&](size_t i) { return i == name.size() || name[i] == '.' || name[i] == '_'; };
    // Each renamed name inside `name` that starts and ends at a boundary ('.', '_' or an end:
    // "f.s0.x", "f_a0", "f_a0_g_a1"), the longest first.
    std::string out;
    for (size_t i = 0; i < name.size();) {
        size_t matched = 0;
        if (i == 0 || name[i - 1] == '.' || name[i - 1] == '_') {
            for (size_t end = name.size(); end > i; end--) {
                if (!boundary(end)) continue;
                auto it = canonical.find(name.substr(i, end - i));
                if (it != canonical.end()) {
                    out += it->second;
                    matched = end - i;
                    break;
                }
            }
        }
        if (matched) {
            i += matched;
        } else {
            out += name[i++];
        }
    }
    return out;
}

std::optional<DefinitionKey> definition_key(const Function &output, KeyNames names) {
    return definition_key(std::vector<Function>{output}, names);
}

namespace {

/// Writes the key of `outputs` into `key`, with the names of `names` (or as they are, when
/// null); `met` receives what DefinitionKeyWriter::met holds. False when no key can be made.
bool write_key(const std::vector<Function> &outputs, const DefinitionKey *names, DefinitionKey *key,
               std::vector<std::pair<char, std::string>> *met) {
    DefinitionKeyWriter writer(key->text);
    writer.names = names;
    try {
        for (const Function &output : outputs)
            writer.write(output);
    } catch (const Error &) {
        // A reduction domain whose where() condition calls a Func that is gone; lowering says so.
        return false;
    }
    if (!writer.failure.empty()) return false;
    key->inputs = std::move(writer.inputs);
    *met = std::move(writer.met);
    return true;
}

}  // namespace

std::optional<DefinitionKey> definition_key(const std::vector<Function> &outputs, KeyNames names) {
    DefinitionKey key;
    std::vector<std::pair<char, std::string>> met;
    if (!write_key(outputs, nullptr, &key, &met)) return std::nullopt;
    if (names == KeyNames::AsGiven) return key;
    // Again, with the names numbered by kind in the order they were met.
    DefinitionKey canonical;
    std::map<char, int> count;
    for (const auto &[tag, name] : met) {
        // Canonical names start with '#'; a name that does too could be mistaken for one.
        if (name.empty() || name.find('#') != std::string::npos) return key;
        if (canonical.canonical.count(name)) continue;
        canonical.canonical[name] = std::string("#") + tag + std::to_string(count[tag]++);
    }
    if (!write_key(outputs, &canonical, &canonical, &met)) return std::nullopt;
    return canonical;
}

}  // namespace dsl::lang
