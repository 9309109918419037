#pragma once
/// `dsl::nn::Tensor`: what the operator library computes with. A Tensor is a Func together with
/// its shape. The shape is listed outermost axis first, as numpy and ONNX list it (NCHW is
/// {N, C, H, W}); the Func's first argument is the innermost axis, as everywhere in dsl, so a
/// 4-D tensor's Func is called `f(w, h, c, n)`. Index a Tensor in numpy order with `t({n, c, h,
/// w})` and the reversal is done for you.
///
///   ImageParam in(Float(32), 4, "in");
///   nn::Tensor x(in);                      // shape {in.extent(3), ..., in.extent(0)}
///   nn::Tensor y = nn::relu(nn::add(x, x));
///   y.func().vectorize(y.func().args()[0], 8);   // schedule it as any Func
///
/// Shapes are int32 expressions: constants where the sizes are known, expressions of the inputs'
/// extents (and of scalar Params) where they are not, so one compiled pipeline serves every size.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Expr.h"
#include "dsl/Func.h"
#include "dsl/Param.h"
#include "dsl/Target.h"

namespace dsl::nn {

/// A shape, outermost axis first.
using Shape = std::vector<Expr>;
/// An index into a tensor, outermost axis first.
using Index = std::vector<Expr>;

class Tensor {
  public:
    Tensor() = default;
    /// `func` has `shape.size()` arguments, innermost axis first. The shape's expressions are
    /// simplified (sizes known when the pipeline is built become constants).
    Tensor(Func func, Shape shape);
    /// An input buffer of the pipeline: axis i has the extent of the ImageParam's dimension
    /// rank-1-i. Its minimum must be 0 in every dimension (tensors are indexed from 0) and its
    /// rows must follow one another, as in numpy's layout (dimension 1's stride equal to
    /// dimension 0's extent): the constructor sets those constraints on `input`.
    explicit Tensor(const ImageParam &input);
    /// A buffer known when the pipeline is built (weights, constants), with its own sizes.
    explicit Tensor(const Buffer<> &data, const std::string &name = "");

    bool defined() const { return func_.defined(); }
    const Func &func() const { return func_; }
    Func &func() { return func_; }
    Type type() const;
    int rank() const { return static_cast<int>(shape_.size()); }
    const Shape &shape() const { return shape_; }
    /// The extent of `axis`; a negative axis counts from the end (-1 is the innermost).
    Expr dim(int axis) const;
    /// The number of elements (the product of the shape; 1 for a scalar).
    Expr size() const;
    /// The element at `index` (one expression per axis, outermost first).
    Expr operator()(const Index &index) const;
    /// The Func's argument for `axis` when the Func was made by `compute()` (its pure
    /// definition's Var for that axis).
    Var var(int axis) const;
    /// The buffer of a tensor made from one (weights and other constants), which operators may
    /// repack when the pipeline is built; undefined for every other tensor.
    const Buffer<> &data() const { return data_; }

    /// How the work of an operator with a schedule of its own (a convolution's or a matrix
    /// product's accumulation) is scheduled, given the Func computed at root that reads this
    /// tensor point for point (this tensor's Func, or an elementwise epilogue of it). Operators
    /// set it; elementwise operators pass it on to their result. Empty for the others.
    using Schedule = std::function<void(Func output, const Target &target)>;
    const Schedule &schedule() const;
    void set_schedule(Schedule s);
    /// Gives this tensor `other`'s schedule: the same one, as an elementwise result of it has.
    void share_schedule(const Tensor &other) { schedule_ = other.schedule_; }
    /// Whether both tensors carry one schedule, set once and passed on through elementwise
    /// operators (two branches of a hard-swish over one convolution), rather than each its own
    /// operator's (two convolutions added).
    bool shares_schedule(const Tensor &other) const {
        return schedule_ != nullptr && schedule_ == other.schedule_;
    }

  private:
    Func func_;
    Shape shape_;
    std::shared_ptr<const Schedule> schedule_;
    Buffer<> data_;
};

/// Schedules `t` as the output of a pipeline for `target`: the operator's own schedule when it
/// has one. Otherwise, with `auto_schedule`, the built-in autoscheduler's (Pipeline::auto_schedule
/// over the tensor's shape) where no Func of the pipeline is scheduled, the shape is known, and
/// the pipeline holds a reduction or a producer read at several points; else vectors along the
/// innermost axis and threads over the others. On a target with a GPU API, the whole pipeline is
/// auto-scheduled as GPU kernels instead (the inputs' extents that are not constants need
/// estimates, ImageParam::dim(d).set_estimate; without them it stays on the CPU schedule, on
/// the host). The output buffer must then hold the whole tensor from 0 (each dimension's
/// minimum is constrained to 0, and its extent to the tensor's where that is a constant or an
/// input's extent), which lets loops over known extents have constant counts. Returns whether
/// the autoscheduler chose the schedule.
bool schedule_output(const Tensor &t, const Target &target, bool auto_schedule = true);

/// A new tensor named `name` of `shape` and type of the values returned, whose element at
/// index i is `value(i)`: the way every operator of the library is written.
Tensor compute(const std::string &name, const Shape &shape,
               const std::function<Expr(const Index &)> &value);

/// A fresh name for a Func of the operator library: `prefix` and a counter.
std::string unique_name(const std::string &prefix);

/// Normalises an axis in [-rank, rank) to [0, rank); a CompileError naming `op` otherwise.
int normalize_axis(int axis, int rank, const std::string &op);

/// The shape of a numpy broadcast of `shapes` (aligned at their last axes). Where an extent is
/// not a constant, the result chooses at run time: an extent of 1 takes the other's.
Shape broadcast_shapes(const std::vector<Shape> &shapes);
/// The element of `t` that a broadcast to `out_shape` reads at `out_index`: leading axes dropped,
/// axes of extent 1 read at 0.
Expr broadcast_read(const Tensor &t, const Shape &out_shape, const Index &out_index);

/// Whether `e` is a constant, and its value.
bool is_const(const Expr &e, int64_t *value = nullptr);

}  // namespace dsl::nn
