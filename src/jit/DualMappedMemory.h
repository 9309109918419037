#pragma once
/// Memory for JIT-linked code without a protection change per module.
///
/// LLVM's in-process mapper writes code into read-write pages and then `mprotect`s them to
/// read-execute, and back when the code is freed. Each change flushes the TLB of every core the
/// process runs on; on virtual machines that costs about 0.3 ms, most of the time of linking a
/// pipeline loaded from the disk cache. This mapper maps each reservation twice, from one memory
/// file: a read-write view that the linker writes through and a read-execute view that the code
/// runs from. No page is writable and executable in the same view. Segments that must stay
/// writable at run time (none in dsl's code, so far) get their executable view changed to
/// read-write while they live.
///
/// Linux only (memfd_create); make_dual_mapped_memory() returns null where it is not available,
/// where the system refuses an executable shared mapping, under valgrind (which would take the
/// code written through the other view for uninitialised memory) and when DSL_JIT_DUAL_MAPPING=0;
/// the JIT then uses LLVM's mapper.

#include <memory>

namespace llvm::orc {
class MemoryMapper;
}

namespace dsl::jit {

std::unique_ptr<llvm::orc::MemoryMapper> make_dual_mapped_memory();

/// Whether make_dual_mapped_memory() gives a mapper here and now.
bool dual_mapped_memory_available();

}  // namespace dsl::jit
