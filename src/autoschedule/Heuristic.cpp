#include "autoschedule/Heuristic.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "dsl/Error.h"
#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IR.h"

namespace dsl::autoschedule {

namespace {

class Scheduler {
  public:
    Scheduler(Model &m, ScheduleWriter &w, const MachineParams &mp, const Knobs &k)
        : m_(m), w_(w), mp_(mp), k_(k) {
        parallelism_ = std::max(1, mp.parallelism);
        // A strip's intermediates should stay in the share of the cache one core has (the
        // last level divided among the threads), and in at most 1 MiB (a core's L2).
        uint64_t share = mp.last_level_cache_size / static_cast<uint64_t>(parallelism_);
        budget_ = static_cast<int64_t>(std::min<uint64_t>(share ? share : (1u << 20), 1u << 20));
    }

    Plan run() {
        for (const std::string &name : m_.order())
            w_.add_func(Func(m_.info(name).func.shared()));
        decide_inlining();
        decide_groups();
        for (auto it = m_.order().rbegin(); it != m_.order().rend(); ++it) {
            if (plan_.placement[*it] == Placement::Root) schedule_group(*it);
        }
        plan_.cost = total_cost(false);
        plan_.baseline = total_cost(true);
        return plan_;
    }

  private:
    int lanes(int bits) const {
        return std::max(1, m_.target().natural_vector_size(Int(std::max(8, bits))));
    }
    /// The vector width of a stage: the natural width of the widest type it computes in; twice
    /// that when every type is 16 bits or narrower (two registers per vector).
    int stage_lanes(const StageInfo &s) const {
        int l = lanes(s.widest_bits);
        if (k_.vector_registers > 0) return k_.vector_registers * l;
        return s.widest_bits <= 16 ? 2 * l : l;
    }

    bool is_inlined(const std::string &f) const {
        auto it = plan_.placement.find(f);
        return it != plan_.placement.end() && it->second == Placement::Inline;
    }

    void decide_inlining() {
        for (const std::string &name : m_.order()) {
            // Producers come first: the costs of those already inlined are known.
            fold_inlined_costs(m_.info(name));
            const FuncInfo &f = m_.info(name);
            plan_.placement[name] = Placement::Root;
            if (f.is_output || f.stages.size() > 1 || f.consumers.empty()) continue;
            const StageInfo &s = f.stages[0];
            bool reads_funcs = !f.producers.empty();
            bool inline_it = false;
            if (f.data_dependent) {
                // Read at computed coordinates (a table, or one of several planes picked by a
                // value): inlined when computing it per read costs less than computing its
                // whole region.
                inline_it = (!reads_funcs && s.ops <= 2) || cheaper_inlined(f);
            } else if (f.pointwise && (f.consumers.size() == 1 || s.ops + s.loads <= 8)) {
                inline_it = true;  // nothing computed twice
            } else if (s.ops <= 2) {
                inline_it = true;  // cheaper to recompute than to store and load
            } else if (!reads_funcs && s.loads <= 1 && s.ops <= 16 &&
                       calls_of(f) <= k_.boundary_reads * static_cast<double>(points(f.region))) {
                // An input behind a boundary condition, read a few times per point (a stencil,
                // not every step of a reduction).
                inline_it = true;
            }
            if (!inline_it && !f.data_dependent) inline_it = cheaper_inlined(f);
            if (inline_it) plan_.placement[name] = Placement::Inline;
        }
    }

    /// Whether `f` computed in every call costs less than computed once over its region,
    /// stored, and loaded by each call (by a margin: the root version's memory is counted only
    /// as one store and one load per point).
    bool cheaper_inlined(const FuncInfo &f) const {
        const StageInfo &s = f.stages[0];
        const double per_point = s.ops + s.index_ops / 2 + s.loads;
        const double calls = calls_of(f);
        double inlined = calls * per_point;
        double root = static_cast<double>(points(f.region)) * (per_point + 1) + calls;
        return inlined <= k_.inline_margin * root;
    }

