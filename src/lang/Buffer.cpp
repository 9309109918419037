#include "dsl/Buffer.h"

#include <atomic>

#include "ir/Error.h"
#include "ir/IR.h"

namespace dsl::detail {

void buffer_error(const std::string &message) {
    throw RuntimeError("Error: " + message);
}

Type buffer_type(const dsl_buffer_t &raw) {
    return Type(static_cast<TypeCode>(raw.type.code), raw.type.bits, 1);
}

dsl_type_t to_raw_type(Type t) {
    return {static_cast<uint8_t>(t.code()), static_cast<uint8_t>(t.bits()), 1};
}

std::string fresh_buffer_name() {
    static std::atomic<int> counter{0};
    return "buffer" + std::to_string(counter.fetch_add(1));
}

Expr buffer_access(const Buffer<> &buffer, const std::vector<Expr> &coords) {
    user_assert(buffer.defined()) << "use of an undefined Buffer in an expression.";
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

static_assert(static_cast<int>(dsl::TypeCode::Int) == dsl_type_int &&
                  static_cast<int>(dsl::TypeCode::UInt) == dsl_type_uint &&
                  static_cast<int>(dsl::TypeCode::Float) == dsl_type_float &&
                  static_cast<int>(dsl::TypeCode::BFloat) == dsl_type_bfloat &&
                  static_cast<int>(dsl::TypeCode::Handle) == dsl_type_handle,
              "dsl::TypeCode must match dsl_type_code_t");
