// Dimension, OutputBuffer and the constraints they set (include/dsl/Dimension.h).
#include "dsl/Dimension.h"

#include "dsl/Func.h"
#include "dsl/Param.h"
#include "ir/BufferConstraints.h"
#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Parameter.h"
#include "lang/Function.h"

namespace dsl {

using ir::BufferConstraints;
using ir::BufferField;

namespace {

/// Rejects what a constraint cannot use: a constraint is evaluated once, before the pipeline
/// runs, from its arguments alone.
class CheckConstraint : public ir::IRVisitor {
  public:
    explicit CheckConstraint(std::string where) : where_(std::move(where)) {}

  protected:
    using IRVisitor::visit;
    void visit(const ir::Variable *op) override {
        user_assert(!op->reduction_domain.defined())
            << where_ << " uses the RVar " << op->name
            << "; a constraint may use only constants, Params and the bounds of buffers.";
        if (op->param.defined()) return;
        user_assert(ir::names::is_buffer_field(op->name))
            << where_ << " uses the Var " << op->name
            << "; a constraint may use only constants, Params and the bounds of buffers.";
    }
    void visit(const ir::Call *op) override {
        user_assert(op->call_type != ir::Call::CallType::Func &&
                    op->call_type != ir::Call::CallType::Image)
            << where_ << " reads " << op->name
            << "; a constraint may use only constants, Params and the bounds of buffers.";
        IRVisitor::visit(op);
    }

  private:
    std::string where_;
};

/// An ImageParam holds its constraints, so a constraint's reference to an ImageParam (to itself,
/// or to one whose constraints refer back) would keep both alive for ever. In an ImageParam's
/// constraints the bounds of ImageParams are plain names, and the ImageParams are listed
/// without being held (BufferConstraints::named_image_params): those still alive when the
/// pipeline is lowered are its arguments.
class ForgetImageParams : public ir::IRMutator {
  public:
    explicit ForgetImageParams(BufferConstraints &b) : b_(b) {}

  protected:
    using IRMutator::visit;
    Expr visit(const ir::Variable *op) override {
        if (!op->param.defined() || !op->param.is_buffer()) return op;
        b_.named_image_params[op->param.name()] = op->param.shared();
        return ir::Variable::make(op->type, op->name);
    }

