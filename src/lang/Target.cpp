#include "dsl/Target.h"

namespace dsl {

Target Target::host() {
    Target t;
#if defined(__aarch64__)
    t.arch = Arch::ARM;
#else
    t.arch = Arch::X86;
#endif
    t.bits = 64;
    return t;
}

std::string Target::to_string() const {
    std::string s =
        std::string(arch == Arch::X86 ? "x86" : "arm") + "-" + std::to_string(bits) + "-linux";
    if (!cpu.empty()) s += " (" + cpu + ")";
    if (!features.empty()) s += " [" + features + "]";
    return s;
}

}  // namespace dsl
