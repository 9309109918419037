#pragma once
#include "ir/IR.h"
#include "lowering/Environment.h"

namespace dsl::lowering {

using ir::Stmt;

/// Builds the loop nest of the whole pipeline from the Funcs' definitions and schedules:
///   realize producer {                         (one per Func computed at root, not an output)
///     produce producer {
///       for producer.s0.y in [producer.s0.y.min, producer.s0.y.max]:
///         for producer.s0.x in [...]:
///           producer(producer.s0.x, producer.s0.y) = ...
///       for producer.s1.r.x in [...]:          (an update over an RDom)
///         ...
///     }
///     consume producer {
///       produce output { ... }
///     }
///   }
/// Loop bounds are left as the variables `<loop>.min` / `<loop>.max` that bounds inference
/// defines (RDom bounds are defined here, from the RDom). Values still call Funcs and inputs.
Stmt schedule_functions(Environment &env);

/// Checks every `compute_at` and records the consumer stage it refers to: the consumer must be
/// computed (not inlined) and be the only Func that uses the producer, exactly one of its stages
/// may use it, and that stage must have the loop. Then every `store_at`: at root, or at the
/// compute loop or a loop around it, with no parallel loop in between. Errors list the legal
/// locations.
void resolve_compute_levels(Environment &env);

/// The pure Vars a stage loops over before any split: all of them for the pure definition, the
/// ones an update uses on its left side (at their own position) for an update.
std::vector<std::string> stage_pure_vars(const lang::Function &f, int stage);

/// The last stage of `f` that loops over its pure Var `var` (0 if no update does).
int last_stage_over(const lang::Function &f, const std::string &var);

/// `var` and the loops later splits, fuses and renames of the stage make from it.
std::vector<std::string> derived_loops(const schedule::StageSchedule &schedule,
                                       const std::string &var);

/// `s` inside `lets` (outermost first).
Stmt wrap_lets(const std::vector<std::pair<std::string, Expr>> &lets, Stmt s);

/// The stage's definition with its pure Vars and RVars renamed to the stage's loop variables.
lang::Definition rename_stage_vars(const lang::Function &f, int stage);

}  // namespace dsl::lowering
