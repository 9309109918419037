#include "dsl/Var.h"

#include <atomic>

#include "ir/Error.h"
#include "ir/IR.h"
#include "schedule/Schedule.h"

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

Var Var::outermost() {
    return Var(schedule::kOutermost);
}

Var Var::implicit(int n) {
    return Var("_" + std::to_string(n));
}

bool Var::is_implicit(const std::string &name) {
    if (name.size() < 2 || name[0] != '_') return false;
    for (size_t i = 1; i < name.size(); i++) {
        if (name[i] < '0' || name[i] > '9') return false;
    }
    return true;
}

const Var _("_");
const Var _0("_0"), _1("_1"), _2("_2"), _3("_3"), _4("_4"), _5("_5"), _6("_6"), _7("_7"), _8("_8"),
    _9("_9");

namespace detail {

namespace {
bool is_remaining_dims_marker(const Expr &e) {
    const auto *v = e.as<ir::Variable>();
    return v && v->name == "_" && !v->param.defined() && !v->reduction_domain.defined();
}
}  // namespace

bool has_remaining_dims(const std::vector<Expr> &args) {
    for (const Expr &a : args) {
        if (a.defined() && is_remaining_dims_marker(a)) return true;
    }
    return false;
}

std::vector<Expr> expand_remaining_dims(const std::vector<Expr> &args, int dimensions,
                                        const std::string &what) {
    if (!has_remaining_dims(args)) return args;
    int markers = 0;
    for (const Expr &a : args)
        markers += a.defined() && is_remaining_dims_marker(a);
    user_assert(markers == 1) << what << " is called with " << markers
                              << " arguments _; use at most one.";
    const int implicit = dimensions - static_cast<int>(args.size() - 1);
    user_assert(implicit >= 0) << what << " has " << dimensions << " dimension"
                               << (dimensions == 1 ? "" : "s") << " but is called with "
                               << args.size() - 1 << " arguments besides _.";
    std::vector<Expr> result;
    for (const Expr &a : args) {
        if (!is_remaining_dims_marker(a)) {
            result.push_back(a);
            continue;
        }
        for (int k = 0; k < implicit; k++)
            result.push_back(Var::implicit(k));
    }
    return result;
}

}  // namespace detail

Var::operator Expr() const {
    return ir::Variable::make(Int(32), name_);
}

}  // namespace dsl
