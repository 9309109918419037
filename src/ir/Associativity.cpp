// Pattern matching of associative updates. Each element of the update's value is matched on
// its own (x + e, min(x, e), ...); elements of the form select(cond, e, x) are grouped into one
// argmin / argmax whose condition compares one of them, the key, with its running value.
#include "ir/Associativity.h"

#include <sstream>

#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/IRPrinter.h"
#include "ir/IRVisitor.h"

namespace dsl::ir {

namespace {

Expr identity_of(AssociativeOp op, Type t) {
    switch (op) {
        case AssociativeOp::Add:
        case AssociativeOp::BitwiseOr:
        case AssociativeOp::BitwiseXor:
            return make_zero(t);
        case AssociativeOp::Mul:
            return make_one(t);
        case AssociativeOp::Min:
            return type_max(t);
        case AssociativeOp::Max:
            return type_min(t);
        case AssociativeOp::BitwiseAnd:
            return t.is_uint() ? type_max(t) : make_const(t, int64_t(-1));
        case AssociativeOp::And:
            return make_bool(true);
        case AssociativeOp::Or:
        case AssociativeOp::Xor:
            return make_bool(false);
        case AssociativeOp::ArgBest:
            return make_zero(t);  // the key's identity is set once the key is known
    }
    return Expr();
}

/// Matches the elements of one update.
class Matcher {
  public:
    Matcher(const std::string &func, const std::vector<Expr> &args) : func_(func), args_(args) {}

    /// Whether `e` reads element `i` of the Func at exactly the point the update writes.
    bool is_self(const Expr &e, int i) const {
        const auto *call = e.as<Call>();
        if (!call || call->call_type != Call::CallType::Func || call->name != func_ ||
            call->value_index != i || call->args.size() != args_.size())
            return false;
        for (size_t k = 0; k < args_.size(); k++) {
            if (!equal(call->args[k], args_[k])) return false;
        }
        return true;
    }

    /// The term of `op(x, term)` (or `op(term, x)` when `either_side`) with x element `i`.
    std::optional<Expr> term_of(const Expr &a, const Expr &b, int i, bool either_side) const {
        if (is_self(a, i) && !calls_func(b, func_)) return b;
        if (either_side && is_self(b, i) && !calls_func(a, func_)) return a;
        return std::nullopt;
    }

    /// Element `i`'s operator and term, for the forms other than argmin / argmax.
    std::optional<std::pair<AssociativeOp, Expr>> match(const Expr &v, int i) const {
        auto with =
            [](AssociativeOp op,
               const std::optional<Expr> &term) -> std::optional<std::pair<AssociativeOp, Expr>> {
            if (!term) return std::nullopt;
            return std::make_pair(op, *term);
        };
        if (const auto *op = v.as<Add>())
            return with(AssociativeOp::Add, term_of(op->a, op->b, i, true));
        if (const auto *op = v.as<Sub>()) {
            auto term = term_of(op->a, op->b, i, false);
            if (!term) return std::nullopt;
            return std::make_pair(AssociativeOp::Add, Sub::make(make_zero(v.type()), *term));
        }
        if (const auto *op = v.as<Mul>())
            return with(AssociativeOp::Mul, term_of(op->a, op->b, i, true));
        if (const auto *op = v.as<Min>())
            return with(AssociativeOp::Min, term_of(op->a, op->b, i, true));
        if (const auto *op = v.as<Max>())
            return with(AssociativeOp::Max, term_of(op->a, op->b, i, true));
        if (const auto *op = v.as<And>())
            return with(AssociativeOp::And, term_of(op->a, op->b, i, true));
        if (const auto *op = v.as<Or>())
            return with(AssociativeOp::Or, term_of(op->a, op->b, i, true));
        if (const auto *op = v.as<NE>()) {
            if (op->a.type().is_bool())
                return with(AssociativeOp::Xor, term_of(op->a, op->b, i, true));
        }
        if (const auto *call = v.as<Call>()) {
            if (call->args.size() != 2) return std::nullopt;
            const Expr &a = call->args[0], &b = call->args[1];
            if (call->is_intrinsic(Call::Intrinsic::BitwiseAnd))
                return with(AssociativeOp::BitwiseAnd, term_of(a, b, i, true));
            if (call->is_intrinsic(Call::Intrinsic::BitwiseOr))
                return with(AssociativeOp::BitwiseOr, term_of(a, b, i, true));
            if (call->is_intrinsic(Call::Intrinsic::BitwiseXor))
                return with(AssociativeOp::BitwiseXor, term_of(a, b, i, true));
        }
        return std::nullopt;
    }

    /// Whether `condition` says that `term` is strictly better than the running element `i`;
    /// `*better` receives LT (smaller wins) or GT (larger wins).
    bool compares(const Expr &condition, const Expr &term, int i, IRNodeType *better) const {
        const Expr *a = nullptr, *b = nullptr;
        bool less = false;
        if (const auto *lt = condition.as<LT>()) {
            a = &lt->a, b = &lt->b, less = true;
        } else if (const auto *gt = condition.as<GT>()) {
            a = &gt->a, b = &gt->b, less = false;
        } else {
            return false;
        }
        if (equal(*a, term) && is_self(*b, i)) {  // term < x, or term > x
            *better = less ? IRNodeType::LT : IRNodeType::GT;
            return true;
        }
        if (is_self(*a, i) && equal(*b, term)) {  // x < term (term > x), or x > term
            *better = less ? IRNodeType::GT : IRNodeType::LT;
            return true;
        }
        return false;
    }