    /// How many times the consumers of `f` call it, over their regions at the estimates.
    double calls_of(const FuncInfo &f) const {
        double calls = 0;
        for (const std::string &c : f.consumers) {
            const FuncInfo &cf = m_.info(c);
            for (const StageInfo &cs : cf.stages) {
                auto it = cs.calls.find(f.name);
                if (it == cs.calls.end()) continue;
                double pts = static_cast<double>(points(cf.region));
                for (const auto &[rv, span] : cs.rvars) {
                    (void)rv;
                    pts *= static_cast<double>(span.extent());
                }
                calls += pts * it->second;
            }
        }
        return calls;
    }

    /// Adds the arithmetic of inlined Funcs to the stages of `f` that call them.
    void fold_inlined_costs(FuncInfo &f) {
        for (StageInfo &s : f.stages) {
            for (const auto &[callee, n] : s.calls) {
                if (!is_inlined(callee)) continue;
                const StageInfo &c = m_.info(callee).stages[0];
                s.ops += n * c.ops;
                s.index_ops += n * c.index_ops;
                s.loads = std::max(0.0, s.loads + n * (c.loads - 1));
                s.widest_bits = std::max(s.widest_bits, c.widest_bits);
            }
        }
    }

    /// The Funcs that read `name` (or that `name` reads, for `producers`) once inlined Funcs
    /// are substituted.
    std::set<std::string> effective_neighbours(const std::string &name, bool producers) const {
        const FuncInfo &f = m_.info(name);
        std::set<std::string> out;
        for (const std::string &n : producers ? f.producers : f.consumers) {
            if (!is_inlined(n)) {
                out.insert(n);
                continue;
            }
            for (const std::string &nn : effective_neighbours(n, producers))
                out.insert(nn);
        }
        return out;
    }
    std::set<std::string> effective_consumers(const std::string &name) const {
        return effective_neighbours(name, false);
    }
    std::set<std::string> effective_producers(const std::string &name) const {
        return effective_neighbours(name, true);
    }

    /// Whether stage `s` reads `f`, directly or through inlined Funcs.
    bool reads_through_inlined(const StageInfo &s, const std::string &f) const {
        for (const auto &[callee, n] : s.calls) {
            (void)n;
            if (callee == f) return true;
            if (is_inlined(callee) && reads_through_inlined(m_.info(callee).stages[0], f))
                return true;
        }
        return false;
    }

    std::string root_of(const std::string &f) const {
        auto it = plan_.group_of.find(f);
        return it == plan_.group_of.end() ? f : it->second;
    }

    /// Whether `f` is a reduction that can be computed per register tile of its only consumer:
    /// a pure definition then updates over RVars that keep every pure Var in place.
    bool register_tileable(const FuncInfo &f) const {
        if (f.stages.size() < 2 || f.func.dimensions() < 2) return false;
        for (size_t i = 1; i < f.stages.size(); i++) {
            const StageInfo &s = f.stages[i];
            if (s.rvars.empty() || s.pure_loops.size() != f.func.args().size()) return false;
        }
        return f.region[0].extent() >= lanes(f.stages[1].widest_bits);
    }

    /// The stage of `c` that reads the reduction `f` at the points of a register tile: the only
    /// stage of `c` that calls it, whose every call reads f(x, y, ...) at c's own first two Vars
    /// and, further on, at c's own Var of the same place or at coordinates of RVars alone (a
    /// chunk of a sum, f(x, y, ko)); -1 if there is none.
    int tile_stage(const FuncInfo &f, const FuncInfo &c) const {
        int stage = -1;
        for (const StageInfo &s : c.stages) {
            if (!s.calls.count(f.name)) continue;
            if (stage >= 0) return -1;
            stage = s.index;
        }
        if (stage < 0 || c.func.dimensions() < 2) return -1;
        const StageInfo &s = c.stages[stage];
        const std::vector<std::string> &cargs = c.func.args();
        for (int d = 0; d < 2; d++) {
            if (std::find(s.pure_loops.begin(), s.pure_loops.end(), cargs[d]) == s.pure_loops.end())
                return -1;
        }
        for (const std::vector<Expr> &args : m_.call_args(c.name, stage, f.name)) {
            for (size_t d = 0; d < args.size(); d++) {
                const auto *v = args[d].as<ir::Variable>();
                bool own = v && d < cargs.size() && v->name == cargs[d];
                if (d < 2 && !own) return -1;
                if (own) continue;
                for (const std::string &name : ir::free_names(args[d], false)) {
                    if (std::find(cargs.begin(), cargs.end(), name) != cargs.end()) return -1;
                }
            }
        }
        return stage;
    }

