#include "lowering/ComputeWith.h"

#include <algorithm>
#include <functional>
#include <map>

#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/InlineFunctions.h"
#include "lowering/LinearBounds.h"
#include "lowering/ScheduleFunctions.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;

namespace {

const schedule::StageSchedule::FusedWith &fused_with(const Function &f, int stage) {
    return f.stage(stage).schedule.fused_with;
}

std::string stage_words(const std::string &func, int stage) {
    return stage == 0 ? "Func \"" + func + "\""
                      : "update " + std::to_string(stage - 1) + " of Func \"" + func + "\"";
}

std::string stage_call(const std::string &func, int stage) {
    return stage == 0 ? func : func + ".update(" + std::to_string(stage - 1) + ")";
}

/// "root" or "consumer.loop": where a Func is computed, outputs included.
std::string placement(const Environment &env, const Function &f) {
    const schedule::LoopLevel &level = f.schedule().compute_level;
    if (!env.is_output(f.name()) && level.kind == schedule::LoopLevel::Kind::At)
        return level.func + "." + level.var;
    return "root";
}

/// One level of two fused loop nests: the loop of the stage fused with, the fused stage's loop,
/// and how they line up.
struct FusedLevel {
    std::string parent_loop, child_loop;
    LoopAlignStrategy align;
};

/// The lets and the conditions (of ifs without an else) in front of the next loop of a stage's
/// loop nest, and that loop.
struct Peeled {
    std::vector<std::pair<std::string, Expr>> lets;
    Expr condition = make_bool(true);
    Stmt core;
};

Peeled peel(Stmt s) {
    Peeled p;
    while (true) {
        if (const auto *let = s.as<LetStmt>()) {
            p.lets.push_back({let->name, let->value});
            s = let->body;
        } else if (const auto *branch = s.as<IfThenElse>();
                   branch && !branch->else_case.defined()) {
            p.condition = p.condition && branch->condition;
            s = branch->then_case;
        } else {
            break;
        }
    }
    p.core = s;
    return p;
}

Stmt guarded(const Expr &condition, const Stmt &body) {
    Expr c = simplify(condition);
    return is_const_true(c) ? body : IfThenElse::make(c, body);
}

/// `e` as a sum of terms times constants plus a constant, adding into `terms` and `constant`.
/// False if it has other parts than +, -, constant multiples and Int(32) leaves.
bool add_terms(const Expr &e, int64_t scale, std::vector<std::pair<Expr, int64_t>> &terms,
               int64_t &constant) {
    if (auto k = as_const_int(e)) {
        constant += scale * *k;
        return true;
    }
    if (const auto *add = e.as<Add>())
        return add_terms(add->a, scale, terms, constant) &&
               add_terms(add->b, scale, terms, constant);
    if (const auto *sub = e.as<Sub>())
        return add_terms(sub->a, scale, terms, constant) &&
               add_terms(sub->b, -scale, terms, constant);
    if (const auto *mul = e.as<Mul>()) {
        if (auto factor = constant_factor(mul))
            return add_terms(factor->second, scale * factor->first, terms, constant);
    }
    for (auto &term : terms) {
        if (equal(term.first, e)) {
            term.second += scale;
            return true;
        }
    }
    terms.push_back({e, scale});
    return true;
}

/// The value of `e` if its terms cancel to a constant (`(a + 1) + (b - a) - b` is 1).
std::optional<int64_t> constant_sum(const Expr &e) {
    std::vector<std::pair<Expr, int64_t>> terms;
    int64_t constant = 0;
    if (!add_terms(simplify(e), 1, terms, constant)) return std::nullopt;
    for (const auto &term : terms) {
        if (term.second != 0) return std::nullopt;
    }
    return constant;
}

/// Merges the loop nest `child` into `parent` through `levels`, outermost first, from level `i`.
/// `pc` and `cc`: the conditions each stage's body runs under, from the levels outside.
Stmt fuse_nests(const Stmt &parent, const Stmt &child, const std::vector<FusedLevel> &levels,
                size_t i, const Expr &pc, const Expr &cc, const std::string &what,
                const std::string &parent_func, const std::string &child_func) {
    Peeled p = peel(parent), c = peel(child);
    const auto *fp = p.core.as<For>();
    const auto *fc = c.core.as<For>();
    internal_assert(fp && fp->name == levels[i].parent_loop)
        << what << ": expected the loop " << levels[i].parent_loop << " of the stage fused with";
    internal_assert(fc && fc->name == levels[i].child_loop)
        << what << ": expected the loop " << levels[i].child_loop << " of the fused stage";
    Expr pmin = fp->min, pmax = fp->min + fp->extent - 1;
    Expr cmin = fc->min, cmax = fc->min + fc->extent - 1;
    Expr shift = make_zero(Int(32));
    if (levels[i].align == LoopAlignStrategy::AlignStart) shift = cmin - pmin;
    if (levels[i].align == LoopAlignStrategy::AlignEnd) shift = cmax - pmax;
    // The fused loop runs the parent's coordinates; the child runs them shifted.
    Expr lo = pmin, hi = pmax;
    Expr v = Variable::make(Int(32), fp->name), cv = Variable::make(Int(32), fc->name);
    Expr p_here = p.condition && pc, c_here = c.condition && cc;
    Stmt check;
    if (fp->for_type == ForType::Vectorized) {
        // A vector holds one iteration of both stages: no per-lane test; the ranges, lined up,
        // must be equal (checked when the pipeline runs).
        Expr same = fc->extent == fp->extent;
        if (levels[i].align == LoopAlignStrategy::NoAlign) same = same && cmin == pmin;
        Expr report = Call::make(Int(32), "dsl_runtime_error_fused_ranges_differ",
                                 {StringImm::make(fp->name), StringImm::make(parent_func), fp->min,
                                  fp->extent, StringImm::make(child_func), fc->min, fc->extent},
                                 Call::CallType::Extern);
        check = AssertStmt::make(same, report);
    } else {
        lo = simplify(min(pmin, cmin - shift));
        hi = simplify(max(pmax, cmax - shift));
        auto covers = [&](const Expr &a_min, const Expr &a_max) {
            auto low = constant_sum(lo - a_min), high = constant_sum(hi - a_max);
            return low && *low == 0 && high && *high == 0;
        };
        if (!covers(pmin, pmax)) p_here = p_here && v >= pmin && v <= pmax;
        if (!covers(simplify(cmin - shift), simplify(cmax - shift)))
            c_here = c_here && cv >= cmin && cv <= cmax;
    }
    Stmt body;
    if (i + 1 == levels.size()) {
        body = Block::make(guarded(p_here, fp->body),
                           LetStmt::make(fc->name, v + shift, guarded(c_here, fc->body)));
    } else {
        body = LetStmt::make(fc->name, v + shift,
                             fuse_nests(fp->body, fc->body, levels, i + 1, p_here, c_here, what,
                                        parent_func, child_func));
    }
    Stmt loop = For::make(fp->name, lo, simplify(hi - lo + 1), fp->for_type, fp->device_api, body);
    if (check.defined()) loop = Block::make(check, loop);
    return wrap_lets(p.lets, wrap_lets(c.lets, loop));
}

/// The loops of a stage, outermost first, down to `var` (empty if it has no such loop).
std::vector<schedule::Dim> outer_loops(const std::vector<schedule::Dim> &dims,
                                       const std::string &var) {
    std::vector<schedule::Dim> result;
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
        result.push_back(*it);
        if (it->var == var) return result;
    }
    return {};
}

