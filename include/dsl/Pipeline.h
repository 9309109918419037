#pragma once
/// `Pipeline`: several output Funcs computed by one compiled function, sharing the Funcs they
/// both use (computed once) and one pass over their loops where the schedule allows.
///
///   Func gradient_x, gradient_y;   // both read `smoothed`, computed at root once
///   Pipeline p({gradient_x, gradient_y});
///   Realization r = p.realize({640, 480});   // r[0]: gradient_x, r[1]: gradient_y
///
/// A Func converts to the Pipeline of itself, so whatever takes a Pipeline takes a Func.

#include <string>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Func.h"
#include "dsl/Target.h"

namespace dsl {

class Pipeline {
  public:
    /// An empty pipeline (defined() is false).
    Pipeline() = default;
    Pipeline(const Func &output);                // NOLINT: implicit by design
    Pipeline(const std::vector<Func> &outputs);  // NOLINT: implicit by design
    Pipeline(std::initializer_list<Func> outputs) : Pipeline(std::vector<Func>(outputs)) {}

    bool defined() const { return !outputs_.empty(); }
    const std::vector<Func> &outputs() const { return outputs_; }

    /// Computes every output over [0, size) in each dimension (all outputs have as many
    /// dimensions as `sizes`); one buffer per output value, in the order of the outputs.
    Realization realize(const std::vector<int> &sizes = {}, const Target &target = Target::host());
    /// Computes into existing buffers: one per value of each output, in order (their mins and
    /// extents say where).
    void realize(const Realization &outputs, const Target &target = Target::host());
    /// Lowers and compiles now (see Func::compile_jit).
    void compile_jit(const Target &target = Target::host());
    /// See Func::infer_input_bounds.
    void infer_input_bounds(const std::vector<int> &sizes, const Target &target = Target::host());
    void infer_input_bounds(const Realization &outputs, const Target &target = Target::host());

    /// The loop nest (see Func::print_loop_nest), and the lowered statement.
    std::string loop_nest() const;
    void print_loop_nest() const;
    std::string lowered_stmt() const;
    void compile_to_lowered_stmt(const std::string &filename, StmtOutputFormat format = Text) const;

    /// Ahead of time, as the Func methods of the same names: one C function `fn_name` taking the
    /// arguments, then one buffer per output value of each output in turn.
    void compile_to_static_library(const std::string &prefix, const std::vector<Argument> &args,
                                   const std::string &fn_name,
                                   const Target &target = Target::host());
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target::host());
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target::host());

  private:
    std::vector<Func> outputs_;
};

}  // namespace dsl
