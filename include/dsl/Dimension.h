#pragma once
/// Constraints on the buffers a pipeline is given: `input.dim(0).set_stride(1)`,
/// `f.output_buffer().dim(0).set_min(0)`. Each constraint is checked when the pipeline runs (a
/// buffer that does not meet it is a runtime error naming the buffer, the dimension and both
/// values), and the compiler assumes it everywhere else: a stride of 1 makes loads dense, a
/// minimum of 0 or an extent that is a multiple of a vector makes indices provably aligned.

#include <memory>
#include <string>

#include "dsl/Expr.h"

namespace dsl {

namespace ir {
struct BufferConstraints;
}
class ImageParam;

/// One dimension of an ImageParam or of a Func's output buffer. Its bounds as expressions, and
/// setters that constrain them. A constraint may use constants, Params, and the bounds of
/// ImageParams and of the pipeline's outputs (this one's too: `set_extent((d.extent() / 16) *
/// 16)` asks for a multiple of 16). An ImageParam a constraint names is an argument of the
/// pipeline, read by a Func or not. Setting a constraint again replaces it; an undefined Expr
/// removes it.
class Dimension {
  public:
    /// The bounds of the buffer that will be passed.
    Expr min() const;
    Expr extent() const;
    Expr max() const;
    Expr stride() const;

    Dimension set_min(const Expr &min) const;
    Dimension set_extent(const Expr &extent) const;
    Dimension set_stride(const Expr &stride) const;
    Dimension set_bounds(const Expr &min, const Expr &extent) const;
    /// Tells the autoscheduler (Pipeline::auto_schedule) what bounds to expect: constants or
    /// expressions of Params. Not a constraint: any buffer is still accepted.
    Dimension set_estimate(const Expr &min, const Expr &extent) const;
    /// The estimates set, undefined where none is.
    Expr min_estimate() const;
    Expr extent_estimate() const;

    /// Another dimension of the same buffer, for chaining.
    Dimension dim(int d) const;

    /// The constraints set, undefined where none is.
    Expr min_constraint() const;
    Expr extent_constraint() const;
    Expr stride_constraint() const;

    Dimension(std::shared_ptr<ir::BufferConstraints> buffer, int d);

  private:
    std::shared_ptr<ir::BufferConstraints> buffer_;
    int d_;
};

/// The buffer a Func's output value is written to, as the pipeline sees it: its bounds, and
/// constraints on them (`f.output_buffer().dim(0).set_min(0)`).
class OutputBuffer {
  public:
    /// An ImageParam's buffer seen the same way, so that code written for either takes both
    /// (Halide's OutputImageParam, of which ImageParam is a kind).
    OutputBuffer(const ImageParam &param);  // NOLINT: implicit, as Halide's conversion is
    const std::string &name() const;
    int dimensions() const;
    Dimension dim(int d) const;
    Expr min(int d) const { return dim(d).min(); }
    Expr extent(int d) const { return dim(d).extent(); }
    Expr stride(int d) const { return dim(d).stride(); }
    /// The extents of dimensions 0, 1 and 2.
    Expr width() const { return extent(0); }
    Expr height() const { return extent(1); }
    Expr channels() const { return extent(2); }
    /// The first and last coordinates of dimensions 0 (left, right) and 1 (top, bottom).
    Expr left() const { return min(0); }
    Expr right() const { return min(0) + extent(0) - 1; }
    Expr top() const { return min(1); }
    Expr bottom() const { return min(1) + extent(1) - 1; }

    explicit OutputBuffer(std::shared_ptr<ir::BufferConstraints> buffer);

  private:
    std::shared_ptr<ir::BufferConstraints> buffer_;
};

/// Halide's name for it.
using OutputImageParam = OutputBuffer;

}  // namespace dsl
