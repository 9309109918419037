#pragma once
/// Compares what a pipeline computed with the reference evaluator, element by element.

#include <gtest/gtest.h>

#include "dsl/dsl.h"

namespace dsl::test {

/// Every element of `outputs` (one buffer per value of `f`) equals the reference evaluator's
/// value of `f` at that point: exactly, or within `tolerance` (relative) for floats. Points where
/// the reference value is unspecified by the semantics (it is flagged `undefined`) are skipped.
::testing::AssertionResult matches_reference(const Func &f, const Realization &outputs,
                                             double tolerance = 0);
::testing::AssertionResult matches_reference(const Func &f, const Buffer<> &output,
                                             double tolerance = 0);

/// A buffer of the given type and sizes filled with seeded random values (small integers for
/// integer types, so that sums do not overflow; values in [-8, 8) for floats).
Buffer<> random_buffer(Type t, const std::vector<int> &sizes, uint64_t seed);

/// The LLVM IR of `f`'s pipeline compiled for `target` (Func::compile_to_llvm_ir, through a
/// file in the test's temporary directory).
std::string llvm_ir_of(Func f, const Target &target);
/// The assembly of `f`'s pipeline compiled for `target` (Func::compile_to_assembly).
std::string assembly_of(Func f, const Target &target);
/// `name(x) = e(x - 1) + e(x + 1)` with `e` the repeat_edge of the one-dimensional `in`,
/// vectorized by `lanes`: the smallest stencil whose vector loop has clamped edge iterations.
Func two_tap_repeat_edge(const std::string &name, const Buffer<> &in, int lanes);
/// How many times `what` occurs in `text` (overlaps counted).
int count_of(const std::string &text, const std::string &what);

}  // namespace dsl::test
