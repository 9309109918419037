// Code generation for expressions, following the semantics of include/dsl/Expr.h exactly (the
// reference evaluator is the oracle the tests compare against).
#include <llvm/IR/Constants.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/Error.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"
#include "ir/Substitute.h"

namespace dsl::codegen {

using namespace ir;

// ---------------------------------------------------------------------------------------------
// Float helpers

llvm::Value *CodeGenLLVM::fadd(llvm::Value *a, llvm::Value *b) {
    return builder_->CreateFAdd(a, b);
}
llvm::Value *CodeGenLLVM::fsub(llvm::Value *a, llvm::Value *b) {
    return builder_->CreateFSub(a, b);
}
llvm::Value *CodeGenLLVM::fmul(llvm::Value *a, llvm::Value *b) {
    return builder_->CreateFMul(a, b);
}
llvm::Value *CodeGenLLVM::fdiv(llvm::Value *a, llvm::Value *b) {
    return builder_->CreateFDiv(a, b);
}
llvm::Value *CodeGenLLVM::fmin(llvm::Value *a, llvm::Value *b) {
    // `a < b ? a : b`: the evaluator's definition (NaN gives an unspecified operand).
    return builder_->CreateSelect(builder_->CreateFCmpOLT(a, b), a, b);
}
llvm::Value *CodeGenLLVM::fmax(llvm::Value *a, llvm::Value *b) {
    return builder_->CreateSelect(builder_->CreateFCmpOGT(a, b), a, b);
}
llvm::Value *CodeGenLLVM::float_mod(Type t, llvm::Value *a, llvm::Value *b) {
    // a - b * floor(a / b), each step rounded to the type.
    llvm::Value *q = float_op(t, a, b, &CodeGenLLVM::fdiv);
    // The floor of a narrow float is one too (exact): taken in float32, rounded back exactly.
    llvm::Value *wq = is_narrow_float(t) ? widen_float(q, t) : q;
    llvm::Value *fl =
        builder_->CreateCall(intrinsic(llvm::Intrinsic::floor, {wq->getType()}), {wq});
    if (is_narrow_float(t)) fl = narrow_float(fl, Float(32, t.lanes()), t);
    llvm::Value *p = float_op(t, b, fl, &CodeGenLLVM::fmul);
    return float_op(t, a, p, &CodeGenLLVM::fsub);
}

llvm::Value *CodeGenLLVM::float_op(Type t, llvm::Value *a, llvm::Value *b,
                                   llvm::Value *(CodeGenLLVM::*op)(llvm::Value *, llvm::Value *)) {
    if (!is_narrow_float(t)) return (this->*op)(a, b);
    llvm::Value *wa = widen_float(a, t), *wb = widen_float(b, t);
    llvm::Value *r = (this->*op)(wa, wb);
    if (op == &CodeGenLLVM::fmin || op == &CodeGenLLVM::fmax) {
        // Selecting an operand needs no rounding: pick from the narrow values.
        llvm::Value *pick_a = op == &CodeGenLLVM::fmin ? builder_->CreateFCmpOLT(wa, wb)
                                                       : builder_->CreateFCmpOGT(wa, wb);
        return builder_->CreateSelect(pick_a, a, b);
    }
    return narrow_float(r, Float(32, t.lanes()), t);
}

// ---------------------------------------------------------------------------------------------
// Integer division with Euclidean semantics

llvm::Value *CodeGenLLVM::int_div(Type t, llvm::Value *a, llvm::Value *b) {
    llvm::Value *zero = constant_int(t, 0), *one = constant_int(t, 1);
    llvm::Value *is_zero = builder_->CreateICmpEQ(b, zero);
    if (t.is_uint()) {
        llvm::Value *safe = builder_->CreateSelect(is_zero, one, b);
        return builder_->CreateSelect(is_zero, zero, builder_->CreateUDiv(a, safe));
    }
    // Divisors 0 and -1 are handled apart: 0 by the semantics, -1 because LLVM's sdiv traps on
    // INT_MIN / -1 (which must wrap for narrow types).
    llvm::Value *is_minus_one = builder_->CreateICmpEQ(b, constant_int(t, -1));
    llvm::Value *safe = builder_->CreateSelect(builder_->CreateOr(is_zero, is_minus_one), one, b);
    llvm::Value *q = builder_->CreateSDiv(a, safe);
    llvm::Value *r = builder_->CreateSRem(a, safe);
    llvm::Value *adjusted =
        builder_->CreateSelect(builder_->CreateICmpSGT(safe, zero), builder_->CreateSub(q, one),
                               builder_->CreateAdd(q, one));
    q = builder_->CreateSelect(builder_->CreateICmpSLT(r, zero), adjusted, q);
    q = builder_->CreateSelect(is_minus_one, builder_->CreateSub(zero, a), q);
    return builder_->CreateSelect(is_zero, zero, q);
}

llvm::Value *CodeGenLLVM::int_mod(Type t, llvm::Value *a, llvm::Value *b) {
    llvm::Value *zero = constant_int(t, 0), *one = constant_int(t, 1);
    llvm::Value *is_zero = builder_->CreateICmpEQ(b, zero);
    if (t.is_uint()) {
        llvm::Value *safe = builder_->CreateSelect(is_zero, one, b);
        return builder_->CreateSelect(is_zero, zero, builder_->CreateURem(a, safe));
    }
    llvm::Value *is_minus_one = builder_->CreateICmpEQ(b, constant_int(t, -1));
    llvm::Value *degenerate = builder_->CreateOr(is_zero, is_minus_one);
    llvm::Value *safe = builder_->CreateSelect(degenerate, one, b);
    llvm::Value *r = builder_->CreateSRem(a, safe);
    llvm::Value *fixed =
        builder_->CreateSelect(builder_->CreateICmpSGT(safe, zero), builder_->CreateAdd(r, safe),
                               builder_->CreateSub(r, safe));
    r = builder_->CreateSelect(builder_->CreateICmpSLT(r, zero), fixed, r);
    return builder_->CreateSelect(degenerate, zero, r);
}

// ---------------------------------------------------------------------------------------------
// Leaves

void CodeGenLLVM::visit(const IntImm *op) {
    value_ = constant_int(op->type, op->value);
}
void CodeGenLLVM::visit(const UIntImm *op) {
    value_ = llvm::ConstantInt::get(llvm_type(op->type), op->value, false);
}
void CodeGenLLVM::visit(const FloatImm *op) {
    llvm::Type *t = llvm_type(op->type);
    if (op->type.is_bfloat()) {
        // Build from the exact bits: the value is already rounded to bfloat16.
        float f = static_cast<float>(op->value);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        value_ = builder_->CreateBitCast(
            llvm::ConstantInt::get(llvm::Type::getInt16Ty(context_), bits >> 16), t);
        return;
    }
    value_ = llvm::ConstantFP::get(t, op->value);
}
void CodeGenLLVM::visit(const StringImm *op) {
    value_ = builder_->CreateGlobalStringPtr(op->value);
}
void CodeGenLLVM::visit(const Variable *op) {
    value_ = lookup(op->name);
}

// ---------------------------------------------------------------------------------------------
// Arithmetic

void CodeGenLLVM::visit(const Add *op) {
    for (const auto &[acc, sum] : {std::pair(op->a, op->b), std::pair(op->b, op->a)}) {
        const auto *reduce = sum.as<VectorReduce>();
        if (!reduce) continue;
        if (llvm::Value *v = dot_product(acc, reduce)) {
            value_ = v;
            return;
        }
    }
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    if (t.is_float()) {
        value_ = float_op(t, a, b, &CodeGenLLVM::fadd);
    } else if (t.is_int() && t.bits() >= 32) {
        value_ = builder_->CreateNSWAdd(a, b);  // overflow is the user's bug
    } else {
        value_ = builder_->CreateAdd(a, b);
    }
}

void CodeGenLLVM::visit(const Sub *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    if (t.is_float()) {
        value_ = float_op(t, a, b, &CodeGenLLVM::fsub);
    } else if (t.is_int() && t.bits() >= 32) {
        value_ = builder_->CreateNSWSub(a, b);
    } else {
        value_ = builder_->CreateSub(a, b);
    }
}

void CodeGenLLVM::visit(const Mul *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    if (t.is_float()) {
        value_ = float_op(t, a, b, &CodeGenLLVM::fmul);
    } else if (t.is_int() && t.bits() >= 32) {
        value_ = builder_->CreateNSWMul(a, b);
    } else {
        value_ = builder_->CreateMul(a, b);
    }
}

void CodeGenLLVM::visit(const Div *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value_ = op->type.is_float() ? float_op(op->type, a, b, &CodeGenLLVM::fdiv)
                                 : int_div(op->type, a, b);
}

void CodeGenLLVM::visit(const Mod *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value_ = op->type.is_float() ? float_mod(op->type, a, b) : int_mod(op->type, a, b);
}

void CodeGenLLVM::visit(const Min *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    if (t.is_float()) {
        value_ = float_op(t, a, b, &CodeGenLLVM::fmin);
    } else {
        llvm::Value *lt =
            t.is_int() ? builder_->CreateICmpSLT(a, b) : builder_->CreateICmpULT(a, b);
        value_ = builder_->CreateSelect(lt, a, b);
    }
}

void CodeGenLLVM::visit(const Max *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    if (t.is_float()) {
        value_ = float_op(t, a, b, &CodeGenLLVM::fmax);
    } else {
        llvm::Value *gt =
            t.is_int() ? builder_->CreateICmpSGT(a, b) : builder_->CreateICmpUGT(a, b);
        value_ = builder_->CreateSelect(gt, a, b);
    }
}

// ---------------------------------------------------------------------------------------------
// Comparisons and logic

llvm::Value *CodeGenLLVM::compare(IRNodeType op, Type t, llvm::Value *a, llvm::Value *b) {
    if (t.is_float()) {
        if (is_narrow_float(t)) {
            a = widen_float(a, t);
            b = widen_float(b, t);
        }
        switch (op) {
            case IRNodeType::EQ:
                return builder_->CreateFCmpOEQ(a, b);
            case IRNodeType::NE:
                return builder_->CreateFCmpUNE(a, b);  // NaN != anything
            case IRNodeType::LT:
                return builder_->CreateFCmpOLT(a, b);
            case IRNodeType::LE:
                return builder_->CreateFCmpOLE(a, b);
            case IRNodeType::GT:
                return builder_->CreateFCmpOGT(a, b);
            case IRNodeType::GE:
                return builder_->CreateFCmpOGE(a, b);
            default:
                break;
        }
    } else {
        bool s = t.is_int();
        switch (op) {
            case IRNodeType::EQ:
                return builder_->CreateICmpEQ(a, b);
            case IRNodeType::NE:
                return builder_->CreateICmpNE(a, b);
            case IRNodeType::LT:
                return s ? builder_->CreateICmpSLT(a, b) : builder_->CreateICmpULT(a, b);
            case IRNodeType::LE:
                return s ? builder_->CreateICmpSLE(a, b) : builder_->CreateICmpULE(a, b);
            case IRNodeType::GT:
                return s ? builder_->CreateICmpSGT(a, b) : builder_->CreateICmpUGT(a, b);
            case IRNodeType::GE:
                return s ? builder_->CreateICmpSGE(a, b) : builder_->CreateICmpUGE(a, b);
            default:
                break;
        }
    }
    internal_error << "not a comparison";
    return nullptr;
}

#define DSL_CODEGEN_COMPARE(T)                                \
    void CodeGenLLVM::visit(const T *op) {                    \
        llvm::Value *a = codegen(op->a), *b = codegen(op->b); \
        value_ = compare(IRNodeType::T, op->a.type(), a, b);  \
    }
DSL_CODEGEN_COMPARE(EQ)
DSL_CODEGEN_COMPARE(NE)
DSL_CODEGEN_COMPARE(LT)
DSL_CODEGEN_COMPARE(LE)
DSL_CODEGEN_COMPARE(GT)
DSL_CODEGEN_COMPARE(GE)
#undef DSL_CODEGEN_COMPARE

void CodeGenLLVM::visit(const And *op) {
    value_ = builder_->CreateAnd(codegen(op->a), codegen(op->b));
}
void CodeGenLLVM::visit(const Or *op) {
    value_ = builder_->CreateOr(codegen(op->a), codegen(op->b));
}
void CodeGenLLVM::visit(const Not *op) {
    value_ = builder_->CreateNot(codegen(op->a));
}

void CodeGenLLVM::visit(const Select *op) {
    llvm::Value *c = codegen(op->condition);
    llvm::Value *t = codegen(op->true_value), *f = codegen(op->false_value);
    value_ = builder_->CreateSelect(c, t, f);
}

// ---------------------------------------------------------------------------------------------
// Casts

namespace {
/// The values of an integer type, as doubles (Type's own limits).
std::pair<double, double> value_range(Type t) {
    if (t.is_int()) return {double(t.int_min()), double(t.int_max())};
    return {0.0, double(t.uint_max())};
}
}  // namespace

llvm::Value *CodeGenLLVM::cast(Type from, Type to, llvm::Value *v) {
    if (from == to) return v;
    if (to.is_bool()) {
        if (from.is_float()) {
            if (is_narrow_float(from)) v = widen_float(v, from);
            return builder_->CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
        }
        return builder_->CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    }
    llvm::Type *target = llvm_type(to);
    if (from.is_float() && to.is_float()) {
        if (to.is_bfloat()) return narrow_float(v, from, to);
        if (from.is_bfloat()) {
            llvm::Value *wide = widen_float(v, from);
            return to.bits() == 32 ? wide : cast(Float(32, to.lanes()), to, wide);
        }
        return to.bits() > from.bits() ? builder_->CreateFPExt(v, target)
                                       : builder_->CreateFPTrunc(v, target);
    }
    if (from.is_float()) {
        // An out-of-range value (or NaN) gives an unspecified but defined result, never LLVM
        // poison: a clamp of the result must still hold.
        if (from.is_bfloat()) {
            v = widen_float(v, from);
        }
        if (to.bits() <= 16 && from.bits() >= 32) {
            // To 8 or 16 bits: clamp into the target's range in float (maxnum turns NaN into
            // the lower end), convert to int32 and truncate. LLVM turns a saturating
            // conversion to these widths into one scalar conversion per lane on x86.
            auto [lo, hi] = value_range(to);
            llvm::Type *ft = v->getType();
            llvm::Value *clamped = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, v,
                                                                   llvm::ConstantFP::get(ft, lo));
            clamped = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::minnum, clamped,
                                                      llvm::ConstantFP::get(ft, hi));
            llvm::Value *wide = builder_->CreateFPToSI(clamped, llvm_type(Int(32, to.lanes())));
            return builder_->CreateTrunc(wide, target);
        }
        // Out of range, LLVM's conversion is poison; frozen, it is some fixed value, which is
        // what the semantics allow, and it stays one instruction per vector (vcvttps2dq).
        // LLVM's saturating conversion (fptosi.sat) is the same value for in-range inputs, but
        // x86 lowers a vector of it to a compare, branch and scalar conversion per lane.
        llvm::Value *converted =
            to.is_int() ? builder_->CreateFPToSI(v, target) : builder_->CreateFPToUI(v, target);
        return builder_->CreateFreeze(converted);
    }
    if (to.is_float()) {
        if (to.is_bfloat()) {
            // Convert to float64 (or round to odd for wide integers) then round once more.
            Type f64 = Float(64, to.lanes());
            llvm::Value *d = cast(from, f64, v);
            return narrow_float(d, f64, to);
        }
        if (to.bits() == 16 && from.bits() > 16) {
            // Integers of magnitude >= 65520 overflow float16 to infinity. Say so explicitly:
            // LLVM folds fpext(uitofp x to half) into one conversion when it believes x's
            // significant bits fit, forgetting the exponent range (seen with x = a << 31).
            llvm::Value *converted = from.is_int() ? builder_->CreateSIToFP(v, target)
                                                   : builder_->CreateUIToFP(v, target);
            llvm::Value *inf = llvm::ConstantFP::getInfinity(llvm_type(to.element_of()));
            llvm::Value *too_big = from.is_int()
                                       ? builder_->CreateICmpSGE(v, constant_int(from, 65520))
                                       : builder_->CreateICmpUGE(v, constant_int(from, 65520));
            llvm::Value *r = builder_->CreateSelect(too_big, splat(inf, to.lanes()), converted);
            if (from.is_int()) {
                llvm::Value *neg_inf =
                    llvm::ConstantFP::getInfinity(llvm_type(to.element_of()), true);
                llvm::Value *too_small = builder_->CreateICmpSLE(v, constant_int(from, -65520));
                r = builder_->CreateSelect(too_small, splat(neg_inf, to.lanes()), r);
            }
            return r;
        }
        return from.is_int() ? builder_->CreateSIToFP(v, target)
                             : builder_->CreateUIToFP(v, target);
    }
    // Integer to integer: truncate, or extend by the source's signedness.
    if (to.bits() < from.bits()) return builder_->CreateTrunc(v, target);
    if (to.bits() == from.bits()) return v;
    return from.is_int() && !from.is_bool() ? builder_->CreateSExt(v, target)
                                            : builder_->CreateZExt(v, target);
}

