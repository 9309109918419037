#include "lowering/Memoization.h"

#include <functional>
#include <set>
#include <sstream>

#include "ir/Error.h"
#include "ir/FreeNames.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"
#include "lowering/ExternStages.h"
#include "lowering/InlineFunctions.h"

namespace dsl::lowering {

using namespace ir;
using lang::Definition;
using lang::Function;

namespace {

/// Every expression of a definition that its values depend on: its left side, values,
/// condition and domain (not its schedule or specializations, which lang::visit_definition
/// also walks: they change how the values are computed, not what they are).
void for_each_expr(const Definition &d, const std::function<void(const Expr &)> &f) {
    for (const Expr &a : d.args)
        f(a);
    for (const Expr &v : d.values)
        f(v);
    f(d.predicate);
    if (d.rdom.defined()) {
        for (const ReductionVariable &rv : d.rdom.domain()) {
            f(rv.min);
            f(rv.extent);
        }
    }
}

/// 64-bit FNV-1a, from a seed.
uint64_t hash_text(const std::string &text, uint64_t seed) {
    uint64_t h = seed;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

/// What a memoized Func's key holds: the Params and input shapes its definitions and those of
/// the Funcs it reads use (Variables with a Parameter), and memoize_tag's keys in place of what
/// the tagged result reads; with the definitions' text for the id.
class KeyCollector : public IRVisitor {
  public:
    KeyCollector(const Environment &env, const std::string &memoized)
        : env_(env), memoized_(memoized) {}

    std::vector<Expr> values;
    std::ostringstream text;

    void func(const Function &f) {
        if (!visited_.insert(f.name()).second) return;
        // The Func's own name is left out, so that a clone (a copy of its definition under
        // another name) shares its entries; the Funcs it reads are named, then described.
        text << (f.name() == memoized_ ? std::string("<self>") : f.name()) << "(";
        for (const std::string &a : f.args())
            text << a << ",";
        text << ")";
        for (const Type &t : f.output_types())
            text << " " << t;
        text << " extern " << f.contents().extern_function << "\n";
        for (int s = 0; s < f.stages(); s++) {
            definition_ = &f.stage(s);
            func_ = &f;
            for_each_expr(*definition_, [&](const Expr &e) {
                text << e << ";";
                include(e);
            });
            text << "\n";
        }
        // The Funcs it reads, after its own text (their names are in it).
        std::vector<std::string> callees(callees_.begin(), callees_.end());
        callees_.clear();
        for (const std::string &c : callees)
            func(env_.func(c));
    }

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->param.defined()) add(Expr(op));
    }
    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::Intrinsic::MemoizeTag)) {
            if (op->args.size() == 1) {
                check_key(op->args[0], op);
                add(op->args[0]);
            } else {
                for (size_t i = 1; i < op->args.size(); i++) {
                    check_key(op->args[i], op);
                    add(op->args[i]);
                }
            }
            return;
        }
        // An extern stage's bounds queries describe its region, not its values.
        if (op->is_intrinsic(Call::Intrinsic::ExternBoundsQuery)) return;
        if (op->call_type == Call::CallType::Func && env_.funcs.count(op->name)) {
            const std::string &name = op->name;
            if (name != memoized_ && !visited_.count(name)) callees_.insert(name);
        }
        IRVisitor::visit(op);
    }

  private:
    void add(const Expr &e) {
        for (const Expr &v : values) {
            if (equal(v, e)) return;
        }
        values.push_back(e);
    }
    /// A key must be computable where the Func is realized: none of the definition's Vars or
    /// RVars, and no Func or input read (which may not be there).
    void check_key(const Expr &key, const Call *tag) {
        user_assert(!any_call(key,
                              [](const Call *c) {
                                  return c->call_type == Call::CallType::Func ||
                                         c->call_type == Call::CallType::Image;
                              }))
            << "Func \"" << memoized_ << "\" is memoized, and the definition of Func \""
            << func_->name() << "\" has " << Expr(tag) << ", whose key " << key
            << " reads a Func or an input: the cache key is computed where \"" << memoized_
            << "\" is realized, before it. Give memoize_tag keys that use only Params (e.g. a "
               "version number: memoize_tag(value, version)) or constants.";
        std::set<std::string> vars(func_->args().begin(), func_->args().end());
        if (definition_->rdom.defined()) {
            for (const ReductionVariable &rv : definition_->rdom.domain())
                vars.insert(rv.var);
        }
        for (const std::string &n : free_names(key, false)) {
            user_assert(!vars.count(n))
                << "Func \"" << memoized_ << "\" is memoized, and the definition of Func \""
                << func_->name() << "\" has " << Expr(tag) << ", whose key " << key << " uses " << n
                << ": the cache key is computed where \"" << memoized_
                << "\" is realized, outside its loops. Give memoize_tag keys that use only "
                   "Params (e.g. memoize_tag(value, p)) or constants.";
        }
    }

    const Environment &env_;
    const std::string memoized_;
    const Definition *definition_ = nullptr;
    const Function *func_ = nullptr;
    std::set<std::string> visited_, callees_;
};

