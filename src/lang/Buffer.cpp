#include "dsl/Buffer.h"

#include <atomic>

// Weak: programs that use Buffer without the runtime (image tools) have no device copies, and
// no messages to show.
extern "C" const char *dsl_runtime_last_error(void) __attribute__((weak));
extern "C" void dsl_runtime_clear_last_error(void) __attribute__((weak));
#pragma weak dsl_buffer_copy_to_host
#pragma weak dsl_buffer_device_free
#pragma weak dsl_buffer_device_sync

namespace dsl::detail {

void buffer_error(const std::string &message) {
    throw RuntimeError("Error: " + message);
}

Type buffer_type(const dsl_buffer_t &raw) {
    return Type(raw.type).element_of();
}

dsl_type_t to_raw_type(Type t) {
    return t.element_of();
}

namespace {

[[noreturn]] void device_failed(const BufferContents &c, const char *what, int code) {
    // The runtime's message (it says what failed and why).
    std::string message = dsl_runtime_last_error ? dsl_runtime_last_error() : "";
    if (message.empty()) {
        message = "Error: " + std::string(what) + " of buffer \"" + c.name +
                  "\" failed with code " + std::to_string(code) + ".";
    }
    throw RuntimeError(message);
}

/// Runs a runtime call on a buffer with a device copy; throws on failure.
void on_device(BufferContents &c, int (*call)(dsl_buffer_t *), const char *what) {
    if (!c.raw.device || !call) return;
    if (dsl_runtime_clear_last_error) dsl_runtime_clear_last_error();
    if (int code = call(&c.raw)) device_failed(c, what, code);
}

}  // namespace

BufferContents::~BufferContents() {
    if (raw.device && dsl_buffer_device_free) dsl_buffer_device_free(&raw);
}

void buffer_copy_to_host(BufferContents &c) {
    on_device(c, dsl_buffer_copy_to_host, "copy_to_host");
}

void buffer_device_free(BufferContents &c) {
    on_device(c, dsl_buffer_device_free, "device_free");
}

void buffer_device_sync(BufferContents &c) {
    on_device(c, dsl_buffer_device_sync, "device_sync");
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
