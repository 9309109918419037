#include "ir/Parameter.h"

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/ReductionDomain.h"

namespace dsl::ir {

Parameter::Parameter(Type type, bool is_buffer, int dimensions, const std::string &name)
    : contents_(std::make_shared<ParameterContents>()) {
    contents_->name = name;
    contents_->type = type;
    contents_->is_buffer = is_buffer;
    contents_->dimensions = dimensions;
}

ReductionDomain::ReductionDomain(std::vector<ReductionVariable> domain)
    : contents_(std::make_shared<Contents>()) {
    contents_->domain = std::move(domain);
    contents_->predicate = make_bool(true);
}

void ReductionDomain::add_predicate(const Expr &condition) {
    internal_assert(!frozen()) << "where() on a frozen reduction domain";
    contents_->predicate =
        is_const_true(contents_->predicate) ? condition : (contents_->predicate && condition);
}

}  // namespace dsl::ir
