#include "lowering/RealizationOrder.h"

#include <functional>

#include "ir/Error.h"
#include "ir/IRVisitor.h"
#include "lowering/ComputeWith.h"
#include "lowering/InlineFunctions.h"

namespace dsl::lowering {

using namespace ir;

namespace {
class CollectCallees : public IRVisitor {
  public:
    std::set<std::string> callees;

  protected:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::CallType::Func) callees.insert(op->name);
    }
};
}  // namespace

std::map<std::string, std::set<std::string>> direct_callees(const Environment &env) {
    std::map<std::string, std::set<std::string>> result;
    for (const auto &[name, f] : env.funcs) {
        if (is_inlined(f)) continue;
        CollectCallees c;
        lang::visit_definitions(f, c);
        c.callees.erase(name);  // an update reading its own Func is not a dependency
        result[name] = c.callees;
    }
    return result;
}

void realization_order(Environment &env) {
    auto callees = direct_callees(env);
    // The Funcs compute_with fuses are realized together: one node of the graph, whose callees
    // are all of theirs, placed once they all are.
    std::map<std::string, const std::set<std::string> *> group_of;
    const std::vector<std::set<std::string>> groups = compute_with_groups(env);
    for (const std::set<std::string> &g : groups) {
        for (const std::string &n : g)
            group_of[n] = &g;
    }
    enum class Mark { None, Visiting, Done };
    std::map<std::string, Mark> marks;
    std::vector<std::string> stack;
    std::function<void(const std::string &)> visit = [&](const std::string &name) {
        Mark &m = marks[name];
        if (m == Mark::Done) return;
        if (m == Mark::Visiting) {
            std::string cycle;
            bool in_cycle = false;
            for (const std::string &s : stack) {
                in_cycle |= s == name;
                if (in_cycle) cycle += s + " -> ";
            }
            user_error << "the pipeline has a cycle: " << cycle << name
                       << ". A Func cannot depend on itself through other Funcs; compute the "
                          "values in separate Funcs or in one Func's updates.";
        }
        auto group = group_of.find(name);
        if (group != group_of.end()) {
            const std::set<std::string> &members = *group->second;
            for (const std::string &a : members) {
                for (const std::string &b : members) {
                    user_assert(!callees[a].count(b))
                        << "compute_with fuses the loops of \"" << a << "\" and \"" << b
                        << "\", but \"" << a << "\" reads \"" << b << "\": fused stages run "
                        << "together, one iteration of each at a time, so neither may read the "
                        << "other. Compute them separately.";
                }
            }
            for (const std::string &a : members)
                marks[a] = Mark::Visiting;
            stack.push_back(name);
            for (const std::string &a : members) {
                for (const std::string &c : callees[a])
                    visit(c);
            }
            stack.pop_back();
            for (const std::string &a : members) {
                marks[a] = Mark::Done;
                env.order.push_back(a);
            }
            return;
        }
        m = Mark::Visiting;
        stack.push_back(name);
        for (const std::string &c : callees[name])
            visit(c);
        stack.pop_back();
        marks[name] = Mark::Done;
        env.order.push_back(name);
    };
    for (const std::string &o : env.outputs)
        visit(o);
}

}  // namespace dsl::lowering
