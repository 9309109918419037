#pragma once
/// The machinery shared by the simplifier's source files (Simplify*.cpp): the facts tracked for
/// each subexpression, the mutator, and small helpers that make rules read like rules. Nothing
/// outside the simplifier includes this.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/IREquality.h"
#include "ir/IRVisitor.h"
#include "ir/ModulusRemainder.h"
#include "ir/Scope.h"
#include "ir/Simplify.h"

namespace dsl::ir::simplify_internal {

__extension__ typedef __int128 int128;

/// What the simplifier knows about the value of an integer expression (all lanes of it): the
/// constant bounds of its actual value (after any wrap-around) and its alignment. Both describe
/// the value as the semantics define it, so they hold for narrow wrapping types too.
struct ExprInfo {
    std::optional<int64_t> min, max;
    ModulusRemainder alignment;

    bool is_const() const { return min && max && *min == *max; }
    bool min_at_least(int64_t v) const { return min && *min >= v; }
    bool max_at_most(int64_t v) const { return max && *max <= v; }
};

/// Whether the semantics let rules assume that arithmetic of type `t` does not overflow.
inline bool no_overflow(Type t) {
    return t.is_int() && t.bits() >= 32;
}

/// An integer type other than bool: the types that arithmetic rules apply to.
inline bool is_int(Type t) {
    return t.is_int_or_uint() && !t.is_bool();
}

/// Division rounding down, and up.
inline int128 floor_div(int128 a, int128 b) {
    int128 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}
inline int128 ceil_div(int128 a, int128 b) {
    return -floor_div(-a, b);
}

/// `e` as `x + c` with an integer constant c: returns x and sets c (0 when e is no such sum).
Expr split_constant(const Expr &e, int64_t *c);

/// `a - b` where it is the same constant whatever the values of the names in them: both written
/// as sums of terms times integer constants (through +, - and products with a constant), the
/// terms matched by equality. Only for scalars of a type that does not overflow (no_overflow):
/// there every term of the original expressions is its mathematical value, so the difference is
/// exact. (`(x + (y + -1)) + 3` against `x + y`, which the rules cannot reassociate without
/// bounds on x and y.)
std::optional<int64_t> constant_difference(const Expr &a, const Expr &b);

/// The integer value of a constant (IntImm, UIntImm up to INT64_MAX, or a broadcast of one).
std::optional<int64_t> const_int(const Expr &e);
/// A constant of type `t` (broadcast if `t` is a vector); `v` wraps to the type.
Expr int_const(Type t, int64_t v);
/// Whether `e` is a constant, a broadcast constant, a ramp of constants, or a shuffle of such.
bool is_const_value(const Expr &e);
/// Evaluates `e`, whose operands are all constants, following the semantics exactly. Empty when
/// the result is undefined (32/64-bit signed overflow, float-to-int out of range, ...). A vector
/// becomes a broadcast or a ramp where it can, else the concatenation of its lanes.
std::optional<Expr> fold(const Expr &e);
/// Folds `e` if all of `operands` are constant values; empty otherwise.
std::optional<Expr> fold_if_const(const Expr &e, std::initializer_list<Expr> operands);

/// Facts about a value of type `t` whose mathematical (unwrapped) value lies within [lo, hi]
/// (unknown where empty) with alignment `align`: narrows to the type's range and forgets what
/// wrap-around can break. `overflow_is_ub` says whether the operation that produced the value
/// may be assumed not to overflow (arithmetic of 32/64-bit signed types; not casts or shifts).
ExprInfo make_info(Type t, std::optional<int128> lo, std::optional<int128> hi,
                   ModulusRemainder align, bool overflow_is_ub = true);
/// Facts every value of type `t` satisfies.
ExprInfo type_info(Type t);
/// Facts that hold for a value that is one of `a` or `b`.
ExprInfo unify_info(const ExprInfo &a, const ExprInfo &b);
inline std::optional<int128> wide(const std::optional<int64_t> &v) {
    if (v) return int128(*v);
    return std::nullopt;
}

/// The simplifier proper. `mutate(e, &info)` returns the simplified `e` and fills `info`.
/// Rules build their result from simplified parts and hand it back to `mutate`, so a rewrite is
/// simplified to a local fixed point; `kMaxRewriteDepth` bounds how long such chains may get.
class Simplifier : public IRMutator {
  public:
    explicit Simplifier(const Scope<ConstantBounds> *user_bounds) : user_bounds_(user_bounds) {}

    Expr mutate(const Expr &e) override { return mutate(e, nullptr); }
    Stmt mutate(const Stmt &s) override { return IRMutator::mutate(s); }
    Expr mutate(const Expr &e, ExprInfo *info);

    // One function per node kind (SimplifyArith.cpp, SimplifyMinMax.cpp, SimplifyCompare.cpp,
    // SimplifyVector.cpp, Simplify.cpp).
    Expr visit_add(const Add *op, ExprInfo *info);
    Expr visit_sub(const Sub *op, ExprInfo *info);
    Expr visit_mul(const Mul *op, ExprInfo *info);
    Expr visit_div(const Div *op, ExprInfo *info);
    Expr visit_mod(const Mod *op, ExprInfo *info);
    Expr visit_min_max(const Expr &e, ExprInfo *info);
    Expr visit_compare(const Expr &e, ExprInfo *info);
    Expr visit_and_or(const Expr &e, ExprInfo *info);
    Expr visit_not(const Not *op, ExprInfo *info);
    Expr visit_select(const Select *op, ExprInfo *info);
    Expr visit_cast(const Cast *op, ExprInfo *info);
    Expr visit_variable(const Variable *op, ExprInfo *info);
    Expr visit_load(const Load *op, ExprInfo *info);
    Expr visit_ramp(const Ramp *op, ExprInfo *info);
    Expr visit_broadcast(const Broadcast *op, ExprInfo *info);
    Expr visit_call(const Call *op, ExprInfo *info);
    Expr visit_let(const Let *op, ExprInfo *info);
    Expr visit_shuffle(const Shuffle *op, ExprInfo *info);
    Expr visit_vector_reduce(const VectorReduce *op, ExprInfo *info);

