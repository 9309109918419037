#include "lowering/Prefetches.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Names.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"
#include "lowering/ScheduleFunctions.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;

namespace {

/// Bytes the prefetch of one address brings in.
constexpr int kCacheLineBytes = 64;

/// A call of `target` (a Func or an input) somewhere in the pipeline's definitions, to copy the
/// callee from.
class FindCall : public IRVisitor {
  public:
    explicit FindCall(const std::string &target) : target_(target) {}
    const Call *found = nullptr;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (!found && op->name == target_ &&
            (op->call_type == Call::CallType::Image || op->call_type == Call::CallType::Func)) {
            found = op;
        }
        IRVisitor::visit(op);
    }

  private:
    const std::string &target_;
};

const Call *a_call_of(const Environment &env, const std::string &target) {
    FindCall find(target);
    for (const auto &entry : env.funcs) {
        const Function &g = entry.second;
        for (int s = 0; s < g.stages() && !find.found; s++) {
            const lang::Definition &d = g.stage(s);
            for (const Expr &e : d.args)
                find.include(e);
            for (const Expr &e : d.values)
                find.include(e);
            if (d.predicate.defined()) find.include(d.predicate);
        }
    }
    return find.found;
}

/// What one iteration of the loop reads of a Func or input: `reads` (directly, or through the
/// Funcs computed inside the loop), and through the Funcs computed further out whose values it
/// reads, over what it reads of those.
class Footprint {
  public:
    Footprint(const Environment &env, const std::string &consumer,
              const std::vector<std::string> &inside,
              const std::function<Box(const std::string &)> &reads)
        : env_(env), consumer_(consumer), inside_(inside.begin(), inside.end()), reads_(reads) {}

    Box of(const std::string &callee) {
        auto known = memo_.find(callee);
        if (known != memo_.end()) return known->second;
        Box box = reads_(callee);
        for (const std::string &name : env_.order) {
            if (name == callee || name == consumer_ || inside_.count(name)) continue;
            const Function &g = env_.func(name);
            // A Func with updates computes its points in several passes; which of them a
            // region of its output needs is not a box of its loops.
            if (g.stages() != 1 || box_of_calls(g, 0, callee).empty()) continue;
            Box needed = of(name);
            if (!needed.empty()) merge_boxes(box, read_over(g, needed, callee));
        }
        memo_[callee] = box;
        return box;
    }

  private:
    /// What the points `needed` of `g` (a Func without updates) read of `callee`: its loops'
    /// bounds are exactly that region. (Not the bounds lowering gives its loops where it is
    /// computed: in the enclosing iteration those cover what that iteration computes, which a
    /// later iteration's needs can pass.)
    static Box read_over(const Function &g, const Box &needed, const std::string &callee) {
        std::map<std::string, Expr> bounds;
        for (size_t a = 0; a < needed.size(); a++) {
            std::string loop = names::stage_var(g.name(), 0, g.args()[a]);
            bounds[names::min_of(loop)] = needed[a].min;
            bounds[names::max_of(loop)] = needed[a].max;
        }
        Box box = box_of_calls(g, 0, callee);
        require_bounded(box, callee, g.name());
        for (Interval &i : box) {
            i.min = simplify(substitute(bounds, i.min));
            i.max = simplify(substitute(bounds, i.max));
        }
        return box;
    }

    const Environment &env_;
    const std::string &consumer_;
    std::set<std::string> inside_;
    const std::function<Box(const std::string &)> &reads_;
    std::map<std::string, Box> memo_;
};

std::string strategy_name(PrefetchBoundStrategy s) {
    return s == PrefetchBoundStrategy::Clamp ? "Clamp" : "GuardWithIf";
}

/// "Func "f" update 0 prefetches "in" at its loop "xo"", for errors.
std::string describe(const Function &f, int stage, const schedule::Prefetch &p) {
    return "Func \"" + f.name() + "\"" + (stage ? " update " + std::to_string(stage - 1) : "") +
           " prefetches \"" + p.target + "\" at its loop \"" + p.at + "\"";
}

}  // namespace