    /// The box of one strip of `root`: dimensions inside the strip loop whole, the strip
    /// dimension `rows` long, dimensions outside it one point.
    Box strip_box(const FuncInfo &root, int strip_dim, int64_t rows) const {
        Box b = root.region;
        if (strip_dim < 0) return b;
        b[strip_dim].max = std::min(b[strip_dim].max, b[strip_dim].min + rows - 1);
        for (size_t d = strip_dim + 1; d < b.size(); d++)
            b[d].max = b[d].min;
        return b;
    }
    int64_t strips(const FuncInfo &root, int strip_dim, int64_t rows) const {
        if (strip_dim < 0) return 1;
        int64_t n = (root.region[strip_dim].extent() + rows - 1) / rows;
        for (size_t d = strip_dim + 1; d < root.region.size(); d++)
            n *= root.region[d].extent();
        return n;
    }
    /// The dimension a group's strips cut: the outermost one of at least 16 points after
    /// dimension 0, else dimension 1; -1 for a Func of one dimension.
    static int strip_dim_of(const FuncInfo &f) {
        int n = static_cast<int>(f.region.size());
        if (n < 2) return -1;
        for (int d = n - 1; d >= 1; d--) {
            if (f.region[d].extent() >= 16) return d;
        }
        return 1;
    }

    std::set<std::string> inlined_set() const {
        std::set<std::string> s;
        for (const auto &[name, p] : plan_.placement) {
            if (p == Placement::Inline) s.insert(name);
        }
        return s;
    }

    void decide_groups() {
        const std::set<std::string> through = inlined_set();
        for (auto it = m_.order().rbegin(); it != m_.order().rend(); ++it) {
            const std::string &name = *it;
            FuncInfo &f = m_.info(name);
            if (is_inlined(name) || f.is_output) continue;
            std::set<std::string> cons = effective_consumers(name);
            if (cons.size() == 1 && f.consumers.size() == 1 && register_tileable(f)) {
                const std::string &c = *cons.begin();
                const FuncInfo &cf = m_.info(c);
                int stage = tile_stage(f, cf);
                // Funcs computed per strip are computed at loops of the pure definition: a group
                // has them or tiles of an update, not both.
                bool fits = stage == 0 || (stage > 0 && members_of(c).empty());
                if (plan_.placement[c] == Placement::Root && fits && !tiled_[c].count(stage)) {
                    plan_.placement[name] = Placement::RegisterTile;
                    plan_.group_of[name] = c;
                    tiled_[c][stage] = name;
                    continue;
                }
            }
            if (f.stages.size() > 1 || f.data_dependent) continue;  // at root
            std::string group;
            bool same = true;
            for (const std::string &c : cons) {
                std::string r = root_of(c);
                if (!group.empty() && r != group) same = false;
                group = r;
            }
            if (!same || group.empty()) continue;
            bool tiles_an_update = false;
            for (const auto &[stage, red] : tiled_[group]) {
                (void)red;
                tiles_an_update |= stage > 0;
            }
            if (tiles_an_update) continue;
            // It is computed at a loop of the group's pure definition: an update of the group's
            // root must not read it.
            bool read_by_update = false;
            const FuncInfo &root_info = m_.info(group);
            for (size_t k = 1; k < root_info.stages.size(); k++)
                read_by_update |= reads_through_inlined(root_info.stages[k], name);
            if (read_by_update) continue;
            const FuncInfo &root = m_.info(group);
            // Per strip (per register tile row of strips for a tiled group), what would it cost?
            int sd = strip_dim_of(root);
            int64_t rows = sd < 0 ? root.region[0].extent()
                                  : std::min<int64_t>(k_.strip_rows, root.region[sd].extent());
            std::set<std::string> members = members_of(group);
            members.insert(name);
            std::map<std::string, Box> need =
                m_.required(group, strip_box(root, sd, rows), members, through);
            auto mine = need.find(name);
            if (mine == need.end()) continue;
            double recompute = static_cast<double>(points(mine->second)) *
                               static_cast<double>(strips(root, sd, rows)) /
                               static_cast<double>(std::max<int64_t>(1, points(f.region)));
            int64_t bytes = 0;
            for (const auto &[n, b] : need)
                bytes += points(b) * m_.info(n).bytes_per_point;
            if (recompute > k_.max_recompute || bytes > budget_) continue;
            plan_.placement[name] = Placement::Strip;
            plan_.group_of[name] = group;
        }
    }