namespace {

/// Whether `e` is `min(max(x, a), b)` or `max(min(x, b), a)` with constants a and b in
/// [lo, hi]: its value then lies in [lo, hi] whatever x is, NaN included (a float min or max
/// gives its second operand for NaN).
bool clamped_into(const Expr &e, double lo, double hi) {
    auto within = [&](const Expr &c) {
        auto v = as_const_float(c);
        return v && *v >= lo && *v <= hi;
    };
    if (const auto *mn = e.as<Min>()) {
        const auto *mx = mn->a.as<Max>();
        return within(mn->b) && mx && within(mx->b);
    }
    if (const auto *mx = e.as<Max>()) {
        const auto *mn = mx->a.as<Min>();
        return within(mx->b) && mn && within(mn->b);
    }
    return false;
}

}  // namespace

void CodeGenLLVM::visit(const Cast *op) {
    if (llvm::Value *v = bytes_of_words(op)) {
        value_ = v;
        return;
    }
    Type from = op->value.type(), to = op->type;
    if (from.is_float() && !from.is_bfloat() && from.bits() >= 32 && to.is_int_or_uint() &&
        (to.bits() == 8 || to.bits() == 16)) {
        auto [lo, hi] = value_range(to);
        if (clamped_into(op->value, lo, hi)) {
            // A clamp into the target's range already (`u8(clamp(v, 0.0f, 255.0f))`): convert
            // without cast()'s own clamp, which LLVM does not see is the same.
            llvm::Value *wide =
                builder_->CreateFPToSI(codegen(op->value), llvm_type(Int(32, to.lanes())));
            value_ = builder_->CreateTrunc(wide, llvm_type(to));
            return;
        }
    }
    value_ = cast(from, to, codegen(op->value));
}

