// Pseudo-random values (dsl/Random.h). A call makes a Random intrinsic (seed, number); the
// definition that holds it replaces it by a hash of the coordinates of the point defined.
#include "lang/Random.h"

#include <atomic>

#include "dsl/Random.h"
#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"

namespace dsl {

namespace {

/// A new random variable: seed and number, as a uint32 intrinsic.
Expr random_variable(const Expr &seed, const char *fn) {
    static std::atomic<int> counter{0};
    Expr s = seed.defined() ? seed : Expr(0);
    user_assert(s.type().is_int_or_uint() && !s.type().is_bool() && s.type().is_scalar())
        << fn << "(" << s << "): the seed must be a scalar integer, not " << s.type() << ".";
    return ir::Call::make(UInt(32), ir::Call::Intrinsic::Random,
                          {cast(UInt(32), s), Expr(counter.fetch_add(1))});
}

}  // namespace

Expr random_uint(const Expr &seed) {
    return random_variable(seed, "random_uint");
}

Expr random_int(const Expr &seed) {
    return reinterpret(Int(32), random_variable(seed, "random_int"));
}

Expr random_float(const Expr &seed) {
    // The top 24 bits, as a multiple of 2^-24: exactly representable, below 1.
    Expr bits = random_variable(seed, "random_float") >> 8;
    return cast(Float(32), bits) * Expr(1.0f / 16777216.0f);
}

namespace lang {

namespace {

Expr u32(uint32_t v) {
    return ir::UIntImm::make(UInt(32), v);
}

/// A bijection of uint32 that spreads each input bit over the whole word (xor-shifts and odd
/// multipliers, as in good integer hash finalizers).
Expr scramble(const Expr &h_in) {
    Expr h = h_in;
    h = h ^ (h >> 16);
    h = h * u32(0x7feb352dU);
    h = h ^ (h >> 15);
    h = h * u32(0x846ca68bU);
    h = h ^ (h >> 16);
    return h;
}

class LowerRandom : public ir::IRMutator {
  public:
    explicit LowerRandom(const std::vector<Expr> &coordinates) : coordinates_(coordinates) {}

  protected:
    using IRMutator::visit;
    Expr visit(const ir::Call *op) override {
        if (!op->is_intrinsic(ir::Call::Intrinsic::Random)) return IRMutator::visit(op);
        // The number and the seed first, then each coordinate folded in and scrambled.
        Expr h = scramble(op->args[0] + u32(0x632be5abU));
        h = scramble(h ^ (cast(UInt(32), op->args[1]) * u32(0x9e3779b9U)));
        for (const Expr &c : coordinates_)
            h = scramble(h + cast(UInt(32), c) * u32(0x85ebca6bU) + u32(0xc2b2ae35U));
        return h;
    }

  private:
    const std::vector<Expr> &coordinates_;
};

}  // namespace

Expr lower_random(const Expr &e, const std::vector<Expr> &coordinates) {
    return LowerRandom(coordinates).mutate(e);
}

}  // namespace lang

}  // namespace dsl
