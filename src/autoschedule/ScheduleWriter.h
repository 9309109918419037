#pragma once
/// Applies the autoscheduler's directives to a pipeline's Funcs through the public API, as a
/// person would write them, and records each as C++ source: the schedule is data that a user
/// can read, keep, edit and apply again (Pipeline::apply_schedule_source).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dsl/Func.h"

namespace dsl::autoschedule {

class ScheduleWriter {
  public:
    /// Starts a schedule; `header` is written as a comment at the top of the source.
    explicit ScheduleWriter(std::string header) : header_(std::move(header)) {}

    /// Registers a Func of the pipeline (before it is scheduled), under the identifier the
    /// source gives it.
    void add_func(const Func &f);

    // Per Func.
    void compute_root(const std::string &f);
    void compute_inline(const std::string &f);
    void compute_at(const std::string &f, const std::string &consumer, const std::string &loop);
    void bound_extent(const std::string &f, const std::string &var, int extent);

    // Per stage (0: the pure definition, i: update i - 1). `is_rvar` marks loops made of RVars.
    void split(const std::string &f, int stage, const std::string &var, const std::string &outer,
               const std::string &inner, int factor, TailStrategy tail = TailStrategy::Auto);
    void fuse(const std::string &f, int stage, const std::string &inner, const std::string &outer,
              const std::string &fused);
    void reorder(const std::string &f, int stage, const std::vector<std::string> &innermost_first);
    void vectorize(const std::string &f, int stage, const std::string &var);
    /// Splits `var` by `factor` and vectorizes the inner loop; `var` stays the outer one.
    void vectorize(const std::string &f, int stage, const std::string &var, int factor,
                   TailStrategy tail = TailStrategy::Auto);
    void unroll(const std::string &f, int stage, const std::string &var);
    void parallel(const std::string &f, int stage, const std::string &var);
    /// The loops (1 to 3, innermost first) run as the blocks, or the threads of each block, of
    /// a GPU kernel (the target's GPU API).
    void gpu_blocks(const std::string &f, int stage, const std::vector<std::string> &loops);
    void gpu_threads(const std::string &f, int stage, const std::vector<std::string> &loops);
    /// rfactor of update `stage` over the RVar loop `rvar`, which becomes the pure Var `var` of
    /// the intermediate Func returned (registered under its name).
    Func rfactor(const std::string &f, int stage, const std::string &rvar, const std::string &var);

    /// Marks a loop name as made from RVars (declared as RVar in the source).
    void mark_rvar(const std::string &loop) { rvars_.insert(loop); }

    /// The schedule as C++: a block that takes `pipeline` (a dsl::Pipeline) and schedules its
    /// Funcs.
    std::string source() const;

  private:
    Func &func(const std::string &name);
    Stage stage(const std::string &f, int stage);
    VarOrRVar loop(const std::string &name) const;
    std::string ident(const std::string &name, bool is_func);
    void record(const std::string &f, int stage, const std::string &directive);
    void gpu_loops(const std::string &f, int stage, const std::vector<std::string> &loops,
                   bool blocks);

    std::string header_;
    std::map<std::string, Func> funcs_;
    /// Identifiers given to Funcs and loops, by name.
    std::map<std::string, std::string> func_idents_, loop_idents_;
    std::set<std::string> used_idents_, rvars_;
    /// The Funcs some directive names (declared in the source).
    std::set<std::string> named_;
    /// Funcs in the order they were registered, and rfactor's definitions.
    std::vector<std::string> func_order_;
    std::map<std::string, std::string> made_by_;
    /// The source lines: consecutive directives of one stage chain on one line.
    std::vector<std::pair<std::string, std::string>> lines_;  // (chain head, directives)
};

}  // namespace dsl::autoschedule
