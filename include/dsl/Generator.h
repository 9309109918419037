#pragma once
/// Generators: a pipeline packaged as a class whose compile-time settings, inputs and output are
/// members, compiled ahead of time by a command-line program (see DESIGN.md §5).
///
///   class Brighten : public dsl::Generator<Brighten> {
///     public:
///       GeneratorParam<int> offset{"offset", 0, -8, 8};         // set as offset=2
///       Input<Buffer<uint8_t>> input{"input", 2};               // an ImageParam
///       Input<float> gain{"gain", 1.0f, 0.0f, 10.0f};           // a Param<float>
///       Output<Buffer<uint8_t>> output{"output", 2};            // a Func
///
///       void generate() {
///           Expr v = cast<float>(input(x, y)) * gain + offset.value();
///           output(x, y) = cast<uint8_t>(clamp(v, 0.0f, 255.0f));
///       }
///       void schedule() { output.vectorize(x, get_target().natural_vector_size<uint8_t>()); }
///
///     private:
///       Var x{"x"}, y{"y"};
///   };
///   DSL_REGISTER_GENERATOR(Brighten, brighten)
///
/// Members register themselves in declaration order as they are constructed. The compiled
/// function takes the Inputs in that order, then the output buffer:
///   int brighten(dsl_buffer_t *input, float gain, dsl_buffer_t *output);
/// Every Generator also has the GeneratorParam `target` (default "host"), read by get_target().
///
/// Linking a program with the `dsl_generator_main` library gives it a main() that compiles any
/// registered generator (run it with --help):
///   my_generators -g brighten -o out/ -e static_library,h offset=2 target=host-avx2

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/AutoSchedule.h"
#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/Param.h"
#include "dsl/Pipeline.h"
#include "dsl/Target.h"
#include "dsl/Type.h"

namespace dsl {

class GeneratorBase;

namespace detail {

/// What a Generator declares: a GeneratorParam, an Input or an Output. Constructing one inside
/// a Generator under construction adds it to that Generator's list; constructing one anywhere
/// else is a CompileError.
class GeneratorMember {
  public:
    enum class Kind { Param, Input, Output };

    GeneratorMember(Kind kind, const std::string &name);
    virtual ~GeneratorMember() = default;
    GeneratorMember(const GeneratorMember &) = delete;
    GeneratorMember &operator=(const GeneratorMember &) = delete;

    Kind member_kind() const { return kind_; }
    const std::string &member_name() const { return name_; }
    /// One line for --help, e.g. "int, default 1, in [1, 8]" or "buffer of uint8, 2 dimensions".
    virtual std::string describe() const = 0;