    std::set<std::string> members_of(const std::string &root) const {
        std::set<std::string> s;
        for (const auto &[name, r] : plan_.group_of) {
            if (r == root && plan_.placement.at(name) == Placement::Strip) s.insert(name);
        }
        return s;
    }

    /// Fuses the loops from `first` outwards (the stage's pure loops in order) into one; returns
    /// its name.
    std::string fuse_outwards(const std::string &f, int stage, const std::string &first,
                              const std::vector<std::string> &outer) {
        std::string loop = first;
        for (const std::string &o : outer) {
            std::string fused = loop + "_" + o;
            w_.fuse(f, stage, loop, o, fused);
            loop = fused;
        }
        return loop;
    }

    void schedule_group(const std::string &name) {
        FuncInfo &f = m_.info(name);
        const std::vector<std::string> &args = f.func.args();
        const StageInfo &s0 = f.stages[0];
        if (!f.is_output) w_.compute_root(name);
        std::set<std::string> members = members_of(name);
        int64_t total = points(f.region);
        const int vec = stage_lanes(s0);
        std::string strip_loop;

        const std::map<int, std::string> &tiles = tiled_[name];
        auto tile0 = tiles.find(0);
        if (tile0 != tiles.end()) {
            strip_loop = schedule_register_tiles(f, tile0->second, 0);
        } else if (!args.empty()) {
            int sd = strip_dim_of(f);
            if (args.size() == 1) {
                // One dimension: vectors, then chunks of them in parallel.
                if (f.region[0].extent() >= vec) w_.vectorize(name, 0, args[0], vec);
                if (total >= k_.min_parallel_points) {
                    w_.parallel(name, 0, args[0]);
                }
                strip_loop = args[0];
            } else {
                if (f.region[0].extent() >= vec) w_.vectorize(name, 0, args[0], vec);
                std::vector<std::string> outer(args.begin() + sd + 1, args.end());
                std::string loop = args[sd];
                if (!members.empty() && f.region[sd].extent() > k_.strip_rows) {
                    std::string so = args[sd] + "o", si = args[sd] + "i";
                    w_.split(name, 0, args[sd], so, si, k_.strip_rows);
                    loop = so;
                }
                loop = fuse_outwards(name, 0, loop, outer);
                if (total >= k_.min_parallel_points) w_.parallel(name, 0, loop);
                strip_loop = loop;
            }
        }
        for (const std::string &mname : members) {
            const FuncInfo &mf = m_.info(mname);
            w_.compute_at(mname, name, strip_loop);
            int mv = stage_lanes(mf.stages[0]);
            // The last vector of a row shifts inwards (overlaps the one before) where the Func
            // reads only inputs; over a Func computed elsewhere it would read past the region
            // computed for it, so the tail is guarded there.
            TailStrategy tail = effective_producers(mname).empty() ? TailStrategy::ShiftInwards
                                                                   : TailStrategy::Auto;
            if (!mf.func.args().empty() && mf.region[0].extent() >= mv)
                w_.vectorize(mname, 0, mf.func.args()[0], mv, tail);
        }
        for (size_t i = 1; i < f.stages.size(); i++) {
            auto t = tiles.find(static_cast<int>(i));
            if (t != tiles.end()) {
                schedule_register_tiles(f, t->second, static_cast<int>(i));
            } else {
                schedule_update(f, static_cast<int>(i));
            }
        }
    }

