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

/// Decides and applies the schedule; returns what it decided.
Plan schedule_pipeline(Model &model, ScheduleWriter &writer, const MachineParams &params);

}  // namespace dsl::autoschedule