  private:
    Kind kind_;
    std::string name_;
};

class GeneratorParamBase;
class GeneratorInputBase;
class GeneratorOutputBase;
/// Adds a member to the Generator under construction (called once the member's kind-specific
/// base is constructed, so that the Generator holds it by that type).
void join_generator(GeneratorParamBase *member);
void join_generator(GeneratorInputBase *member);
void join_generator(GeneratorOutputBase *member);

/// A compile-time setting, given as text on the command line.
class GeneratorParamBase : public GeneratorMember {
  public:
    explicit GeneratorParamBase(const std::string &name) : GeneratorMember(Kind::Param, name) {
        join_generator(this);
    }
    /// Parses and sets the value; a CompileError naming the param, the text and the values it
    /// accepts if the text is not one of them.
    virtual void set_from_string(const std::string &text) = 0;
    virtual std::string value_string() const = 0;
};

/// An Input: an argument of the compiled function.
class GeneratorInputBase : public GeneratorMember {
  public:
    explicit GeneratorInputBase(const std::string &name) : GeneratorMember(Kind::Input, name) {
        join_generator(this);
    }
    /// Called before generate(): an Input whose element type a GeneratorParam gives takes it.
    virtual void prepare(const std::string & /*generator_name*/) {}
    virtual Argument argument() const = 0;
    /// For GeneratorBase::tune: a buffer Input is bound to a buffer of seeded random values of
    /// its estimated bounds (scalars keep their value).
    virtual void bind_for_tuning(const std::string & /*generator_name*/, uint64_t /*seed*/) {}
    /// For GeneratorBase::apply: a scalar Input takes the C++ value at `data`, of type `t`
    /// (converted as C++ converts numbers); a buffer Input takes a Buffer. The other kind is
    /// a CompileError naming the Input.
    virtual void bind_scalar(const void *data, const Type &t);
    virtual void bind_buffer(const Buffer<> &b);
};

/// The value at `data`, of type `t`, converted to T.
template <typename T>
T scalar_as(const void *data, const Type &t) {
    const int bits = t.bits();
    if (t.is_float()) {
        return bits == 64 ? static_cast<T>(*static_cast<const double *>(data))
                          : static_cast<T>(*static_cast<const float *>(data));
    }
    if (t.is_int()) {
        switch (bits) {
            case 8:
                return static_cast<T>(*static_cast<const int8_t *>(data));
            case 16:
                return static_cast<T>(*static_cast<const int16_t *>(data));
            case 32:
                return static_cast<T>(*static_cast<const int32_t *>(data));
            default:
                return static_cast<T>(*static_cast<const int64_t *>(data));
        }
    }
    switch (bits) {
        case 1:
            return static_cast<T>(*static_cast<const bool *>(data));
        case 8:
            return static_cast<T>(*static_cast<const uint8_t *>(data));
        case 16:
            return static_cast<T>(*static_cast<const uint16_t *>(data));
        case 32:
            return static_cast<T>(*static_cast<const uint32_t *>(data));
        default:
            return static_cast<T>(*static_cast<const uint64_t *>(data));
    }
}

/// Binds `p` to a buffer of its estimated bounds (dim(d).set_estimate) filled with seeded
/// random values; a CompileError names the Input and the dimension without an estimate.
void bind_random_buffer(ImageParam &p, const std::string &generator_name, uint64_t seed);

/// An Output: the Func generate() defines.
class GeneratorOutputBase : public GeneratorMember {
  public:
    explicit GeneratorOutputBase(const std::string &name) : GeneratorMember(Kind::Output, name) {
        join_generator(this);
    }
    virtual Func output_func() const = 0;
    /// After generate(): a CompileError if the Func is undefined or of the wrong type or
    /// dimensions.
    virtual void check_defined() const = 0;
};

/// Checks an Output's Func after generate(): defined, one value, `dimensions` dimensions, and
/// of `type` if given.
void check_output_func(const std::string &output_name, const Func &f, int dimensions,
                       const std::optional<Type> &type);

/// GeneratorParam text conversions (src/aot/GeneratorParam.cpp). The parsers return false when
/// the whole text is not a number.
bool parse_integer(const std::string &text, long long &value);
bool parse_unsigned(const std::string &text, unsigned long long &value);
bool parse_floating(const std::string &text, double &value);
std::string format_floating(double value);
/// A message without the "Error: " that every dsl message starts with, for quoting it in another.
std::string without_error_prefix(const std::string &message);
/// A CompileError: `Error: GeneratorParam "name": cannot use "text"; <expected>.`
[[noreturn]] void throw_bad_param_value(const std::string &name, const std::string &text,
                                        const std::string &expected);
/// The type names a GeneratorParam<Type> accepts ("uint8", "float32", ...), and their types.
const std::vector<std::pair<std::string, Type>> &type_names();
std::string type_name_list();
std::string type_to_param_string(const Type &t);

template <typename T>
std::string range_text(const std::optional<T> &min, const std::optional<T> &max);

template <typename T>
std::string number_to_string(T v) {
    if constexpr (std::is_floating_point_v<T>) {
        return format_floating(static_cast<double>(v));
    } else {
        return std::to_string(v);
    }
}

template <typename T>
std::string range_text(const std::optional<T> &min, const std::optional<T> &max) {
    if (!min && !max) return "";
    return "[" + (min ? number_to_string(*min) : std::string("-inf")) + ", " +
           (max ? number_to_string(*max) : std::string("inf")) + "]";
}

}  // namespace detail

/// A compile-time setting of a Generator, given on the command line as `name=value`. It reads as
/// its value (`int r = radius;`, `radius.value()`). T may be a C++ number type or bool (with an
/// optional minimum and maximum, checked when set), an enum (with the words naming its values),
/// `Type` ("uint8", "float32", ...), `Target` or `std::string`.
template <typename T>
class GeneratorParam : public detail::GeneratorParamBase {
  public:
    GeneratorParam(const std::string &name, const T &default_value)
        : GeneratorParamBase(name), value_(default_value), default_(default_value) {
        static_assert(!std::is_enum_v<T>,
                      "GeneratorParam of an enum needs its words: {\"name\", default, "
                      "{{\"a\", E::A}, {\"b\", E::B}}}");
    }
    GeneratorParam(const std::string &name, const T &default_value, const T &min, const T &max)
        : GeneratorParamBase(name),
          value_(default_value),
          default_(default_value),
          min_(min),
          max_(max) {
        static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                      "GeneratorParam: only number types have a minimum and maximum");
        check_range(default_value, detail::number_to_string(default_value));
    }
    GeneratorParam(const std::string &name, const T &default_value,
                   const std::map<std::string, T> &words)
        : GeneratorParamBase(name), value_(default_value), default_(default_value), words_(words) {
        static_assert(std::is_enum_v<T>, "GeneratorParam: only enums take a list of words");
    }

