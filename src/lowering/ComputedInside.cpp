#include "lowering/ComputedInside.h"

#include <algorithm>
#include <map>

#include "ir/Error.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/BoundsInference.h"
#include "lowering/SplitRanges.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;

std::vector<std::string> computed_inside(const Environment &env, const std::string &func, int stage,
                                         const std::set<std::string> &loops) {
    std::set<std::string> inside;
    // Consumers come after their producers in env.order, and a Func is computed inside one of
    // its consumers: walking backwards meets the Func whose loops hold another one first.
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const schedule::LoopLevel &level = env.func(*it).schedule().compute_level;
        if (level.kind != schedule::LoopLevel::Kind::At) continue;
        bool here = level.in_stage(func, stage) && loops.count(level.var);
        if (here || inside.count(level.func)) inside.insert(*it);
    }
    std::vector<std::string> ordered;
    for (const std::string &name : env.order) {
        if (inside.count(name)) ordered.push_back(name);
    }
    return ordered;
}

namespace {

class LoopRegions {
  public:
    LoopRegions(const Environment &env, const std::vector<std::string> &inside,
                const std::function<Box(const std::string &)> &direct, bool for_hints,
                bool inside_region)
        : env_(env),
          inside_(inside),
          direct_(direct),
          for_hints_(for_hints),
          storage_(inside_region ? BoundsFor::ExactStorage : BoundsFor::Storage) {}

    Box region(const std::string &callee) {
        auto known = memo_.find(callee);
        if (known != memo_.end()) return known->second;
        Box box = direct_(callee);
        for (const std::string &name : inside_) {
            if (name == callee) continue;
            const Function &g = env_.func(name);
            if (!func_calls(g, callee)) continue;
            Box needed = region(name);
            if (needed.empty()) continue;
            user_assert(for_hints_ || !has_rounding_split(g))
                << "Func \"" << callee << "\" is computed outside the loops of \"" << name
                << "\", which reads it, and a split of \"" << name
                << "\" rounds up or shifts inwards (TailStrategy::RoundUp, ShiftInwards, or Auto "
                << "where it means one of them): its iterations can pass the region computed "
                << "for it. Use TailStrategy::GuardWithIf in \"" << name << "\", or compute \""
                << callee << "\" at a loop of \"" << name << "\".";
            // The bounds of g's loops over every iteration of this loop (its storage's view),
            // substituted into what each of its stages reads: the innermost let first, so that a
            // let's value refers to the names bound before it.
            auto lets = func_bounds(g, needed, storage_);
            for (int s = 0; s < g.stages(); s++) {
                Box b = box_of_calls(g, s, callee);
                if (b.empty()) continue;
                require_bounded(b, callee, name);
                for (Interval &i : b) {
                    for (auto let = lets.rbegin(); let != lets.rend(); ++let) {
                        i.min = substitute(let->first, let->second, i.min);
                        i.max = substitute(let->first, let->second, i.max);
                    }
                    i.min = simplify(i.min);
                    i.max = simplify(i.max);
                }
                merge_boxes(box, b);
            }
        }
        memo_[callee] = box;
        return box;
    }

  private:
    const Environment &env_;
    const std::vector<std::string> &inside_;
    const std::function<Box(const std::string &)> &direct_;
    bool for_hints_;
    BoundsFor storage_;
    std::map<std::string, Box> memo_;
};

}  // namespace

Box required_over_loop(const Environment &env, const std::vector<std::string> &inside,
                       const std::string &callee,
                       const std::function<Box(const std::string &)> &direct, bool for_hints,
                       bool inside_region) {
    return LoopRegions(env, inside, direct, for_hints, inside_region).region(callee);
}

}  // namespace dsl::lowering
