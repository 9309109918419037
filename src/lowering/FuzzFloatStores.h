#pragma once
#include "ir/IR.h"

namespace dsl::lowering {

/// The `fuzz_float_stores` target feature (Halide's FuzzFloatStores): every store of a
/// floating-point value clears the lowest bit of its mantissa, in buffers and in a pipeline's
/// own allocations alike. A value of few significant bits (most integers, halves, quarters)
/// is stored unchanged; a value that uses all its bits is stored off by one unit in the last
/// place about half the time. A pipeline whose results move far under it depends on the last
/// bit of its arithmetic, which other compilers and processors may round differently.
ir::Stmt fuzz_float_stores(const ir::Stmt &s);

}  // namespace dsl::lowering
