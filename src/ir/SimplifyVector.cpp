// Rules for vectors (Ramp, Broadcast, Shuffle, VectorReduce), Cast, Call and Load.
#include "ir/IROperator.h"
#include "ir/SimplifyInternal.h"

namespace dsl::ir::simplify_internal {

namespace {

/// An integer constant with every bit set.
bool is_all_ones(const Expr &e) {
    Type t = e.type().element_of();
    if (auto i = as_const_int(e)) return *i == -1;
    if (auto u = as_const_uint(e)) return !t.is_bool() && *u == t.uint_max();
    return false;
}

}  // namespace

Expr Simplifier::visit_cast(const Cast *op, ExprInfo *info) {
    ExprInfo iv;
    Expr v = mutate(op->value, &iv);
    Type t = op->type, from = v.type();
    if (t == from) {
        *info = iv;
        return v;
    }
    if (auto f = fold_if_const(Cast::make(t, v), {v})) return rewrite(*f, info);
    if (const auto *b = v.as<Broadcast>()) {
        return rewrite(
            Broadcast::make(Cast::make(t.with_lanes(b->value.type().lanes()), b->value), b->lanes),
            info);
    }
    const bool int_to_int = is_int(t) && is_int(from);
    if (const auto *r = v.as<Ramp>()) {
        // Truncation is a ring homomorphism, and so is widening when the ramp cannot overflow.
        if (int_to_int && (t.bits() <= from.bits() || no_overflow(from))) {
            Type lane_type = t.with_lanes(r->base.type().lanes());
            return rewrite(Ramp::make(Cast::make(lane_type, r->base),
                                      Cast::make(lane_type, r->stride), r->lanes),
                           info);
        }
    }
    if (const auto *inner = v.as<Cast>()) {
        Type mid = from, src = inner->value.type();
        // The middle type holds every value exactly, or all three are integers and the outer
        // cast truncates at least as much as the inner one.
        bool exact = mid.can_represent(src);
        bool truncations = is_int(t) && is_int(mid) && is_int(src) && t.bits() <= mid.bits();
        if (exact || truncations) {
            if (src == t) return rewrite(inner->value, info);
            return rewrite(Cast::make(t, inner->value), info);
        }
    }
    if (int_to_int || (t.is_int_or_uint() && from.is_bool())) {
        *info = make_info(t, wide(iv.min), wide(iv.max), iv.alignment, /*overflow_is_ub=*/false);
        if (!t.is_bool() && info->is_const()) return int_const(t, *info->min);
    } else if (t.is_int_or_uint()) {
        *info = type_info(t);
    }
    if (v.same_as(op->value)) return op;
    return Cast::make(t, v);
}

ModulusRemainder Simplifier::index_alignment(const Expr &index, const ModulusRemainder &known) {
    // The alignment of the first lane: the base of a ramp, or the index itself.
    ExprInfo first;
    if (const auto *r = index.as<Ramp>()) {
        mutate(r->base, &first);
    } else {
        mutate(index, &first);
    }
    // A constant index needs no alignment fact; keep what the caller said.
    const ModulusRemainder &derived = first.alignment;
    if (known.is_constant() || derived.is_constant()) return known;
    return derived.modulus > known.modulus ? derived : known;
}

Expr Simplifier::visit_load(const Load *op, ExprInfo *info) {
    Expr index = mutate(op->index);
    Expr predicate = mutate(op->predicate);
    *info = type_info(op->type);
    // Lanes that are masked off read as zero.
    if (is_const_false(predicate)) return make_zero(op->type);
    // Every lane reads the same element (a row's value broadcast across a vectorized column):
    // one scalar load, broadcast. Codegen would otherwise gather the same address n times, and
    // a gather is opaque enough to LLVM's alias analysis to keep accumulators out of registers.
    if (const auto *b = index.as<Broadcast>(); b && b->value.type().is_scalar()) {
        const auto *pb = predicate.as<Broadcast>();
        Expr scalar_predicate = is_const_true(predicate)             ? make_bool(true)
                                : pb && pb->value.type().is_scalar() ? pb->value
                                                                     : Expr();
        if (scalar_predicate.defined()) {
            Expr scalar = Load::make(op->type.element_of(), op->name, b->value, scalar_predicate,
                                     index_alignment(b->value, op->alignment));
            return Broadcast::make(scalar, b->lanes);
        }
    }
    ModulusRemainder alignment = index_alignment(index, op->alignment);
    if (index.same_as(op->index) && predicate.same_as(op->predicate) && alignment == op->alignment)
        return op;
    return Load::make(op->type, op->name, index, predicate, alignment);
}

Expr Simplifier::visit_ramp(const Ramp *op, ExprInfo *info) {
    ExprInfo ib, is;
    Expr base = mutate(op->base, &ib), stride = mutate(op->stride, &is);
    if (is_const_zero(stride)) return rewrite(Broadcast::make(base, op->lanes), info);
    Type t = op->type;
    if (is_int(t)) {
        // Every lane lies between the first and the last.
        std::optional<int128> lo, hi;
        int128 n = op->lanes - 1;
        if (ib.min && is.min && is.max) lo = std::min(int128(*ib.min), *ib.min + n * *is.min);
        if (ib.max && is.min && is.max) hi = std::max(int128(*ib.max), *ib.max + n * *is.max);
        *info = make_info(t, lo, hi, unify(ib.alignment, ib.alignment + is.alignment));
    }
    if (base.same_as(op->base) && stride.same_as(op->stride)) return op;
    return Ramp::make(base, stride, op->lanes);
}

Expr Simplifier::visit_broadcast(const Broadcast *op, ExprInfo *info) {
    Expr value = mutate(op->value, info);
    if (const auto *inner = value.as<Broadcast>()) {
        // A broadcast of a broadcast of a scalar is one broadcast.
        if (inner->value.type().is_scalar())
            return Broadcast::make(inner->value, inner->lanes * op->lanes);
    }
    if (value.same_as(op->value)) return op;
    return Broadcast::make(value, op->lanes);
}

Expr Simplifier::visit_call(const Call *op, ExprInfo *info) {
    std::vector<Expr> args(op->args.size());
    std::vector<ExprInfo> infos(op->args.size());
    bool changed = false, all_const = true;
    for (size_t i = 0; i < args.size(); i++) {
        args[i] = mutate(op->args[i], &infos[i]);
        changed |= !args[i].same_as(op->args[i]);
        all_const &= is_const_value(args[i]);
    }
    Type t = op->type;
    auto rebuilt = [&]() -> Expr {
        if (!changed) return op;
        return op->with_args(args);  // keeps the callee of Func / Image calls
    };
    *info = type_info(t);
    if (op->call_type != Call::CallType::Intrinsic) return rebuilt();
    if (all_const && !args.empty() && op->is_pure()) {
        if (auto f = fold(rebuilt())) return rewrite(*f, info);
    }
    using I = Call::Intrinsic;
    std::optional<int64_t> c1;
    if (args.size() > 1) c1 = const_int(args[1]);
    switch (op->intrinsic) {
        case I::Likely:
        case I::PromiseClamped:
        case I::MemoizeTag:
            *info = infos[0];
            break;
        case I::Reinterpret:
            if (args[0].type() == t) {
                *info = infos[0];
                return args[0];
            }
            break;
        case I::Abs:
            if (args[0].type() == t && t.is_uint()) {
                *info = infos[0];
                return args[0];
            }
            if (is_int(t) && args[0].type().is_int()) {
                if (infos[0].min_at_least(0)) return rewrite(Cast::make(t, args[0]), info);
                if (infos[0].min && infos[0].max) {
                    int128 m = std::max(-int128(*infos[0].min), int128(*infos[0].max));
                    *info = make_info(t, 0, m, ModulusRemainder::unknown());
                }
            }
            break;
        case I::BitwiseAnd:
            if (equal(args[0], args[1]) || is_all_ones(args[1])) return args[0];
            if (is_all_ones(args[0])) return args[1];
            if (is_const_zero(args[1]) || is_const_zero(args[0]))
                return rewrite(make_zero(t), info);
            if (c1 && *c1 > 0 && *c1 < INT64_MAX && ((*c1 + 1) & *c1) == 0 &&
                (t.is_uint() ? uint64_t(*c1) < t.element_of().uint_max()
                             : *c1 < t.element_of().int_max())) {
                // x & (2^k - 1) is the Euclidean x % 2^k, for signed values too.
                return rewrite(Mod::make(args[0], int_const(t, *c1 + 1)), info);
            }
            if (c1 && *c1 >= 0) *info = make_info(t, 0, *c1, ModulusRemainder::unknown());
            break;
        case I::BitwiseOr:
        case I::BitwiseXor:
            if (op->intrinsic == I::BitwiseOr && (is_all_ones(args[0]) || is_all_ones(args[1]))) {
                return rewrite(int_const(t, -1), info);
            }
            if (equal(args[0], args[1])) {
                return op->intrinsic == I::BitwiseOr ? args[0] : rewrite(make_zero(t), info);
            }
            if (is_const_zero(args[1])) return args[0];
            if (is_const_zero(args[0])) return args[1];
            break;
        case I::BitwiseNot:
            // ~x is -1 - x in two's complement (and uint_max - x unsigned), which lets the
            // arithmetic rules cancel it.
            if (is_int(t)) return rewrite(Sub::make(int_const(t, -1), args[0]), info);
            break;
        case I::Absd:
            if (equal(args[0], args[1])) return rewrite(make_zero(t), info);
            break;
        case I::ShiftLeft:
        case I::ShiftRight: {
            if (is_const_zero(args[1]) || is_const_zero(args[0])) {
                *info = infos[0];
                return args[0];
            }
            if (!is_int(t) || !c1) break;
            bool left = op->intrinsic == I::ShiftLeft;
            int64_t amount = *c1;
            if (amount < 0) {
                // A negative amount shifts the other way.
                Type at = args[1].type();
                if (amount < -4096 || !at.element_of().can_represent(-amount)) break;
                return rewrite(Call::make(t, left ? I::ShiftRight : I::ShiftLeft,
                                          {args[0], int_const(at, -amount)}),
                               info);
            }
            if (amount >= t.bits()) {
                // Everything shifted out: zero, or the sign for a right shift of a signed value.
                if (left || t.is_uint() || infos[0].min_at_least(0))
                    return rewrite(make_zero(t), info);
                if (infos[0].max_at_most(-1)) return rewrite(int_const(t, -1), info);
                break;
            }
            if (amount > 62) break;
            Expr factor = int_const(t, int64_t(1) << amount);
            if (!left) {
                // An arithmetic right shift rounds down, as Euclidean division by 2^c does.
                if (t.is_uint() || amount <= t.bits() - 2)
                    return rewrite(Div::make(args[0], factor), info);
                break;
            }
            // A left shift wraps; a multiplication may only replace it where that is the same.
            bool fits = false;
            if (infos[0].min && infos[0].max) {
                int128 scale = int128(1) << amount;
                int128 lo = *infos[0].min * scale, hi = *infos[0].max * scale;
                fits = lo >= t.element_of().int_min() && hi <= t.element_of().int_max();
            }
            // For 32/64-bit signed types the factor itself must be representable.
            if (no_overflow(t) && amount > t.bits() - 2) fits = false;
            if (!no_overflow(t) || fits) return rewrite(Mul::make(args[0], factor), info);
            *info = make_info(t, std::nullopt, std::nullopt,
                              infos[0].alignment * ModulusRemainder::constant(int64_t(1) << amount),
                              /*overflow_is_ub=*/false);
            break;
        }
        default:
            break;
    }
    return rebuilt();
}

Expr Simplifier::visit_shuffle(const Shuffle *op, ExprInfo *info) {
    // Describe every output lane as (source, lane), looking through nested shuffles.
    std::vector<Expr> sources;
    std::vector<std::pair<int, int>> input_lanes;
    ExprInfo all;
    bool first = true;
    for (const Expr &v : op->vectors) {
        ExprInfo iv;
        Expr s = mutate(v, &iv);
        all = first ? iv : unify_info(all, iv);
        first = false;
        if (const auto *inner = s.as<Shuffle>()) {
            int offset = static_cast<int>(sources.size());
            std::vector<int> starts;
            int start = 0;
            for (const Expr &iv2 : inner->vectors) {
                starts.push_back(start);
                start += iv2.type().lanes();
                sources.push_back(iv2);
            }
            for (int idx : inner->indices) {
                int k = 0;
                while (k + 1 < static_cast<int>(starts.size()) && starts[k + 1] <= idx)
                    k++;
                input_lanes.push_back({offset + k, idx - starts[k]});
            }
        } else {
            for (int i = 0; i < s.type().lanes(); i++)
                input_lanes.push_back({static_cast<int>(sources.size()), i});
            sources.push_back(s);
        }
    }
    std::vector<std::pair<int, int>> out;
    for (int idx : op->indices)
        out.push_back(input_lanes[idx]);
    const int n = static_cast<int>(out.size());
    Type t = op->type;
    if (is_int(t)) *info = make_info(t, wide(all.min), wide(all.max), all.alignment);

    // Every lane is the same scalar broadcast.
    auto scalar_of = [&](const std::pair<int, int> &l) -> const Expr * {
        const auto *b = sources[l.first].as<Broadcast>();
        return b && b->value.type().is_scalar() ? &b->value : nullptr;
    };
    if (const Expr *v0 = scalar_of(out[0])) {
        bool uniform = true;
        for (int i = 1; i < n && uniform; i++) {
            const Expr *vi = scalar_of(out[i]);
            uniform = vi && equal(*vi, *v0);
        }
        if (uniform) return rewrite(broadcast_to(*v0, n), info);
    }
    bool one_source = true;
    for (const auto &l : out)
        one_source &= l.first == out[0].first;
    if (one_source) {
        const Expr &s = sources[out[0].first];
        int start = out[0].second;
        int step = n > 1 ? out[1].second - out[0].second : 1;
        bool regular = true;
        for (int i = 0; i < n; i++)
            regular &= out[i].second == start + i * step;
        if (regular && start == 0 && step == 1 && n == s.type().lanes()) return s;
        const auto *r = s.as<Ramp>();
        if (regular && r && r->base.type().is_scalar() && is_int(r->base.type())) {
            // Lanes of a ramp form a ramp.
            Type et = r->base.type();
            Expr base = Add::make(r->base, Mul::make(r->stride, int_const(et, start)));
            if (n == 1) return rewrite(base, info);
            return rewrite(Ramp::make(base, Mul::make(r->stride, int_const(et, step)), n), info);
        }
    }
    // Concatenated ramps that continue one another form one ramp.
    if (sources.size() > 1) {
        bool concat = true;
        int lane = 0;
        for (size_t k = 0; k < sources.size() && concat; k++) {
            for (int i = 0; i < sources[k].type().lanes() && concat; i++, lane++) {
                concat = lane < n && out[lane] == std::make_pair(static_cast<int>(k), i);
            }
        }
        concat &= lane == n;
        const auto *r0 = sources[0].as<Ramp>();
        if (concat && r0 && r0->base.type().is_scalar() && is_int(r0->base.type())) {
            Expr next = r0->base;
            bool continues = true;
            for (const Expr &s : sources) {
                const auto *r = s.as<Ramp>();
                continues =
                    continues && r && equal(r->stride, r0->stride) && equal(mutate(next), r->base);
                if (!continues) break;
                next =
                    Add::make(r->base, Mul::make(r->stride, int_const(r->base.type(), r->lanes)));
            }
            if (continues) return rewrite(Ramp::make(r0->base, r0->stride, n), info);
        }
    }
    // Rebuild from the sources actually used.
    std::vector<int> renumber(sources.size(), -1), starts;
    std::vector<Expr> used;
    int total = 0;
    for (const auto &l : out) {
        if (renumber[l.first] < 0) {
            renumber[l.first] = static_cast<int>(used.size());
            used.push_back(sources[l.first]);
            starts.push_back(total);
            total += sources[l.first].type().lanes();
        }
    }
    std::vector<int> indices;
    for (const auto &l : out)
        indices.push_back(starts[renumber[l.first]] + l.second);
    Expr result = Shuffle::make(used, indices);
    if (equal(result, Expr(op))) return op;
    return result;
}

Expr Simplifier::visit_vector_reduce(const VectorReduce *op, ExprInfo *info) {
    ExprInfo iv;
    Expr v = mutate(op->value, &iv);
    Type t = op->type;
    int out_lanes = t.lanes();
    int group = v.type().lanes() / out_lanes;
    if (group == 1) {
        *info = iv;
        return v;
    }
    if (is_const_value(v)) {
        if (auto f = fold(VectorReduce::make(op->op, v, out_lanes))) return rewrite(*f, info);
    }
    using Op = VectorReduce::Op;
    const auto *b = v.as<Broadcast>();
    if (b && b->value.type().is_scalar()) {
        if (op->op == Op::Min || op->op == Op::Max || op->op == Op::And || op->op == Op::Or) {
            return rewrite(broadcast_to(b->value, out_lanes), info);
        }
        if (op->op == Op::Add && is_int(t)) {
            Expr scalar = Mul::make(b->value, int_const(b->value.type(), group));
            return rewrite(broadcast_to(scalar, out_lanes), info);
        }
    }
    if (is_int(t)) {
        if (op->op == Op::Min || op->op == Op::Max) {
            *info = iv;
        } else if (op->op == Op::Add) {
            std::optional<int128> lo, hi;
            if (iv.min) lo = int128(*iv.min) * group;
            if (iv.max) hi = int128(*iv.max) * group;
            // A sum of `group` values that each have the same remainder.
            ModulusRemainder sum = iv.alignment;
            for (int k = 1; k < group; k++)
                sum = sum + iv.alignment;
            *info = make_info(t, lo, hi, sum);
        } else {
            *info = type_info(t);
        }
    }
    if (v.same_as(op->value)) return op;
    return VectorReduce::make(op->op, v, out_lanes);
}

}  // namespace dsl::ir::simplify_internal
