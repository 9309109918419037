// The device side of Buffer that needs the runtime's device interfaces: copy_to_device
// (dsl/Buffer.h).
#include "dsl/Buffer.h"
#include "runtime/Runtime.h"

namespace dsl::detail {

void buffer_copy_to_device(BufferContents &c, DeviceAPI api, const Target &target) {
    if (api == DeviceAPI::Default_GPU) {
        api = target.has_feature(Target::Feature::OpenCL) ? DeviceAPI::OpenCL
              : target.has_feature(Target::Feature::CUDA) ? DeviceAPI::CUDA
                                                          : DeviceAPI::None;
        if (api == DeviceAPI::None) {
            buffer_error("Buffer \"" + c.name + "\": copy_to_device for the target \"" +
                         target.to_string() +
                         "\", which has no GPU API. Pass a target with the feature opencl or "
                         "cuda (e.g. Target(\"host-opencl\")), or set DSL_JIT_TARGET.");
        }
    }
    const dsl_device_interface_t *device = api == DeviceAPI::OpenCL ? &dsl_opencl_device_interface
                                           : api == DeviceAPI::CUDA ? &dsl_cuda_device_interface
                                           : api == DeviceAPI::NPU  ? &dsl_npu_device_interface
                                                                    : nullptr;
    if (!device) {
        buffer_error("Buffer \"" + c.name +
                     "\": copy_to_device to a device API without device memory; use "
                     "DeviceAPI::OpenCL, DeviceAPI::CUDA, DeviceAPI::Default_GPU or "
                     "DeviceAPI::NPU.");
    }
    dsl_runtime_clear_last_error();
    if (int code = dsl_runtime_copy_to_device(&c.raw, device, 0)) {
        std::string message = dsl_runtime_last_error();
        throw RuntimeError(!message.empty()
                               ? message
                               : "Error: copy_to_device of buffer \"" + c.name +
                                     "\" failed with code " + std::to_string(code) + ".");
    }
}

}  // namespace dsl::detail
