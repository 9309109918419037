#include "lowering/UnrollLoops.h"

#include <cstdlib>
#include <string>

#include "ir/Error.h"
#include "ir/IROperator.h"
#include "ir/IRVisitor.h"
#include "ir/Substitute.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// Unrolling more than this many iterations is almost surely a mistake.
constexpr int64_t kMaxUnroll = 1024;

/// DSL_PERMIT_FAILED_UNROLL=1 (or Halide's HL_PERMIT_FAILED_UNROLL=1) in the environment.
bool permit_failed_unroll() {
    for (const char *variable : {"DSL_PERMIT_FAILED_UNROLL", "HL_PERMIT_FAILED_UNROLL"}) {
        const char *value = std::getenv(variable);
        if (value && std::string(value) == "1") return true;
    }
    return false;
}

class UnrollLoops : public IRMutator {
  protected:
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        if (op->for_type != ForType::Unrolled) return IRMutator::visit(op);
        auto extent = as_const_int(op->extent);
        if (!extent && permit_failed_unroll()) {
            user_warning << "the loop " << op->name << " is not unrolled: its extent " << op->extent
                         << " is not a constant (DSL_PERMIT_FAILED_UNROLL is set, "
                         << "so it runs as a serial loop).";
            return For::make(op->name, op->min, op->extent, ForType::Serial, op->device_api,
                             mutate(op->body));
        }
        user_assert(extent)
            << "cannot unroll the loop " << op->name << ": its extent " << op->extent
            << " is not a constant. Split it by a constant factor and unroll the inner "
               "loop, e.g. unroll(x, 4) (or set DSL_PERMIT_FAILED_UNROLL=1 to run such loops "
               "serially, with a warning).";
        user_assert(*extent <= kMaxUnroll)
            << "the loop " << op->name << " has " << *extent << " iterations; unrolling more than "
            << kMaxUnroll << " is refused. Split it and unroll the inner loop.";
        std::vector<Stmt> copies = iteration_copies(op->name, op->min, *extent, mutate(op->body));
        if (copies.empty()) return Evaluate::make(Expr(0));
        return Block::make(copies);
    }
};

}  // namespace

std::vector<Stmt> iteration_copies(const std::string &var, const Expr &min, int64_t count,
                                   const Stmt &body) {
    std::vector<Stmt> copies;
    for (int64_t i = 0; i < count; i++)
        copies.push_back(substitute(var, min + static_cast<int>(i), body));
    return copies;
}

Stmt unroll_loops(const Stmt &s) {
    return UnrollLoops().mutate(s);
}

}  // namespace dsl::lowering