// ---------------------------------------------------------------------------------------------
// Memory and vectors

void CodeGenLLVM::tag_buffer_access(llvm::Value *access, const std::string &buffer) {
    auto *instruction = llvm::dyn_cast<llvm::Instruction>(access);
    if (!instruction) return;
    // An allocation never overlaps another one or a buffer from outside; buffers from outside
    // may overlap each other (the same buffer passed twice), so they share one type.
    const std::string key = allocations_in_scope_.count(buffer) ? buffer : std::string();
    auto tag = tbaa_tags_.find(key);
    if (tag == tbaa_tags_.end()) {
        llvm::MDBuilder md(context_);
        if (!tbaa_root_) tbaa_root_ = md.createTBAARoot("dsl buffers");
        llvm::MDNode *type = md.createTBAAScalarTypeNode(
            key.empty() ? "buffer from outside" : "allocation " + key, tbaa_root_);
        tag = tbaa_tags_.emplace(key, md.createTBAAStructTagNode(type, type, 0)).first;
    }
    instruction->setMetadata(llvm::LLVMContext::MD_tbaa, tag->second);
}

llvm::Value *CodeGenLLVM::element_pointer(const std::string &buffer, Type t, llvm::Value *index) {
    llvm::Value *base = lookup(buffer);
    return builder_->CreateInBoundsGEP(memory_type(t.element_of()), base, index);
}

namespace {

/// An index as a sum of terms times constants plus a constant.
struct LinearIndex {
    std::vector<std::pair<Expr, int64_t>> terms;  // in the order they first appear
    int64_t constant = 0;
    /// The value of a let the index may look through (CodeGenLLVM::index_let_value).
    std::function<Expr(const std::string &)> let_value;

    void add(const Expr &e, int64_t scale) {
        // Scales stay far from overflowing 64 bits: past 2^31 the term is kept whole.
        constexpr int64_t kMaxScale = int64_t(1) << 31;
        Expr through;
        if (const auto *v = e.as<Variable>(); v && let_value) through = let_value(v->name);
        if (through.defined()) {
            add(through, scale);
        } else if (const auto *imm = e.as<IntImm>()) {
            constant += scale * imm->value;
        } else if (const auto *sum = e.as<Add>()) {
            add(sum->a, scale);
            add(sum->b, scale);
        } else if (const auto *difference = e.as<Sub>()) {
            add(difference->a, scale);
            add(difference->b, -scale);
        } else if (const auto *op = e.as<Mul>(); op && (op->b.as<IntImm>() || op->a.as<IntImm>())) {
            const auto *c = op->b.as<IntImm>() ? op->b.as<IntImm>() : op->a.as<IntImm>();
            const Expr &x = op->b.as<IntImm>() ? op->a : op->b;
            int64_t product = scale * c->value;
            if (c->value > -kMaxScale && c->value < kMaxScale && product > -kMaxScale &&
                product < kMaxScale) {
                add(x, product);
            } else {
                term(e, scale);
            }
        } else {
            term(e, scale);
        }
    }

  private:
    void term(const Expr &e, int64_t scale) {
        for (auto &[t, s] : terms) {
            if (equal(t, e)) {
                s += scale;
                return;
            }
        }
        terms.emplace_back(e, scale);
    }
};

}  // namespace