void check_prefetches(const Function &f, int stage, const schedule::StageSchedule &schedule) {
    if (schedule.prefetches.empty()) return;  // every stage of every pipeline comes through here
    const std::vector<schedule::Dim> &dims = schedule.dims;
    auto position = [&](const std::string &var) {
        for (size_t i = 0; i < dims.size(); i++) {
            if (dims[i].var == var) return static_cast<int>(i);
        }
        return -1;
    };
    std::string loops;
    for (const schedule::Dim &dim : dims)
        loops += (loops.empty() ? "" : ", ") + dim.var;
    for (const schedule::Prefetch &p : schedule.prefetches) {
        const std::string where = describe(f, stage, p);
        int at = position(p.at), from = position(p.from);
        user_assert(at >= 0 && from >= 0)
            << where << " for iterations of \"" << p.from << "\", but after the directives that "
            << "followed the prefetch it has no loop \"" << (at < 0 ? p.at : p.from)
            << "\". Its loops, innermost first, are: " << loops
            << ". Give the prefetch after the loops are made.";
        user_assert(from >= at) << where << ", inside the loop \"" << p.from
                                << "\" it counts iterations of, but a later reorder put \""
                                << p.from
                                << "\" inside it. Its loops, innermost first, are: " << loops
                                << ".";
        for (size_t q = static_cast<size_t>(at); q < dims.size(); q++) {
            user_assert(dims[q].for_type != ForType::Vectorized)
                << where << ", but that loop " << (static_cast<int>(q) == at ? "is" : "is inside")
                << " the vectorized loop \"" << dims[q].var
                << "\". Prefetch at a loop outside the vectorized ones.";
        }
    }
}