/// memoize_tag(value, ...) -> value.
class StripTags : public IRMutator {
  protected:
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->is_intrinsic(Call::Intrinsic::MemoizeTag)) return mutate(op->args[0]);
        return IRMutator::visit(op);
    }
};

void strip_tags(Definition &d) {
    StripTags strip;
    for (Expr &a : d.args)
        a = strip.mutate(a);
    for (Expr &v : d.values)
        v = strip.mutate(v);
    d.predicate = strip.mutate(d.predicate);
}

bool is_device(DeviceAPI api) {
    return api != DeviceAPI::None && api != DeviceAPI::Host;
}

class AddMemoization : public IRMutator {
  public:
    AddMemoization(const Environment &env, const std::map<std::string, MemoizationKey> &keys)
        : env_(env), keys_(keys) {}

  protected:
    using IRMutator::visit;

    Stmt visit(const Realize *op) override {
        if (!keys_.count(op->name)) return IRMutator::visit(op);
        loops_inside_[op->name] = 0;
        Stmt s = IRMutator::visit(op);
        loops_inside_.erase(op->name);
        return s;
    }

    Stmt visit(const For *op) override {
        for (auto &[name, count] : loops_inside_)
            count++;
        device_ += is_device(op->device_api) ? 1 : 0;
        Stmt s = IRMutator::visit(op);
        device_ -= is_device(op->device_api) ? 1 : 0;
        for (auto &[name, count] : loops_inside_)
            count--;
        return s;
    }

    Stmt visit(const ProducerConsumer *op) override {
        auto key = keys_.find(op->name);
        if (!op->is_producer || key == keys_.end()) return IRMutator::visit(op);
        Stmt body = mutate(op->body);
        const Function &f = env_.func(op->name);
        auto loops = loops_inside_.find(op->name);
        user_assert(loops != loops_inside_.end() && loops->second == 0)
            << "Func \"" << f.name() << "\" is memoized, but its storage is made outside the loop "
            << "that computes it (store_at, or a sliding window over an outer loop): the cache "
            << "keeps whole realizations. Store it where it is computed (remove store_at), or "
            << "memoize a Func computed at root.";
        bool on_device = device_ > 0;
        on_device = on_device || any_device_loop(body);
        user_assert(!on_device) << "Func \"" << f.name()
                                << "\" is memoized but computed in a GPU or NPU loop; the cache "
                                   "keeps host memory. Compute it on the host, or remove "
                                   "memoize().";
        return ProducerConsumer::make(op->name, true, memoized(f, key->second, body));
    }

  private:
    static bool any_device_loop(const Stmt &s) {
        struct Find : IRVisitor {
            bool found = false;
            using IRVisitor::visit;
            void visit(const For *op) override {
                found = found || is_device(op->device_api);
                IRVisitor::visit(op);
            }
        } find;
        find.include(s);
        return find.found;
    }