llvm::Value *CodeGenLLVM::index_value(const Expr &index) {
    Type t = index.type();
    if (!(t.is_int() && t.bits() == 32 && t.is_scalar())) return codegen(index);
    llvm::Type *wide = llvm::Type::getInt64Ty(context_);
    if (const auto *imm = index.as<IntImm>()) return llvm::ConstantInt::get(wide, imm->value, true);
    if (const auto *v = index.as<Variable>()) {
        if (Expr value = index_let_value(v->name); value.defined()) {
            index_let_depth_++;
            llvm::Value *result = index_value(value);
            index_let_depth_--;
            return result;
        }
    }
    if (index.as<Add>() || index.as<Sub>() || index.as<Mul>()) {
        // Sums and constant multiples, computed in 64 bits where nothing overflows, as one sum
        // of terms and then the constant: the addresses of a tile's points then differ by
        // constants only ((6 * yb + 1) * 64 and 384 * yb both become 384 * yb plus a constant),
        // which lets LLVM tell them apart and keep a tile of accumulators in registers.
        LinearIndex linear;
        linear.let_value = [this](const std::string &name) {
            Expr value = index_let_value(name);
            if (value.defined()) index_let_depth_++;  // undone below
            return value;
        };
        const int depth = index_let_depth_;
        linear.add(index, 1);
        index_let_depth_ = depth;
        llvm::Value *sum = nullptr;
        for (const auto &[term, scale] : linear.terms) {
            if (scale == 0) continue;
            llvm::Value *v = linear_term_value(term);
            if (scale == -1 && sum) {
                sum = builder_->CreateNSWSub(sum, v);
                continue;
            }
            if (scale != 1)
                v = builder_->CreateNSWMul(v, llvm::ConstantInt::get(wide, scale, true));
            sum = sum ? builder_->CreateNSWAdd(sum, v) : v;
        }
        llvm::Value *constant = llvm::ConstantInt::get(wide, linear.constant, true);
        if (!sum) return constant;
        return linear.constant == 0 ? sum : builder_->CreateNSWAdd(sum, constant);
    }
    return linear_term_value(index);
}

llvm::Value *CodeGenLLVM::linear_term_value(const Expr &index) {
    llvm::Type *wide = llvm::Type::getInt64Ty(context_);
    if (const auto *op = index.as<Mul>())
        return builder_->CreateNSWMul(index_value(op->a), index_value(op->b));
    if (const auto *op = index.as<Min>()) {
        llvm::Value *a = index_value(op->a), *b = index_value(op->b);
        return builder_->CreateSelect(builder_->CreateICmpSLT(a, b), a, b);
    }
    if (const auto *op = index.as<Max>()) {
        llvm::Value *a = index_value(op->a), *b = index_value(op->b);
        return builder_->CreateSelect(builder_->CreateICmpSGT(a, b), a, b);
    }
    return builder_->CreateSExt(codegen(index), wide);
}

void CodeGenLLVM::visit(const Load *op) {
    // As for stores: lets around the index are bound here, so that the index's shape shows.
    if (const auto *let = op->index.as<Let>()) {
        if (!expr_uses_var(op->predicate, let->name)) {
            llvm::Value *v = codegen(let->value);
            ScopedBinding<llvm::Value *> bind(symbols_, let->name, v);
            value_ =
                codegen(Load::make(op->type, op->name, let->body, op->predicate, op->alignment));
            return;
        }
    }
    if (atomic_old_.value && op->name == atomic_old_.buffer && op->type.is_scalar() &&
        equal(op->index, atomic_old_.index)) {
        value_ = atomic_old_.value;  // the running value of an atomic update (Atomics.cpp)
        return;
    }
    Type t = op->type;
    llvm::Type *mem = memory_type(t);
    llvm::Align align(t.element_of().bytes());
    bool dense = false;
    llvm::Value *base_index = nullptr;
    if (const auto *ramp = op->index.as<Ramp>()) {
        if (is_const_one(ramp->stride) && ramp->base.type().is_scalar()) {
            dense = true;
            base_index = index_value(ramp->base);
        }
    } else if (t.is_scalar()) {
        dense = true;
        base_index = index_value(op->index);
    }
    bool always = is_const_true(op->predicate);
    llvm::Value *result;
    if (llvm::Value *strided = strided_load(op)) {
        value_ = strided;
        return;
    }
    if (llvm::Value *clamped = clamped_ramp_load(op)) {
        value_ = clamped;
        return;
    }
    if (llvm::Value *planar = planar_load(op)) {
        value_ = planar;
        return;
    }
    if (dense) {
        llvm::Value *ptr = element_pointer(op->name, t, base_index);
        if (always) {
            result = builder_->CreateAlignedLoad(mem, ptr, align);
        } else if (t.is_scalar()) {
            // A scalar predicated load: branch-free via select on a safe address is not possible
            // in general, so use a masked load of one lane.
            llvm::Value *mask = splat(codegen(op->predicate), 1);
            result = builder_->CreateMaskedLoad(mem, ptr, align, mask,
                                                llvm::Constant::getNullValue(mem));
        } else {
            llvm::Value *mask = codegen(op->predicate);
            result = builder_->CreateMaskedLoad(mem, ptr, align, mask,
                                                llvm::Constant::getNullValue(mem));
        }
        tag_buffer_access(result, op->name);
    } else if (!always && t.element_of().bits() < 32) {
        result = narrow_masked_gather(op, mem, align);
    } else {
        llvm::Value *index = codegen(op->index);
        llvm::Value *ptrs = element_pointer(op->name, t, index);
        llvm::Value *mask = always ? llvm::Constant::getAllOnesValue(llvm_type(Bool(t.lanes())))
                                   : codegen(op->predicate);
        result =
            builder_->CreateMaskedGather(mem, ptrs, align, mask, llvm::Constant::getNullValue(mem));
        // Tagged like a dense load: an untagged gather may alias every store, which keeps LLVM
        // from promoting the accumulators of a loop around it to registers.
        tag_buffer_access(result, op->name);
    }
    if (t.is_bool()) result = builder_->CreateICmpNE(result, llvm::Constant::getNullValue(mem));
    value_ = result;
}

llvm::Value *CodeGenLLVM::narrow_masked_gather(const Load *op, llvm::Type *mem, llvm::Align align) {
    // x86 gathers 32- and 64-bit lanes only: LLVM turns a masked gather of narrower lanes into a
    // test and a branch per lane (a vector's tail in camera_pipe: a quarter of its machine code).
    // Instead, the lanes that are off read what the first lane that is on reads, which is
    // inside the buffer, so the gather needs no mask (a load and an insert per lane); it runs
    // when some lane is on, and the lanes that are off are zero as for any masked load.
    const int lanes = op->type.lanes();
    llvm::Value *index = codegen(op->index);
    llvm::Value *mask = codegen(op->predicate);
    llvm::Type *bits = llvm::Type::getIntNTy(context_, lanes);
    llvm::Value *on = builder_->CreateBitCast(mask, bits);
    llvm::Value *any = builder_->CreateICmpNE(on, llvm::ConstantInt::get(bits, 0));
    llvm::BasicBlock *before = builder_->GetInsertBlock();
    llvm::BasicBlock *gather = llvm::BasicBlock::Create(context_, op->name + ".gather", function_);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(context_, op->name + ".gathered", function_);
    builder_->CreateCondBr(any, gather, after);

    builder_->SetInsertPoint(gather);
    llvm::Value *first = builder_->CreateBinaryIntrinsic(llvm::Intrinsic::cttz, on,
                                                         builder_->getTrue());  // on != 0 here
    llvm::Value *safe = builder_->CreateExtractElement(index, first);
    llvm::Value *safe_index =
        builder_->CreateSelect(mask, index, builder_->CreateVectorSplat(lanes, safe));
    llvm::Value *ptrs = element_pointer(op->name, op->type, safe_index);
    llvm::Value *all = llvm::Constant::getAllOnesValue(mask->getType());
    llvm::Value *zero = llvm::Constant::getNullValue(mem);
    llvm::Value *loaded = builder_->CreateMaskedGather(mem, ptrs, align, all, zero);
    tag_buffer_access(loaded, op->name);
    llvm::Value *kept = builder_->CreateSelect(mask, loaded, zero);
    llvm::BasicBlock *gathered_from = builder_->GetInsertBlock();
    builder_->CreateBr(after);

    builder_->SetInsertPoint(after);
    llvm::PHINode *result = builder_->CreatePHI(mem, 2);
    result->addIncoming(zero, before);
    result->addIncoming(kept, gathered_from);
    return result;
}

