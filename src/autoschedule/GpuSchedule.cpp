#include "autoschedule/GpuSchedule.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "ir/IR.h"
#include "ir/IROperator.h"
#include "ir/Simplify.h"

namespace dsl::autoschedule {

namespace {

int64_t pow2_at_least(int64_t n) {
    int64_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/// `e` as a Var plus a constant: the Var's name.
std::optional<std::string> var_plus_constant(const Expr &e) {
    Expr s = ir::simplify(e);
    if (const auto *v = s.as<ir::Variable>()) return v->name;
    const ir::Variable *v = nullptr;
    if (const auto *a = s.as<ir::Add>()) {
        if (as_const_int(a->b)) v = a->a.as<ir::Variable>();
        if (!v && as_const_int(a->a)) v = a->b.as<ir::Variable>();
    } else if (const auto *d = s.as<ir::Sub>()) {
        if (as_const_int(d->b)) v = d->a.as<ir::Variable>();
    }
    if (v) return v->name;
    return std::nullopt;
}

/// Follows the calls of stage 0 of `func` (reached from the root with `vars`: its Vars that
/// are the root's Vars plus constants) through inlined Funcs to `member`; false where some call
/// of `member` is at other coordinates, or past `budget` calls.
bool offsets_only(const Model &m, const std::set<std::string> &inlined, const std::string &func,
                  const std::set<std::string> &vars, const std::string &member, int &budget) {
    for (const auto &[callee, n] : m.info(func).stages[0].calls) {
        (void)n;
        if (callee != member && !inlined.count(callee)) continue;
        const std::vector<std::string> &cargs = m.info(callee).func.args();
        for (const std::vector<Expr> &args : m.call_args(func, 0, callee)) {
            if (--budget < 0) return false;
            std::set<std::string> inner;
            for (size_t k = 0; k < args.size() && k < cargs.size(); k++) {
                std::optional<std::string> v = var_plus_constant(args[k]);
                bool known = v && vars.count(*v);
                if (callee == member && !known) return false;
                if (known) inner.insert(cargs[k]);
            }
            if (callee != member && !offsets_only(m, inlined, callee, inner, member, budget))
                return false;
        }
    }
    return true;
}

/// The region `[0, extent)` of each of `loops` (a name and an extent each).
Box region_of(const std::vector<std::pair<std::string, int64_t>> &loops) {
    Box region;
    for (const auto &[v, e] : loops) {
        (void)v;
        region.push_back({0, e - 1});
    }
    return region;
}

class GpuScheduler {
  public:
    GpuScheduler(const Model &m, ScheduleWriter &w, const Plan &plan, const Channels &channels,
                 const std::set<std::string> &inlined, const GpuTile &most)
        : m_(m), w_(w), plan_(plan), channels_(channels), inlined_(inlined), most_(most) {}

    void run() {
        for (auto it = m_.order().rbegin(); it != m_.order().rend(); ++it) {
            if (plan_.placement.at(*it) == Placement::Root) group(*it);
        }
    }

  private:
    /// Tiles the loops `pure` (innermost first, each with its extent) of stage `stage` of `f`
    /// into blocks and threads, with `inner` (channel points, RVars) inside the threads and
    /// `outer` (channel splits' outer loops) fused into the blocks. Returns the innermost block
    /// loop.
    /// The tiles' last ones are guarded, or, where `shift` (a group's root that has Funcs
    /// computed per block), shift inwards: every tile then has the same points, so that the
    /// Funcs computed per block have constant sizes, as shared memory must.
    std::string tile(const std::string &f, int stage,
                     const std::vector<std::pair<std::string, int64_t>> &pure,
                     const std::vector<std::string> &inner, const std::vector<std::string> &outer,
                     bool shift) {
        const GpuTile t = gpu_tile_for(region_of(pure), shift, most_);
        const TailStrategy guard = shift ? TailStrategy::ShiftInwards : TailStrategy::GuardWithIf;
        std::vector<std::string> order = inner, blocks, threads;
        const std::string &x = pure[0].first;
        w_.split(f, stage, x, x + "o", x + "i", t.x, guard);
        threads.push_back(x + "i");
        blocks.push_back(x + "o");
        if (pure.size() > 1) {
            const std::string &y = pure[1].first;
            w_.split(f, stage, y, y + "o", y + "i", t.y, guard);
            threads.push_back(y + "i");
            blocks.push_back(y + "o");
        }
        // The other loops (images, planes, channel splits) fused into one block dimension.
        std::vector<std::string> rest;
        for (size_t i = 2; i < pure.size(); i++)
            rest.push_back(pure[i].first);
        rest.insert(rest.end(), outer.begin(), outer.end());
        order.insert(order.end(), threads.begin(), threads.end());
        order.insert(order.end(), blocks.begin(), blocks.end());
        order.insert(order.end(), rest.begin(), rest.end());
        w_.reorder(f, stage, order);
        if (!rest.empty()) {
            std::string z = rest[0];
            for (size_t i = 1; i < rest.size(); i++) {
                std::string fused = z + "_" + rest[i];
                w_.fuse(f, stage, z, rest[i], fused);
                z = fused;
            }
            blocks.push_back(z);
        }
        w_.gpu_threads(f, stage, threads);
        w_.gpu_blocks(f, stage, blocks);
        return blocks[0];
    }

    void group(const std::string &name) {
        const FuncInfo &f = m_.info(name);
        const std::vector<std::string> &args = f.func.args();
        if (!f.is_output) w_.compute_root(name);
        if (args.empty()) return;  // one value: on the host
        std::vector<std::string> inner, outer;
        for (const Channels::Outer &o : channels_.schedule(w_, f)) {
            inner.push_back(args[o.dim] + "i");
            outer.push_back(o.name);
        }
        std::vector<std::pair<std::string, int64_t>> pure;
        for (size_t d = 0; d < args.size(); d++) {
            if (!channels_.of(name).count(args[d])) pure.push_back({args[d], f.region[d].extent()});
        }
        std::set<std::string> members;
        for (const auto &[m, root] : plan_.group_of) {
            if (root == name && plan_.placement.at(m) == Placement::Strip) members.insert(m);
        }
        if (!members.empty() && !pure.empty()) {
            // A block of one point (an output estimated at one point) shares nothing among its
            // threads: its producers are kernels of their own instead of per-block copies,
            // whose regions, clamped to the whole, would have no constant size.
            const GpuTile t = gpu_tile_for(region_of(pure), true, most_);
            if (t.x * (pure.size() > 1 ? t.y : 1) <= 1) {
                for (const std::string &m : members)
                    group(m);
                members.clear();
            }
        }
        std::string block = pure.empty() ? "" : tile(name, 0, pure, inner, outer, !members.empty());
        if (!members.empty() && !block.empty()) {
            std::map<std::string, Box> need =
                m_.required(name, gpu_block_box(f, channels_, most_), members, inlined_);
            for (const std::string &m : members)
                member(m, name, block, need[m]);
        }
        for (size_t i = 1; i < f.stages.size(); i++)
            update(f, static_cast<int>(i));
    }

    /// A Func computed per block of `root` into shared memory by the block's threads: its
    /// first two dimensions as threads, in tiles where the block needs more points than a block
    /// has threads.
    void member(const std::string &name, const std::string &root, const std::string &block,
                const Box &box) {
        const FuncInfo &mf = m_.info(name);
        const std::vector<std::string> &args = mf.func.args();
        w_.compute_at(name, root, block);
        channels_.schedule(w_, mf);
        if (args.empty()) return;
        const int64_t e0 = box.empty() ? 1 : box[0].extent();
        const int64_t e1 = box.size() > 1 ? box[1].extent() : 1;
        std::vector<std::string> threads{args[0]};
        if (args.size() > 1 && !channels_.of(name).count(args[1])) threads.push_back(args[1]);
        if (e0 * (threads.size() > 1 ? e1 : 1) <= kGpuMaxThreads) {
            w_.gpu_threads(name, 0, threads);
            return;
        }
        // Tiles of the block's shape, one after another.
        const GpuTile t = gpu_tile_for(box, false, most_);
        const TailStrategy guard = TailStrategy::GuardWithIf;
        std::vector<std::string> order;
        w_.split(name, 0, args[0], args[0] + "o", args[0] + "i", t.x, guard);
        std::vector<std::string> tiled{args[0] + "i"}, serial{args[0] + "o"};
        if (threads.size() > 1) {
            w_.split(name, 0, args[1], args[1] + "o", args[1] + "i", t.y, guard);
            tiled.push_back(args[1] + "i");
            serial.push_back(args[1] + "o");
        }
        for (const auto &[n, e] : channels_.of(name)) {
            (void)e;
            order.push_back(n + "i");
        }
        order.insert(order.end(), tiled.begin(), tiled.end());
        order.insert(order.end(), serial.begin(), serial.end());
        w_.reorder(name, 0, order);
        w_.gpu_threads(name, 0, tiled);
    }

    /// An update: tiled over its pure loops with its RVars inside each thread; with no pure
    /// loop (a histogram, a scan) it stays on the host.
    void update(const FuncInfo &f, int stage) {
        const StageInfo &s = f.stages[stage];
        std::vector<std::pair<std::string, int64_t>> pure;
        for (size_t d = 0; d < f.func.args().size(); d++) {
            const std::string &a = f.func.args()[d];
            if (std::find(s.pure_loops.begin(), s.pure_loops.end(), a) != s.pure_loops.end())
                pure.push_back({a, f.region[d].extent()});
        }
        if (pure.empty()) return;
        std::vector<std::string> rvars;
        for (const auto &[rv, span] : s.rvars) {
            (void)span;
            w_.mark_rvar(rv);
            rvars.push_back(rv);
        }
        tile(f.name, stage, pure, rvars, {}, false);
    }

    const Model &m_;
    ScheduleWriter &w_;
    const Plan &plan_;
    const Channels &channels_;
    const std::set<std::string> &inlined_;
    const GpuTile most_;
};

}  // namespace

bool read_at_offsets(const Model &m, const std::set<std::string> &inlined, const std::string &root,
                     const std::string &member) {
    const std::vector<std::string> &args = m.info(root).func.args();
    int budget = 1 << 12;
    return offsets_only(m, inlined, root, {args.begin(), args.end()}, member, budget);
}

GpuTile gpu_tile_limit(const Knobs &k) {
    GpuTile most;
    if (k.gpu_tile_x > 0) most.x = k.gpu_tile_x;
    if (k.gpu_tile_y > 0) most.y = k.gpu_tile_y;
    // (Within what one block may have.)
    most.y =
        static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(most.y, kGpuMaxThreads / most.x)));
    return most;
}

