// graph::Graph -> ModelProto, Buffer -> TensorProto.
#include "nn/onnx/OnnxWriter.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <map>
#include <set>

#include "ir/Error.h"
#include "nn/graph/GraphEdit.h"
#include "nn/onnx/OnnxReader.h"
#include "nn/onnx/OpsetConversion.h"

namespace dsl::nn::onnx {

namespace {

namespace pb = ::onnx;

void fill_tensor(pb::TensorProto *tp, const Buffer<> &b, const std::string &name) {
    tp->set_name(name);
    tp->set_data_type(onnx_element_type(b.type()));
    for (int d = b.dimensions() - 1; d >= 0; d--)
        tp->add_dims(b.extent(d));
    // A dense copy holds the elements in dimension order, whatever the buffer's strides.
    const Buffer<> dense = b.copy();
    tp->set_raw_data(
        std::string(static_cast<const char *>(dense.data()),
                    static_cast<size_t>(dense.number_of_elements() * dense.type().bytes())));
}

void fill_value_info(pb::ValueInfoProto *vi, const graph::ValueInfo &v) {
    vi->set_name(v.name);
    if (!v.type) return;
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx_element_type(*v.type));
    if (!v.shape) return;
    auto *shape = tt->mutable_shape();
    for (const graph::Dim &d : *v.shape) {
        auto *dim = shape->add_dim();
        if (d.known())
            dim->set_dim_value(d.value);
        else if (!d.symbol.empty())
            dim->set_dim_param(d.symbol);
    }
}

void fill_attribute(pb::AttributeProto *a, const std::string &name, const graph::Attribute &v) {
    using K = graph::Attribute::Kind;
    a->set_name(name);
    switch (v.kind) {
        case K::Float:
            a->set_type(pb::AttributeProto::FLOAT);
            a->set_f(static_cast<float>(v.f));
            break;
        case K::Int:
            a->set_type(pb::AttributeProto::INT);
            a->set_i(v.i);
            break;
        case K::String:
            a->set_type(pb::AttributeProto::STRING);
            a->set_s(v.s);
            break;
        case K::Tensor:
            a->set_type(pb::AttributeProto::TENSOR);
            fill_tensor(a->mutable_t(), v.t, "");
            break;
        case K::Floats:
            a->set_type(pb::AttributeProto::FLOATS);
            for (double f : v.floats)
                a->add_floats(static_cast<float>(f));
            break;
        case K::Ints:
            a->set_type(pb::AttributeProto::INTS);
            for (int64_t i : v.ints)
                a->add_ints(i);
            break;
        case K::Strings:
            a->set_type(pb::AttributeProto::STRINGS);
            for (const std::string &s : v.strings)
                a->add_strings(s);
            break;
        default:
            break;  // the caller copies graphs and other kinds from the source
    }
}

void save(const pb::ModelProto &m, const std::string &path) {
    std::ofstream out(path, std::ios::binary);
    user_assert(out.good()) << path << ": cannot write the model (is the directory there?).";
    user_assert(m.SerializeToOstream(&out)) << path << ": writing the model failed.";
}

}  // namespace

int32_t onnx_element_type(Type t) {
    namespace pb = ::onnx;
    if (t.is_bool()) return pb::TensorProto::BOOL;
    if (t.is_bfloat()) return pb::TensorProto::BFLOAT16;
    if (t.is_float()) {
        return t.bits() == 16   ? pb::TensorProto::FLOAT16
               : t.bits() == 32 ? pb::TensorProto::FLOAT
                                : pb::TensorProto::DOUBLE;
    }
    if (t.is_int()) {
        switch (t.bits()) {
            case 8:
                return pb::TensorProto::INT8;
            case 16:
                return pb::TensorProto::INT16;
            case 32:
                return pb::TensorProto::INT32;
            default:
                return pb::TensorProto::INT64;
        }
    }
    switch (t.bits()) {
        case 8:
            return pb::TensorProto::UINT8;
        case 16:
            return pb::TensorProto::UINT16;
        case 32:
            return pb::TensorProto::UINT32;
        default:
            return pb::TensorProto::UINT64;
    }
}

