#pragma once
/// The data behind `Param<T>` and `ImageParam`: an input of a pipeline whose value is supplied
/// when it runs. IR nodes refer to it so that lowering can list a pipeline's arguments.

#include <map>
#include <memory>
#include <string>

#include "dsl/Buffer.h"
#include "dsl/Expr.h"
#include "ir/BufferConstraints.h"
#include "ir/FunctionPtr.h"

namespace dsl::ir {

struct ParameterContents {
    std::string name;
    /// The scalar's type, or a buffer's element type.
    Type type;
    bool is_buffer = false;
    int dimensions = 0;
    /// The scalar's value bits, set by `Param::set` (little-endian, `type.bytes()` used).
    uint64_t scalar_bits = 0;
    bool has_value = false;
    /// Optional default / bounds of a scalar (constants of `type`).
    Expr default_value, min_value, max_value;
    /// Param::set_estimate: the value the autoscheduler assumes (a constant of `type`).
    Expr estimate;
    /// The buffer bound to an ImageParam.
    Buffer<> buffer;
    /// An ImageParam's constraints (dim(d).set_min(...), ...).
    std::shared_ptr<BufferConstraints> constraints;
    /// ImageParam::in(): the Funcs that stand in for the buffer's calls, by consumer name ("" for
    /// every consumer). Weak: the ImageParam keeps them alive, and they read this parameter.
    std::map<std::string, FunctionPtr> wrappers;
    /// ImageParam::trace_loads(): each load from the buffer is a tracing event.
    bool trace_loads = false;
};

/// A shared handle to a parameter; copies refer to the same parameter.
class Parameter {
  public:
    Parameter() = default;
    Parameter(Type type, bool is_buffer, int dimensions, const std::string &name);
    explicit Parameter(std::shared_ptr<ParameterContents> contents)
        : contents_(std::move(contents)) {}
    const std::shared_ptr<ParameterContents> &shared() const { return contents_; }

    bool defined() const { return contents_ != nullptr; }
    const std::string &name() const { return contents_->name; }
    Type type() const { return contents_->type; }
    bool is_buffer() const { return contents_->is_buffer; }
    int dimensions() const { return contents_->dimensions; }
    ParameterContents &contents() const { return *contents_; }
    bool same_as(const Parameter &o) const { return contents_ == o.contents_; }
    /// For sorting and maps.
    const void *id() const { return contents_.get(); }

  private:
    std::shared_ptr<ParameterContents> contents_;
};

}  // namespace dsl::ir
