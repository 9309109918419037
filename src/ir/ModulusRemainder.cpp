#include "ir/ModulusRemainder.h"

#include <numeric>
#include <sstream>

#include "ir/IR.h"
#include "ir/IROperator.h"

namespace dsl::ir {

namespace {

__extension__ typedef __int128 int128;

bool fits(int128 v) {
    return v >= INT64_MIN && v <= INT64_MAX;
}

int64_t gcd64(int64_t a, int64_t b) {
    // std::gcd of INT64_MIN is undefined; such moduli never arise from make(), which keeps them
    // non-negative, but be safe.
    if (a == INT64_MIN || b == INT64_MIN) return 1;
    return std::gcd(a, b);
}

int64_t euclid_mod(int128 a, int128 m) {
    int128 r = a % m;
    if (r < 0) r += m;
    return static_cast<int64_t>(r);
}

}  // namespace

ModulusRemainder ModulusRemainder::make(int64_t modulus, int64_t remainder) {
    if (modulus < 0) {
        if (modulus == INT64_MIN) return unknown();
        modulus = -modulus;
    }
    if (modulus == 0) return constant(remainder);
    return {modulus, euclid_mod(remainder, modulus)};
}

ModulusRemainder ModulusRemainder::wrapped_to(int bits) const {
    // 2^62 divides 2^bits for every width we reason about; keeping to it avoids overflow.
    int64_t period = int64_t(1) << std::min(bits, 62);
    int64_t m = modulus == 0 ? period : gcd64(modulus, period);
    return make(m, remainder);
}

int64_t ModulusRemainder::remainder_mod(int64_t m) const {
    if (m <= 0) return -1;
    if (modulus == 0) return euclid_mod(remainder, m);
    if (modulus % m != 0) return -1;
    return euclid_mod(remainder, m);
}

std::string ModulusRemainder::to_string() const {
    std::ostringstream ss;
    ss << modulus << "k + " << remainder;
    return ss.str();
}

ModulusRemainder operator+(const ModulusRemainder &a, const ModulusRemainder &b) {
    int128 r = int128(a.remainder) + b.remainder;
    if (a.is_constant() && b.is_constant()) {
        return fits(r) ? ModulusRemainder::constant(static_cast<int64_t>(r))
                       : ModulusRemainder::unknown();
    }
    int64_t m = gcd64(a.modulus, b.modulus);
    return ModulusRemainder::make(m, euclid_mod(r, m));
}

ModulusRemainder operator-(const ModulusRemainder &a, const ModulusRemainder &b) {
    int128 r = int128(a.remainder) - b.remainder;
    if (a.is_constant() && b.is_constant()) {
        return fits(r) ? ModulusRemainder::constant(static_cast<int64_t>(r))
                       : ModulusRemainder::unknown();
    }
    int64_t m = gcd64(a.modulus, b.modulus);
    return ModulusRemainder::make(m, euclid_mod(r, m));
}

ModulusRemainder operator*(const ModulusRemainder &a, const ModulusRemainder &b) {
    // (ma*i + ra) * (mb*j + rb) = ma*mb*i*j + ma*rb*i + mb*ra*j + ra*rb.
    int128 mm = int128(a.modulus) * b.modulus, mr = int128(a.modulus) * b.remainder,
           rm = int128(b.modulus) * a.remainder, rr = int128(a.remainder) * b.remainder;
    if (!fits(mm) || !fits(mr) || !fits(rm) || !fits(rr)) return ModulusRemainder::unknown();
    if (a.is_constant() && b.is_constant())
        return ModulusRemainder::constant(static_cast<int64_t>(rr));
    int64_t m =
        gcd64(gcd64(static_cast<int64_t>(mm), static_cast<int64_t>(mr)), static_cast<int64_t>(rm));
    if (m == 0) return ModulusRemainder::constant(static_cast<int64_t>(rr));
    return ModulusRemainder::make(m, euclid_mod(rr, m));
}

ModulusRemainder operator/(const ModulusRemainder &a, const ModulusRemainder &b) {
    if (!b.is_constant()) return ModulusRemainder::unknown();
    int64_t c = b.remainder;
    if (c == 0) return ModulusRemainder::constant(0);
    if (a.is_constant()) {
        if (c == -1)
            return fits(-int128(a.remainder)) ? ModulusRemainder::constant(-a.remainder)
                                              : ModulusRemainder::unknown();
        int64_t q = a.remainder / c, r = a.remainder % c;
        if (r < 0) q = c > 0 ? q - 1 : q + 1;
        return ModulusRemainder::constant(q);
    }
    // (m*k + r) / c == (m/c)*k + r/c when c divides m and c > 0, as 0 <= r < m.
    if (c > 0 && a.modulus % c == 0) return ModulusRemainder::make(a.modulus / c, a.remainder / c);
    return ModulusRemainder::unknown();
}

ModulusRemainder operator%(const ModulusRemainder &a, const ModulusRemainder &b) {
    if (!b.is_constant()) return ModulusRemainder::unknown();
    int64_t c = b.remainder;
    if (c == 0 || c == -1) return ModulusRemainder::constant(0);
    if (c == INT64_MIN) return ModulusRemainder::unknown();
    int64_t abs_c = c < 0 ? -c : c;
    if (a.is_constant()) return ModulusRemainder::constant(euclid_mod(a.remainder, abs_c));
    // The Euclidean remainder differs from the value by a multiple of c.
    int64_t m = gcd64(a.modulus, abs_c);
    if (m == abs_c) return ModulusRemainder::constant(euclid_mod(a.remainder, abs_c));
    return ModulusRemainder::make(m, a.remainder);
}

ModulusRemainder unify(const ModulusRemainder &a, const ModulusRemainder &b) {
    int128 diff = int128(a.remainder) - b.remainder;
    if (diff < 0) diff = -diff;
    if (!fits(diff)) return ModulusRemainder::unknown();
    int64_t m = gcd64(gcd64(a.modulus, b.modulus), static_cast<int64_t>(diff));
    return ModulusRemainder::make(m, a.remainder);
}

namespace {

bool no_overflow(Type t) {
    return t.is_int() && t.bits() >= 32;
}

class Analysis {
  public:
    explicit Analysis(const Scope<ModulusRemainder> *facts) : lets_(facts) {}

