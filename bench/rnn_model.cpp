// Writes an ONNX model of one recurrent layer, for timing the NN layer's RNN, GRU and LSTM
// against ONNX Runtime (bench/nn_rnn_vs_ort.sh):
//   dsl_rnn_model OUT.onnx rnn|gru|lstm HIDDEN INPUT [forward|reverse|bidirectional] [all]
// The input x is [T, N, INPUT], T and N symbolic; the model returns Y, and the node's Y_h is left
// unread, as PyTorch exports its LSTMs; with `all`, it returns Y, Y_h and (LSTM) Y_c. The weights
// and biases are seeded values in [-0.1, 0.1).
#include <onnx/onnx_pb.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

void shape(onnx::ValueInfoProto *v, const std::string &name, const std::vector<std::string> &dims) {
    v->set_name(name);
    auto *t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (const std::string &d : dims) {
        auto *dim = t->mutable_shape()->add_dim();
        if (d[0] >= '0' && d[0] <= '9')
            dim->set_dim_value(std::stoll(d));
        else
            dim->set_dim_param(d);
    }
}

void weights(onnx::GraphProto *g, const std::string &name, const std::vector<int64_t> &dims,
             std::mt19937 &rng) {
    auto *t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    int64_t n = 1;
    for (int64_t d : dims) {
        t->add_dims(d);
        n *= d;
    }
    std::uniform_real_distribution<float> value(-0.1f, 0.1f);
    for (int64_t i = 0; i < n; i++)
        t->add_float_data(value(rng));
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 5) {
        std::fprintf(stderr,
                     "usage: dsl_rnn_model OUT.onnx rnn|gru|lstm HIDDEN INPUT "
                     "[forward|reverse|bidirectional] [all]\n");
        return 2;
    }
    const std::string out = argv[1], cell = argv[2];
    const int hidden = std::atoi(argv[3]), input = std::atoi(argv[4]);
    const std::string direction = argc > 5 ? argv[5] : "forward";
    const bool all = argc > 6 && std::string(argv[6]) == "all";
    const int gates = cell == "rnn" ? 1 : cell == "gru" ? 3 : cell == "lstm" ? 4 : 0;
    if (gates == 0 || hidden <= 0 || input <= 0) {
        std::fprintf(stderr, "dsl_rnn_model: unknown cell \"%s\" or sizes\n", cell.c_str());
        return 2;
    }
    const int dirs = direction == "bidirectional" ? 2 : 1;
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.set_producer_name("dsl-bench");
    auto *opset = m.add_opset_import();
    opset->set_domain("");
    opset->set_version(14);
    onnx::GraphProto *g = m.mutable_graph();
    g->set_name(cell);
    const std::string h = std::to_string(hidden), d = std::to_string(dirs);
    shape(g->add_input(), "x", {"T", "N", std::to_string(input)});
    shape(g->add_output(), "y", {"T", d, "N", h});
    if (all) {
        shape(g->add_output(), "y_h", {d, "N", h});
        if (cell == "lstm") shape(g->add_output(), "y_c", {d, "N", h});
    }
    std::mt19937 rng(7);
    weights(g, "w", {dirs, gates * hidden, input}, rng);
    weights(g, "r", {dirs, gates * hidden, hidden}, rng);
    weights(g, "b", {dirs, 2 * gates * hidden}, rng);
    auto *node = g->add_node();
    node->set_op_type(cell == "rnn" ? "RNN" : cell == "gru" ? "GRU" : "LSTM");
    node->set_name(cell);
    for (const char *in : {"x", "w", "r", "b"})
        node->add_input(in);
    node->add_output("y");
    node->add_output("y_h");
    if (cell == "lstm" && all) node->add_output("y_c");
    auto *a = node->add_attribute();
    a->set_name("hidden_size");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(hidden);
    a = node->add_attribute();
    a->set_name("direction");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(direction);
    std::ofstream file(out, std::ios::binary);
    if (!file || !m.SerializeToOstream(&file)) {
        std::fprintf(stderr, "dsl_rnn_model: cannot write %s\n", out.c_str());
        return 1;
    }
    return 0;
}
