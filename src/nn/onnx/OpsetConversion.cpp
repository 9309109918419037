// Opset conversion through ONNX's version converter (onnx/OpsetConversion.h).
#include "nn/onnx/OpsetConversion.h"

#include <onnx/version_converter/convert.h>

#include "ir/Error.h"
#include "nn/onnx/OnnxWriter.h"

namespace dsl::nn::onnx {

int64_t standard_opset(const ::onnx::ModelProto &m) {
    int64_t opset = 0;
    for (const auto &op : m.opset_import()) {
        if (op.domain().empty() || op.domain() == "ai.onnx") opset = op.version();
    }
    return opset;
}

namespace {

/// Declares, for the inputs of the operators whose adapters need a rank, the type and rank
/// `known` gives where the model declares no shape.
::onnx::ModelProto with_known_ranks(const ::onnx::ModelProto &m,
                                    const std::map<std::string, graph::ValueInfo> &known) {
    ::onnx::ModelProto r = m;
    ::onnx::GraphProto *g = r.mutable_graph();
    std::map<std::string, ::onnx::ValueInfoProto *> declared;
    for (auto &v : *g->mutable_value_info())
        declared[v.name()] = &v;
    for (const auto &v : g->input())
        declared[v.name()] = nullptr;  // inputs and outputs declare their own
    for (const auto &v : g->output())
        declared[v.name()] = nullptr;
    for (const auto &n : g->node()) {
        const bool needs_rank =
            (n.domain().empty() || n.domain() == "ai.onnx") &&
            (n.op_type() == "Softmax" || n.op_type() == "LogSoftmax" || n.op_type() == "Hardmax");
        if (!needs_rank || n.input_size() < 1) continue;
        const std::string &name = n.input(0);
        auto k = known.find(name);
        if (k == known.end() || !k->second.type || !k->second.shape) continue;
        auto d = declared.find(name);
        if (d != declared.end() && (!d->second || d->second->type().tensor_type().has_shape()))
            continue;
        ::onnx::ValueInfoProto *v = d != declared.end() ? d->second : g->add_value_info();
        v->set_name(name);
        auto *t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(onnx_element_type(*k->second.type));
        auto *shape = t->mutable_shape();
        shape->clear_dim();
        for (const graph::Dim &dim : *k->second.shape) {
            auto *e = shape->add_dim();
            if (dim.known()) e->set_dim_value(dim.value);
        }
        declared[name] = v;
    }
    return r;
}

}  // namespace

void raise_opset(::onnx::ModelProto &m, int64_t opset, const std::string &path,
                 const std::map<std::string, graph::ValueInfo> &known) {
    const int64_t from = standard_opset(m);
    if (from >= opset) return;
    try {
        m = ::onnx::version_conversion::ConvertVersion(
            known.empty() ? m : with_known_ranks(m, known), static_cast<int>(opset));
    } catch (const std::exception &e) {
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        user_assert(false) << path << ": the model imports opset " << from << " and ONNX's "
                           << "version converter cannot raise it to " << opset << ": " << what;
    }
}

}  // namespace dsl::nn::onnx
