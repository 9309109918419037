// The key of a lowered module: its functions' names and arguments, then each body in the
// serialisation of jit/KeyWriter.h.
#include "jit/PipelineKey.h"

#include "jit/KeyWriter.h"

namespace dsl::jit {

std::string pipeline_key(const ir::Module &module) {
    std::string key;
    KeyWriter writer(key);
    key += "MODULE";
    writer.text(module.name);
    writer.number(static_cast<int64_t>(module.functions.size()));
    for (const ir::LoweredFunc &f : module.functions) {
        key += "FUNCTION";
        writer.text(f.name);
        writer.number(static_cast<int64_t>(f.args.size()));
        for (const ir::LoweredArgument &a : f.args) {
            writer.text(a.name);
            writer.number(static_cast<int>(a.kind));
            writer.type(a.type);
            writer.number(a.dimensions);
        }
        writer.include(f.body);
    }
    return key;
}

}  // namespace dsl::jit
