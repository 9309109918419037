#include "lowering/Wrappers.h"

#include "ir/IR.h"

namespace dsl::lowering {

using namespace ir;
using lang::Function;
using lang::FunctionContents;

namespace {

/// Whether `consumer` is one of the Funcs that stand in for `callee` (its wrappers call it).
bool stands_in_for(const FunctionContents &callee, const FunctionContents *consumer) {
    for (const auto *map : {&callee.wrappers, &callee.clones}) {
        for (const auto &entry : *map) {
            if (entry.second.get() == consumer) return true;
        }
    }
    return false;
}

/// The Func that the calls of `consumer` to `callee` read instead, or null: a clone for the
/// consumer, else a wrapper for it, else the global wrapper.
std::shared_ptr<FunctionContents> stand_in(const FunctionContents &callee,
                                           const FunctionContents &consumer) {
    if (stands_in_for(callee, &consumer)) return nullptr;
    auto clone = callee.clones.find(consumer.name);
    if (clone != callee.clones.end()) return clone->second;
    auto wrapper = callee.wrappers.find(consumer.name);
    if (wrapper != callee.wrappers.end()) return wrapper->second;
    auto global = callee.wrappers.find("");
    if (global != callee.wrappers.end()) return global->second;
    return nullptr;
}

/// The Func that the calls of `consumer` to the input `param` read instead (ImageParam::in()),
/// or null: a wrapper for the consumer, else the global one (not for the wrappers themselves).
std::shared_ptr<FunctionContents> image_stand_in(const ParameterContents &param,
                                                 const FunctionContents &consumer) {
    for (const auto &entry : param.wrappers) {
        if (entry.second.lock().get() == &consumer) return nullptr;
    }
    for (const std::string &key : {consumer.name, std::string()}) {
        auto it = param.wrappers.find(key);
        if (it == param.wrappers.end()) continue;
        if (std::shared_ptr<FunctionContents> w = it->second.lock()) return w;
    }
    return nullptr;
}

Function redirected(const Function &f) {
    auto copy = std::make_shared<FunctionContents>(f.contents());
    bool changed = lang::redirect_calls(*copy, [&](const FunctionContents &callee) {
        std::shared_ptr<FunctionContents> target = stand_in(callee, f.contents());
        return target ? FunctionPtr(target) : FunctionPtr();
    });
    changed |= lang::redirect_image_calls(*copy, [&](const ParameterContents &param) {
        std::shared_ptr<FunctionContents> target = image_stand_in(param, f.contents());
        return target ? FunctionPtr(target) : FunctionPtr();
    });
    return changed ? Function(copy) : f;
}

}  // namespace

std::map<std::string, Function> pipeline_funcs(const std::vector<Function> &outputs) {
    return lang::find_transitive_calls(outputs, redirected);
}

}  // namespace dsl::lowering
