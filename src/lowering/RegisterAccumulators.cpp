#include "lowering/RegisterAccumulators.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "ir/Simplify.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// An index as a sum of products of atoms (variables, and anything that is not +, -, or *)
/// with integer coefficients: (by * 64 + ty * 4 + 1) * stride becomes 64 by stride + 4 ty stride
/// + stride, so that two elements' difference is plain (stride, or 3 + 2 stride).
class Polynomial {
  public:
    /// Each product's atoms (by their printed form, sorted) and its coefficient.
    std::map<std::vector<std::string>, int64_t> terms;
    std::map<std::string, Expr> atoms;

    static Polynomial of(const Expr &e) {
        Polynomial p;
        if (auto c = as_const_int(e)) {
            p.terms[{}] = *c;
        } else if (const auto *add = e.as<Add>()) {
            p = of(add->a);
            p.add(of(add->b), 1);
        } else if (const auto *sub = e.as<Sub>()) {
            p = of(sub->a);
            p.add(of(sub->b), -1);
        } else if (const auto *mul = e.as<Mul>()) {
            p = of(mul->a).times(of(mul->b));
        } else {
            const std::string key = to_string(e);
            p.atoms[key] = e;
            p.terms[{key}] = 1;
        }
        return p;
    }
    void add(const Polynomial &q, int64_t sign) {
        for (const auto &[k, c] : q.terms)
            terms[k] += sign * c;
        atoms.insert(q.atoms.begin(), q.atoms.end());
    }
    Polynomial times(const Polynomial &q) const {
        Polynomial r;
        for (const auto &[ka, ca] : terms) {
            for (const auto &[kb, cb] : q.terms) {
                std::vector<std::string> k = ka;
                k.insert(k.end(), kb.begin(), kb.end());
                std::sort(k.begin(), k.end());
                r.terms[k] += ca * cb;
            }
        }
        r.atoms = atoms;
        r.atoms.insert(q.atoms.begin(), q.atoms.end());
        return r;
    }
    /// The constant term, if that is all there is.
    std::optional<int64_t> constant() const {
        int64_t value = 0;
        for (const auto &[k, c] : terms) {
            if (c == 0) continue;
            if (!k.empty()) return std::nullopt;
            value = c;
        }
        return value;
    }
    Expr to_expr(Type t) const {
        Expr sum;
        for (const auto &[k, c] : terms) {
            if (c == 0) continue;
            Expr term = make_const(t, c);
            for (const std::string &atom : k)
                term = is_const_one(term) ? atoms.at(atom) : term * atoms.at(atom);
            sum = sum.defined() ? sum + term : term;
        }
        return sum.defined() ? sum : make_zero(t);
    }
};

/// Where an element is accessed: its index and the conditions of the ifs around the access,
/// outermost first.
struct Site {
    Expr index;
    std::vector<Expr> conditions;
    Type type;
};

bool same_conditions(const std::vector<Expr> &a, const std::vector<Expr> &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++)
        if (!equal(a[i], b[i])) return false;
    return true;
}

/// The accesses of a loop body, by buffer, and whether the body has a shape this pass keeps to:
/// straight-line code (lets, ifs, stores) with no loop, allocation, side effect or atomic.
class Accesses : public IRVisitor {
  public:
    explicit Accesses(const std::string &loop) { inner_.insert(loop); }

    bool simple = true;
    std::map<std::string, std::vector<Site>> stores, loads;
    /// The conditions of the ifs without an else that do not change in the loop.
    std::vector<Expr> invariant_ifs;
    std::set<std::string> unsuitable;  // buffers with an access this pass cannot keep

  private:
    std::set<std::string> inner_;  // the loop's variable and the lets inside
    std::vector<Expr> conditions_;

    bool invariant(const Expr &e) const {
        for (const std::string &name : inner_)
            if (expr_uses_var(e, name)) return false;
        return true;
    }
    /// The conditions around an access that do not change in the loop. (Those that do, a
    /// where() of the RDom, choose iterations, not elements: the element an access names at a
    /// fixed index is inside its buffer in every iteration or in none.)
    std::vector<Expr> invariant_conditions() const {
        std::vector<Expr> fixed;
        for (const Expr &c : conditions_)
            if (invariant(c)) fixed.push_back(c);
        return fixed;
    }

