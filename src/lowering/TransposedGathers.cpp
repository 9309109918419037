#include "lowering/TransposedGathers.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "lowering/UnrollLoops.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Whether `op` is a gather this pass can take part of a block of: see the header.
bool is_candidate(const Load *op) {
    const auto *ramp = op->index.as<Ramp>();
    if (!ramp || !is_const_true(op->predicate) || !ramp->base.type().is_scalar()) return false;
    const int lanes = ramp->lanes;
    if (lanes < 4 || (lanes & (lanes - 1)) != 0) return false;
    if (auto stride = as_const_int(ramp->stride)) return std::llabs(*stride) >= lanes;
    return true;
}

/// The candidate loads of one buffer at one stride and lane count whose bases differ from the
/// first one's by constants, by that difference.
struct Group {
    const Load *first = nullptr;
    std::map<int64_t, std::vector<const Load *>> by_offset;

    const Ramp *ramp() const { return first->index.as<Ramp>(); }
    int lanes() const { return ramp()->lanes; }
    /// The lowest offsets of whole blocks (lanes() consecutive offsets each), from the lowest
    /// offset up; offsets that no whole block takes are left out.
    std::vector<int64_t> blocks() const {
        std::vector<int64_t> offsets, starts;
        for (const auto &entry : by_offset)
            offsets.push_back(entry.first);
        const size_t n = static_cast<size_t>(lanes());
        for (size_t i = 0; i + n <= offsets.size();) {
            // The offsets are sorted and distinct: n of them from offsets[i] are consecutive
            // exactly when the last is offsets[i] + n - 1.
            if (offsets[i + n - 1] == offsets[i] + static_cast<int64_t>(n) - 1) {
                starts.push_back(offsets[i]);
                i += n;
            } else {
                i++;
            }
        }
        return starts;
    }
};

/// The candidate loads in the values of a run of stores, grouped. A load whose index uses a
/// name a Let inside the run binds cannot move ahead of the run, and is left out.
class FindGroups : public IRVisitor {
  public:
    std::vector<Group> groups;

  protected:
    using IRVisitor::visit;
    std::vector<std::string> bound;

    void visit(const Let *op) override {
        include(op->value);
        bound.push_back(op->name);
        include(op->body);
        bound.pop_back();
    }

    void visit(const Load *op) override {
        IRVisitor::visit(op);
        if (!is_candidate(op)) return;
        for (const std::string &n : free_names(op->index, false)) {
            if (std::find(bound.begin(), bound.end(), n) != bound.end()) return;
        }
        const Ramp *ramp = op->index.as<Ramp>();
        for (Group &g : groups) {
            const Load *f = g.first;
            if (f->name != op->name || f->type != op->type || g.lanes() != ramp->lanes ||
                !equal(g.ramp()->stride, ramp->stride)) {
                continue;
            }
            if (auto offset = as_const_int(simplify(ramp->base - g.ramp()->base))) {
                g.by_offset[*offset].push_back(op);
                return;
            }
        }
        Group g;
        g.first = op;
        g.by_offset[0].push_back(op);
        groups.push_back(std::move(g));
    }
};

/// Replaces the given loads (the very nodes) by their expressions.
class ReplaceLoads : public IRMutator {
  public:
    explicit ReplaceLoads(const std::map<const Load *, Expr> &r) : replacement(r) {}

  protected:
    using IRMutator::visit;
    const std::map<const Load *, Expr> &replacement;

    Expr visit(const Load *op) override {
        auto found = replacement.find(op);
        return found != replacement.end() ? found->second : IRMutator::visit(op);
    }
};

class TransposedGathers : public IRMutator {
  protected:
    using IRMutator::visit;
    int next_block = 0;  // numbers the blocks, for the names of their lets

    static void flatten(const Stmt &s, std::vector<Stmt> &out) {
        if (const auto *b = s.as<Block>()) {
            flatten(b->first, out);
            flatten(b->rest, out);
        } else if (s.defined()) {
            out.push_back(s);
        }
    }

    /// `lets` gets the dense loads and the transposition's stages of the block of `g` from
    /// offset `start`; returns the rows of the transposed block (row k replaces the loads at
    /// offset start + k).
    std::vector<Expr> transpose(const Group &g, int64_t start,
                                std::vector<std::pair<std::string, Expr>> &lets) {
        const int lanes = g.lanes();
        const Ramp *ramp = g.ramp();
        const Expr base = simplify(ramp->base + make_const(Int(32), start));
        const std::string prefix = g.first->name + ".transposed" + std::to_string(next_block++);
        std::vector<Expr> rows;
        for (int j = 0; j < lanes; j++) {
            // Row j of the block: the elements lane j of every gather reads.
            Expr index = Ramp::make(simplify(base + ramp->stride * j), 1, lanes);
            Expr row = Load::make(g.first->type, g.first->name, index, const_true(lanes));
            const std::string name = prefix + ".row" + std::to_string(j);
            lets.emplace_back(name, row);
            rows.push_back(Variable::make(row.type(), name));
        }
        // Each stage swaps the off-diagonal b x b blocks within every 2b x 2b block: swapping
        // the bit b of the row with that of the lane, for b = n/2 down to 1, transposes.
        for (int b = lanes / 2, stage = 0; b >= 1; b /= 2, stage++) {
            std::vector<int> upper(lanes), lower(lanes);
            for (int l = 0; l < lanes; l++) {
                const bool right = (l & b) != 0;
                upper[l] = right ? lanes + l - b : l;
                lower[l] = right ? lanes + l : l + b;
            }
            std::vector<Expr> next(lanes);
            for (int r = 0; r < lanes; r++) {
                if (r & b) continue;
                const int r1 = r | b;
                for (int which = 0; which < 2; which++) {
                    Expr shuffled = Shuffle::make({rows[r], rows[r1]}, which == 0 ? upper : lower);
                    const int out = which == 0 ? r : r1;
                    const std::string name =
                        prefix + ".s" + std::to_string(stage) + "." + std::to_string(out);
                    lets.emplace_back(name, shuffled);
                    next[out] = Variable::make(shuffled.type(), name);
                }
            }
            rows = std::move(next);
        }
        return rows;
    }

