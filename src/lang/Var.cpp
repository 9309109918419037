#include "dsl/Var.h"

#include <atomic>

#include "ir/Error.h"
#include "ir/IR.h"

namespace dsl {

namespace {
std::string fresh_var_name() {
    static std::atomic<int> counter{0};
    return "v" + std::to_string(counter.fetch_add(1));
}
}  // namespace

Var::Var() : name_(fresh_var_name()) {}

Var::Var(const std::string &name) : name_(name) {
    user_assert(!name.empty()) << "a Var needs a non-empty name.";
}

Var::operator Expr() const {
    return ir::Variable::make(Int(32), name_);
}

}  // namespace dsl
