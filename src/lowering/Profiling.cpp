#include "lowering/Profiling.h"

#include <functional>
#include <map>

#include "ir/IRVisitor.h"
#include "ir/IROperator.h"

namespace dsl::lowering {

using namespace ir;

namespace {

/// The let holding the pipeline's record in the profiler.
const char *const kProfilerState = "pipeline.profiler_state";

Stmt mark(int func, bool charged = true) {
    Expr state = Variable::make(Handle(), kProfilerState);
    return Evaluate::make(Call::make(Int(32), "dsl_profiler_switch",
                                     {state, Expr(func), Expr(charged ? 1 : 0)},
                                     Call::CallType::Extern));
}

class AddProfiling : public IRMutator {
  public:
    AddProfiling(const std::map<std::string, int> &ids, int outside)
        : ids_(ids), running_(outside) {}

  protected:
    using IRMutator::visit;

    Stmt visit(const ProducerConsumer *op) override {
        auto it = ids_.find(op->name);
        if (!op->is_producer || it == ids_.end()) return IRMutator::visit(op);
        // The producer's code runs as its Func; then the code around it runs as before.
        int around = running_;
        running_ = it->second;
        Stmt body = mutate(op->body);
        running_ = around;
        return Block::make({mark(it->second),
                            ProducerConsumer::make(op->name, op->is_producer, body), mark(around)});
    }

    Stmt visit(const For *op) override {
        // Kernels run on their device: counted as the Func that launches them.
        bool device = op->device_api != DeviceAPI::None && op->device_api != DeviceAPI::Host;
        if (device || op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread ||
            op->for_type == ForType::NPU) {
            return op;
        }
        Stmt body = mutate(op->body);
        if (op->for_type != ForType::Parallel) {
            return body.same_as(op->body) ? Stmt(op)
                                          : For::make(op->name, op->min, op->extent, op->for_type,
                                                      op->device_api, body);
        }
        // An iteration runs on some thread as the Func around the loop, and leaves that thread
        // running nothing (the time a thread waits for work is no Func's). The thread that
        // started the loop then goes on as that Func.
        body = Block::make({mark(running_, false), body, mark(-1)});
        return Block::make(
            {mark(running_),
             For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body),
             mark(running_, false)});
    }

  private:
    const std::map<std::string, int> &ids_;
    int running_;
};

}  // namespace

Stmt add_profiling(const Environment &env, const std::string &pipeline, const Stmt &s) {
    std::map<std::string, int> ids;
    std::string names;
    for (const std::string &f : env.order) {
        ids[f] = static_cast<int>(ids.size());
        names += f + "\n";
    }
    const int outside = static_cast<int>(ids.size());
    AddProfiling profiling(ids, outside);
    // Around everything but the lets of the bounds at the top (as tracing places its events).
    std::function<Stmt(const Stmt &)> around = [&](const Stmt &inner) -> Stmt {
        if (const auto *let = inner.as<LetStmt>())
            return LetStmt::make(let->name, let->value, around(let->body));
        Expr state = Variable::make(Handle(), kProfilerState);
        Expr begin = Call::make(Handle(), "dsl_profiler_begin",
                                {StringImm::make(pipeline), StringImm::make(names), Expr(outside)},
                                Call::CallType::Extern);
        Stmt end = Evaluate::make(
            Call::make(Int(32), "dsl_profiler_end", {state}, Call::CallType::Extern));
        return LetStmt::make(kProfilerState, begin, Block::make({profiling.mutate(inner), end}));
    };
    return around(s);
}

}  // namespace dsl::lowering
