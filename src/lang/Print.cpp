// print() and print_when() (dsl/Print.h): a Print intrinsic whose format holds the strings and
// a `{k}` per value.
#include "dsl/Print.h"

#include "ir/Error.h"
#include "ir/IROperator.h"

namespace dsl {

using namespace ir;

Expr print_when(const Expr &condition, const std::vector<Expr> &args) {
    user_assert(condition.defined() && condition.type().element_of().is_bool())
        << "print_when: the condition must be a bool Expr (a comparison such as x == 3), not "
        << (condition.defined() ? condition : Expr(std::string("an undefined Expr"))) << ".";
    std::string format;
    std::vector<Expr> values;
    for (size_t i = 0; i < args.size(); i++) {
        user_assert(args[i].defined()) << "print: argument " << i << " is an undefined Expr.";
        if (i) format += ' ';
        if (const auto *s = args[i].as<StringImm>()) {
            format += escape_print_format(s->value);
            continue;
        }
        format += "{" + std::to_string(values.size()) + "}";
        values.push_back(args[i]);
    }
    return make_print(condition, format, std::move(values));
}

Expr print(const std::vector<Expr> &args) {
    return print_when(make_bool(true), args);
}

}  // namespace dsl
