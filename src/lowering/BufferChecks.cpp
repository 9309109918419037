#include "lowering/BufferChecks.h"

#include <climits>
#include <map>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "lowering/BufferConstraints.h"
#include "lowering/InlineFunctions.h"
#include "lowering/Regions.h"
#include "lowering/SplitRanges.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;

namespace {

class CollectInputs : public IRVisitor {
  public:
    std::map<std::string, PipelineInput> inputs;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::CallType::Image) add(input_of(op));
    }
    void visit(const Variable *op) override {
        if (op->param.defined()) add(input_of(op->param));
    }

  private:
    void add(const PipelineInput &in) {
        auto [it, added] = inputs.emplace(in.name, in);
        user_assert(added || same_input(it->second, in))
            << "two different inputs of the pipeline are both named \"" << in.name
            << "\"; give them distinct names.";
        // The Params and buffers its constraints use are inputs too.
        if (added && in.param.defined() && in.param.contents().constraints)
            include_constraints(*in.param.contents().constraints);
    }

  public:
    void include_constraints(const BufferConstraints &b) {
        for (const DimensionConstraint &d : b.dims) {
            for (BufferField f : kBufferFields)
                IRVisitor::include(d[f]);
        }
        for (const Parameter &p : image_params_named(b))
            add(input_of(p));
    }
};

Expr reporter(const char *name, std::vector<Expr> args) {
    return Call::make(Int(32), name, std::move(args), Call::CallType::Extern);
}

/// Asserts that `box` lies inside buffer `b`.
std::vector<Stmt> region_checks(const std::string &b, const Box &box, const char *error) {
    std::vector<Stmt> checks;
    for (size_t d = 0; d < box.size(); d++) {
        // Nothing read in this dimension, or coordinates that depend on values: not checked.
        if (box[d].is_empty() || !box[d].is_bounded()) continue;
        int dim = static_cast<int>(d);
        Expr have_min = Variable::make(Int(32), names::buffer_min(b, dim));
        Expr have_max = have_min + Variable::make(Int(32), names::buffer_extent(b, dim)) - 1;
        Expr ok = simplify(box[d].min >= have_min && box[d].max <= have_max);
        if (is_const_true(ok)) continue;
        checks.push_back(
            AssertStmt::make(ok, reporter(error, {StringImm::make(b), Expr(dim), box[d].min,
                                                  box[d].max, have_min, have_max})));
    }
    return checks;
}

/// Whether buffer argument `b` has no memory: a bounds query, which the pipeline answers.
Expr is_bounds_query(const std::string &b) {
    return Call::make(Bool(), Call::Intrinsic::BufferIsBoundsQuery,
                      {Variable::make(Handle(), names::buffer_struct(b))});
}

/// Writes [min, min + extent) into dimension `d` of buffer argument `b` (a bounds query's
/// answer).
Stmt set_bounds(const std::string &b, int d, const Expr &min, const Expr &extent) {
    return Evaluate::make(
        Call::make(Int(32), Call::Intrinsic::BufferSetBounds,
                   {Variable::make(Handle(), names::buffer_struct(b)), Expr(d), min, extent}));
}

/// Checks the dimensions of buffer argument `b` before anything uses them: no negative extent;
/// every offset the pipeline computes (in 32 bits) fits, i.e. the buffer spans at most 2^31 - 1
/// elements; and, for an output, no two elements share memory (a stride of 0, or strides that
/// interleave). The overlap test is pairwise: one of each two dimensions must step over the
/// whole of the other, which holds for dense buffers and their crops, transposes and slices.
std::vector<Stmt> layout_checks(const std::string &b, int dims, bool is_output) {
    std::vector<Stmt> checks;
    std::vector<Expr> extent, stride, abs_stride, size;  // the last two in 64 bits
    Expr span = make_zero(Int(64));
    for (int d = 0; d < dims; d++) {
        extent.push_back(Variable::make(Int(32), names::buffer_extent(b, d)));
        stride.push_back(Variable::make(Int(32), names::buffer_stride(b, d)));
        Expr s = cast(Int(64), stride[d]);
        abs_stride.push_back(select(s < 0, -s, s));
        size.push_back(abs_stride[d] * cast(Int(64), extent[d]));
        span = span + abs_stride[d] * cast(Int(64), max(extent[d] - 1, 0));
        checks.push_back(
            AssertStmt::make(extent[d] >= 0, reporter("dsl_runtime_error_buffer_extent_negative",
                                                      {StringImm::make(b), Expr(d), extent[d]})));
    }
    if (dims > 0) {
        checks.push_back(AssertStmt::make(span <= make_const(Int(64), int64_t(INT32_MAX)),
                                          reporter("dsl_runtime_error_buffer_span_too_large",
                                                   {StringImm::make(b), cast(Float(64), span)})));
    }
    if (!is_output) return checks;
    // A buffer without elements has none that overlap (and a dense one has stride 0 after an
    // empty dimension).
    Expr empty = make_bool(false);
    for (int d = 0; d < dims; d++)
        empty = empty || extent[d] == 0;
    for (int i = 0; i < dims; i++) {
        for (int j = i; j < dims; j++) {
            Expr ok;
            if (i == j) {
                ok = extent[i] <= 1 || stride[i] != 0;
            } else {
                ok = extent[i] <= 1 || extent[j] <= 1 || abs_stride[i] >= size[j] ||
                     abs_stride[j] >= size[i];
            }
            checks.push_back(AssertStmt::make(
                empty || ok, reporter("dsl_runtime_error_output_overlaps",
                                      {StringImm::make(b), Expr(i), stride[i], extent[i], Expr(j),
                                       stride[j], extent[j]})));
        }
    }
    return checks;
}

