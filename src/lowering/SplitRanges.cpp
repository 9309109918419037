#include "lowering/SplitRanges.h"

#include <set>
#include <vector>

#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "lowering/ScheduleFunctions.h"

namespace dsl::lowering {

using namespace ir;
using schedule::Split;

Expr split_value(const Split &split, const LoopRange &old, const Expr &outer, const Expr &inner) {
    if (split.tail == TailStrategy::ShiftInwards) {
        return old.min + min(outer * split.factor, old.extent - split.factor) + inner;
    }
    return old.min + outer * split.factor + inner;
}

void apply_split_to_ranges(const Split &split, std::map<std::string, LoopRange> &ranges) {
    switch (split.kind) {
        case Split::Kind::SplitVar: {
            LoopRange old = ranges.at(split.old_var);
            ranges.erase(split.old_var);
            ranges[split.outer] = {make_zero(Int(32)),
                                   (old.extent + split.factor - 1) / split.factor};
            ranges[split.inner] = {make_zero(Int(32)), split.factor};
            break;
        }
        case Split::Kind::FuseVars: {
            LoopRange inner = ranges.at(split.inner), outer = ranges.at(split.outer);
            ranges.erase(split.inner);
            ranges.erase(split.outer);
            ranges[split.old_var] = {make_zero(Int(32)), inner.extent * outer.extent};
            break;
        }
        case Split::Kind::RenameVar: {
            ranges[split.outer] = ranges.at(split.old_var);
            ranges.erase(split.old_var);
            break;
        }
    }
}

namespace {

std::map<std::string, Interval> footprints_of(const lang::Function &f, int stage,
                                              const lang::Definition &d, Regions regions) {
    bool rounds = false;
    for (const Split &s : d.schedule.splits) {
        rounds |= s.kind == Split::Kind::SplitVar &&
                  (s.tail == TailStrategy::RoundUp || s.tail == TailStrategy::ShiftInwards);
    }
    if (!rounds) return {};

    // Forwards: the nominal range of every variable when each split applies.
    std::vector<std::string> original = stage_pure_vars(f, stage);
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain())
            original.push_back(rv.var);
    }
    std::map<std::string, LoopRange> ranges;
    for (const std::string &v : original) {
        std::string loop = names::stage_var(f.name(), stage, v);
        Expr min = Variable::make(Int(32), names::min_of(loop));
        Expr max = Variable::make(Int(32), names::max_of(loop));
        ranges[v] = {min, max - min + 1};
    }
    std::vector<std::map<std::string, LoopRange>> before;
    for (const Split &s : d.schedule.splits) {
        before.push_back(ranges);
        apply_split_to_ranges(s, ranges);
    }

    // Backwards: from the loops' own ranges to the values of the variables they were split from.
    std::map<std::string, Interval> visited;
    for (const auto &[var, r] : ranges)
        visited[var] = Interval(r.min, r.min + r.extent - 1);
    for (size_t k = d.schedule.splits.size(); k-- > 0;) {
        const Split &s = d.schedule.splits[k];
        const std::map<std::string, LoopRange> &at = before[k];
        switch (s.kind) {
            case Split::Kind::SplitVar: {
                const LoopRange &old = at.at(s.old_var);
                Interval o = visited.at(s.outer), i = visited.at(s.inner);
                Expr lo = split_value(s, old, o.min, i.min);
                Expr hi = split_value(s, old, o.max, i.max);
                if (s.tail != TailStrategy::RoundUp && s.tail != TailStrategy::ShiftInwards) {
                    hi = min(hi, old.min + old.extent - 1);  // the guard stops at the end
                }
                visited.erase(s.outer);
                visited.erase(s.inner);
                visited[s.old_var] = Interval(lo, hi);
                break;
            }
            case Split::Kind::FuseVars: {
                const LoopRange &inner = at.at(s.inner), &outer = at.at(s.outer);
                Interval fused = visited.at(s.old_var);
                visited.erase(s.old_var);
                visited[s.inner] = Interval(inner.min, inner.min + inner.extent - 1);
                visited[s.outer] = Interval(outer.min + fused.min / inner.extent,
                                            outer.min + fused.max / inner.extent);
                break;
            }
            case Split::Kind::RenameVar: {
                visited[s.old_var] = visited.at(s.outer);
                visited.erase(s.outer);
                break;
            }
        }
    }
    // A Func computed inside a consumer's loop runs these loops once per iteration, over a
    // region that changes with the iteration and may be smaller than a factor. ShiftInwards
    // then starts before the region and RoundUp ends after it (rounding_overshoot); bounds taken
    // over the union of the regions (the storage outside that loop, and everything the pipeline
    // computes at root for it) must allow that much, or they miss points some iteration writes
    // and reads.
    // The region of one iteration needs none of that: its own bounds give its footprint.
    bool inside_a_loop =
        f.schedule().compute_level.kind == schedule::LoopLevel::Kind::At && regions == Regions::Any;
    std::map<std::string, Interval> result;
    for (const std::string &v : original) {
        const Interval &i = visited.at(v);
        if (inside_a_loop) {
            Overshoot over = rounding_overshoot(d.schedule, v);
            result[v] = Interval(simplify(i.min - over.before), simplify(i.max + over.after));
        } else {
            result[v] = Interval(simplify(i.min), simplify(i.max));
        }
    }
    return result;
}

