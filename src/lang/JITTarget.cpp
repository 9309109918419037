#include "lang/JITTarget.h"

#include <cstdlib>

#include "ir/Error.h"

namespace dsl::lang {

void check_jit_target(const std::string &func, const Target &target, const Target &host) {
    user_assert(target.arch == host.arch && target.bits == host.bits && target.os == host.os)
        << "realize(\"" << func << "\"): cannot run code for target \"" << target.to_string()
        << "\" on this machine, which is " << (host.arch == Target::Arch::X86 ? "x86" : "arm")
        << "-" << host.bits
        << "-linux. realize() only runs code for the host; use the compile_to_* functions "
           "(ahead-of-time compilation, e.g. compile_to_assembly) to generate code for "
        << target.to_string() << ".";
    std::string missing;
    for (Target::Feature feature : target.features()) {
        if (!Target::is_cpu_feature(feature) || host.has_feature(feature)) continue;
        if (!missing.empty()) missing += ", ";
        missing += Target::feature_name(feature);
    }
    user_assert(missing.empty())
        << "realize(\"" << func << "\"): target \"" << target.to_string()
        << "\" uses features this machine's CPU lacks: " << missing
        << ". realize() runs the code here, where it would stop at an illegal instruction; "
           "realize with Target::host() or a target without those features, or use the "
           "compile_to_* functions (ahead-of-time compilation) to generate code for a machine "
           "that has them.";
}

int jit_opt_level() {
    const char *v = std::getenv("DSL_JIT_OPT_LEVEL");
    if (!v || !*v) return 3;
    user_assert(v[1] == 0 && v[0] >= '0' && v[0] <= '3')
        << "DSL_JIT_OPT_LEVEL is \"" << v
        << "\"; set it to 0, 1, 2 or 3 (LLVM's optimisation level for JIT compilation), or unset "
           "it for 3.";
    return v[0] - '0';
}

}  // namespace dsl::lang
