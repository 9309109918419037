#pragma once
/// The reference evaluator for Funcs (DESIGN.md §3): the value of any Func at any point,
/// computed straight from its definitions and ignoring its schedule. It is the oracle of the
/// correctness tests: every schedule on every target must produce these values.
///
/// A Func without updates is evaluated point by point (memoised). A Func with updates is
/// materialised over the smallest box holding every point asked for and every point the
/// updates write; its updates then run in definition order, each over its pure Vars (outer)
/// and RVars (inner, the first RVar fastest), as the unscheduled loops would.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/ReferenceEvaluator.h"
#include "lang/Function.h"

namespace dsl::lang {

class FuncEvaluator {
  public:
    FuncEvaluator();
    ~FuncEvaluator();

    /// Element `value_index` of `f` at `coords`.
    ir::Value at(const Function &f, const std::vector<int64_t> &coords, int value_index = 0);

    /// Materialises a Func with updates over at least the box [min, max] at once, so that the
    /// box does not grow point by point when a whole output region is checked.
    void require_region(const Function &f, const std::vector<int64_t> &min,
                        const std::vector<int64_t> &max);

    /// Evaluates an expression that may call Funcs and inputs.
    ir::Value eval(const Expr &e);

  private:
    struct Materialized;
    ir::Value call(const ir::Call *op, const std::vector<ir::Value> &args);
    ir::Value call_extern(const ir::Call *op, const std::vector<ir::Value> &args);
    ir::Value variable(const ir::Variable *op);
    ir::Value pure_value(const Function &f, const std::vector<int64_t> &coords, int value_index);
    Materialized &materialize(const Function &f, const std::vector<int64_t> &coords);
    /// Runs f's stages over `box`; returns false (with `box` grown) if an update wrote outside.
    bool try_materialize(const Function &f, Materialized &m);

    ir::ReferenceEvaluator ev_;
    std::map<std::string, std::vector<ir::Value>> pure_cache_;
    std::map<std::string, std::unique_ptr<Materialized>> materialized_;
};

}  // namespace dsl::lang
