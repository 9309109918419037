#pragma once
/// What TailStrategy::Auto means for each split, decided once the whole pipeline is known.

#include "lowering/Environment.h"

namespace dsl::lowering {

/// Gives every split of a pure Var whose tail is TailStrategy::Auto the strategy it stands for
/// (the Funcs in `env` are lowering's private copies; the user's schedules do not change):
///   - ShiftInwards where the split straddles the loop a producer is computed at (the outer
///     loop at or around that loop, the inner one inside it) and that producer unrolls or
///     vectorizes a loop over its whole region, in the pure definition of a Func computed at
///     root (an output included). Every iteration of the producer's loop then needs a region
///     of the split's factor exactly, so the producer's loops have constant extents and can be
///     unrolled or vectorized at all (a Halide schedule such as
///     `conv.compute_at(relu, xo).unroll(x)` with `relu.split(x, xo, xi, 6)` depends on it;
///     with GuardWithIf it would be refused). As with Halide, the Func's extent along that Var
///     must then be at least the factor.
///   - GuardWithIf everywhere else: no point is computed twice, any extent works, and a
///     vectorized or unrolled inner loop still runs its full iterations without tests. Halide
///     shifts inwards more often; where no loop needs a constant extent that only recomputes.
/// Call after resolve_compute_levels, which says which stage each producer is computed in.
void resolve_auto_tails(Environment &env);

/// Whether a stage of `f` unrolls or vectorizes a loop over its whole region (a pure Var not
/// split by a factor, or the outer loop of such a split): its region where it is computed must
/// then have a constant size. Bounds inference gives such a Func, computed per iteration of a
/// consumer's loop that needs a region of constant size, a window of that size.
bool unrolls_whole_region(const lang::Function &f);

}  // namespace dsl::lowering
