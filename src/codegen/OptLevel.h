#pragma once
/// The LLVM code generation level for the dsl's optimisation level 0-3 (DSL_JIT_OPT_LEVEL), for
/// the files that already include LLVM (code generation and the JIT).

#include <llvm/Support/CodeGen.h>

namespace dsl::codegen {

llvm::CodeGenOptLevel codegen_opt_level(int level);

}  // namespace dsl::codegen