    const T &value() const { return value_; }
    operator const T &() const { return value_; }  // NOLINT: implicit by design
    /// A number or bool GeneratorParam is also an Expr where one is wanted (a constant):
    /// `f.specialize(vectorize)`, `Expr e = radius;`, as in Halide.
    template <typename U = T, typename = std::enable_if_t<std::is_arithmetic_v<U>>>
    operator Expr() const {  // NOLINT: implicit by design
        if constexpr (std::is_same_v<U, bool>) {
            return value_ ? const_true() : const_false();
        } else {
            return Expr(value_);
        }
    }
    void set(const T &v) {
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
            check_range(v, detail::number_to_string(v));
        }
        value_ = v;
    }

    void set_from_string(const std::string &text) override { set_parsed(parse(text), text); }
    std::string value_string() const override { return to_text(value_); }
    std::string describe() const override {
        std::string d = kind_text() + ", default " + to_text(default_);
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
            std::string range = detail::range_text(min_, max_);
            if (!range.empty()) d += ", in " + range;
        }
        return d;
    }

  private:
    void set_parsed(const T &v, const std::string &text) {
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
            check_range(v, text);
        }
        value_ = v;
    }

    void check_range(const T &v, const std::string &text) const {
        if constexpr (std::is_arithmetic_v<T>) {
            if ((min_ && v < *min_) || (max_ && v > *max_)) {
                detail::throw_bad_param_value(member_name(), text,
                                              "give a value in " + detail::range_text(min_, max_));
            }
        }
    }

    std::string kind_text() const {
        if constexpr (std::is_same_v<T, bool>) {
            return "bool";
        } else if constexpr (std::is_enum_v<T>) {
            std::string s = "one of";
            for (const auto &[word, v] : words_)
                s += " " + word;
            return s;
        } else if constexpr (std::is_arithmetic_v<T>) {
            return type_of<T>().to_string();
        } else if constexpr (std::is_same_v<T, Type>) {
            return "type";
        } else if constexpr (std::is_same_v<T, Target>) {
            return "target";
        } else {
            return "string";
        }
    }

    std::string to_text(const T &v) const {
        if constexpr (std::is_same_v<T, bool>) {
            return v ? "true" : "false";
        } else if constexpr (std::is_enum_v<T>) {
            for (const auto &[word, w] : words_) {
                if (w == v) return word;
            }
            return std::to_string(static_cast<long long>(v));
        } else if constexpr (std::is_arithmetic_v<T>) {
            return detail::number_to_string(v);
        } else if constexpr (std::is_same_v<T, Type>) {
            return detail::type_to_param_string(v);
        } else if constexpr (std::is_same_v<T, Target>) {
            return v.to_string();
        } else {
            return v;
        }
    }

    T parse(const std::string &text) const {
        const std::string &n = member_name();
        if constexpr (std::is_same_v<T, bool>) {
            if (text == "true") return true;
            if (text == "false") return false;
            detail::throw_bad_param_value(n, text, "write true or false");
        } else if constexpr (std::is_enum_v<T>) {
            auto it = words_.find(text);
            if (it == words_.end()) detail::throw_bad_param_value(n, text, "use " + kind_text());
            return it->second;
        } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
            long long v = 0;
            if (!detail::parse_integer(text, v) || v < std::numeric_limits<T>::min() ||
                v > std::numeric_limits<T>::max()) {
                detail::throw_bad_param_value(n, text, "write an integer of type " + kind_text());
            }
            return static_cast<T>(v);
        } else if constexpr (std::is_integral_v<T>) {
            unsigned long long v = 0;
            if (!detail::parse_unsigned(text, v) || v > std::numeric_limits<T>::max()) {
                detail::throw_bad_param_value(
                    n, text, "write a non-negative integer of type " + kind_text());
            }
            return static_cast<T>(v);
        } else if constexpr (std::is_floating_point_v<T>) {
            double v = 0;
            if (!detail::parse_floating(text, v)) {
                detail::throw_bad_param_value(n, text, "write a finite number, e.g. 0.5");
            }
            return static_cast<T>(v);
        } else if constexpr (std::is_same_v<T, Type>) {
            for (const auto &[word, t] : detail::type_names()) {
                if (word == text) return t;
            }
            detail::throw_bad_param_value(n, text, "use one of " + detail::type_name_list());
        } else if constexpr (std::is_same_v<T, Target>) {
            try {
                return Target(text);
            } catch (const CompileError &e) {
                detail::throw_bad_param_value(n, text, e.what());
            }
        } else {
            static_assert(std::is_same_v<T, std::string>,
                          "GeneratorParam<T>: T must be a number type, bool, an enum, Type, "
                          "Target or std::string");
            return text;
        }
    }

    T value_;
    T default_;
    std::optional<T> min_, max_;
    std::map<std::string, T> words_;
};