llvm::Value *CodeGenLLVM::strided_load(const Load *op) {
    // Every lane is read and the stride is a small constant other than 1: dense loads of the
    // span the lanes cover and a shuffle that picks them, instead of a gather (a downsampling's
    // f(2 * x) reads every other element; a stride of -1 reverses). The span ends at the last
    // lane's element, so nothing outside what the gather would read is touched.
    const auto *ramp = op->index.as<Ramp>();
    Type t = op->type;
    if (!ramp || !ramp->base.type().is_scalar() || t.is_bool() || !is_const_true(op->predicate))
        return nullptr;
    auto stride = as_const_int(ramp->stride);
    if (!stride || *stride == 0 || *stride == 1 || *stride > 4 || *stride < -4) return nullptr;
    const int lanes = t.lanes();
    const int step = static_cast<int>(*stride > 0 ? *stride : -*stride);
    const int span = (lanes - 1) * step + 1;
    llvm::Value *first = index_value(ramp->base);
    if (*stride < 0) {
        // The lowest address is the last lane's.
        first = builder_->CreateAdd(
            first, llvm::ConstantInt::get(first->getType(), -(int64_t)(lanes - 1) * step));
    }
    // The span in loads of `lanes` elements each (registers of the loop's width), the last one
    // ending at the span's end: a load of the span's odd length (31 floats for 16 lanes at
    // stride 2) would be split by LLVM into loads of 16, 8, 4, 2 and 1 and inserts.
    llvm::Type *piece_type = memory_type(t);
    llvm::Align align(t.element_of().bytes());
    std::vector<int> offsets;
    std::vector<llvm::Value *> pieces;
    for (int at = 0;; at += lanes) {
        const int offset = std::min(at, span - lanes);
        llvm::Value *where =
            builder_->CreateAdd(first, llvm::ConstantInt::get(first->getType(), offset));
        llvm::Value *piece =
            builder_->CreateAlignedLoad(piece_type, element_pointer(op->name, t, where), align);
        tag_buffer_access(piece, op->name);
        offsets.push_back(offset);
        pieces.push_back(piece);
        if (offset + lanes >= span) break;
    }
    // Lane e of the span comes from the first piece that holds it.
    auto lane_of = [&](int e) {
        for (size_t k = 0; k < offsets.size(); k++) {
            if (e >= offsets[k] && e < offsets[k] + lanes)
                return static_cast<int>(k) * lanes + (e - offsets[k]);
        }
        return 0;
    };
    std::vector<int> picks(static_cast<size_t>(lanes));
    for (int i = 0; i < lanes; i++)
        picks[static_cast<size_t>(i)] = lane_of(*stride > 0 ? i * step : (lanes - 1 - i) * step);
    if (pieces.size() == 1) return builder_->CreateShuffleVector(pieces[0], picks);
    if (pieces.size() == 2) return builder_->CreateShuffleVector(pieces[0], pieces[1], picks);
    return builder_->CreateShuffleVector(concat_vectors(std::move(pieces)), picks);
}

void CodeGenLLVM::visit(const Ramp *op) {
    llvm::Value *base = codegen(op->base), *stride = codegen(op->stride);
    Type elem = op->base.type();
    internal_assert(elem.is_scalar())
        << "ramps of vectors are not supported by codegen: " << Expr(op);
    std::vector<llvm::Constant *> steps;
    for (int i = 0; i < op->lanes; i++) {
        steps.push_back(elem.is_float() ? llvm::ConstantFP::get(llvm_type(elem), i)
                                        : llvm::ConstantInt::get(llvm_type(elem), i));
    }
    llvm::Value *iota = llvm::ConstantVector::get(steps);
    llvm::Value *b = splat(base, op->lanes), *s = splat(stride, op->lanes);
    if (elem.is_float()) {
        // Each lane is base + i * stride with i exact; round per the type.
        value_ = float_op(op->type, b, float_op(op->type, s, iota, &CodeGenLLVM::fmul),
                          &CodeGenLLVM::fadd);
    } else {
        bool nsw = elem.is_int() && elem.bits() >= 32;
        llvm::Value *scaled = builder_->CreateMul(s, iota, "", false, nsw);
        value_ = builder_->CreateAdd(b, scaled, "", false, nsw);
    }
}

void CodeGenLLVM::visit(const Broadcast *op) {
    llvm::Value *v = codegen(op->value);
    if (op->value.type().is_scalar()) {
        value_ = splat(v, op->lanes);
        return;
    }
    // Broadcast of a vector: repeat it.
    int inner = op->value.type().lanes();
    std::vector<int> indices;
    for (int i = 0; i < op->type.lanes(); i++)
        indices.push_back(i % inner);
    value_ = builder_->CreateShuffleVector(v, indices);
}

namespace {

/// Whether `e` is index arithmetic: sums, products, quotients, remainders, mins and maxes of
/// names and constants.
class IndexArithmetic : public IRVisitor {
  public:
    bool ok = true;
    std::vector<std::string> names;

  protected:
    using IRVisitor::visit;
    void visit(const Variable *op) override { names.push_back(op->name); }
    void visit(const Let *) override { ok = false; }
    void visit(const Load *) override { ok = false; }
    void visit(const Call *) override { ok = false; }
    void visit(const Select *) override { ok = false; }
    void visit(const Cast *) override { ok = false; }
};

/// Whether `e` (an int32 vector) contains a min or a max, and the names it uses.
class ClampNames : public IRVisitor {
  public:
    bool clamps = false;
    std::vector<std::string> names;
    void include(const Expr &e) override {
        if (!stop_) IRVisitor::include(e);
    }

  protected:
    using IRVisitor::visit;
    void visit(const Min *op) override {
        clamps = true;
        IRVisitor::visit(op);
    }
    void visit(const Max *op) override {
        clamps = true;
        IRVisitor::visit(op);
    }
    void visit(const Variable *op) override { names.push_back(op->name); }
    void visit(const Let *) override {
        // Names bound inside would need their own bookkeeping; such values are left alone.
        clamps = false;
        names.clear();
        stop_ = true;
    }

  private:
    bool stop_ = false;
};

}  // namespace

void CodeGenLLVM::visit(const Let *op) {
    llvm::Value *v = codegen(op->value);
    ScopedBinding<llvm::Value *> bind(symbols_, op->name, v);
    std::optional<ScopedBinding<ClampLet>> bind_clamp, bind_index;
    // The let's value with what the names it uses are bound to here.
    auto bound_here = [&](const std::vector<std::string> &names) {
        ClampLet let{op->value, {}};
        for (const std::string &n : names)
            let.uses.emplace_back(n, symbols_.get(n));
        return let;
    };
    if (op->value.type() == Int(32)) {
        IndexArithmetic arithmetic;
        arithmetic.include(op->value);
        if (arithmetic.ok) bind_index.emplace(index_lets_, op->name, bound_here(arithmetic.names));
    }
    if (op->value.type().is_vector() && op->value.type().element_of() == Int(32)) {
        ClampNames found;
        found.include(op->value);
        if (found.clamps) bind_clamp.emplace(clamp_lets_, op->name, bound_here(found.names));
    }
    value_ = codegen(op->body);
}

Expr CodeGenLLVM::still_bound(const ClampLet *let) const {
    if (!let) return Expr();
    for (const auto &[n, bound] : let->uses) {
        const llvm::Value *const *now = symbols_.find(n);
        if (!now || *now != bound) return Expr();
    }
    return let->value;
}

Expr CodeGenLLVM::clamp_let_value(const std::string &name) const {
    return still_bound(clamp_lets_.find(name));
}

Expr CodeGenLLVM::index_let_value(const std::string &name) const {
    constexpr int kMaxDepth = 6;
    if (index_let_depth_ >= kMaxDepth) return Expr();
    return still_bound(index_lets_.find(name));
}

