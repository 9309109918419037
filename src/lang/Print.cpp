// print() and print_when() (dsl/Print.h): a Print intrinsic whose format holds the strings and
// a `{k}` per value.
#include "dsl/Print.h"

#include <sstream>

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

Expr require(const Expr &condition, const Expr &value, const std::vector<Expr> &message) {
    user_assert(condition.defined() && condition.type().element_of().is_bool())
        << "require: the condition must be a bool Expr (a comparison such as p == 3), not "
        << (condition.defined() ? condition : Expr(std::string("an undefined Expr"))) << ".";
    user_assert(value.defined()) << "require(" << condition
                                 << ", ...): the value is an undefined Expr.";
    user_assert(condition.type().is_scalar() || value.type().is_scalar() ||
                condition.type().lanes() == value.type().lanes())
        << "require: the condition " << condition << " has " << condition.type().lanes()
        << " lanes but the value " << value << " has " << value.type().lanes() << ".";
    std::ostringstream text;
    text << condition;
    std::string format = "Requirement failed: (" + escape_print_format(text.str()) + ")";
    std::vector<Expr> args{condition, value};
    for (size_t i = 0; i < message.size(); i++) {
        user_assert(message[i].defined())
            << "require: message argument " << i << " is an undefined Expr.";
        format += ' ';
        if (const auto *s = message[i].as<StringImm>()) {
            format += escape_print_format(s->value);
            continue;
        }
        format += "{" + std::to_string(args.size() - 2) + "}";
        args.push_back(message[i]);
    }
    args.insert(args.begin() + 2, StringImm::make(format));
    return Call::make(value.type(), Call::Intrinsic::Require, std::move(args));
}

Expr print(const std::vector<Expr> &args) {
    return print_when(make_bool(true), args);
}

}  // namespace dsl