  private:
    BufferConstraints &b_;
};

/// A bound of buffer `b` as a constraint or an estimate stores it: checked (an integer of
/// constants, Params and buffers' bounds; `where` says which), int32, with ImageParams by name.
Expr checked_bound(BufferConstraints &b, const std::string &where, const Expr &value) {
    Expr v = value;
    user_assert(v.type().is_scalar() && v.type().is_int_or_uint() && !v.type().is_bool())
        << where << " is " << v << " of type " << v.type() << "; buffer bounds are integers.";
    CheckConstraint check(where);
    check.include(v);
    v = cast(Int(32), v);
    if (!b.param.expired()) v = ForgetImageParams(b).mutate(v);
    return v;
}

void set_constraint(BufferConstraints &b, int d, BufferField f, const Expr &value) {
    std::string where = b.owner + ": the constraint dim(" + std::to_string(d) + ").set_" +
                        ir::field_name(f) + "(...)";
    b.dims[d][f] = value.defined() ? checked_bound(b, where, value) : value;
    // Lowering reads the constraints, so compiled pipelines are stale.
    lang::bump_pipeline_epoch();
}

Expr field(const BufferConstraints &b, int d, BufferField f) {
    return ir::Variable::make(Int(32), ir::field_variable(b.buffer, d, f),
                              ir::Parameter(b.param.lock()));
}

std::shared_ptr<BufferConstraints> make_constraints(const std::string &buffer,
                                                    const std::string &owner, int dimensions) {
    auto b = std::make_shared<BufferConstraints>();
    b->buffer = buffer;
    b->owner = owner;
    b->dimensions = dimensions;
    b->dims.resize(static_cast<size_t>(dimensions));
    return b;
}

}  // namespace

Dimension::Dimension(std::shared_ptr<BufferConstraints> buffer, int d)
    : buffer_(std::move(buffer)), d_(d) {
    user_assert(d_ >= 0 && d_ < buffer_->dimensions)
        << buffer_->owner << " has " << buffer_->dimensions << " dimensions; there is no dim(" << d_
        << ").";
}

Expr Dimension::min() const {
    return field(*buffer_, d_, BufferField::Min);
}
Expr Dimension::extent() const {
    return field(*buffer_, d_, BufferField::Extent);
}
Expr Dimension::max() const {
    return min() + extent() - 1;
}
Expr Dimension::stride() const {
    return field(*buffer_, d_, BufferField::Stride);
}

Dimension Dimension::set_min(const Expr &min) const {
    set_constraint(*buffer_, d_, BufferField::Min, min);
    return *this;
}
Dimension Dimension::set_extent(const Expr &extent) const {
    set_constraint(*buffer_, d_, BufferField::Extent, extent);
    return *this;
}
Dimension Dimension::set_stride(const Expr &stride) const {
    set_constraint(*buffer_, d_, BufferField::Stride, stride);
    return *this;
}
Dimension Dimension::set_bounds(const Expr &min, const Expr &extent) const {
    return set_min(min).set_extent(extent);
}
Dimension Dimension::set_estimate(const Expr &min, const Expr &extent) const {
    BufferConstraints &b = *buffer_;
    std::string where =
        b.owner + ": the estimate dim(" + std::to_string(d_) + ").set_estimate(...)";
    for (const Expr *v : {&min, &extent})
        user_assert(v->defined()) << where << " is undefined; give the min and the extent.";
    b.dims[d_].estimate_min = checked_bound(b, where, min);
    b.dims[d_].estimate_extent = checked_bound(b, where, extent);
    return *this;
}
Expr Dimension::min_estimate() const {
    return buffer_->dims[d_].estimate_min;
}
Expr Dimension::extent_estimate() const {
    return buffer_->dims[d_].estimate_extent;
}
Dimension Dimension::dim(int d) const {
    return Dimension(buffer_, d);
}
Expr Dimension::min_constraint() const {
    return buffer_->dims[d_][BufferField::Min];
}
Expr Dimension::extent_constraint() const {
    return buffer_->dims[d_][BufferField::Extent];
}
Expr Dimension::stride_constraint() const {
    return buffer_->dims[d_][BufferField::Stride];
}

OutputBuffer::OutputBuffer(std::shared_ptr<BufferConstraints> buffer)
    : buffer_(std::move(buffer)) {}
const std::string &OutputBuffer::name() const {
    return buffer_->buffer;
}
int OutputBuffer::dimensions() const {
    return buffer_->dimensions;
}
Dimension OutputBuffer::dim(int d) const {
    return Dimension(buffer_, d);
}

namespace {

/// An ImageParam's constraints, made when first asked for.
const std::shared_ptr<BufferConstraints> &constraints_of(const ImageParam &p) {
    const auto &contents = p.contents();
    if (!contents->constraints) {
        contents->constraints =
            make_constraints(contents->name, "ImageParam \"" + p.name() + "\"", p.dimensions());
        contents->constraints->param = contents;
    }
    return contents->constraints;
}

}  // namespace

OutputBuffer::OutputBuffer(const ImageParam &param) : buffer_(constraints_of(param)) {}

Dimension ImageParam::dim(int d) const {
    return Dimension(constraints_of(*this), d);
}

ImageParam &ImageParam::set_estimates(const Region &estimates) {
    user_assert(static_cast<int>(estimates.size()) == dimensions())
        << "ImageParam \"" << name() << "\" has " << dimensions()
        << " dimensions but set_estimates "
        << "was given " << estimates.size() << " ranges; give one {min, extent} per dimension.";
    for (int d = 0; d < dimensions(); d++)
        dim(d).set_estimate(estimates[d].min, estimates[d].extent);
    return *this;
}

std::vector<OutputBuffer> Func::output_buffers() const {
    user_assert(defined()) << "Func \"" << name()
                           << "\": output_buffer() before the Func is defined; define it first.";
    lang::FunctionContents &f = *contents_;
    int outputs = static_cast<int>(f.output_types.size());
    if (static_cast<int>(f.output_constraints.size()) != outputs) {
        f.output_constraints.clear();
        for (int i = 0; i < outputs; i++) {
            std::string owner = "the output buffer of Func \"" + f.name + "\"";
            if (outputs > 1)
                owner = "output buffer " + std::to_string(i) + " of Func \"" + f.name + "\"";
            f.output_constraints.push_back(
                make_constraints(ir::names::func_buffer(f.name, i, outputs), owner, dimensions()));
        }
    }
    std::vector<OutputBuffer> result;
    for (const auto &c : f.output_constraints)
        result.emplace_back(c);
    return result;
}

OutputBuffer Func::output_buffer() const {
    std::vector<OutputBuffer> all = output_buffers();
    user_assert(all.size() == 1) << "Func \"" << name() << "\" has " << all.size()
                                 << " output values; use output_buffers() to pick one.";
    return all[0];
}

}  // namespace dsl