// Arithmetic and comparisons on GeneratorParams act on their values, so that `x + radius`,
// `2 * radius + 1` and `mode == Mode::Fast` read naturally. Where a function wants an Expr
// (`cast`, `max`), write `radius.value()`.
#define DSL_GENERATOR_PARAM_OPERATOR(op)                                                     \
    template <typename T, typename Other>                                                    \
    auto operator op(const GeneratorParam<T> &a, const Other &b)->decltype(a.value() op b) { \
        return a.value() op b;                                                               \
    }                                                                                        \
    template <typename Other, typename T>                                                    \
    auto operator op(const Other &a, const GeneratorParam<T> &b)->decltype(a op b.value()) { \
        return a op b.value();                                                               \
    }                                                                                        \
    template <typename T, typename U>                                                        \
    auto operator op(const GeneratorParam<T> &a, const GeneratorParam<U> &b)                 \
        ->decltype(a.value() op b.value()) {                                                 \
        return a.value() op b.value();                                                       \
    }
DSL_GENERATOR_PARAM_OPERATOR(+)
DSL_GENERATOR_PARAM_OPERATOR(-)
DSL_GENERATOR_PARAM_OPERATOR(*)
DSL_GENERATOR_PARAM_OPERATOR(/)
DSL_GENERATOR_PARAM_OPERATOR(%)
DSL_GENERATOR_PARAM_OPERATOR(<)
DSL_GENERATOR_PARAM_OPERATOR(<=)
DSL_GENERATOR_PARAM_OPERATOR(>)
DSL_GENERATOR_PARAM_OPERATOR(>=)
DSL_GENERATOR_PARAM_OPERATOR(==)
DSL_GENERATOR_PARAM_OPERATOR(!=)
DSL_GENERATOR_PARAM_OPERATOR(&&)
DSL_GENERATOR_PARAM_OPERATOR(||)
#undef DSL_GENERATOR_PARAM_OPERATOR

/// `Input<T>`: a scalar argument, used like a Param<T> (an Expr in definitions).
/// `Input<Buffer<T>>`: a buffer argument, used like an ImageParam (see the specialisation).
template <typename T>
class Input : public Param<T>, private detail::GeneratorInputBase {
  public:
    explicit Input(const std::string &name) : Param<T>(name), GeneratorInputBase(name) {}
    Input(const std::string &name, T default_value)
        : Param<T>(name, default_value), GeneratorInputBase(name), default_(default_value) {}
    Input(const std::string &name, T default_value, T min, T max)
        : Param<T>(name, default_value, min, max),
          GeneratorInputBase(name),
          default_(default_value),
          min_(min),
          max_(max) {}

    std::string describe() const override {
        std::string d = type_of<T>().to_string();
        if (default_) d += ", default " + detail::number_to_string(*default_);
        std::string range = detail::range_text(min_, max_);
        if (!range.empty()) d += ", in " + range;
        return d;
    }
    Argument argument() const override { return Argument(static_cast<const Param<T> &>(*this)); }
    void bind_scalar(const void *data, const Type &t) override {
        if constexpr (std::is_arithmetic_v<T>) {
            Param<T>::set(detail::scalar_as<T>(data, t));
        } else {
            GeneratorInputBase::bind_scalar(data, t);
        }
    }

  private:
    std::optional<T> default_, min_, max_;
};

namespace detail {
/// The number of dimensions a generator's buffer Input or Output declares: `dimensions` where
/// given, else Dims of its Buffer<T, Dims>, else AnyDims (an Input then adds the
/// GeneratorParam `<name>.dim`; an Output takes the number generate() gives it). A
/// CompileError if both are given and differ.
int declared_dimensions(const std::string &kind, const std::string &name, int dims, int dimensions);
/// The GeneratorParam `<name>.type` or `<name>.dim` of a buffer Input or Output, checked when
/// the pipeline is built: a CompileError naming the generator, the member and how to set it.
Type required_type(const std::string &generator_name, const std::string &kind,
                   const std::string &name, const Type &t);
int required_dimensions(const std::string &generator_name, const std::string &kind,
                        const std::string &name, int dimensions);
}  // namespace detail