    /// Tiles of stage `stage` of `root` summed in registers by the reduction `red` computed per
    /// tile; returns the loop outside the tiles that runs in parallel.
    std::string schedule_register_tiles(FuncInfo &root, const std::string &red, int stage) {
        const FuncInfo &r = m_.info(red);
        const std::vector<std::string> &args = root.func.args();
        const std::string &x = args[0], &y = args[1];
        const int vec = lanes(r.stages[1].widest_bits);
        // Accumulators: three quarters of the vector registers (32 with AVX-512, 16 otherwise).
        const int registers = m_.target().has_feature(Target::AVX512) ? 32 : 16;
        // A contraction (each operand varies along one of the tile's dimensions, as A(k, y) and
        // B(x, k)) loads nx + ny vectors per step for nx * ny multiply-adds: a wide tile. Where
        // an operand varies along both (a depthwise convolution's input), every accumulator
        // needs its own load: one vector wide, a column of rows, fewer registers.
        const std::string &rx0 = r.func.args()[0], &ry0 = r.func.args()[1];
        bool contraction = true;
        for (size_t i = 1; i < r.stages.size(); i++) {
            for (const auto &[callee, vars] : r.stages[i].operand_vars) {
                // (The accumulator itself is read at the tile's points.)
                if (callee != red && vars.count(rx0) && vars.count(ry0)) contraction = false;
            }
        }
        // Either way 4 x 6 (AVX-512) or 2 x 6 accumulators for a contraction; where every
        // accumulator loads its own operand, half the registers (4 x 4 with AVX-512), the other
        // half for those loads. (Measured on the depthwise layer of conv_layer: 4 x 4 ran
        // 0.67 ms, 1 x 8 0.82 ms.)
        int nx = k_.tile_vectors > 0 ? k_.tile_vectors : registers >= 32 ? 4 : 2;
        nx = std::max<int64_t>(1, std::min<int64_t>(nx, root.region[0].extent() / vec));
        int budget = contraction ? registers * 3 / 4 / nx : registers / 2 / nx;
        if (k_.tile_rows > 0) budget = k_.tile_rows;
        int ny = std::max(1, std::min<int>(budget, static_cast<int>(root.region[1].extent())));
        const int tx = vec * nx, ty = ny;
        std::string xo = x + "o", xi = x + "i", yo = y + "o", yi = y + "i";
        const StageInfo &rs = root.stages[stage];
        // An update's tail is guarded (the points past the edge must not be added twice); a pure
        // definition's last tile shifts inwards, so that every tile has the constant size that
        // lets the reduction's loops unroll.
        TailStrategy tail = stage == 0 ? TailStrategy::ShiftInwards : TailStrategy::GuardWithIf;
        w_.split(root.name, stage, x, xo, xi, tx, tail);
        w_.split(root.name, stage, y, yo, yi, ty, tail);
        // Tiles go down a column (yo inside xo): the column of the operand that varies along x
        // (B's columns, a block of a convolution's weights) stays in cache for the whole column.
        // (Where every accumulator loads its own operand no operand is shared down a column:
        // tiles go along the rows.)
        const bool columns = k_.tile_columns && contraction;
        const std::string &inner_tile = columns ? yo : xo;
        const std::string &outer_tile = columns ? xo : yo;
        std::vector<std::string> order = {xi, yi, inner_tile, outer_tile}, outer;
        for (size_t d = 2; d < args.size(); d++) {
            if (stage == 0 || std::find(rs.pure_loops.begin(), rs.pure_loops.end(), args[d]) !=
                                  rs.pure_loops.end()) {
                order.push_back(args[d]);
                outer.push_back(args[d]);
            }
        }
        // An update's RVars (chunks of a sum) outermost: a chunk's operands stay in cache over
        // all the tiles.
        for (const auto &[rv, span] : rs.rvars) {
            (void)span;
            w_.mark_rvar(rv);
            order.push_back(rv);
        }
        w_.reorder(root.name, stage, order);
        w_.vectorize(root.name, stage, xi, vec);
        w_.unroll(root.name, stage, xi);
        w_.unroll(root.name, stage, yi);
        std::string par = fuse_outwards(root.name, stage, outer_tile, outer);
        if (points(root.region) >= k_.min_parallel_points) w_.parallel(root.name, stage, par);

        const std::string &rx = r.func.args()[0], &ry = r.func.args()[1];
        // An input the reduction reads along x only (B of a product, through a Func that copies
        // it) is copied per column of tiles into a dense panel, which every tile of the column
        // then reads in order instead of one strided row after another.
        if (k_.panels && columns && root.region[1].extent() > 2 * ty) {
            for (size_t i = 1; i < r.stages.size(); i++) {
                for (const auto &[callee, vars] : r.stages[i].operand_vars) {
                    if (!m_.has(callee) || !is_inlined(callee) || panels_.count(callee)) continue;
                    const FuncInfo &c = m_.info(callee);
                    const StageInfo &cs = c.stages[0];
                    bool copy = c.producers.empty() && cs.loads == 1 && cs.ops == 0 &&
                                c.consumers.size() == 1 && !c.func.args().empty();
                    if (!copy || !vars.count(rx) || vars.count(ry)) continue;
                    panels_.insert(callee);
                    w_.compute_at(callee, root.name, xo);
                    if (c.region[0].extent() >= vec) w_.vectorize(callee, 0, c.func.args()[0], vec);
                }
            }
        }
        w_.compute_at(red, root.name, inner_tile);
        w_.bound_extent(red, rx, tx);
        w_.bound_extent(red, ry, ty);
        // Dimensions read at RVars' coordinates (the chunk of a sum): one point per tile.
        if (stage > 0) {
            for (size_t d = 2; d < r.func.args().size(); d++) {
                bool own = d < args.size() && std::find(rs.pure_loops.begin(), rs.pure_loops.end(),
                                                        args[d]) != rs.pure_loops.end();
                if (!own) w_.bound_extent(red, r.func.args()[d], 1);
            }
        }
        w_.vectorize(red, 0, rx, vec);
        w_.unroll(red, 0, rx);
        w_.unroll(red, 0, ry);
        for (size_t i = 1; i < r.stages.size(); i++) {
            int s = static_cast<int>(i);
            std::vector<std::string> loops = {rx, ry};
            for (const auto &[rv, span] : r.stages[i].rvars) {
                (void)span;
                w_.mark_rvar(rv);
                loops.push_back(rv);
            }
            w_.reorder(red, s, loops);
            w_.vectorize(red, s, rx, vec);
            w_.unroll(red, s, rx);
            w_.unroll(red, s, ry);
        }
        return par;
    }