GpuTile gpu_tile_for(const Box &region, bool within, const GpuTile &most) {
    // Powers of two at least the extent, or, `within`, at most it.
    auto fit = [&](int64_t extent, int64_t largest) {
        int64_t p = pow2_at_least(extent);
        if (within && p > extent) p /= 2;
        return static_cast<int>(std::max<int64_t>(1, std::min(largest, p)));
    };
    const int64_t threads = static_cast<int64_t>(most.x) * most.y;
    GpuTile t;
    const int64_t e0 = region.empty() ? 1 : region[0].extent();
    if (region.size() < 2) {
        t.x = fit(e0, threads);
        t.y = 1;
        return t;
    }
    t.x = fit(e0, most.x);
    t.y = fit(region[1].extent(), threads / t.x);
    return t;
}

Box gpu_block_box(const FuncInfo &f, const Channels &channels, const GpuTile &most) {
    Box b = f.region;
    Box pure;
    for (size_t d = 0; d < b.size(); d++) {
        if (!channels.of(f.name).count(f.func.args()[d])) pure.push_back(b[d]);
    }
    const GpuTile t = gpu_tile_for(pure, true, most);
    int k = 0;  // the index among the dimensions that are not channel loops
    for (size_t d = 0; d < b.size(); d++) {
        if (channels.of(f.name).count(f.func.args()[d])) continue;
        const int64_t size = k == 0 ? t.x : k == 1 ? t.y : 1;
        b[d].max = std::min(b[d].max, b[d].min + size - 1);
        k++;
    }
    return b;
}

int64_t gpu_blocks_of(const FuncInfo &f, const Channels &channels, const GpuTile &most) {
    const Box tile = gpu_block_box(f, channels, most);
    int64_t n = 1;
    for (size_t d = 0; d < f.region.size(); d++)
        n *= (f.region[d].extent() + tile[d].extent() - 1) / tile[d].extent();
    return n;
}

void schedule_gpu_groups(const Model &m, ScheduleWriter &w, const Plan &plan,
                         const Channels &channels, const std::set<std::string> &inlined,
                         const GpuTile &most) {
    GpuScheduler(m, w, plan, channels, inlined, most).run();
}

}  // namespace dsl::autoschedule