/// A buffer argument, used like an ImageParam: `input(x, y)`, `input.width()`,
/// `BoundaryConditions::repeat_edge(input)`. `Input<Buffer<uint8_t, 2>> input{"input"}` fixes
/// the element type and the number of dimensions; `Input<Buffer<uint8_t>> input{"input", 2}`
/// gives the number to the constructor. `Input<Buffer<>>` takes its type from the constructor
/// (`{"input", UInt(16), 2}`) or, without one, from the GeneratorParam `<name>.type` that it
/// adds (set as `input.type=uint16`); a number of dimensions known nowhere comes from the
/// GeneratorParam `<name>.dim` (`input.dim=3`).
template <typename T, int Dims>
class Input<Buffer<T, Dims>> : public ImageParam, private detail::GeneratorInputBase {
  public:
    explicit Input(const std::string &name, int dimensions = AnyDims)
        : Input(name, std::is_void_v<T> ? UInt(8) : element_type(),
                detail::declared_dimensions("Input", name, Dims, dimensions), 0) {
        fixed_type_ = !std::is_void_v<T>;
        if constexpr (std::is_void_v<T>) type_param_.emplace(name + ".type", Type());
    }
    Input(const std::string &name, const Type &type, int dimensions = AnyDims)
        : Input(name, type, detail::declared_dimensions("Input", name, Dims, dimensions), 0) {
        static_assert(std::is_void_v<T>,
                      "Input<Buffer<T>>: the element type is T; give a type only to "
                      "Input<Buffer<>>");
    }

    void prepare(const std::string &generator_name) override {
        if (fixed_type_ && !dim_param_) return;
        const Type t = fixed_type_ ? type()
                                   : detail::required_type(generator_name, "Input", member_name(),
                                                           type_param_->value());
        const int dims = dim_param_ ? detail::required_dimensions(generator_name, "Input",
                                                                  member_name(), *dim_param_)
                                    : ImageParam::dimensions();
        static_cast<ImageParam &>(*this) = ImageParam(t, dims, member_name());
    }
    std::string describe() const override {
        std::string element = fixed_type_ ? type().to_string() : "<" + member_name() + ".type>";
        std::string dims =
            dim_param_ ? "<" + member_name() + ".dim>" : std::to_string(ImageParam::dimensions());
        return "buffer of " + element + ", " + dims + " dimensions";
    }
    Argument argument() const override { return Argument(static_cast<const ImageParam &>(*this)); }
    void bind_for_tuning(const std::string &generator_name, uint64_t seed) override {
        detail::bind_random_buffer(*this, generator_name, seed);
    }
    void bind_buffer(const Buffer<> &b) override { ImageParam::set(b); }

  private:
    /// `dims` AnyDims: set later from the GeneratorParam `<name>.dim`.
    Input(const std::string &name, const Type &type, int dims, int)
        : ImageParam(type, dims == AnyDims ? 0 : dims, name), GeneratorInputBase(name) {
        if (dims == AnyDims) dim_param_.emplace(name + ".dim", -1, -1, 16);
    }

    static constexpr Type element_type() {
        if constexpr (std::is_void_v<T>) {
            return Type();
        } else {
            return type_of<T>();
        }
    }

    bool fixed_type_ = true;
    std::optional<GeneratorParam<Type>> type_param_;
    std::optional<GeneratorParam<int>> dim_param_;
};

/// `Output<Buffer<T, Dims>>`: a Func generate() defines, with Dims dimensions (or the number
/// the constructor gives: `Output<Buffer<float>> out{"out", 2}`) and elements of type T. It is
/// a Func: `output(x, y) = ...`, `output.vectorize(x, 8)`. Assigning a Func (`output = blur_y;`)
/// makes that Func the output; the output buffer then takes its name. `Output<Buffer<void, 2>>`
/// adds the GeneratorParam `<name>.type`: generate() reads it as `output.type()`
/// (`output(x, y) = cast(output.type(), v)`); left unset, the output holds whatever type
/// generate() gives it. A generator may declare several Outputs: the compiled function takes
/// one buffer for each, after the Inputs, in declaration order.
template <typename T>
class Output {
    static_assert(sizeof(T *) == 0,
                  "Output<T>: generators support buffer outputs only; declare "
                  "Output<Buffer<T, dimensions>> output{\"output\"} or Output<Func> "
                  "output{\"output\", type, dimensions}");
};

template <typename T, int Dims>
class Output<Buffer<T, Dims>> : public Func, private detail::GeneratorOutputBase {
  public:
    explicit Output(const std::string &name, int dimensions = AnyDims)
        : Func(name),
          GeneratorOutputBase(name),
          dimensions_(detail::declared_dimensions("Output", name, Dims, dimensions)) {
        if constexpr (std::is_void_v<T>) type_param_.emplace(name + ".type", Type());
    }

    Output &operator=(const Func &f) {
        Func::operator=(f);
        return *this;
    }

    /// The element type: T, else `<name>.type` if set, else the type generate() gave it.
    Type type() const {
        if constexpr (!std::is_void_v<T>) {
            return type_of<T>();
        } else {
            if (fixed_type_) return *fixed_type_;
            if (type_param_->value() != Type()) return type_param_->value();
            if (!defined()) {
                throw CompileError("Error: the Output \"" + member_name() +
                                   "\" has no type yet: set it on the command line (" +
                                   member_name() + ".type=float32) or define the output first.");
            }
            return Func::type();
        }
    }
    /// The number of dimensions of the output buffer.
    int dimensions() const { return defined() ? Func::dimensions() : dimensions_; }