  private:
    const std::string &func_;
    const std::vector<Expr> &args_;
};

std::string self_text(const std::string &func, const std::vector<Expr> &args, size_t i,
                      size_t elements) {
    std::ostringstream s;
    s << func << "(";
    for (size_t k = 0; k < args.size(); k++)
        s << (k ? ", " : "") << args[k];
    s << ")";
    if (elements > 1) s << "[" << i << "]";
    return s.str();
}

}  // namespace

bool calls_func(const Expr &e, const std::string &func) {
    if (!e.defined()) return false;
    CallsFunc finder(func);
    finder.include(e);
    return finder.found;
}

std::vector<Expr> AssociativeUpdate::combine(const std::vector<Expr> &a,
                                             const std::vector<Expr> &b) const {
    internal_assert(a.size() == ops.size() && b.size() == ops.size()) << "combine: wrong sizes";
    std::vector<Expr> result;
    Expr b_wins;
    if (key >= 0) b_wins = make_binary(better, b[key], a[key]);
    for (size_t i = 0; i < ops.size(); i++) {
        const Expr &x = a[i], &y = b[i];
        switch (ops[i]) {
            case AssociativeOp::Add:
                result.push_back(Add::make(x, y));
                break;
            case AssociativeOp::Mul:
                result.push_back(Mul::make(x, y));
                break;
            case AssociativeOp::Min:
                result.push_back(Min::make(x, y));
                break;
            case AssociativeOp::Max:
                result.push_back(Max::make(x, y));
                break;
            case AssociativeOp::BitwiseAnd:
                result.push_back(Call::make(x.type(), Call::Intrinsic::BitwiseAnd, {x, y}));
                break;
            case AssociativeOp::BitwiseOr:
                result.push_back(Call::make(x.type(), Call::Intrinsic::BitwiseOr, {x, y}));
                break;
            case AssociativeOp::BitwiseXor:
                result.push_back(Call::make(x.type(), Call::Intrinsic::BitwiseXor, {x, y}));
                break;
            case AssociativeOp::And:
                result.push_back(And::make(x, y));
                break;
            case AssociativeOp::Or:
                result.push_back(Or::make(x, y));
                break;
            case AssociativeOp::Xor:
                result.push_back(NE::make(x, y));
                break;
            case AssociativeOp::ArgBest:
                result.push_back(Select::make(b_wins, y, x));
                break;
        }
    }
    return result;
}

std::optional<AssociativeUpdate> find_associative_update(const std::string &func,
                                                         const std::vector<Expr> &args,
                                                         const std::vector<Expr> &values,
                                                         std::string *why) {
    Matcher matcher(func, args);
    AssociativeUpdate update;
    struct Choice {
        int element;
        Expr condition, term;
    };
    std::vector<Choice> choices;
    auto fail = [&](size_t i, const std::string &reason) -> std::optional<AssociativeUpdate> {
        std::ostringstream s;
        s << (values.size() > 1 ? "element " + std::to_string(i) + " of the update, " : "")
          << "the value " << values[i] << " " << reason;
        *why = s.str();
        return std::nullopt;
    };
    for (size_t i = 0; i < values.size(); i++) {
        const Expr &v = values[i];
        int index = static_cast<int>(i);
        std::string self = self_text(func, args, i, values.size());
        if (const auto *sel = v.as<Select>()) {
            if (matcher.is_self(sel->false_value, index) && !calls_func(sel->true_value, func)) {
                choices.push_back({index, sel->condition, sel->true_value});
                update.ops.push_back(AssociativeOp::ArgBest);
                update.terms.push_back(sel->true_value);
                update.identities.push_back(identity_of(AssociativeOp::ArgBest, v.type()));
                continue;
            }
        }
        auto matched = matcher.match(v, index);
        if (!matched) {
            return fail(i, "is not " + self + " combined with a term that does not read " + func +
                               " by an associative operator (+, -, *, min, max, &, |, ^, &&, "
                               "||) or an argmin / argmax select");
        }
        update.ops.push_back(matched->first);
        update.terms.push_back(matched->second);
        update.identities.push_back(identity_of(matched->first, v.type()));
    }
    if (choices.empty()) return update;

    // argmin / argmax: one select compares its own term with its running value; every select
    // makes the same choice.
    for (const Choice &c : choices) {
        IRNodeType better;
        if (matcher.compares(c.condition, c.term, c.element, &better)) {
            update.key = c.element;
            update.better = better;
            break;
        }
    }
    if (update.key < 0) {
        return fail(static_cast<size_t>(choices[0].element),
                    "selects a new value, but its condition is not a strict comparison (< or >) "
                    "of a new value with the running value of an element, as argmin and argmax "
                    "make it");
    }
    for (const Choice &c : choices) {
        if (!equal(c.condition, choices[0].condition)) {
            return fail(static_cast<size_t>(c.element),
                        "selects with another condition than the argmin / argmax it belongs to");
        }
    }
    Type key_type = values[update.key].type();
    update.identities[update.key] =
        update.better == IRNodeType::GT ? type_min(key_type) : type_max(key_type);
    update.commutative = false;
    return update;
}

}  // namespace dsl::ir
