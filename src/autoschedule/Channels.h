#pragma once
/// Channel loops (docs/autoschedule.md): a dimension of a few points, such as the colour of an
/// RGB image, that the autoscheduler computes innermost and unrolled where its points share
/// work. A camera's colour correction computes out(x, y, c) from red(x, y), green(x, y) and
/// blue(x, y): with c unrolled inside x, the three channels of a pixel read the demosaicked
/// values once, so the demosaic can be inlined instead of stored at root.

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include <vector>

#include "autoschedule/Model.h"
#include "autoschedule/ScheduleWriter.h"

namespace dsl::autoschedule {

class Channels {
  public:
    /// Finds the channel loops of the pipeline of `m`, given the Funcs inlined: a dimension d
    /// (not the first) of 2 to 4 points of a Func computed with one definition, alongside a
    /// dimension of 16 points or more, whose definition (with the inlined Funcs substituted)
    /// reads Funcs or inputs at coordinates that do not use d's Var, in at least half of its
    /// reads (counting those of the inlined Funcs, each read once). An inlined Func has
    /// channel Vars too: those that every call of it sets to a channel Var of its caller.
    Channels(const Model &m, const std::set<std::string> &inlined);
    Channels() = default;

    bool empty() const { return vars_.empty(); }
    /// The channel Vars of `func`, with their numbers of points.
    const std::map<std::string, int64_t> &of(const std::string &func) const;
    /// How many channel points share one read made by `func` at coordinates that use the Vars
    /// `used`: the product of the extents of its channel Vars that the coordinates do not use.
    double sharing(const std::string &func, const std::set<std::string> &used) const;

    /// A loop left outside by `schedule`: its name, the dimension it walks, its iterations.
    struct Outer {
        std::string name;
        int dim;
        int64_t extent;
    };
    /// Splits each channel loop of stage 0 of `f` (computed, not inlined) by its extent and
    /// moves its points innermost, unrolled: (ci, x, ...other dimensions..., co). The split
    /// shifts inwards, so the channels' code is straight-line with no tests (a larger extent at
    /// run time overlaps the last split; a smaller one than estimated is refused by the split's
    /// check). Returns the outer loops made, innermost first; none where `f` has no channel loop.
    std::vector<Outer> schedule(ScheduleWriter &w, const FuncInfo &f) const;

  private:
    std::map<std::string, std::map<std::string, int64_t>> vars_;
};

}  // namespace dsl::autoschedule
