// Loads whose lanes read a few short runs of elements, as one dense load per run and a shuffle.
//
// Once the simplifier knows a vector's first lane is aligned, an upsampling's f(x / 2) reads at
// `x16(b) + <0, 0, 1, 1, ..., 7, 7>`, which is no longer the `ramp / 2` that lowering's
// DividedRampLoads rewrites; and a transposed convolution's interleave of its phases reads at
// `x16(b) + <0, 0, 1, 1, ...> + <0, 1, 0, 1, ...> * x16(plane)`, the stride between phase planes
// known only when it runs. Left to LLVM both are gathers. Here the index is taken apart into a
// scalar base, a constant offset per lane and, optionally, a constant multiple per lane of one
// scalar stride; the lanes that share a multiple read a run between their least and greatest
// offset, loaded densely (elements between two a lane reads lie inside the same buffer), and a
// shuffle of the runs gives the lanes.
#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "codegen/CodeGenLLVMInternal.h"
#include "ir/IREquality.h"
#include "ir/IROperator.h"

namespace dsl::codegen {

using namespace ir;

namespace {

/// At most this many runs, each of at most twice the lanes.
constexpr size_t kMaxRuns = 4;

/// An index as base + offsets[i] + planes[i] * plane in lane i.
struct LaneForm {
    Expr base;
    std::vector<int64_t> offsets, planes;
    Expr plane;
};

/// The lanes of `e` when it is a vector of integer constants.
std::optional<std::vector<int64_t>> constant_lanes(const Expr &e) {
    const int lanes = e.type().lanes();
    if (const auto *b = e.as<Broadcast>()) {
        auto v = as_const_int(b->value);
        if (!v || !b->value.type().is_scalar()) return std::nullopt;
        return std::vector<int64_t>(static_cast<size_t>(lanes), *v);
    }
    if (const auto *r = e.as<Ramp>()) {
        auto b = as_const_int(r->base), s = as_const_int(r->stride);
        if (!b || !s || !r->base.type().is_scalar()) return std::nullopt;
        std::vector<int64_t> out;
        for (int i = 0; i < lanes; i++)
            out.push_back(*b + *s * i);
        return out;
    }
    if (const auto *sh = e.as<Shuffle>()) {
        std::vector<int64_t> all;
        for (const Expr &v : sh->vectors) {
            if (v.type().is_scalar()) {
                auto c = as_const_int(v);
                if (!c) return std::nullopt;
                all.push_back(*c);
                continue;
            }
            auto c = constant_lanes(v);
            if (!c) return std::nullopt;
            all.insert(all.end(), c->begin(), c->end());
        }
        std::vector<int64_t> out;
        for (int i : sh->indices) {
            if (i < 0 || static_cast<size_t>(i) >= all.size()) return std::nullopt;
            out.push_back(all[static_cast<size_t>(i)]);
        }
        return out;
    }
    return std::nullopt;
}

/// Adds `sign` times `e` into `f`; false when `e` is not of the form.
bool decompose(const Expr &e, int64_t sign, LaneForm &f) {
    const size_t lanes = f.offsets.size();
    if (auto c = constant_lanes(e)) {
        for (size_t i = 0; i < lanes; i++)
            f.offsets[i] += sign * (*c)[i];
        return true;
    }
    if (const auto *b = e.as<Broadcast>()) {
        if (!b->value.type().is_scalar()) return false;
        f.base = sign > 0 ? f.base + b->value : f.base - b->value;
        return true;
    }
    if (const auto *r = e.as<Ramp>()) {
        auto s = as_const_int(r->stride);
        if (!s || !r->base.type().is_scalar()) return false;
        f.base = sign > 0 ? f.base + r->base : f.base - r->base;
        for (size_t i = 0; i < lanes; i++)
            f.offsets[i] += sign * *s * static_cast<int64_t>(i);
        return true;
    }
    if (const auto *a = e.as<Add>()) return decompose(a->a, sign, f) && decompose(a->b, sign, f);
    if (const auto *s = e.as<Sub>()) return decompose(s->a, sign, f) && decompose(s->b, -sign, f);
    if (const auto *m = e.as<Mul>()) {
        // (a scalar plus constant lanes) times a scalar: a multiple of a stride per lane.
        for (int side = 0; side < 2; side++) {
            const Expr &x = side == 0 ? m->a : m->b, &y = side == 0 ? m->b : m->a;
            const auto *b = y.as<Broadcast>();
            if (!b || !b->value.type().is_scalar()) continue;
            LaneForm g;
            g.base = make_zero(Int(32));
            g.offsets.assign(lanes, 0);
            g.planes.assign(lanes, 0);
            if (!decompose(x, 1, g) || g.plane.defined()) continue;
            const Expr scaled = g.base * b->value;
            f.base = sign > 0 ? f.base + scaled : f.base - scaled;
            if (auto k = as_const_int(b->value)) {
                for (size_t i = 0; i < lanes; i++)
                    f.offsets[i] += sign * *k * g.offsets[i];
                return true;
            }
            if (f.plane.defined() && !equal(f.plane, b->value)) return false;
            f.plane = b->value;
            for (size_t i = 0; i < lanes; i++)
                f.planes[i] += sign * g.offsets[i];
            return true;
        }
    }
    return false;
}

}  // namespace

llvm::Value *CodeGenLLVM::planar_load(const Load *op) {
    const Type t = op->type;
    const int lanes = t.lanes();
    if (lanes < 2 || t.is_bool() || !is_const_true(op->predicate) ||
        op->index.type().element_of() != Int(32) || op->index.as<Ramp>()) {
        return nullptr;
    }
    LaneForm f;
    f.base = make_zero(Int(32));
    f.offsets.assign(static_cast<size_t>(lanes), 0);
    f.planes.assign(static_cast<size_t>(lanes), 0);
    if (!decompose(op->index, 1, f)) return nullptr;
    // The runs: lanes of one plane, between their least and greatest offset.
    struct Run {
        int64_t lo = 0, hi = 0;
    };
    std::map<int64_t, Run> runs;
    for (int i = 0; i < lanes; i++) {
        const int64_t p = f.planes[static_cast<size_t>(i)], o = f.offsets[static_cast<size_t>(i)];
        auto it = runs.find(p);
        if (it == runs.end()) {
            runs[p] = Run{o, o};
        } else {
            it->second.lo = std::min(it->second.lo, o);
            it->second.hi = std::max(it->second.hi, o);
        }
    }
    if (runs.size() > kMaxRuns) return nullptr;
    for (const auto &[p, r] : runs) {
        if (r.hi - r.lo + 1 > 2 * static_cast<int64_t>(lanes)) return nullptr;
    }
    std::vector<llvm::Value *> pieces;
    std::map<int64_t, int> first_lane;  // of each run in the concatenation
    int at = 0;
    llvm::Align align(t.element_of().bytes());
    for (const auto &[p, r] : runs) {
        const int span = static_cast<int>(r.hi - r.lo + 1);
        Expr start = f.base;
        if (p != 0) start = start + f.plane * make_const(Int(32), p);
        llvm::Value *first = index_value(start);
        llvm::Value *where =
            builder_->CreateAdd(first, llvm::ConstantInt::get(first->getType(), r.lo));
        // A vector type even for a run of one element (all its lanes read the same one).
        llvm::Type *run_type = llvm::FixedVectorType::get(memory_type(t.element_of()), span);
        llvm::Value *piece =
            builder_->CreateAlignedLoad(run_type, element_pointer(op->name, t, where), align);
        tag_buffer_access(piece, op->name);
        pieces.push_back(piece);
        first_lane[p] = at;
        at += span;
    }
    std::vector<int> picks(static_cast<size_t>(lanes));
    for (int i = 0; i < lanes; i++) {
        const int64_t p = f.planes[static_cast<size_t>(i)];
        picks[static_cast<size_t>(i)] =
            first_lane[p] + static_cast<int>(f.offsets[static_cast<size_t>(i)] - runs[p].lo);
    }
    llvm::Value *all = pieces.size() == 1 ? pieces[0] : concat_vectors(std::move(pieces));
    return builder_->CreateShuffleVector(all, picks);
}

}  // namespace dsl::codegen
