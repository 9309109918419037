#include "lowering/SpecializeDenseBuffers.h"

#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Names.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

Stmt specialize_dense_buffers(const std::vector<std::string> &buffers, const Stmt &s) {
    if (buffers.empty()) return s;
    Expr all_dense = make_bool(true);
    std::map<std::string, Expr> unit_strides;
    for (const std::string &b : buffers) {
        std::string stride = names::buffer_stride(b, 0);
        all_dense = all_dense && Variable::make(Int(32), stride) == 1;
        unit_strides[stride] = make_one(Int(32));
    }
    Stmt dense = substitute(unit_strides, s);
    if (equal(dense, s)) return s;  // no access uses those strides
    return IfThenElse::make(all_dense, dense, s);
}

}  // namespace dsl::lowering