    std::string describe() const override {
        std::string element = "any type";
        if constexpr (!std::is_void_v<T>) {
            element = type_of<T>().to_string();
        } else if (fixed_type_) {
            element = fixed_type_->to_string();
        } else {
            element = "<" + member_name() + ".type> or any type";
        }
        return "buffer of " + element + ", " +
               (dimensions_ == AnyDims ? std::string("any number of")
                                       : std::to_string(dimensions_)) +
               " dimensions";
    }
    Func output_func() const override { return static_cast<const Func &>(*this); }
    /// Dimension `d` of the output buffer, to constrain in schedule() once the output is
    /// defined: `output.dim(0).set_min(0)` (see dsl/Dimension.h).
    Dimension dim(int d) const { return output_buffer().dim(d); }
    void check_defined() const override {
        std::optional<Type> expected;
        if constexpr (!std::is_void_v<T>) {
            expected = type_of<T>();
        } else if (fixed_type_) {
            expected = fixed_type_;
        } else {
            if (type_param_->value() != Type()) expected = type_param_->value();
        }
        detail::check_output_func(member_name(), *this, dimensions_, expected);
    }

  protected:
    /// An Output whose element type the constructor gives (Output<Func>).
    Output(const std::string &name, const Type &type, int dimensions)
        : Func(name),
          GeneratorOutputBase(name),
          dimensions_(detail::declared_dimensions("Output", name, Dims, dimensions)),
          fixed_type_(type) {
        static_assert(std::is_void_v<T>, "Output<Buffer<T>>: the element type is T");
    }

  private:
    int dimensions_;
    std::optional<GeneratorParam<Type>> type_param_;
    std::optional<Type> fixed_type_;
};

/// Halide's `Output<Func>`: an Output<Buffer<>> whose element type and number of dimensions
/// the constructor may give (`Output<Func> output{"output", Int(32), 3}`); without a type it
/// has the GeneratorParam `<name>.type`, as Output<Buffer<void>>. A list of types must hold
/// one (an Output holds one value per point here).
template <>
class Output<Func> : public Output<Buffer<void, AnyDims>> {
    using Base = Output<Buffer<void, AnyDims>>;

  public:
    explicit Output(const std::string &name, int dimensions = AnyDims) : Base(name, dimensions) {}
    Output(const std::string &name, const Type &type, int dimensions = AnyDims)
        : Base(name, type, dimensions) {}
    Output(const std::string &name, const std::vector<Type> &types, int dimensions = AnyDims)
        : Base(name, one_type(name, types), dimensions) {}

    Output &operator=(const Func &f) {
        Base::operator=(f);
        return *this;
    }

  private:
    static Type one_type(const std::string &name, const std::vector<Type> &types) {
        if (types.size() != 1) {
            throw CompileError("Error: the Output<Func> \"" + name + "\" is declared with " +
                               std::to_string(types.size()) +
                               " types; an Output holds one value per point here. Declare one "
                               "Output per value.");
        }
        return types[0];
    }
};

/// Halide's `Input<Func>`: a buffer Input (an Input<Buffer<>> of the type and number of
/// dimensions given, or from the GeneratorParams `<name>.type` and `<name>.dim`) that converts
/// to a Func reading it, for code written in terms of Funcs.
template <>
class Input<Func> : public Input<Buffer<void, AnyDims>> {
    using Base = Input<Buffer<void, AnyDims>>;

  public:
    explicit Input(const std::string &name, int dimensions = AnyDims) : Base(name, dimensions) {}
    Input(const std::string &name, const Type &type, int dimensions = AnyDims)
        : Base(name, type, dimensions) {}

    /// A Func whose values are the input's (the same Func each time; made in generate(), once
    /// the input has its type).
    operator Func() const {  // NOLINT: implicit by design
        if (!func_) {
            func_.emplace(name() + "_func");
            (*func_)(_) = static_cast<const ImageParam &>(*this)(_);
        }
        return *func_;
    }

  private:
    mutable std::optional<Func> func_;
};

/// The base of every Generator. Use `Generator<YourClass>`.
class GeneratorBase {
  public:
    virtual ~GeneratorBase();
    GeneratorBase(const GeneratorBase &) = delete;
    GeneratorBase &operator=(const GeneratorBase &) = delete;

    /// The target code is generated for (the GeneratorParam `target`).
    Target get_target() const { return target.value(); }
    /// The target's natural vector width for elements of type `t` (or T), in lanes.
    int natural_vector_size(const Type &t) const { return get_target().natural_vector_size(t); }
    template <typename T>
    int natural_vector_size() const {
        return get_target().natural_vector_size(type_of<T>());
    }

    /// The name it was registered under (or created with).
    const std::string &generator_name() const { return name_; }
    void set_generator_name(const std::string &name) { name_ = name; }

