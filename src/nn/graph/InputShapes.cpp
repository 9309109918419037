// Fixing a graph's input extents (InputShapes.h).
#include "nn/graph/InputShapes.h"

#include <limits>

#include "dsl/Error.h"

namespace dsl::nn::graph {

void fix_input_shapes(Graph &g, const std::map<std::string, std::vector<int64_t>> &shapes,
                      const char *all_known_because) {
    auto fail = [&](const std::string &m) { throw CompileError(g.source + ": " + m); };
    for (const auto &kv : shapes) {
        bool found = false;
        for (const ValueInfo &v : g.inputs)
            found |= v.name == kv.first;
        if (!found) fail("a shape is given for \"" + kv.first + "\", which is not an input.");
    }
    for (ValueInfo &v : g.inputs) {
        auto given = shapes.find(v.name);
        const std::string how =
            " (give it with --shape " + v.name + "=AxBx..., or in the options' shapes).";
        if (!v.shape) {
            if (given == shapes.end()) {
                if (!all_known_because) continue;
                fail("input \"" + v.name + "\" has no declared shape" + how);
            }
            v.shape.emplace();
            for (int64_t d : given->second)
                v.shape->push_back(Dim{d, ""});
        }
        std::vector<Dim> &dims = *v.shape;
        if (given != shapes.end() && given->second.size() != dims.size()) {
            fail("input \"" + v.name + "\" has rank " + std::to_string(dims.size()) + ", but " +
                 std::to_string(given->second.size()) + " extents are given for it.");
        }
        for (size_t a = 0; a < dims.size(); a++) {
            if (given != shapes.end()) {
                const int64_t e = given->second[a];
                if (e < 0 || e > std::numeric_limits<int32_t>::max()) {
                    fail("input \"" + v.name + "\": extent " + std::to_string(a) + " is given as " +
                         std::to_string(e) + ", outside 0 ... 2^31 - 1.");
                }
                if (dims[a].known() && dims[a].value != e) {
                    fail("input \"" + v.name + "\": extent " + std::to_string(a) +
                         " is declared as " + std::to_string(dims[a].value) + ", not " +
                         std::to_string(e) + ".");
                }
                dims[a] = Dim{e, ""};
            }
            if (!dims[a].known() && all_known_because) {
                fail("input \"" + v.name + "\": extent " + std::to_string(a) + " is symbolic (" +
                     (dims[a].symbol.empty() ? "?" : dims[a].symbol) + "); " + all_known_because +
                     how);
            }
        }
    }
}

}  // namespace dsl::nn::graph