    /// `if (lookup misses) { produce; store }`, the buffers describing the region the pure
    /// definition computes here; inside the conditions that decide whether the production
    /// happens at all (skip stages' guard), so that a skipped one neither looks up nor stores.
    Stmt memoized(const Function &f, const MemoizationKey &key, const Stmt &produce) {
        if (const auto *guard = produce.as<IfThenElse>(); guard && !guard->else_case.defined()) {
            return IfThenElse::make(guard->condition, memoized(f, key, guard->then_case), Stmt());
        }
        std::vector<Expr> mins, extents;
        computed_region(f, &mins, &extents);
        std::vector<Expr> buffers;
        for (int k = 0; k < f.outputs(); k++)
            buffers.push_back(func_descriptor(f, k, mins, extents));
        std::vector<Expr> tail{Expr(static_cast<int>(key.values.size()))};
        tail.insert(tail.end(), key.values.begin(), key.values.end());
        tail.push_back(Expr(static_cast<int>(buffers.size())));
        tail.insert(tail.end(), buffers.begin(), buffers.end());

        std::vector<Expr> lookup_args{StringImm::make(key.id)};
        lookup_args.insert(lookup_args.end(), tail.begin(), tail.end());
        Expr lookup = Call::make(Int(32), Call::Intrinsic::MemoizationLookup, lookup_args);

        const bool evicts = key.eviction_key.defined();
        Expr eviction = evicts ? key.eviction_key : make_zero(UInt(64));
        std::vector<Expr> store_args{StringImm::make(key.id), Expr(evicts ? 1 : 0), eviction};
        store_args.insert(store_args.end(), tail.begin(), tail.end());
        Stmt store =
            Evaluate::make(Call::make(Int(32), Call::Intrinsic::MemoizationStore, store_args));

        const std::string miss = f.name() + ".memoization_miss";
        return LetStmt::make(miss, lookup,
                             IfThenElse::make(Variable::make(Int(32), miss) != 0,
                                              Block::make({produce, store}), Stmt()));
    }

    const Environment &env_;
    const std::map<std::string, MemoizationKey> &keys_;
    /// Per memoized Func whose storage is around this point, the loops entered since.
    std::map<std::string, int> loops_inside_;
    int device_ = 0;
};

}  // namespace

std::map<std::string, MemoizationKey> memoization_keys(Environment &env) {
    std::map<std::string, MemoizationKey> keys;
    for (auto &[name, f] : env.funcs) {
        if (!f.contents().memoized) continue;
        user_assert(!env.is_output(name))
            << "Func \"" << name << "\" is memoized but is an output of the pipeline; the cache "
            << "keeps realizations of the Funcs an output reads. Memoize one of those (e.g. a "
            << "copy of this Func computed at root), or remove memoize().";
        bool realized = false;
        for (const std::string &o : env.order)
            realized = realized || o == name;
        user_assert(realized && !is_inlined(f))
            << "Func \"" << name << "\" is memoized but computed inline, so it has no storage "
            << "for the cache to keep. Give it compute_root() or compute_at(...).";
        user_assert(f.schedule().storage_folds.empty())
            << "Func \"" << name << "\" is memoized, and fold_storage("
            << f.schedule().storage_folds[0].var
            << ", ...) makes its storage circular; the cache copies whole regions. Remove one "
            << "of the two.";
        user_assert(!env.fused.count(name))
            << "Func \"" << name << "\" is memoized and fused with compute_with; the cache keeps "
            << "the realizations of Funcs produced alone. Remove one of the two.";
        KeyCollector collect(env, name);
        collect.func(f);
        MemoizationKey key;
        std::ostringstream id;
        const std::string text = collect.text.str();
        id << "memoized:" << std::hex << hash_text(text, 14695981039346656037ull) << "-"
           << hash_text(text, 0x9e3779b97f4a7c15ull) << "-" << text.size();
        key.id = id.str();
        key.values = collect.values;
        key.eviction_key = f.contents().eviction_key;
        keys[name] = key;
    }
    for (auto &[name, f] : env.funcs) {
        lang::FunctionContents &c = f.contents();
        strip_tags(c.init);
        for (Definition &d : c.updates)
            strip_tags(d);
    }
    return keys;
}

Stmt add_memoization(const Environment &env, const std::map<std::string, MemoizationKey> &keys,
                     const Stmt &s) {
    if (keys.empty()) return s;
    return AddMemoization(env, keys).mutate(s);
}

}  // namespace dsl::lowering
