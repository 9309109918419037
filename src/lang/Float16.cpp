// float16_t and bfloat16_t (dsl/Float16.h): rounding to and from 16-bit floats on the host.
#include "dsl/Float16.h"

#include "dsl/Expr.h"
#include "ir/Float16.h"
#include "ir/IR.h"

namespace dsl {

namespace detail {

// The IR's conversions (ir/Float16.h: IEEE rounding straight from double, as constant
// folding rounds).
uint16_t small_float_bits(double value, bool bfloat) {
    return bfloat ? ir::bfloat16_bits(value) : ir::float16_bits(value);
}

double small_float_value(uint16_t bits, bool bfloat) {
    return bfloat ? ir::bfloat16_from_bits(bits) : ir::float16_from_bits(bits);
}

}  // namespace detail

Expr::Expr(float16_t v) : Expr(ir::FloatImm::make(Float(16), static_cast<double>(v))) {}
Expr::Expr(bfloat16_t v) : Expr(ir::FloatImm::make(BFloat(16), static_cast<double>(v))) {}

}  // namespace dsl
