#pragma once
/// The state lowering passes share: the pipeline's Funcs (private copies, so that lowering never
/// changes the user's definitions), which are outputs, and the order they are computed in.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lang/Function.h"

namespace dsl::lowering {

using ir::Stmt;

struct Environment {
    /// Every Func of the pipeline by name, as lowering sees it (inlined calls substituted).
    std::map<std::string, lang::Function> funcs;
    /// The outputs, in the order the user gave them.
    std::vector<std::string> outputs;
    /// Funcs that get their own storage and loops, producers before consumers.
    std::vector<std::string> order;

    /// What lowering decided about where Funcs live, for the loop nest printout: a note for the
    /// line that stores a Func and for the one that produces it (e.g. a sliding window).
    std::map<std::string, std::string> store_notes, produce_notes;
    /// The Funcs whose stages compute_with fuses (Stage::compute_with), each with every Func of
    /// its group, in realization order (where the group is contiguous).
    std::map<std::string, std::vector<std::string>> fused;
    /// A note per prefetch (Stage::prefetch), keyed by the outer loop of its code.
    std::map<std::string, std::string> prefetch_notes;

    bool is_output(const std::string &name) const {
        for (const std::string &o : outputs) {
            if (o == name) return true;
        }
        return false;
    }
    const lang::Function &func(const std::string &name) const { return funcs.at(name); }
};

}  // namespace dsl::lowering