  protected:
    using IRMutator::visit;
    // Statements (SimplifyStmt.cpp).
    Stmt visit(const LetStmt *op) override;
    Stmt visit(const AssertStmt *op) override;
    Stmt visit(const ProducerConsumer *op) override;
    Stmt visit(const For *op) override;
    Stmt visit(const Store *op) override;
    Stmt visit(const Block *op) override;
    Stmt visit(const IfThenElse *op) override;
    Stmt visit(const Evaluate *op) override;

    /// Whether `p op q` (op: Add, Sub or Mul), a term a rule is about to create, provably cannot
    /// overflow where overflow would be undefined. Always true for wrapping types.
    bool cannot_overflow(IRNodeType op, const Expr &p, const Expr &q);
    /// Simplifies `e` (not cached).
    Expr dispatch(const Expr &e, ExprInfo *info);
    /// Binds what `condition` evaluating to `holds` says about variables; returns the names to
    /// hand to `pop_facts` afterwards.
    std::vector<std::string> push_facts(const Expr &condition, bool holds);
    void pop_facts(const std::vector<std::string> &bound);
    /// Simplifies `s` knowing that `condition` evaluates to `holds`.
    Stmt mutate_with_facts(const Stmt &s, const Expr &condition, bool holds);
    /// `select(c, k1, k2) op k` as a select of constants, where both fold.
    std::optional<Expr> push_into_select(const Expr &a, const Expr &b, Expr (*make)(Expr, Expr));
    /// The alignment of the first lane of a (simplified) load or store index: `known`, or what
    /// the simplifier derives if that says more.
    ModulusRemainder index_alignment(const Expr &index, const ModulusRemainder &known);
    /// Re-simplifies the result of a rule.
    Expr rewrite(const Expr &e, ExprInfo *info);
    /// The facts known about a variable: from an enclosing let or loop, or the caller's bounds.
    ExprInfo variable_info(const Variable *op);

    /// Binds the let-bound `name` to its simplified `value` for the simplification of the
    /// let's body: substituted where it occurs when it is cheap to repeat (returns true), else
    /// described by `value_info`. Undo with `unbind`.
    bool bind_let(const std::string &name, const Expr &value, const ExprInfo &value_info);
    /// `name`, or a fresh name to bind instead where binding `name` would capture a variable
    /// of a substituted value.
    std::string rename_if_captured(const std::string &name);
    /// The value of `e` (a loop's extent) when it is a constant once the lets in scope are
    /// replaced by their values: a producer's region computed inside a tile of constant size is
    /// `max - min + 1` of two lets that differ by a constant, which only their values show.
    std::optional<int64_t> constant_through_lets(const Expr &e);
    /// Set while constant_through_lets simplifies an expression with the lets' values in: the
    /// differences inside are not looked through again (each look would nest another).
    bool through_lets_ = false;
    /// Whether `e` is a let-bound name whose value is kept (not substituted where it occurs).
    bool let_valued(const Expr &e) const {
        const auto *v = e.as<Variable>();
        const Expr *value = v ? let_values_.find(v->name) : nullptr;
        return value && value->defined();
    }
    /// Binds a name that is not substituted (a loop variable) to what is known about it.
    void bind_opaque(const std::string &name, const ExprInfo &value_info);
    void unbind(const std::string &name);

    const Scope<ConstantBounds> *user_bounds_;
    /// Facts about let-bound names and loop variables.
    Scope<ExprInfo> var_info_;
    /// Let-bound names whose value is substituted where they occur.
    Scope<Expr> replacements_;
    /// The values of the let-bound names that are not substituted (constant_through_lets).
    Scope<Expr> let_values_;
    /// How many substituted values mention each variable name (to detect capture).
    std::map<std::string, int> names_in_replacements_;
    int rename_counter_ = 0;
    int rewrite_depth_ = 0;
    /// Results of `mutate` by node, for both the input and the result node, so that rules which
    /// ask for the facts of an already simplified operand, and rewrites built from simplified
    /// parts, cost nothing for those parts. Results depend on what is known about variables, so
    /// each binding of a name opens a new scope id, part of the key.
    struct CacheKey {
        const BaseExprNode *node;
        uint64_t scope;
        bool operator==(const CacheKey &o) const { return node == o.node && scope == o.scope; }
    };
    struct CacheKeyHash {
        size_t operator()(const CacheKey &k) const {
            return std::hash<const void *>()(k.node) ^
                   (std::hash<uint64_t>()(k.scope) * 0x9e3779b97f4a7c15ull);
        }
    };
    struct CacheEntry {
        Expr key;  ///< keeps the key's node alive, so that its address is not reused
        Expr result;
        ExprInfo info;
    };
    std::unordered_map<CacheKey, CacheEntry, CacheKeyHash> cache_;
    /// The open scopes, innermost last, and the cache keys made in each (erased on close).
    std::vector<uint64_t> scope_ids_ = {0};
    std::vector<std::vector<CacheKey>> scope_keys_ = {{}};
    uint64_t next_scope_id_ = 1;
    static constexpr int kMaxRewriteDepth = 64;
};

/// A statement that does nothing, as the simplifier leaves it.
Stmt no_op();
bool is_no_op(const Stmt &s);

}  // namespace dsl::ir::simplify_internal
