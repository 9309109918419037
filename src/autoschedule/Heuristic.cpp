#include "autoschedule/Heuristic.h"

#include "autoschedule/Channels.h"
#include "autoschedule/GpuSchedule.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "dsl/Error.h"
#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IR.h"

namespace dsl::autoschedule {

namespace {

/// A parallel loop outside a loop with boundary tests is used when it gives each thread this
/// many tasks (else the loop with the tests runs in parallel, a fork and join per iteration of
/// the loops outside it).
constexpr int64_t kTasksPerThread = 2;

class Scheduler {
  public:
    Scheduler(Model &m, ScheduleWriter &w, const MachineParams &mp, const Knobs &k)
        : m_(m), w_(w), k_(k) {
        parallelism_ = std::max(1, mp.parallelism);
        // A strip's intermediates should stay in the share of the cache one core has (the
        // last level divided among the threads), and in at most 1 MiB (a core's L2).
        uint64_t share = mp.last_level_cache_size / static_cast<uint64_t>(parallelism_);
        budget_ = static_cast<int64_t>(std::min<uint64_t>(share ? share : (1u << 20), 1u << 20));
        // On a GPU a group's producers are computed per block into shared memory.
        gpu_ = m.target().has_gpu_feature();
        if (gpu_) budget_ = kGpuSharedBytes;
        gpu_tile_ = gpu_tile_limit(k);
    }