void write_model(const graph::Graph &g, const std::string &source, const std::string &path,
                 const std::map<std::string, graph::ValueInfo> &known) {
    pb::ModelProto model;
    user_assert(model.ParseFromString(read_file(source, "model")))
        << source << ": not a valid ONNX model (the protobuf does not parse).";
    // The graph may have been read at a later opset (read_model's min_opset).
    raise_opset(model, g.opset, source, known);
    const pb::GraphProto original = model.graph();
    // The source's nodes under the names the reader gave them.
    std::map<std::string, const pb::NodeProto *> by_name;
    for (int i = 0; i < original.node_size(); i++) {
        const pb::NodeProto &n = original.node(i);
        by_name[n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name()] = &n;
    }
    std::map<std::string, const pb::ValueInfoProto *> declared;
    for (const auto &vi : original.input())
        declared[vi.name()] = &vi;
    for (const auto &vi : original.output())
        declared[vi.name()] = &vi;
    for (const auto &vi : original.value_info())
        declared[vi.name()] = &vi;

    pb::GraphProto *gp = model.mutable_graph();
    gp->clear_node();
    gp->clear_initializer();
    gp->clear_input();
    gp->clear_output();
    gp->clear_value_info();
    auto value_info = [&](pb::ValueInfoProto *vi, const graph::ValueInfo &v) {
        auto it = declared.find(v.name);
        if (it != declared.end())
            *vi = *it->second;
        else
            fill_value_info(vi, v);
    };
    for (const graph::ValueInfo &v : g.inputs)
        value_info(gp->add_input(), v);
    for (const graph::ValueInfo &v : g.outputs)
        value_info(gp->add_output(), v);
    std::set<std::string> produced;
    for (const graph::Node &n : g.nodes)
        produced.insert(n.outputs.begin(), n.outputs.end());
    for (const auto &kv : g.value_info) {
        if (produced.count(kv.first)) value_info(gp->add_value_info(), kv.second);
    }
    for (const auto &kv : g.initializers) {
        fill_tensor(gp->add_initializer(), kv.second, kv.first);
        if (model.ir_version() < 4) {
            // Older models list their initializers among the inputs too.
            graph::ValueInfo v;
            v.name = kv.first;
            v.type = kv.second.type();
            std::vector<graph::Dim> dims;
            for (int d = kv.second.dimensions() - 1; d >= 0; d--)
                dims.push_back(graph::Dim{kv.second.extent(d), ""});
            v.shape = dims;
            fill_value_info(gp->add_input(), v);
        }
    }
    // ONNX requires the nodes in topological order.
    std::string problem;
    const std::vector<size_t> order = graph::topological_order(g, &problem);
    user_assert(problem.empty()) << path << ": " << problem;
    for (size_t index : order) {
        const graph::Node &n = g.nodes[index];
        pb::NodeProto *np = gp->add_node();
        np->set_name(n.name);
        np->set_op_type(n.op_type);
        if (!n.domain.empty()) np->set_domain(n.domain);
        for (const std::string &in : n.inputs)
            np->add_input(in);
        for (const std::string &out : n.outputs)
            np->add_output(out);
        auto source_node = by_name.find(n.name);
        for (const auto &kv : n.attributes) {
            const graph::Attribute::Kind k = kv.second.kind;
            if (k != graph::Attribute::Kind::Graph && k != graph::Attribute::Kind::Other) {
                fill_attribute(np->add_attribute(), kv.first, kv.second);
                continue;
            }
            bool copied = false;
            if (source_node != by_name.end() && source_node->second->op_type() == n.op_type) {
                for (const auto &a : source_node->second->attribute()) {
                    if (a.name() != kv.first) continue;
                    *np->add_attribute() = a;
                    copied = true;
                }
            }
            user_assert(copied) << path << ": " << n.describe() << ": attribute \"" << kv.first
                                << "\" is a graph or of a kind dsl does not hold, and the source "
                                << "model has no node of that name to copy it from.";
        }
    }
    save(model, path);
}

void write_tensor(const std::string &path, const Buffer<> &b, const std::string &name) {
    pb::TensorProto tp;
    fill_tensor(&tp, b, name);
    std::ofstream out(path, std::ios::binary);
    user_assert(out.good()) << path << ": cannot write the tensor.";
    user_assert(tp.SerializeToOstream(&out)) << path << ": writing the tensor failed.";
}

}  // namespace dsl::nn::onnx