    void schedule_update(FuncInfo &f, int stage) {
        const StageInfo &s = f.stages[stage];
        const std::string &name = f.name;
        const int vec = stage_lanes(s);
        for (const auto &[rv, span] : s.rvars) {
            (void)span;
            w_.mark_rvar(rv);
        }
        const std::vector<std::string> &pure = s.pure_loops;
        int64_t pure_points = 1;
        for (const std::string &p : pure) {
            for (size_t d = 0; d < f.func.args().size(); d++) {
                if (f.func.args()[d] == p) pure_points *= f.region[d].extent();
            }
        }
        // Pure loops of a few points (channels) go inside the RVars: the work the RVars' points
        // share (loads, coordinates) is done once for all of them.
        std::vector<std::string> small;
        for (size_t d = 0; d < f.func.args().size(); d++) {
            const std::string &a = f.func.args()[d];
            if (std::find(pure.begin(), pure.end(), a) != pure.end() && f.region[d].extent() <= 4)
                small.push_back(a);
        }
        if (!s.rvars.empty() && !small.empty() && small.size() == pure.size()) {
            std::vector<std::string> order = small;
            for (const auto &[rv, span] : s.rvars) {
                (void)span;
                order.push_back(rv);
            }
            w_.reorder(name, stage, order);
            return;
        }
        if (!pure.empty()) {
            const std::string &x = f.func.args()[0];
            bool has_x = std::find(pure.begin(), pure.end(), x) != pure.end();
            if (has_x && f.region[0].extent() >= vec) w_.vectorize(name, stage, x, vec);
            // The outermost pure loop in parallel (not the vectorized one), when the stage has
            // the work for it.
            const std::string &outer = pure.back();
            int64_t work = pure_points;
            for (const auto &[rv, span] : s.rvars) {
                (void)rv;
                work *= span.extent();
            }
            if (!(has_x && outer == x) && work >= k_.min_parallel_points)
                w_.parallel(name, stage, outer);
            return;
        }
        // No pure loop: partial results over chunks of the outermost RVar, in parallel.
        int64_t rpoints = 1;
        for (const auto &[rv, span] : s.rvars) {
            (void)rv;
            rpoints *= span.extent();
        }
        if (s.rvars.empty() || rpoints < k_.min_rfactor_points || parallelism_ < 2) return;
        const auto &[outer_rv, span] = s.rvars.back();
        int64_t chunk =
            std::max<int64_t>(1, span.extent() / (k_.rfactor_chunks_per_thread * parallelism_));
        if (span.extent() / chunk < 2) return;
        std::string ro = outer_rv + "o", ri = outer_rv + "i";
        try {
            w_.split(name, stage, outer_rv, ro, ri, static_cast<int>(chunk));
            Func partial = w_.rfactor(name, stage, ro, "u");
            w_.compute_root(partial.name());
            w_.parallel(partial.name(), 1, "u");
            int64_t inits = points(f.region);
            if (inits >= vec && !partial.args().empty())
                w_.vectorize(partial.name(), 0, partial.args()[0].name(), vec);
        } catch (const CompileError &) {
            // Not associative (or not a pattern rfactor knows): the update stays serial.
        }
    }