    Plan run() {
        for (const std::string &name : m_.order())
            w_.add_func(Func(m_.info(name).func.shared()));
        // Inlining decided twice where the pipeline has channel loops: the first decisions show
        // which loops they are, the second counts the reads their points share.
        std::map<std::string, std::vector<StageInfo>> original;
        for (const std::string &name : m_.order())
            original[name] = m_.info(name).stages;
        decide_inlining();
        Channels found(m_, inlined_set());
        if (!found.empty()) {
            for (auto &[name, stages] : original)
                m_.info(name).stages = std::move(stages);
            plan_.placement.clear();
            channels_ = std::move(found);
            decide_inlining();
            channels_ = Channels(m_, inlined_set());
        }
        decide_groups();
        if (gpu_) {
            schedule_gpu_groups(m_, w_, plan_, channels_, inlined_set(), gpu_tile_);
        } else {
            for (auto it = m_.order().rbegin(); it != m_.order().rend(); ++it) {
                if (plan_.placement[*it] == Placement::Root) schedule_group(*it);
            }
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
            if (!inline_it && !f.data_dependent) inline_it = read_once_by_channels(f);
            if (!inline_it && !f.data_dependent) inline_it = cheaper_inlined(f);
            if (auto forced = k_.placement.find(name); forced != k_.placement.end())
                inline_it = forced->second == Placement::Inline;
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

    /// Whether the consumers of `f` read each of its points once at most, some of them in a
    /// channel loop whose points share the read (so that inlining `f` computes nothing twice).
    bool read_once_by_channels(const FuncInfo &f) const {
        bool shared = false;
        for (const std::string &c : f.consumers) {
            for (const StageInfo &cs : m_.info(c).stages) {
                for (const auto &[callee, vars] : cs.operand_vars)
                    shared |= callee == f.name && channels_.sharing(c, vars) > 1;
            }
        }
        return shared && calls_of(f) <= static_cast<double>(points(f.region));
    }

    /// How many times the consumers of `f` call it, over their regions at the estimates (a
    /// read shared by the points of a channel loop counted once).
    double calls_of(const FuncInfo &f) const {
        double calls = 0;
        for (const std::string &c : f.consumers) {
            const FuncInfo &cf = m_.info(c);
            for (const StageInfo &cs : cf.stages) {
                if (!cs.calls.count(f.name)) continue;
                double pts = static_cast<double>(points(cf.region));
                for (const auto &[rv, span] : cs.rvars) {
                    (void)rv;
                    pts *= static_cast<double>(span.extent());
                }
                // The points of a channel loop share a read that does not use its Var.
                for (const auto &[callee, vars] : cs.operand_vars) {
                    if (callee == f.name) calls += pts / channels_.sharing(c, vars);
                }
            }
        }
        return calls;
    }

    /// Adds the arithmetic of inlined Funcs to the stages of `f` that call them.
    void fold_inlined_costs(FuncInfo &f) {
        for (StageInfo &s : f.stages) {
            for (const auto &[callee, count] : s.calls) {
                if (!is_inlined(callee)) continue;
                const StageInfo &c = m_.info(callee).stages[0];
                // Calls shared by the points of a channel loop are computed once for them.
                double n = 0;
                for (const auto &[name, vars] : s.operand_vars) {
                    if (name == callee) n += 1 / channels_.sharing(f.name, vars);
                }
                if (n == 0) n = count;
                s.ops += n * c.ops;
                s.index_ops += n * c.index_ops;
                s.loads = std::max(0.0, s.loads + n * (c.loads - 1));
                s.widest_bits = std::max(s.widest_bits, c.widest_bits);
                // The callee's likely conditions test the caller's Vars its coordinates use.
                const std::vector<std::string> &cargs = m_.info(callee).func.args();
                if (c.likely_vars.empty()) continue;
                for (const std::vector<Expr> &args : m_.call_args(f.name, s.index, callee)) {
                    for (size_t d = 0; d < args.size() && d < cargs.size(); d++) {
                        if (!c.likely_vars.count(cargs[d])) continue;
                        for (const std::string &v : ir::free_names(args[d], false))
                            s.likely_vars.insert(v);
                    }
                }
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

    /// Whether the pure definition of `name` reads an input (an ImageParam or a Buffer), directly
    /// or through inlined Funcs.
    bool reads_inputs(const std::string &name) const {
        for (const auto &[callee, vars] : m_.info(name).stages[0].operand_vars) {
            (void)vars;
            if (!m_.has(callee)) return true;
            if (is_inlined(callee) && reads_inputs(callee)) return true;
        }
        return false;
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

    /// A loop outside a group's tiles or strips: its name, the dimension of the group's root it
    /// walks, and its number of iterations (the same record as a channel split's outer loop).
    using OuterLoop = Channels::Outer;

    /// The box of one strip of `root`: dimensions inside the strip loop whole, the strip
    /// dimension `rows` long, dimensions outside it one point.
    /// (Channel loops are inside the strips: whole.)
    Box strip_box(const FuncInfo &root, int strip_dim, int64_t rows) const {
        Box b = root.region;
        if (strip_dim < 0) return b;
        b[strip_dim].max = std::min(b[strip_dim].max, b[strip_dim].min + rows - 1);
        for (size_t d = strip_dim + 1; d < b.size(); d++) {
            if (!is_channel(root, d)) b[d].max = b[d].min;
        }
        return b;
    }
    int64_t strips(const FuncInfo &root, int strip_dim, int64_t rows) const {
        if (strip_dim < 0) return 1;
        int64_t n = (root.region[strip_dim].extent() + rows - 1) / rows;
        for (size_t d = strip_dim + 1; d < root.region.size(); d++) {
            if (!is_channel(root, d)) n *= root.region[d].extent();
        }
        return n;
    }
    int strip_rows_of(const std::string &root) const {
        auto it = k_.group_strip_rows.find(root);
        return it == k_.group_strip_rows.end() ? k_.strip_rows : it->second;
    }

    /// Whether dimension `d` of the Func `f` (computed, not inlined) is a channel loop.
    bool is_channel(const FuncInfo &f, size_t d) const {
        return d < f.func.args().size() && channels_.of(f.name).count(f.func.args()[d]) > 0;
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
            if (!gpu_ && cons.size() == 1 && f.consumers.size() == 1 && register_tileable(f)) {
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
            auto forced = k_.placement.find(name);
            if (forced != k_.placement.end() && forced->second == Placement::Root) continue;
            const bool force_strip =
                forced != k_.placement.end() && forced->second == Placement::Strip;
            std::string group;
            bool same = true;
            for (const std::string &c : cons) {
                std::string r = root_of(c);
                if (!group.empty() && r != group) same = false;
                group = r;
            }
            if (!same || group.empty()) continue;
            // On a GPU, shared memory must have a constant size: only the root itself may read
            // it (through inlined Funcs), at its own coordinates plus constants.
            if (gpu_ && (cons.size() != 1 || *cons.begin() != group ||
                         !read_at_offsets(m_, through, group, name)))
                continue;
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
            int64_t rows = sd < 0
                               ? root.region[0].extent()
                               : std::min<int64_t>(strip_rows_of(group), root.region[sd].extent());
            std::set<std::string> members = members_of(group);
            members.insert(name);
            // (On a GPU, per block.)
            std::map<std::string, Box> need = m_.required(
                group, gpu_ ? gpu_block_box(root, channels_, gpu_tile_) : strip_box(root, sd, rows),
                members, through);
            auto mine = need.find(name);
            if (mine == need.end()) continue;
            const int64_t parts =
                gpu_ ? gpu_blocks_of(root, channels_, gpu_tile_) : strips(root, sd, rows);
            double recompute = static_cast<double>(points(mine->second)) *
                               static_cast<double>(parts) /
                               static_cast<double>(std::max<int64_t>(1, points(f.region)));
            // A channel loop computes all its points where the strip needs fewer.
            for (size_t d = 0; d < mine->second.size(); d++) {
                if (!is_channel(f, d)) continue;
                const int64_t e = channels_.of(name).at(f.func.args()[d]);
                if (mine->second[d].extent() < e)
                    recompute *= static_cast<double>(e) / mine->second[d].extent();
            }
            int64_t bytes = 0;
            for (const auto &[n, b] : need)
                bytes += points(b) * m_.info(n).bytes_per_point;
            if (!force_strip && (recompute > k_.max_recompute || bytes > budget_)) continue;
            plan_.placement[name] = Placement::Strip;
            plan_.group_of[name] = group;
            recompute_[name] = std::max(1.0, recompute);
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

    void mark_vectorized(const std::string &f, int stage, const std::string &var, int lanes,
                         TailStrategy tail = TailStrategy::Auto) {
        w_.vectorize(f, stage, var, lanes, tail);
        lanes_[{f, stage}] = lanes;
    }
    /// `launches`: how many times the parallel loop starts (the iterations of serial loops
    /// outside it).
    void mark_parallel(const std::string &f, int stage, const std::string &loop, double launches) {
        w_.parallel(f, stage, loop);
        launches_[{f, stage}] = launches;
    }

    /// Vector loads per vector of points and iteration of the RVars in the updates of a
    /// reduction computed in register tiles of nx vectors by ny (by nz) points, for the cost
    /// model: the accumulators are registers; a contraction loads nx vectors and ny broadcasts
    /// per nx * ny multiply-adds; a window slid over the tile's points loads each input vector
    /// once for the taps and points that share it, and each weight once per tile.
    void record_tile_loads(const FuncInfo &r, bool contraction, bool window, int nx, int ny,
                           int nz) {
        for (size_t i = 1; i < r.stages.size(); i++) {
            const StageInfo &s = r.stages[i];
            double loads = 0;
            if (contraction) {
                loads = static_cast<double>(nx + ny) / (nx * ny);
            } else if (window && s.rvars.size() >= 2) {
                const double kx = static_cast<double>(s.rvars[0].second.extent());
                const double ky = static_cast<double>(s.rvars[1].second.extent());
                loads = (ny + kx - 1) * (nz + ky - 1) / (ny * nz * kx * ky) + 1.0 / (ny * nz);
            } else {
                // The operand read at every point once per accumulator; the others (weights
                // along dimension 0) once per column of the tile.
                loads = 1 + std::max(0.0, s.loads - 2) / ny;
            }
            tile_loads_[{r.name, static_cast<int>(i)}] = loads;
        }
    }

    /// The dimensions of `root` whose Vars likely conditions test in stage `stage` or in the
    /// reduction `red` computed per tile (which reads it at the root's own Vars, place by place).
    std::set<int> likely_dims(const FuncInfo &root, int stage, const std::string &red) const {
        const std::vector<std::string> &args = root.func.args();
        std::set<int> dims;
        for (size_t d = 0; d < args.size(); d++) {
            if (root.stages[stage].likely_vars.count(args[d])) dims.insert(static_cast<int>(d));
        }
        if (red.empty()) return dims;
        const FuncInfo &r = m_.info(red);
        for (const StageInfo &s : r.stages) {
            for (size_t d = 0; d < r.func.args().size() && d < args.size(); d++) {
                if (s.likely_vars.count(r.func.args()[d])) dims.insert(static_cast<int>(d));
            }
        }
        return dims;
    }

    /// Makes the loops outside a group's tiles or strips (`loops`, innermost first) parallel
    /// (when `parallel`), and returns the loop that the innermost of them is then part of.
    /// They are fused into one loop of many tasks, unless a likely condition tests one of them:
    /// a fused loop computes its coordinates by division, and lowering can no longer give it a
    /// steady state without the boundary's tests (a depthwise layer ran 2.7 ms fused against
    /// 0.37 ms). Then the loops outside the outermost such loop are fused and made parallel if
    /// they give every thread a few tasks, and otherwise that loop alone runs in parallel.
    std::string parallelize(const std::string &f, int stage, const std::vector<OuterLoop> &loops,
                            const std::set<int> &likely, bool parallel) {
        if (loops.empty()) return "";
        int last_likely = -1;
        for (size_t i = 0; i < loops.size(); i++) {
            if (likely.count(loops[i].dim)) last_likely = static_cast<int>(i);
        }
        auto fuse_from = [&](size_t first) {
            std::vector<std::string> outer;
            for (size_t i = first + 1; i < loops.size(); i++)
                outer.push_back(loops[i].name);
            return fuse_outwards(f, stage, loops[first].name, outer);
        };
        if (last_likely < 0) {
            std::string loop = fuse_from(0);
            if (parallel) mark_parallel(f, stage, loop, 1);
            return loop;
        }
        if (!parallel) return loops[0].name;
        const size_t next = static_cast<size_t>(last_likely) + 1;
        int64_t tasks = 1;
        for (size_t i = next; i < loops.size(); i++)
            tasks *= loops[i].extent;
        if (next < loops.size() && tasks >= kTasksPerThread * parallelism_) {
            mark_parallel(f, stage, fuse_from(next), 1);
        } else {
            // Started once per iteration of the loops outside it.
            mark_parallel(f, stage, loops[static_cast<size_t>(last_likely)].name,
                          static_cast<double>(tasks));
        }
        return loops[0].name;
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
                if (f.region[0].extent() >= vec) mark_vectorized(name, 0, args[0], vec);
                if (total >= k_.min_parallel_points) mark_parallel(name, 0, args[0], 1);
                strip_loop = args[0];
            } else {
                std::vector<OuterLoop> channel_loops = channels_.schedule(w_, f);
                if (f.region[0].extent() >= vec) mark_vectorized(name, 0, args[0], vec);
                std::vector<OuterLoop> loops{{args[sd], sd, f.region[sd].extent()}};
                const int rows = strip_rows_of(name);
                if (!members.empty() && f.region[sd].extent() > rows) {
                    std::string so = args[sd] + "o", si = args[sd] + "i";
                    w_.split(name, 0, args[sd], so, si, rows);
                    loops[0] = {so, sd, (f.region[sd].extent() + rows - 1) / rows};
                }
                for (size_t d = sd + 1; d < args.size(); d++) {
                    if (!is_channel(f, d))
                        loops.push_back({args[d], static_cast<int>(d), f.region[d].extent()});
                }
                loops.insert(loops.end(), channel_loops.begin(), channel_loops.end());
                strip_loop = parallelize(name, 0, loops, likely_dims(f, 0, ""),
                                         total >= k_.min_parallel_points);
            }
        }
        for (const std::string &mname : members) {
            const FuncInfo &mf = m_.info(mname);
            w_.compute_at(mname, name, strip_loop);
            channels_.schedule(w_, mf);
            int mv = stage_lanes(mf.stages[0]);
            // The last vector of a row shifts inwards (overlaps the one before) where the Func
            // reads neither a Func computed elsewhere (it would read past the region computed
            // for it) nor an input: lowering allows a Func computed per strip a region smaller
            // than a vector, so the reads of a shifted vector reach a vector before the input's
            // region, which an input of exactly the size needed (an NN tensor) does not hold.
            // Elsewhere the tail is guarded.
            TailStrategy tail = effective_producers(mname).empty() && !reads_inputs(mname)
                                    ? TailStrategy::ShiftInwards
                                    : TailStrategy::Auto;
            if (!mf.func.args().empty() && mf.region[0].extent() >= mv)
                mark_vectorized(mname, 0, mf.func.args()[0], mv, tail);
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
        // A window slid along the tile's second and third dimensions (a depthwise convolution
        // with channels innermost: input(c, x + kx, y + ky)): neighbouring points of a tile read
        // the same vectors at neighbouring taps, which LLVM then loads once. Such a tile is one
        // vector across, 4 points by 2 (24 loads for 72 multiply-adds of a 3x3 window where 4
        // vectors by 4 points load 48 for 48, and 8 points by 1 load 30 for 72; measured on
        // conv_layer's depthwise layer at one thread: 0.34 ms, 0.77 ms and 0.57 ms).
        const std::string rz0 = r.func.args().size() > 2 ? r.func.args()[2] : "";
        bool window = !contraction && stage == 0 && args.size() > 2 && k_.tile_vectors == 0 &&
                      k_.tile_rows == 0;
        if (window) {
            window = false;
            for (size_t i = 1; i < r.stages.size(); i++) {
                for (const auto &[callee, vars] : r.stages[i].operand_vars) {
                    if (callee == red || !vars.count(ry0) || !vars.count(rz0)) continue;
                    for (const auto &[rv, span] : r.stages[i].rvars) {
                        (void)span;
                        window |= vars.count(rv) > 0;
                    }
                }
            }
        }
        int nz = 1;
        if (window) {
            nx = 1;
            ny = static_cast<int>(std::min<int64_t>(4, root.region[1].extent()));
            nz = static_cast<int>(std::min<int64_t>(2, root.region[2].extent()));
        }
        const int tx = vec * nx, ty = ny;
        record_tile_loads(r, contraction, window, nx, ny, nz);
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
        const int outer_dim = columns ? 0 : 1;
        std::vector<std::string> order = {xi, yi};
        std::vector<OuterLoop> outer{
            {outer_tile, outer_dim,
             (root.region[outer_dim].extent() + (columns ? tx : ty) - 1) / (columns ? tx : ty)}};
        size_t first_outer = 2;
        if (nz > 1) {
            const std::string &z = args[2];
            std::string zo = z + "o", zi = z + "i";
            w_.split(root.name, stage, z, zo, zi, nz, tail);
            order.push_back(zi);
            outer.push_back({zo, 2, (root.region[2].extent() + nz - 1) / nz});
            first_outer = 3;
        }
        order.push_back(inner_tile);
        for (size_t d = first_outer; d < args.size(); d++) {
            if (stage == 0 || std::find(rs.pure_loops.begin(), rs.pure_loops.end(), args[d]) !=
                                  rs.pure_loops.end()) {
                outer.push_back({args[d], static_cast<int>(d), root.region[d].extent()});
            }
        }
        for (const OuterLoop &l : outer)
            order.push_back(l.name);
        // An update's RVars (chunks of a sum) outermost: a chunk's operands stay in cache over
        // all the tiles.
        for (const auto &[rv, span] : rs.rvars) {
            (void)span;
            w_.mark_rvar(rv);
            order.push_back(rv);
        }
        w_.reorder(root.name, stage, order);
        mark_vectorized(root.name, stage, xi, vec);
        w_.unroll(root.name, stage, xi);
        w_.unroll(root.name, stage, yi);
        if (nz > 1) w_.unroll(root.name, stage, args[2] + "i");
        std::string par = parallelize(root.name, stage, outer, likely_dims(root, stage, red),
                                      points(root.region) >= k_.min_parallel_points);

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
        if (nz > 1) w_.bound_extent(red, rz0, nz);
        // Dimensions read at RVars' coordinates (the chunk of a sum): one point per tile.
        if (stage > 0) {
            for (size_t d = 2; d < r.func.args().size(); d++) {
                bool own = d < args.size() && std::find(rs.pure_loops.begin(), rs.pure_loops.end(),
                                                        args[d]) != rs.pure_loops.end();
                if (!own) w_.bound_extent(red, r.func.args()[d], 1);
            }
        }
        mark_vectorized(red, 0, rx, vec);
        w_.unroll(red, 0, rx);
        w_.unroll(red, 0, ry);
        if (nz > 1) w_.unroll(red, 0, rz0);
        for (size_t i = 1; i < r.stages.size(); i++) {
            int s = static_cast<int>(i);
            std::vector<std::string> loops = {rx, ry};
            if (nz > 1) loops.push_back(rz0);
            for (const auto &[rv, span] : r.stages[i].rvars) {
                (void)span;
                w_.mark_rvar(rv);
                loops.push_back(rv);
            }
            w_.reorder(red, s, loops);
            mark_vectorized(red, s, rx, vec);
            w_.unroll(red, s, rx);
            w_.unroll(red, s, ry);
            if (nz > 1) {
                w_.unroll(red, s, rz0);
                // The innermost tap unrolled too: only straight-line code lets LLVM load a
                // vector once for the taps and points that share it.
                const auto &rvars = r.stages[i].rvars;
                if (!rvars.empty() && rvars[0].second.extent() <= 8)
                    w_.unroll(red, s, rvars[0].first);
            }
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
            if (has_x && f.region[0].extent() >= vec) mark_vectorized(name, stage, x, vec);
            // The outermost pure loop in parallel (not the vectorized one), when the stage has
            // the work for it.
            const std::string &outer = pure.back();
            int64_t work = pure_points;
            for (const auto &[rv, span] : s.rvars) {
                (void)rv;
                work *= span.extent();
            }
            if (!(has_x && outer == x) && work >= k_.min_parallel_points)
                mark_parallel(name, stage, outer, 1);
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
            // The partials' innermost RVar unrolled by four: a scatter (a histogram's
            // increments) then has several loads in flight, which LLVM does not arrange by
            // itself for a loop of unknown count.
            const std::string &inner = s.rvars.front().first;
            if (inner != outer_rv && s.rvars.front().second.extent() >= 8) {
                w_.split(partial.name(), 1, inner, inner + "o", inner + "i", 4,
                         TailStrategy::GuardWithIf);
                w_.unroll(partial.name(), 1, inner + "i");
            }
            w_.parallel(partial.name(), 1, "u");
            // (The cost model charges the stage's work as the partials' work, in parallel.)
            launches_[{name, stage}] = 1;
            int64_t inits = points(f.region);
            if (inits >= vec && !partial.args().empty())
                w_.vectorize(partial.name(), 0, partial.args()[0].name(), vec);
        } catch (const CompileError &) {
            // Not associative (or not a pattern rfactor knows): the update stays serial.
        }
    }

    /// Bytes per nanosecond from the level of memory that `bytes` fit in, on `threads`
    /// threads (the caches are per core, main memory shared).
    double bandwidth(double bytes, int threads) const {
        const MachineCosts &c = costs_;
        if (bytes <= static_cast<double>(c.l1_bytes)) return c.l1_bytes_per_ns * threads;
        if (bytes <= static_cast<double>(c.l2_bytes)) return c.l2_bytes_per_ns * threads;
        if (bytes <= static_cast<double>(c.llc_bytes)) return c.llc_bytes_per_ns * threads;
        return threads > 1 ? c.dram_parallel_bytes_per_ns : c.dram_bytes_per_ns;
    }

    /// The cost model: the run time in nanoseconds of the schedule decided (or, for the
    /// `baseline`, of every Func at root, scalar and serial), at the estimated sizes. Each stage
    /// computed pays its vector operations (its arithmetic, half its coordinate arithmetic, a
    /// store; one per register of a vector wider than one) and vector loads from the
    /// first-level cache at MachineCosts' rates, for every point it computes (a Func computed
    /// per strip recomputes the strips' overlaps), split over the
    /// threads where it runs in parallel, plus each start of its parallel loop; each Func stored
    /// at root pays writing and reading its region once from the level of memory it fits in,
    /// and each Func computed per strip from the second-level cache. Not modelled: reading the
    /// inputs, and loads that miss the first-level cache inside a stage.
    double total_cost(bool baseline) const {
        const MachineCosts &c = costs_;
        const double vector_bytes = 4.0 * lanes(32);
        double ns = 0;
        for (const std::string &name : m_.order()) {
            const FuncInfo &f = m_.info(name);
            Placement p = plan_.placement.at(name);
            if (!baseline && p == Placement::Inline) continue;
            bool any_parallel = false;
            // A Func computed per strip or tile runs inside its group's parallel loop.
            bool in_parallel_group = false;
            if (!baseline && (p == Placement::Strip || p == Placement::RegisterTile)) {
                const std::string &root = plan_.group_of.at(name);
                for (const auto &[key, n] : launches_) {
                    (void)n;
                    in_parallel_group |= key.first == root;
                }
            }
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
                const std::pair<std::string, int> key{name, s.index};
                double width = 1, loads = s.loads, launches = 0;
                if (!baseline) {
                    // A vector of several registers costs an operation per register.
                    if (auto it = lanes_.find(key); it != lanes_.end())
                        width = std::min(it->second, lanes(s.widest_bits));
                    if (auto it = tile_loads_.find(key); it != tile_loads_.end())
                        loads = it->second;
                    if (auto it = launches_.find(key); it != launches_.end()) launches = it->second;
                }
                double vectors = pts / width;
                if (!baseline && p == Placement::Strip) vectors *= recompute_.at(name);
                double work = vectors * (s.ops + s.index_ops / 2 + 1) * c.vector_op_ns +
                              vectors * loads * vector_bytes / c.l1_bytes_per_ns;
                if (launches > 0 || in_parallel_group) {
                    work = work / std::max(1, parallelism_) + launches * c.parallel_loop_ns;
                    any_parallel = true;
                }
                ns += work;
            }
            const double bytes = static_cast<double>(points(f.region)) * f.bytes_per_point;
            const int threads = any_parallel ? std::max(1, parallelism_) : 1;
            if (baseline || p == Placement::Root) {
                ns += 2 * bytes / bandwidth(bytes, threads);
            } else if (p == Placement::Strip) {
                ns += 2 * bytes / (c.l2_bytes_per_ns * threads);
            }
        }
        return ns * 1e-6;
    }

    Model &m_;
    ScheduleWriter &w_;
    Knobs k_;
    int parallelism_ = 1;
    int64_t budget_ = 1 << 20;
    Plan plan_;
    /// Group roots computed in register tiles: by stage, the reduction tiled in it.
    std::map<std::string, std::map<int, std::string>> tiled_;
    /// Copies of inputs computed per column of register tiles.
    std::set<std::string> panels_;
    /// For the cost model, by (Func, stage): vector lanes, starts of its parallel loop, and
    /// vector loads per vector point of a register-tiled reduction.
    std::map<std::pair<std::string, int>, int> lanes_;
    std::map<std::pair<std::string, int>, double> launches_, tile_loads_;
    /// Points computed over all strips per point of the region, of each Func computed per strip.
    std::map<std::string, double> recompute_;
    MachineCosts costs_ = MachineCosts::host();
    /// Channel loops: computed innermost and unrolled, sharing the reads that do not use them.
    Channels channels_;
    /// The target has a GPU: groups become kernels (GpuSchedule.cpp).
    bool gpu_ = false;
    /// On a GPU, the largest block tile the knobs allow.
    GpuTile gpu_tile_;
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
    if (gpu_tile_x || gpu_tile_y) out << " gpu_tile=" << gpu_tile_x << "x" << gpu_tile_y;
    static const char *const names[] = {"inline", "root", "strip", "tile"};
    for (const auto &[f, p] : placement)
        out << " " << f << "=" << names[static_cast<int>(p)];
    for (const auto &[f, rows] : group_strip_rows)
        out << " " << f << ".strip_rows=" << rows;
    return out.str();
}

}  // namespace dsl::autoschedule
