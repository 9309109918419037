// dsl::nn::Tensor and the helpers every operator is written with: compute(), axes, broadcasting.
#include "dsl/nn/Tensor.h"

#include <atomic>

#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Simplify.h"
#include "nn/ops/AutoScheduled.h"
#include "nn/ops/Elements.h"
#include "nn/ops/NameScope.h"

namespace dsl::nn {

namespace {

Shape simplified(Shape shape) {
    for (Expr &e : shape) {
        user_assert(e.defined()) << "a tensor's shape has an undefined extent.";
        if (e.type() != Int(32)) e = cast(Int(32), e);
        e = ir::simplify(e);
    }
    return shape;
}

}  // namespace

Tensor::Tensor(Func func, Shape shape)
    : func_(std::move(func)), shape_(simplified(std::move(shape))) {
    user_assert(func_.defined()) << "nn::Tensor of Func \"" << func_.name()
                                 << "\", which has no definition; define it first.";
    user_assert(func_.dimensions() == rank())
        << "nn::Tensor: Func \"" << func_.name() << "\" has " << func_.dimensions()
        << " dimensions but the shape given has " << rank() << " axes.";
}

Tensor::Tensor(const ImageParam &input) {
    const int r = input.dimensions();
    Shape shape(static_cast<size_t>(r));
    for (int d = 0; d < r; d++) {
        input.dim(d).set_min(0);
        shape[static_cast<size_t>(r - 1 - d)] = input.extent(d);
    }
    // Rows one after another, as numpy lays an array out: a pipeline that joins rows (a
    // pointwise convolution over H * W points) then reads a point's neighbour across a row's
    // end at the next address. The outer strides stay free.
    if (r >= 2) input.dim(1).set_stride(input.dim(0).extent());
    func_ = Func(input.name() + "_t");
    std::vector<Var> args;
    std::vector<Expr> call;
    for (int d = 0; d < r; d++) {
        args.emplace_back(input.name() + "_a" + std::to_string(r - 1 - d));
        call.push_back(args.back());
    }
    func_(args) = input(call);
    shape_ = simplified(std::move(shape));
}

namespace {

/// The only element of `b` as a constant, if `b` holds one number of a type make_const keeps
/// exactly (floats of 32 and 64 bits, integers of up to 32); else undefined.
Expr single_value(const Buffer<> &b) {
    if (b.number_of_elements() != 1 || !b.data()) return Expr();
    const Type t = b.type();
    if (t == Float(32) || t == Float(64)) return make_const(t, element_as_double(b, 0));
    if (!(t.is_int() || t.is_uint()) || t.bits() > 32) return Expr();
    return make_const(t, element_as_int(b, 0));
}

}  // namespace

Tensor::Tensor(const Buffer<> &data, const std::string &name) {
    user_assert(data.defined()) << "nn::Tensor of an undefined buffer.";
    const int r = data.dimensions();
    Shape shape(static_cast<size_t>(r));
    for (int d = 0; d < r; d++)
        shape[static_cast<size_t>(r - 1 - d)] = data.extent(d);
    func_ = Func(name.empty() ? unique_name("constant") : name);
    std::vector<Var> args;
    std::vector<Expr> call;
    for (int d = 0; d < r; d++) {
        args.emplace_back(func_.name() + "_a" + std::to_string(r - 1 - d));
        call.push_back(Expr(args.back()) + data.min(d));
    }
    // A single number is an immediate: a kernel computes with it instead of loading it (a
    // load that the masked tail of a vector loop would make a gather), and it folds.
    Expr value = single_value(data);
    func_(args) = value.defined() ? value : data(call);
    shape_ = simplified(std::move(shape));
    data_ = data;
}

Type Tensor::type() const {
    return func_.type();
}

Expr Tensor::dim(int axis) const {
    return shape_[static_cast<size_t>(normalize_axis(axis, rank(), "Tensor::dim"))];
}

Expr Tensor::size() const {
    Expr n = 1;
    for (const Expr &e : shape_)
        n = n * e;
    return ir::simplify(n);
}

Expr Tensor::operator()(const Index &index) const {
    user_assert(static_cast<int>(index.size()) == rank())
        << "tensor \"" << func_.name() << "\" has " << rank() << " axes but was indexed with "
        << index.size() << ".";
    std::vector<Expr> args(index.rbegin(), index.rend());
    for (Expr &a : args) {
        if (a.type() != Int(32)) a = cast(Int(32), a);
    }
    return func_(args);
}

Var Tensor::var(int axis) const {
    int a = normalize_axis(axis, rank(), "Tensor::var");
    return func_.args()[static_cast<size_t>(rank() - 1 - a)];
}

const Tensor::Schedule &Tensor::schedule() const {
    static const Schedule none;
    return schedule_ ? *schedule_ : none;
}

void Tensor::set_schedule(Schedule s) {
    schedule_ = s ? std::make_shared<const Schedule>(std::move(s)) : nullptr;
}

bool schedule_output(const Tensor &t, const Target &target, bool auto_schedule) {
    Func f = t.func();
    // The output buffer holds the whole tensor from 0: where an extent is known, the loops
    // over that axis have a constant count (a register tile of channels that covers them has
    // no tail, and the clamps of its channels fold); where it is an input's extent, the loops
    // run to that extent, which a pointwise convolution over joined rows divides by (the
    // compiler sees it is the length of the input's rows, and at least 1 when the output is
    // not empty).
    OutputBuffer out = f.output_buffer();
    for (int d = 0; d < t.rank(); d++) {
        out.dim(d).set_min(0);
        const Expr e = t.dim(t.rank() - 1 - d);
        int64_t extent = 0;
        if (is_const(e, &extent)) {
            out.dim(d).set_extent(Expr(extent));
        } else if (e.as<ir::Variable>() && e.type() == Int(32)) {
            out.dim(d).set_extent(e);
        }
    }
    if (target.has_gpu_feature() && schedule_output_for_gpu(t, target)) return true;
    if (t.schedule()) {
        t.schedule()(f, target);
        return false;
    }
    if (auto_schedule && schedule_output_automatically(t, target)) return true;
    std::vector<Var> args = f.args();
    if (args.empty()) return false;
    // Narrow results (a quantization's bytes) are computed in 32 bits: vectors of that width,
    // not of 64 bytes, which a row of 40 would not fill.
    const Type lane_type = t.type().bits() < 32 ? Int(32) : t.type();
    const int lanes = std::max(1, target.natural_vector_size(lane_type));
    int64_t inner = 0;
    // A vector along the innermost axis unless it is known to be shorter than one.
    if (!is_const(t.dim(-1), &inner) || inner >= lanes) f.vectorize(args[0], lanes);
    if (args.size() >= 2) {
        // Threads over all the other axes, fused into one loop.
        Var outer = args.back();
        for (size_t i = args.size() - 1; i-- > 1;) {
            Var fused(outer.name() + "_" + args[i].name());
            f.fuse(args[i], outer, fused);
            outer = fused;
        }
        f.parallel(outer);
    }
    return false;
}

namespace {
/// The counter of the innermost NameScope open on this thread, if any.
thread_local uint64_t *scope_counter = nullptr;
}  // namespace

NameScope::NameScope() : outer_(scope_counter) {
    scope_counter = &counter_;
}

NameScope::~NameScope() {
    scope_counter = outer_;
}

std::string unique_name(const std::string &prefix) {
    static std::atomic<uint64_t> counter{0};
    const uint64_t n = scope_counter ? (*scope_counter)++ : counter++;
    return prefix + "_" + std::to_string(n);
}

int normalize_axis(int axis, int rank, const std::string &op) {
    int r = std::max(rank, 1);
    user_assert(axis >= -r && axis < r)
        << op << ": axis " << axis << " is out of range for a tensor of rank " << rank
        << " (axes go from " << -r << " to " << r - 1 << ").";
    return axis < 0 ? axis + r : axis;
}

Tensor compute(const std::string &name, const Shape &shape,
               const std::function<Expr(const Index &)> &value) {
    Func f(name);
    const size_t r = shape.size();
    std::vector<Var> args;
    for (size_t d = 0; d < r; d++)
        args.emplace_back(name + "_a" + std::to_string(r - 1 - d));
    Index index(args.rbegin(), args.rend());
    Expr v = value(index);
    user_assert(v.defined()) << "operator \"" << name << "\" computed an undefined value.";
    f(args) = v;
    return Tensor(f, shape);
}

bool is_const(const Expr &e, int64_t *value) {
    std::optional<int64_t> v = ir::as_const_int(e);
    if (!v) return false;
    if (value) *value = *v;
    return true;
}

Shape broadcast_shapes(const std::vector<Shape> &shapes) {
    size_t r = 0;
    for (const Shape &s : shapes)
        r = std::max(r, s.size());
    Shape out(r);
    for (const Shape &s : shapes) {
        size_t offset = r - s.size();
        for (size_t i = 0; i < s.size(); i++) {
            Expr &o = out[offset + i];
            const Expr &d = s[i];
            if (!o.defined()) {
                o = d;
                continue;
            }
            int64_t a = 0, b = 0;
            bool ca = is_const(o, &a), cb = is_const(d, &b);
            if (ca && cb) {
                user_assert(a == b || a == 1 || b == 1)
                    << "shapes cannot be broadcast: extents " << a << " and " << b
                    << " differ and neither is 1.";
                o = a == 1 ? d : o;
            } else if (cb && b == 1) {
                // o stays.
            } else if (ca && a == 1) {
                o = d;
            } else if (!ir::equal(o, d)) {
                o = ir::simplify(select(o == 1, d, o));
            }
        }
    }
    return out;
}

Expr broadcast_read(const Tensor &t, const Shape &out_shape, const Index &out_index) {
    const size_t r = out_shape.size();
    user_assert(static_cast<size_t>(t.rank()) <= r)
        << "tensor \"" << t.func().name() << "\" of rank " << t.rank()
        << " cannot be broadcast to rank " << r << ".";
    const size_t offset = r - static_cast<size_t>(t.rank());
    Index index;
    for (size_t i = 0; i < static_cast<size_t>(t.rank()); i++) {
        const Expr &d = t.shape()[i];
        const Expr &o = out_shape[offset + i];
        int64_t v = 0;
        if (is_const(d, &v) && v == 1) {
            index.push_back(0);
        } else if (ir::equal(d, o)) {
            index.push_back(out_index[offset + i]);
        } else {
            index.push_back(select(d == 1, 0, out_index[offset + i]));
        }
    }
    return t(index);
}

}  // namespace dsl::nn