Stmt prefetches_at(const Environment &env, const Function &f, int stage,
                   const std::vector<schedule::Prefetch> &prefetches, const std::string &var,
                   const std::vector<std::string> &inside,
                   const std::function<Box(const std::string &)> &reads,
                   std::map<std::string, std::string> &notes) {
    Footprint footprint(env, f.name(), inside, reads);
    const std::string loop = names::stage_var(f.name(), stage, var);
    std::vector<Stmt> result;
    for (size_t index = 0; index < prefetches.size(); index++) {
        const schedule::Prefetch &p = prefetches[index];
        if (p.at != var) continue;
        const std::string where = describe(f, stage, p);
        const Call *call = a_call_of(env, p.target);
        user_assert(call) << where << ", but the pipeline never reads \"" << p.target
                          << "\" (a Func that is inlined has no storage to prefetch: compute it "
                             "at root or at a loop, or prefetch what it reads).";
        for (const std::string &name : inside) {
            user_assert(name != p.target)
                << where << ", but \"" << p.target
                << "\" is computed inside that loop: each iteration writes the data it then "
                   "reads. Prefetch what \""
                << p.target << "\" reads instead, or compute it further out.";
        }
        Box box = footprint.of(p.target);
        user_assert(!box.empty()) << where << ", but one iteration of that loop reads nothing of \""
                                  << p.target
                                  << "\", directly or through the Funcs it reads. Place the "
                                     "prefetch at a loop that reads it.";
        require_bounded(box, p.target, f.name());

        // The region `offset` iterations of `from` further on.
        const std::string from = names::stage_var(f.name(), stage, p.from);
        Expr moved = Variable::make(Int(32), from) + p.offset;
        const std::string base = loop + ".prefetch" + std::to_string(index);
        const bool is_func = call->call_type == Call::CallType::Func;
        const int dims = static_cast<int>(box.size());
        std::vector<std::pair<std::string, Expr>> lets;
        std::vector<Expr> lo(box.size()), hi(box.size());
        Expr nonempty = make_bool(true);
        for (int d = 0; d < dims; d++) {
            Expr data_min, data_extent;
            if (is_func && env.is_output(p.target)) {
                // An output's storage is its buffer (a Tuple's are all of the same shape).
                std::string buffer = names::func_buffer(p.target, 0, env.func(p.target).outputs());
                data_min = Variable::make(Int(32), names::buffer_min(buffer, d));
                data_extent = Variable::make(Int(32), names::buffer_extent(buffer, d));
            } else if (is_func) {
                const std::string &arg = env.func(p.target).args()[static_cast<size_t>(d)];
                data_min = Variable::make(Int(32), names::realized_min(p.target, arg));
                data_extent = Variable::make(Int(32), names::realized_extent(p.target, arg));
            } else {
                data_min = Variable::make(Int(32), names::buffer_min(p.target, d));
                data_extent = Variable::make(Int(32), names::buffer_extent(p.target, d));
            }
            Expr data_max = data_min + data_extent - 1;
            Expr first = substitute(from, moved, box[static_cast<size_t>(d)].min);
            Expr last = substitute(from, moved, box[static_cast<size_t>(d)].max);
            if (p.strategy == PrefetchBoundStrategy::Clamp) {
                first = max(first, data_min);
                last = min(last, data_max);
            } else {
                nonempty = nonempty && data_min <= first && last <= data_max;
            }
            std::string d_name = base + ".d" + std::to_string(d);
            lets.emplace_back(d_name + ".lo", simplify(first));
            lets.emplace_back(d_name + ".hi", simplify(last));
            lo[static_cast<size_t>(d)] = Variable::make(Int(32), d_name + ".lo");
            hi[static_cast<size_t>(d)] = Variable::make(Int(32), d_name + ".hi");
            nonempty = nonempty && lo[static_cast<size_t>(d)] <= hi[static_cast<size_t>(d)];
        }

        // Along the innermost dimension a cache line at a time, then its last element (the
        // first one's line need not start the region, so the lines from it may stop short).
        std::vector<Expr> coords(box.size());
        for (int d = 1; d < dims; d++)
            coords[static_cast<size_t>(d)] =
                Variable::make(Int(32), base + ".d" + std::to_string(d));
        const int line = std::max(1, kCacheLineBytes / call->type.element_of().bytes());
        auto fetch = [&](const Expr &x) {
            coords[0] = x;
            int outputs = is_func ? env.func(p.target).outputs() : 1;
            std::vector<Stmt> each;
            for (int i = 0; i < outputs; i++) {
                Type t = is_func ? env.func(p.target).output_types()[static_cast<size_t>(i)]
                                 : call->type;
                Expr element = Call::make(t, p.target, coords, call->call_type, i, call->func,
                                          call->param, call->image);
                each.push_back(
                    Evaluate::make(Call::make(Int(32), Call::Intrinsic::Prefetch, {element})));
            }
            return Block::make(each);
        };
        const std::string line_var = base + ".line";
        Stmt body = Block::make(
            For::make(line_var, 0, (hi[0] - lo[0]) / line + 1, ForType::Serial, DeviceAPI::None,
                      fetch(lo[0] + Variable::make(Int(32), line_var) * line)),
            fetch(hi[0]));
        for (int d = 1; d < dims; d++) {
            body = For::make(base + ".d" + std::to_string(d), lo[static_cast<size_t>(d)],
                             hi[static_cast<size_t>(d)] - lo[static_cast<size_t>(d)] + 1,
                             ForType::Serial, DeviceAPI::None, body);
        }
        body = For::make(base, 0, select(nonempty, 1, 0), ForType::Serial, DeviceAPI::None, body);
        result.push_back(wrap_lets(lets, body));

        std::ostringstream note;
        note << "prefetch " << p.target << " for " << p.from << " + " << simplify(p.offset) << " ("
             << strategy_name(p.strategy) << ")";
        notes[base] = note.str();
    }
    return result.empty() ? Stmt() : Block::make(result);
}

}  // namespace dsl::lowering
