// The counting nodes of operators whose result's size depends on their input's values
// (graph/DataDependentShapes.h).
#include "nn/graph/DataDependentShapes.h"

#include "nn/graph/GraphEdit.h"

namespace dsl::nn::graph {

int count_selected_elements(Graph &g) {
    GraphEdit e(g);
    int added = 0;
    const size_t nodes = g.nodes.size();
    for (size_t i = 0; i < nodes; i++) {
        Node &n = g.nodes[i];
        if (!n.domain.empty()) continue;
        const bool nonzero = n.op_type == "NonZero" && n.inputs.size() == 1;
        const bool compress = n.op_type == "Compress" && n.inputs.size() == 2;
        const bool nms = n.op_type == "NonMaxSuppression" && n.inputs.size() <= 5;
        const bool unique = n.op_type == "Unique" && n.inputs.size() == 1;
        if (!nonzero && !compress && !nms && !unique) continue;
        Node count;
        count.name = n.name + "_count";
        if (unique) {
            count.op_type = kCountUnique;
            count.inputs = n.inputs;
            if (n.attributes.count("axis")) count.attributes["axis"] = n.attributes.at("axis");
        } else if (nms) {
            n.inputs.resize(5);  // the optional inputs not given: empty names
            count.op_type = kCountNonMaxSuppression;
            count.inputs = n.inputs;
            count.attributes = n.attributes;
        } else {
            count.op_type = kCountNonZero;
            count.inputs = nonzero ? std::vector<std::string>{n.inputs[0]}
                                   : std::vector<std::string>{n.inputs[1], n.inputs[0]};
            if (compress && n.attributes.count("axis"))
                count.attributes["axis"] = n.attributes.at("axis");
        }
        const std::string value = e.fresh_name(n.name + "_count");
        count.outputs = {value};
        g.nodes[i].inputs.push_back(value);
        e.add_node(std::move(count));
        added++;
    }
    e.commit();
    return added;
}

}  // namespace dsl::nn::graph
