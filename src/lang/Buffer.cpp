#include "dsl/Buffer.h"

#include <atomic>

// Weak: programs that use Buffer without the runtime (image tools) have no messages to show.
extern "C" const char *dsl_runtime_last_error(void) __attribute__((weak));

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

void buffer_device_failed(const BufferContents &c, const char *what, int code) {
    // The runtime's message where this program has the runtime (it says what failed and why).
    std::string message = dsl_runtime_last_error ? dsl_runtime_last_error() : "";
    if (message.empty()) {
        message = "Error: " + std::string(what) + " of buffer \"" + c.name +
                  "\" failed with code " + std::to_string(code) + ".";
    }
    throw RuntimeError(message);
}

std::string fresh_buffer_name() {
    static std::atomic<int> counter{0};
    return "buffer" + std::to_string(counter.fetch_add(1));
}

}  // namespace dsl::detail

static_assert(static_cast<int>(dsl::TypeCode::Int) == dsl_type_int &&
                  static_cast<int>(dsl::TypeCode::UInt) == dsl_type_uint &&
                  static_cast<int>(dsl::TypeCode::Float) == dsl_type_float &&
                  static_cast<int>(dsl::TypeCode::BFloat) == dsl_type_bfloat &&
                  static_cast<int>(dsl::TypeCode::Handle) == dsl_type_handle,
              "dsl::TypeCode must match dsl_type_code_t");
