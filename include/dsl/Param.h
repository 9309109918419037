#pragma once
/// Inputs of a pipeline whose values are given when it runs: `Param<T>` (a scalar) and
/// `ImageParam` (a buffer). Changing them does not recompile the pipeline.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Dimension.h"
#include "dsl/Expr.h"

namespace dsl {

namespace ir {
struct ParameterContents;
}
namespace lang {
struct FunctionContents;
}
class Func;

namespace detail {
std::shared_ptr<ir::ParameterContents> make_scalar_param(Type t, const std::string &name);
void set_param_bits(ir::ParameterContents &p, uint64_t bits);
uint64_t get_param_bits(const ir::ParameterContents &p);
void set_param_range(ir::ParameterContents &p, const Expr &default_value, const Expr &min,
                     const Expr &max);
void set_param_estimate(ir::ParameterContents &p, const Expr &value);
/// Throws a CompileError naming the Param unless `min_below_max` and `default_inside` hold.
void check_param_range(const ir::ParameterContents &p, bool min_below_max, bool default_inside,
                       const Expr &default_value, const Expr &min, const Expr &max);
Expr param_expr(const std::shared_ptr<ir::ParameterContents> &p);
const std::string &param_name(const ir::ParameterContents &p);
std::string fresh_param_name(const char *prefix);

template <typename T>
uint64_t to_bits(T v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return bits;
}
template <typename T>
T from_bits(uint64_t bits) {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    return v;
}
}  // namespace detail

/// A scalar input: `Param<float> gain("gain", 1.0f, 0.0f, 4.0f); ... gain.set(2.0f);`
/// The optional minimum and maximum are checked each time the pipeline runs.
template <typename T>
class Param {
    static_assert(is_scalar_type_v<T>,
                  "Param<T>: T must be a C++ number type, float16_t or bfloat16_t");

  public:
    Param() : Param(detail::fresh_param_name("p")) {}
    explicit Param(const std::string &name)
        : contents_(detail::make_scalar_param(type_of<T>(), name)) {}
    /// (So that `Param<bool>("flag")` is a name, not a pointer converted to bool.)
    explicit Param(const char *name) : Param(std::string(name)) {}
    /// A Param with a made-up name and a value (Halide's `Param<int> p(3)`).
    explicit Param(T default_value) : Param(detail::fresh_param_name("p"), default_value) {}
    /// A made-up name, a value and a range (see the named form below).
    Param(T default_value, T min, T max)
        : Param(detail::fresh_param_name("p"), default_value, min, max) {}
    Param(const std::string &name, T default_value) : Param(name) {
        detail::set_param_range(*contents_, Expr(default_value), Expr(), Expr());
        set(default_value);
    }
    /// A CompileError if `min` is above `max` or `default_value` lies outside them.
    Param(const std::string &name, T default_value, T min, T max) : Param(name) {
        detail::check_param_range(
            *contents_, min <= max, min <= default_value && default_value <= max,
            cast<T>(Expr(default_value)), cast<T>(Expr(min)), cast<T>(Expr(max)));
        detail::set_param_range(*contents_, cast<T>(Expr(default_value)), cast<T>(Expr(min)),
                                cast<T>(Expr(max)));
        set(default_value);
    }

    /// Changes the range checked each time the pipeline runs (a pipeline that uses the Param
    /// is compiled again). A CompileError if `min` is above `max`; the value may lie outside
    /// until the pipeline runs.
    void set_range(T min, T max) {
        detail::check_param_range(*contents_, min <= max, true, Expr(), cast<T>(Expr(min)),
                                  cast<T>(Expr(max)));
        detail::set_param_range(*contents_, default_expr(), cast<T>(Expr(min)), cast<T>(Expr(max)));
    }

    void set(T value) { detail::set_param_bits(*contents_, detail::to_bits(value)); }
    /// The value the autoscheduler assumes the Param has (Pipeline::auto_schedule); without
    /// one it takes the default value, or the value set.
    void set_estimate(T value) { detail::set_param_estimate(*contents_, cast<T>(Expr(value))); }
    T get() const { return detail::from_bits<T>(detail::get_param_bits(*contents_)); }
    const std::string &name() const { return detail::param_name(*contents_); }
    Type type() const { return type_of<T>(); }
    operator Expr() const { return detail::param_expr(contents_); }  // NOLINT: implicit by design

    const std::shared_ptr<ir::ParameterContents> &contents() const { return contents_; }

  private:
    Expr default_expr() const;
    std::shared_ptr<ir::ParameterContents> contents_;
};

namespace detail {
const Expr &param_default(const ir::ParameterContents &p);
}

template <typename T>
Expr Param<T>::default_expr() const {
    return detail::param_default(*contents_);
}

/// A buffer input of a given element type and number of dimensions:
///   ImageParam input(UInt(8), 2, "input");  f(x, y) = input(x, y) * 2;  input.set(buffer);
class ImageParam {
  public:
    ImageParam(Type type, int dimensions, const std::string &name = "");

    void set(const Buffer<> &buffer);
    Buffer<> get() const;
    /// Unbinds the buffer set(): realizing a pipeline that reads it is then an error until the
    /// next set().
    void reset();
    const std::string &name() const;
    Type type() const;
    int dimensions() const;

    /// The value at the given coordinates (one per dimension).
    Expr operator()(const std::vector<Expr> &coords) const;
    template <typename... Args>
    Expr operator()(const Args &...coords) const {
        return (*this)(std::vector<Expr>{Expr(coords)...});
    }

    /// The bounds of the buffer that will be passed, as expressions.
    Expr min(int dim) const;
    Expr extent(int dim) const;
    Expr stride(int dim) const;
    Expr width() const { return extent(0); }
    Expr height() const { return extent(1); }
    Expr channels() const { return extent(2); }
    /// The first and last coordinates of dimensions 0 (left, right) and 1 (top, bottom).
    Expr left() const { return min(0); }
    Expr right() const { return min(0) + extent(0) - 1; }
    Expr top() const { return min(1); }
    Expr bottom() const { return min(1) + extent(1) - 1; }

    /// Dimension `d` of the buffer: its bounds, and constraints on them
    /// (`input.dim(0).set_stride(1).dim(1).set_min(0)`; see dsl/Dimension.h).
    Dimension dim(int d) const;
    /// Estimates of the bounds of every dimension, dimension 0 first, for the autoscheduler
    /// (Dimension::set_estimate).
    ImageParam &set_estimates(const Region &estimates);

    /// A Func that stands in for this input in the calls of every Func (`in()`), of one
    /// consumer, or of each of several, so that it can be scheduled: `input.in().compute_root()`
    /// copies the input once, `input.in(conv).compute_at(conv, x)` stages the part of it that an
    /// iteration of conv reads. Asked again for the same consumers, it is the same Func. The
    /// ImageParam (and its copies) keep these Funcs alive.
    Func in();
    Func in(const Func &consumer);
    Func in(const std::vector<Func> &consumers);

    /// Traces every load from the buffer, as Func::trace_loads() does for a Func's values
    /// ("Load input(...) = ..."; events to the trace handler).
    ImageParam &trace_loads();

    const std::shared_ptr<ir::ParameterContents> &contents() const { return contents_; }

  private:
    std::shared_ptr<ir::ParameterContents> contents_;
    /// Keeps the Funcs of in() alive (the parameter, which they read, records them weakly, by
    /// consumer).
    std::shared_ptr<std::vector<std::shared_ptr<lang::FunctionContents>>> wrappers_ =
        std::make_shared<std::vector<std::shared_ptr<lang::FunctionContents>>>();
};

}  // namespace dsl