llvm::Value *CodeGenLLVM::concat_vectors(std::vector<llvm::Value *> parts) {
    while (parts.size() > 1) {
        std::vector<llvm::Value *> next;
        for (size_t i = 0; i + 1 < parts.size(); i += 2) {
            auto *a = llvm::cast<llvm::FixedVectorType>(parts[i]->getType());
            auto *b = llvm::cast<llvm::FixedVectorType>(parts[i + 1]->getType());
            int na = static_cast<int>(a->getNumElements()),
                nb = static_cast<int>(b->getNumElements());
            llvm::Value *x = parts[i], *y = parts[i + 1];
            // shufflevector needs equal widths: pad the narrower with poison lanes.
            int n = std::max(na, nb);
            auto pad = [&](llvm::Value *v, int have) {
                if (have == n) return v;
                std::vector<int> idx;
                for (int k = 0; k < n; k++)
                    idx.push_back(k < have ? k : -1);
                return builder_->CreateShuffleVector(v, idx);
            };
            x = pad(x, na);
            y = pad(y, nb);
            std::vector<int> idx;
            for (int k = 0; k < na; k++)
                idx.push_back(k);
            for (int k = 0; k < nb; k++)
                idx.push_back(n + k);
            next.push_back(builder_->CreateShuffleVector(x, y, idx));
        }
        if (parts.size() % 2) next.push_back(parts.back());
        parts = next;
    }
    return parts[0];
}

void CodeGenLLVM::visit(const Shuffle *op) {
    // Concatenate everything into one vector, then pick the lanes.
    std::vector<llvm::Value *> parts;
    for (const Expr &v : op->vectors) {
        llvm::Value *x = codegen(v);
        if (v.type().is_scalar()) {
            auto *one_lane = llvm::FixedVectorType::get(x->getType(), 1);
            x = builder_->CreateInsertElement(llvm::PoisonValue::get(one_lane), x, uint64_t(0));
        }
        parts.push_back(x);
    }
    llvm::Value *all = concat_vectors(std::move(parts));
    if (op->type.is_scalar()) {
        value_ = builder_->CreateExtractElement(all, uint64_t(op->indices[0]));
    } else {
        value_ = builder_->CreateShuffleVector(all, op->indices);
    }
}

llvm::Value *CodeGenLLVM::vector_reduce(VectorReduce::Op op, Type elem, llvm::Value *v) {
    switch (op) {
        case VectorReduce::Op::Add:
            if (elem.is_float()) {
                // Ordered: ((-0 + v0) + v1) + ... is the evaluator's left-to-right fold.
                return builder_->CreateFAddReduce(
                    llvm::ConstantFP::getNegativeZero(llvm_type(elem)), v);
            }
            return builder_->CreateAddReduce(v);
        case VectorReduce::Op::Mul:
            if (elem.is_float())
                return builder_->CreateFMulReduce(llvm::ConstantFP::get(llvm_type(elem), 1.0), v);
            return builder_->CreateMulReduce(v);
        case VectorReduce::Op::Min:
            if (elem.is_float()) return builder_->CreateFPMinReduce(v);
            return builder_->CreateIntMinReduce(v, elem.is_int());
        case VectorReduce::Op::Max:
            if (elem.is_float()) return builder_->CreateFPMaxReduce(v);
            return builder_->CreateIntMaxReduce(v, elem.is_int());
        case VectorReduce::Op::And:
            return builder_->CreateAndReduce(v);
        case VectorReduce::Op::Or:
            return builder_->CreateOrReduce(v);
    }
    return nullptr;
}

void CodeGenLLVM::visit(const VectorReduce *op) {
    if (llvm::Value *d = dot_product(Expr(), op)) {
        value_ = d;
        return;
    }
    llvm::Value *v = codegen(op->value);
    Type elem = op->type.element_of();
    int out_lanes = op->type.lanes();
    int group = op->value.type().lanes() / out_lanes;
    bool narrow = is_narrow_float(elem) &&
                  (op->op == VectorReduce::Op::Add || op->op == VectorReduce::Op::Mul);
    if (out_lanes > 1 && !is_narrow_float(elem)) {
        // Several output lanes: fold the k-th lane of every group in turn, whole vectors at a
        // time (the same left-to-right order as lane by lane).
        Type vt = op->type;
        auto fold = [&](llvm::Value *a, llvm::Value *b) -> llvm::Value * {
            bool fl = elem.is_float();
            switch (op->op) {
                case VectorReduce::Op::Add:
                    return fl ? float_op(vt, a, b, &CodeGenLLVM::fadd) : builder_->CreateAdd(a, b);
                case VectorReduce::Op::Mul:
                    return fl ? float_op(vt, a, b, &CodeGenLLVM::fmul) : builder_->CreateMul(a, b);
                case VectorReduce::Op::Min:
                    if (fl) return float_op(vt, a, b, &CodeGenLLVM::fmin);
                    return builder_->CreateSelect(elem.is_int() ? builder_->CreateICmpSLT(a, b)
                                                                : builder_->CreateICmpULT(a, b),
                                                  a, b);
                case VectorReduce::Op::Max:
                    if (fl) return float_op(vt, a, b, &CodeGenLLVM::fmax);
                    return builder_->CreateSelect(elem.is_int() ? builder_->CreateICmpSGT(a, b)
                                                                : builder_->CreateICmpUGT(a, b),
                                                  a, b);
                case VectorReduce::Op::And:
                    return builder_->CreateAnd(a, b);
                case VectorReduce::Op::Or:
                    return builder_->CreateOr(a, b);
            }
            return nullptr;
        };
        llvm::Value *r = nullptr;
        for (int k = 0; k < group; k++) {
            std::vector<int> idx;
            for (int j = 0; j < out_lanes; j++)
                idx.push_back(j * group + k);
            llvm::Value *part = builder_->CreateShuffleVector(v, idx);
            r = r ? fold(r, part) : part;
        }
        value_ = r;
        return;
    }
    std::vector<llvm::Value *> results;
    for (int j = 0; j < out_lanes; j++) {
        std::vector<int> idx;
        for (int k = 0; k < group; k++)
            idx.push_back(j * group + k);
        llvm::Value *part =
            group == op->value.type().lanes() ? v : builder_->CreateShuffleVector(v, idx);
        llvm::Value *r;
        if (narrow) {
            // Round after every step, as the semantics say: fold lane by lane.
            r = builder_->CreateExtractElement(part, uint64_t(0));
            for (int k = 1; k < group; k++) {
                llvm::Value *x = builder_->CreateExtractElement(part, uint64_t(k));
                r = float_op(
                    elem, r, x,
                    op->op == VectorReduce::Op::Add ? &CodeGenLLVM::fadd : &CodeGenLLVM::fmul);
            }
        } else if (is_narrow_float(elem)) {
            // Min/max select an operand: compare in float32.
            r = builder_->CreateExtractElement(part, uint64_t(0));
            for (int k = 1; k < group; k++) {
                llvm::Value *x = builder_->CreateExtractElement(part, uint64_t(k));
                r = float_op(
                    elem, r, x,
                    op->op == VectorReduce::Op::Min ? &CodeGenLLVM::fmin : &CodeGenLLVM::fmax);
            }
        } else {
            r = vector_reduce(op->op, elem, part);
        }
        results.push_back(r);
    }
    if (out_lanes == 1) {
        value_ = results[0];
        return;
    }
    llvm::Value *out = llvm::PoisonValue::get(llvm_type(op->type));
    for (int j = 0; j < out_lanes; j++)
        out = builder_->CreateInsertElement(out, results[j], uint64_t(j));
    value_ = out;
}

// ---------------------------------------------------------------------------------------------
// Calls