    double total_cost(bool baseline) const {
        double cost = 0;
        const double balance = mp_.balance > 0 ? mp_.balance : 40;
        for (const std::string &name : m_.order()) {
            const FuncInfo &f = m_.info(name);
            Placement p = plan_.placement.at(name);
            if (!baseline && p == Placement::Inline) continue;
            for (const StageInfo &s : f.stages) {
                double pts = 1;
                for (size_t d = 0; d < f.region.size(); d++) {
                    bool loop = s.index == 0 || std::find(s.pure_loops.begin(), s.pure_loops.end(),
                                                          f.func.args()[d]) != s.pure_loops.end();
                    if (loop) pts *= static_cast<double>(f.region[d].extent());
                }
                for (const auto &[rv, span] : s.rvars) {
                    (void)rv;
                    pts *= static_cast<double>(span.extent());
                }
                double work = pts * (s.ops + s.index_ops / 2 + s.loads + 1);
                if (!baseline) {
                    if (f.region.size() > 0 && f.region[0].extent() >= stage_lanes(s))
                        work /= stage_lanes(s);
                    if (pts >= k_.min_parallel_points) work /= parallelism_;
                }
                cost += work;
            }
            if (baseline || p == Placement::Root) {
                double bytes = static_cast<double>(points(f.region)) * f.bytes_per_point;
                bool spills = bytes > static_cast<double>(mp_.last_level_cache_size);
                cost += bytes * 2 * (spills ? balance / 8 : 0.25);
            }
        }
        return cost;
    }

    Model &m_;
    ScheduleWriter &w_;
    MachineParams mp_;
    Knobs k_;
    int parallelism_ = 1;
    int64_t budget_ = 1 << 20;
    Plan plan_;
    /// Group roots computed in register tiles: by stage, the reduction tiled in it.
    std::map<std::string, std::map<int, std::string>> tiled_;
    /// Copies of inputs computed per column of register tiles.
    std::set<std::string> panels_;
};

}  // namespace

Plan schedule_pipeline(Model &model, ScheduleWriter &writer, const MachineParams &params,
                       const Knobs &knobs) {
    return Scheduler(model, writer, params, knobs).run();
}

std::string Knobs::to_string() const {
    std::ostringstream out;
    out << "strip_rows=" << strip_rows << " max_recompute=" << max_recompute
        << " min_parallel_points=" << min_parallel_points
        << " min_rfactor_points=" << min_rfactor_points
        << " rfactor_chunks_per_thread=" << rfactor_chunks_per_thread
        << " inline_margin=" << inline_margin << " boundary_reads=" << boundary_reads
        << " vector_registers=" << vector_registers << " tile_vectors=" << tile_vectors
        << " tile_rows=" << tile_rows << " tile_columns=" << tile_columns << " panels=" << panels;
    return out.str();
}

}  // namespace dsl::autoschedule
