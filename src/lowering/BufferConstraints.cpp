#include "lowering/BufferConstraints.h"

#include <set>
#include <sstream>

#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

namespace {

void add_all(const BufferConstraints &b, std::vector<BufferConstraint> &out) {
    for (size_t d = 0; d < b.dims.size(); d++) {
        for (BufferField f : kBufferFields) {
            if (b.dims[d][f].defined())
                out.push_back({b.buffer, b.owner, static_cast<int>(d), f, b.dims[d][f]});
        }
    }
}

/// A Buffer the pipeline reads directly is part of its definition (the key it is compiled
/// under holds its layout): its minimum, extent and stride in each dimension are constants of
/// the code, checked on entry like a user's constraints, so that its addresses fold.
void add_layout(const Buffer<> &b, const std::string &name, std::vector<BufferConstraint> &out) {
    const std::string owner = "the pipeline, compiled for the layout of the Buffer it reads,";
    for (int d = 0; d < b.dimensions(); d++) {
        out.push_back({name, owner, d, BufferField::Min, Expr(b.min(d))});
        out.push_back({name, owner, d, BufferField::Extent, Expr(b.extent(d))});
        out.push_back({name, owner, d, BufferField::Stride, Expr(b.stride(d))});
    }
}

std::string variable_of(const BufferConstraint &c) {
    return field_variable(c.buffer, c.dim, c.field);
}

/// Every buffer field a constraint uses belongs to a buffer argument.
class CheckFields : public IRVisitor {
  public:
    CheckFields(const std::set<std::string> &buffers, const BufferConstraint &c)
        : buffers_(buffers), c_(c) {}

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        std::string b = names::field_buffer(op->name);
        if (op->param.defined() || b.empty()) return;
        user_assert(buffers_.count(b))
            << c_.owner << ": the constraint dim(" << c_.dim << ").set_" << field_name(c_.field)
            << "(" << c_.value << ") uses the bounds of buffer \"" << b
            << "\", which is not an argument of this pipeline; constrain it with the bounds of "
               "the pipeline's own inputs and outputs.";
    }

  private:
    const std::set<std::string> &buffers_;
    const BufferConstraint &c_;
};

}  // namespace

std::vector<Parameter> image_params_named(const BufferConstraints &b) {
    if (b.named_image_params.empty()) return {};
    std::set<std::string> buffers;
    for (const DimensionConstraint &d : b.dims) {
        for (BufferField f : kBufferFields) {
            if (!d[f].defined()) continue;
            for (const std::string &n : free_names(d[f], false)) {
                std::string buffer = names::field_buffer(n);
                if (!buffer.empty()) buffers.insert(buffer);
            }
        }
    }
    std::vector<Parameter> result;
    for (const std::string &buffer : buffers) {
        auto it = b.named_image_params.find(buffer);
        if (it == b.named_image_params.end()) continue;
        if (std::shared_ptr<ParameterContents> p = it->second.lock())
            result.push_back(Parameter(p));
    }
    return result;
}

std::vector<BufferConstraint> buffer_constraints(const Environment &env,
                                                 const std::vector<PipelineInput> &inputs) {
    std::vector<BufferConstraint> result;
    std::set<std::string> buffers;
    for (const PipelineInput &in : inputs) {
        if (!in.is_buffer) continue;
        buffers.insert(in.name);
        if (in.param.defined() && in.param.contents().constraints)
            add_all(*in.param.contents().constraints, result);
        if (!in.param.defined() && in.buffer.defined()) add_layout(in.buffer, in.name, result);
    }
    for (const std::string &o : env.outputs) {
        const lang::Function &f = env.func(o);
        for (int i = 0; i < f.outputs(); i++)
            buffers.insert(names::func_buffer(o, i, f.outputs()));
        for (const auto &b : f.contents().output_constraints)
            add_all(*b, result);
    }
    for (const BufferConstraint &c : result) {
        CheckFields check(buffers, c);
        check.include(c.value);
    }
    return result;
}

std::vector<Stmt> constraint_checks(const std::vector<BufferConstraint> &constraints) {
    std::vector<Stmt> checks;
    for (const BufferConstraint &c : constraints) {
        Expr have = Variable::make(Int(32), variable_of(c));
        checks.push_back(AssertStmt::make(
            have == c.value,
            Call::make(Int(32), "dsl_runtime_error_constraint_violated",
                       {StringImm::make(c.owner), StringImm::make(c.buffer),
                        StringImm::make(field_name(c.field)), Expr(c.dim), have, c.value},
                       Call::CallType::Extern)));
    }
    return checks;
}

Stmt assume_constraints(const std::vector<BufferConstraint> &constraints, const Stmt &s) {
    if (constraints.empty()) return s;
    std::map<std::string, Expr> values;
    for (const BufferConstraint &c : constraints)
        values[variable_of(c)] = c.value;
    // A constraint may use other constrained fields (an output's extent set to an input's,
    // which is itself constrained): replace those in the values first, a bounded number of
    // times (a cycle of constraints just stops), leaving each value's own field alone.
    for (size_t round = 0; round < values.size(); round++) {
        bool changed = false;
        for (auto &[name, value] : values) {
            std::map<std::string, Expr> others = values;
            others.erase(name);
            Expr v = substitute(others, value);
            if (!v.same_as(value)) changed = true;
            value = v;
        }
        if (!changed) break;
    }
    return substitute(values, s);
}

const BufferConstraint *find_constraint(const std::vector<BufferConstraint> &constraints,
                                        const std::string &buffer, int dim, BufferField field) {
    for (const BufferConstraint &c : constraints) {
        if (c.buffer == buffer && c.dim == dim && c.field == field) return &c;
    }
    return nullptr;
}

Expr constrained_field(const std::vector<BufferConstraint> &constraints, const std::string &buffer,
                       int dim, BufferField field, const std::map<std::string, Expr> &fields) {
    const BufferConstraint *c = find_constraint(constraints, buffer, dim, field);
    return c ? substitute(fields, c->value) : Expr();
}

std::string describe(const BufferConstraint &c) {
    std::ostringstream line;
    line << c.buffer << ": dim(" << c.dim << ")." << field_name(c.field) << " == " << c.value;
    return line.str();
}

}  // namespace dsl::lowering