llvm::Value *CodeGenLLVM::shift(bool left, Type t, Type amount_type, llvm::Value *a,
                                llvm::Value *amount) {
    // Bring the amount to the value's width without losing its meaning: clamp it to
    // [-bits, bits] in its own type first (any larger magnitude behaves like bits).
    int bits = t.bits();
    Type at = amount_type;
    llvm::Value *lo = constant_int(at, at.is_int() ? -bits : 0);
    llvm::Value *hi = constant_int(at, bits);  // bits <= 64 fits every integer type but bool
    llvm::Value *gt =
        at.is_int() ? builder_->CreateICmpSGT(amount, hi) : builder_->CreateICmpUGT(amount, hi);
    llvm::Value *clamped = builder_->CreateSelect(gt, hi, amount);
    if (at.is_int())
        clamped = builder_->CreateSelect(builder_->CreateICmpSLT(clamped, lo), lo, clamped);
    // Now |clamped| <= bits; widen to 32 bits for the arithmetic below.
    Type i32 = Int(32, t.lanes());
    llvm::Value *n = at.is_int() ? builder_->CreateSExtOrTrunc(clamped, llvm_type(i32))
                                 : builder_->CreateZExtOrTrunc(clamped, llvm_type(i32));
    llvm::Value *zero32 = constant_int(i32, 0);
    llvm::Value *negative = builder_->CreateICmpSLT(n, zero32);
    llvm::Value *magnitude = builder_->CreateSelect(negative, builder_->CreateSub(zero32, n), n);
    llvm::Value *go_left = left ? builder_->CreateNot(negative) : negative;
    llvm::Value *too_far = builder_->CreateICmpSGE(magnitude, constant_int(i32, bits));
    llvm::Value *safe = builder_->CreateSelect(too_far, constant_int(i32, bits - 1), magnitude);
    llvm::Value *count = builder_->CreateZExtOrTrunc(safe, llvm_type(t));
    llvm::Value *zero = constant_int(t, 0);
    llvm::Value *shl = builder_->CreateSelect(too_far, zero, builder_->CreateShl(a, count));
    llvm::Value *shr;
    if (t.is_int()) {
        shr = builder_->CreateAShr(a, count);  // by bits-1 when too far: 0 or -1, as required
    } else {
        shr = builder_->CreateSelect(too_far, zero, builder_->CreateLShr(a, count));
    }
    return builder_->CreateSelect(go_left, shl, shr);
}

llvm::Value *CodeGenLLVM::math_call(const Call *op, llvm::Value *x, llvm::Value *y) {
    Type t = op->type;
    llvm::Type *lt = x->getType();
    using I = Call::Intrinsic;
    llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
    switch (op->intrinsic) {
        case I::Sqrt:
            id = llvm::Intrinsic::sqrt;
            break;
        case I::Exp:
            id = llvm::Intrinsic::exp;
            break;
        case I::Log:
            id = llvm::Intrinsic::log;
            break;
        case I::Pow:
            id = llvm::Intrinsic::pow;
            break;
        case I::Sin:
            id = llvm::Intrinsic::sin;
            break;
        case I::Cos:
            id = llvm::Intrinsic::cos;
            break;
        case I::Floor:
            id = llvm::Intrinsic::floor;
            break;
        case I::Ceil:
            id = llvm::Intrinsic::ceil;
            break;
        case I::Round:
            id = llvm::Intrinsic::roundeven;
            break;
        case I::Trunc:
            id = llvm::Intrinsic::trunc;
            break;
        default:
            break;
    }
    if (id != llvm::Intrinsic::not_intrinsic) {
        std::vector<llvm::Value *> args{x};
        if (y) args.push_back(y);
        return builder_->CreateCall(intrinsic(id, {lt}), args);
    }
    // tan and atan2 have no LLVM intrinsic: call libm lane by lane.
    bool is_double = t.element_of().bits() == 64;
    std::string name =
        std::string(op->intrinsic == I::Tan ? "tan" : "atan2") + (is_double ? "" : "f");
    llvm::Type *scalar = lt->getScalarType();
    std::vector<llvm::Type *> params(y ? 2 : 1, scalar);
    llvm::FunctionCallee fn =
        module_.getOrInsertFunction(name, llvm::FunctionType::get(scalar, params, false));
    if (t.is_scalar()) {
        std::vector<llvm::Value *> args{x};
        if (y) args.push_back(y);
        return builder_->CreateCall(fn, args);
    }
    llvm::Value *out = llvm::PoisonValue::get(lt);
    for (int i = 0; i < t.lanes(); i++) {
        std::vector<llvm::Value *> args{builder_->CreateExtractElement(x, uint64_t(i))};
        if (y) args.push_back(builder_->CreateExtractElement(y, uint64_t(i)));
        out = builder_->CreateInsertElement(out, builder_->CreateCall(fn, args), uint64_t(i));
    }
    return out;
}

