#include "dsl/RDom.h"

#include "dsl/Param.h"

#include <atomic>

#include "ir/Error.h"
#include "ir/IR.h"
#include "ir/IROperator.h"
#include "ir/ReductionDomain.h"

namespace dsl {

namespace detail {
struct RDomContents {
    std::string name;
    ir::ReductionDomain domain;
    /// The where() conditions as given. The domain's copy of them refers weakly to what would
    /// otherwise keep the domain alive forever (lang/FunctionReferences.h), such as a Func whose
    /// update iterates over it; this copy keeps those alive while the user holds the RDom, so
    /// that a later definition can still use it. Nothing in the IR refers to RDomContents, so
    /// it closes no cycle.
    std::vector<Expr> conditions;
};
}  // namespace detail

namespace {
std::string fresh_rdom_name() {
    static std::atomic<int> counter{0};
    return "r" + std::to_string(counter.fetch_add(1));
}
const char *const kSuffixes[] = {"x", "y", "z", "w"};
}  // namespace

RVar::RVar() {
    static std::atomic<int> counter{0};
    name_ = "rv" + std::to_string(counter.fetch_add(1));
}

const std::string &RVar::name() const {
    if (!rdom_ && !name_.empty()) return name_;
    user_assert(rdom_) << "use of an undefined RVar.";
    return rdom_->domain.domain()[index_].var;
}

namespace {
void require_domain(const std::shared_ptr<detail::RDomContents> &rdom, const std::string &name,
                    const char *what) {
    user_assert(rdom || name.empty())
        << "the RVar \"" << name << "\" only names a loop made by a schedule (split or fuse); it "
        << "has no " << what << ". Use the RVars of the RDom in expressions.";
    user_assert(rdom) << "use of an undefined RVar (a dimension the RDom does not have?).";
}
}  // namespace

Expr RVar::min() const {
    require_domain(rdom_, name_, "bounds");
    return rdom_->domain.domain()[index_].min;
}
Expr RVar::extent() const {
    require_domain(rdom_, name_, "bounds");
    return rdom_->domain.domain()[index_].extent;
}

RVar::operator Expr() const {
    require_domain(rdom_, name_, "value");
    return ir::Variable::make(Int(32), name(), {}, rdom_->domain);
}

RDom::RDom(const std::vector<std::pair<Expr, Expr>> &ranges, const std::string &name_in) {
    std::string name = name_in.empty() ? fresh_rdom_name() : name_in;
    user_assert(!ranges.empty()) << "RDom \"" << name << "\" has no dimensions.";
    std::vector<ir::ReductionVariable> vars;
    for (size_t i = 0; i < ranges.size(); i++) {
        std::string suffix = i < 4 ? kSuffixes[i] : std::to_string(i);
        std::string var = name + "." + suffix;
        for (const Expr *e : {&ranges[i].first, &ranges[i].second}) {
            user_assert(e->defined())
                << "RDom \"" << name << "\": dimension " << i << " has an undefined bound.";
            user_assert(e->type().is_int_or_uint() && e->type().is_scalar() && !e->type().is_bool())
                << "RDom \"" << name << "\": the bound " << *e << " of dimension " << i << " is "
                << e->type() << "; RDom bounds are integers.";
        }
        vars.push_back({var, cast(Int(32), ranges[i].first), cast(Int(32), ranges[i].second)});
    }
    contents_ = std::make_shared<detail::RDomContents>();
    contents_->name = name;
    contents_->domain = ir::ReductionDomain(vars);
    RVar *members[] = {&x, &y, &z, &w};
    for (size_t i = 0; i < ranges.size() && i < 4; i++)
        *members[i] = RVar(contents_, static_cast<int>(i));
}

namespace {
std::vector<std::pair<Expr, Expr>> buffer_ranges(const Buffer<> &b) {
    user_assert(b.defined()) << "RDom of an undefined buffer.";
    std::vector<std::pair<Expr, Expr>> ranges;
    for (int i = 0; i < b.dimensions(); i++)
        ranges.push_back({Expr(b.dim(i).min()), Expr(b.dim(i).extent())});
    return ranges;
}
}  // namespace

RDom::RDom(const Buffer<> &buffer) : RDom(buffer_ranges(buffer), "r_" + buffer.name()) {}

namespace {
std::vector<std::pair<Expr, Expr>> input_ranges(const ImageParam &p) {
    std::vector<std::pair<Expr, Expr>> ranges;
    for (int i = 0; i < p.dimensions(); i++)
        ranges.push_back({p.min(i), p.extent(i)});
    return ranges;
}
}  // namespace

RDom::RDom(const ImageParam &input) : RDom(input_ranges(input), "r_" + input.name()) {}

RDom &RDom::where(const Expr &condition) {
    user_assert(defined()) << "where() on an undefined RDom.";
    user_assert(!contents_->domain.frozen())
        << "RDom \"" << contents_->name
        << "\": where() after the RDom was used in a definition; add the conditions first.";
    user_assert(condition.defined() && condition.type() == Bool())
        << "RDom \"" << contents_->name << "\": the where() condition must be a scalar bool"
        << (condition.defined() ? ", got " + condition.type().to_string() : std::string()) << ".";
    contents_->domain.add_predicate(condition);
    contents_->conditions.push_back(condition);
    return *this;
}

int RDom::dimensions() const {
    return contents_ ? static_cast<int>(contents_->domain.domain().size()) : 0;
}

RVar RDom::operator[](int i) const {
    user_assert(i >= 0 && i < dimensions())
        << "RDom has " << dimensions() << " dimensions; there is no RVar " << i << ".";
    return RVar(contents_, i);
}

RDom::operator RVar() const {
    user_assert(dimensions() == 1)
        << "an RDom of " << dimensions() << " dimensions used as one RVar; use r.x, r.y, ...";
    return RVar(contents_, 0);
}

RDom::operator Expr() const {
    return Expr(static_cast<RVar>(*this));
}

}  // namespace dsl
