#pragma once
/// Skipping the computation of Funcs whose values nothing will use (Halide's skip_stages):
/// after bounds inference, a Func that is read only under conditions known before its storage
/// is made (a select or an if on Params, or on the loops around that storage, or on an input's
/// values there where no other condition encloses the test) is computed only
/// when one of those conditions holds. `f4(x) = select(p, f2(x), f3(x))` computes f2 when p and
/// f3 when !p, and a Func read only by skipped Funcs is skipped with them. The storage is still
/// made: a select still reads both sides, and a vector select loads both.

#include "ir/IR.h"

namespace dsl::lowering {

/// Wraps the production of each Func realized in `s` in `if (c)`, where c is the disjunction,
/// over the Func's reads, of the select and if conditions around each read that use only names
/// bound outside the Func's realization (a read under none: c is true, and nothing changes).
/// Funcs produced in device loops are left alone.
ir::Stmt skip_stages(const ir::Stmt &s);

}  // namespace dsl::lowering
