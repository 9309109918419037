#pragma once
/// How large an allocation of constant size may be and still live on the stack: code
/// generation puts it there (codegen/CodeGenStmt.cpp), and bounds inference sizes a producer's
/// storage to a constant bound only where the storage then fits (lowering/BoundsInference.cpp).

#include <cstdint>

namespace dsl::ir {

/// Allocations of at most this many bytes with a constant size live on the stack.
constexpr int64_t kMaxStackAllocation = 128 * 1024;

}  // namespace dsl::ir