/// The union of the footprints of `d`'s schedule and of its specializations'.
void add_footprints(const lang::Function &f, int stage, const lang::Definition &d, Regions regions,
                    std::map<std::string, Interval> &result) {
    for (const auto &[var, i] : footprints_of(f, stage, d, regions)) {
        auto it = result.find(var);
        if (it == result.end()) {
            result[var] = i;
        } else {
            Interval u = Interval::make_union(it->second, i);
            it->second = Interval(simplify(u.min), simplify(u.max));
        }
    }
    for (const lang::Specialization &s : d.specializations)
        add_footprints(f, stage, s.definition, regions, result);
}

}  // namespace

namespace {

/// How far the values of the loop `name`, as it stands before split `from`, reach before and
/// after its region, over an iteration whose region is as small as one point.
Overshoot overshoot_from(const std::vector<Split> &splits, const std::string &name, size_t from) {
    for (size_t k = from; k < splits.size(); k++) {
        const Split &s = splits[k];
        switch (s.kind) {
            case Split::Kind::SplitVar: {
                if (s.old_var != name) break;
                // value = min + outer * factor + inner (ShiftInwards: outer * factor capped at
                // extent - factor, which is negative when the region is under one factor).
                Overshoot o = overshoot_from(splits, s.outer, k + 1);
                Overshoot i = overshoot_from(splits, s.inner, k + 1);
                Expr f = s.factor;
                Overshoot v;
                v.before = o.before * f + i.before;
                v.after = o.after * f + i.after;
                if (s.tail == TailStrategy::ShiftInwards) {
                    v.before = v.before + (f - 1);
                    v.after = i.after;  // outer * factor never passes extent - factor
                } else if (s.tail == TailStrategy::RoundUp) {
                    v.after = v.after + (f - 1);
                } else {
                    v.after = make_zero(Int(32));  // guarded at the end of the region
                }
                return {simplify(v.before), simplify(v.after)};
            }
            case Split::Kind::FuseVars:
                // fused = outer * extent(inner) + inner; the inner loop takes fused % extent,
                // which stays in its range; the outer one reaches no further than fused.
                if (s.inner == name) return {make_zero(Int(32)), make_zero(Int(32))};
                if (s.outer == name) return overshoot_from(splits, s.old_var, k + 1);
                break;
            case Split::Kind::RenameVar:
                if (s.old_var == name) return overshoot_from(splits, s.outer, k + 1);
                break;
        }
    }
    return {make_zero(Int(32)), make_zero(Int(32))};
}

}  // namespace

Overshoot rounding_overshoot(const schedule::StageSchedule &schedule, const std::string &var) {
    return overshoot_from(schedule.splits, var, 0);
}

bool has_rounding_split(const lang::Function &f) {
    for (int k = 0; k < f.stages(); k++) {
        if (!split_footprints(f, k).empty()) return true;
    }
    return false;
}

std::map<std::string, Interval> split_footprints(const lang::Function &f, int stage,
                                                 Regions regions) {
    std::map<std::string, Interval> result;
    add_footprints(f, stage, f.stage(stage), regions, result);
    if (result.empty()) return result;
    // A variable that one schedule rounds and another does not takes [min, max] in the other.
    for (const std::string &v : stage_pure_vars(f, stage)) {
        std::string loop = names::stage_var(f.name(), stage, v);
        Interval exact(Variable::make(Int(32), names::min_of(loop)),
                       Variable::make(Int(32), names::max_of(loop)));
        auto it = result.find(v);
        if (it == result.end()) continue;
        Interval u = Interval::make_union(it->second, exact);
        it->second = Interval(simplify(u.min), simplify(u.max));
    }
    return result;
}

}  // namespace dsl::lowering
