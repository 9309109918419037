#pragma once
// Small ONNX models built in the tests (with ONNX's protobuf classes), written to a temporary
// directory: the graphs the conformance suite does not have (symbolic sizes, hostile files).
#include <onnx/onnx_pb.h>

#include <fstream>
#include <string>
#include <vector>

namespace dsl_test {

/// A one-graph model of the standard opset `opset`.
inline onnx::ModelProto make_model(int opset = 17) {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("dsl-tests");
    auto *op = m.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    m.mutable_graph()->set_name("test");
    return m;
}

/// A dimension is a number (>= 0) or a symbol.
struct TestDim {
    int64_t value = -1;
    std::string symbol;
    TestDim(int64_t v) : value(v) {}       // NOLINT
    TestDim(const char *s) : symbol(s) {}  // NOLINT
};

inline void set_value_info(onnx::ValueInfoProto *vi, const std::string &name, int elem_type,
                           const std::vector<TestDim> &shape) {
    vi->set_name(name);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type);
    auto *s = tt->mutable_shape();
    for (const TestDim &d : shape) {
        auto *dim = s->add_dim();
        if (d.symbol.empty())
            dim->set_dim_value(d.value);
        else
            dim->set_dim_param(d.symbol);
    }
}

inline void add_input(onnx::ModelProto &m, const std::string &name, int elem_type,
                      const std::vector<TestDim> &shape) {
    set_value_info(m.mutable_graph()->add_input(), name, elem_type, shape);
}

inline void add_output(onnx::ModelProto &m, const std::string &name, int elem_type,
                       const std::vector<TestDim> &shape) {
    set_value_info(m.mutable_graph()->add_output(), name, elem_type, shape);
}

inline onnx::NodeProto *add_node(onnx::ModelProto &m, const std::string &op,
                                 const std::vector<std::string> &inputs,
                                 const std::vector<std::string> &outputs,
                                 const std::string &name = "") {
    auto *n = m.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? op + std::to_string(m.graph().node_size()) : name);
    for (const auto &i : inputs)
        n->add_input(i);
    for (const auto &o : outputs)
        n->add_output(o);
    return n;
}

inline void add_int_attr(onnx::NodeProto *n, const std::string &name, int64_t v) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
}

inline void add_ints_attr(onnx::NodeProto *n, const std::string &name,
                          const std::vector<int64_t> &v) {
    auto *a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v)
        a->add_ints(x);
}

/// A float initializer of `dims` holding `values` (raw data).
inline void add_float_initializer(onnx::ModelProto &m, const std::string &name,
                                  const std::vector<int64_t> &dims,
                                  const std::vector<float> &values) {
    auto *t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
        t->add_dims(d);
    t->set_raw_data(
        std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(float)));
}

inline void add_int64_initializer(onnx::ModelProto &m, const std::string &name,
                                  const std::vector<int64_t> &dims,
                                  const std::vector<int64_t> &values) {
    auto *t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims)
        t->add_dims(d);
    for (int64_t v : values)
        t->add_int64_data(v);
}

/// An initializer of ONNX element type `data_type` holding `values` (raw data, of the matching
/// C++ type: uint8_t for UINT8, int8_t for INT8, int32_t for INT32, ...).
template <typename T>
void add_raw_initializer(onnx::ModelProto &m, const std::string &name, int data_type,
                         const std::vector<int64_t> &dims, const std::vector<T> &values) {
    auto *t = m.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(data_type);
    for (int64_t d : dims)
        t->add_dims(d);
    t->set_raw_data(
        std::string(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(T)));
}

inline void save_model(const onnx::ModelProto &m, const std::string &path) {
    std::ofstream out(path, std::ios::binary);
    m.SerializeToOstream(&out);
}

}  // namespace dsl_test
