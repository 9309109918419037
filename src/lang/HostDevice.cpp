// host_supports_target_device: whether a target's GPU API has a usable device here, found by
// running a four-element kernel on it once per API.
#include <map>
#include <mutex>

#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/Target.h"
#include "dsl/Var.h"

namespace dsl {

bool host_supports_target_device(const Target &t) {
    const DeviceAPI api = t.get_required_device_api();
    if (api == DeviceAPI::None) return true;
    static std::mutex lock;
    static std::map<DeviceAPI, bool> known;
    std::lock_guard<std::mutex> guard(lock);
    auto it = known.find(api);
    if (it != known.end()) return it->second;
    Target probe_target = Target::host();
    probe_target =
        probe_target.with_feature(api == DeviceAPI::OpenCL ? Target::OpenCL : Target::CUDA);
    Var x("x"), block("block"), thread("thread");
    Func probe("device_probe");
    probe(x) = x;
    probe.gpu_tile(x, block, thread, 4);
    bool works = true;
    try {
        Buffer<int32_t> out = probe.realize({4}, probe_target);
        works = out(3) == 3;
    } catch (const Error &) {
        works = false;
    }
    known[api] = works;
    return works;
}

}  // namespace dsl