    /// The run of stores rewritten, or undefined when it holds no block.
    Stmt rewrite(const std::vector<Stmt> &run) {
        FindGroups find;
        std::set<std::string> written;
        for (const Stmt &s : run) {
            const auto *store = s.as<Store>();
            written.insert(store->name);
            find.include(store->value);
        }
        std::map<const Load *, Expr> replacement;
        std::vector<std::pair<std::string, Expr>> lets;
        for (const Group &g : find.groups) {
            if (written.count(g.first->name)) continue;
            for (int64_t start : g.blocks()) {
                std::vector<Expr> rows = transpose(g, start, lets);
                for (int k = 0; k < g.lanes(); k++) {
                    for (const Load *load : g.by_offset.at(start + k))
                        replacement[load] = rows[static_cast<size_t>(k)];
                }
            }
        }
        if (replacement.empty()) return Stmt();
        ReplaceLoads replace(replacement);
        std::vector<Stmt> stores;
        for (const Stmt &s : run) {
            const auto *store = s.as<Store>();
            stores.push_back(Store::make(store->name, replace.mutate(store->value), store->index,
                                         store->predicate, store->alignment));
        }
        Stmt body = Block::make(stores);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            body = LetStmt::make(it->first, it->second, body);
        return body;
    }

    /// A serial loop of n iterations (or min(e, n): a split's guarded tail) storing one row of a
    /// tile per iteration, unrolled where its copies hold a block: the row loop of a transpose
    /// in tiles whose rows are vectors, tile(x, y, ..., n, n).vectorize(xi), reads a column of
    /// n input rows per iteration. With a guard, the loop stays as it is for the tiles where e
    /// is below n.
    Stmt visit(const For *op) override {
        Stmt loop = IRMutator::visit(op);
        const auto *for_loop = loop.as<For>();
        if (!for_loop || for_loop->for_type != ForType::Serial || !for_loop->body.as<Store>())
            return loop;
        std::optional<int64_t> count = as_const_int(for_loop->extent);
        Expr guard;
        if (const auto *m = for_loop->extent.as<Min>(); m && !count) {
            if ((count = as_const_int(m->b))) {
                guard = m->a >= m->b;
            } else if ((count = as_const_int(m->a))) {
                guard = m->b >= m->a;
            }
        }
        if (!count || *count < 4 || *count > 64 || (*count & (*count - 1)) != 0) return loop;
        // Unrolling to look costs a simplification per copy: first a gather that moves with the
        // loop.
        const std::string &var = for_loop->name;
        const bool moving_gather = any_load(for_loop->body.as<Store>()->value, [&](const Load *l) {
            const std::vector<std::string> names = free_names(l->index, false);
            return is_candidate(l) && std::find(names.begin(), names.end(), var) != names.end();
        });
        if (!moving_gather) return loop;
        std::vector<Stmt> rows = iteration_copies(var, for_loop->min, *count, for_loop->body);
        for (Stmt &row : rows) {
            row = simplify(row);
            if (!row.as<Store>()) return loop;  // a store the simplifier removed
        }
        Stmt unrolled = rewrite(rows);
        if (!unrolled.defined()) return loop;
        return guard.defined() ? IfThenElse::make(guard, unrolled, loop) : unrolled;
    }

    Stmt visit(const Block *op) override {
        std::vector<Stmt> stmts;
        flatten(op, stmts);
        for (Stmt &s : stmts)
            s = mutate(s);
        std::vector<Stmt> out;
        for (size_t i = 0; i < stmts.size();) {
            size_t j = i;
            while (j < stmts.size() && stmts[j].as<Store>())
                j++;
            if (j - i >= 2) {
                std::vector<Stmt> run(stmts.begin() + static_cast<std::ptrdiff_t>(i),
                                      stmts.begin() + static_cast<std::ptrdiff_t>(j));
                Stmt rewritten = rewrite(run);
                if (rewritten.defined()) {
                    out.push_back(rewritten);
                } else {
                    out.insert(out.end(), run.begin(), run.end());
                }
                i = j;
            } else {
                out.push_back(stmts[i++]);  // not a store, or a single one
            }
        }
        return Block::make(out);
    }
};

}  // namespace

Stmt transpose_gathers(const Stmt &s) {
    return TransposedGathers().mutate(s);
}

}  // namespace dsl::lowering