/// Drops the parts of an if's condition that the loops around it imply: `a <= v` where v never
/// goes below a, `v <= b` where it never passes b (the range tests of fused loops whose two
/// ranges turn out to be the same once bounds are known).
class DropImpliedGuards : public IRMutator {
  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        loops_.push_back({op->name, op->min, simplify(op->min + op->extent - 1)});
        Stmt s = IRMutator::visit(op);
        loops_.pop_back();
        return s;
    }
    Stmt visit(const IfThenElse *op) override {
        Stmt s = IRMutator::visit(op);
        op = s.as<IfThenElse>();
        if (!op || op->else_case.defined()) return s;
        Expr kept = make_bool(true);
        bool dropped = false;
        for (const Expr &part : conjuncts(op->condition)) {
            if (implied(part)) {
                dropped = true;
            } else {
                kept = kept && part;
            }
        }
        if (!dropped) return s;
        kept = simplify(kept);
        return is_const_true(kept) ? op->then_case : IfThenElse::make(kept, op->then_case);
    }

  private:
    /// Whether `part` (a <= b or a < b) holds at both ends of the range of the one enclosing
    /// loop it depends on (then everywhere, as it is linear in the loop's variable).
    bool implied(const Expr &part) const {
        Expr slack;
        if (const auto *le = part.as<LE>()) slack = le->b - le->a;
        if (const auto *lt = part.as<LT>()) slack = lt->b - lt->a - 1;
        if (!slack.defined() || !slack.type().is_int()) return false;
        const Loop *loop = nullptr;
        for (const Loop &l : loops_) {
            if (!expr_uses_var(slack, l.name)) continue;
            if (loop) return false;
            loop = &l;
        }
        if (!loop) return false;
        // Linear in the variable: smallest at the min if it grows with it, else at the max.
        Expr v = Variable::make(Int(32), loop->name);
        auto step = constant_sum(substitute(loop->name, v + 1, slack) - slack);
        if (!step) return false;
        const Expr &end = *step >= 0 ? loop->min : loop->max;
        auto k = constant_sum(substitute(loop->name, end, slack));
        return k && *k >= 0;
    }
    struct Loop {
        std::string name;
        Expr min, max;
    };
    std::vector<Loop> loops_;
};

}  // namespace

