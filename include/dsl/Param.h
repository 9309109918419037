#pragma once
/// Inputs of a pipeline whose values are given when it runs: `Param<T>` (a scalar) and
/// `ImageParam` (a buffer). Changing them does not recompile the pipeline.

#include <cstring>
#include <functional>
#include <initializer_list>
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

namespace detail {
/// Throws a CompileError naming the Param unless its type is `t` (`what` says what needed it).
void check_param_type(const ir::ParameterContents &p, Type t, const char *what);
Type param_type(const ir::ParameterContents &p);
}  // namespace detail

template <typename T = void>
class Param;

/// A scalar input whose type is chosen at run time (Halide's `Param<>`):
/// `Param<> gain(Float(32), "gain"); gain.set(2.0f);`. Its value is set and read with the C++
/// type that matches its type; any `Param<T>` converts to it, and it converts to the `Param<T>`
/// of its type. Copies refer to the same Param.
template <>
class Param<void> {
  public:
    explicit Param(Type t) : Param(t, detail::fresh_param_name("p")) {}
    Param(Type t, const std::string &name) : contents_(detail::make_scalar_param(t, name)) {}
    Param(Type t, const char *name) : Param(t, std::string(name)) {}
    template <typename T>
    Param(const Param<T> &p) : contents_(p.contents()) {}  // NOLINT: implicit, as Halide's

    /// A CompileError unless T is the Param's type.
    template <typename T>
    void set(T value) {
        detail::check_param_type(*contents_, type_of<T>(), "set()");
        detail::set_param_bits(*contents_, detail::to_bits(value));
    }
    template <typename T>
    T get() const {
        detail::check_param_type(*contents_, type_of<T>(), "get()");
        return detail::from_bits<T>(detail::get_param_bits(*contents_));
    }
    /// The range checked each time the pipeline runs (constants cast to the Param's type).
    void set_range(const Expr &min, const Expr &max) {
        detail::set_param_range(*contents_, Expr(), cast(type(), min), cast(type(), max));
    }
    void set_estimate(const Expr &value) {
        detail::set_param_estimate(*contents_, cast(type(), value));
    }
    const std::string &name() const { return detail::param_name(*contents_); }
    Type type() const { return detail::param_type(*contents_); }
    operator Expr() const { return detail::param_expr(contents_); }  // NOLINT: implicit by design

    const std::shared_ptr<ir::ParameterContents> &contents() const { return contents_; }

  private:
    std::shared_ptr<ir::ParameterContents> contents_;
};

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
    /// The same Param as a runtime-typed one of type T (a CompileError for another type).
    Param(const Param<void> &p) : contents_(p.contents()) {  // NOLINT: implicit, as Halide's
        detail::check_param_type(*contents_, type_of<T>(), "conversion to a typed Param");
    }
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

/// A pointer input (Halide's handle Params): `Param<const char *> message;
/// message.set("hello");` Its value is an address the pipeline hands to extern functions
/// (DSL_EXTERN with pointer arguments) or compares; it cannot be read through.
template <typename T>
class Param<T *> {
  public:
    Param() : Param(detail::fresh_param_name("p")) {}
    explicit Param(const std::string &name)
        : contents_(detail::make_scalar_param(Handle(), name)) {}
    Param(const Param<void> &p) : contents_(p.contents()) {  // NOLINT: implicit, as Halide's
        detail::check_param_type(*contents_, Handle(), "conversion to a typed Param");
    }
    void set(T *value) { detail::set_param_bits(*contents_, detail::to_bits(value)); }
    T *get() const { return detail::from_bits<T *>(detail::get_param_bits(*contents_)); }
    const std::string &name() const { return detail::param_name(*contents_); }
    Type type() const { return Handle(); }
    operator Expr() const { return detail::param_expr(contents_); }  // NOLINT: implicit by design

    const std::shared_ptr<ir::ParameterContents> &contents() const { return contents_; }

  private:
    std::shared_ptr<ir::ParameterContents> contents_;
};

namespace detail {
const Expr &param_default(const ir::ParameterContents &p);
/// T, in a position that does not take part in deduction (`{gain, 2}` for a Param<float>).
template <typename T>
struct ParamValue {
    using type = T;
};
}  // namespace detail

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

/// Values of Params and ImageParams for one call of realize() or infer_input_bounds(), in
/// place of the values they were set to, which stay as they are (Halide's ParamMap): several
/// threads may run one pipeline at once, each with its own values.
///   f.realize({640, 480}, target, {{gain, 2.0f}, {input, frame}});
class ParamMap {
  public:
    /// One value: `{param, value}`, `{image_param, buffer}`, or `{image_param, &buffer}`, which
    /// infer_input_bounds() gives the region the pipeline needs in place of the ImageParam.
    class Mapping {
      public:
        template <typename T>
        Mapping(const Param<T> &p, typename detail::ParamValue<T>::type value)  // NOLINT
            : param_(p.contents()), bits_(detail::to_bits(static_cast<T>(value))), scalar_(true) {}
        template <typename T, int D>
        Mapping(const ImageParam &p, const Buffer<T, D> &b)  // NOLINT: implicit by design
            : Mapping(p, Buffer<>(b), nullptr) {}
        template <typename T, int D>
        Mapping(const ImageParam &p, Buffer<T, D> *b)  // NOLINT: implicit by design
            : Mapping(p, Buffer<>(),
                      b ? [b](const Buffer<> &r) { *b = r; }
                        : std::function<void(const Buffer<> &)>()) {}

        const std::shared_ptr<ir::ParameterContents> &param() const { return param_; }
        bool is_scalar() const { return scalar_; }
        uint64_t bits() const { return bits_; }
        const Buffer<> &buffer() const { return buffer_; }
        /// Whether infer_input_bounds() gives its answer here, and gives it.
        bool takes_bounds() const { return static_cast<bool>(bounds_); }
        void set_bounds(const Buffer<> &region) const { bounds_(region); }

      private:
        /// A buffer (`bounds` null) or where a bounds query's answer goes (`b` undefined).
        Mapping(const ImageParam &p, const Buffer<> &b,
                std::function<void(const Buffer<> &)> bounds);
        std::shared_ptr<ir::ParameterContents> param_;
        uint64_t bits_ = 0;
        bool scalar_ = false;
        Buffer<> buffer_;
        std::function<void(const Buffer<> &)> bounds_;
    };

    ParamMap() = default;
    ParamMap(std::initializer_list<Mapping> mappings);  // NOLINT: implicit by design
    template <typename T>
    void set(const Param<T> &p, typename detail::ParamValue<T>::type value) {
        add(Mapping(p, value));
    }
    template <typename T, int D>
    void set(const ImageParam &p, const Buffer<T, D> &b) {
        add(Mapping(p, b));
    }
    template <typename T, int D>
    void set(const ImageParam &p, Buffer<T, D> *b) {
        add(Mapping(p, b));
    }
    size_t size() const { return mappings_.size(); }
    /// The value given for the Param or ImageParam of these contents, or null.
    const Mapping *find(const ir::ParameterContents *p) const;

  private:
    /// Replaces an earlier value of the same parameter.
    void add(const Mapping &m);
    std::vector<Mapping> mappings_;
};

}  // namespace dsl