    /// Sets the GeneratorParam `name` from text; a CompileError naming the generator, the param
    /// and the values it accepts (or the params there are) if either is wrong.
    void set_param(const std::string &name, const std::string &value);
    /// The members in declaration order (`target` first).
    const std::vector<detail::GeneratorParamBase *> &params() const { return params_; }
    const std::vector<detail::GeneratorInputBase *> &inputs() const { return inputs_; }
    const std::vector<detail::GeneratorOutputBase *> &outputs() const { return outputs_; }

    /// Runs generate() then schedule() (once) and returns the pipeline of its Outputs, in
    /// declaration order (`build_pipeline().outputs()[0]` is the first Output's Func).
    Pipeline build_pipeline();
    /// The arguments of the compiled function before its output buffers: the Inputs in
    /// declaration order.
    std::vector<Argument> arguments() const;

    /// Running a generator in this process (Halide's GeneratorContext::apply): builds the
    /// pipeline (generate(), then schedule(); set GeneratorParams before) and binds the Inputs,
    /// in declaration order, to `args`: numbers for scalar Inputs, Buffers for buffer Inputs.
    /// realize() then runs it for the generator's target.
    template <typename... Args>
    void apply(const Args &...args) {
        build_pipeline();
        check_input_count(sizeof...(Args));
        size_t i = 0;
        (bind_input(i++, args), ...);
    }
    Realization realize(const std::vector<int> &sizes = {}) {
        return build_pipeline().realize(sizes, get_target());
    }
    /// The pipeline of the Outputs (build_pipeline()).
    Pipeline get_pipeline() { return build_pipeline(); }

    /// What the command line can emit, each to `<dir>/<function_name><extension>`.
    enum class Emit {
        StaticLibrary,
        Header,
        Object,
        Stmt,
        Assembly,
        LlvmIr,
        PTX,
        OpenCL,
        Schedule
    };
    /// The word for `e` on the command line ("static_library") and its file extension (".a").
    static std::string emit_word(Emit e);
    static std::string emit_extension(Emit e);
    /// Builds the pipeline and writes the files. An empty `function_name` means the generator's
    /// name.
    void emit(const std::string &output_dir, const std::string &function_name,
              const std::vector<Emit> &emits);

  private:
    /// A CompileError naming the generator unless `count` is its number of Inputs.
    void check_input_count(size_t count) const;
    template <typename A>
    void bind_input(size_t i, const A &a) {
        if constexpr (std::is_arithmetic_v<A>) {
            inputs_[i]->bind_scalar(&a, type_of<A>());
        } else {
            static_assert(!std::is_const_v<typename A::ElemType>,
                          "apply(): a buffer Input takes a Buffer<T> (not of const T)");
            inputs_[i]->bind_buffer(Buffer<>(a));
        }
    }

    friend class detail::GeneratorMember;
    friend void detail::join_generator(detail::GeneratorParamBase *);
    friend void detail::join_generator(detail::GeneratorInputBase *);
    friend void detail::join_generator(detail::GeneratorOutputBase *);
    /// Makes this the generator under construction, so that the members constructed next
    /// (`target`, then the derived class's) join it.
    struct RegistrationScope {
        RegistrationScope(GeneratorBase *generator, size_t object_size);
    };
    /// Refuses a second member of the same name.
    void check_new_name(const detail::GeneratorMember *member) const;

    // Declared before `target`, the first member to register, so that they exist by then.
    std::vector<detail::GeneratorParamBase *> params_;
    std::vector<detail::GeneratorInputBase *> inputs_;
    std::vector<detail::GeneratorOutputBase *> outputs_;
    std::string name_;
    std::optional<Pipeline> pipeline_;
    std::string schedule_source_;
    RegistrationScope registration_scope_;

  public:
    /// The target code is generated for ("host" unless set); read it with get_target().
    GeneratorParam<Target> target{"target", Target::host()};
    /// `autoscheduler=dsl` (or one of Halide's names, which mean the same) schedules the
    /// pipeline with Pipeline::auto_schedule after schedule() has run (schedule() then only
    /// gives estimates: see using_autoscheduler()); `auto_schedule=true` is Halide 14's way of
    /// saying the same. `machine_params=16,16777216,40` says what machine to plan for (this one
    /// unless set). `-e schedule` writes the schedule it chose as C++ source.
    GeneratorParam<std::string> autoscheduler{"autoscheduler", ""};
    GeneratorParam<bool> auto_schedule{"auto_schedule", false};
    GeneratorParam<std::string> machine_params{"machine_params", ""};

