// Buffers in expressions: `buffer(x, y)` with symbolic coordinates becomes a call the pipeline
// reads the buffer through. (Apart from Buffer.cpp, which the image I/O library carries without
// the compiler.)
#include "dsl/Buffer.h"
#include "dsl/Var.h"
#include "ir/Error.h"
#include "ir/IR.h"

namespace dsl::detail {

Expr buffer_access(const Buffer<> &buffer, const std::vector<Expr> &coords_in) {
    user_assert(buffer.defined()) << "use of an undefined Buffer in an expression.";
    std::vector<Expr> coords =
        expand_remaining_dims(coords_in, buffer.dimensions(), "Buffer \"" + buffer.name() + "\"");
    user_assert(static_cast<int>(coords.size()) == buffer.dimensions())
        << "Buffer \"" << buffer.name() << "\" has " << buffer.dimensions()
        << " dimensions but is accessed with " << coords.size() << " coordinates.";
    std::vector<Expr> args;
    for (size_t i = 0; i < coords.size(); i++) {
        const Expr &c = coords[i];
        user_assert(c.defined() && c.type().is_scalar() && c.type().is_int_or_uint() &&
                    !c.type().is_bool())
            << "Buffer \"" << buffer.name() << "\": coordinate " << i << " must be a scalar integer"
            << (c.defined() ? ", not " + c.type().to_string() : std::string()) << ".";
        args.push_back(cast(Int(32), c));
    }
    return ir::Call::make(buffer.type(), buffer.name(), args, ir::Call::CallType::Image, 0, {}, {},
                          buffer);
}

}  // namespace dsl::detail
