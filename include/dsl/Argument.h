#pragma once
/// `Argument`: one parameter of a pipeline compiled ahead of time, in the order the generated
/// function takes it: `f.compile_to_static_library("blur", {input, strength}, "blur")` makes
///   int blur(dsl_buffer_t *input, float strength, dsl_buffer_t *out);
/// (the outputs come last, one buffer per value of the Func).

#include <memory>
#include <string>
#include <utility>

#include "dsl/Param.h"
#include "dsl/Type.h"

namespace dsl {

class Argument {
  public:
    template <typename T>
    Argument(const Param<T> &p)  // NOLINT: implicit, so that {input, strength} works
        : contents_(p.contents()) {}
    Argument(const ImageParam &p)  // NOLINT: implicit by design
        : contents_(p.contents()) {}
    /// The argument a Param or ImageParam of these contents is (infer_arguments).
    explicit Argument(std::shared_ptr<ir::ParameterContents> contents)
        : contents_(std::move(contents)) {}

    const std::string &name() const;
    bool is_buffer() const;
    /// The scalar's type, or the type of the buffer's elements.
    Type type() const;
    /// The buffer's number of dimensions (0 for a scalar).
    int dimensions() const;
    const std::shared_ptr<ir::ParameterContents> &contents() const { return contents_; }

  private:
    std::shared_ptr<ir::ParameterContents> contents_;
};

}  // namespace dsl
