#pragma once
/// The built-in autoscheduler's decisions (docs/autoschedule.md): which Funcs to inline, which to
/// compute per strip or tile of a consumer, which at root; then each group's strips, vectors,
/// register tiles and parallel loops. Made of the public directives through ScheduleWriter.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "autoschedule/Model.h"
#include "autoschedule/ScheduleWriter.h"
#include "dsl/AutoSchedule.h"

namespace dsl::autoschedule {

/// How a Func is computed.
enum class Placement { Inline, Root, Strip, RegisterTile };

struct Plan {
    std::map<std::string, Placement> placement;
    /// The group root each Strip or RegisterTile Func is computed in.
    std::map<std::string, std::string> group_of;
    /// Estimated cost of the schedule and of the all-root serial scalar one.
    double cost = 0, baseline = 0;
};

/// The heuristic's parameters: its defaults are the built-in autoscheduler; the tuner
/// (Tuner.cpp) searches over them.
struct Knobs {
    /// Rows per strip of a group's output.
    int strip_rows = 32;
    /// The largest recompute of a Func computed per strip (points computed over all strips /
    /// its points).
    double max_recompute = 1.5;
    /// Below this many points a stage runs serially.
    int64_t min_parallel_points = 1 << 14;
    /// A reduction with no pure loop is split by rfactor above this many points, into this many
    /// chunks per thread.
    int64_t min_rfactor_points = 1 << 16;
    int rfactor_chunks_per_thread = 4;
    /// A Func is inlined where inlining costs at most this fraction of computing it at root.
    double inline_margin = 0.75;
    /// A boundary condition (an input read once) is inlined where read at most this many times
    /// per point.
    double boundary_reads = 32;
    /// Vector width in registers: 0 for the default (two for types of 16 bits or fewer, one
    /// otherwise), else 1, 2 or 4.
    int vector_registers = 0;
    /// Register tiles: vectors across and rows (0: from the target's registers).
    int tile_vectors = 0, tile_rows = 0;
    /// Register tiles go down columns (true) or along rows.
    bool tile_columns = true;
    /// Copies of inputs read along x computed per column of register tiles.
    bool panels = true;
    /// On a GPU, the largest block tile: columns, and rows at most (0: 32 x 8, 256 threads).
    int gpu_tile_x = 0, gpu_tile_y = 0;
    /// Per-Func choices that replace the heuristic's (the tuner's search past the parameters
    /// above): a Func inlined, computed at root, or computed per strip of its consumers' group
    /// whatever it recomputes (where each is possible: a Func with updates or an output is
    /// never inlined, one whose consumers are in several groups never per strip).
    std::map<std::string, Placement> placement;
    /// Rows per strip of one group, by the name of its root (else strip_rows).
    std::map<std::string, int> group_strip_rows;

    /// `name=value` pairs, for logs and the schedule's header.
    std::string to_string() const;
};

/// Decides and applies the schedule; returns what it decided.
Plan schedule_pipeline(Model &model, ScheduleWriter &writer, const MachineParams &params,
                       const Knobs &knobs = Knobs());

}  // namespace dsl::autoschedule
