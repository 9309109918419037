#pragma once
/// What the autoscheduler knows of a pipeline (DESIGN.md §9): its Funcs and who reads whom, the
/// region of each Func the outputs need at their estimated sizes, and what a point of each stage
/// costs. Concrete numbers throughout: every Param and input bound is replaced by its estimate.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dsl/Func.h"
#include "dsl/Target.h"
#include "lang/Function.h"

namespace dsl::autoschedule {

/// `[min, max]`, inclusive, of one dimension.
struct Span {
    int64_t min = 0, max = -1;
    int64_t extent() const { return max - min + 1; }
};
using Box = std::vector<Span>;
int64_t points(const Box &b);
/// Unions `b` into `a` (an empty `a` becomes `b`).
void merge(Box &a, const Box &b);

/// One stage: the pure definition (0) or an update (1, 2, ...).
struct StageInfo {
    int index = 0;
    /// The RVars (innermost first) with their concrete bounds.
    std::vector<std::pair<std::string, Span>> rvars;
    /// The pure Vars of the update's left side that are plain arguments (safe to vectorize and
    /// parallelize): its loops that are not RVars.
    std::vector<std::string> pure_loops;
    /// Arithmetic per point (weighted operations), loads per point, and the widest type the
    /// stage computes in or stores (bits).
    double ops = 0, loads = 0;
    /// Arithmetic in the coordinates of the calls (boundary conditions' clamps, offsets).
    double index_ops = 0;
    int widest_bits = 8;
    /// The Funcs the stage calls and how many calls per point.
    std::map<std::string, int> calls;
    /// For each call of a Func or an input: its name, and the Vars and RVars its coordinates
    /// use.
    std::vector<std::pair<std::string, std::set<std::string>>> operand_vars;
    /// The Vars and RVars that `likely` conditions test (a boundary condition's "inside"):
    /// lowering splits their loops into edges and a steady state, which it cannot do for a loop
    /// fused with others. The heuristic adds those of the Funcs it inlines.
    std::set<std::string> likely_vars;
};

struct FuncInfo {
    lang::Function func;
    std::string name;
    bool is_output = false;
    std::vector<StageInfo> stages;
    /// Funcs that call this one (never itself), and the Funcs this one calls.
    std::set<std::string> consumers, producers;
    /// Every call of every consumer uses the consumer's pure Vars, in order, at offset 0: inlining
    /// computes nothing twice.
    bool pointwise = true;
    /// Some consumer calls it at coordinates computed from loaded values (a look-up table).
    bool data_dependent = false;
    /// The region the outputs need at their estimated sizes.
    Box region;
    int bytes_per_point = 0;
};

/// Puts every Func of the pipeline of `outputs` back on the default schedule: computed inline
/// (at root for outputs and Funcs with updates), each stage's loops as its definition made them.
/// Bounds, estimates and storage order stay: they are part of what the user said about the Func.
void reset_schedules(const std::vector<Func> &outputs);

class Model {
  public:
    /// Analyses the pipeline of `outputs` (its Funcs must be defined); throws a CompileError
    /// naming what lacks an estimate.
    Model(const std::vector<Func> &outputs, const Target &target);

    /// Producers before consumers; outputs last.
    const std::vector<std::string> &order() const { return order_; }
    const FuncInfo &info(const std::string &name) const { return funcs_.at(name); }
    FuncInfo &info(const std::string &name) { return funcs_.at(name); }
    bool has(const std::string &name) const { return funcs_.count(name) > 0; }
    const Target &target() const { return target_; }

    /// The regions of the Funcs in `into` needed to compute `func` over `box`, following calls
    /// through `into` and through the Funcs of `through` (inlined ones): what computing `func`
    /// per tile `box` computes of the Funcs scheduled at that tile.
    std::map<std::string, Box> required(const std::string &func, const Box &box,
                                        const std::set<std::string> &into,
                                        const std::set<std::string> &through) const;

    /// The arguments of every call of `callee` in stage `stage` of `consumer`.
    std::vector<std::vector<Expr>> call_args(const std::string &consumer, int stage,
                                             const std::string &callee) const;

    /// `e` with Params and input bounds replaced by their estimates, simplified; nullopt if it
    /// is not then a constant.
    std::optional<int64_t> constant(const Expr &e) const;

  private:
    void analyse_func(const lang::Function &f);
    void infer_regions();
    Expr with_estimates(const Expr &e) const;
    /// The footprint of the calls to `callee` made by stage `s` of `f` computing `box`.
    Box footprint(const FuncInfo &f, const StageInfo &s, const Box &box,
                  const std::string &callee) const;

    Target target_;
    std::map<std::string, FuncInfo> funcs_;
    std::vector<std::string> order_;
};

}  // namespace dsl::autoschedule