    using IRVisitor::visit;
    void visit(const For *) override { simple = false; }
    void visit(const Allocate *) override { simple = false; }
    void visit(const Atomic *) override { simple = false; }
    void visit(const Realize *) override { simple = false; }
    void visit(const Provide *) override { simple = false; }
    void visit(const AssertStmt *) override { simple = false; }
    void visit(const Call *op) override {
        if (!op->is_pure()) simple = false;
        IRVisitor::visit(op);
    }
    void visit(const LetStmt *op) override {
        include(op->value);
        inner_.insert(op->name);
        include(op->body);
    }
    void visit(const Let *op) override {
        include(op->value);
        inner_.insert(op->name);
        include(op->body);
    }
    void visit(const IfThenElse *op) override {
        if (!op->else_case.defined() && invariant(op->condition)) {
            bool seen = false;
            for (const Expr &c : invariant_ifs)
                seen |= equal(c, op->condition);
            if (!seen) invariant_ifs.push_back(op->condition);
        }
        include(op->condition);
        conditions_.push_back(op->condition);
        include(op->then_case);
        conditions_.pop_back();
        if (op->else_case.defined()) {
            conditions_.push_back(!op->condition);
            include(op->else_case);
            conditions_.pop_back();
        }
    }
    void visit(const Select *op) override {
        // A load in one side of a select may be out of the buffer where the other is taken.
        include(op->condition);
        conditions_.push_back(op->condition);
        include(op->true_value);
        conditions_.pop_back();
        conditions_.push_back(!op->condition);
        include(op->false_value);
        conditions_.pop_back();
    }
    void record(const std::string &name, const Type &t, const Expr &index, const Expr &predicate,
                std::map<std::string, std::vector<Site>> &into) {
        if (!t.is_scalar() || !is_const_true(predicate) || !invariant(index)) {
            unsuitable.insert(name);
            return;
        }
        into[name].push_back({index, invariant_conditions(), t});
    }
    void visit(const Load *op) override {
        IRVisitor::visit(op);
        record(op->name, op->type, op->index, op->predicate, loads);
    }
    void visit(const Store *op) override {
        IRVisitor::visit(op);
        record(op->name, op->value.type(), op->index, op->predicate, stores);
    }
};

/// Whether two indices name one element.
bool same_element(const Expr &a, const Expr &b) {
    return equal(a, b) || is_const_zero(simplify(a - b));
}

/// The position in `sites` of the element `index` names, or -1.
int element_of(const std::vector<Site> &sites, const Expr &index) {
    for (size_t k = 0; k < sites.size(); k++)
        if (same_element(sites[k].index, index)) return static_cast<int>(k);
    return -1;
}

/// All of `conditions` (undefined for none).
Expr conjunction(const std::vector<Expr> &conditions) {
    Expr all;
    for (const Expr &c : conditions)
        all = all.defined() ? (all && c) : c;
    return all;
}

Stmt guarded(const std::vector<Expr> &conditions, const Stmt &s) {
    Expr all = conjunction(conditions);
    return all.defined() ? IfThenElse::make(all, s) : s;
}

/// The elements a loop's `stores` and `loads` of one buffer touch, one Site each (the first
/// access's), where the pass can keep them: every access of an element under the same fixed
/// conditions (so that the element is read before the loop wherever the loop reads it), and
/// every load of an element the loop stores.
std::optional<std::vector<Site>> kept_elements(const std::vector<Site> &stores,
                                               const std::vector<Site> &loads) {
    std::vector<Site> kept;
    for (const Site &site : stores) {
        int k = element_of(kept, site.index);
        if (k < 0) {
            kept.push_back(site);
        } else if (!same_conditions(kept[static_cast<size_t>(k)].conditions, site.conditions)) {
            return std::nullopt;
        }
    }
    for (const Site &site : loads) {
        int k = element_of(kept, site.index);
        if (k < 0 || !same_conditions(kept[static_cast<size_t>(k)].conditions, site.conditions))
            return std::nullopt;
    }
    return kept;
}

/// What must hold at run time for the `kept` elements to be distinct, each difference tested
/// once (true when the differences are constants); none where two are provably the same.
std::optional<Expr> distinct_at_run_time(const std::vector<Site> &kept) {
    std::vector<Polynomial> indices;
    for (const Site &k : kept)
        indices.push_back(Polynomial::of(k.index));
    std::vector<Expr> tests;
    for (size_t i = 0; i < kept.size(); i++) {
        for (size_t j = i + 1; j < kept.size(); j++) {
            Polynomial d = indices[i];
            d.add(indices[j], -1);
            if (auto c = d.constant()) {
                if (*c == 0) return std::nullopt;  // the same element, written differently
                continue;
            }
            // d and -d test the same thing: keep the one whose first coefficient is positive.
            for (const auto &[k, c] : d.terms) {
                if (c == 0) continue;
                if (c < 0) {
                    Polynomial negated;
                    negated.add(d, -1);
                    d = negated;
                }
                break;
            }
            Expr test = simplify(d.to_expr(kept[i].index.type()) != 0);
            if (std::none_of(tests.begin(), tests.end(),
                             [&](const Expr &t) { return equal(t, test); }))
                tests.push_back(test);
        }
    }
    Expr all = conjunction(tests);
    return all.defined() ? all : make_bool(true);
}