    ModulusRemainder of(const Expr &e) {
        Type t = e.type();
        if (!t.is_int_or_uint() || t.is_bool()) return ModulusRemainder::unknown();
        ModulusRemainder r = raw(e);
        return no_overflow(t) ? r : r.wrapped_to(t.bits());
    }

  private:
    template <typename T>
    ModulusRemainder both(const Expr &e, ModulusRemainder (*f)(const ModulusRemainder &,
                                                               const ModulusRemainder &)) {
        const auto *op = e.as<T>();
        return f(of(op->a), of(op->b));
    }

    ModulusRemainder raw(const Expr &e) {
        if (const auto *i = e.as<IntImm>()) return ModulusRemainder::constant(i->value);
        if (const auto *u = e.as<UIntImm>()) {
            return u->value <= uint64_t(INT64_MAX)
                       ? ModulusRemainder::constant(static_cast<int64_t>(u->value))
                       : ModulusRemainder::unknown();
        }
        if (const auto *v = e.as<Variable>()) {
            const ModulusRemainder *f = lets_.find(v->name);
            return f ? *f : ModulusRemainder::unknown();
        }
        if (e.as<Add>()) return both<Add>(e, operator+);
        if (e.as<Sub>()) return both<Sub>(e, operator-);
        if (e.as<Mul>()) return both<Mul>(e, operator*);
        if (e.as<Div>()) return both<Div>(e, operator/);
        if (e.as<Mod>()) return both<Mod>(e, operator%);
        if (e.as<Min>()) return both<Min>(e, unify);
        if (e.as<Max>()) return both<Max>(e, unify);
        if (const auto *s = e.as<Select>()) return unify(of(s->true_value), of(s->false_value));
        if (const auto *b = e.as<Broadcast>()) return of(b->value);
        if (const auto *r = e.as<Ramp>()) {
            ModulusRemainder base = of(r->base), stride = of(r->stride);
            // Every lane is base + i * stride.
            return unify(base, base + stride);
        }
        if (const auto *c = e.as<Cast>()) {
            Type from = c->value.type();
            if (!from.is_int_or_uint() || from.is_bool() || c->type.is_bool()) {
                return from.is_bool()
                           ? unify(ModulusRemainder::constant(0), ModulusRemainder::constant(1))
                           : ModulusRemainder::unknown();
            }
            // Narrowing wraps, which `of` accounts for; widening keeps the value.
            return of(c->value);
        }
        if (const auto *l = e.as<Let>()) {
            ModulusRemainder value = of(l->value);
            ScopedBinding<ModulusRemainder> bind(lets_, l->name, value);
            return of(l->body);
        }
        if (const auto *c = e.as<Call>()) {
            if (c->is_intrinsic(Call::Intrinsic::Likely) ||
                c->is_intrinsic(Call::Intrinsic::PromiseClamped)) {
                return of(c->args[0]);
            }
            if (c->is_intrinsic(Call::Intrinsic::ShiftLeft)) {
                auto amount = as_const_int(c->args[1]);
                if (amount && *amount >= 0 && *amount < 62) {
                    // Shifts wrap even for 32- and 64-bit types.
                    return (of(c->args[0]) * ModulusRemainder::constant(int64_t(1) << *amount))
                        .wrapped_to(c->type.bits());
                }
            }
        }
        return ModulusRemainder::unknown();
    }

    Scope<ModulusRemainder> lets_;
};

}  // namespace

ModulusRemainder modulus_remainder(const Expr &e) {
    Scope<ModulusRemainder> none;
    return modulus_remainder(e, none);
}

ModulusRemainder modulus_remainder(const Expr &e, const Scope<ModulusRemainder> &facts) {
    return Analysis(&facts).of(e);
}

}  // namespace dsl::ir
