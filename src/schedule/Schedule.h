#pragma once
/// Schedules as plain data (DESIGN.md §3): directives only record what the user asked for; lowering
/// validates and applies it in one place.

#include <map>
#include <string>
#include <vector>

#include "dsl/Func.h"
#include "ir/IR.h"

namespace dsl::schedule {

/// The name of the loop outside every loop of a stage (Var::outermost()): lowering gives the
/// stage that loop, of one iteration, when a Func is computed or stored there.
constexpr const char *kOutermost = "__outermost";
/// The loop of one iteration that Stage::gpu_single_thread adds outside all the others: the
/// block loop of a kernel of one block of one thread.
constexpr const char *kGPUSingleThread = "__gpu_single_thread";

/// Where in the loop nest a Func is computed or stored.
struct LoopLevel {
    enum class Kind : uint8_t {
        Default,  ///< not set: inlined, unless the Func is an output or has updates (then root)
        Inlined,  ///< substituted into every use
        Root,     ///< outside every loop
        At,       ///< inside the loop `var` of stage `stage` of Func `func`
        /// Halide's default for the anonymous Funcs of inline reductions (sum, maximum, ...):
        /// inside the innermost loop of the one Func that reads it (root when several do).
        Innermost,
    };
    Kind kind = Kind::Default;
    std::string func;
    std::string var;
    /// The stage of `func` whose loop `var` holds it: set by lowering, the first of `stages`.
    int stage = -1;
    /// Every stage of `func` that uses the Func computed here: it is computed in the loop `var`
    /// of each (set by lowering).
    std::vector<int> stages;

    static LoopLevel inlined() { return {Kind::Inlined, "", "", -1, {}}; }
    static LoopLevel root() { return {Kind::Root, "", "", -1, {}}; }
    static LoopLevel innermost() { return {Kind::Innermost, "", "", -1, {}}; }
    static LoopLevel at(const std::string &func, const std::string &var, int stage = -1) {
        return {Kind::At, func, var, stage, {}};
    }
    /// Whether this level is a loop of stage `s` of `func`.
    bool in_stage(const std::string &f, int s) const {
        if (kind != Kind::At || func != f) return false;
        if (stages.empty()) return stage == s;
        for (int k : stages) {
            if (k == s) return true;
        }
        return false;
    }
    bool is_default() const { return kind == Kind::Default; }
    bool is_inlined() const { return kind == Kind::Inlined; }
    bool is_root() const { return kind == Kind::Root; }
    std::string to_string() const;
};

using dsl::TailStrategy;

/// One loop transformation of a stage, applied in order.
struct Split {
    enum class Kind : uint8_t { SplitVar, RenameVar, FuseVars };
    Kind kind = Kind::SplitVar;
    std::string old_var, outer, inner;
    Expr factor;
    TailStrategy tail = TailStrategy::Auto;
};

/// One loop of a stage.
struct Dim {
    std::string var;
    ir::ForType for_type = ir::ForType::Serial;
    ir::DeviceAPI device_api = ir::DeviceAPI::None;
    bool is_rvar = false;
};

/// A prefetch at a loop of a stage (Stage::prefetch).
struct Prefetch {
    std::string target;    ///< the Func or input prefetched, by name
    std::string at, from;  ///< loops of the stage: where it goes, and the one `offset` applies to
    Expr offset;
    dsl::PrefetchBoundStrategy strategy = dsl::PrefetchBoundStrategy::GuardWithIf;
};

/// The schedule of one stage (the pure definition or one update).
struct StageSchedule {
    std::vector<Split> splits;
    /// The loops, innermost first. Filled in when the definition is made: the pure vars (or the
    /// update's RVars then pure vars), innermost first.
    std::vector<Dim> dims;
    std::vector<Prefetch> prefetches;
    bool allow_race_conditions = false;
    /// Stage::atomic: loops over RVars may run at once, each update folded in indivisibly.
    bool atomic = false;
    /// Whether a directive has been given to the stage (Stage::unscheduled refuses it).
    bool touched = false;
    /// NPU offload (Stage::npu): rows per tile (0: the most that fit) and copies of each tile.
    int npu_tile_rows = 0, npu_copies = 2;
    /// Stage::compute_with: this stage runs in the loops of stage `stage` of `func`, from the
    /// outermost down to `var` (no `func` when not fused).
    struct FusedWith {
        std::string func, var;
        int stage = 0;
        /// By loop name; `other` for the loops not named.
        std::map<std::string, dsl::LoopAlignStrategy> align;
        dsl::LoopAlignStrategy other = dsl::LoopAlignStrategy::Auto;
    } fused_with;
};

/// A user-given bound on a pure dimension.
struct Bound {
    std::string var;
    Expr min, extent;
};

/// Func::align_bounds / align_extent: the region computed of the pure dimension `var` is
/// widened so that its min is `remainder` modulo `modulus` and its extent a multiple of
/// `modulus` (align_bounds), or only its extent a multiple (align_extent: `extent_only`).
struct BoundAlignment {
    std::string var;
    int64_t modulus = 1, remainder = 0;
    bool extent_only = false;
};

/// Func::align_storage: the storage extent of `var` is a multiple of `alignment` elements.
struct StorageAlignment {
    std::string var;
    Expr alignment;
};

/// Func::fold_storage: the storage of `var` is a circular buffer of `factor` points.
struct StorageFold {
    std::string var;
    int factor = 0;
    bool forward = true;
};

/// The per-Func part of a schedule.
struct FuncSchedule {
    LoopLevel compute_level;
    LoopLevel store_level;
    std::vector<Bound> bounds;
    std::vector<BoundAlignment> alignments;
    /// Func::set_estimate: the region the autoscheduler assumes, per pure dimension.
    std::vector<Bound> estimates;
    /// The pure Vars in the order their storage is laid out, innermost (stride 1) first; empty
    /// for the order of the arguments.
    std::vector<std::string> storage_order;
    std::vector<StorageAlignment> storage_alignment;
    std::vector<StorageFold> storage_folds;
    ir::MemoryType memory_type = ir::MemoryType::Auto;
};

}  // namespace dsl::schedule
