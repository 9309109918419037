#include "lowering/SpecializeDenseBuffers.h"

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

Stmt specialize_dense_buffers(const std::vector<std::string> &buffers, const Stmt &s,
                              StrideVersions versions) {
    if (buffers.empty() || versions == StrideVersions::Any) return s;
    Expr all_dense = make_bool(true);
    std::map<std::string, Expr> unit_strides;
    for (const std::string &b : buffers) {
        std::string stride = names::buffer_stride(b, 0);
        all_dense = all_dense && Variable::make(Int(32), stride) == 1;
        unit_strides[stride] = make_one(Int(32));
    }
    Stmt dense = substitute(unit_strides, s);
    if (equal(dense, s)) return s;  // no access uses those strides
    if (versions == StrideVersions::Both) return IfThenElse::make(all_dense, dense, s);
    // Dense only: a check of each stride, then the dense version.
    std::vector<Stmt> checks;
    for (const std::string &b : buffers) {
        Expr stride = Variable::make(Int(32), names::buffer_stride(b, 0));
        checks.push_back(AssertStmt::make(
            stride == 1, Call::make(Int(32), "dsl_runtime_error_stride_not_one",
                                    {StringImm::make(b), stride}, Call::CallType::Extern)));
    }
    checks.push_back(dense);
    return Block::make(checks);
}

}  // namespace dsl::lowering
