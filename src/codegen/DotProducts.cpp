// Integer dot products on x86: a VectorReduce that adds groups of products of narrow integers,
// plus an accumulator, as the instructions made for them.
//
// An atomic update vectorized over an RVar of 4 (inside a vectorized pure Var) becomes
// `acc + VectorReduce(Add, i32(a) * i32(b), n)` with a and b vectors of 4n bytes, each group of
// four adjacent lanes one output lane. With AVX512-VNNI that is `vpdpbusd acc, a, b` when a is
// unsigned and b signed (one instruction per 16 output lanes); without it, or for 16-bit
// operands, the products of pairs are summed by `vpmaddwd` (16-bit operands, exact) and the
// pairs' sums added. Anything else falls back to the generic reduction.
#include <llvm/IR/IntrinsicsX86.h>

#include <optional>
#include <vector>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/IROperator.h"

namespace dsl::codegen {

using namespace ir;

namespace {

/// `e` without a widening cast to int32 (or the cast of a constant), with its narrow type.
/// The simplifier may have moved the cast inside a broadcast or a shuffle of one vector.
std::optional<Expr> narrowed(const Expr &e) {
    if (const auto *c = e.as<Cast>()) {
        Type from = c->value.type();
        if ((from.is_int() || from.is_uint()) && from.bits() < 32) return c->value;
    }
    if (const auto *b = e.as<Broadcast>()) {
        if (auto v = narrowed(b->value)) return Broadcast::make(*v, b->lanes);
    }
    if (const auto *s = e.as<Shuffle>(); s && s->vectors.size() == 1) {
        if (auto v = narrowed(s->vectors[0])) return Shuffle::make({*v}, s->indices);
    }
    return std::nullopt;
}

/// A product of two values widened from at most 16 bits, as (a, b).
std::optional<std::pair<Expr, Expr>> widened_product(const Expr &e) {
    const auto *mul = e.as<Mul>();
    if (!mul) return std::nullopt;
    auto a = narrowed(mul->a), b = narrowed(mul->b);
    if (!a || !b) return std::nullopt;
    return std::pair(*a, *b);
}

/// Whether `e` is `spread(v) >> repeat(ramp(0, 8, 4))` over 32-bit words v: byte t of each
/// word, in order, lane 4k + t (the bytes of the words, little-endian); v if so.
std::optional<Expr> bytes_of_words(const Expr &e) {
    const auto *shift = e.as<Call>();
    if (!shift || shift->call_type != Call::CallType::Intrinsic ||
        shift->intrinsic != Call::Intrinsic::ShiftRight || shift->args.size() != 2) {
        return std::nullopt;
    }
    const Expr &words = shift->args[0], &amounts = shift->args[1];
    if (words.type().bits() != 32 || words.type().lanes() % 4 != 0) return std::nullopt;
    const int n = words.type().lanes() / 4;
    // The amounts: 0, 8, 16, 24 repeated.
    const Ramp *steps = nullptr;
    if (const auto *b = amounts.as<Broadcast>(); b && b->lanes == n) steps = b->value.as<Ramp>();
    if (n == 1) steps = amounts.as<Ramp>();
    if (!steps || steps->lanes != 4 || !is_const_zero(steps->base) || !is_const(steps->stride) ||
        *as_const_int(steps->stride) != 8) {
        return std::nullopt;
    }
    // The words: each repeated four times.
    if (n == 1) {
        if (const auto *b = words.as<Broadcast>(); b && b->value.type().is_scalar())
            return b->value;
        return std::nullopt;
    }
    const auto *spread = words.as<Shuffle>();
    if (!spread || spread->vectors.size() != 1 || spread->vectors[0].type().lanes() != n)
        return std::nullopt;
    for (int i = 0; i < 4 * n; i++) {
        if (spread->indices[i] != i / 4) return std::nullopt;
    }
    return spread->vectors[0];
}

}  // namespace

llvm::Value *CodeGenLLVM::bytes_of_words(const Cast *op) {
    if (op->type.bits() != 8 || op->type.is_float()) return nullptr;
    auto words = dsl::codegen::bytes_of_words(op->value);
    if (!words) return nullptr;
    llvm::Value *v = codegen(*words);
    llvm::Type *bytes = llvm::FixedVectorType::get(builder_->getInt8Ty(), op->type.lanes());
    if (op->type.is_scalar()) bytes = builder_->getInt8Ty();
    return builder_->CreateBitCast(v, bytes);
}

llvm::Value *CodeGenLLVM::dot_product(const Expr &accumulator, const VectorReduce *op) {
    Type t = op->type;
    if (op->op != VectorReduce::Op::Add || t != Int(32, t.lanes()) || t.lanes() < 4) return nullptr;
    if (accumulator.defined() && accumulator.type() != t) return nullptr;
    int group = op->value.type().lanes() / t.lanes();
    auto product = widened_product(op->value);
    if (!product) return nullptr;
    auto [a, b] = *product;
    Type ta = a.type().element_of(), tb = b.type().element_of();

    // Lanes per instruction: 16 with 512-bit vectors, else 8 or 4 with AVX512-VL.
    int n = t.lanes();
    int width = n % 16 == 0 && x86_.avx512f ? 16 : n % 8 == 0 && x86_.avx2 ? 8 : 4;
    if (n % width != 0) return nullptr;

    llvm::Value *acc =
        accumulator.defined() ? codegen(accumulator) : llvm::Constant::getNullValue(llvm_type(t));
    auto slice = [&](llvm::Value *v, int begin, int lanes) {
        std::vector<int> idx;
        for (int i = 0; i < lanes; i++)
            idx.push_back(begin + i);
        return builder_->CreateShuffleVector(v, idx);
    };
    auto run = [&](llvm::Intrinsic::ID id, std::vector<llvm::Value *> args) {
        llvm::Function *f = llvm::Intrinsic::getDeclaration(&module_, id);
        for (size_t i = 0; i < args.size(); i++)
            args[i] = builder_->CreateBitCast(args[i], f->getFunctionType()->getParamType(i));
        return builder_->CreateCall(f, args);
    };

    // u8 x i8 in groups of four: vpdpbusd (the unsigned operand first).
    bool bytes = ta.bits() == 8 && tb.bits() == 8 && group == 4;
    if (bytes && ta.is_int() && tb.is_uint()) std::swap(a, b), std::swap(ta, tb);
    bool vnni = x86_.avx512vnni && (width == 16 || x86_.avx512vl);
    if (bytes && ta.is_uint() && tb.is_int() && vnni) {
        llvm::Intrinsic::ID id = width == 16  ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                 : width == 8 ? llvm::Intrinsic::x86_avx512_vpdpbusd_256
                                              : llvm::Intrinsic::x86_avx512_vpdpbusd_128;
        llvm::Value *va = codegen(a), *vb = codegen(b);
        std::vector<llvm::Value *> parts;
        for (int i = 0; i < n; i += width) {
            parts.push_back(run(id, {slice(acc, i, width), slice(va, i * 4, width * 4),
                                     slice(vb, i * 4, width * 4)}));
        }
        return concat_vectors(parts);
    }

    // Groups of an even size of operands of at most 16 bits: vpmaddwd sums pairs of 16-bit
    // products exactly (u8, i8 and i16 all fit a signed 16-bit lane; u16 does not).
    bool fits16 = !(ta.is_uint() && ta.bits() == 16) && !(tb.is_uint() && tb.bits() == 16);
    bool pmadd = width == 16 ? x86_.avx512bw : width == 8 ? x86_.avx2 : true;
    if (!fits16 || group % 2 != 0 || !pmadd || !x86_.ssse3) return nullptr;  // ssse3: on x86
    llvm::Intrinsic::ID id = width == 16  ? llvm::Intrinsic::x86_avx512_pmaddw_d_512
                             : width == 8 ? llvm::Intrinsic::x86_avx2_pmadd_wd
                                          : llvm::Intrinsic::x86_sse2_pmadd_wd;
    int in_lanes = op->value.type().lanes();
    auto as16 = [&](const Expr &e) {
        llvm::Type *i16 = llvm::FixedVectorType::get(builder_->getInt16Ty(), in_lanes);
        llvm::Value *v = codegen(e);
        if (e.type().bits() == 16) return v;
        return e.type().is_uint() ? builder_->CreateZExt(v, i16) : builder_->CreateSExt(v, i16);
    };
    llvm::Value *va = as16(a), *vb = as16(b);
    // Lane p of the pairs' sums is a[2p] b[2p] + a[2p + 1] b[2p + 1]: output lane j adds the
    // group / 2 of them from j * group / 2 on.
    std::vector<llvm::Value *> pairs;
    for (int i = 0; i < in_lanes; i += width * 2)
        pairs.push_back(run(id, {slice(va, i, width * 2), slice(vb, i, width * 2)}));
    llvm::Value *sums = concat_vectors(pairs);
    int half = group / 2;
    llvm::Value *result = acc;
    for (int k = 0; k < half; k++) {
        std::vector<int> idx;
        for (int j = 0; j < n; j++)
            idx.push_back(j * half + k);
        llvm::Value *part = half == 1 ? sums : builder_->CreateShuffleVector(sums, idx);
        result = builder_->CreateAdd(result, part);
    }
    return result;
}

}  // namespace dsl::codegen
