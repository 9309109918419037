#include "lowering/RealizationOrder.h"

#include <functional>

#include "ir/Error.h"
#include "ir/IRVisitor.h"
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