/// Replaces the statement inside the chain of lets at the top of `s` (the bounds) by
/// `wrap(statement)`.
template <typename Wrap>
Stmt inside_lets(const Stmt &s, const Wrap &wrap) {
    if (const auto *let = s.as<LetStmt>()) {
        return LetStmt::make(let->name, let->value, inside_lets(let->body, wrap));
    }
    return wrap(s);
}

/// A bounds query's answer for dimension `dim` of `buffer`, the region [min, min + extent)
/// moved to meet the constraints on the buffer's min and extent, which may use the bounds
/// themselves (the region's here): a constrained min keeps the region's end. Returns whether a
/// constraint applied.
bool constrain_answer(const std::vector<BufferConstraint> &constraints, const std::string &buffer,
                      int dim, Expr *min, Expr *extent) {
    std::map<std::string, Expr> region = {{names::buffer_min(buffer, dim), *min},
                                          {names::buffer_extent(buffer, dim), *extent}};
    bool constrained = false;
    if (Expr m = constrained_field(constraints, buffer, dim, BufferField::Min, region);
        m.defined()) {
        const Expr max = simplify(*min + *extent - 1);
        *min = m;
        *extent = simplify(max - m + 1);
        region[names::buffer_min(buffer, dim)] = *min;
        region[names::buffer_extent(buffer, dim)] = *extent;
        constrained = true;
    }
    if (Expr e = constrained_field(constraints, buffer, dim, BufferField::Extent, region);
        e.defined()) {
        *extent = e;
        constrained = true;
    }
    return constrained;
}

}  // namespace

PipelineInput input_of(const Call *image_call) {
    PipelineInput in;
    in.name = image_call->name;
    in.type = image_call->type;
    in.dimensions = static_cast<int>(image_call->args.size());
    in.is_buffer = true;
    in.param = image_call->param;
    in.buffer = image_call->image;
    return in;
}

PipelineInput input_of(const Parameter &param) {
    PipelineInput in;
    in.name = param.name();
    in.type = param.type();
    in.dimensions = param.dimensions();
    in.is_buffer = param.is_buffer();
    in.param = param;
    return in;
}

bool same_input(const PipelineInput &a, const PipelineInput &b) {
    return b.param.defined() ? (a.param.defined() && a.param.same_as(b.param))
                             : (a.buffer.defined() && a.buffer.same_as(b.buffer));
}

std::vector<PipelineInput> find_inputs(const Environment &env, const std::vector<Expr> &also) {
    CollectInputs c;
    for (const Expr &e : also)
        c.include(e);
    for (const auto &[name, f] : env.funcs) {
        if (is_inlined(f)) continue;
        lang::visit_definitions(f, c);
    }
    for (const std::string &o : env.outputs) {
        for (const auto &b : env.func(o).contents().output_constraints)
            c.include_constraints(*b);
    }
    std::vector<PipelineInput> result;
    for (auto &[name, in] : c.inputs)
        result.push_back(in);
    return result;
}