llvm::Value *CodeGenLLVM::call_intrinsic(const Call *op) {
    using I = Call::Intrinsic;
    Type t = op->type;
    if (llvm::Value *gpu = call_gpu_intrinsic(op)) return gpu;
    if (llvm::Value *stage = call_extern_stage_intrinsic(op)) return stage;
    switch (op->intrinsic) {
        case I::BitwiseAnd:
            return builder_->CreateAnd(codegen(op->args[0]), codegen(op->args[1]));
        case I::BitwiseOr:
            return builder_->CreateOr(codegen(op->args[0]), codegen(op->args[1]));
        case I::BitwiseXor:
            return builder_->CreateXor(codegen(op->args[0]), codegen(op->args[1]));
        case I::BitwiseNot:
            return builder_->CreateNot(codegen(op->args[0]));
        case I::ShiftLeft:
        case I::ShiftRight:
            return shift(op->intrinsic == I::ShiftLeft, t, op->args[1].type(), codegen(op->args[0]),
                         codegen(op->args[1]));
        case I::Abs: {
            llvm::Value *a = codegen(op->args[0]);
            Type at = op->args[0].type();
            if (at.is_float()) {
                if (at.is_bfloat()) {
                    // Clear the sign bit.
                    Type u16 = UInt(16, at.lanes());
                    llvm::Value *bits = builder_->CreateBitCast(a, llvm_type(u16));
                    return builder_->CreateBitCast(
                        builder_->CreateAnd(bits, constant_int(u16, 0x7fff)), llvm_type(at));
                }
                return builder_->CreateCall(intrinsic(llvm::Intrinsic::fabs, {a->getType()}), {a});
            }
            if (at.is_uint()) return a;
            // |INT_MIN| wraps to INT_MIN's bit pattern, which is the right unsigned value.
            llvm::Value *neg = builder_->CreateSub(constant_int(at, 0), a);
            return builder_->CreateSelect(builder_->CreateICmpSLT(a, constant_int(at, 0)), neg, a);
        }
        case I::Absd: {
            llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]);
            Type at = op->args[0].type();
            if (at.is_float()) {
                llvm::Value *d = float_op(at, a, b, &CodeGenLLVM::fsub);
                if (at.is_bfloat()) {
                    Type u16 = UInt(16, at.lanes());
                    llvm::Value *bits = builder_->CreateBitCast(d, llvm_type(u16));
                    return builder_->CreateBitCast(
                        builder_->CreateAnd(bits, constant_int(u16, 0x7fff)), llvm_type(at));
                }
                return builder_->CreateCall(intrinsic(llvm::Intrinsic::fabs, {d->getType()}), {d});
            }
            llvm::Value *greater =
                at.is_int() ? builder_->CreateICmpSGT(a, b) : builder_->CreateICmpUGT(a, b);
            // The wrapped difference is the exact unsigned distance.
            return builder_->CreateSelect(greater, builder_->CreateSub(a, b),
                                          builder_->CreateSub(b, a));
        }
        case I::Reinterpret: {
            llvm::Value *a = codegen(op->args[0]);
            Type from = op->args[0].type();
            if (from.is_bool() || t.is_bool()) internal_error << "reinterpret of bools";
            // A pointer's bits are an integer only through ptrtoint / inttoptr (a bitcast
            // between a pointer and an integer is not valid IR).
            if (from.is_handle() != t.is_handle()) {
                llvm::Type *bits = llvm_type(t.is_handle() ? from.with_code(TypeCode::UInt)
                                                           : t.with_code(TypeCode::UInt));
                if (t.is_handle()) {
                    return builder_->CreateIntToPtr(builder_->CreateBitCast(a, bits), llvm_type(t));
                }
                return builder_->CreateBitCast(builder_->CreatePtrToInt(a, bits), llvm_type(t));
            }
            return builder_->CreateBitCast(a, llvm_type(t));
        }
        case I::IsNan: {
            llvm::Value *a = codegen(op->args[0]);
            if (is_narrow_float(op->args[0].type())) a = widen_float(a, op->args[0].type());
            return builder_->CreateFCmpUNO(a, a);
        }
        case I::Likely:
        case I::PromiseClamped:
        case I::MemoizeTag:
            return codegen(op->args[0]);
        case I::StrictFloat: {
            // Without the `contract` flag, LLVM fuses none of the operations inside.
            llvm::FastMathFlags saved = builder_->getFastMathFlags();
            builder_->clearFastMathFlags();
            llvm::Value *v = codegen(op->args[0]);
            builder_->setFastMathFlags(saved);
            return v;
        }
        case I::Print:
            return call_print(op);
        case I::Require:
            return call_require(op);
        case I::Trace:
            return call_trace(op);
        case I::MemoizationLookup:
        case I::MemoizationStore:
            return call_memoization(op);
        case I::Popcount: {
            llvm::Value *a = codegen(op->args[0]);
            return builder_->CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, a);
        }
        case I::CountLeadingZeros:
        case I::CountTrailingZeros: {
            llvm::Value *a = codegen(op->args[0]);
            // Defined for zero: the width.
            return builder_->CreateBinaryIntrinsic(op->intrinsic == I::CountLeadingZeros
                                                       ? llvm::Intrinsic::ctlz
                                                       : llvm::Intrinsic::cttz,
                                                   a, builder_->getFalse());
        }
        case I::BufferIsBoundsQuery: {
            llvm::Value *buffer = codegen(op->args[0]);
            llvm::Type *ptr = llvm::PointerType::get(context_, 0);
            llvm::Value *host =
                builder_->CreateLoad(ptr, builder_->CreateStructGEP(dsl_buffer_type(), buffer, 2));
            return builder_->CreateIsNull(host);
        }
        case I::Prefetch: {
            // The address of the element, not its value. Common subexpression elimination may
            // have wrapped the load in lets.
            std::function<void(const Expr &)> fetch = [&](const Expr &e) {
                if (const auto *let = e.as<Let>()) {
                    llvm::Value *v = codegen(let->value);
                    ScopedBinding<llvm::Value *> bind(symbols_, let->name, v);
                    fetch(let->body);
                    return;
                }
                const auto *load = e.as<Load>();
                internal_assert(load && load->type.is_scalar())
                    << "prefetch of " << e << ": storage flattening leaves a scalar load there";
                llvm::Value *ptr =
                    element_pointer(load->name, load->type, index_value(load->index));
                llvm::Type *i32 = llvm::Type::getInt32Ty(context_);
                // Read access, the highest locality (every level of the cache), data.
                builder_->CreateIntrinsic(
                    llvm::Intrinsic::prefetch, {ptr->getType()},
                    {ptr, llvm::ConstantInt::get(i32, 0), llvm::ConstantInt::get(i32, 3),
                     llvm::ConstantInt::get(i32, 1)});
            };
            fetch(op->args[0]);
            return constant_int(Int(32), 0);
        }
        case I::BufferSetBounds: {
            llvm::Value *buffer = codegen(op->args[0]);
            llvm::Type *ptr = llvm::PointerType::get(context_, 0);
            llvm::Value *dims =
                builder_->CreateLoad(ptr, builder_->CreateStructGEP(dsl_buffer_type(), buffer, 6));
            llvm::Value *dim =
                builder_->CreateInBoundsGEP(dsl_dimension_type(), dims, {codegen(op->args[1])});
            builder_->CreateStore(codegen(op->args[2]),
                                  builder_->CreateStructGEP(dsl_dimension_type(), dim, 0));
            builder_->CreateStore(codegen(op->args[3]),
                                  builder_->CreateStructGEP(dsl_dimension_type(), dim, 1));
            return constant_int(Int(32), 0);
        }
        case I::Random:
            // Definitions replace it; elsewhere it has no point to be a function of.
            user_error << "random_float(), random_int() or random_uint() is used outside the "
                       << "values of a Func's definition (in an RDom's bounds or a schedule); "
                       << "define a Func with it and use that Func instead.";
            return nullptr;
        default:
            break;
    }
    if (op->intrinsic == I::Fma) {
        llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]), *c = codegen(op->args[2]);
        if (is_narrow_float(t)) {
            a = widen_float(a, t);
            b = widen_float(b, t);
            c = widen_float(c, t);
        }
        llvm::Value *v = builder_->CreateIntrinsic(llvm::Intrinsic::fma, {a->getType()}, {a, b, c});
        return is_narrow_float(t) ? narrow_float(v, Float(32, t.lanes()), t) : v;
    }
    // Math on floats: narrow floats are computed in float32 and rounded back.
    llvm::Value *x = codegen(op->args[0]);
    llvm::Value *y = op->args.size() > 1 ? codegen(op->args[1]) : nullptr;
    if (is_narrow_float(t)) {
        x = widen_float(x, t);
        if (y) y = widen_float(y, t);
        return narrow_float(math_call(op, x, y), Float(32, t.lanes()), t);
    }
    return math_call(op, x, y);
}

void CodeGenLLVM::visit(const Call *op) {
    switch (op->call_type) {
        case Call::CallType::Intrinsic:
            value_ = call_intrinsic(op);
            return;
        case Call::CallType::Extern:
        case Call::CallType::PureExtern: {
            std::vector<llvm::Value *> args;
            std::vector<llvm::Type *> types;
            for (const Expr &a : op->args) {
                args.push_back(codegen(a));
                types.push_back(args.back()->getType());
            }
            llvm::FunctionCallee fn = module_.getOrInsertFunction(
                op->name, llvm::FunctionType::get(llvm_type(op->type), types, false));
            llvm::CallInst *call = builder_->CreateCall(fn, args);
            // The C calling convention's view of narrow integers: the caller extends them.
            auto extension = [](Type t) {
                if (!(t.is_int() || t.is_uint()) || t.bits() >= 32) return llvm::Attribute::None;
                return t.is_int() ? llvm::Attribute::SExt : llvm::Attribute::ZExt;
            };
            for (size_t i = 0; i < op->args.size(); i++) {
                if (auto kind = extension(op->args[i].type()); kind != llvm::Attribute::None)
                    call->addParamAttr(static_cast<unsigned>(i), kind);
            }
            if (auto kind = extension(op->type); kind != llvm::Attribute::None)
                call->addRetAttr(kind);
            if (op->call_type == Call::CallType::PureExtern) {
                // DSL_PURE_EXTERN: LLVM may combine and hoist such calls.
                call->setDoesNotAccessMemory();
                call->setDoesNotThrow();
                call->addFnAttr(llvm::Attribute::WillReturn);
            }
            value_ = call;
            return;
        }
        case Call::CallType::Func:
        case Call::CallType::Image:
            internal_error << "codegen met a call to " << op->name
                           << ", which lowering should have turned into loads";
    }
}

}  // namespace dsl::codegen
