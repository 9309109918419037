#pragma once
/// How a `Target` becomes the LLVM triple, CPU name and feature string of a `CpuTarget`, and
/// which `Target` features this machine's CPU has. The one place that knows LLVM's names for
/// architectures and features.

#include <string>
#include <vector>

#include "codegen/CodeGenLLVM.h"
#include "dsl/Target.h"

namespace dsl::codegen {

/// x86-64 targets: "x86_64-unknown-linux-gnu", CPU "x86-64" and the features' LLVM names
/// (`avx2` gives "+sse4.1,+sse4.2,+avx,+avx2"). arm-64 targets: "aarch64-unknown-linux-gnu", CPU
/// "generic", "+neon". `host` targets: `CpuTarget::host()` with the added features appended.
CpuTarget cpu_target_for(const Target &target);

/// The features of `Target::Feature` that this machine's CPU has (all LLVM features a
/// `Target::Feature` stands for must be present), for the host's architecture only.
std::vector<Target::Feature> host_cpu_features();

}  // namespace dsl::codegen