Stmt drop_guards_implied_by_loops(const Stmt &s) {
    return DropImpliedGuards().mutate(s);
}

std::vector<std::set<std::string>> compute_with_groups(const Environment &env) {
    std::map<std::string, std::string> leader;
    std::function<std::string(const std::string &)> find = [&](const std::string &n) {
        auto it = leader.find(n);
        if (it == leader.end() || it->second == n) return n;
        return it->second = find(it->second);
    };
    for (const auto &[name, f] : env.funcs) {
        if (is_inlined(f)) continue;
        for (int k = 0; k < f.stages(); k++) {
            const std::string &other = fused_with(f, k).func;
            if (other.empty() || !env.funcs.count(other) || is_inlined(env.func(other))) continue;
            leader[find(name)] = find(other);
        }
    }
    std::map<std::string, std::set<std::string>> groups;
    for (const auto &entry : leader) {
        std::set<std::string> &group = groups[find(entry.first)];
        group.insert(entry.first);
        group.insert(find(entry.first));
    }
    std::vector<std::set<std::string>> result;
    for (auto &entry : groups)
        result.push_back(entry.second);
    return result;
}

void check_compute_with(Environment &env) {
    for (const auto &[name, f] : env.funcs) {
        for (int k = 0; k < f.stages(); k++) {
            const auto &fw = fused_with(f, k);
            if (fw.func.empty()) continue;
            const std::string what = stage_words(name, k) + ", compute_with(" +
                                     stage_call(fw.func, fw.stage) + ", " + fw.var + ")";
            user_assert(env.funcs.count(fw.func))
                << what << ": \"" << fw.func << "\" is not part of this pipeline (nothing it "
                << "computes reads it). Fuse with a Func the pipeline computes.";
            const Function &parent = env.func(fw.func);
            for (const Function *g : {&f, &parent}) {
                user_assert(!is_inlined(*g))
                    << what << ": \"" << g->name() << "\" is inlined, so it has no loops to fuse. "
                    << "Compute both Funcs at root, or both at the same loop of a consumer.";
                user_assert(!g->is_extern())
                    << what << ": \"" << g->name() << "\" is an extern stage, whose function "
                    << "computes its whole region in one call; it has no loops to fuse.";
            }
            user_assert(placement(env, f) == placement(env, parent))
                << what << ": \"" << name << "\" is computed at " << placement(env, f) << " but \""
                << fw.func << "\" at " << placement(env, parent)
                << "; fused loops need both computed at the same place. Schedule both "
                << "compute_root(), or both compute_at the same loop.";
            user_assert(f.stage(k).specializations.empty() &&
                        parent.stage(fw.stage).specializations.empty())
                << what << ": a fused stage cannot be specialized (each version would need its "
                << "own fused loops). Remove the specialize() calls of these stages.";
            // Fused Funcs that read each other are refused by realization_order.
            const auto &pdims = parent.stage(fw.stage).schedule.dims;
            const auto &cdims = f.stage(k).schedule.dims;
            // Fused at Var::outermost(): no loop is shared; the stages run one after the other.
            const bool outermost = fw.var == schedule::kOutermost;
            std::vector<schedule::Dim> fused = outer_loops(pdims, fw.var);
            std::string loops;
            for (auto it = pdims.rbegin(); it != pdims.rend(); ++it)
                loops += (loops.empty() ? "" : ", ") + it->var;
            user_assert(outermost || !fused.empty())
                << what << ": " << stage_words(fw.func, fw.stage) << " has no loop \"" << fw.var
                << "\". Its loops, outermost first, are: " << loops << ".";
            for (size_t j = 0; j < fused.size(); j++) {
                const schedule::Dim *mine =
                    j < cdims.size() ? &cdims[cdims.size() - 1 - j] : nullptr;
                user_assert(mine && mine->var == fused[j].var)
                    << what << ": the fused loops must be the same in both stages, outermost "
                    << "first, down to " << fw.var << "; " << stage_words(fw.func, fw.stage)
                    << " has " << fused[j].var << " at position " << j << " but "
                    << stage_words(name, k) << " has "
                    << (mine ? "\"" + mine->var + "\"" : std::string("no loop")) << " there. "
                    << "Split, reorder and rename the two stages' loops alike.";
                user_assert(mine->for_type == fused[j].for_type)
                    << what << ": the loop " << fused[j].var << " is " << to_string(mine->for_type)
                    << " in " << stage_words(name, k) << " but " << to_string(fused[j].for_type)
                    << " in " << stage_words(fw.func, fw.stage)
                    << "; a fused loop has one kind. Schedule it alike in both.";
                user_assert(mine->for_type != ForType::GPUBlock &&
                            mine->for_type != ForType::GPUThread && mine->for_type != ForType::NPU)
                    << what << ": the loop " << fused[j].var << " is a GPU or NPU loop; "
                    << "compute_with fuses CPU loops only. Fuse at a loop outside the kernel.";
            }
            // A Func computed or stored at a fused loop outside the innermost one would sit
            // between the loops that must be merged.
            for (const std::string &other : env.order) {
                const auto &sched = env.func(other).schedule();
                for (const schedule::LoopLevel *level :
                     {&sched.compute_level, &sched.store_level}) {
                    bool here = level->in_stage(name, k) || level->in_stage(fw.func, fw.stage);
                    if (!here || level->var == fw.var) continue;
                    for (const schedule::Dim &d : fused) {
                        user_assert(d.var != level->var && level->var != schedule::kOutermost)
                            << what << ": \"" << other << "\" is computed or stored at "
                            << level->to_string() << ", a fused loop outside " << fw.var
                            << ", where the two stages' loops are merged. Place it at " << fw.var
                            << " or a loop inside, or fuse at " << level->var << ".";
                    }
                }
            }
        }
    }
    env.fused.clear();
    for (const std::set<std::string> &group : compute_with_groups(env)) {
        std::vector<std::string> members;
        for (const std::string &n : env.order) {
            if (group.count(n)) members.push_back(n);
        }
        for (const std::string &n : members)
            env.fused[n] = members;
    }
}

