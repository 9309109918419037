#pragma once
/// `Target`: the machine code is generated for.

#include <string>
#include <vector>

namespace dsl {

class Target {
  public:
    enum class Arch { X86, ARM };
    enum class OS { Linux };

    Arch arch = Arch::X86;
    int bits = 64;
    OS os = OS::Linux;
    /// LLVM CPU name ("znver4", "sapphirerapids", "generic") and feature string ("+avx2,...").
    /// Empty means: the host's.
    std::string cpu;
    std::string features;

    /// The machine this program runs on, with all its SIMD features.
    static Target host();
    /// e.g. "x86-64-linux (znver4)".
    std::string to_string() const;
    bool operator==(const Target &o) const {
        return arch == o.arch && bits == o.bits && os == o.os && cpu == o.cpu &&
               features == o.features;
    }
};

}  // namespace dsl