/// Points the loads and stores of `buffer` at the kept elements' slots of `local`.
class ToLocal : public IRMutator {
  public:
    ToLocal(const std::string &buffer, const std::string &local, const std::vector<Site> &kept)
        : buffer_(buffer), local_(local), kept_(kept) {}

  private:
    const std::string &buffer_, &local_;
    const std::vector<Site> &kept_;

    Expr slot(const Expr &index) const {
        int k = element_of(kept_, index);
        internal_assert(k >= 0) << "a kept element of " << buffer_ << " has no slot";
        return Expr(k);
    }
    using IRMutator::visit;
    Expr visit(const Load *op) override {
        if (op->name != buffer_) return IRMutator::visit(op);
        return Load::make(op->type, local_, slot(op->index), op->predicate);
    }
    Stmt visit(const Store *op) override {
        if (op->name != buffer_) return IRMutator::visit(op);
        return Store::make(local_, mutate(op->value), slot(op->index), op->predicate);
    }
};

/// The body with the ifs on `conditions` (which hold) left out.
class DropIfs : public IRMutator {
  public:
    explicit DropIfs(const std::vector<Expr> &conditions) : conditions_(conditions) {}

  private:
    const std::vector<Expr> &conditions_;
    using IRMutator::visit;
    Stmt visit(const IfThenElse *op) override {
        if (!op->else_case.defined()) {
            for (const Expr &c : conditions_)
                if (equal(c, op->condition)) return mutate(op->then_case);
        }
        return IRMutator::visit(op);
    }
};

/// The most elements kept per buffer: a tile of accumulators, not an array.
constexpr size_t kMaxKept = 64;

class KeepAccumulators : public IRMutator {
    using IRMutator::visit;
    int counter_ = 0;
    int threads_ = 0;  // GPU thread loops around

    Stmt visit(const For *op) override {
        if (op->for_type == ForType::GPUThread) {
            threads_++;
            Stmt s = IRMutator::visit(op);
            threads_--;
            return s;
        }
        Stmt s = IRMutator::visit(op);
        op = s.as<For>();
        // Only inside a GPU kernel's threads for now (storage at a kernel's block level is the
        // block's shared memory, not a thread's registers; CPU loops are left to LLVM, which
        // keeps a tile in registers where the tile is an allocation of constant strides).
        if (!op || op->for_type != ForType::Serial || threads_ == 0) return s;
        Accesses a(op->name);
        a.include(op->body);
        if (!a.simple) return s;
        Stmt loop = s;
        Expr distinct = op->extent > 0;
        std::vector<Stmt> reads, writes;
        struct Local {
            std::string name;
            Type type;
            int size;
        };
        std::vector<Local> locals;
        for (const auto &[buffer, stores] : a.stores) {
            if (a.unsuitable.count(buffer)) continue;
            auto loads = a.loads.find(buffer);
            auto kept =
                kept_elements(stores, loads == a.loads.end() ? std::vector<Site>() : loads->second);
            if (!kept || kept->size() > kMaxKept) continue;
            auto differ = distinct_at_run_time(*kept);
            if (!differ) continue;
            distinct = distinct && *differ;
            const std::vector<Site> &elements = *kept;
            const std::string local = buffer + ".accumulators." + std::to_string(counter_++);
            loop = ToLocal(buffer, local, elements).mutate(loop);
            for (size_t k = 0; k < elements.size(); k++) {
                const Site &e = elements[k];
                Expr slot(static_cast<int>(k)), always = make_bool(true);
                reads.push_back(guarded(
                    e.conditions,
                    Store::make(local, Load::make(e.type, buffer, e.index, always), slot, always)));
                writes.push_back(guarded(
                    e.conditions,
                    Store::make(buffer, Load::make(e.type, local, slot, always), e.index, always)));
            }
            locals.push_back({local, elements.front().type, static_cast<int>(elements.size())});
        }
        if (locals.empty()) return s;
        Stmt kept_loop = Block::make({Block::make(reads), loop, Block::make(writes)});
        // Where every if in the loop that does not change holds (a thread's whole tile is
        // inside the output), the loop runs without them: straight-line code.
        if (Expr all = conjunction(a.invariant_ifs); all.defined())
            kept_loop =
                IfThenElse::make(all, DropIfs(a.invariant_ifs).mutate(kept_loop), kept_loop);
        for (const Local &local : locals) {
            kept_loop = Allocate::make(local.name, local.type, MemoryType::Stack,
                                       {Expr(local.size)}, make_bool(true), kept_loop);
        }
        distinct = simplify(distinct);
        return is_const_true(distinct) ? kept_loop : IfThenElse::make(distinct, kept_loop, s);
    }
};

}  // namespace

Stmt keep_accumulators_in_registers(const Stmt &s) {
    return KeepAccumulators().mutate(s);
}

}  // namespace dsl::lowering