std::set<std::string> fused_loops(const Environment &env, const Function &f, int stage) {
    std::set<std::string> loops;
    if (!env.fused.count(f.name())) return loops;
    auto add = [&](const Function &parent, int parent_stage, const std::string &var) {
        for (const schedule::Dim &d : outer_loops(parent.stage(parent_stage).schedule.dims, var))
            loops.insert(d.var);
    };
    const auto &mine = fused_with(f, stage);
    if (!mine.func.empty()) add(env.func(mine.func), mine.stage, mine.var);
    for (const std::string &other : env.fused.at(f.name())) {
        const Function &g = env.func(other);
        for (int k = 0; k < g.stages(); k++) {
            const auto &fw = fused_with(g, k);
            if (fw.func == f.name() && fw.stage == stage) add(f, stage, fw.var);
        }
    }
    return loops;
}

Stmt fused_group_stages(const Environment &env, const std::string &f_name,
                        const std::function<Stmt(const Function &, int)> &stage_nest) {
    const std::vector<std::string> &members = env.fused.at(f_name);
    struct Node {
        std::string func;
        int stage;
        int parent = -1;
        std::vector<int> children;
    };
    std::vector<Node> nodes;
    std::map<std::pair<std::string, int>, int> id;
    for (const std::string &m : members) {
        for (int k = 0; k < env.func(m).stages(); k++) {
            id[{m, k}] = static_cast<int>(nodes.size());
            nodes.push_back({m, k, -1, {}});
        }
    }
    for (Node &n : nodes) {
        const auto &fw = fused_with(env.func(n.func), n.stage);
        if (fw.func.empty()) continue;
        n.parent = id.at({fw.func, fw.stage});
        nodes[n.parent].children.push_back(id.at({n.func, n.stage}));
    }
    // Each stage belongs to the unit of the stage at the root of its fusion tree.
    std::vector<int> unit(nodes.size());
    for (size_t i = 0; i < nodes.size(); i++) {
        int r = static_cast<int>(i);
        for (size_t steps = 0; nodes[r].parent >= 0; steps++) {
            user_assert(steps <= nodes.size())
                << "compute_with: the stages of " << stage_words(nodes[i].func, nodes[i].stage)
                << " and the stages it is fused with form a cycle (each fused with the next). "
                << "Fuse them all with one stage instead.";
            r = nodes[r].parent;
        }
        unit[i] = r;
    }
    // The units in an order that keeps each Func's stages in order: a unit runs once every
    // earlier stage of each of its Funcs has run (in an earlier unit).
    std::vector<int> order;
    std::vector<bool> placed(nodes.size(), false);
    std::vector<int> roots;
    for (size_t i = 0; i < nodes.size(); i++) {
        if (unit[i] == static_cast<int>(i)) roots.push_back(static_cast<int>(i));
    }
    auto ready = [&](int root) {
        for (size_t i = 0; i < nodes.size(); i++) {
            if (unit[i] != root) continue;
            for (int k = 0; k < nodes[i].stage; k++) {
                int earlier = id.at({nodes[i].func, k});
                if (unit[earlier] != root && !placed[unit[earlier]]) return false;
            }
        }
        return true;
    };
    while (order.size() < roots.size()) {
        bool progress = false;
        for (int r : roots) {
            if (placed[r] || !ready(r)) continue;
            placed[r] = true;
            order.push_back(r);
            progress = true;
            break;
        }
        user_assert(progress) << "compute_with: the stages of the Funcs fused with \"" << f_name
                              << "\" cannot run in an order that keeps each Func's updates in "
                              << "order (a stage of one Func is fused with an earlier stage of "
                              << "another, and the other way round). Fuse the stages in the "
                              << "same order in both Funcs.";
    }
    // Within a tree, the fused stages run after the stage they are fused with, in stage order.
    std::function<Stmt(int)> build = [&](int n) -> Stmt {
        const Node &node = nodes[n];
        const Function &f = env.func(node.func);
        Stmt s = stage_nest(f, node.stage);
        std::vector<int> children = node.children;
        std::sort(children.begin(), children.end());
        for (int c : children) {
            const Function &g = env.func(nodes[c].func);
            const auto &fw = fused_with(g, nodes[c].stage);
            std::vector<FusedLevel> levels;
            for (const schedule::Dim &d : outer_loops(f.stage(node.stage).schedule.dims, fw.var)) {
                auto a = fw.align.find(d.var);
                LoopAlignStrategy align = a != fw.align.end() ? a->second : fw.other;
                if (align == LoopAlignStrategy::Auto) align = LoopAlignStrategy::NoAlign;
                levels.push_back({names::stage_var(f.name(), node.stage, d.var),
                                  names::stage_var(g.name(), nodes[c].stage, d.var), align});
            }
            std::string what = stage_words(g.name(), nodes[c].stage) + ", compute_with(" +
                               stage_call(f.name(), node.stage) + ", " + fw.var + ")";
            if (levels.empty()) {
                s = Block::make(s, build(c));
                continue;
            }
            s = fuse_nests(s, build(c), levels, 0, make_bool(true), make_bool(true), what, f.name(),
                           g.name());
        }
        return s;
    };
    std::vector<Stmt> units;
    for (int r : order)
        units.push_back(build(r));
    return Block::make(units);
}

}  // namespace dsl::lowering
