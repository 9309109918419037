// Loads through a boundary condition's clamp, as a dense load and a permutation.
//
// A loop partitioned at a boundary condition still runs a few edge iterations whose vector
// index is `clamp(ramp(b, s, n), lo, hi) + c`: repeat_edge's clamp of x in a stencil's first
// and last vectors (s = 1), or of 2x + 1 in a deinterleave (s = 2). Left to LLVM such a load is
// a gather (n scalar loads on most x86 cores). The lanes' clamped indices are a chain of min
// and max with values the same in every lane applied to b, b + s, ..., b + s(n - 1), so they
// are non-decreasing, step by at most s, and lie between f(b) and f(b + s(n - 1)) (f the
// chain). Masked dense loads of exactly those elements (nothing the gather would not read), s
// vectors of n at most, and a permutation of each by f(b + s i) - f(b), each lane taken from
// the vector that holds its element, give the same lanes.
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IntrinsicsX86.h>

#include <utility>
#include <vector>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/IROperator.h"

namespace dsl::codegen {

using namespace ir;

namespace {

/// The largest ramp stride handled: each chunk of lanes then needs up to this many dense loads
/// and permutations, which still beats a gather of 16 lanes.
constexpr int64_t kMaxClampedStride = 4;

/// One min or max of the chain, with its operand that is the same in every lane.
struct ChainStep {
    bool is_min;
    Expr other;
};

/// The ramp of a small positive constant stride (at most kMaxClampedStride) that a chain of
/// mins and maxes clamps, with the steps from the innermost out; null if `e` is not such a
/// chain. Which operand is the bound is told by the other one
/// being the chain's continuation (a Min, Max or Ramp); that the bounds are the same in every
/// lane is checked on the generated values.
const Ramp *clamp_chain(const Expr &e, std::vector<ChainStep> &steps) {
    if (const auto *r = e.as<Ramp>()) {
        auto stride = as_const_int(r->stride);
        if (!stride || *stride < 1 || *stride > kMaxClampedStride || !r->base.type().is_scalar())
            return nullptr;
        return r;
    }
    auto continues = [](const Expr &x) { return x.as<Min>() || x.as<Max>() || x.as<Ramp>(); };
    Expr a, b;
    bool is_min;
    if (const auto *mn = e.as<Min>()) {
        a = mn->a, b = mn->b, is_min = true;
    } else if (const auto *mx = e.as<Max>()) {
        a = mx->a, b = mx->b, is_min = false;
    } else {
        return nullptr;
    }
    if (!continues(a)) std::swap(a, b);
    if (!continues(a)) return nullptr;
    const Ramp *r = clamp_chain(a, steps);
    if (r) steps.push_back({is_min, b});
    return r;
}

}  // namespace

/// The terms of a sum of vectors, each with whether it is subtracted; a let CSE made of a
/// clamp (or of a sum holding one) counts as its value.
void CodeGenLLVM::sum_terms(const Expr &e, bool negated,
                            std::vector<std::pair<Expr, bool>> &terms) const {
    if (const auto *a = e.as<Add>()) {
        sum_terms(a->a, negated, terms);
        sum_terms(a->b, negated, terms);
    } else if (const auto *s = e.as<Sub>()) {
        sum_terms(s->a, negated, terms);
        sum_terms(s->b, !negated, terms);
    } else if (Expr value;
               e.as<Variable>() && (value = clamp_let_value(e.as<Variable>()->name)).defined()) {
        sum_terms(value, negated, terms);
    } else {
        terms.emplace_back(e, negated);
    }
}

llvm::Intrinsic::ID CodeGenLLVM::permute_intrinsic(int bits, int lanes) const {
    const X86Features &p = x86_;
    llvm::Intrinsic::ID id = llvm::Intrinsic::not_intrinsic;
    switch (bits * 1000 + lanes) {
        case 32008:
            if (p.avx2) id = llvm::Intrinsic::x86_avx2_permd;
            break;
        case 32016:
            if (p.avx512f) id = llvm::Intrinsic::x86_avx512_permvar_si_512;
            break;
        case 64004:
            if (p.avx512f && p.avx512vl) id = llvm::Intrinsic::x86_avx512_permvar_di_256;
            break;
        case 64008:
            if (p.avx512f) id = llvm::Intrinsic::x86_avx512_permvar_di_512;
            break;
        case 16008:
            if (p.avx512bw && p.avx512vl) id = llvm::Intrinsic::x86_avx512_permvar_hi_128;
            break;
        case 16016:
            if (p.avx512bw && p.avx512vl) id = llvm::Intrinsic::x86_avx512_permvar_hi_256;
            break;
        case 16032:
            if (p.avx512bw) id = llvm::Intrinsic::x86_avx512_permvar_hi_512;
            break;
        case 8016:
            // pshufb reads the low four bits of each index, which is all of [0, 16); masked
            // byte loads need AVX-512BW and VL.
            if (p.ssse3 && p.avx512bw && p.avx512vl) id = llvm::Intrinsic::x86_ssse3_pshuf_b_128;
            break;
        case 8032:
            if (p.avx512vbmi && p.avx512vl) id = llvm::Intrinsic::x86_avx512_permvar_qi_256;
            break;
        case 8064:
            if (p.avx512vbmi) id = llvm::Intrinsic::x86_avx512_permvar_qi_512;
            break;
        default:
            break;
    }
    return id;
}

llvm::Value *CodeGenLLVM::dynamic_permute(llvm::Value *v, llvm::Value *index) {
    auto *type = llvm::cast<llvm::FixedVectorType>(v->getType());
    const int lanes = static_cast<int>(type->getNumElements());
    const int bits = static_cast<int>(type->getScalarSizeInBits());
    const llvm::Intrinsic::ID id = permute_intrinsic(bits, lanes);
    if (id == llvm::Intrinsic::not_intrinsic) return nullptr;
    auto *ints = llvm::FixedVectorType::get(llvm::Type::getIntNTy(context_, bits), lanes);
    llvm::Value *x = builder_->CreateBitCast(v, ints);
    llvm::Value *i = builder_->CreateSExtOrTrunc(index, ints);
    llvm::Value *permuted = builder_->CreateCall(intrinsic(id, {}), {x, i});
    return builder_->CreateBitCast(permuted, type);
}

llvm::Value *CodeGenLLVM::clamped_ramp_load(const Load *op) {
    Type t = op->type;
    if (t.is_scalar() || t.is_bool() || !is_const_true(op->predicate)) return nullptr;
    if (!op->index.type().is_int() || op->index.type().bits() != 32) return nullptr;
    std::vector<std::pair<Expr, bool>> terms;
    sum_terms(op->index, false, terms);
    const Ramp *ramp = nullptr;
    Expr clamped;
    std::vector<ChainStep> steps;
    for (const auto &[term, negated] : terms) {
        std::vector<ChainStep> s;
        const Ramp *r = clamp_chain(term, s);
        if (!r) continue;
        if (ramp || negated || s.empty()) return nullptr;  // one clamp, added
        ramp = r, clamped = term, steps = std::move(s);
    }
    if (!ramp) return nullptr;

    // Chunks of the widest permutation the target has for the element size.
    llvm::Type *mem = memory_type(t);
    const int lanes = t.lanes();
    const int bits = static_cast<int>(mem->getScalarSizeInBits());
    int chunk = 0;
    for (int n = lanes; n >= 4 && chunk == 0; n /= 2) {
        if (lanes % n == 0 && permute_intrinsic(bits, n) != llvm::Intrinsic::not_intrinsic)
            chunk = n;
    }
    if (chunk == 0) return nullptr;

    // The bounds and every other term must be the same in every lane.
    auto uniform = [&](const Expr &e) -> llvm::Value * {
        llvm::Value *v = codegen(e);
        if (!llvm::isSplatValue(v)) return nullptr;
        return builder_->CreateExtractElement(v, uint64_t(0));
    };
    std::vector<llvm::Value *> bounds;
    for (const ChainStep &s : steps) {
        llvm::Value *b = uniform(s.other);
        if (!b) return nullptr;
        bounds.push_back(b);
    }
    llvm::Value *offset = nullptr;
    for (const auto &[term, negated] : terms) {
        if (term.same_as(clamped)) continue;
        llvm::Value *v = uniform(term);
        if (!v) return nullptr;
        if (!offset) {
            offset = negated ? builder_->CreateNeg(v) : v;
        } else {
            offset = negated ? builder_->CreateSub(offset, v) : builder_->CreateAdd(offset, v);
        }
    }
    auto chain = [&](llvm::Value *x) {
        for (size_t k = 0; k < steps.size(); k++) {
            x = builder_->CreateBinaryIntrinsic(
                steps[k].is_min ? llvm::Intrinsic::smin : llvm::Intrinsic::smax, x, bounds[k]);
        }
        return x;
    };

    llvm::Value *base = codegen(ramp->base);
    llvm::Value *indices = codegen(clamped);
    llvm::Type *i32 = base->getType();
    std::vector<llvm::Constant *> iota;
    for (int i = 0; i < chunk; i++)
        iota.push_back(llvm::ConstantInt::get(i32, i));
    llvm::Value *lane_numbers = llvm::ConstantVector::get(iota);
    auto *chunk_type =
        llvm::FixedVectorType::get(mem->getScalarType(), static_cast<unsigned>(chunk));
    const int stride = static_cast<int>(*as_const_int(ramp->stride));
    std::vector<llvm::Value *> parts;
    for (int j = 0; j < lanes; j += chunk) {
        llvm::Value *b = builder_->CreateAdd(base, llvm::ConstantInt::get(i32, j * stride));
        llvm::Value *first = chain(b);
        llvm::Value *last =
            chain(builder_->CreateAdd(b, llvm::ConstantInt::get(i32, (chunk - 1) * stride)));
        llvm::Value *start = offset ? builder_->CreateAdd(offset, first) : first;
        llvm::Value *span = splat(builder_->CreateSub(last, first), chunk);
        llvm::Value *lanes_here = indices;
        if (chunk != lanes) {
            std::vector<int> pick;
            for (int i = 0; i < chunk; i++)
                pick.push_back(j + i);
            lanes_here = builder_->CreateShuffleVector(indices, pick);
        }
        llvm::Value *within = builder_->CreateSub(lanes_here, splat(first, chunk));
        // Up to `stride` vectors of `chunk` elements from `first`, each masked to end at
        // `last`; lane i comes from vector within[i] / chunk.
        llvm::Value *result = nullptr;
        for (int k = 0; k < stride; k++) {
            llvm::Value *skipped = splat(llvm::ConstantInt::get(i32, k * chunk), chunk);
            llvm::Value *ptr = element_pointer(
                op->name, t,
                builder_->CreateSExt(
                    builder_->CreateAdd(start, llvm::ConstantInt::get(i32, k * chunk)),
                    llvm::Type::getInt64Ty(context_)));
            llvm::Value *mask =
                builder_->CreateICmpSLE(builder_->CreateAdd(lane_numbers, skipped), span);
            llvm::Value *dense =
                builder_->CreateMaskedLoad(chunk_type, ptr, llvm::Align(t.element_of().bytes()),
                                           mask, llvm::Constant::getNullValue(chunk_type));
            tag_buffer_access(dense, op->name);
            llvm::Value *permuted = dynamic_permute(dense, builder_->CreateSub(within, skipped));
            result = k == 0 ? permuted
                            : builder_->CreateSelect(builder_->CreateICmpSGE(within, skipped),
                                                     permuted, result);
        }
        parts.push_back(result);
    }
    return concat_vectors(std::move(parts));
}

}  // namespace dsl::codegen