Stmt add_buffer_checks(const Environment &env, const std::vector<PipelineInput> &inputs,
                       const std::vector<BufferConstraint> &constraints, const Stmt &s,
                       bool *outputs_may_grow) {
    if (outputs_may_grow) *outputs_may_grow = false;
    std::vector<Stmt> checks;
    // The layout of every buffer argument first: the checks after it compute with its extents.
    for (const PipelineInput &in : inputs) {
        if (!in.is_buffer) continue;
        for (Stmt &check : layout_checks(in.name, in.dimensions, false))
            checks.push_back(check);
    }
    for (const std::string &o : env.outputs) {
        const Function &f = env.func(o);
        for (int i = 0; i < f.outputs(); i++) {
            for (Stmt &check :
                 layout_checks(names::func_buffer(f.name(), i, f.outputs()), f.dimensions(), true))
                checks.push_back(check);
        }
    }
    // Then the constraints users set on them: the code after assumes them.
    for (Stmt &check : constraint_checks(constraints))
        checks.push_back(check);
    // The buffers of a Tuple-valued output all have the first one's shape (Halide's rule: the
    // pipeline computes one region for all the values).
    for (const std::string &o : env.outputs) {
        const Function &f = env.func(o);
        const std::string first = names::func_buffer(o, 0, f.outputs());
        for (int i = 1; i < f.outputs(); i++) {
            const std::string b = names::func_buffer(o, i, f.outputs());
            for (int d = 0; d < f.dimensions(); d++) {
                Expr min = Variable::make(Int(32), names::buffer_min(b, d));
                Expr extent = Variable::make(Int(32), names::buffer_extent(b, d));
                Expr min0 = Variable::make(Int(32), names::buffer_min(first, d));
                Expr extent0 = Variable::make(Int(32), names::buffer_extent(first, d));
                checks.push_back(AssertStmt::make(min == min0 && extent == extent0,
                                                  reporter("dsl_runtime_error_tuple_shapes_differ",
                                                           {StringImm::make(o), StringImm::make(b),
                                                            Expr(d), min, extent, min0, extent0})));
            }
        }
    }
    // Updates of outputs may write anywhere their arguments say, and a split that rounds up or
    // shifts inwards past the buffer's region. Checked before the inputs: an output narrower than
    // such a split's factor also reads its inputs outside, and the output's error names the
    // cause. A bounds query on an output (no memory) is answered with the region it must have:
    // its own, grown to hold those writes and reads (Halide's realize() then computes into a
    // larger buffer and returns the requested crop).
    Expr query = make_bool(false);
    std::vector<Stmt> answers;
    for (const std::string &o : env.outputs) {
        const Function &f = env.func(o);
        Box grown;  // where the stages write, and where the updates read it
        // An output that other Funcs read is computed over what they read as well.
        bool read_by_others = false;
        for (const std::string &c : env.order) {
            for (int k = 0; c != o && k < env.func(c).stages(); k++)
                read_by_others |= !box_of_calls(env.func(c), k, o).empty();
        }
        for (int k = 0; k < f.stages(); k++) {
            if (k == 0 && split_footprints(f, 0).empty() && !read_by_others) {
                continue;  // exactly its buffer
            }
            // An update that reads its own output reads the buffer, so where it reads must be
            // inside it too (a Func that is not an output is allocated over those reads).
            if (k > 0) {
                Box reads = box_of_calls(f, k, f.name());
                merge_boxes(grown, reads);
                for (int i = 0; i < f.outputs(); i++) {
                    for (Stmt &check :
                         region_checks(names::func_buffer(f.name(), i, f.outputs()), reads,
                                       "dsl_runtime_error_output_read_out_of_bounds")) {
                        checks.push_back(check);
                    }
                }
            }
            Box writes = box_of_writes(f, k);
            require_bounded(writes, f.name(), f.name());
            merge_boxes(grown, writes);
            for (int i = 0; i < f.outputs(); i++) {
                for (Stmt &check : region_checks(names::func_buffer(f.name(), i, f.outputs()),
                                                 writes, "dsl_runtime_error_output_too_small")) {
                    checks.push_back(check);
                }
            }
        }
        for (int i = 0; i < f.outputs(); i++) {
            const std::string b = names::func_buffer(o, i, f.outputs());
            Expr asked = is_bounds_query(b);
            std::vector<Stmt> sets;
            for (int dim = 0; dim < f.dimensions(); dim++) {
                const size_t d = static_cast<size_t>(dim);
                Expr min = Variable::make(Int(32), names::buffer_min(b, dim));
                Expr extent = Variable::make(Int(32), names::buffer_extent(b, dim));
                bool answered = false;
                // Coordinates that depend on values, or none at all: the buffer's own region.
                if (d < grown.size() && !grown[d].is_empty() && grown[d].is_bounded()) {
                    Expr max = simplify(dsl::max(min + extent - 1, grown[d].max));
                    min = simplify(dsl::min(min, grown[d].min));
                    extent = simplify(max - min + 1);
                    if (outputs_may_grow) *outputs_may_grow = true;
                    answered = true;
                }
                answered |= constrain_answer(constraints, b, dim, &min, &extent);
                if (answered) sets.push_back(set_bounds(b, dim, min, extent));
            }
            answers.push_back(
                IfThenElse::make(asked, sets.empty() ? Evaluate::make(0) : Block::make(sets)));
            query = query || asked;
        }
    }
    // Bounds query: an input buffer without memory gets the region the pipeline needs of it
    // written into its dimensions, and nothing is computed.
    for (const PipelineInput &in : inputs) {
        if (in.is_buffer) {
            Box box;
            for (const std::string &name : env.order) {
                const Function &c = env.func(name);
                for (int k = 0; k < c.stages(); k++) {
                    Box b = box_of_calls(c, k, in.name);
                    require_bounded(b, in.name, c.name());
                    merge_boxes(box, b);
                }
            }
            for (Stmt &check :
                 region_checks(in.name, box, "dsl_runtime_error_access_out_of_bounds")) {
                checks.push_back(check);
            }
            if (in.dimensions > 0 && !box.empty()) {
                Expr asked = is_bounds_query(in.name);
                std::vector<Stmt> sets;
                for (int d = 0; d < in.dimensions; d++) {
                    Expr min = box[d].min, extent = simplify(box[d].max - box[d].min + 1);
                    constrain_answer(constraints, in.name, d, &min, &extent);
                    sets.push_back(set_bounds(in.name, d, min, extent));
                }
                answers.push_back(IfThenElse::make(asked, Block::make(sets)));
                query = query || asked;
            }
            continue;
        }
        const ParameterContents &p = in.param.contents();
        Expr value = Variable::make(in.type, in.name, in.param);
        // Integers are reported exactly (a double would round 64-bit values); floats as doubles.
        Type wide = in.type.is_bool() || in.type.is_float() ? Float(64)
                    : in.type.is_uint()                     ? UInt(64)
                                                            : Int(64);
        const char *kind = wide.is_float() ? "" : wide.is_uint() ? "uint_" : "int_";
        auto out_of_range = [&](const Expr &ok, const Expr &bound, bool too_large) {
            std::string reporter_name = "dsl_runtime_error_" + std::string(kind) + "param_too_" +
                                        (too_large ? "large" : "small");
            checks.push_back(AssertStmt::make(
                ok, Call::make(Int(32), reporter_name,
                               {StringImm::make(in.name), cast(wide, value), cast(wide, bound)},
                               Call::CallType::Extern)));
        };
        if (p.min_value.defined()) out_of_range(value >= p.min_value, p.min_value, false);
        if (p.max_value.defined()) out_of_range(value <= p.max_value, p.max_value, true);
    }
    // A pipeline of one output computes nothing when that output is empty: each loop over it
    // would run no iterations, and the producers are computed over what those read. Skipping
    // the work tells the simplifier that every extent of the output is at least 1, which the
    // constraints may tie to the inputs' extents (a row's length, by which a loop over the rows
    // joined divides: see the rule for (x / y) * y + x % y).
    Stmt work = s;
    if (env.outputs.size() == 1 && env.func(env.outputs[0]).dimensions() > 0) {
        const Function &f = env.func(env.outputs[0]);
        const std::string buffer = names::func_buffer(f.name(), 0, f.outputs());
        Expr nonempty = 1 <= Variable::make(Int(32), names::buffer_extent(buffer, 0));
        for (int d = 1; d < f.dimensions(); d++)
            nonempty = nonempty && 1 <= Variable::make(Int(32), names::buffer_extent(buffer, d));
        work = inside_lets(s, [&](const Stmt &body) { return IfThenElse::make(nonempty, body); });
    }
    return inside_lets(assume_constraints(constraints, work), [&](const Stmt &body) {
        std::vector<Stmt> all = checks;
        all.push_back(body);
        Stmt run = Block::make(all);
        if (answers.empty()) return run;
        return IfThenElse::make(query, Block::make(answers), run);
    });
}

}  // namespace dsl::lowering