    /// Whether the autoscheduler will schedule the pipeline (autoscheduler or auto_schedule
    /// set): a schedule() that sees it true gives estimates instead of a schedule.
    bool using_autoscheduler() const { return !autoscheduler.value().empty() || auto_schedule; }
    /// The schedule the autoscheduler chose, as C++ source (empty unless it ran).
    const std::string &auto_schedule_source() const { return schedule_source_; }
    /// Builds the pipeline with the autoscheduler (autoscheduler=dsl unless another was set),
    /// binds every buffer Input to random values of its estimated size, and runs
    /// Pipeline::auto_tune: the pipeline, and what emit() then writes (`-e schedule` included),
    /// have the fastest schedule found. The command line's `--tune SECONDS` calls it.
    TuneResults tune(const TuneOptions &options);

  protected:
    /// `object_size` is sizeof the derived class: members constructed inside that many bytes
    /// from `this` belong to this generator.
    explicit GeneratorBase(size_t object_size);

    virtual void call_generate() = 0;
    virtual void call_schedule() = 0;
};

/// `class MyGen : public Generator<MyGen> { ... void generate() {...} void schedule() {...} };`
/// generate() (public) defines the Output; schedule() (public, optional) schedules the pipeline.
template <typename Derived>
class Generator : public GeneratorBase {
  protected:
    Generator() : GeneratorBase(sizeof(Derived)) {}

  private:
    template <typename D, typename = void>
    struct HasSchedule : std::false_type {};
    template <typename D>
    struct HasSchedule<D, std::void_t<decltype(std::declval<D &>().schedule())>> : std::true_type {
    };

    template <typename D, typename = void>
    struct HasGenerate : std::false_type {};
    template <typename D>
    struct HasGenerate<D, std::void_t<decltype(std::declval<D &>().generate())>> : std::true_type {
    };

    void call_generate() override {
        static_assert(HasGenerate<Derived>::value,
                      "a Generator needs a public `void generate()` that defines its Output");
        if constexpr (HasGenerate<Derived>::value) static_cast<Derived *>(this)->generate();
    }
    void call_schedule() override {
        if constexpr (HasSchedule<Derived>::value) static_cast<Derived *>(this)->schedule();
    }
};

/// Where generators run in this process (Halide's GeneratorContext): `create<G>()` makes a
/// generator for the context's target, whose GeneratorParams may then be set before
/// `g->apply(inputs...)`; `apply<G>(inputs...)` does both. `g->realize(sizes)` runs it.
class GeneratorContext {
  public:
    explicit GeneratorContext(const Target &target = get_jit_target_from_environment())
        : target_(target) {}
    const Target &get_target() const { return target_; }

    template <typename G>
    std::unique_ptr<G> create() const {
        static_assert(std::is_base_of_v<GeneratorBase, G>, "create<G>(): G is a Generator");
        std::unique_ptr<G> g(new G());
        g->target.set(target_);
        return g;
    }
    template <typename G, typename... Args>
    std::unique_ptr<G> apply(const Args &...args) const {
        std::unique_ptr<G> g = create<G>();
        g->apply(args...);
        return g;
    }

  private:
    Target target_;
};

/// The generators registered with DSL_REGISTER_GENERATOR in this program, by name.
std::vector<std::string> registered_generators();
/// A new instance of the registered generator `name`; a CompileError listing the registered
/// ones if there is none of that name.
std::unique_ptr<GeneratorBase> create_generator(const std::string &name);

namespace detail {
using GeneratorFactory = std::unique_ptr<GeneratorBase> (*)();
/// Registers a factory at static initialisation (DSL_REGISTER_GENERATOR makes one).
struct GeneratorRegistration {
    GeneratorRegistration(const char *name, GeneratorFactory factory);
};
/// Problems found while registering (a name registered twice, a name that is not a C
/// identifier); reported by the command line, since static initialisation cannot throw.
const std::vector<std::string> &generator_registration_errors();
}  // namespace detail

}  // namespace dsl

/// Registers the generator class `GEN_CLASS` under `NAME` (a C identifier, also the default
/// name of the compiled function). Write it at namespace scope in the generator's .cpp file.
#define DSL_REGISTER_GENERATOR(GEN_CLASS, NAME)                                          \
    static const ::dsl::detail::GeneratorRegistration dsl_generator_registration_##NAME( \
        #NAME, []() -> std::unique_ptr<::dsl::GeneratorBase> {                           \
            return std::unique_ptr<::dsl::GeneratorBase>(new GEN_CLASS());               \
        });

/// Halide's name for DSL_REGISTER_GENERATOR (a third argument, Halide's stub name, is ignored).
/// Variadic as a whole, so that the two-argument form passes at least one argument to `...`.
#define HALIDE_REGISTER_GENERATOR(...) DSL_REGISTER_GENERATOR_FIRST_TWO(__VA_ARGS__, )
#define DSL_REGISTER_GENERATOR_FIRST_TWO(GEN_CLASS, NAME, ...) \
    DSL_REGISTER_GENERATOR(GEN_CLASS, NAME)
